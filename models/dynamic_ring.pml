/* A ring whose size n is a variable: init starts n nodes in a loop (run depends on the
 * run-time value n), each node passes its value to its successor and checks what it gets.
 * test: -D N=3 */
#define N 3

chan link[N] = [1] of { byte };
byte n = N;

proctype Node(byte i)
{
	byte got;
	link[(i + 1) % n]!i;
	link[i]?got;
	assert(got == (i + n - 1) % n)
}

init
{
	byte i;
	do
	:: i < n -> run Node(i); i++
	:: i == n -> break
	od
}
