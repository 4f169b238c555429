-- test: -D N=2
-- A small directory-based cache coherence protocol in the style of German's protocol,
-- written for symdetect's Murphi front end with procedures, a function, Switch and Alias.
--
-- N caches (a Scalarset) request shared or exclusive access from one home node.  The home
-- serves one request at a time: for an exclusive request it invalidates every sharer
-- first, then grants.  Messages are single-slot channels per cache.  Every permutation
-- of the caches is a symmetry: `symdetect analyze` finds S_N (order 6 for N = 3), and
-- `explore --reduce exact` keeps one state per orbit.  The invariant: an exclusive
-- holder is the only cache with any copy.

Const
  N: 3;

Type
  cache_t: Scalarset(N);
  state_t: Enum { Invalid, Shared, Exclusive };
  msg_t: Enum { Empty, ReqS, ReqE, Inv, InvAck, GntS, GntE };

Var
  cache: Array [cache_t] Of state_t;
  chan1: Array [cache_t] Of msg_t;      -- cache -> home requests
  chan2: Array [cache_t] Of msg_t;      -- home -> cache invalidations and grants
  chan3: Array [cache_t] Of msg_t;      -- cache -> home invalidation acks
  sharer: Array [cache_t] Of boolean;   -- the home's record of who holds a copy
  invalidating: Array [cache_t] Of boolean;
  exclusive_granted: boolean;
  cur_cmd: msg_t;                       -- the request being served (Empty: none)
  cur_client: cache_t;                  -- undefined while no request is served

Procedure Send(Var channel: msg_t; m: msg_t);
Begin
  channel := m;
End;

Procedure Grant(c: cache_t);
Begin
  If cur_cmd = ReqS Then
    Send(chan2[c], GntS);
  Else
    Send(chan2[c], GntE);
    exclusive_granted := true;
  End;
  sharer[c] := true;
  cur_cmd := Empty;
  Undefine cur_client;
End;

Function OthersShare(c: cache_t): boolean;
Begin
  For k: cache_t Do
    If k != c & sharer[k] Then Return true; End;
  End;
  Return false;
End;

Ruleset c: cache_t Do

  Rule "request shared"
    cache[c] = Invalid & chan1[c] = Empty ==>
  Begin
    Send(chan1[c], ReqS);
  End;

  Rule "request exclusive"
    cache[c] != Exclusive & chan1[c] = Empty ==>
  Begin
    Send(chan1[c], ReqE);
  End;

  Rule "home picks request"
    cur_cmd = Empty & chan1[c] != Empty ==>
  Begin
    cur_cmd := chan1[c];
    cur_client := c;
    chan1[c] := Empty;
    For k: cache_t Do
      invalidating[k] := sharer[k];
    End;
  End;

  Rule "home invalidates"
    invalidating[c] & chan2[c] = Empty
    & (cur_cmd = ReqE | cur_cmd = ReqS & exclusive_granted) ==>
  Begin
    Send(chan2[c], Inv);
    invalidating[c] := false;
  End;

  Rule "cache receives"
    chan2[c] != Empty ==>
  Begin
    Alias m: chan2[c]; st: cache[c] Do
      Switch m
      Case Inv:
        If chan3[c] = Empty Then
          Send(chan3[c], InvAck);
          st := Invalid;
          m := Empty;
        End;
      Case GntS:
        st := Shared;
        m := Empty;
      Case GntE:
        st := Exclusive;
        m := Empty;
      End;
    End;
  End;

  Rule "home receives ack"
    chan3[c] = InvAck ==>
  Begin
    chan3[c] := Empty;
    sharer[c] := false;
    exclusive_granted := false;
  End;

  Rule "home grants"
    cur_cmd != Empty & cur_client = c
    & (cur_cmd = ReqS & !exclusive_granted | cur_cmd = ReqE & !OthersShare(c) & !sharer[c])
    & chan2[c] = Empty ==>
  Begin
    Grant(c);
  End;

End;

Startstate
Begin
  For c: cache_t Do
    cache[c] := Invalid;
    chan1[c] := Empty;
    chan2[c] := Empty;
    chan3[c] := Empty;
    sharer[c] := false;
    invalidating[c] := false;
  End;
  exclusive_granted := false;
  cur_cmd := Empty;
  Undefine cur_client;
End;

Invariant "exclusive is alone"
  Forall i: cache_t Do Forall j: cache_t Do
    (cache[i] = Exclusive & cache[j] != Invalid) -> i = j
  End End;
