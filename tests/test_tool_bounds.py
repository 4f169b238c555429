"""Bounds of ours are no faults of the model: a step cut at ``--max-procs`` (Promela below
Spin's 255, CSP# spawn pools) or ``--loop-max`` (Promela, CSP#; not Murphi, where it is
CMurphi's ``-loop``) is a ``ToolBound``.  ``explore`` then ends "not decided" (exit 3) with
the option and a larger value, or, when the bound was our default, raises it and explores
again.  Promela verdicts and counts are pinned to Spin 6.5.2 (``spin -a``, pan
``-DSAFETY -DNOREDUCE -DNOCLAIM``), rerun where Spin is installed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from detect.cli import main
from detect.ir import (Assert, Assign, Binary, Const, Event, Name, SequentialModel, Summand, ToolBound,
                       Variable)
from detect.statespace.explore import explore_state_space
from detect.symmetry.pipeline import detect
from detect.transform.load import narrowed
from frontends import promela
from tests.spin_oracle import Counts, spin_available, spin_counts

ROOT = Path(__file__).resolve().parent.parent

#: the issue's reproducer: each W runs the next until k = 9, 11 processes alive at the end
CHAIN = "proctype W(byte k) { byte x; x = k; if :: k < 9 -> run W(k + 1) :: else -> skip fi }\ninit { run W(0) }\n"
#: 22 processes alive: the default 8 is raised twice (16, 32)
CHAIN20 = CHAIN.replace("k < 9", "k < 20")
#: a real violation (init's assertion) beside the recursion
CHAIN_BAD = CHAIN.replace("init { run W(0) }", "init { run W(0); assert(false) }")
#: recursion without end: pan stops at its 255 with "too many processes"
ENDLESS = "proctype W(byte k) { byte x; x = k; run W(k + 1) }\ninit { run W(0) }\n"

#: Spin's ("states, stored", errors > 0) of each (None: the search was not completed)
PINNED = {CHAIN: Counts(43, False), CHAIN20: Counts(87, False), CHAIN_BAD: Counts(84, True)}


def explore(path: Path, *args: str):
    return CliRunner().invoke(main, ["explore", str(path), *args])


def spin_agrees(text: str, tmp_path: Path) -> None:
    if spin_available():
        assert spin_counts(text, tmp_path) == PINNED[text]


def test_the_reproducer_raises_our_default_and_counts_as_spin(tmp_path):
    """Spin: 43 states, no error.  We used to stop at our default 8 processes with a false
    "assertion violated" and exit 1; now the default is doubled once, with a line saying so."""
    path = tmp_path / "chain.pml"
    path.write_text(CHAIN)
    result = explore(path, "--json", "--spin-states")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["states"], data["spin states stored"], data["faults"], data["bounds"]) == (43, "43", 0, 0)
    assert data["raised"] == "--max-procs 16"
    assert [a["verdict"] for a in data["assertions"]] == ["holds"]
    assert result.stderr.count("exploring again with") == 1
    assert "symdetect: --max-procs 8 reached (our default, not the model's bound); exploring again with " \
           "--max-procs 16" in result.stderr
    spin_agrees(CHAIN, tmp_path)


def test_raised_twice_where_more_processes_are_alive(tmp_path):
    path = tmp_path / "chain20.pml"
    path.write_text(CHAIN20)
    result = explore(path, "--json", "--spin-states")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["spin states stored"], data["faults"], data["raised"]) == ("87", 0, "--max-procs 16, then --max-procs 32")
    spin_agrees(CHAIN20, tmp_path)


def test_a_bound_the_user_gave_is_not_decided_naming_the_option(tmp_path):
    path = tmp_path / "chain.pml"
    path.write_text(CHAIN)
    result = explore(path, "--max-procs", "8", "--no-trace")
    assert result.exit_code == 3, result.output
    assert "exploring again" not in result.output
    assert ("not decided: --max-procs 8 reached in 1 state (a bound of ours, not the model's), first at W[7] line 1: "
            "run: more than 8 processes alive (at most 255 as in Spin); pass --max-procs 16 (or more) to go past it"
            in result.output)
    assert "assertion violated" not in result.output and "states with faults" in result.output
    assert "no invalid end states: unknown (a bound of ours was reached (--max-procs 8))" in result.output
    data = json.loads(explore(path, "--max-procs", "8", "--json").stdout)
    assert (data["faults"], data["bounds"], data["bounds_reached"]) == (0, 1, [{"option": "--max-procs", "value": 8}])
    # --partial-ok excuses an undecided run as it does one cut short
    assert explore(path, "--max-procs", "8", "--partial-ok").exit_code == 0
    # a bound that is enough decides: Spin's figures
    assert explore(path, "--max-procs", "11").exit_code == 0


def test_a_real_violation_still_exits_1(tmp_path):
    path = tmp_path / "bad.pml"
    path.write_text(CHAIN_BAD)
    for args in ((), ("--max-procs", "8")):
        result = explore(path, "--no-trace", *args)
        assert result.exit_code == 1, result.output
        assert "assertion violated" in result.output and "not decided" not in result.output
    spin_agrees(CHAIN_BAD, tmp_path)


def test_raising_stops_at_the_cpu_budget(tmp_path, monkeypatch):
    """Recursion without end: pan reports "too many processes" at 255; we raise the default
    only while the next run's guessed CPU time fits ``AUTO_RAISE_CPU``, then say what to pass
    (exit 3, never a false "no error" nor a false fault)."""
    import detect.cli

    monkeypatch.setattr(detect.cli, "AUTO_RAISE_CPU", 0.0)
    path = tmp_path / "endless.pml"
    path.write_text(ENDLESS)
    result = explore(path, "--no-trace")
    assert result.exit_code == 3, result.output
    assert "exploring again" not in result.output
    assert "not decided: --max-procs 8 reached" in result.output and "pass --max-procs 16" in result.output
    if spin_available():
        spin = spin_counts(ENDLESS, tmp_path)
        assert spin.error and not spin.complete


def _overflow_is_spin_error(spin_max: int) -> None:
    from detect.ir.walk import statements

    model = promela.parse_text(ENDLESS, "e.pml", max_procs=spin_max)
    cut = [st for s in model.summands for st in statements(s.program) if isinstance(st, Assert) and not st.text.startswith("line")]
    assert any(st.text == "too many processes" and st.bound is None for st in cut)
    below = promela.parse_text(ENDLESS, "e.pml", max_procs=9)
    assert any(isinstance(st, Assert) and st.bound == ToolBound("--max-procs", 9, spin_max)
               for s in below.summands for st in statements(s.program))


@pytest.mark.slow
def test_at_spin_bound_the_overflow_is_spin_error():
    """At 255 the overflow is pan's own "too many processes": a fault of the model (about
    20 CPU s: 255 slots; the default run checks the same with Spin's bound made 12)."""
    _overflow_is_spin_error(255)


