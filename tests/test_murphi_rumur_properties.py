"""Rumur's global ``Assume`` and ``Liveness`` (issue 27): each pinned to Rumur 2022.08.20's
figures (states, error found), compared with Rumur itself when it is installed
(``tests/rumur_oracle.py``), and the reduced run's verdict equal to the unreduced one."""
from __future__ import annotations

import pytest

from detect.ir.semantics import assumed, discarded_move, reference_state_space
from detect.statespace.compile import compile_model
from detect.statespace.explore import explore_state_space
from frontends.murphi import parse_text

from tests.test_murphi_rumur import _ours, _pinned_as_rumur

# A state whose only step leads to a discarded state is no deadlock (Rumur decides the
# deadlock before it checks the assumption of the result).
DISCARDED_MOVE = """
var x: 0 .. 3;
startstate begin x := 0; end;
rule x < 2 ==> begin x := x + 1; end;
assume x < 2;
"""

# Start states violating the assumption are dropped; liveness over the rest fails (3 is
# never reached: 2 is discarded).
START_DROPPED = """
var x: 0 .. 3;
ruleset i: 0 .. 3 do startstate begin x := i; end; end;
rule x < 3 ==> begin x := x + 1; end;
rule x > 0 ==> begin x := x - 1; end;
assume x != 2;
liveness x = 3;
"""

# Reading an undefined value in an assumption is an error.
UNDEFINED_ASSUMPTION = """
var x: 0 .. 3; y: boolean;
startstate begin x := 0; end;
rule x < 3 ==> begin x := x + 1; end;
assume "u" y | x < 2;
"""

# Liveness holds from every state (the counter can always get back to 2), also where a
# global assumption cuts the graph; and fails where the guard keeps it from 10.
LIVE = """
var x: 0 .. 5;
startstate begin x := 0; end;
rule x < 5 ==> begin x := x + 1; end;
rule x > 0 ==> begin x := x - 1; end;
assume "small" x < 4;
liveness "two" x = 2;
"""

LIVENESS_MISS = """
var x: 0 .. 10
startstate begin x := 0; end
rule x < 9 ==> begin x := x + 1; end
rule x > 0 ==> begin x := x - 1; end
liveness "x is 10" x = 10
"""

# One-way: from 3 nothing reaches 1 again.
LIVENESS_ONE_WAY = """
var x: 0 .. 3;
startstate begin x := 0; end;
rule x < 3 ==> begin x := x + 1; end;
liveness x = 1;
"""

ASSUME_IN_RULESET = """
var x: 0 .. 10
startstate begin x := 0; end
rule x > 0 ==> begin x := x - 1; end
rule x < 4 ==> begin x := x + 1; end
ruleset y: 3 .. 10 do assume x != y end
"""


# ``Assume`` in a start state discards it (2 is reached by the rules all the same); where
# every start state is discarded, Rumur explores no state.
START_ASSUME = """
var x: 0 .. 5;
ruleset i: 0 .. 5 do startstate begin x := i; assume x != 2; x := x; end; end;
rule x < 5 ==> begin x := x + 1; end;
rule x > 0 ==> begin x := x - 1; end;
"""

NO_START_STATE = """
var x: 0 .. 5;
startstate begin x := 0; assume x = 1; end;
rule begin x := 1; end;
"""


# ``Cover`` statements: in a procedure (never hit: 3 is never reached), in a start state,
# after a failed ``Assume`` (never runs), before one (hit: Rumur counts it first).
COVER_STATEMENTS = """
var x: 0 .. 3; y: boolean;
procedure bump(var v: 0 .. 3); begin cover "three" v = 3; if v < 3 then v := v + 1; end; end;
ruleset i: 0 .. 1 do startstate begin x := i; y := false; cover "start" x = 1; end; end;
rule x < 2 ==> begin bump(x); end;
rule x > 0 ==> begin x := x - 1; end;
rule begin y := !y; assume !y; cover "after assume" y; end;
rule x = 2 ==> begin cover "before assume" true; assume x = 0; end;
"""

COVER_HIT = """
var x: boolean;
startstate begin x := true; end;
rule begin x := !x; cover "x was true" x; end;
"""

COVER_MISS = """
var x: 0 .. 2;
startstate begin x := 0; end;
rule begin x := 1 - x; cover "x was 2" x = 2; end;
"""


