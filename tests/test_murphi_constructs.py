"""Murphi as CMurphi's own examples write it (issue 27): each construct on a minimal model,
with CMurphi 5.4's counts hard-coded (``-nosym -ndl``: states, rules fired; ``-sym1``:
states), so that these run without CMurphi; ``tests/test_differential_murphi.py`` compares
the random models of ``tests/murphi_gen.py``, which use every construct here, with CMurphi
itself."""
from __future__ import annotations

from detect.checking.murphi_counts import murphi_counts
from detect.checking.verify import verify
from detect.symmetry.perm import StatePermutation
from detect.symmetry.pipeline import detect
from frontends.murphi import parse_text

from tests.frontend_checks import assert_located_error
from tests.test_frontend_murphi import _reduced_states


def _counts(text: str, defines=None):
    c = murphi_counts(parse_text(text, "t.m", defines))
    return c.states, c.rules_fired, c.violated


RECORD_AND_BARE_RULES = """
Type R : Record a : 0..1; b : 0..1 End;
     S : Record c : boolean;; d: boolean; End;
Var r : R; s : S; x : 0..1;
Startstate r.a := 0; r.b := 0; s.c := false; s.d := true; Put "hello"; Put x; x := 0; End;
Rule "flip" true ==> x := 1 - x; Put "flip"; End;
Rule "r" r.a = 0 ==> Var t : 0..1; Begin t := r.b; r.b := 1 - t; End;
"""


def test_last_record_field_without_semicolon_rules_without_begin_and_put():
    """abp.m's ``Record a: ...; b: ... End``, list6.m's ``Rule "flip" c ==> x := 1 - x; End``
    and ``Put`` (prints only): CMurphi 4 states, 8 rules fired."""
    assert _counts(RECORD_AND_BARE_RULES) == (4, 8, False)


def test_rule_priority_is_refused_at_the_number():
    text = 'Var x: boolean;\nStartstate x := false; End;\nRule 5 "r" true ==> x := !x; End;'
    assert_located_error(parse_text, text, "p.m", 3, 6, "rule priority 5 is not supported")


LOCAL_AGGREGATES = """
Const N: 2;
Type pid: Scalarset(N);
     R : Record a : 0..1; End;
     A : Array [pid] of 0..2;
Var r : R; arr : A; x : 0..1;
Procedure bump(p: pid); Var loc : A; Begin loc := arr; loc[p] := (loc[p] + 1) % 3; arr := loc; End;
Startstate Var t : R; Begin t.a := 0; r := t; For i : pid Do arr[i] := 0; End; x := 0; End;
Rule "flip" true ==> Var t : R; Begin t := r; t.a := 1 - t.a; r := t; End;
Ruleset p : pid Do
  Rule "inc" true ==> Var u : A; Begin u := arr; u[p] := (u[p] + 1) % 3; arr := u; End;
  Rule "inc2" x = 0 ==> bump(p); x := 1; End;
End;
"""


def test_rule_local_records_and_arrays():
    """mcslock2.m's ``Rule ... Var t : R; Begin t := r; ...``, a procedure's local array and a
    start state's local record: CMurphi 36 states, 144 rules fired; -sym1 24 states, which
    --reduce exact gives with the scalarset's swap (the local arrays are per-element state
    that every rule leaves undefined, so the swap is found)."""
    assert _counts(LOCAL_AGGREGATES) == (36, 144, False)
    model = parse_text(LOCAL_AGGREGATES, "t.m")
    assert _reduced_states(model) == (2, 24)


def test_reading_an_undefined_element_of_a_local_array_is_an_error():
    """CMurphi: "The undefined value at u[pid_1] is referenced"."""
    text = LOCAL_AGGREGATES + 'Ruleset p : pid Do Rule "bad" x = 1 ==> Var u : A; Begin If u[p] = 0 Then x := 0; End; End; End;'
    assert _counts(text)[2]


ALIAS_RULES = """
Var x : Array [0..1] of 0..1; r : Record f : Array [0..1] of boolean; End;
Startstate Begin x[0] := 0; x[1] := 0; r.f[0] := false; r.f[1] := false; End;
Ruleset i : 0..1 Do Alias y : x[i] Do Rule "set" y = 0 ==> Begin y := 1; End; End; End;
Alias g : r.f; n : 1 Do
  Ruleset j : 0..1 Do
    Alias h : g[j] Do
      Rule "flip" x[j] = n ==> h := !h; End;
      Invariant "inv" h -> x[j] = 1;
    End;
  End;
End;
"""


