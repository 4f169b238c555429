"""Issue 30: the acceptance-cycle search scales like pan's -- a nested depth-first search in
C (``runtime.c``'s ``nx_ndfs_*``) over packed states, both searches sharing one store, with no
state-slot budget, stopping at the first cycle; on the quotient by the formula's stabiliser
where the run reduces.  Verdicts pinned against ``pan -a`` (checked live where Spin is
installed).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest

from detect.checking.cycles import check_acceptance
from detect.checking.reduce import acceptance_quotient, explore_reduced
from detect.statespace import explore
from detect.statespace.compile import compile_model
from detect.statespace.native import build
from detect.symmetry.pipeline import detect
from detect.transform.narrowing import narrow
from frontends.promela import parse_text
from tests.spin_oracle import spin_available, spin_ltl

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(build.compiler() is None, reason="no C compiler")

#: x climbs from 1 to 200, then loops 150..200: a stem of 199 steps before the only cycles.
#: pan -a: ``[] <> (x == 0)`` violated (acceptance cycle at depth 596), ``[] <> (x >= 150)`` holds.
STEM = """byte x = 1;
active proctype P() {
  do
  :: x < 200 -> x++
  :: x == 200 -> x = 150
  od
}
ltl p { FORMULA }
"""
STEM_PINNED = {"[] <> (x == 0)": True, "[] <> (x >= 150)": False}

#: two counters mod 40 moved in any order: 1,600 system states, more product states than the
#: slot budget scaled down to 10,000 slots holds.  pan -a: ``[] <> (a == 0)`` violated (b
#: moves for ever), ``[] <> (a + b < 100)`` holds (its negation never accepts).
GRID = """byte a, b;
active proctype A() { do :: a = (a + 1) % 40 od }
active proctype B() { do :: b = (b + 1) % 40 od }
ltl p { FORMULA }
"""
GRID_PINNED = {"[] <> (a == 0)": True, "[] <> (a + b < 100)": False}

#: three interchangeable processes entering and leaving (``cnt`` counts those in): S_3 on
#: their blocks fixes a claim on ``cnt``, and C canonicalises (sorted blocks, or the least
#: image over the 6 elements).  pan -a: ``[] <> (cnt == 0)`` violated (one stays in),
#: ``[] <> (cnt < 3)`` holds (with all in, only leaving is possible).
BLOCKS = """byte cnt;
active [3] proctype P() {
  bit in;
  do
  :: !in -> cnt++; in = 1
  :: in -> cnt--; in = 0
  od
}
ltl p { FORMULA }
"""
BLOCKS_PINNED = {"[] <> (cnt == 0)": True, "[] <> (cnt < 3)": False}


def model_of(text: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return narrow(parse_text(text, "m.pml"))


def acceptance(model, reduce: str = "none", max_states=None):
    """The acceptance verdict of ``model`` (``check_acceptance`` after a Python BFS)."""
    detection = detect(model) if reduce != "none" else None
    reduced = explore_reduced(model, reduce, detection=detection, explorer="python")
    result = check_acceptance(model, reduced.exploration, max_states,
                              quotient=acceptance_quotient(detection, reduced))
    verdict = next(a for a in result.assertions if a.assertion.kind == "acceptance")
    return verdict, reduced


def pinned(text: str, formula: str, expected: bool) -> None:
    """``pan -a`` agrees with the pinned verdict, where Spin is installed."""
    if spin_available():
        with tempfile.TemporaryDirectory() as d:
            assert spin_ltl(text.replace("FORMULA", formula), Path(d)) is expected


def closes(verdict) -> None:
    """The lasso is one: the cycle's first state is its last."""
    assert verdict.loop_from is not None
    assert verdict.trace[verdict.loop_from].state == verdict.trace[-1].state


@pytest.mark.parametrize("formula", sorted(STEM_PINNED))
def test_a_long_stem_before_the_cycle(formula, monkeypatch):
    monkeypatch.setenv("SYMDETECT_NATIVE", "1")
    text = STEM.replace("FORMULA", formula)
    verdict, _ = acceptance(model_of(text))
    assert verdict.verdict == ("fails" if STEM_PINNED[formula] else "holds")
    if STEM_PINNED[formula]:
        closes(verdict)
        assert verdict.loop_from >= 2 * 149  # the stem climbs to x = 150 at least (claim steps between)
    pinned(STEM, formula, STEM_PINNED[formula])


@pytest.mark.parametrize("formula", sorted(GRID_PINNED))
def test_more_states_than_the_slot_budget_holds(formula, monkeypatch):
    monkeypatch.setattr(explore, "SLOT_BUDGET", 10_000)
    text = GRID.replace("FORMULA", formula)
    model = model_of(text)
    monkeypatch.setenv("SYMDETECT_NATIVE", "0")
    old, _ = acceptance(model)
    assert old.verdict == "unknown" and "state slots" in old.note  # the Python graph: cut at the budget
    monkeypatch.setenv("SYMDETECT_NATIVE", "1")
    new, reduced = acceptance(model)
    assert new.verdict == ("fails" if GRID_PINNED[formula] else "holds")
    if not GRID_PINNED[formula]:
        slots = sum(v.length for v in model.variables)
        assert reduced.exploration.states * slots > 10_000
        assert "among" in new.note
    else:
        closes(new)
    pinned(GRID, formula, GRID_PINNED[formula])


