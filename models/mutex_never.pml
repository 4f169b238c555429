/* N users take a test-and-set lock around a critical section; a never claim watches for
 * users 0 and 1 in the critical section together, or more than one user counted inside.
 * The claim is part of the model: it names users 0 and 1 alike, so symmetry may swap them
 * and may permute users 2..N-1 among themselves, but never a user the claim names with one
 * it does not (group order 2 * (N-2)!).  Spin: 10 states stored at N=3 (pan without -DNOCLAIM). */
#define N 3

bool busy;
byte inside;

active [N] proctype user()
{
	do
	:: atomic { !busy -> busy = true };
cs:	   inside++;
	   inside--;
	   busy = false
	od
}

never {
	do
	:: user[0]@cs && user[1]@cs -> break
	:: inside > 1 -> break
	:: else
	od
}