def test_alias_around_rules_rulesets_and_invariants():
    """dp4.m's ``Alias ... Do`` around rules (the issue's minimal case is the first
    ruleset): CMurphi 9 states, 18 rules fired, no error."""
    assert _counts(ALIAS_RULES) == (9, 18, False)
    text = ALIAS_RULES.replace("h -> x[j] = 1", "!h")
    assert _counts(text)[2]  # the invariant reads the alias: violated once a flag is set


UNION = """
Type A : Scalarset(2); B : Scalarset(2); U : Union{A, B};
Var u : U; c : Array[U] of 0..1; a : A; b : B;
Startstate Begin Undefine u; For i : U Do c[i] := 0; End; Undefine a; Undefine b; End;
Ruleset i : U Do Rule "set" c[i] = 0 ==> Begin c[i] := 1; u := i; End; End;
Ruleset i : B Do Rule "pick" u = i ==> Begin b := i; c[i] := 0; End; End;
Ruleset i : A Do Rule "pa" !IsUndefined(u) & u = i ==> Begin c[u] := 0; Undefine u; End; End;
"""


def test_union_of_scalarsets_permutes_each_member_independently():
    """``Union{A, B}`` (list6.m, cache3.m, the dash protocols): CMurphi 148 states, 380 rules
    fired; -sym1 52 states.  Each member's values are apart in the union, and detection
    finds S_2 x S_2 (order 4), whose exact reduction is -sym1's count."""
    assert _counts(UNION) == (148, 380, False)
    assert _reduced_states(parse_text(UNION, "u.m")) == (4, 52)


def test_union_members_keep_their_values_apart():
    """An enum and a scalarset in one union: comparing the union with a member's value."""
    text = """
Type E : Enum {red, green}; P : Scalarset(2); U : Union{E, P};
Var u : U; p : P;
Startstate Begin u := red; Undefine p; End;
Ruleset i : P Do Rule "take" u = red ==> Begin u := i; p := i; End; End;
Rule "back" !IsUndefined(p) & u = p ==> Begin u := green; End;
Rule "again" u = green ==> Begin u := red; Undefine p; End;
"""
    assert _counts(text) == (5, 6, False)  # CMurphi: 5 states, 6 rules fired


MULTISET = """
Const N : 2; K : 3;
Type pid : Scalarset(N);
     Msg : Record src : pid; v : 0..1; End;
Var net : Multiset[K] of Msg; cnt : Array[pid] of 0..2;
Startstate Begin For i : pid Do cnt[i] := 0; End; End;
Ruleset p : pid Do
  Rule "send" cnt[p] < 2 & MultisetCount(i : net, true) < K ==>
  Var m : Msg; Begin m.src := p; m.v := cnt[p] % 2; MultisetAdd(m, net); cnt[p] := cnt[p] + 1; End;
End;
Choose i : net Do
  Rule "recv" true ==> Begin cnt[net[i].src] := 0; MultisetRemove(i, net); End;
End;
"""

MULTISET_ENUM = """
Const K : 3;
Type E : Enum {a, b, c};
Var net : Multiset[K] of E; n : 0..4;
Startstate Begin n := 0; End;
Rule "add" MultisetCount(i : net, true) < K & n < 4 ==> MultisetAdd(a, net); n := n + 1; End;
Rule "addb" MultisetCount(i : net, true) < K ==> MultisetAdd(b, net); End;
Choose i : net Do
  Rule "bump" net[i] != c ==> net[i] := (net[i] = a ? b : c); End;
  Rule "del" net[i] = c ==> MultisetRemove(i, net); End;
End;
"""


def test_multisets_count_as_cmurphi_with_its_multiset_reduction():
    """``Multiset[K] Of T`` with MultisetAdd, MultisetRemove, MultisetCount and Choose
    (newlist6.m, cache3multi.m): CMurphi -nosym (which sorts every stored multiset) 62
    states, 204 rules fired; 85 / 266 for the second model (-nomultiset: 265 and 272)."""
    assert _counts(MULTISET) == (62, 204, False)
    assert _counts(MULTISET_ENUM) == (85, 266, False)


