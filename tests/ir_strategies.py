"""Hypothesis strategies for small random IR models (shared by the core's property tests)."""
from __future__ import annotations

from hypothesis import strategies as st

from detect.ir import (
    Assert, Assign, Binary, Const, Event, If, Index, Ite, Local, Name, SequentialModel, Summand, ToolBound,
    Unary, Variable, While,
)

SCALARS = ("x", "y")
ARRAY, ARRAY_SIZE = "a", 2
ARITH = ("+", "-", "*", "/", "%", "min", "max")
COMPARE = ("==", "!=", "<", "<=", ">", ">=")


@st.composite
def expressions(draw, locals_: tuple[str, ...], depth: int = 2):
    """A random expression of nesting ``depth`` at most (explicit recursion: see below)."""
    # st.recursive nested inside st.recursive makes hypothesis report flaky generation, so
    # the recursion is written out by hand.
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        if draw(st.booleans()):
            return Const(draw(st.integers(-1, 3)))
        return Name(draw(st.sampled_from(SCALARS + locals_)))
    sub = expressions(locals_, depth - 1)
    shape = draw(st.integers(0, 4))
    if shape == 4:
        # Operands that exclude each other (``x == 0 && .. || x == 1 && ..``): a later
        # operand's context need not say the earlier ones did not decide (issue 25).
        var = draw(st.sampled_from(SCALARS + locals_))
        values = draw(st.lists(st.integers(0, 2), min_size=2, max_size=3, unique=True))
        chain = None
        for k in values:
            part = Binary("&&", Binary("==", Name(var), Const(k)), draw(sub))
            chain = part if chain is None else Binary("||", chain, part)
        return chain
    if shape == 0:
        return Index(ARRAY, draw(sub))
    if shape == 1:
        return Unary(draw(st.sampled_from(("-", "!"))), draw(sub))
    if shape == 2:
        return Binary(draw(st.sampled_from(ARITH + COMPARE + ("&&", "||"))), draw(sub), draw(sub))
    return Ite(draw(sub), draw(sub), draw(sub))


@st.composite
def statements(draw, locals_: tuple[str, ...], depth: int = 2):
    exprs = expressions(locals_)
    shape = draw(st.integers(0, 4)) if depth > 0 else 0
    if shape <= 1:
        kind = draw(st.integers(0, 2))
        target = (Name(draw(st.sampled_from(SCALARS))) if kind == 0
                  else Index(ARRAY, draw(exprs)) if kind == 1 else Name("tmp"))
        return Assign(target, draw(exprs))
    block = st.lists(statements(locals_, depth - 1), max_size=2).map(tuple)
    if shape == 2:
        return If(draw(exprs), draw(block), draw(block))
    if shape == 3:
        # some asserts stand for a bound of ours (``ToolBound``): cut, not a fault of the model
        return Assert(draw(exprs), "", draw(st.sampled_from([None, None, ToolBound("--max-procs", 2, 4)])))
    # A counting loop the translation must unroll exactly.
    body = draw(block) + (Assign(Name("x"), Binary("+", Name("x"), Const(1))),)
    return While(Binary("<", Name("x"), Const(2)), body)


@st.composite
def models(draw):
    """A model over scalars x, y in {0..2}, an array a[2] in {0..1}, with 1–3 summands."""
    dom3, dom2 = (0, 1, 2), (0, 1)
    init_x = draw(st.sampled_from([(0,), dom3, (1, 2)]))
    variables = (
        Variable("x", dom3, (init_x,)),
        Variable("y", dom3, (draw(st.sampled_from([(0,), dom3])),)),
        Variable(ARRAY, dom2, ((0,), draw(st.sampled_from([(0,), dom2]))), size=ARRAY_SIZE),
    )
    summands = []
    for _ in range(draw(st.integers(1, 3))):
        locals_ = draw(st.sampled_from([(), ("i",)]))
        guard = draw(expressions(locals_))
        program = tuple(draw(st.lists(statements(locals_), max_size=3)))
        # Temporaries must be written before they are read: define tmp first.
        program = (Assign(Name("tmp"), Const(0)),) + program
        # An event argument is evaluated before the program: it may fault too.
        args = tuple(draw(st.lists(expressions(locals_, 1), max_size=1)))
        summands.append(Summand(tuple(Local(n, (0, 1)) for n in locals_), guard, Event("e", args), program))
    # a loop past its bound: the model's error (Murphi's -loop) or a bound of ours
    return SequentialModel("random", variables, tuple(summands), loop_bound=3,
                           loop_option=draw(st.sampled_from(["", "--loop-max"])))
