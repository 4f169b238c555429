"""Murphi front end: regressions found by comparing with CMurphi 5.4 (the differential test,
``tests/test_differential_murphi.py``).  Each test is a minimal model; the numbers are
CMurphi's (``-nosym -ndl``: states, rules fired), hard-coded so that these run without it."""
from __future__ import annotations

import re
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from detect.ir import semantics
from detect.errors import InputError
from detect.statespace.explore import explore_state_space
from frontends.murphi import load
from frontends.murphi import parse_text
from detect.checking.murphi_counts import murphi_counts

from tests.test_frontend_murphi import _reduced_states

MODELS = Path(__file__).resolve().parents[1] / "models"


def _counts(text: str, defines=None):
    c = murphi_counts(parse_text(text, "t.m", defines))
    return c.states, c.rules_fired, c.violated


# ---------------------------------------------------------------- nested conditionals

NESTED_IF = """
Var x: 0..5; y: 0..1;
Rule "step" x < 3 ==> Begin
  If y = 0 | x = 5 Then If x = 2 Then y := 1; Else x := x + 1; End; End;
End;
Startstate Begin x := 0; y := 0; End;
"""


def test_nested_if_else_branch_runs():
    """A nested ``If`` once made each case inherit the previous case's conjuncts, so the
    ``Else`` got the guard ``x == 2 && !(x == 2)`` (1 state; CMurphi: 4)."""
    assert _counts(NESTED_IF) == (4, 4, False)
    model = parse_text(NESTED_IF, "t.m")
    # The Else program (x := x + 1) runs from the start state.
    assert semantics.reference_state_space(model)[0] == {(0, 0), (1, 0), (2, 0), (2, 1)}


def test_nested_if_inside_elsif():
    text = """
Var x: 0..4; y: 0..2;
Rule "r" x < 4 ==> Begin
  If y = 2 Then x := x + 1;
  Elsif x >= 1 Then If y = 0 Then y := 1; Elsif y = 1 Then y := 2; Else x := 4; End;
  Else x := x + 1; End;
End;
Startstate Begin x := 0; y := 0; End;
"""
    assert _counts(text) == (7, 6, False)


def test_bundled_peterson_scalarset_has_cmurphis_counts():
    """models/peterson_scalarset.m had 75 states (its invariant vacuously true): the nested
    ``If`` in "pass level" could never take its ``Else``."""
    model = load(MODELS / "peterson_scalarset.m")
    c = murphi_counts(model)
    assert (c.states, c.rules_fired, c.violated) == (894, 2682, False)
    result = explore_state_space(model)
    # The invariant, and CMurphi's deadlock check.
    assert [(a.assertion.kind, a.verdict) for a in result.assertions] == [("invariant", "holds"),
                                                                           ("deadlockfree", "holds")]
    # CMurphi -sym1: 174 states.
    assert _reduced_states(model) == (6, 174)


def test_peterson_scalarset_invariant_is_checked_for_real():
    """Breaking the lock (ignore the victim) must violate mutual exclusion."""
    text = (MODELS / "peterson_scalarset.m").read_text().replace(
        "| victim[climbing[i]] != i", "| true")
    c = murphi_counts(parse_text(text, "broken.m"))
    assert c.violated


# ---------------------------------------------------------------- witnesses

FORALL_ELSIF = """
Const N: 3;
Type pid: Scalarset(N);
Var a: Array[pid] Of boolean; c: 0..3;
Ruleset i: pid Do
Rule "r" c < 3 ==> Begin
  If Forall k: pid Do a[k] End Then c := c + 1;
  Elsif Forall k: pid Do !a[k] End Then a[i] := true;
  Elsif c = 1 Then c := 2;
  Else a[i] := false; c := c + 1; End;
End;
End;
Startstate Begin c := 0; For k: pid Do a[k] := false; End; End;
"""


def test_two_foralls_across_elsif_bind_distinct_witnesses():
    """Was: "the front end produced an invalid model (... local 'k_2' bound twice)"."""
    assert _counts(FORALL_ELSIF) == (15, 33, False)
    for s in parse_text(FORALL_ELSIF, "t.m").summands:
        names = [loc.name for loc in s.locals]
        assert len(names) == len(set(names))


