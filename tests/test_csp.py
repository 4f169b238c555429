"""The CSP of a summand has exactly the interpreter's fault-free steps as solutions."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, reject, settings

from detect.symmetry.constraints import (
    SearchTooLarge, TableTooLarge, fault_states_of_summand, solutions_of_summand, translate,
)
from detect.ir import (
    TRUE, Assign, Binary, Const, Event, If, Index, Ite, Local, Name, SequentialModel, Summand, Unary, Variable,
)
from tests.ir_strategies import models
from tests.test_group import full_relation


def interpreter_steps(model: SequentialModel, summand: int) -> set:
    """Fault-free (pre, post) pairs of one summand over *all* valuations (not just reachable)."""
    return interpreter_relation(model, summand)[0]


def interpreter_relation(model: SequentialModel, summand: int) -> tuple[set, set]:
    """One summand's fault-free (pre, post) pairs and the states where it faults, over *all*
    valuations (not just reachable ones)."""
    one = SequentialModel(model.name, model.variables, (model.summands[summand],), loop_bound=model.loop_bound)
    _, pairs, faults = full_relation(one)
    return pairs, faults


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_csp_solutions_equal_interpreter_steps(model):
    """Steps and faults alike: the fault relation allows exactly the states where the
    interpreter's step faults, so detection can tell a fault from blocking."""
    csp = translate(model)
    for i in range(len(model.summands)):
        expected, expected_faults = interpreter_relation(model, i)
        try:
            got = set(solutions_of_summand(csp, i)) if i in csp.summands else set()
            got_faults = fault_states_of_summand(csp, i)
        except SearchTooLarge:
            reject()  # the brute-force oracle is too slow for this example, not a failure
        assert got == expected, f"summand {i}"
        assert got_faults == expected_faults, f"faults of summand {i}"


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
    with pytest.raises(TableTooLarge, match="limit 1000") as err:
        translate(model, table_limit=1000)
    # The error names the state variable to bound, not only the internal constraint.
    assert "ranges over 1000 values: bound it" in str(err.value)
    assert err.value.widest in ("x ranges over 1000 values", "y ranges over 1000 values")


def test_summand_that_always_faults_is_dead():
    model = SequentialModel("d", (Variable("x", (0, 1), ((0,),)),), (
        Summand((), TRUE, Event("boom"), (Assign(Name("x"), Const(5)),)),
    ))
    csp = translate(model)
    assert csp.summands == () and csp.dead[0][0] == 0


def test_array_read_through_an_index_is_one_guarded_copy_per_element():
    """``t = a[i]`` is ``[i = k] -> t = a[k]`` for each k: n constraints of |D| tuples each
    (not a 0/1 selector per element with a 2|D|^2 table), and still exact."""
    n, values = 5, tuple(range(4))
    model = SequentialModel("r", (
        Variable("a", values, tuple((0,) for _ in range(n)), size=n),
        Variable("x", values, ((0,),)),
    ), (
        Summand((Local("i", tuple(range(n))),), TRUE, Event("get"), (Assign(Name("x"), Index("a", Name("i"))),)),
    ))
    csp = translate(model)
    guarded = [c for c in csp.constraints if c.guard is not None]
    assert len(guarded) == n
    assert all(len(c.scope) == 2 and len(c.tuples) == len(values) and c.guard[2] for c in guarded)
    assert {c.guard[1] for c in guarded} == set(range(n))
    assert not any(v.domain == (0, 1) for v in csp.variables if v.role == "aux")  # no selectors
    assert set(solutions_of_summand(csp, 0)) == interpreter_steps(model, 0)


def test_read_whose_index_is_the_element_it_reads_stays_exact():
    """``a[a[0]]``: the guard ``a[0] = 0`` guards a copy from ``a[0]`` itself, so the guard is
    written into the table instead (found by hypothesis)."""
    model = SequentialModel("self", (
        Variable("x", (0, 1, 2), ((0,),)),
        Variable("a", (0, 1), ((0,), (0,)), size=2),
    ), (
        Summand((), Name("x"), Event("e"), (Assign(Name("x"), Index("a", Index("a", Const(0)))),)),
    ))
    csp = translate(model)
    assert all(c.guard is None or c.guard[0] not in c.scope for c in csp.constraints)
    assert set(solutions_of_summand(csp, 0)) == interpreter_steps(model, 0)


def test_partial_constraint_in_a_branch_is_guarded_by_the_branch_condition():
    """``if x then y := 4 / x``-style partiality: the fault constraint only bites where the
    branch is taken, through a guard on the condition's 0 literal, not a wider table."""
    model = SequentialModel("p", (
        Variable("x", (0, 1, 2), ((0,),)),
        Variable("y", (0, 1, 2), ((0,),)),
    ), (
        Summand((), TRUE, Event("e"), (
            If(Binary("!=", Name("x"), Const(0)), (Assign(Name("y"), Binary("-", Const(2), Name("x"))),), ()),
        )),
    ))
    csp = translate(model)
    assert set(solutions_of_summand(csp, 0)) == interpreter_steps(model, 0)
    assert max(len(c.scope) for c in csp.constraints) <= 2


@pytest.mark.parametrize("op", ["&&", "||"])
def test_long_junction_with_partial_operands_is_exact(op):
    """One n-ary constraint for ``e1 op e2 op e3 op e4``; the later operands may fault (division
    by zero, index out of range) and must only bite where the earlier ones did not decide."""
    i = Name("i")
    parts = [Binary("!=", i, Const(0)), Binary(">=", Binary("/", Const(4), i), Const(2)),
             Binary("==", Index("a", Binary("-", i, Const(1))), Const(1)), Binary("<", Name("x"), Const(2))]
    if op == "||":
        parts = [Unary("!", p) for p in parts]
    cond = parts[0]
    for p in parts[1:]:
        cond = Binary(op, cond, p)
    model = SequentialModel("j", (
        Variable("x", (0, 1, 2), ((0,),)), Variable("a", (0, 1), ((0,), (1,)), size=2),
    ), (
        Summand((Local("i", (0, 1, 2, 3)),), TRUE, Event("e"), (Assign(Name("x"), Ite(cond, Const(1), Const(2))),)),
    ))
    csp = translate(model)
    assert set(solutions_of_summand(csp, 0)) == interpreter_steps(model, 0)
    assert any(len(c.scope) >= 4 for c in csp.constraints)  # one constraint over the operands


@pytest.mark.parametrize("op", ["+", "*", "min", "max", "&", "|", "^"])
def test_commutative_chain_with_constants_is_exact(op):
    """``x op 1 op y op 2 op i``: constants folded into one, the rest one n-ary constraint."""
    value = Name("x")
    for o in (Const(1), Name("y"), Const(2), Name("i")):
        value = Binary(op, value, o)
    model = SequentialModel("c", (
        Variable("x", (0, 1, 2), ((0,),)), Variable("y", (-1, 0, 3), ((0,),)),
        Variable("z", tuple(range(-64, 65)), ((0,),)),
    ), (
        Summand((Local("i", (0, 1, 2)),), TRUE, Event("e"), (Assign(Name("z"), value),)),
    ))
    csp = translate(model)
    assert set(solutions_of_summand(csp, 0)) == interpreter_steps(model, 0)