@pytest.mark.parametrize("strategy", ["exact", "enumerate"])
@pytest.mark.parametrize("formula", sorted(BLOCKS_PINNED))
def test_the_quotient_verdict_is_the_unreduced_one(formula, strategy, monkeypatch):
    monkeypatch.setenv("SYMDETECT_NATIVE", "1")
    text = BLOCKS.replace("FORMULA", formula)
    model = model_of(text)
    plain, _ = acceptance(model)
    reduced, run = acceptance(model, strategy)
    assert run.reducer.native_canonical is not None  # the quotient searched in C
    assert plain.verdict == reduced.verdict == ("fails" if BLOCKS_PINNED[formula] else "holds")
    assert run.reducer.group_order == 6
    assert "quotient by the symmetry group (order 6)" in reduced.note
    if BLOCKS_PINNED[formula]:
        closes(plain)
        closes(reduced)  # un-permuted into a real lasso of the model
    else:  # the whole quotient searched: fewer states than the model's
        assert int(reduced.note.split(" among ")[1].split()[0]) < int(plain.note.split(" among ")[1].split()[0])
    pinned(BLOCKS, formula, BLOCKS_PINNED[formula])


def test_a_state_bound_leaves_the_verdict_unknown(monkeypatch):
    monkeypatch.setenv("SYMDETECT_NATIVE", "1")
    verdict, _ = acceptance(model_of(GRID.replace("FORMULA", "[] <> (a + b < 100)")), max_states=500)
    assert verdict.verdict == "unknown"
    assert "more than" in verdict.note and "nested depth-first search" in verdict.note


