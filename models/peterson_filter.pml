/* Peterson's filter algorithm for N processes (mutual exclusion).
 * Process i (pids 1..N; init is pid 0) climbs levels 1..N-1; at each level it
 * announces itself as the victim and waits until no other process is at the same
 * level or higher, or it is no longer the victim.  The wait is one atomic test over
 * all other processes, so no process is scanned in index order. */
#define N 3

byte level[N];        /* level[_pid - 1]: the level of process _pid */
byte victim[N];       /* victim[l] = pid of the last process to enter level l */
byte incs;            /* processes in the critical section */

proctype user()
{
	byte l;
	do
	:: l = 1;
	   do
	   :: l < N ->
		level[_pid - 1] = l;
		victim[l] = _pid;
		(victim[l] != _pid ||
		 !( (_pid != 1 && level[0] >= l)
#if N > 1
		 || (_pid != 2 && level[1] >= l)
#endif
#if N > 2
		 || (_pid != 3 && level[2] >= l)
#endif
#if N > 3
		 || (_pid != 4 && level[3] >= l)
#endif
#if N > 4
		 || (_pid != 5 && level[4] >= l)
#endif
#if N > 5
		 || (_pid != 6 && level[5] >= l)
#endif
#if N > 6
		 || (_pid != 7 && level[6] >= l)
#endif
#if N > 7
		 || (_pid != 8 && level[7] >= l)
#endif
#if N > 8
		 || (_pid != 9 && level[8] >= l)
#endif
#if N > 9
		 || (_pid != 10 && level[9] >= l)
#endif
#if N > 10
		 || (_pid != 11 && level[10] >= l)
#endif
#if N > 11
		 || (_pid != 12 && level[11] >= l)
#endif
		));
		l = l + 1
	   :: else -> break
	   od;
	   incs++;
	   assert(incs == 1);
	   incs--;
	   level[_pid - 1] = 0
	od
}

init {
	atomic {
		run user();
		run user();
#if N > 2
		run user();
#endif
#if N > 3
		run user();
#endif
#if N > 4
		run user();
#endif
#if N > 5
		run user();
#endif
#if N > 6
		run user();
#endif
#if N > 7
		run user();
#endif
#if N > 8
		run user();
#endif
#if N > 9
		run user();
#endif
#if N > 10
		run user();
#endif
#if N > 11
		run user();
#endif
	}
}
