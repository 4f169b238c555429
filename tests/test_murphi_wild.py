"""Constructs of Murphi models as people write them (``results/wild_murphi.py``): each pinned
to CMurphi 5.4's counts, and rerun against CMurphi where it builds."""
from __future__ import annotations

import pytest

from detect.errors import InputError
from tests import cmurphi
from tests.test_murphi_regressions import _counts

#: ProtoGen-style message constructors (``msg := Request(adr, GetM, m, dir)``) and a
#: ``Send(msg: Message)`` taking its record by value: CMurphi 5.4 -nosym 13 states.
RECORD_FUNCTION = """
type R : record a : 0..2; b : boolean; end;
var r : R; n : 0..3;
function Mk(x : 0..2) : R;
var m : R;
begin
  m.a := x; m.b := true; return m;
end;
procedure Store(m : R);
begin
  r := m; n := n + 1;
end;
startstate r.a := 0; r.b := false; n := 0; end;
ruleset x : 0..2 do
rule "mk" n < 3 ==> var t : R; begin t := Mk(x); Store(t); end;
end;
rule "direct" n < 3 ==> begin r := Mk(1); n := n + 1; end;
rule "reset" n = 3 ==> begin n := 0; end;
invariant "ok" n <= 3;
"""

#: A record passed by value is a copy made at the call (``mu`` refuses writes to it), and
#: copying an undefined field reads nothing (CMurphi 5.4 -nosym: 5 states, no error).
BY_VALUE = """
type R : record a : 0..3; b : 0..3; end;
var r : R; s : R;
procedure Bump(m : R);
begin
  s := m; s.a := (m.a + 1) % 4;
end;
startstate r.a := 0; undefine r.b; undefine s; end;
rule "bump" true ==> begin Bump(r); r.a := s.a; end;
invariant "b stays undefined" IsUndefined(r.b) & IsUndefined(s.b);
"""

#: gcd_2.m's ``Function compare(ar_1, ar_2: cmp_type): Boolean`` -- records passed by value
#: to a function, read in a ``For i := 0 To ar_1.length - 1`` with a computed bound:
#: CMurphi 5.4 -nosym 3,008 states, no error.
FUNCTION_RECORDS = """
type R : record len : 0..3; a : array [0..3] of 0..1; end;
var x : R; y : R; k : 0..3;
function Same(p, q : R) : boolean;
begin
  if p.len != q.len then return false; end;
  for i := 0 to p.len - 1 do
    if p.a[i] != q.a[i] then return false; end;
  end;
  return true;
end;
startstate
  x.len := 0; y.len := 0; k := 0;
  for i : 0..3 do x.a[i] := 0; y.a[i] := 0; end;
end;
ruleset v : 0..1 do
rule "grow x" x.len < 3 ==> begin x.a[x.len] := v; x.len := x.len + 1; end;
rule "grow y" y.len < 3 & Same(x, y) = false ==> begin y.a[y.len] := v; y.len := y.len + 1; end;
end;
rule "count" Same(x, y) & k < 3 ==> begin k := k + 1; end;
rule "reset" x.len = 3 ==> begin x.len := 0; y.len := 0; end;
invariant "k" k <= 3;
"""

#: EECS570's and ProtoGen's receive rule, ``Choose midx : Net Do Alias msg : Net[midx] Do
#: Rule "recv" <reads msg>``: CMurphi binds the alias only at places holding a message, so an
#: empty network is no error (CMurphi 5.4 -nosym 28 states, no error; we reported an
#: undefined read in every state with an empty place).
CHOOSE_ALIAS = """
type M : record k : 0..2; end;
var ms : multiset [2] of M; c : 0..3;
startstate undefine ms; c := 0; end;
rule "send" c < 3 & MultiSetCount(i:ms, true) < 2 ==> var m : M; begin m.k := c % 3; MultiSetAdd(m, ms); c := c + 1; end;
choose midx : ms do
    alias msg : ms[midx] do
      rule "recv" !isundefined(msg.k) ==> begin MultiSetRemove(midx, ms); end;
    endalias;
endchoose;
rule "reset" c = 3 ==> begin c := 0; end;
"""