def test_multisets_without_sorting_count_as_cmurphi_nomultiset(tmp_path):
    """``explore --nomultiset`` is CMurphi's ``-nosym -nomultiset``: 265 states, 888 rules
    fired; 272 / 891."""
    for text, expected in ((MULTISET, (265, 888)), (MULTISET_ENUM, (272, 891))):
        c = murphi_counts(parse_text(text, "t.m", multiset_sort=False))
        assert (c.states, c.rules_fired, c.violated) == expected + (False,)
    path = tmp_path / "ms.m"
    path.write_text(MULTISET)
    from click.testing import CliRunner

    from detect.cli import main

    run = CliRunner().invoke(main, ["explore", str(path), "--nomultiset", "--ndl", "--json"])
    assert run.exit_code == 0 and '"states": 265' in run.output


def test_multiset_remove_pred_and_reading_a_freed_place():
    """``MultisetRemovePred(j : net, net[j].src = net[i].src)`` frees place i itself, then
    reads net[i]: CMurphi stops with "Internal Error: 1 not in index range of net"; a
    place that holds no element is an error to read for us too."""
    text = MULTISET.replace('Rule "recv"', 'Rule "drop" net[i].v = 1 ==> '
                            'MultisetRemovePred(j : net, net[j].src = net[i].src); End;\n  Rule "recv"')
    assert _counts(text)[2]
    text = MULTISET.replace('Rule "recv"', 'Rule "drop" net[i].v = 1 ==> '
                            'MultisetRemovePred(j : net, net[j].v = 1); End;\n  Rule "recv"')
    assert _counts(text) == (81, 318, False)  # CMurphi


def test_ismember_tests_which_member_a_union_holds():
    """cache3.m's ``If IsMember(n, Proc)``: CMurphi 36 states, 54 rules fired; -sym1 21."""
    text = """
Type H : Scalarset(1); P : Scalarset(2); N : Union{H, P};
Var n : N; c : Array[P] of 0..2;
Startstate Begin Undefine n; For i : P Do c[i] := 0; End; End;
Ruleset i : N Do Rule "pick" IsUndefined(n) ==> n := i; End; End;
Rule "use" !IsUndefined(n) ==> If IsMember(n, P) Then c[n] := (c[n] + 1) % 3; End; Undefine n; End;
"""
    assert _counts(text) == (36, 54, False)
    assert _reduced_states(parse_text(text, "m.m")) == (2, 21)


ARRAY_OF_MULTISETS = """
Const N : 2;
Type node : 0..N-1; bit : 0..1;
Var net : Array[node] of Multiset[2] of bit; sent : 0..3; zero : bit; one : bit;
Startstate Begin sent := 0; zero := 0; one := 1; End;
Ruleset d : node Do
  Rule "send0" sent < 3 & MultisetCount(i : net[d], true) < 2 ==> MultisetAdd(zero, net[d]); sent := sent + 1; End;
  Rule "send1" sent < 2 & MultisetCount(i : net[d], true) < 2 ==> MultisetAdd(one, net[d]); sent := sent + 1; End;
  Choose i : net[d] Do
    Rule "recv" MultisetCount(j : net[(d + 1) % N], true) < 2 ==>
    Begin If net[d][i] = 1 Then MultisetAdd(zero, net[(d + 1) % N]); End; MultisetRemove(i, net[d]); End;
  End;
End;
"""


def test_an_array_of_multisets_chosen_by_a_ruleset_parameter():
    """``Choose i : net[d]`` (the per-node networks of the cache examples): CMurphi -nosym 44
    states, 116 rules fired, and a deadlock without -ndl; -nomultiset 77 / 192."""
    c = murphi_counts(parse_text(ARRAY_OF_MULTISETS, "t.m"))
    assert (c.states, c.rules_fired, c.violated, c.deadlocked) == (44, 116, False, True)
    c = murphi_counts(parse_text(ARRAY_OF_MULTISETS, "t.m", multiset_sort=False))
    assert (c.states, c.rules_fired) == (77, 192)


def test_an_alias_around_rules_is_bound_before_the_condition_as_in_cmurphi():
    """CMurphi binds ``Alias y : (m[i] = a)`` around a rule inside ``Choose i : m`` before it
    tests the place: on a free place that is "Internal Error: 0 not in index range of m"
    (found by the differential test, seed 89).  We evaluated the alias only where used."""
    text = """
Type E : Enum {a, b};
Var m : Multiset[2] of E; x : boolean;
Startstate Begin x := false; End;
Rule "add" !x ==> MultisetAdd(a, m); x := true; End;
Choose i : m Do
  Alias y : (m[i] = a) Do
    Rule "r" x ==> x := false; End;
  End;
End;
"""
    assert _counts(text)[2]
    # The same alias inside the rule's body is evaluated there, after the place is tested:
    # CMurphi 5 states, 5 rules fired, no error.
    text = text.replace("Alias y : (m[i] = a) Do\n    Rule \"r\" x ==> x := false; End;\n  End;",
                        "Rule \"r\" x ==> Alias y : (m[i] = a) Do x := false; End; End;")
    text = text.replace('Rule "add" !x ==>', 'Rule "add" !x & MultisetCount(j : m, true) < 2 ==>')
    assert _counts(text) == (5, 5, False)


