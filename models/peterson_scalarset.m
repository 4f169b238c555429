-- Peterson's filter lock for N processes, written for symdetect's Murphi front end.
--
-- The processes are a Scalarset, so every permutation of them is a symmetry: a ruleset over
-- pid is one summand family, and the pids stored in victim[] are permuted with them.
-- Expected: `symdetect analyze` finds S_N (order 6 for N = 3); `symdetect explore
-- --reduce exact` keeps one state per orbit; the invariant holds and there is no deadlock.
-- CMurphi 5.4 at N = 3: 894 states, 2682 rules fired with -nosym; 174 states with -sym1
-- (`symdetect explore` and `--reduce exact` give the same; tests/test_murphi_regressions.py).
-- Each process climbs levels 1..N-1; at level L it announces itself (level[i] := L), makes
-- itself the victim of L, and waits until no other process is at level L or above, or
-- another process has become the victim of L.

Const
  N: 3;

Type
  pid: Scalarset(N);
  level_t: 0..N-1;
  pc_t: Enum { idle, announce, yield, wait, critical };

Var
  pc: Array [pid] Of pc_t;
  level: Array [pid] Of level_t;     -- the level each process has announced (0: none)
  climbing: Array [pid] Of level_t;  -- the level each process is trying to pass
  victim: Array [level_t] Of pid;    -- undefined until someone yields at that level

Ruleset i: pid Do

  Rule "start"
    pc[i] = idle ==>
  Begin
    climbing[i] := 1;
    pc[i] := announce;
  End;

  Rule "announce level"
    pc[i] = announce ==>
  Begin
    level[i] := climbing[i];
    pc[i] := yield;
  End;

  Rule "become victim"
    pc[i] = yield ==>
  Begin
    victim[climbing[i]] := i;
    pc[i] := wait;
  End;

  Rule "pass level"
    pc[i] = wait ==>
  Begin
    If (Forall k: pid Do k = i | level[k] < climbing[i] End)
       | victim[climbing[i]] != i
    Then
      If climbing[i] = N - 1 Then
        pc[i] := critical;
      Else
        climbing[i] := climbing[i] + 1;
        pc[i] := announce;
      End;
    End;
  End;

  Rule "leave"
    pc[i] = critical ==>
  Begin
    level[i] := 0;
    Clear climbing[i];
    pc[i] := idle;
  End;

End;

Startstate
Begin
  For i: pid Do
    pc[i] := idle;
    level[i] := 0;
  End;
  Clear climbing;
  For l: level_t Do
    Undefine victim[l];
  End;
End;

Invariant "mutual exclusion"
  Forall i: pid Do Forall j: pid Do
    (pc[i] = critical & pc[j] = critical) -> i = j
  End End;
