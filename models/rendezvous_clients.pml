/* N clients take turns in a critical section granted by a server, all over rendezvous
 * channels.  The server is pid 0 and the clients are pids 1..N, so no client's pid equals
 * the initial value 0 of the server's `who` (which would single that client out); requests
 * and releases are told apart by a field, not by pid arithmetic (pid + N would let one
 * client's request match another's release in unreachable states). */
#define N 3

mtype = { request, release };
chan req = [0] of { mtype, byte };
chan grant[N + 1] = [0] of { bit };
byte inside;                      /* clients in the critical section */

active proctype server()
{
	byte who;
	do
	:: req?request,who -> grant[who]!1; req?release,eval(who)
	od
}

active [N] proctype client()
{
	do
	:: req!request,_pid;
	   grant[_pid]?1;
	   inside++;
	   assert(inside == 1);
	   inside--;
	   req!release,_pid
	od
}
