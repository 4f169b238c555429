"""Issue 30, weak fairness: ``explore --weak-fairness`` counts only the acceptance (and, with
``--non-progress``, non-progress) cycles along which every process that stays able to move
moves, as Spin's ``pan -a -f`` (``-l -f``).  Expected verdicts are derived by hand; where
Spin is installed, pan -f's verdicts are compared too, on these models and on random ones
(``promela_gen.fair_claimed``: processes that loop for ever).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.promela_gen import fair_claimed, fair_progressed
from tests.spin_oracle import (SpinRefused, our_ltl, our_non_progress, spin_available, spin_ltl_fair,
                               spin_non_progress_fair)

ROOT = Path(__file__).resolve().parents[1]
needs_spin = pytest.mark.skipif(not spin_available(), reason="spin or gcc not installed")

#: ``a`` would make x 1 at once, but an unfair scheduler may run ``b`` for ever: ``<> (x == 1)``
#: fails without fairness and holds with it (``a`` stays enabled, so it must move).
STARVED = """byte x;
active proctype a() { do :: x = 1 od }
active proctype b() { do :: x == 0 -> x = 0 :: x == 1 -> x = 1 od }
ltl q { <> (x == 1) }
"""

#: ``b`` loops for ever; ``a`` waits for a receiver that never answers (a rendezvous send is
#: no move), ``c`` for ``x == 5``: both are blocked all along, so ``b`` alone is fair, and
#: ``[]<> (x == 2)`` fails under fairness too.
BLOCKED = """chan c = [0] of { byte };
byte x;
active proctype a() { c!1 }
active proctype b() { do :: x = 1 - x od }
active proctype w() { x == 5; c?_ }
ltl p { []<> (x == 2) }
"""

#: ``a``'s ``timeout`` is never executable while ``b`` moves: a blocked process, so the
#: cycle of ``b`` alone is fair and ``[]<> f`` fails.
TIMEOUT = """byte x;
bool f;
active proctype a() { do :: timeout -> f = true od }
active proctype b() { do :: x < 3 -> x++ :: x == 3 -> x = 0 od }
ltl p { []<> f }
"""

#: ``q`` loops without progress for ever while ``p``, always able to move, never does: a
#: non-progress cycle for ``pan -l``, none under fairness (``p`` passes its progress label).
NP_STARVED = """byte x, y;
active proctype p() { do :: x = 1 - x; progress: skip od }
active proctype q() { do :: y = 1 - y od }
"""

#: two symmetric workers and an observer: the workers' group (order 2) keeps ``<> (x == 2)``
RING = """byte x;
active [2] proctype w() { do :: x < 2 -> x++ :: x == 2 -> x = 0 od }
active proctype o() { do :: x == 1 -> x = 1 :: x != 1 -> x = x od }
ltl p { [] (x == 0 -> <> (x == 2)) }
"""

#: a token passed round a ring of three (rotations: order 3).  On the quotient every step is
#: "process 0 passes the token"; the fair cycle needs all three, which only the annotated
#: quotient (sets renamed by the rotation each step takes) sees.
TOKEN_RING = """byte tok = 3;
active [3] proctype P() {
  do
  :: tok == _pid -> tok = (_pid + 1) % 3
  od
}
init { if :: tok = 0 :: tok = 1 :: tok = 2 fi }
ltl never3 { [] <> (tok == 3) }
"""


def cli(*args: str, text: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "m.pml"
        path.write_text(text)
        env = dict(os.environ, SYMDETECT_MODEL_CACHE="off")
        return subprocess.run([sys.executable, "-m", "detect.cli", "explore", str(path), *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.parametrize("text,unfair,fair", [
    (STARVED, True, False),
    (BLOCKED, True, True),
    (TIMEOUT, True, True),
], ids=["starved", "blocked", "timeout"])
def test_weak_fairness_verdicts(text, unfair, fair):
    assert our_ltl(text) is unfair
    assert our_ltl(text, fair=True) is fair


def test_non_progress_under_fairness():
    assert our_non_progress(NP_STARVED) is True
    assert our_non_progress(NP_STARVED, fair=True) is False


@needs_spin
@pytest.mark.parametrize("text", [STARVED, BLOCKED, TIMEOUT, RING, TOKEN_RING],
                         ids=["starved", "blocked", "timeout", "ring", "token"])
def test_hand_models_against_pan_f(text, tmp_path):
    assert spin_ltl_fair(text, tmp_path) == (our_ltl(text), our_ltl(text, fair=True))


@needs_spin
def test_non_progress_against_pan_l_f(tmp_path):
    assert spin_non_progress_fair(NP_STARVED, tmp_path) == (True, False)


@needs_spin
@pytest.mark.parametrize("seed", range(1000, 1004))
def test_random_pairs_against_pan_f(seed, tmp_path):
    text = fair_claimed(seed)
    try:
        _, fair = spin_ltl_fair(text, tmp_path)
    except SpinRefused as e:
        pytest.skip(f"Spin refuses the model: {e}")
    assert our_ltl(text, fair=True) == fair


@needs_spin
@pytest.mark.parametrize("seed", range(1000, 1003))
def test_random_models_against_pan_l_f(seed, tmp_path):
    text = fair_progressed(seed)
    try:
        _, fair = spin_non_progress_fair(text, tmp_path)
    except SpinRefused as e:
        pytest.skip(f"Spin refuses the model: {e}")
    assert our_non_progress(text, fair=True) == fair


def test_reduced_verdict_is_the_unreduced_one_under_fairness():
    """With ``--reduce``, fair cycles are looked for on the annotated quotient (README)."""
    for text in (RING, STARVED, TOKEN_RING):
        assert our_ltl(text, reduce="exact", fair=True) == our_ltl(text, fair=True)
    assert our_ltl(RING, fair=True) is False
    assert our_ltl(RING) is True  # o may loop at x == 1 for ever without fairness
    assert our_ltl(TOKEN_RING, fair=True) is True


def test_cli_weak_fairness_on_the_annotated_quotient():
    r = cli("--weak-fairness", "--reduce", "exact", text=TOKEN_RING)
    assert r.returncode == 1, r.stderr
    assert ("a weakly fair cycle (as pan -f) through an accepting state among 22 states of the quotient by the "
            "symmetry group (order 3)") in r.stdout
    assert "the cycle starts here" in r.stdout
    r = cli("--weak-fairness", "--reduce", "exact", text=RING)
    assert r.returncode == 0, r.stderr
    assert "no weakly fair cycle (as pan -f)" in r.stdout and "quotient by the symmetry group (order 2)" in r.stdout
    assert "without reduction" not in r.stderr
    assert cli(text=STARVED).returncode == 1


def test_cli_weak_fairness_needs_a_claim():
    r = cli("--weak-fairness", text="byte x;\nactive proctype p() { x = 1 }\n")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"symdetect: {r.stderr.split(': ', 2)[1]}: --weak-fairness applies to Promela models with a never claim, "
        "an ltl formula or --non-progress (pan's -f needs -a or -l)"]


#: ``a`` and ``b`` make the same state changes: a fair lasso needs both to move in its cycle,
#: which the states alone do not show
TWINS = """byte x;
active proctype a() { do :: x = 1 - x od }
active proctype b() { do :: x = 1 - x od }
ltl p { []<> (x == 2) }
"""


def test_the_fair_lasso_names_the_steps_that_make_it_fair():
    import warnings

    from detect.checking.cycles import check_acceptance
    from detect.checking.reduce import explore_reduced
    from detect.transform.narrowing import narrow
    from frontends.promela import parse_text

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = narrow(parse_text(TWINS, "twins.pml"))
    reduced = explore_reduced(model, "none", max_states=100_000, explorer="python")
    result = check_acceptance(model, reduced.exploration, 100_000, weak_fairness=True)
    cycle = next(a for a in result.assertions if a.assertion.kind == "acceptance")
    assert cycle.verdict == "fails" and "weakly fair cycle" in cycle.note
    assert cycle.trace[cycle.loop_from].state == cycle.trace[-1].state
    movers = {model.summands[step.summand].owners[0] for step in cycle.trace[cycle.loop_from + 1:]}
    assert {"a[0]", "b[1]"} <= movers


# ---------------------------------------------------------------- the native search (issue 30)

#: two counters mod 40 moved in any order: 1,600 system states.  pan -a -f (pinned, Spin
#: 6.5.2): ``[] <> (a == 0)`` holds (A stays able to move, so it must: without -f, violated),
#: ``[] <> (a == 0 && b == 0)`` violated (the interleaving can keep them apart for ever).
GRID = """byte a, b;
active proctype A() { do :: a = (a + 1) % 40 od }
active proctype B() { do :: b = (b + 1) % 40 od }
ltl p { FORMULA }
"""
GRID_FAIR = {"[] <> (a == 0)": (True, False), "[] <> (a == 0 && b == 0)": (True, True)}


def native_fair(text: str, max_states=None):
    """``_native_fair_cycle``'s answer on ``text``'s ltl (None: the native search did not run)."""
    import warnings

    from detect.checking import cycles
    from detect.statespace.compile import compile_model
    from detect.transform.narrowing import narrow
    from frontends.promela import parse_text

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = narrow(parse_text(text, "m.pml"))
    i = next(k for k, a in enumerate(model.assertions) if a.kind == "acceptance")
    return model, cycles._native_fair_cycle(model, compile_model(model).conditions[i], cycles.fairness_of(model), i,
                                            max_states, None, None, False, 0, "native")


def needs_compiler(test):
    from detect.statespace.native import build

    return pytest.mark.skipif(build.compiler() is None, reason="no C compiler")(test)


@needs_compiler
@pytest.mark.parametrize("text,fair", [(STARVED, False), (BLOCKED, True), (TIMEOUT, True), (RING, False),
                                       (TOKEN_RING, True), (TWINS, True)],
                         ids=["starved", "blocked", "timeout", "ring", "token", "twins"])
def test_the_native_search_with_the_fairness_counter(text, fair):
    """The nested search in C over (state, pan's counter) runs, and its verdict is the hand-derived
    one; its lasso closes and, in its cycle, every process moves (each needs to, here)."""
    model, out = native_fair(text)
    assert out is not None, "the native fair search did not run"
    found, _, _, _, trace, loop_from = out
    assert found is fair
    assert our_ltl(text, fair=True, engine="native") is fair
    if fair:
        assert trace[loop_from].state == trace[-1].state
    if text in (TOKEN_RING, TWINS):  # the fair cycle needs every looping process to move in it
        movers = {o for step in trace[loop_from + 1:] for o in model.summands[step.summand].owners}
        assert {p.name for p in model.processes if p.name not in ("never", "init")} <= movers


@needs_compiler
@pytest.mark.parametrize("formula", sorted(GRID_FAIR))
def test_the_native_fair_search_past_the_python_budget(formula, monkeypatch, tmp_path):
    """Past the Python graph's slot budget, the Python search leaves the verdict unknown; the
    native one decides it, as pan -a -f (pinned; live where Spin is installed)."""
    from detect.statespace import explore

    text = GRID.replace("FORMULA", formula)
    unfair, fair = GRID_FAIR[formula]
    monkeypatch.setattr(explore, "SLOT_BUDGET", 10_000)
    with pytest.raises(RuntimeError, match="not decided"):
        our_ltl(text, fair=True, engine="python")
    assert our_ltl(text, fair=True, engine="native") is fair
    _, out = native_fair(text, max_states=100)  # a state bound: not decided, said so
    assert out[0] is None and "fairness counter" in out[2]
    if spin_available():
        assert spin_ltl_fair(text, tmp_path) == (unfair, fair)


@needs_compiler
def test_cli_weak_fairness_by_the_native_search(tmp_path):
    for formula, (_, fair) in GRID_FAIR.items():
        path = tmp_path / "grid.pml"
        path.write_text(GRID.replace("FORMULA", formula))
        env = dict(os.environ, SYMDETECT_MODEL_CACHE="off", SYMDETECT_NATIVE="1")
        r = subprocess.run([sys.executable, "-m", "detect.cli", "explore", str(path), "--weak-fairness",
                            "--no-trace"], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
        assert r.returncode == (1 if fair else 0), r.stdout + r.stderr
        assert f"{'a' if fair else 'no'} weakly fair cycle (as pan -f)" in r.stdout
    r = subprocess.run([sys.executable, "-m", "detect.cli", "explore", str(path), "--weak-fairness", "--no-trace",
                        "--max-states", "100"], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 3, r.stdout + r.stderr  # stopped by the bound: not checked


#: three interchangeable processes going in and out (S_3 keeps ``cnt``).  Under weak fairness
#: (every process always able to move): ``[] <> (cnt == 0)`` violated (one can stay in while
#: the others move), ``[] <> (cnt < 3)`` holds (pan -a -f, pinned; live where Spin is installed).
INOUT = """byte cnt;
active [3] proctype P() {
  bit in;
  do
  :: !in -> cnt++; in = 1
  :: in -> cnt--; in = 0
  od
}
ltl p { FORMULA }
"""
INOUT_FAIR = {"[] <> (cnt == 0)": True, "[] <> (cnt < 3)": False}


@needs_compiler
@pytest.mark.parametrize("formula", sorted(INOUT_FAIR))
def test_past_the_annotated_quotients_budget_the_native_search_decides(formula, monkeypatch, tmp_path):
    import warnings

    from detect.checking.cycles import check_acceptance
    from detect.checking.reduce import acceptance_quotient, explore_reduced
    from detect.statespace import explore
    from detect.symmetry.pipeline import detect
    from detect.transform.narrowing import narrow
    from frontends.promela import parse_text

    text = INOUT.replace("FORMULA", formula)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = narrow(parse_text(text, "m.pml"))
    detection = detect(model)
    reduced = explore_reduced(model, "exact", detection=detection, explorer="python")
    quotient = acceptance_quotient(detection, reduced)
    assert quotient is not None and quotient.order == 6

    def verdict(max_states):
        result = check_acceptance(model, reduced.exploration, max_states, quotient=quotient, weak_fairness=True,
                                  engine="native")
        return next(a for a in result.assertions if a.assertion.kind == "acceptance"), result.notes

    on_quotient, _ = verdict(None)
    assert on_quotient.verdict == ("fails" if INOUT_FAIR[formula] else "holds")
    assert "quotient by the symmetry group (order 6)" in on_quotient.note
    monkeypatch.setattr(explore, "SLOT_BUDGET", 20)  # the annotated quotient (Python) stops at once
    bounded, _ = verdict(1_000)  # a bound the user gave: not decided
    assert bounded.verdict == "unknown"
    fallback, notes = verdict(None)  # no bound given: the native unreduced search decides
    assert fallback.verdict == on_quotient.verdict and "unreduced states" in fallback.note
    assert any("the annotated quotient passed" in n for n in notes)
    if spin_available():
        assert spin_ltl_fair(text, tmp_path)[1] is INOUT_FAIR[formula]