def test_cover_statement_verdicts_one_by_one(tmp_path):
    import json
    from click.testing import CliRunner
    from detect.cli import main

    path = tmp_path / "m.m"
    path.write_text(COVER_STATEMENTS)
    run = CliRunner().invoke(main, ["explore", str(path), "--json"])
    data = json.loads(run.output[run.output.index("{"):])
    verdicts = {a["text"]: a["verdict"] for a in data["assertions"] if a["text"].startswith("cover")}
    # Rumur: "three" not hit, "start" hit 1 times, "after assume" not hit, "before assume" hit 1 times
    assert verdicts == {'cover "three"': "fails", 'cover "start"': "holds",
                        'cover "after assume"': "fails", 'cover "before assume"': "holds"}
    assert run.exit_code == 1


@pytest.mark.parametrize("text, pinned", [
    (COVER_STATEMENTS, (3, True)),
    (COVER_HIT, (2, False)),
    (COVER_MISS, (2, True)),
    (START_ASSUME, (6, False)),
    (NO_START_STATE, (0, False)),
    (DISCARDED_MOVE, (2, False)),
    (START_DROPPED, (3, True)),
    (LIVE, (4, False)),
    (LIVENESS_MISS, (10, True)),
    (ASSUME_IN_RULESET, (3, False)),
])
def test_global_assumptions_and_liveness_as_rumur(tmp_path, text, pinned):
    _pinned_as_rumur(tmp_path, text, pinned)


@pytest.mark.parametrize("text", [UNDEFINED_ASSUMPTION, LIVENESS_ONE_WAY])
def test_errors_as_rumur(tmp_path, text):
    from tests.test_murphi_rumur import _rumur
    from tests import rumur_oracle

    assert _ours(tmp_path, text)[1] is True
    if rumur_oracle.unavailable() is None:
        assert _rumur(tmp_path, text)[1] is True


def test_the_ir_discards_steps_and_start_states():
    model = parse_text(START_DROPPED, "p.m")
    assert model.assumptions
    compiled = compile_model(model)
    init = list(compiled.initial_states())
    assert all(assumed(model, s) for s in init) and len(init) == 3
    states, transitions, faults = reference_state_space(model)
    assert not any(2 in s for s in states)
    for s in states:  # the compiled successors are the reference ones
        assert set(compiled.successors(s)) == {t for source, t in transitions if source == s}
        assert sorted(compiled.successors(s)) == sorted(st.target for st in compiled.steps(s))
    one = parse_text(DISCARDED_MOVE, "p.m")
    c1 = compile_model(one)
    stuck = [s for s in reference_state_space(one)[0] if not [t for t in c1.successors(s) if t != s]]
    assert stuck and all(discarded_move(one, s) and c1.discarded_move(s) for s in stuck)
    assert not explore_state_space(one, engine="native").deadlocks  # runs in Python: same answer


SYMMETRIC = """
const N: 3;
type p: scalarset(N);
var st: array[p] of enum { idle, want, crit };
startstate begin for i: p do st[i] := idle; end; end;
ruleset i: p do
  rule st[i] = idle ==> begin st[i] := want; end;
  rule st[i] = want & forall j: p do st[j] != crit end ==> begin st[i] := crit; end;
  rule st[i] = crit ==> begin st[i] := idle; end;
end;
assume "not all waiting" exists j: p do st[j] != want end;
ruleset i: p do rule "all back" st[i] = crit ==> begin st[i] := idle;
  cover "none left" forall j: p do st[j] = idle end; end; end;
ruleset i: p do liveness "back to idle" st[i] = idle; end;
"""


@pytest.mark.parametrize("liveness_target, fails", [("idle", False), ("crit", False)])
def test_reduced_run_gives_the_unreduced_verdicts(tmp_path, liveness_target, fails):
    text = SYMMETRIC.replace("st[i] = idle; end;\n", f"st[i] = {liveness_target}; end;\n")
    plain = _ours(tmp_path, text)
    reduced = _ours(tmp_path, text, "--reduce", "exact")
    assert plain[1] == reduced[1] == fails
    assert reduced[0] < plain[0]


# Subranges of more than 65,536 values: the values a variable can hold come from the value
# analysis (or the reachable states), cut to the declared range, so a write outside it is
# still the error Rumur reports.
WIDE_COUNTER = """
var x: 0 .. 1000000; y: boolean;
startstate begin x := 0; y := false; end;
rule x < 100 ==> begin x := x + 1; end;
rule x > 0 ==> begin x := x - 1; y := !y; end;
"""

