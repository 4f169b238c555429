/* models/token_pool.pml with LTL properties: three identical clients share two tokens
   kept in a channel.  'inuse' counts the tokens out; each client marks its critical
   section with the label 'cs'.  A formula over 'inuse' is symmetric under every
   permutation of the clients; one naming client[1] (pid 1) is kept only by the
   permutations that fix it. */
chan pool = [2] of { bit };
byte inuse;
active proctype stock() { pool!1; pool!1 }
active [3] proctype client() {
  bit t;
end:
  do
  :: d_step { pool?t; inuse++ };
cs:  assert(inuse <= 2);
     d_step { inuse--; pool!t; t = 0 }
  od
}
ltl bounded { [] (inuse <= 2) }
ltl busy { []<> (inuse > 0) }
ltl served { [] <> client[1]@cs }
ltl exclusive { [] !(client[1]@cs && client[2]@cs) }