def cli(*args: str, native: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SYMDETECT_MODEL_CACHE="off", SYMDETECT_NATIVE=native)
    return subprocess.run([sys.executable, "-m", "detect.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)


def test_the_first_cycle_found_ends_the_run_as_pan(tmp_path):
    path = tmp_path / "stem.pml"
    path.write_text(STEM.replace("FORMULA", "[] <> (x == 0)"))
    first = cli("explore", str(path), "--ltl", "p", "--no-trace", "--json", native="1")
    assert first.returncode == 1, first.stderr
    import json

    report = json.loads(first.stdout)
    assert report["stopped"] == "first-cycle"
    assert report["states"] < 1998  # the full product has 1,998 states: the search stopped early
    # a small model under ``auto`` is explored whole, as before
    whole = json.loads(cli("explore", str(path), "--ltl", "p", "--no-trace", "--json", native="auto").stdout)
    assert whole["states"] == 1998 and whole["stopped"] is None


def test_a_first_search_without_a_cycle_decides_and_explores(tmp_path):
    path = tmp_path / "grid.pml"
    path.write_text(GRID.replace("FORMULA", "[] <> (a + b < 100)"))
    done = cli("explore", str(path), "--ltl", "p", "--no-trace", native="1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(acceptance cycle): holds (no cycle through an accepting state among" in done.stdout
    # not searched a second time after it, and no breadth-first exploration either
    assert "nested depth-first search, which also gave the figures and the other verdicts" in done.stdout
    assert "(the deepest depth-first stack)" in done.stdout


#: every finding of an exploration under a claim: an assert that fails (x == 5), an index
#: out of bounds (x == 6), a process that ends (Q), one blocked for ever (P after y = 1).
#: Under pan a claim disables invalid end states; ours are counted as without one.
GATHER = """byte x, y;
byte a[3];
active proctype P() {
  do
  :: x < 6 -> x++
  :: x >= 3 -> assert(x != 5)
  :: x == 6 -> a[x - 2] = 1
  :: y == 0 -> y = 1; (x > 10)
  od
}
active proctype Q() {
  do
  :: y < 2 -> y++
  :: y == 2 -> break
  od
}
ltl p { FORMULA }
"""


@pytest.mark.parametrize("formula, ends", [("[] <> (x < 100)", False), ("[] (x < 4)", True),
                                           ("[] (y < 2 -> <> x == 6)", True)])
def test_the_nested_search_gathers_what_the_exploration_reports(formula, ends):
    """A nested search that finds no cycle has expanded every reachable state once: what it
    gathered on the way is the breadth-first exploration's report -- the same states,
    transitions, dead ends, fault states and verdicts; its depth is its deepest stack and its
    traces depth-first paths to the same kind of state."""
    from detect.checking import cycles
    from detect.statespace.native import explore_native

    model = model_of(GATHER.replace("FORMULA", formula))
    searched = cycles.first_acceptance_cycle(model, None, engine="native")
    assert searched.found is None and list(searched.holds) == [1]
    made, bfs = searched.exploration, explore_native(model)
    assert made.depth_first and not bfs.depth_first and not made.truncated
    for field in ("states", "transitions", "initial", "faults"):
        assert getattr(made, field) == getattr(bfs, field), field
    assert made.faults > 0 and bool(made.terminal_states) is ends  # (a claim that never ends stutters)
    assert set(made.deadlocks) == set(bfs.deadlocks) and set(made.terminal_states) == set(bfs.terminal_states)
    assert len(made.first_faults) == len(bfs.first_faults)
    assert [a.verdict for a in made.assertions] == [a.verdict for a in bfs.assertions]
    assert made.depth >= bfs.depth > 0
    claim_end = made.assertions[0]
    if claim_end.verdict == "fails":  # a real path to a state where the claim ends
        assert claim_end.trace[0].state in set(compile_model(model).initial_states())
        assert compile_model(model).conditions[0](claim_end.trace[-1].state) is False
    assert made.fault_trace and made.fault_trace[-1].fault
    with_holds = cycles.searched_exploration(searched)
    assert with_holds.assertions[1].verdict == "holds" and "also gave the figures" in with_holds.assertions[1].note


def test_a_run_that_does_not_reduce_explores_no_more(tmp_path, monkeypatch):
    """``explore --ltl`` on a model past ``auto``'s probe: the nested search's report is the
    run's (no breadth-first exploration), unreduced and with a trivial group; the figures
    are those the exploration gives."""
    from click.testing import CliRunner

    import json

    from detect.checking import reduce
    from detect.cli import main
    from detect.statespace import native

    path = tmp_path / "gather.pml"
    path.write_text(GATHER.replace("FORMULA", "[] (y < 2 -> <> x == 6)"))
    monkeypatch.setenv("SYMDETECT_MODEL_CACHE", "off")
    monkeypatch.setattr(native, "AUTO_THRESHOLD", 200)
    bfs = CliRunner().invoke(main, ["explore", str(path), "--json", "--engine", "python", "--no-trace"])
    assert bfs.exit_code == 1, bfs.output
    expected = json.loads(bfs.stdout[bfs.stdout.index("{"):])

    def no_exploration(*args, **kwargs):
        raise AssertionError("explored again")

    monkeypatch.setattr(reduce, "explore_state_space", no_exploration)
    for strategy in ("none", "exact"):
        run = CliRunner().invoke(main, ["explore", str(path), "--json", "--reduce", strategy, "--no-trace"])
        assert run.exit_code == 1, run.output
        report = json.loads(run.stdout[run.stdout.index("{"):])
        assert report["search"] == "nested depth-first" and expected["search"] == "breadth-first"
        assert report["group_order"] == 1
        for field in ("states", "transitions", "initial", "deadlocks", "terminal_states", "faults", "stopped"):
            assert report[field] == expected[field], field
        assert [a["verdict"] for a in report["assertions"]] == [a["verdict"] for a in expected["assertions"]]


def test_autos_probe_is_not_built_again(monkeypatch):
    """``auto``'s probe (the unreduced graph up to ``AUTO_THRESHOLD`` states) is kept: on a
    small model ``check_acceptance`` searches it instead of building the graph again; on a
    large one the probe says so, and the nested search decides."""
    from detect.checking import cycles
    from detect.statespace import native

    model = model_of(GRID.replace("FORMULA", "[] <> (a == 0)"))
    searched = cycles.first_acceptance_cycle(model, None, engine="auto")
    assert searched.found is None and not searched.holds and not searched.large
    assert searched.graph is not None and searched.graph.complete
    reduced = explore_reduced(model, "none", explorer="python")

    def no_second_graph(*args, **kwargs):
        raise AssertionError("the unreduced graph built again")

    monkeypatch.setattr(cycles, "reachable_graph", no_second_graph)
    result = check_acceptance(model, reduced.exploration, None, graph=searched.graph, engine="auto")
    verdict = next(a for a in result.assertions if a.assertion.kind == "acceptance")
    assert verdict.verdict == "fails"  # pan -a: B moves for ever
    closes(verdict)
    monkeypatch.undo()
    # a graph past the user's bound is not used: the bound still leaves the verdict unknown
    result = check_acceptance(model, reduced.exploration, 500, graph=searched.graph, engine="python")
    assert next(a for a in result.assertions if a.assertion.kind == "acceptance").verdict == "unknown"
    monkeypatch.setattr(native, "AUTO_THRESHOLD", 200)
    big = cycles.first_acceptance_cycle(model_of(GRID.replace("FORMULA", "[] <> (a + b < 100)")), None,
                                        engine="auto")
    assert big.large and big.graph is None and big.found is None
    assert [v.verdict for v in big.holds.values()] == ["holds"]
