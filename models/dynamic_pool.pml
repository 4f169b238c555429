/* A pool of at most P workers: init restarts a worker whenever fewer than P are alive, until
 * J jobs are done.  Workers end, and a new worker reuses the pid of one that ended (Spin:
 * the lowest free pid; removal is last-in-first-out).
 * test: -D J=4 */
#define J 4     /* jobs */
#define P 2     /* workers alive at most */

byte busy, done;

proctype Worker(byte job)
{
	busy++;
	assert(busy <= P);
	busy--;
	done++
}

init
{
	byte started;
	do
	:: started < J && _nr_pr <= P -> run Worker(started); started++
	:: started == J -> break
	od;
	done == J
}
