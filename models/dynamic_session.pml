/* Seed 001's example (Klaudel et al., ISCIS 2009, Fig. 1): S server threads wait for
 * requests; each request gets a handler thread, the handler calls a function (a thread it
 * creates and waits for), sends the result back and ends; the server collects it.
 * Here a client makes K requests in turn, each a year; the function computes whether it is
 * a leap year.
 * test: -D K=2 */
#define S 2       /* server threads */
#define K 2       /* requests */

chan request = [1] of { short };
chan answer = [1] of { bit };
chan result[S] = [0] of { bit };    /* function -> handler of server s */
chan finished[S] = [0] of { bit };  /* handler -> its server */

proctype Function(byte s; short year)
{
	result[s]!((year % 4 == 0 && year % 100 != 0) || year % 400 == 0)
}

proctype Handler(byte s; short year)
{
	bit leap;
	run Function(s, year);
	result[s]?leap;
	answer!leap;
	finished[s]!1
}

active [S] proctype Server()
{
	short year;
end:	do
	:: request?year -> run Handler(_pid, year); finished[_pid]?_
	od
}

active proctype Client()
{
	byte k;
	bit leap;
	do
	:: k < K -> request!2008 + k; answer?leap; assert(leap == (k == 0)); k++
	:: k == K -> break
	od
}
