"""``detect.ir.build``: the shared conjunction/disjunction/negation/fold rule.

The shapes are pinned (the coloured graph sees them); the semantic property -- a built
expression has the truth (``conj``/``disj``/``neg``) or the value (``fold``/``simplify``) of
the plain expression wherever that does not fault -- is checked on random expressions.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from detect.ir import FALSE, TRUE, Binary, Const, Ite, Name, SequentialModel, Unary, Variable
from detect.ir.build import conj, disj, fold, is_truth, neg, simplify, truth
from detect.ir.semantics import Env, Fault, evaluate
from tests.ir_strategies import expressions

x, y, z = Name("x"), Name("y"), Name("z")


def test_conj_is_a_left_chain_without_units():
    assert conj() == TRUE
    assert conj(TRUE, x, TRUE) == x
    assert conj(x, y, z) == Binary("&&", Binary("&&", x, y), z)


def test_conj_units_truthy_drops_every_nonzero_constant():
    assert conj(x, Const(2), y) == Binary("&&", Binary("&&", x, Const(2)), y)
    assert conj(x, Const(2), y, units="truthy") == Binary("&&", x, y)
    assert conj(x, Const(2)) == Binary("&&", x, Const(2))
    assert conj(x, Const(2), units="truthy") == x
    assert conj(Const(2), units="truthy") == TRUE


def test_conj_false_kept_leading_absorbs():
    assert conj(x, FALSE, y) == Binary("&&", Binary("&&", x, FALSE), y)
    assert conj(FALSE, x) == Binary("&&", FALSE, x)
    assert conj(TRUE, FALSE, x, false="leading") == FALSE
    assert conj(x, FALSE, false="leading") == Binary("&&", x, FALSE)
    assert conj(x, FALSE, y, false="absorbs") == FALSE


def test_disj_drops_false_and_is_true_with_a_true_part():
    assert disj() == FALSE
    assert disj(FALSE, x, FALSE, y) == Binary("||", x, y)
    assert disj(x, TRUE) == TRUE


def test_neg_folds_constants_and_with_cancel_double_negation():
    assert neg(TRUE) == FALSE and neg(FALSE) == TRUE
    assert neg(Const(2)) == Unary("!", Const(2))
    assert neg(Const(2), cancel=True) == FALSE
    assert neg(Unary("!", x)) == Unary("!", Unary("!", x))
    assert neg(Unary("!", x), cancel=True) == x


def test_fold_keeps_a_faulting_operation_for_run_time():
    assert fold(Binary("+", Const(2), Const(3))) == Const(5)
    assert fold(Unary("-", Const(2))) == Const(-2)
    division = Binary("/", Const(1), Const(0))
    assert fold(division) is division
    assert fold(Binary("+", x, Const(0))) == Binary("+", x, Const(0))
    assert fold(Binary("/", Const(7), Const(2))) == Const(3)
    assert fold(Binary("/", Const(7), Const(2)), keep=("/", "%")) == Binary("/", Const(7), Const(2))


def test_simplify_identities():
    assert simplify(Binary("+", x, Const(0))) == x
    assert simplify(Binary("+", Binary("-", x, Const(3)), Const(3))) == x
    assert simplify(Binary("*", Const(0), x)) == Const(0)
    assert simplify(Binary("&&", Const(1), x)) == Binary("!=", x, Const(0))
    assert simplify(Binary("&&", x, Const(1))) == truth(x)
    assert simplify(Binary("||", Const(0), Binary("<", x, y))) == Binary("<", x, y)
    assert simplify(Ite(Const(0), x, y)) == y


_MODEL = SequentialModel("m", (Variable("x", (0, 1, 2), ((0,),)), Variable("y", (0, 1, 2), ((0,),)),
                               Variable("a", (0, 1), ((0,), (0,)), 2)), ())
_OFFSETS = {"x": 0, "y": 1, "a": 2}


def _value(e, state):
    try:
        return evaluate(e, Env(_MODEL, _OFFSETS, list(state), {}))
    except Fault:
        return None


_STATES = [(x_, y_, a0, a1) for x_ in range(3) for y_ in range(3) for a0 in (0, 1) for a1 in (0, 1)]


@settings(max_examples=150, deadline=None)
@given(st.lists(expressions(()), max_size=3), st.sampled_from(["true", "truthy"]),
       st.sampled_from(["kept", "leading", "absorbs"]))
def test_built_junctions_keep_the_truth(parts, units, false):
    plain_and = TRUE if not parts else parts[0]
    for p in parts[1:]:
        plain_and = Binary("&&", plain_and, p)
    plain_or = FALSE if not parts else parts[0]
    for p in parts[1:]:
        plain_or = Binary("||", plain_or, p)
    built_and, built_or = conj(*parts, units=units, false=false), disj(*parts)
    for state in _STATES:
        want_and, want_or = _value(plain_and, state), _value(plain_or, state)
        if want_and is not None:
            assert bool(_value(built_and, state)) == bool(want_and)
        if want_or is not None:
            assert bool(_value(built_or, state)) == bool(want_or)


@settings(max_examples=150, deadline=None)
@given(expressions(()))
def test_simplify_and_neg_keep_the_value(e):
    for state in _STATES:
        want = _value(e, state)
        if want is None:
            continue
        assert _value(simplify(e), state) == want
        assert _value(fold(e), state) == want
        assert _value(truth(e), state) == int(bool(want))
        if is_truth(e):
            assert want in (0, 1)
        assert bool(_value(neg(e), state)) == (not want)
        assert bool(_value(neg(e, cancel=True), state)) == (not want)