def test_at_spin_bound_the_overflow_is_spin_error_small(monkeypatch):
    """As above, with the front end's Spin bound made 12 (the same code path, fast)."""
    from frontends.promela import lower

    monkeypatch.setattr(lower, "SPIN_MAX_PROCS", 12)
    _overflow_is_spin_error(12)


@pytest.mark.parametrize("engine", ["python", "native"])
def test_both_explorers_count_bound_states_apart(engine):
    model = narrowed(promela.parse_text)(CHAIN, "chain.pml", max_procs=8)
    result = explore_state_space(model, engine=engine)
    assert (result.states, result.faults, result.bounds) == (22, 0, 1)
    assert result.bounds_reached == (ToolBound("--max-procs", 8, 255),)
    assert result.first_faults == () and result.first_bounds[0].origin == "W[7] line 1"
    assert [a.verdict for a in result.assertions] == ["unknown"]


def test_csp_spawn_pool_default_is_raised(tmp_path):
    """PAT has no bound on spawned processes: our default pool of 4 is doubled; the counts are
    those of a pool given large enough by hand."""
    path = tmp_path / "spawn.csp"
    path.write_text("Q() = b -> Stop;\nP(n) = [n < 6] a -> (Q() ||| P(n + 1));\nSystem = P(0);\n"
                    "#assert System deadlockfree;\n")
    result = explore(path, "--json")
    data = json.loads(result.stdout)
    assert data["raised"] == "--max-procs 8" and data["bounds"] == 0
    given = json.loads(explore(path, "--json", "--max-procs", "8").stdout)
    assert data["states"] == given["states"] and data["transitions"] == given["transitions"]
    # the verdict is the model's own (each Q stops: a deadlock once P is done), exit 1
    assert result.exit_code == 1
    assert [a["verdict"] for a in data["assertions"]] == ["fails"] and data["faults"] == 0
    # with the pool given too small, P never gets done: no deadlock, the run is not decided
    small = explore(path, "--max-procs", "4", "--no-trace")
    assert small.exit_code == 3 and "not decided: --max-procs 4 reached" in small.output