def test_two_exists_across_elsif():
    text = """
Const N: 3;
Type pid: Scalarset(N);
Var a: Array[pid] Of boolean; c: 0..3;
Ruleset i: pid Do
Rule "r" c < 3 ==> Begin
  If Exists k: pid Do a[k] End Then c := c + 1;
  Elsif Exists k: pid Do a[k] & c = 2 End Then a[i] := true;
  Else a[i] := !a[i]; End;
End;
End;
Startstate Begin c := 0; For k: pid Do a[k] := false; End; End;
"""
    assert _counts(text) == (13, 30, False)


# ---------------------------------------------------------------- -D on a Murphi model

def _cli(*args: str) -> subprocess.CompletedProcess:
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", "from detect.cli import main; main()", *args],
                          capture_output=True, text=True, env=env, cwd=root, timeout=120)


@pytest.mark.parametrize("command", ["explore", "analyze", "linearise"])
def test_unknown_define_is_one_line_naming_the_constants(command):
    path = str(MODELS / "peterson_scalarset.m")
    run = _cli(command, path, "-D", "M=3")
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.splitlines() == [
        f"symdetect: {path}: -D M: the model has no 'Const M'; its constants are: N"]


def test_unknown_define_among_known_ones_and_without_constants(tmp_path):
    run = _cli("explore", str(MODELS / "peterson_scalarset.m"), "-D", "N=2", "-D", "K=1")
    assert (run.returncode, run.stderr.count("\n")) == (2, 1)
    assert "-D K: the model has no 'Const K'; its constants are: N" in run.stderr
    path = tmp_path / "plain.m"
    path.write_text(NESTED_IF)
    run = _cli("explore", str(path), "-D", "N=3")
    assert run.returncode == 2
    assert run.stderr.strip().endswith("-D N: the model has no 'Const N'; its constants are: none")


