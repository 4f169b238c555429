/* A server spawns one handler per request (run inside a proctype, with a value known only
 * at run time); each handler answers its client and ends.  Handlers are numbered by run-time
 * pids: a handler that has ended keeps its pid until every later one has ended (Spin removes
 * processes last-in-first-out), and the next handler reuses the lowest free pid.
 * test: -D R=2 */
#define R 2          /* requests per client */
#define C 2          /* clients */

chan request = [C] of { byte, byte };       /* client, value */
chan reply[C] = [1] of { byte };
byte answered;

proctype Handler(byte client; byte value)
{
	reply[client]!value % 2;
	answered++
}

active proctype Server()
{
	byte client, value;
end:	do
	:: request?client,value -> run Handler(client, value)
	od
}

active [C] proctype Client()
{
	byte sent, parity;
	do
	:: sent < R -> request!_pid - 1,sent; reply[_pid - 1]?parity; assert(parity == sent % 2); sent++
	:: sent == R -> break
	od
}
