"""Every detected generator is an automorphism of the model's transition system."""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detect.ir import semantics
from detect.symmetry.group import DATA, MIXED, PROCESS, group_order
from detect.ir import (
    TRUE, Assert, Assign, Binary, Const, Event, Index, Local, Name, SequentialModel, Summand, Unary, Variable,
)
from detect.ir import state_slots
from detect.ir.walk import substitute
from detect.symmetry.pipeline import detect
from tests.ir_strategies import expressions, models


def full_relation(model: SequentialModel):
    """Initial states, all fault-free transitions and the states with a faulting step, over
    *every* valuation."""
    domains = [v.domain for v in model.variables for _ in range(v.length)]
    relation, faults = set(), set()
    for state in itertools.product(*domains):
        for step in semantics.steps(model, state):
            if step.target is not None:
                relation.add((state, step.target))
            else:
                faults.add(state)
    return set(semantics.initial_states(model)), relation, faults


def assert_automorphisms(model: SequentialModel, detection) -> None:
    init, relation, faults = full_relation(model)
    for g in detection.group.generators:
        sigma = g.permutation
        assert {sigma.apply(s) for s in init} == init, g.description
        for s, t in relation:
            assert (sigma.apply(s), sigma.apply(t)) in relation, g.description
        # A fault is not blocking: faulting states map to faulting states.
        assert {sigma.apply(s) for s in faults} == faults, g.description


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_generators_of_random_models_are_automorphisms(model):
    assert_automorphisms(model, detect(model))


@st.composite
def symmetric_models(draw):
    """Two processes i in {0,1} running one random template over own = a[i], other = a[1-i],
    reading shared scalars x and y."""
    own, other = Index("a", Name("i")), Index("a", Binary("-", Const(1), Name("i")))
    summands = []
    for _ in range(draw(st.integers(1, 2))):
        e = draw(expressions(("i",), 1))
        guard = Binary("<=", own, Binary("+", other, Const(draw(st.integers(0, 1)))))
        value = Binary("%", Binary("+", Binary("+", own, e), Const(1)), Const(3))
        summands.append(Summand((Local("i", (0, 1)),), guard, Event("step"), (Assign(own, value),)))
    shared = (Variable("x", (0, 1, 2), ((0,),)), Variable("y", (0, 1, 2), ((0, 1, 2),)))
    return SequentialModel(
        "sym", shared + (Variable("a", (0, 1, 2), ((0,), (0,)), size=2),), tuple(summands))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(symmetric_models())
def test_generators_of_symmetric_models_are_automorphisms(model):
    assert_automorphisms(model, detect(model))


def test_pitfall_reset_keeps_value_swap_only_where_sound():
    # [true] reset {x := 0}: swapping pre-state values 0 and 1 of x is a graph automorphism
    # of the unlinked graph, but not a symmetry; 1 <-> 2 is one.
    model = SequentialModel("reset", (Variable("x", (0, 1, 2), ((0, 1, 2),)),), (
        Summand((), TRUE, Event("reset"), (Assign(Name("x"), Const(0)),)),
    ))
    detection = detect(model)
    assert detection.group.order == 2
    assert_automorphisms(model, detection)
    (g,) = detection.group.generators
    assert g.kind == DATA and g.permutation.values[0] == {0: 0, 1: 2, 2: 1}


def ring(n: int) -> SequentialModel:
    """Tokens passed around a directed ring: the group is the n rotations."""
    nxt = Binary("%", Binary("+", Name("u"), Const(1)), Const(n))
    return SequentialModel("ring", (Variable("t", (0, 1), tuple((0, 1) for _ in range(n)), size=n),), (
        Summand((Local("u", tuple(range(n))),),
                Binary("&&", Binary("==", Index("t", Name("u")), Const(1)), Binary("==", Index("t", nxt), Const(0))),
                Event("pass", (Name("u"),)),
                (Assign(Index("t", Name("u")), Const(0)), Assign(Index("t", nxt), Const(1)))),
    ))


def test_ring_has_exactly_the_rotations():
    for n in (3, 4, 5):
        detection = detect(ring(n))
        assert detection.group.order == n
        assert all(g.kind == PROCESS for g in detection.group.generators)
        assert_automorphisms(ring(n), detection)


def test_engines_agree():
    model = ring(6)
    nauty = detect(model, engine="nauty")
    bliss = detect(model, engine="bliss")
    assert nauty.automorphisms.order == bliss.automorphisms.order
    assert nauty.group.order == bliss.group.order == 6


def test_group_order_of_symmetric_group_generators():
    # (0 1) and (0 1 2 3) generate S4 on four points.
    assert group_order([(1, 0, 2, 3), (1, 2, 3, 0)]) == 24
    assert group_order([]) == 1