#: The same rule with a condition that does not read the chosen place: CMurphi binds the alias
#: before it tests the place ("Internal Error: 0 not in index range of ms" at the start state).
CHOOSE_ALIAS_UNREAD = """
type M : record k : 0..2; end;
var ms : multiset [2] of M; c : 0..3;
startstate undefine ms; c := 0; end;
rule "send" c < 3 & MultiSetCount(i:ms, true) < 2 ==> var m : M; begin m.k := c % 3; MultiSetAdd(m, ms); c := c + 1; end;
choose midx : ms do
    alias msg : ms[midx] do
      rule "recv" c != c ==> begin MultiSetRemove(midx, ms); end;
    endalias;
endchoose;
rule "reset" c = 3 ==> begin c := 0; end;
"""

#: ProtoGen's ``if Func_cache(msg, n) then Pop(n)``: a Boolean function that changes state
#: (through an alias, a procedure call and a global), called where the statement always
#: evaluates it: CMurphi 5.4 -nosym 55 states, no error.
IMPURE_FUNCTION = """
type M : record k : 0..2; end;
var q : array [0..1] of M; cnt : 0..3; got : 0..2;
procedure Bump();
begin
  if cnt < 3 then cnt := cnt + 1; end;
end;
function Take(m : M; i : 0..1) : boolean;
begin
  alias e : q[i] do
  switch m.k
    case 0: return false;
    case 1: e.k := 2; Bump();
    else got := m.k; e.k := 0;
  endswitch;
  endalias;
  return true;
end;
startstate q[0].k := 1; q[1].k := 0; cnt := 0; got := 0; end;
ruleset i : 0..1 do
  rule "take" q[i].k != 0 ==> begin
    if Take(q[i], i) then q[1 - i].k := (q[1 - i].k + 1) % 3; endif;
  end;
  rule "plain" q[i].k = 0 ==> begin q[i].k := 1; end;
end;
rule "reset" cnt = 3 ==> begin cnt := 0; end;
invariant "got" got != 1;
"""

#: btor2murphi's shapes: a function with a ``While`` (``binary2int_1``) called where the
#: statement always evaluates it, and ``a := c ? b : d`` of arrays: CMurphi 5.4 -nosym 16 states.
WHILE_FUNCTION = """
type B : array [0..1] of boolean; C : 0..2;
var a : B; b : B; n : C;
function Count(x : B) : C;
var k : C; i : C;
begin
  k := 0; i := 0;
  while i < 2 do if x[i] then k := k + 1; end; i := i + 1; end;
  return k;
end;
startstate for i : 0..1 do a[i] := false; b[i] := true; end; n := 0; end;
ruleset j : 0..1 do
  rule "flip" true ==> begin a[j] := !a[j]; end;
end;
rule "pick" true ==> begin b := (Count(a) = 1) ? a : b; n := Count(b); end;
invariant "n" n <= 2;
"""


@pytest.mark.parametrize("text, states", [(RECORD_FUNCTION, 13), (BY_VALUE, 5), (FUNCTION_RECORDS, 3008),
                                          (CHOOSE_ALIAS, 28), (IMPURE_FUNCTION, 55),
                                          (WHILE_FUNCTION, 16)])
def test_record_functions_and_record_value_parameters_have_cmurphis_counts(text, states):
    got, _, violated = _counts(text)
    assert (got, violated) == (states, False)



@pytest.mark.parametrize("text", [RECORD_FUNCTION, BY_VALUE, FUNCTION_RECORDS, CHOOSE_ALIAS, CHOOSE_ALIAS_UNREAD,
                                  IMPURE_FUNCTION, WHILE_FUNCTION])
def test_record_functions_and_record_value_parameters_against_cmurphi(text, cmurphi_home, tmp_path):
    path = tmp_path / "m.m"
    path.write_text(text)
    c = cmurphi.compare(cmurphi_home, path, tmp_path / "cm")
    assert c.compared and c.disagreement is None, c.disagreement


def test_a_function_assigning_its_record_value_parameter_is_refused_as_mu_does():
    text = FUNCTION_RECORDS.replace("begin\n  if p.len", "begin\n  p.len := 0;\n  if p.len")
    with pytest.raises(InputError, match="value parameter 'p' is assigned"):
        _counts(text)


def test_an_alias_of_a_chosen_place_the_condition_does_not_read_is_bound_first():
    assert _counts(CHOOSE_ALIAS_UNREAD)[2]


def test_a_function_that_changes_state_under_a_short_circuit_stays_refused():
    text = IMPURE_FUNCTION.replace("if Take(q[i], i) then", "if cnt < 2 & Take(q[i], i) then")
    with pytest.raises(InputError, match="functions with side effects are not supported"):
        _counts(text)
