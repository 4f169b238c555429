"""PAT's standard ``PAT.Math`` library (``#import "PAT.Math";``) as IR expressions.

``call(Pow, x, 2)`` and friends are C# methods over ``int``; they are pure, so each becomes
an expression over its translated arguments with the method's exact integer meaning:

* ``Max(a, b)``, ``Min(a, b)``: the larger / smaller argument;
* ``Abs(a)``: ``|a|``; C#'s ``Math.Abs(int.MinValue)`` throws, so that value faults;
* ``Pow(a, b)``: C#'s ``(int)Math.Pow(a, b)``: ``a`` to the power ``b`` for ``b >= 0``;
  for ``b < 0`` the fraction ``1 / a^|b|`` truncated towards zero (1 for ``a == 1``, +-1
  for ``a == -1``, 0 for ``|a| >= 2``).  A result outside ``int`` (whose conversion C#
  leaves unspecified) and ``Pow(0, b < 0)`` (infinity) fault.

A fault is a division by zero in the chosen branch of an ``Ite``, so the step that
evaluates it faults, as PAT's run-time exception stops the model there.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

from detect.ir import Binary, Const, Expr, Ite, Unary
from detect.ir.build import simplify

#: The ``int`` range of C#, whose overflow faults.
INT_MIN, INT_MAX = -(2 ** 31), 2 ** 31 - 1
#: A larger exponent overflows ``int`` for every base other than -1, 0 and 1.
MAX_EXPONENT = 31


def fault() -> Expr:
    """An expression whose evaluation faults (kept unsimplified: ``1 / 0``)."""
    return Binary("/", Const(1), Const(0))


def _ite(cond: Expr, then: Expr, else_: Expr) -> Expr:
    return simplify(Ite(simplify(cond), then, else_))


def _eq(a: Expr, v: int) -> Expr:
    return simplify(Binary("==", a, Const(v)))


def _checked(e: Expr) -> Expr:
    """``e``, faulting outside C#'s ``int``."""
    e = simplify(e)
    if isinstance(e, Const):
        return e if INT_MIN <= e.value <= INT_MAX else fault()
    outside = Binary("||", Binary("<", e, Const(INT_MIN)), Binary(">", e, Const(INT_MAX)))
    return _ite(outside, fault(), e)


def _abs(a: Expr) -> Expr:
    if isinstance(a, Const):
        return Const(abs(a.value)) if a.value != INT_MIN else fault()
    return _ite(_eq(a, INT_MIN), fault(), _ite(Binary("<", a, Const(0)), simplify(Unary("-", a)), a))


def _power(a: Expr, k: int) -> Expr:
    """``a^k`` for a constant ``k >= 0``, checked."""
    if isinstance(a, Const):
        return _checked(Const(a.value ** k))
    if k > MAX_EXPONENT:
        # only -1, 0 and 1 stay inside int
        return _ite(_eq(a, 0), Const(0), _ite(_eq(a, 1), Const(1),
                                                _ite(_eq(a, -1), Const(1 if k % 2 == 0 else -1), fault())))
    out: Expr = Const(1)
    for _ in range(k):
        out = simplify(Binary("*", out, a))
    return _checked(out)


def _negative_power(a: Expr, parity: Expr) -> Expr:
    """``(int)(1 / a^|b|)`` for ``b < 0``; ``parity`` is ``b % 2`` (0 or -1 in C)."""
    minus_one = _ite(simplify(Binary("==", parity, Const(0))), Const(1), Const(-1))
    return _ite(_eq(a, 1), Const(1), _ite(_eq(a, -1), minus_one, _ite(_eq(a, 0), fault(), Const(0))))


def _pow(a: Expr, b: Expr) -> Expr:
    if isinstance(b, Const):
        if b.value >= 0:
            return _power(a, b.value)
        return _negative_power(a, Const(b.value % 2 and -1))
    # b is not constant: one branch per exponent that can stay inside int.
    parity = simplify(Binary("%", b, Const(2)))
    big = _ite(_eq(a, 0), Const(0), _ite(_eq(a, 1), Const(1),
                                         _ite(_eq(a, -1), _ite(_eq(parity, 0), Const(1), Const(-1)), fault())))
    out = _ite(Binary("<", b, Const(0)), _negative_power(a, parity), big)
    for k in reversed(range(MAX_EXPONENT + 1)):
        out = _ite(_eq(b, k), _power(a, k), out)
    return out


#: name -> (number of arguments, translation)
FUNCTIONS: dict[str, tuple[int, Callable[..., Expr]]] = {
    "Max": (2, lambda a, b: simplify(Binary("max", a, b))),
    "Min": (2, lambda a, b: simplify(Binary("min", a, b))),
    "Abs": (1, _abs),
    "Pow": (2, _pow),
}

LIBRARY = "PAT.Math"


def translate(function: str, args: Sequence[Expr]) -> Optional[Expr]:
    """The expression for ``call(function, args...)``; ``None`` when ``function`` is not one of
    ``FUNCTIONS`` (the caller refuses it).  Raises ``ValueError`` on a wrong argument count."""
    entry = FUNCTIONS.get(function)
    if entry is None:
        return None
    arity, build = entry
    if len(args) != arity:
        raise ValueError(f"{LIBRARY}'s {function} takes {arity} argument(s), got {len(args)}")
    return build(*args)
