"""The CSP of a summand has exactly the interpreter's fault-free steps as solutions."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, reject, settings

from detect import semantics
from detect.csp import SearchTooLarge, TableTooLarge, solutions_of_summand, translate
from detect.ir import (
    TRUE, Assign, Binary, Const, Event, Index, Local, Name, SequentialModel, Summand, Variable,
)
from tests.ir_strategies import models


def interpreter_steps(model: SequentialModel, summand: int) -> set:
    """Fault-free (pre, post) pairs of one summand over *all* valuations (not just reachable)."""
    one = SequentialModel(model.name, model.variables, (model.summands[summand],), loop_bound=model.loop_bound)
    slots_domains = [v.domain for v in model.variables for _ in range(v.length)]
    pairs = set()
    for state in itertools.product(*slots_domains):
        for step in semantics.steps(one, state):
            if step.target is not None:
                pairs.add((state, step.target))
    return pairs


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_csp_solutions_equal_interpreter_steps(model):
    csp = translate(model)
    for i in range(len(model.summands)):
        expected = interpreter_steps(model, i)
        try:
            got = set(solutions_of_summand(csp, i)) if i in csp.summands else set()
        except SearchTooLarge:
            reject()  # the brute-force oracle is too slow for this example, not a failure
        assert got == expected, f"summand {i}"


def test_array_write_with_variable_index_is_decomposed_per_element():
    n = 4
    model = SequentialModel("w", (Variable("a", (0, 1), tuple((0,) for _ in range(n)), size=n),), (
        Summand((Local("i", tuple(range(n))),), TRUE, Event("set"), (Assign(Index("a", Name("i")), Const(1)),)),
    ))
    csp = translate(model)
    # One small constraint per element (arity <= 3: i, a[k], a'[k]), never one over the array.
    assert all(len(c.scope) <= 3 for c in csp.constraints)
    assert set(solutions_of_summand(csp, 0)) == interpreter_steps(model, 0)


def test_table_limit_is_reported():
    big = tuple(range(1000))
    model = SequentialModel("big", (Variable("x", big, ((0,),)), Variable("y", big, ((0,),))), (
        Summand((), TRUE, Event("mul"), (Assign(Name("x"), Binary("%", Binary("*", Name("x"), Name("y")), Const(1000))),)),
    ))
    with pytest.raises(TableTooLarge, match="limit 1000"):
        translate(model, table_limit=1000)


def test_summand_that_always_faults_is_dead():
    model = SequentialModel("d", (Variable("x", (0, 1), ((0,),)),), (
        Summand((), TRUE, Event("boom"), (Assign(Name("x"), Const(5)),)),
    ))
    csp = translate(model)
    assert csp.summands == () and csp.dead[0][0] == 0
