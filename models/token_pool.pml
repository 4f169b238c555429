/* Three identical clients share two resource tokens kept in a channel; taking and
   returning a token are d_steps with a channel operation. */
chan pool = [2] of { bit };
byte inuse;
active proctype stock() { pool!1; pool!1 }
active [3] proctype client() {
  bit t;
end:
  do
  :: d_step { pool?t; inuse++ }; assert(inuse <= 2); d_step { inuse--; pool!t; t = 0 }
  od
}
