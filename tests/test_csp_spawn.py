"""Dynamic process creation in CSP# (issue 14): ``P() = a -> (Q() ||| P())``.

A spawned Q runs in a slot of a pool of ``--max-procs`` anonymous slots (any free one), its
Skip frees the slot, and a spawn with every slot taken is a fault naming the bound.  Each
one-line model is checked against a hand-written equivalent that counts the live copies
in a bounded variable (its overflow is the fault): the two labelled transition systems,
faults as a transition to a sink, are strongly bisimilar.  Slots are interchangeable, so
detection permutes them, and reduced exploration gives the brute-force orbit count.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from detect.checking.orbits import orbit_count
from detect.checking.reduce import explore_reduced
from detect.checking.verify import verify
from detect.errors import InputError
from detect.ir import ToolBound
from detect.ir.semantics import initial_states, steps
from detect.statespace.explore import explore_state_space
from detect.symmetry.pipeline import detect
from detect.transform.load import narrowed
from frontends.csp import load as load_unnarrowed, parse_text as parse_unnarrowed
from tests.frontend_checks import assert_located_error

load, parse_text = narrowed(load_unnarrowed), narrowed(parse_unnarrowed)
ROOT = Path(__file__).resolve().parent.parent
FAULT = "fault"


def model(text: str, max_procs: int | None = None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return parse_text(text, "m.csp", max_procs=max_procs)


def labelled_lts(m):
    """Reachable states and ``(state, label, target)`` steps; a faulting step goes to ``FAULT``."""
    init = set(initial_states(m))
    seen, frontier, edges = set(init), list(init), set()
    while frontier:
        state = frontier.pop()
        for step in steps(m, state):
            target = FAULT if step.target is None else step.target
            edges.add((state, step.event, target))
            if target != FAULT and target not in seen:
                seen.add(target)
                frontier.append(target)
    return init, seen | {FAULT}, edges


def bisimilar(a, b) -> bool:
    """Strong bisimilarity of two labelled LTSs (signature refinement on their disjoint union)."""
    (init_a, states_a, edges_a), (init_b, states_b, edges_b) = a, b
    states = [("a", s) for s in states_a] + [("b", s) for s in states_b]
    succ: dict = {s: set() for s in states}
    for side, edges in (("a", edges_a), ("b", edges_b)):
        for s, label, t in edges:
            succ[(side, s)].add((label, (side, t)))
    block = {s: s[1] == FAULT for s in states}
    while True:
        signature = {s: (block[s], frozenset((label, block[t]) for label, t in succ[s])) for s in states}
        names = {sig: k for k, sig in enumerate(sorted(set(signature.values()), key=repr))}
        refined = {s: names[signature[s]] for s in states}
        if len(set(refined.values())) == len(set(block.values())):
            break
        block = refined
    return {refined[("a", s)] for s in init_a} == {refined[("b", s)] for s in init_b}


# (spawning model, its hand-written equivalent with the live copies counted in n : {0..K})
EQUIVALENT = [
    # Q never ends, spawned at most 3 times: no fault below the bound
    ("Q() = b -> Q();\nP(m) = [m < 3] a -> (Q() ||| P(m + 1));\nSystem = P(0);",
     "var n : {0..K} = 0;\nQ(j) = [n > j] b -> Q(j);\nP() = [n < 3] a{n = n + 1} -> P();\n"
     "System = P() ||| (|||j:{0..K-1}@Q(j));"),
    # Q ends and frees its slot; spawned without bound: the bound's fault
    ("Q() = b -> Skip;\nP() = a -> (Q() ||| P());\nSystem = P();",
     "var n : {0..K} = 0;\nP() = a{n = n + 1} -> P();\nB() = [n > 0] b{n = n - 1} -> B();\nSystem = P() ||| B();"),
    # arguments, either order of the operands
    ("Q(i) = b.i -> c -> Skip;\nP() = []i:{0..1}@(a.i -> (Q(i) ||| P())) [] d -> (P() ||| Q(1));\nSystem = P();",
     "var t : {0..K} = 0;\nvar x[2] : {0..K};\nvar y : {0..K} = 0;\n"
     "P() = []i:{0..1}@(a.i{x[i] = x[i] + 1; t = t + 1} -> P()) [] d{x[1] = x[1] + 1; t = t + 1} -> P();\n"
     "B() = ([]i:{0..1}@([x[i] > 0] b.i{x[i] = x[i] - 1; y = y + 1} -> B())) [] [y > 0] c{y = y - 1; t = t - 1} -> B();\n"
     "System = P() ||| B();"),
    # spawned processes synchronise with the spawner's partner in '||'
    ("Q() = b -> Skip;\nP() = a -> (Q() ||| P());\nR() = b -> r -> R();\nSystem = P() || R();",
     "var n : {0..K} = 0;\nP() = a{n = n + 1} -> P();\nB() = [n > 0] b{n = n - 1} -> B();\n"
     "R() = b -> r -> R();\nSystem = (P() ||| B()) || R();"),
    # a spawned process inside atomic blocks the spawner until it leaves the block
    ("var x : {0..1} = 0;\nQ() = atomic{b{x = 1} -> c{x = 0} -> Skip};\nP() = a -> (Q() ||| P());\nSystem = P();",
     "var x : {0..1} = 0;\nvar n : {0..K} = 0;\nP() = a{n = n + 1} -> P();\n"
     "B() = ([n > 0] atomic{b{x = 1} -> c{x = 0; n = n - 1} -> Skip}); B();\nSystem = P() ||| B();"),
    # a spawned Skip ends at once: it takes no slot and never meets the bound
    ("Q() = Skip;\nP() = a -> (Q() ||| P());\nSystem = P();", "P() = a -> P();\nSystem = P();"),
]


@pytest.mark.parametrize("bound", [1, 2, 3])
@pytest.mark.parametrize("spawning,written", EQUIVALENT)
def test_spawning_is_bisimilar_to_counted_copies(spawning, written, bound):
    hand = model(f"#define K {bound};\n" + written)
    assert bisimilar(labelled_lts(model(spawning, bound)), labelled_lts(hand))


def test_the_bound_is_ours_and_names_the_option():
    """PAT has no bound on spawned processes: a spawn past the pool is cut at a ``ToolBound``
    (the run undecided), not a fault of the model."""
    result = explore_state_space(model("Q() = b -> Q();\nP() = a -> (Q() ||| P());\nSystem = P();", 2))
    assert result.faults == 0 and result.bounds > 0
    first = result.first_bounds[0]
    assert "more than 2 processes 'Q'" in first.message and first.bound == ToolBound("--max-procs", 2, 64)
    assert "m.csp:2" in str(first.origin)
    assert result.bounds_reached == (ToolBound("--max-procs", 2, 64),)


def test_verdicts_deadlock_and_valid_end():
    # each spawned Q stops: once P is done, the system deadlocks
    stuck = explore_state_space(model("Q() = b -> Stop;\nP(m) = [m < 2] a -> (Q() ||| P(m + 1));\nSystem = P(0);", 2))
    assert len(stuck.deadlocks) > 0 and stuck.faults == 0
    # each Q ends: P's end with every slot free is a valid end state, no deadlock
    ends = explore_state_space(model("Q() = b -> Skip;\nP(m) = ([m < 2] a -> (Q() ||| P(m + 1))) [] [m == 2] e -> Skip;\n"
                                     "System = P(0);", 2))
    assert len(ends.deadlocks) == 0 and len(ends.terminal_states) == 1


@pytest.mark.parametrize("bound", [2, 3])
def test_slots_are_symmetric_and_reduction_counts_orbits(bound):
    m = model("Q(i) = b.i -> c -> Skip;\nP() = []i:{0..1}@(a.i -> (Q(i) ||| P()));\nSystem = P();", bound)
    detection = detect(m)
    generators = [g.permutation for g in detection.group.generators]
    # the slots permuted, times the swap of the request values 0 and 1
    assert detection.group.order == 2 * (1, 1, 2, 6)[bound]
    assert verify(m, generators).ok
    orbits = orbit_count(m, generators)
    assert explore_reduced(m, "exact", detection=detection).exploration.states == orbits
    assert orbits < explore_state_space(m).states


REFUSED = [
    ("Q() = b -> Skip;\nP() = a -> (Q() ||| Q() ||| P());\nSystem = P();", 2, 13, "one process at a time"),
    ("Q() = b -> Skip;\nP() = a -> ((b -> Skip) ||| P());\nSystem = P();", 2, 14, "must be a process call"),
    ("Q() = c -> (Q() ||| Q());\nP() = a -> (Q() ||| P());\nSystem = P();", 2, 13, "spawns again"),
    ("Q() = b -> Skip;\nP() = (a -> (Q() ||| Skip)); P();\nSystem = P();", 2, 14, "before ';'"),
    ("Q() = b -> Skip;\nP() = atomic{a -> (Q() ||| P())};\nSystem = P();", 2, 20, "inside atomic"),
]


@pytest.mark.parametrize("text,line,column,fragment", REFUSED)
def test_unsupported_spawns_are_located_refusals(text, line, column, fragment):
    assert_located_error(parse_text, text, "m.csp", line, column, fragment)


def test_bundled_model_detects_slot_and_request_symmetry():
    m = load(str(ROOT / "models" / "spawn_server.csp"))
    detection = detect(m)
    assert verify(m, [g.permutation for g in detection.group.generators]).ok
    # the 4 handler slots (the default --max-procs) permuted, times the 2 kinds of request
    assert detection.group.order == 24 * 2
    orbits = orbit_count(m, [g.permutation for g in detection.group.generators])
    assert explore_reduced(m, "exact", detection=detection).exploration.states == orbits == 73
    # a larger pool adds states, not orbits: the reduced count is the pool-free one
    bigger = load(str(ROOT / "models" / "spawn_server.csp"), max_procs=5)
    assert explore_reduced(bigger, "exact").exploration.states == 73 < explore_state_space(bigger).states


def test_max_procs_on_the_command_line():
    """``--max-procs`` reaches CSP#: below the server's MAX the run is undecided (exit 3)."""
    from click.testing import CliRunner

    from detect.cli import main

    path = str(ROOT / "models" / "spawn_server.csp")
    result = CliRunner().invoke(main, ["explore", path, "--max-procs", "2"])
    assert result.exit_code == 3 and "more than 2 processes 'Handler'" in result.output
    assert "not decided: --max-procs 2 reached" in result.output and "pass --max-procs 4" in result.output
    result = CliRunner().invoke(main, ["explore", path, "--max-procs", "3", "--reduce", "exact"])
    assert result.exit_code == 0, result.output


def test_a_pool_needs_a_slot():
    with pytest.raises(InputError, match="--max-procs 0: a pool of spawned processes needs a slot"):
        model("Q() = b -> Skip;\nP() = a -> (Q() ||| P());\nSystem = P();", 0)