def test_an_undefined_union_member_is_no_other_members_value():
    """The undefined value of a union member was the value below its own, another member's
    value (an undefined P compared equal to the enum's last constant): CMurphi 6 states, 24
    rules fired; we had 22 (differential seed 19)."""
    text = """
Type E : Enum {red, green}; P : Scalarset(2); U : Union{E, P};
Var p : P; x : 0..1;
Startstate Begin Undefine p; x := 0; End;
Ruleset k : U Do Rule "r" k != p ==> x := 1 - x; End; End;
Ruleset i : P Do Rule "set" IsUndefined(p) ==> p := i; End; End;
"""
    assert _counts(text) == (6, 24, False)


UNDEFINED_AND_EMPTIED_MULTISETS = """
Const K : 2;
Type P : Scalarset(2); B : 0..1; Msg : Record src : P; aux : P; End;
Var net : Multiset[K] of Msg; n : 0..3; last : P; r : Record m : Multiset[K] of B; c : B; End;
Procedure send(s : P; a : P);
Var m : Msg;
Begin m.src := s; m.aux := a; MultisetAdd(m, net); End;
Startstate Begin n := 0; Undefine last; Undefine net; Clear r; End;
Ruleset p : P Do
  Rule "plain" MultisetCount(i : net, true) < K & n < 3 ==> send(p, UNDEFINED); n := n + 1; End;
  Rule "aux" MultisetCount(i : net, true) < K & n < 3 ==> send(p, p); n := n + 1; End;
  Rule "keep" MultisetCount(i : r.m, true) < K ==> MultisetAdd(r.c, r.m); r.c := 1 - r.c; End;
End;
Choose i : net Do
  Rule "recv" true ==> last := net[i].aux; MultisetRemove(i, net); End;
End;
Rule "flush" MultisetCount(i : net, true) = K ==> Undefine net; last := UNDEFINED; End;
Rule "reset" MultisetCount(i : r.m, true) = K ==> Clear r; End;
"""


def test_undefined_keyword_and_undefine_or_clear_of_a_multiset():
    """newlist6.m's ``Send(Add, d, s, UNDEFINED, UNDEFINED)`` and ``Undefine Net`` of a
    multiset: ``UNDEFINED`` passed or assigned copies the undefined value (nothing is read),
    and ``Undefine``/``Clear`` of a multiset (or of a record holding one) empties it, as
    CMurphi's generated ``undefine()``/``clear()`` do.  CMurphi 5.4 -nosym: 234 states, 1110
    rules fired."""
    assert _counts(UNDEFINED_AND_EMPTIED_MULTISETS) == (234, 1110, False)
    # Reading UNDEFINED as a value is still refused at the name.
    text = UNDEFINED_AND_EMPTIED_MULTISETS.replace('n < 3 ==> send(p, p)', 'n < 3 & last = UNDEFINED ==> send(p, p)')
    line = text.splitlines().index([t for t in text.splitlines() if "last = UNDEFINED" in t][0]) + 1
    column = text.splitlines()[line - 1].index("UNDEFINED") + 1
    assert_located_error(parse_text, text, "t.m", line, column, "UNDEFINED")


COMPUTED_FOR = """
Const N : 3;
Type I : 0..N-1;
Var a : Array[I] of 0..2; c : 0..N; s : 0..9;
Startstate Begin c := 0; s := 0; For i : I Do a[i] := 0; End; End;
Rule "push" c < N ==> a[c] := (s % 2) + 1; c := c + 1; s := (s + 1) % 10; End;
Rule "shift" c > 0 ==> For i := 0 To c - 2 Do a[i] := a[i+1]; End; a[c-1] := 0; c := c - 1; End;
Rule "drain" c > 1 ==> For i := c - 1 To 1 By -1 Do c := c - 1; a[i] := 0; End; End;
Rule "sum" c > 0 ==> s := 0; For i := 0 To c - 1 Do s := s + a[i]; End; End;
"""