def test_csp_loop_max_is_ours_and_murphi_stays_cmurphi(tmp_path):
    """PAT runs a ``while`` without a bound: past our default 256 rounds the run is raised
    (512), and past a given ``--loop-max`` it is not decided."""
    path = tmp_path / "loop.csp"
    path.write_text("var x = 0;\nP() = a{ var i = 0; while (i < 300) { i = i + 1; }; x = i; } -> Skip;\n"
                    "#assert P() deadlockfree;\n")
    result = explore(path, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["raised"] == "--loop-max 512"
    given = explore(path, "--loop-max", "256", "--no-trace")
    assert given.exit_code == 3 and "not decided: --loop-max 256 reached" in given.output
    assert "pass --loop-max 512 (or more)" in given.output


def swapped_asserts(bound) -> SequentialModel:
    """x := 1 then assert y == 0, and y := 1 then assert x == 0 (the second at ``bound``)."""
    x, y = Name("x"), Name("y")
    return SequentialModel("m", (Variable("x", (0, 1), ((0,),)), Variable("y", (0, 1), ((0,),))), (
        Summand((), Const(1), Event("a"), (Assign(x, Const(1)), Assert(Binary("==", y, Const(0)), "a"))),
        Summand((), Const(1), Event("a"), (Assign(y, Const(1)), Assert(Binary("==", x, Const(0)), "b", bound))),
    ))


def test_detection_keeps_bounds_apart_from_faults():
    """A symmetry must not map a step cut at a bound of ours onto a fault of the model (one
    makes the run undecided, the other violated): swapping x and y is one only when both
    asserts are of one kind."""
    assert detect(swapped_asserts(None)).group.order == 2
    assert detect(swapped_asserts(ToolBound("--max-procs", 4, 8))).group.order == 1


def test_verify_refutes_a_swap_of_bound_and_fault():
    """``--verify`` checks the kind too: the swap maps the state whose step is cut at the
    bound onto the one with the model's fault."""
    from detect.checking.verify import verify
    from detect.symmetry.perm import StatePermutation

    swap = StatePermutation((1, 0), ({0: 0, 1: 1}, {0: 0, 1: 1}))
    assert verify(swapped_asserts(None), [swap]).verdicts[0].ok
    refuted = verify(swapped_asserts(ToolBound("--max-procs", 4, 8)), [swap]).verdicts[0]
    assert not refuted.ok and refuted.kind == "fault" and "bound of ours" in refuted.message


LTL = """byte n;
proctype W(byte k) { byte x; x = k; if :: k < 9 -> run W(k + 1) :: else -> n = 1 fi }
init { run W(0) }
ltl p { <> (n == 1) }
"""


def test_an_ltl_verdict_past_a_bound_is_unknown(tmp_path):
    """The acceptance search does not go past a step cut at a bound of ours: with the bound
    given too small the formula is unknown (exit 3); raised by itself it holds, as pan -a says."""
    path = tmp_path / "ltl.pml"
    path.write_text(LTL)
    cut = explore(path, "--max-procs", "8", "--no-trace")
    assert cut.exit_code == 3, cut.output
    assert "(acceptance cycle): unknown (no cycle through an accepting state among" in cut.output
    assert "but a bound of ours was reached (--max-procs 8)" in cut.output
    raised = explore(path, "--no-trace")
    assert raised.exit_code == 0 and "(acceptance cycle): holds" in raised.output
    if spin_available():
        from tests.spin_oracle import spin_ltl

        assert not spin_ltl(LTL, tmp_path)