def test_descriptions_name_kinds():
    detection = detect(ring(3))
    (text,) = {g.description for g in detection.group.generators} - set()
    assert text.startswith("process symmetry: rotate processes") and "t[]" in text
    assert MIXED not in {g.kind for g in detection.group.generators}


def _owned_model() -> SequentialModel:
    """Two processes P_0, P_1 (pc and a local each), a pid-indexed array f[], and a
    two-place buffer q[] that belongs to no process."""
    variables = (
        Variable("P_0.pc", (0, 1), ((0,),), owner="P_0"), Variable("P_0.l", (0, 1), ((0,),), owner="P_0"),
        Variable("P_1.pc", (0, 1), ((0,),), owner="P_1"), Variable("P_1.l", (0, 1), ((0,),), owner="P_1"),
        Variable("f", (0, 1), ((0,), (0,)), size=2), Variable("q", (0, 1), ((0,), (0,)), size=2),
    )
    return SequentialModel("owned", variables, ())


def _slot_swap(model, pairs: dict[str, str]):
    from detect.symmetry.perm import StatePermutation

    slots = state_slots(model)
    index = {s.label: k for k, s in enumerate(slots)}
    target = list(range(len(slots)))
    for a, b in pairs.items():
        target[index[a]], target[index[b]] = index[b], index[a]
    return StatePermutation(tuple(target), tuple({v: v for v in s.domain} for s in slots))


def test_whole_processes_moving_with_their_pid_indexed_array_are_a_process_symmetry():
    from detect.symmetry.group import classify

    model = _owned_model()
    sigma = _slot_swap(model, {"P_0.pc": "P_1.pc", "P_0.l": "P_1.l", "f[0]": "f[1]"})
    kind, text = classify(sigma, model, state_slots(model))
    assert kind == PROCESS and text.startswith("process symmetry: swap processes P_0↔P_1")


def test_moves_that_are_not_whole_processes_are_variable_symmetries():
    from detect.symmetry.group import VARIABLE, classify

    model = _owned_model()
    slots = state_slots(model)
    cases = {
        # elements of a buffer nobody owns
        "swap elements 0↔1 of q[]": {"q[0]": "q[1]"},
        # a process's pc without its local
        "swap variables P_0.pc↔P_1.pc": {"P_0.pc": "P_1.pc"},
        # two variables of one process
        "swap variables P_0.l↔P_0.pc": {"P_0.pc": "P_0.l"},
    }
    for words, pairs in cases.items():
        kind, text = classify(_slot_swap(model, pairs), model, slots)
        assert kind == VARIABLE and text == "variable symmetry: " + words, text
    kind, text = classify(_slot_swap(model, {"P_0.pc": "P_1.pc", "P_0.l": "P_1.l", "q[0]": "q[1]"}),
                          model, slots)
    assert kind == PROCESS  # q[] moves along like a pid-indexed array: one shared index map


def test_conjunction_of_process_conditions_keeps_their_symmetry():
    """``x[0] == 1 && x[1] == 1 && x[2] == 1`` inside an expression is one n-ary constraint;
    as a chain of binary ones it let only processes 0 and 1 swap (group 2 instead of 6)."""
    n = 3
    all_set = Binary("&&", Binary("&&", Binary("==", Index("x", Const(0)), Const(1)),
                                  Binary("==", Index("x", Const(1)), Const(1))),
                     Binary("==", Index("x", Const(2)), Const(1)))
    model = SequentialModel("chain", (
        Variable("x", (0, 1), ((0,),) * n, size=n), Variable("done", (0, 1), ((0,),)),
    ), (
        Summand((Local("i", tuple(range(n))),), Binary("==", Index("x", Name("i")), Const(0)),
                Event("set", (Name("i"),)), (Assign(Index("x", Name("i")), Const(1)),)),
        Summand((), Binary("||", Unary("!", all_set), Binary("==", Name("done"), Const(1))),
                Event("tick"), (Assign(Name("done"), Const(1)),)),
    ))
    detection = detect(model)
    assert detection.group.order == 6
    assert_automorphisms(model, detection)


def test_sum_over_processes_keeps_their_symmetry():
    """``x[0] + x[1] + x[2] >= 2`` (a count) is one n-ary constraint: all 3! permutations."""
    n = 3
    count = Binary("+", Binary("+", Index("x", Const(0)), Index("x", Const(1))), Index("x", Const(2)))
    model = SequentialModel("count", (
        Variable("x", (0, 1), ((0,),) * n, size=n), Variable("done", (0, 1), ((0,),)),
    ), (
        Summand((Local("i", tuple(range(n))),), Binary("==", Index("x", Name("i")), Const(0)),
                Event("set", (Name("i"),)), (Assign(Index("x", Name("i")), Const(1)),)),
        Summand((), Binary(">=", count, Const(2)), Event("tick"), (Assign(Name("done"), Const(1)),)),
    ))
    detection = detect(model)
    assert detection.group.order == 6
    assert_automorphisms(model, detection)