def test_for_loops_with_computed_bounds():
    """ldash.m's ``For i := 0 To QueuedCount-2 Do``: bounds evaluated once on entry, as
    CMurphi's generated ``int mu__ub = hi; for (...; i <= mu__ub; ...)`` ("drain" changes
    ``c`` inside its loop).  CMurphi 5.4 -nosym: 86 states, 264 rules fired."""
    assert _counts(COMPUTED_FOR) == (86, 264, False)


RULESET_STARTSTATES = """
Const N : 3;
Type pid : Scalarset(N);
     slot : 0..N-1;
Var tok : Array [pid] of boolean;
    hops : 0..2;
    last : slot;
Ruleset i : pid Do
  Ruleset k : slot Do
    Startstate "one token" Begin
      For j : pid Do tok[j] := false; End;
      tok[i] := true; hops := 0; last := k;
    End;
  End;
End;
Ruleset i : pid Do
  Ruleset j : pid Do
    Rule "pass" tok[i] & i != j ==> tok[i] := false; tok[j] := true; hops := (hops + 1) % 3; End;
  End;
End;
Rule "tick" hops = 2 ==> last := (last + 1) % N; hops := 0; End;
Invariant "one" Exists i : pid Do tok[i] End;
"""


def test_a_ruleset_around_a_startstate_gives_one_start_state_per_binding():
    """list6too.m's ``Ruleset i : NetIndex Do Startstate ... End``: every binding's start
    state is initial (CMurphi), here one token at each ``i`` (not every combination of the
    ``tok`` values: was refused as "not all combinations").  CMurphi 5.4 -nosym: 27 states,
    63 rules fired; -sym1 9 states.  We find the scalarset's S_3 and also the rotation of
    ``last`` (every value starts, "tick" adds one modulo N): order 18, 3 states."""
    model = parse_text(RULESET_STARTSTATES, "t.m")
    assert model.initial is not None and len(model.initial) == 9
    assert _counts(RULESET_STARTSTATES) == (27, 63, False)
    assert _reduced_states(model) == (18, 3)
    detection = detect(model)
    report = verify(detection.model, [g.permutation for g in detection.group.generators])
    assert report.ok and report.complete, report.summary()


CORRELATED_STARTS = """
Var x : 0..1; y : 0..1;
Ruleset i : 0..1 Do Startstate x := i; y := i; End; End;
Rule "fx" true ==> x := 1 - x; End;
Rule "fy" true ==> y := 1 - y; End;
"""


def test_listed_start_states_are_kept_by_every_symmetry_and_checked_by_verify():
    """Start states {(0,0), (1,1)}: flipping ``x`` alone preserves every rule and the
    per-slot initial values but maps (0,0) to (1,0), which is not initial.  Detection keeps
    the swap of x and y and flipping both (order 4, 2 orbits of the 4 states), and
    ``verify`` refuses the lone flip at the initial states."""
    model = parse_text(CORRELATED_STARTS, "t.m")
    assert model.initial == ((0, 0), (1, 1))
    assert _counts(CORRELATED_STARTS) == (4, 8, False)
    assert _reduced_states(model) == (4, 2)
    flip = StatePermutation(target=(0, 1), values=({0: 1, 1: 0}, {0: 0, 1: 1}))
    report = verify(model, [flip])
    assert not report.ok and report.verdicts[0].kind == "initial"


