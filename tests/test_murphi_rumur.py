"""Murphi as Rumur's own test suite writes it (issue 27, "build for the language"): each
construct Rumur reads beyond CMurphi's syntax on a small model, compared with Rumur itself
(``tests/rumur_oracle.py``; skipped when ``rumur`` is absent) and, for the pinned figures,
hard-coded so that the counts are checked without it.  ``results/rumur_suite.md`` runs the
whole suite."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from detect.cli import main
from frontends.murphi import parse_text

from tests import cmurphi, rumur_oracle
from tests.frontend_checks import assert_located_error


def _ours(tmp_path, text: str, *options: str):
    """``explore --json``: (states, error found)."""
    path = tmp_path / "m.m"
    path.write_text(text)
    run = CliRunner().invoke(main, ["explore", str(path), "--json", *options])
    assert run.exit_code in (0, 1), run.output
    data = json.loads(run.output[run.output.index("{"):])
    return data["states"], run.exit_code == 1


def _rumur(tmp_path, text: str, deadlock: str = "stuttering"):
    why = rumur_oracle.unavailable()
    if why:
        pytest.skip(why)
    r = rumur_oracle.check(text, tmp_path / "rumur", deadlock)
    return r.states, r.error is not None


def _pinned_as_rumur(tmp_path, text: str, pinned: tuple[int, bool]) -> None:
    """Our (states, error) on ``text`` equal ``pinned`` (Rumur's figures), and Rumur's own
    when it is installed."""
    ours = _ours(tmp_path, text)
    assert ours == pinned
    if rumur_oracle.unavailable() is None:
        assert _rumur(tmp_path, text) == ours


# No ";" after declarations, between rules, after a routine header or between parameters;
# a trailing "," in an enum; "&&", "||", "==", "->"; hex numbers; Unicode operators.
SEMICOLONS_AND_SPELLINGS = """
const N: 3
type e: enum { A, B, C, }
     r: record a: 0 .. N b: boolean end
var x: 0 .. N
    y: e
    z: r
function inc(a: 0 .. N b: boolean): 0 .. N begin
  return b ? (a + 1) % (N + 1) : a;
end
procedure flip(var v: boolean) begin
  v := ¬v;
end
startstate begin
  x := 0x0; y := A; z.a := 0; z.b := true;
end
rule "step" x < N && z.b == true ==> begin
  x := inc(x, z.b);
end
rule "wrap" x = N ∨ (y ≠ A ∧ x ≥ 1) ==> begin
  x := 0; y := y = A ? B : C; flip(z.b);
end
rule "back" !z.b || y == C ⇒ begin
  z.b ≔ true; z.a := x - 0;
end
invariant "bounded" x ≤ N -> z.a <= N
"""


def test_optional_semicolons_and_rumur_spellings_count_as_rumur(tmp_path):
    """Rumur: 23 states, no error (pinned; compared with Rumur when it is installed)."""
    _pinned_as_rumur(tmp_path, SEMICOLONS_AND_SPELLINGS, (23, False))


# Bitwise "&", "|", "^" between numbers, "~", shifts (a negative amount shifts the other way,
# 64 or more gives 0), on variables so that nothing folds away.
BITWISE = """
var x: 0 .. 7; s: -4 .. 4; out: -1024 .. 1024;
startstate begin x := 0; s := -4; out := 0; end
rule x < 7 ==> begin x := x + 1; end
rule s < 4 ==> begin s := s + 1; end
rule begin out := (x & 5) | (x ^ 3); end
rule begin out := x << s; end
rule begin out := (x >> s) - (x >> 64) + (1 << 70); end
rule begin out := ~x; end
rule begin out := -3 >> 1; end
invariant (x & 1) = x % 2 & (x | 1) >= x & ~~x = x
"""


def test_bitwise_operators_and_shifts_as_rumur(tmp_path):
    """Rumur: 1,183 states (pinned), no error."""
    _pinned_as_rumur(tmp_path, BITWISE, (1183, False))


COVER = """
var x: 0 .. 3;
startstate begin x := 0; end
rule x < 2 ==> begin x := x + 1; end
rule x > 0 ==> begin x := x - 1; end
cover "reaches two" x = 2
assert x != 3 "never three"
"""


@pytest.mark.parametrize("hit", [True, False])
def test_cover_is_an_error_only_when_never_hit(tmp_path, hit):
    """Rumur: 3 states; a cover of a value never reached is its error (exit 1)."""
    text = COVER if hit else COVER.replace("x = 2", "x = 3")
    ours = _ours(tmp_path, text)
    assert ours == (3, not hit)
    if rumur_oracle.unavailable() is None:
        assert _rumur(tmp_path, text)[1] == (not hit)


def test_a_shift_past_the_range_is_an_error_as_in_rumur(tmp_path):
    text = "var x: 0 .. 10;\nstartstate begin x := 1; end\nrule begin x := x << 2; end\n"
    assert _ours(tmp_path, text)[1] is True
    if rumur_oracle.unavailable() is None:
        assert _rumur(tmp_path, text)[1] is True


@pytest.mark.parametrize("text, line, column, fragment", [
    ("var x: 0 .. 5;\nfunction ok(v: 0 .. 5): boolean; begin assume v != 3; return true; end;\n"
     "startstate begin x := 0; end;\nrule x < 5 & ok(x) ==> begin x := x + 1; end;\n",
     2, 40, "'Assume' in function 'ok' is not supported"),
    ("var x: 0 .. 5;\nfunction ok(v: 0 .. 5): boolean; begin cover v = 3; return true; end;\n"
     "startstate begin x := 0; end;\nrule x < 5 & ok(x) ==> begin x := x + 1; end;\n",
     2, 40, "'Cover' in function 'ok' is not supported"),
    # CMurphi and Rumur 2022.08.20 both refuse a call where a constant is needed
    ("function f(): 0 .. 1; begin return 1; end;\nvar x: 0 .. f();\nstartstate begin x := 0; end;\n",
     2, 13, "expected a constant expression, not a call of 'f'"),
])
def test_rumur_properties_we_do_not_check_are_refused_at_the_keyword(text, line, column, fragment):
    assert_located_error(parse_text, text, "p.m", line, column, fragment)


WHOLE_COMPARISON = """
type t: array[0 .. 1] of 0 .. 2;
     r: record a: 0 .. 1; b: t; end;
var x: t; y: t; p: r; q: r;
startstate begin
  x[0] := 0; x[1] := 1; y[0] := 0; y[1] := 1;
  p.a := 0; p.b := x; q.a := 0; q.b := y;
end;
rule x[0] < 2 ==> begin x[0] := x[0] + 1; end;
rule y[1] > 0 ==> begin y[1] := y[1] - 1; end;
rule x = y ==> begin p.a := 1 - p.a; q.b := x; end;
rule p != q ==> begin q := p; end;
rule x != y ==> begin p.b := y; end;
invariant p = q | p.a != q.a | p.b != q.b;
"""


def test_arrays_and_records_compare_whole_as_in_rumur(tmp_path):
    """Rumur's ``=``/``!=`` of two arrays or records (CMurphi: "Arguments of = or <> must be
    of simple type"): Rumur 42 states without its deadlock check (pinned), and both find the
    deadlock with it."""
    ours = _ours(tmp_path, WHOLE_COMPARISON, "--ndl")
    assert ours == (42, False)
    assert _ours(tmp_path, WHOLE_COMPARISON)[1] is True
    if rumur_oracle.unavailable() is None:
        assert _rumur(tmp_path, WHOLE_COMPARISON, "off") == ours
        assert _rumur(tmp_path, WHOLE_COMPARISON)[1] is True


RETURN_IN_RULES = """
var x: 0 .. 3; y: boolean;
startstate begin x := 0; y := false; return; x := 3; end
rule begin if x = 2 then return; end; x := x + 1; if y then return end; y := !y; end
rule x > 0 ==> begin for i: 0 .. 1 do if i = 1 then return; end; x := x - 1; end; end
invariant x != 3 | !y
"""


def test_return_ends_a_rule_or_start_state_as_in_rumur(tmp_path):
    """``Return`` in a rule or start state ends it (Rumur; CMurphi 5.4's mu crashes on it):
    Rumur 4 states (pinned), no error.  Before: "'Return' outside a procedure or function"."""
    _pinned_as_rumur(tmp_path, RETURN_IN_RULES, (4, False))


#: ``010`` is ten to CMurphi (sscanf "%d") and eight to Rumur: a file in CMurphi's language
#: (``mu`` reads it, so CMurphi is its oracle) reads it in decimal, a file with a token
#: only Rumur reads (here ``==``) in octal.  ``09`` is not octal: CMurphi reads nine.
LEADING_ZERO = """var x: 0 .. 20;
startstate begin x := 010; end;
rule begin x := x = 12 ? 010 : x + 1; end;
invariant x >= 09 - 1;
"""


@pytest.mark.parametrize("rumur, states", [(False, 3), (True, 5)])
def test_a_leading_zero_is_octal_only_in_a_file_of_rumurs(tmp_path, rumur, states):
    """CMurphi 5.4 (``-ndl``): 3 states (10, 11, 12); Rumur 2022.08.20: 5 (8 .. 12);
    pinned, and compared with the peer when it is installed."""
    # (Rumur refuses ``09``: "invalid number")
    text = LEADING_ZERO.replace("x = 12", "x == 12").replace("09 - 1", "010") if rumur else LEADING_ZERO
    assert _ours(tmp_path, text) == (states, False)
    if rumur:
        if rumur_oracle.unavailable() is None:
            assert _rumur(tmp_path, text) == (states, False)
    elif cmurphi.unavailable() is None:
        result = cmurphi.check(cmurphi.build(), text, tmp_path / "cmurphi")
        assert (result.states, result.error) == (states, None)


#: Rumur's ``Assume`` as a statement: a failed one discards the step (doc/properties.rst:
#: "the generated verifier discards any state that violates an assumption"), here in a
#: procedure called with a ``Var`` parameter and after assignments in a rule.
ASSUME = """const N: 3;
type pid: scalarset(N);
var c: array [pid] of 0 .. 3;
    total: 0 .. 9;
procedure bump(var v: 0 .. 3);
begin
  v := v + 1;
  assume v != 3 "not three";
end;
startstate begin
  for i: pid do c[i] := 0; end;
  total := 0;
end
ruleset p: pid do
  rule "inc" c[p] < 3 ==> begin
    bump(c[p]);
    total := total + 1;
    assume total <= 5;
    while total > 5 do total := total - 1; end;
  end
  rule "dec" c[p] > 0 ==> begin
    c[p] := c[p] - 1;
    total := total - 1;
  end
end
invariant total <= 5
"""


def test_assume_discards_the_step_as_rumur_does(tmp_path):
    """Rumur 2022.08.20: 26 states without symmetry reduction, 9 with it, no error
    (pinned; compared with Rumur when installed).  Before: "'Assume' as a statement
    (Rumur's) is not supported"."""
    _pinned_as_rumur(tmp_path, ASSUME, (26, False))
    assert _ours(tmp_path, ASSUME, "--reduce", "exact") == (9, False)


def test_a_rule_whose_every_step_is_discarded_is_no_successor(tmp_path):
    """Rumur reports the deadlock at ``x = 3`` (its only rule there assumes false): 4
    states, an error -- the discarded step is no successor, as with the Murphi check."""
    text = ('var x: 0 .. 3;\nstartstate begin x := 0; end;\nrule "r" x < 3 ==> begin x := x + 1; end;\n'
            'rule "s" x = 3 ==> begin assume x = 0; x := 0; end;\n')
    _pinned_as_rumur(tmp_path, text, (4, True))


def test_statements_after_a_failed_assumption_do_not_run(tmp_path):
    """The out-of-range write after the failed assumption is never made: Rumur 2 states,
    no error."""
    text = ("var x: 0 .. 1; y: 0 .. 1;\nstartstate begin x := 0; y := 0; end;\n"
            "rule begin x := 1 - x; end;\nrule begin y := 1; assume x = 2; y := y + 5; end;\n")
    _pinned_as_rumur(tmp_path, text, (2, False))


#: ``For`` with a step that is not a constant (Rumur's; ``mu``: "BY value must be constant"):
#: up, down (a negative step; ``w`` makes Rumur's automatic value type signed) and once.
VARIABLE_STEP = """var a: array [0 .. 4] of 0 .. 4; z: 1 .. 2; w: -1 .. 1; n: 0 .. 9;
startstate begin w := 0; z := 1; n := 0; for i := 0 to 4 do a[i] := 0; end; end;
rule "up" begin z := 3 - z; n := 0; for i := 0 to 4 by z do a[i] := (a[i] + 1) % 5; n := n + 1; end; end;
rule "down" begin n := 0; for i := 4 to 1 by -z do a[i] := (a[i] + 2) % 5; n := n + 1; end; end;
rule "once" begin for i := 2 to 2 by z do a[i] := (a[i] + 1) % 5; end; end;
"""


def test_for_with_a_computed_step_as_rumur_runs_it(tmp_path):
    """Rumur 2022.08.20: 2,505 states, no error (pinned); before: "expected a constant
    expression"."""
    _pinned_as_rumur(tmp_path, VARIABLE_STEP, (2505, False))


@pytest.mark.parametrize("step", ["w", "-z"])
def test_a_computed_step_of_zero_or_against_the_bounds_is_an_error(tmp_path, step):
    """Rumur: "infinite loop due to step being 0" / "... in the wrong direction" (an error
    in the first step; where it stops, the counts are not compared)."""
    text = VARIABLE_STEP.replace("by z do a[i] := (a[i] + 1) % 5; n", f"by {step} do a[i] := (a[i] + 1) % 5; n")
    assert _ours(tmp_path, text)[1] is True
    if rumur_oracle.unavailable() is None:
        assert _rumur(tmp_path, text)[1] is True