def test_shared_variables_may_move_along_with_whole_processes():
    """BEEM's hanoi swaps processes AtoB <-> AtoC together with the shared pegs b <-> c."""
    from detect.symmetry.group import VARIABLE, classify

    base = _owned_model()
    model = SequentialModel("shared", base.variables + (
        Variable("u0", (0, 1), ((0,),)), Variable("u1", (0, 1), ((0,),)),), ())
    slots = state_slots(model)
    kind, text = classify(_slot_swap(model, {"P_0.pc": "P_1.pc", "P_0.l": "P_1.l", "u0": "u1"}), model, slots)
    assert kind == PROCESS and text.startswith("process symmetry: swap processes P_0↔P_1") and "u0" in text
    kind, _ = classify(_slot_swap(model, {"u0": "u1"}), model, slots)
    assert kind == VARIABLE  # shared data alone is no process


@st.composite
def fault_or_block_models(draw):
    """Two processes i in {0,1} alike up to one point, where process 0 asserts a random
    condition and process 1 waits for it (or the other way round)."""
    own = Index("a", Name("i"))
    cond = draw(expressions(("i",), 1))
    faulting = draw(st.integers(0, 1))
    step = Summand((Local("i", (0, 1)),), Binary("==", own, Const(0)), Event("lock"),
                   (Assign(own, Const(1)), Assign(Name("x"), Binary("%", Binary("+", Name("x"), Const(1)), Const(3)))))
    assert_it = Summand((), Binary("==", Index("a", Const(faulting)), Const(1)), Event("check"),
                        (Assert(_at(cond, faulting)), Assign(Index("a", Const(faulting)), Const(2))))
    wait_it = Summand((), Binary("&&", Binary("==", Index("a", Const(1 - faulting)), Const(1)),
                                 _at(cond, 1 - faulting)), Event("wait"),
                      (Assign(Index("a", Const(1 - faulting)), Const(2)),))
    variables = (Variable("x", (0, 1, 2), ((0,),)), Variable("y", (0, 1, 2), ((0, 1, 2),)),
                 Variable("a", (0, 1, 2), ((0,), (0,)), size=2))
    return SequentialModel("fault_or_block", variables, (step, assert_it, wait_it))


def _at(e, i: int):
    """``e`` with the local ``i`` replaced by the constant ``i``."""
    return substitute(e, {Name("i"): Const(i)})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fault_or_block_models())
def test_a_faulting_process_is_never_exchanged_with_a_blocking_one(model):
    """Issue 18: ``assert(c)`` in one process and a guard ``c`` in the other at the same
    point.  A generator exchanging them would map a faulting state to a blocked one, which
    ``assert_automorphisms`` refutes (before issue 18's fix, detection reported such swaps)."""
    assert_automorphisms(model, detect(model))


@pytest.mark.parametrize("name", ["no_symmetry.csp", "peterson.csp", "token_circulation.csp",
                                  "murphi/german_small.m", "token_pool.pml"])
def test_order_from_the_kernel_of_the_action_equals_schreier_sims(name):
    """|Aut(graph)| / |kernel| (the engine, ``SymmetryGroup.full_order``) = Schreier–Sims's order of the
    generated group; the kernel is non-trivial for no_symmetry.csp (|Aut(graph)| = 2, state
    group order 1)."""
    from detect.symmetry.group import group_order
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    detection = detect(load_model(Path(__file__).resolve().parents[1] / "models" / name))
    assert detection.group.full_order == group_order(detection.group.points)


def test_a_ring_of_many_processes_gets_its_order_without_schreier_sims(monkeypatch):
    """token_circulation with N = 120 moves 720 literals: the order (a rotation of the ring
    and the label swap, 2N) comes from the engine; Schreier–Sims would take minutes at N = 1,000."""
    from detect.symmetry import group as group_module
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    def refused(points):
        raise AssertionError("Schreier-Sims on more than SYMPY_POINTS moved points")

    monkeypatch.setattr(group_module, "group_order", refused)
    detection = detect(load_model(Path(__file__).resolve().parents[1] / "models" / "token_circulation.csp",
                                  {"N": 120}))
    assert detection.group.order == 240 == detection.automorphisms.order