#: cache3.m's shape: a home's directory reached through ``Alias me: Homes[n]`` with ``n`` a
#: ``Union{Home, Proc}`` value known to be a Home (``IsMember``), a directory entry written
#: at ``Entries[Cnt]``.
HOME_BY_UNION_ALIAS = """
Const ProcCount: 2; NetMax: 3; DirMax: ProcCount;
Type Home: Scalarset(1); Proc: Scalarset(ProcCount); Node: Union{Home, Proc};
  Value: Scalarset(2);
  MT: enum{Req, Data};
  Msg: Record MType: MT; Source: Node; Destination: Node; Aux: Node; Value: Value; End;
Var Net: Record Count: 0..NetMax; Ar: Array[0..NetMax-1] of Msg; End;
    Homes: Array[Home] of Record Mem: Value; St: enum{Sh, Ma}; Entries: Array[0..DirMax-1] of Proc; Cnt: 0..DirMax; End;
    PS: Array[Proc] of enum{Idle, Wait};

Procedure Consume(M_Index: 0..NetMax-1);
  If M_Index >= Net.Count Then Error "Invalid Message Index";
  Else
  For i:0..NetMax-2 Do
    If i >= M_Index Then Net.Ar[i] := Net.Ar[i+1]; End;
  End;
  Undefine Net.Ar[Net.Count-1];
  End;
  Net.Count := Net.Count - 1;
End;

Procedure Send(M: MT; Dst: Node; Src: Node; Aux: Node; Val: Value);
  If Net.Count = NetMax Then Error "full";
  Else
    Net.Ar[Net.Count].MType := M;
    Net.Ar[Net.Count].Source := Src;
    Net.Ar[Net.Count].Destination := Dst;
    If Isundefined(Aux) Then Undefine Net.Ar[Net.Count].Aux; Else Net.Ar[Net.Count].Aux := Aux; Endif;
    If Isundefined(Val) Then Undefine Net.Ar[Net.Count].Value; Else Net.Ar[Net.Count].Value := Val; Endif;
    Net.Count := Net.Count + 1;
  Endif;
End;

Procedure SendU(M: MT; Dst: Node; Src: Node);
Var UN: Node; UV: Value;
Begin
  Send(M, Dst, Src, UN, UV);
End;

Ruleset h: Home Do
Ruleset p: Proc Do
  Rule "req" PS[p] = Idle & Net.Count <= NetMax - ProcCount - 1 ==> PS[p] := Wait; SendU(Req, h, p); End;
End;
End;

Ruleset M_Index: 0..NetMax-1 Do
  Rule "home" M_Index < Net.Count ==>
    Alias msg: Net.Ar[M_Index] Do
    Alias n: msg.Destination Do
    If Ismember(n, Home) Then
      Alias me: Homes[n] Do
      Switch msg.MType
      Case Req:
        Switch me.St
        Case Sh:
          Send(Data, msg.Source, n, n, me.Mem);
          Consume(M_Index);
        Case Ma:
          If me.Cnt = DirMax Then Error "overflow"; End;
          me.Entries[me.Cnt] := msg.Source;
          me.Cnt := me.Cnt + 1;
          Consume(M_Index);
        Endswitch;
      Else
      Endswitch;
      Endalias;
    Endif;
    Endalias;
    Endalias;
  End;
End;

Ruleset v: Value Do
Startstate
  Net.Count := 0; Undefine Net.Ar; For h: Home Do Homes[h].Mem := v; Undefine Homes[h].Entries; Homes[h].Cnt := 0; Homes[h].St := Sh; End;
  For p: Proc Do PS[p] := Idle; End;
End;
End;
"""


def test_an_alias_of_a_union_value_under_ismember_keeps_the_scalarset_group():
    """The flattened subscript ``n in range ? n * 2 + Cnt[n] : -1`` was translated by
    structure over every value of ``n``, where ``n * 2 + c`` collides (1*2+2 = 2*2+0) and no
    Proc swap maps the table onto itself; the context (``IsMember(n, Home)``) keeps ``n`` in
    range, so the subscript is one table over its in-range reads.  CMurphi 5.4: -nosym 10
    states, -sym1 3 states; we found order 2 (the Value swap) and 5 states before."""
    model = parse_text(HOME_BY_UNION_ALIAS, "t.m")
    assert _reduced_states(model) == (4, 3)
    detection = detect(model)
    report = verify(detection.model, [g.permutation for g in detection.group.generators])
    assert report.ok and report.complete, report.summary()


UNDEFINED_SCALARSET_SUBSCRIPT = """
Type A : Scalarset(2);
Var m : Array [0..1] of Array [A] of boolean;
    x : A;
Startstate
  For i : 0..1 Do For a : A Do m[i][a] := false; End; End;
  Undefine x;
End;
Rule "set" !m[1][x] ==> m[1][x] := true; End;
Ruleset a : A Do Rule "pick" IsUndefined(x) ==> x := a; End; End;
"""


def test_an_undefined_scalarset_subscript_of_a_two_dimensional_array_is_an_error():
    """CMurphi 5.4: "Indexing to m[1] using an undefined value" in the start state.  The
    flat position ``1 * 2 + x`` with ``x`` undefined (-1) was m[0][1]: read without error
    (10 states, no violation)."""
    assert _counts(UNDEFINED_SCALARSET_SUBSCRIPT)[2]
