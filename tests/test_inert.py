"""Inert symmetries apart (issue 13, part 3): the headline group is the group's action on the
states the value analysis allows, and generators fixing all of them are marked inert.

What must hold, checked against the explored transition system: every generator (inert
ones too) is a symmetry; an inert generator fixes every reachable state; the headline is at
least the order of the action on the reachable states (``verify.reachable_action_order``)
and at most the order on all literals, which Schreier–Sims (``detect.symmetry.permgroup``)
computes independently of the engine.
"""
from __future__ import annotations

import warnings

from hypothesis import HealthCheck, given, settings

from detect.checking.verify import compile_permutation, reachable_action_order, verify
from detect.ir import Assign, Binary, Const, Event, Index, Name, SequentialModel, Summand, Variable
from detect.statespace.explore import reachable_graph
from detect.symmetry.group import group_order
from detect.symmetry.pipeline import detect
from detect.transform.domains import held_values
from detect.transform.load import narrowed
from frontends.csp import parse_text
from tests.ir_strategies import models


def check_headline(model: SequentialModel):
    """The invariants of the module docstring; returns the detection and the reachable order."""
    detection = detect(model)
    group, model = detection.group, detection.model
    graph = reachable_graph(model)
    assert graph.complete
    permutations = [g.permutation for g in group.generators]
    report = verify(model, permutations)
    assert report.ok, report.summary()
    for g in group.inert:
        apply = compile_permutation(g.permutation)
        assert all(apply(s) == s for s in graph.states), g.description
    reachable = reachable_action_order(graph.states, permutations)
    assert reachable <= group.order <= group.full_order
    assert group.full_order == group_order(group.points)
    assert group.full_order % group.order == 0
    return detection, reachable


def csp(text: str) -> SequentialModel:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return narrowed(parse_text)(text)


def test_unwritten_cells_of_an_array_swap_only_values_never_held():
    # pool[3..5] are never written: every permutation of their values 1..2 and of the cells
    # themselves is a symmetry that fixes every reachable state.
    model = csp("var pool[6] = [0, 0, 0, 0, 0, 0];\nvar next = 1;\n"
                "P() = [next < 3] put{pool[next] = next; next = next + 1;} -> P();\nSystem = P();\n")
    detection, reachable = check_headline(model)
    group = detection.group
    assert group.order == reachable == 1
    assert group.full_order > 1 and group.inert and not group.acting


def test_temporaries_set_and_reset_together_are_tied():
    # a and b hold -1, or 1 and 2 together: exchanging them with 1 <-> 2 changes no state.
    model = SequentialModel("tied", (
        Variable("pc", (0, 1), ((0,),)), Variable("a", (-1, 1, 2), ((-1,),)), Variable("b", (-1, 1, 2), ((-1,),)),
    ), (
        Summand((), Binary("==", Name("pc"), Const(0)), Event("set"),
                (Assign(Name("a"), Const(1)), Assign(Name("b"), Const(2)), Assign(Name("pc"), Const(1)))),
        Summand((), Binary("==", Name("pc"), Const(1)), Event("reset"),
                (Assign(Name("a"), Const(-1)), Assign(Name("b"), Const(-1)), Assign(Name("pc"), Const(0)))),
    ))
    detection, reachable = check_headline(model)
    assert detection.group.full_order > 1
    assert detection.group.order == reachable == 1
    held = held_values(model)
    assert held.values == (frozenset({0, 1}), frozenset({-1, 1}), frozenset({-1, 2}))
    assert {location for location, _ in held.determined[1]} == {0}  # pc fixes a


def test_symmetry_on_reachable_states_is_kept_beside_inert_ones():
    # Three interchangeable counters (order 6) and an unused array whose values may swap.
    model = csp("var c[3] = [0, 0, 0];\nvar unused[2] = [0, 0];\n"
                "P(i) = [c[i] < 2] inc.i{c[i] = c[i] + 1;} -> P(i) [] [c[i] == 2] done.i -> Skip;\n"
                "System = ||| i:{0..2}@P(i);\n")
    detection, reachable = check_headline(model)
    assert detection.group.order == reachable == 6


def test_array_element_read_by_a_guard_keeps_its_values():
    # x[1] is read: its values 0 and 1 are held; nothing is inert.
    model = SequentialModel("read", (Variable("x", (0, 1), ((0,), (0,)), size=2),), (
        Summand((), Binary("==", Index("x", Const(0)), Const(0)), Event("a"), (Assign(Index("x", Const(1)), Const(1)),)),
        Summand((), Binary("==", Index("x", Const(1)), Const(1)), Event("b"), (Assign(Index("x", Const(0)), Const(1)),)),
    ))
    detection, reachable = check_headline(model)
    assert not detection.group.inert


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_headline_and_inert_generators_of_random_models(model):
    check_headline(model)
