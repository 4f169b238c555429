/* Peterson's filter for N users that compare _pid (issue 14's slow family): the wait is one
 * unrolled conjunction over every other user, with no atomic block around it; init starts
 * the users in one atomic step, so they are interchangeable (group N!, times the swaps of
 * flag[0]'s values: init's flag is never written).  Detection at N = 12 took over 120 s
 * when issue 14 was filed; the conjunction is now a gate in the coloured graph
 * (detect.symmetry.graph) instead of its 2^(N-1)-row table.
 * test: -D N=3 */
#define N 3

byte flag[N + 1];     /* flag[_pid]: the level user _pid is at (pids 1..N) */
byte turn[N];         /* turn[k]: the last user to enter level k */
byte incs;            /* users in the critical section */

proctype user()
{
	byte k;
	do
	:: k = 1;
	   do
	   :: k < N ->
		flag[_pid] = k;
		turn[k] = _pid;
		((_pid == 1 || flag[1] < k)
#if N >= 2
		 && (_pid == 2 || flag[2] < k)
#endif
#if N >= 3
		 && (_pid == 3 || flag[3] < k)
#endif
#if N >= 4
		 && (_pid == 4 || flag[4] < k)
#endif
#if N >= 5
		 && (_pid == 5 || flag[5] < k)
#endif
#if N >= 6
		 && (_pid == 6 || flag[6] < k)
#endif
#if N >= 7
		 && (_pid == 7 || flag[7] < k)
#endif
#if N >= 8
		 && (_pid == 8 || flag[8] < k)
#endif
#if N >= 9
		 && (_pid == 9 || flag[9] < k)
#endif
#if N >= 10
		 && (_pid == 10 || flag[10] < k)
#endif
#if N >= 11
		 && (_pid == 11 || flag[11] < k)
#endif
#if N >= 12
		 && (_pid == 12 || flag[12] < k)
#endif
		) || turn[k] != _pid;
		k = k + 1
	   :: else -> break
	   od;
	   incs++;
	   assert(incs == 1);
	   incs--;
	   flag[_pid] = 0
	od
}

init {
	atomic {
		run user();
		run user();
#if N >= 3
		run user();
#endif
#if N >= 4
		run user();
#endif
#if N >= 5
		run user();
#endif
#if N >= 6
		run user();
#endif
#if N >= 7
		run user();
#endif
#if N >= 8
		run user();
#endif
#if N >= 9
		run user();
#endif
#if N >= 10
		run user();
#endif
#if N >= 11
		run user();
#endif
#if N >= 12
		run user();
#endif
	}
}