WIDE_TOGGLE = """
type foo_t: 0 .. 1073741824;
var x: foo_t;
startstate begin x := 0; end;
rule begin x := 1 - x; end;
"""

WIDE_ARRAY = """
type t: 0 .. 1073741824;
var a: array [0 .. 2] of t;
startstate begin for i: 0 .. 2 do a[i] := 0; end; end;
ruleset i: 0 .. 2 do rule a[i] < 3 ==> begin a[i] := a[i] + 1; end; end;
ruleset i: 0 .. 2 do rule a[i] > 0 ==> begin a[i] := a[i] - 1; end; end;
"""

WIDE_OVERFLOW = """
var x: 0 .. 100000;
startstate begin x := 0; end;
rule begin x := x + 50000; end;
"""

WIDE_UNDEFINED = """
var x: -100000 .. 100000; y: 0 .. 100000;
startstate begin x := -99999; end;
rule isundefined(y) ==> begin y := 70000; end;
rule !isundefined(y) & y > 69998 ==> begin y := y - 1; x := x - 1; end;
rule !isundefined(y) ==> begin undefine y; end;
"""


@pytest.mark.parametrize("text, pinned", [
    (WIDE_COUNTER, (202, False)),
    (WIDE_TOGGLE, (2, False)),
    (WIDE_ARRAY, (64, False)),
])
def test_wide_subranges_as_rumur(tmp_path, text, pinned):
    _pinned_as_rumur(tmp_path, text, pinned)


@pytest.mark.parametrize("text", [WIDE_OVERFLOW, WIDE_UNDEFINED])
def test_wide_subrange_out_of_range_is_an_error(tmp_path, text):
    test_errors_as_rumur(tmp_path, text)


def test_a_quantifier_over_a_wide_subrange_is_refused_by_name():
    from tests.frontend_checks import assert_located_error

    text = ("var x: 0 .. 1;\nstartstate begin x := 0; end;\n"
            "rule begin for y: 0 .. 1000000 do x := x; end; end;\n")
    assert_located_error(parse_text, text, "p.m", 3, 19, "ranges over more than 65536 values")


def test_the_group_respects_the_assumptions():
    """Without the assumption the three toggles are symmetric (order 6); ``!a[0] | !a[1]``
    keeps only the exchange of 0 and 1 (a discarded step must map onto a discarded one)."""
    from detect.symmetry.pipeline import detect

    text = """
var a: array[0 .. 2] of boolean;
startstate begin for i: 0 .. 2 do a[i] := false; end; end;
ruleset i: 0 .. 2 do rule begin a[i] := !a[i]; end; end;
"""
    assert detect(parse_text(text, "p.m")).group.order == 6
    assumed_model = parse_text(text + "assume !a[0] | !a[1];\n", "p.m")
    assert detect(assumed_model).group.order == 2


def test_reduced_counts_with_an_assumption(tmp_path):
    text = """
var a: array[0 .. 2] of boolean;
startstate begin for i: 0 .. 2 do a[i] := false; end; end;
ruleset i: 0 .. 2 do rule begin a[i] := !a[i]; end; end;
assume !a[0] | !a[1];
"""
    assert _ours(tmp_path, text) == (6, False)  # Rumur: 6 states
    # the orbits of those under the exchange of 0 and 1: {000}, {001}, {100, 010}, {101, 011}
    assert _ours(tmp_path, text, "--reduce", "exact") == (4, False)


# An ``Assume`` statement between two calls of a procedure that returns early: the steps
# after it were guarded one by one, so the second call's return flag was assigned on one
# path and read on another, and symmetry detection stopped ("read before it is assigned").
ASSUME_BETWEEN_CALLS = """
var x: 0 .. 2; b: boolean;
procedure p(var v: 0 .. 2); begin if v = 2 then return; end; v := v + 1; end;
startstate begin x := 0; b := false; end;
rule begin p(x); assume !b; p(x); x := x % 2; end;
rule begin b := !b; end;
"""


def test_assume_between_procedure_calls_reduces(tmp_path):
    _pinned_as_rumur(tmp_path, ASSUME_BETWEEN_CALLS, (2, False))
    assert _ours(tmp_path, ASSUME_BETWEEN_CALLS, "--reduce", "exact") == (2, False)