def test_known_define_still_overrides():
    run = _cli("explore", str(MODELS / "peterson_scalarset.m"), "-D", "N=2", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["parameters"] == {"N": 2}


# ---------------------------------------------------------------- found by the differential test

def test_negation_as_the_right_operand_of_a_comparison():
    """CMurphi parses ``a = !b & c`` as ``(a = (!b)) & c``; we refused the ``!``."""
    text = """
Var a, b, c: boolean;
Rule "r" a = !b & c ==> Begin a := !a; End;
Rule "s" a != !(b = c) ==> Begin c := a = !b = c; End;
Startstate Begin a := false; b := true; c := true; End;
"""
    assert _counts(text) == (3, 2, False)


UNDEFINED = """
Type t: 0..2;
Var x, y: t; b: boolean;
Procedure P(v: t); Begin x := 2; End;
Rule "r" x = 0 ==> Var l: t; Begin l := y; If IsUndefined(l) Then b := false; End; {body} End;
Startstate Begin x := 0; b := true; End;
"""


@pytest.mark.parametrize("body, expected", [
    ("x := y;", (2, 1, True)),       # copies undefined; the next guard reads it
    ("P(y);", (2, 1, False)),        # a value parameter bound to an undefined value: no read
    ("Undefine l; x := 1;", (2, 1, False)),
    ("x := y + 0;", (1, 0, True)),   # a read
])
def test_copying_an_undefined_value_is_no_read(body, expected):
    """CMurphi copies a designator's undefined value (``x := y``, a value argument, a rule
    local); IsUndefined and Undefine work on rule locals (we refused them).  CMurphi's
    numbers; for a violation only the verdict is compared."""
    states, fired, violated = _counts(UNDEFINED.replace("{body}", body))
    assert violated == expected[2]
    if not violated:
        assert (states, fired) == expected[:2]


def test_isundefined_of_a_ruleset_parameter_is_false():
    text = """
Type pid: Scalarset(2);
Var n: 0..2;
Ruleset i: pid Do Rule "r" n < 2 & !IsUndefined(i) ==> Begin n := n + 1; End; End;
Startstate Begin n := 0; End;
"""
    assert _counts(text) == (3, 4, False)


# ---------------------------------------------------------------- deliberate differences

def test_scalarset_comparison_is_refused_as_mu_and_rumur_do():
    """Once a deliberate difference (we compared scalarset values as numbers): mu refuses
    "Arguments of <, <=, >, >= must be integral", Rumur "expressions are not comparable"."""
    text = """
Type pid: Scalarset(2);
Var x: 0..3; p: pid;
Rule "r" x < 3 ==> Begin x := x + 1; End;
Ruleset i: pid Do Rule "s" i < 1 & x = 0 ==> Begin p := i; End; End;
Startstate Begin x := 0; Undefine p; End;
"""
    with pytest.raises(InputError, match=r"t\.m:5:30: Arguments of <, <=, >, >= must be integral or real\."):
        parse_text(text, "t.m")


#: Subscripts out of range in statements that may or may not run (CMurphi 5.4 -nosym -ndl:
#: states, rules fired, error) -- the error is CMurphi's "3 not in index range of a." only
#: when the statement runs; we refused every one of these when loading.
OUT_OF_RANGE = {
    # never runs: no error
    'Rule "r" x = 0 ==> Begin x := 1; If x = 2 Then a[5] := true; End; End;': (2, 1, False),
    'Rule "r" x = 1 & a[3] ==> Begin x := 0; End; Rule "s" x = 0 ==> Begin x := 2; End;': (2, 1, False),
    'Rule "r" x = 0 ==> Begin x := 1; End; Rule "t" x = 1 ==> Begin b := x = 1 ? a[0] : a[3]; x := 2; End;':
        (3, 2, False),
    # runs: an error (CMurphi stops at it; the states are those it saw)
    'Rule "r" x = 0 ==> Begin x := 1; End; Rule "t" x = 1 ==> Begin a[2] := true; End;': (2, 1, True),
    'Rule "r" x = 0 & a[3] ==> Begin x := 1; End;': (1, 0, True),
    'Rule "r" x = 0 ==> Begin x := 1; End; Rule "t" x = 1 ==> Begin m[0][1] := 1; x := 2; End;': (2, 1, True),
    'Rule "r" x = 0 ==> Begin x := 1; End; Rule "t" x = 1 ==> Begin rs[0] := rs[4]; End;': (2, 1, True),
    'Rule "r" x = 0 ==> Begin x := 1; End; Rule "t" x = 1 & !IsUndefined(a[3]) ==> Begin x := 2; End;': (2, 1, True),
    'Procedure p(Var z: boolean); Begin z := true; End; '
    'Rule "r" x = 0 ==> Begin x := 1; End; Rule "t" x = 1 ==> Begin p(a[3]); End;': (2, 1, True),
    # an alias bound to it is the error, even if never used
    'Rule "r" x = 0 ==> Begin x := 1; End; Rule "t" x = 1 ==> Alias y: a[3] Do x := 2; End; End;': (2, 1, True),
}
OUT_OF_RANGE_FRAME = """
Type r: Record f: 0..2; g: boolean; End;
Var a: Array [0..1] Of boolean; x: 0..2; m: Array [1..2] Of Array [0..1] Of 0..2; rs: Array [0..1] Of r; b: boolean;
{rules}
Startstate Begin x := 0; a[0] := false; a[1] := false; For i: 1..2 Do For j: 0..1 Do m[i][j] := 0; End; End;
  For i: 0..1 Do rs[i].f := 0; rs[i].g := false; End; b := false; End;
"""


@pytest.mark.parametrize("rules", list(OUT_OF_RANGE))
def test_a_constant_subscript_out_of_range_is_an_error_only_when_it_runs(rules):
    """CMurphi reports "3 not in index range" only if the statement runs (we refused the
    model when loading it); our load warns."""
    with pytest.warns(UserWarning, match=r"t\.m:\d+:\d+: index -?\d+ out of range"):
        states, fired, violated = _counts(OUT_OF_RANGE_FRAME.format(rules=rules))
    expected = OUT_OF_RANGE[rules]
    # CMurphi stops at its first error; we explore on, so only the verdict compares then.
    assert violated == expected[2]
    if not violated:
        assert (states, fired) == expected[:2]


def test_an_alias_to_a_subscript_out_of_range_is_an_error_when_bound():
    """``Alias y: a[x-1]`` with ``x = 3`` over ``a: Array [0..1]``: CMurphi's error when the
    alias is bound (7 states, 9 fired), though ``y`` is never used; we found none."""
    text = """
Var a: Array [0..1] Of boolean; x: 0..3; b: boolean;
Rule "r" x < 3 ==> Begin x := x + 1; End;
Rule "t" x >= 1 ==> Alias y: a[x-1] Do b := !b; End; End;
Startstate Begin x := 0; a[0] := false; a[1] := false; b := false; End;
"""
    assert _counts(text)[2]
    in_range = text.replace("x >= 1 ==>", "x >= 1 & x <= 2 ==>").replace("b := !b", "y := !y")
    assert _counts(in_range) == (11, 13, False)
    # Around rules: bound before the condition (CMurphi: 1 state, 0 fired, the error).
    assert _counts(OUT_OF_RANGE_FRAME.format(
        rules='Ruleset i: 0..1 Do Alias y: a[i+2] Do Rule "t" x = 1 ==> Begin x := 2; End; End; End; '
              'Rule "r" x = 0 ==> Begin x := 1; End;'))[2]


def test_deliberate_transitions_are_pairs_rules_fired_are_instances():
    """``explore``'s transitions are distinct (source, target) pairs; CMurphi's rules fired
    (``fired.murphi_counts``) count every enabled instance, self-loops included."""
    model = parse_text(FORALL_ELSIF, "t.m")
    assert (explore_state_space(model).transitions, murphi_counts(model).rules_fired) == (21, 33)


def test_function_copies_an_undefined_value_without_reading_it():
    """``l := l`` and ``m := u`` (undefined) inside a function: CMurphi copies; we faulted."""
    text = """
Type t: 0..2;
Var n: t; u: t;
Function F(k: t): t; Var l: boolean; m: t; Begin l := l; m := u; Return k; End;
Rule "r" F(n) < 2 ==> Begin n := n + 1; End;
Startstate Begin n := 0; End;
"""
    assert _counts(text) == (3, 2, False)


# ---------------------------------------------------------------- scalarset comparison

UNDEFINED_SCALARSET_COMPARED = """
Type pid: Scalarset(2);
Var a, b: pid; x: 0..3;
Rule "r" x < 3 ==> Begin If a = b Then x := x + 1; Else x := 3; End; End;
Rule "s" x = 1 ==> Begin a := b; Undefine b; x := 2; End;
Startstate Begin x := 0; End;
"""


def test_scalarsets_are_compared_without_reading_them():
    """CMurphi compares scalarsets with ``=``/``!=`` without reading them: two undefined ones
    are equal, and no error is raised (CMurphi: 4 states, 4 rules fired, no error; seeds
    100, 110 and 153 of the differential generator).  Other types are read."""
    assert _counts(UNDEFINED_SCALARSET_COMPARED) == (4, 4, False)
    read = UNDEFINED_SCALARSET_COMPARED.replace("Type pid: Scalarset(2);", "Type pid: 0..1;")
    assert _counts(read)[2] is True


# ---------------------------------------------------------------- deadlocks and loops (issue 25, item 6)

SELF_LOOP = """
Var x : boolean;
Startstate Begin x := false; End;
Rule "set" !x ==> Begin x := true; End;
Rule "stay" x ==> Begin End;
"""


def test_self_loop_state_is_a_deadlock_and_an_error_as_in_cmurphi(tmp_path):
    """CMurphi (and Rumur): a state whose enabled rules all lead back to itself is
    deadlocked, an error unless -ndl ("Deadlocked state found.", 2 states, exit 1).  We
    said "deadlocks 0" and exited 0."""
    path = tmp_path / "selfloop.m"
    path.write_text(SELF_LOOP)
    model = load(path)
    assert murphi_counts(model).deadlocked
    for engine in ("python", "native"):
        run = _cli("explore", str(path), "--engine", engine)
        assert run.returncode == 1, run.stdout + run.stderr
        assert "deadlocked state found" in run.stdout
        assert re.search(r"1\. set  \S+\.m:\d+  Rule \"set\".*\n\s+x=true", run.stdout)  # the trace to the deadlocked state
    run = _cli("explore", str(path), "--ndl")
    assert run.returncode == 0, run.stdout + run.stderr
    run = _cli("explore", str(path), "--reduce", "exact", "--json")
    assert run.returncode == 1 and json.loads(run.stdout)["deadlocks"] == 1


def test_no_deadlock_check_only_for_murphi(tmp_path):
    path = tmp_path / "m.pml"
    path.write_text("active proctype P() { skip }")
    run = _cli("explore", str(path), "--ndl")
    assert run.returncode == 2 and "--ndl applies to Murphi models only" in run.stderr


def test_a_dead_end_is_a_deadlock_error_unless_ndl():
    text = 'Var n: 0..3; Startstate Begin n := 0; End; Rule "up" n < 3 ==> Begin n := n + 1; End;'
    result = explore_state_space(parse_text(text, "t.m"))
    assert len(result.deadlocks) == 1
    assert [(a.assertion.kind, a.verdict, a.note) for a in result.assertions] == [
        ("deadlockfree", "fails", "deadlocked state found")]
    # A rule that moves between two states is no deadlock (a cycle is not a self-loop).
    text = 'Var b: boolean; Startstate Begin b := false; End; Rule "flip" true ==> Begin b := !b; End;'
    result = explore_state_space(parse_text(text, "t.m"))
    assert result.deadlocks == () and [a.verdict for a in result.assertions] == ["holds"]


LONG_LOOP = """
Var x : 0..1; s : 0..1000;
Startstate Begin x := 0; s := 0; End;
Rule "loop" x = 0 ==> Begin While s < 900 Do s := s + 1; End; x := 1; End;
Rule "back" x = 1 ==> Begin x := 0; s := 0; End;
"""


def test_while_runs_up_to_cmurphis_default_of_1000_rounds(tmp_path):
    """CMurphi's -loop default is 1000: 900 rounds are no error (we faulted past 256);
    --loop-max N (CMurphi's -loop N) lowers or raises the bound."""
    path = tmp_path / "loop.m"
    path.write_text(LONG_LOOP)
    model = load(path)
    assert model.loop_bound == 1000
    result = explore_state_space(model)
    assert (result.states, result.faults) == (2, 0)
    run = _cli("explore", str(path), "--loop-max", "500")
    assert run.returncode == 1 and "loop ran more than 500 rounds" in run.stdout
    run = _cli("linearise", str(path), "--loop-max", "2000")
    assert run.returncode == 0
    assert load(path, loop_max=2000).loop_bound == 2000


CHASE = """
Const N : 2;
Type pid : Scalarset(N);
Var x : Array[pid] of 0..2; y : Array[pid] of 0..2;
Startstate Begin For i : pid Do x[i] := 0; y[i] := 0; End; End;
Ruleset p : pid Do
  Rule "sety" true ==> Begin y[p] := (y[p] + 1) % 3; End;
  Rule "chase" true ==> Begin While x[p] != y[p] Do x[p] := (x[p] + 1) % 3; End; End;
End;
"""


def test_a_loop_the_constraints_cannot_fold_is_unrolled_1000_times_without_recursion():
    """The SSA unrolls a While up to the bound; it nested one call per round and stopped
    with "model nested too deeply" already at 256.  Rounds now follow one another, so the
    scalarset's swap is found with the bound at 1000."""
    from detect.symmetry.pipeline import detect

    model = parse_text(CHASE, "chase.m")
    assert model.loop_bound == 1000
    assert detect(model).group.order == 2


SHARED_AGGREGATES = """
Type pid: Scalarset(2); R: Record a: 0..2; b: boolean; End;
Var x: Array [pid] Of 0..2; f: boolean;
Procedure Store(p: pid; v: 0..2);
Var t: R;
Begin t.a := v; t.b := v = 2; If t.b Then f := !f; End; x[p] := t.a; End;
Ruleset i: pid Do
  Rule "one" x[i] < 2 ==> Begin Store(i, x[i] + 1); End;
  Rule "two" x[i] = 2 ==> Var u: R; Begin u.a := 0; Store(i, u.a); For j: pid Do Store(j, 1); End; End;
End;
Startstate Begin For i: pid Do x[i] := 0; End; f := false; End;
"""


def test_local_aggregates_are_shared_between_rules_and_calls():
    """A local record is state that every rule leaves undefined: one copy per record alive
    at once, not one per inlined call (newcache3.m's Send at 27 places made 135 state slots,
    whose value swaps were 567 of bliss's 690 generators).  CMurphi: 13 states, 26 fired; -sym1 9."""
    model = parse_text(SHARED_AGGREGATES, "t.m")
    assert [v.name for v in model.variables] == ["x", "f", "t$local.a", "t$local.b", "u$local.a", "u$local.b"]
    assert _counts(SHARED_AGGREGATES) == (13, 26, False)
    assert _reduced_states(model) == (2, 9)


@pytest.mark.parametrize("copy, error", [
    ("b := c", False),          # a whole variable: copied, undefined included
    ("p := s[1]", False),       # a scalarset: never read
    ("b := fl[1]", True),       # an element: read ("The undefined value at fl[1] is referenced")
    ("i := r.f", True),         # a field: read
    ("i := rs[1].f", True),
    ("Alias y: fl[1] Do b := y; End", True),  # through an alias: read
    ("r := rs[1]", False),      # a whole record: copied
])
def test_copying_an_undefined_element_or_field_is_an_error_as_in_cmurphi(copy, error):
    """CMurphi 5.4 (-nosym -ndl): the error row stops at 1 state, 0 fired; the others 2, 1.
    We copied an undefined element without reading it (seed 145 of the differential run)."""
    text = f"""
Type pid: Scalarset(2); R: Record f: 0..2; g: boolean; End;
Var fl: Array [0..1] Of boolean; s: Array [0..1] Of pid; r: R; rs: Array [0..1] Of R;
    x: 0..1; b: boolean; c: boolean; i: 0..2; p: pid;
Rule "r" x = 0 ==> Begin {copy}; x := 1; End;
Startstate Begin x := 0; fl[0] := true; Undefine fl[1]; Undefine s; Undefine r; Undefine rs;
  b := true; Undefine c; i := 0; Undefine p; End;
"""
    states, fired, violated = _counts(text)
    assert violated == error
    if not error:
        assert (states, fired) == (2, 1)


@pytest.mark.parametrize("text, states, where", [
    ("Var x : 0..2; y : 0..2;\nStartstate Begin x := y + 1; End;\n", 0, ":2:1: start state fails"),
    ('Var x : 0..2;\nStartstate "c" Begin x := 3; End;\nStartstate "a" Begin x := 0; End;\n'
     'Startstate "b" Begin x := 1; End;\n', 2, ":2:1: start state fails: "),
    ('Var x : 0..3;\nRuleset i : 0..1 Do Ruleset j : 0..1 Do Startstate Begin\n'
     '  Assert !(i = 1 & j = 0) "bad start"; x := i * 2 + j; End; End; End;\n', 1, "(i=1, j=0)"),
])
def test_a_start_state_that_faults_is_explores_error_verdict(text, states, where, tmp_path):
    """CMurphi 5.4 reports the error with the start states it stored before (0, 2, 1 here:
    the last Startstate first, a ruleset's first parameter fastest); we refused the model
    (exit 2).  Now exit 1, the located fault, and CMurphi's count; analyze still refuses."""
    from click.testing import CliRunner

    from detect.cli import main

    path = tmp_path / "s.m"
    path.write_text(text + 'Rule "r" true ==> x := (x + 1) % 3; End;\n')
    result = CliRunner().invoke(main, ["explore", str(path), "--json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output[result.output.index("{"):])
    assert data["states"] == states and data["faults"] == 1 and where in data["start_state_fault"]
    text_run = CliRunner().invoke(main, ["explore", str(path)])
    assert text_run.exit_code == 1 and "error: " in text_run.output
    assert CliRunner().invoke(main, ["analyze", str(path)]).exit_code == 2


def test_isundefined_of_an_element_subscripted_by_an_undefined_scalarset_is_an_error():
    """CMurphi 5.4: "Indexing to a using an undefined value." in the start state (1 state).
    We read ``IsUndefined(a[p])`` as false (a is never undefined) without reading ``a[p]``,
    so the rule was never enabled and no error found (random model 153 of
    ``tests/murphi_gen.py``)."""
    text = """
Type pid: Scalarset(2);
Var p: pid; a: Array[pid] of 0..1; x: 0..1;
Rule "r" IsUndefined(a[p]) ==> Begin x := 1; End;
Startstate Begin Undefine p; For i: pid Do a[i] := 0; End; x := 0; End;
"""
    states, _, violated = _counts(text)
    assert (states, violated) == (1, True)
    defined = text.replace("Undefine p;", "For i: pid Do p := i; End;")
    assert _counts(defined)[2] is False
