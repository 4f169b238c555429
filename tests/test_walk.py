"""detect.ir.walk: the walkers agree with the reference semantics (detect.ir.semantics)."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from detect.ir import (
    Assign, Binary, Const, If, Index, Ite, Name, SequentialModel, Unary, Variable, slot_offsets,
)
from detect.ir import semantics, walk
from tests.ir_strategies import expressions, statements

LOCALS = ("i",)
_MODEL = SequentialModel(
    "m", (Variable("x", (0, 1, 2), ((0,),)), Variable("y", (0, 1, 2), ((0,),)),
          Variable("a", (0, 1), ((0,), (0,)), size=2)), (),
)


def _value(e, state, local: int):
    """``e`` evaluated in ``state`` (x, y, a[0], a[1]) with ``i = local``: a value or "fault"."""
    env = semantics.Env(_MODEL, slot_offsets(_MODEL), list(state), {"i": local})
    try:
        return semantics.evaluate(e, env)
    except semantics.Fault:
        return "fault"


def _reference_names(e) -> set[str]:
    if isinstance(e, Name):
        return {e.name}
    if isinstance(e, Const):
        return set()
    return set().union(*(_reference_names(c) for c in walk.children(e)))


@settings(max_examples=100, deadline=None)
@given(expressions(LOCALS, depth=3), st.integers(-1, 3), st.integers(0, 2))
def test_substituting_a_local_by_its_value_keeps_the_value(e, local, x):
    state = (x, 1, 0, 1)
    replaced = walk.substitute(e, {Name("i"): Const(local)})
    assert "i" not in walk.names_read(replaced)
    assert _value(replaced, state, 99) == _value(e, state, local)


@settings(max_examples=100, deadline=None)
@given(expressions(LOCALS, depth=3))
def test_names_read_and_children(e):
    assert walk.names_read(e) == _reference_names(e)
    assert walk.map_expr(e, lambda _: None) is e  # nothing replaced: the same object
    nodes = list(walk.subexpressions(e))
    assert nodes[0] is e and len(nodes) == 1 + sum(len(list(walk.subexpressions(c))) for c in walk.children(e))


@settings(max_examples=100, deadline=None)
@given(expressions(LOCALS, depth=3), st.sampled_from([0, 1, 2]), st.integers(0, 2))
def test_may_fault_is_conservative(e, x, y):
    # When the syntactic test says "cannot fault", no state makes it fault.
    if not walk.may_fault(e, {"a": 2}):
        for local in (-1, 0, 3):
            assert _value(e, (x, y, 0, 1), local) != "fault"


@settings(max_examples=100, deadline=None)
@given(st.lists(statements(LOCALS), max_size=3).map(tuple))
def test_program_walkers(program):
    every = list(walk.statements(program))
    assert every[: len(program)] == list(program) or len(program) == 0 or every[0] is program[0]
    assigned = {s.target.name for s in every if isinstance(s, Assign) and isinstance(s.target, Name)}
    assert walk.assigned_names(program) == assigned
    expected = set()
    for e in walk.program_expressions(program):
        expected |= _reference_names(e)
    assert walk.program_names_read(program) == expected
    # Substituting the local everywhere leaves no read of it, and targets keep their variable.
    replaced = walk.substitute_program(program, {Name("i"): Const(1)})
    assert "i" not in walk.program_names_read(replaced)
    assert [type(s) for s in walk.statements(replaced)] == [type(s) for s in every]


def test_finish_folds_every_rebuilt_operator_but_not_subscripts():
    seen = []

    def finish(e):
        seen.append(type(e).__name__)
        return e

    e = Ite(Binary("+", Index("a", Unary("-", Name("i"))), Const(1)), Name("i"), Const(0))
    walk.map_expr(e, lambda _: None, finish)
    assert sorted(seen) == ["Binary", "Ite", "Unary"]


def test_program_expressions_include_element_subscripts_in_order():
    program = (Assign(Index("a", Name("i")), Name("x")),
               If(Name("y"), (Assign(Name("x"), Const(2)),), ()))
    assert list(walk.program_expressions(program)) == [Name("x"), Name("i"), Name("y"), Const(2)]
