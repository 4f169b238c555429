/* C clients send requests to a balancer, each carrying the client's own reply channel; the
 * balancer hands every request to one of W workers, which answers on the channel it got.
 * A channel value is the channel's identity: symmetry swaps two clients together with their
 * reply channels (the identities stored in the balancer's and workers' buffers and
 * variables move alike), and two workers together with their work channels.
 * Spin (-DSAFETY -DNOREDUCE -DNOCLAIM, -o1 -o2 -o3): 157 states stored; 42 with --reduce exact
 * (group order 4).  The balancer names both work channels, so W stays 2. */
#define C 2
#define W 2

mtype = { job, done };
chan balancer = [C] of { mtype, chan };
chan work[W] = [1] of { chan };

active [C] proctype client()
{
	chan reply = [1] of { mtype };
	balancer!job, reply;
	reply?done
}

active proctype lb()
{
	chan r;
end:	do
	:: balancer?job, r ->
		if
		:: work[0]!r
		:: work[1]!r
		fi
	od
}

active [W] proctype worker()
{
	chan r;
end:	do
	:: work[_pid - C - 1]?r -> r!done
	od
}
