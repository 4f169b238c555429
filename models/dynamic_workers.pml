/* init starts n workers in a loop over a variable (so at run time); the workers never end
 * and never read _pid, so which pid each got is immaterial: seed 001's pid abstraction
 * (explore --reduce pids) keeps one state per assignment of worker states to pids.
 * Detection finds no symmetry: a run fills the lowest free pid, which tells pids apart.
 * test: -D W=3 */
#define W 3      /* workers */
#define J 3      /* jobs */

chan jobs = [J] of { byte };
byte n = W;
byte done;

proctype Worker()
{
	byte job, count;
end:	do
	:: atomic { jobs?job -> count++ }; done++
	od
}

init
{
	byte i;
	do
	:: i < n -> run Worker(); i++
	:: i == n -> break
	od;
	i = 0;
	do
	:: i < J -> i++; jobs!i
	:: i == J -> break
	od;
	done == J
}
