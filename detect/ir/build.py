"""Building IR expressions with constant folding: the one conjunction, disjunction,
negation and fold rule the front ends share.

The coloured graph the detection builds sees the *shape* of every guard, so two front ends
that simplify ``x && 1`` differently produce different graphs.  Where the languages'
lowerings historically simplify differently and the difference can reach the printed
model, the rule keeps it as a documented keyword (``conj``'s ``units`` and ``false``;
``simplify``'s algebraic identities) rather than silently changing one language's output.

Invariant of every function here: the result evaluates, in the reference semantics
(``detect.ir.semantics``), to a value with the same truth as its input in every state where
the input does not fault; ``fold`` and ``simplify`` also keep the value itself and never turn
a run-time fault into a translation-time error (a faulting constant operation stays).
"""
from __future__ import annotations

from typing import Literal

from detect.ir.model import FALSE, TRUE, Binary, Const, Expr, Ite, Name, Unary
from detect.ir.semantics import Fault, apply_binary, apply_unary

#: Operators whose value is always 0 or 1.
TRUTH_OPERATORS = ("==", "!=", "<", "<=", ">", ">=", "&&", "||")


def conj(*parts: Expr, units: Literal["true", "truthy"] = "true",
         false: Literal["kept", "leading", "absorbs"] = "kept") -> Expr:
    """``parts`` joined by ``&&`` as a left-nested chain, ``TRUE`` when none remain.

    ``units``: which constant parts are dropped as the unit of ``&&``: ``"true"`` only
    ``TRUE`` (1); ``"truthy"`` every non-zero constant (CSP#, whose guards are truth values
    and may be written ``[2]``).

    ``false``: what a ``FALSE`` part does.  ``"kept"``: it stays in the chain (DVE, CSP#:
    the summand keeps its shape and never fires).  ``"leading"``: a ``FALSE`` before any other
    part makes the whole ``FALSE`` -- the later parts are never evaluated by ``&&``'s short
    circuit (Murphi).  ``"absorbs"``: any ``FALSE`` part makes the whole ``FALSE``, also
    dropping earlier parts, and with them any fault they could raise (Promela's lowering,
    whose constant-false conjuncts come from resolved channel and pid tests)."""
    kept = [p for p in parts
            if not (isinstance(p, Const) and (p == TRUE or units == "truthy" and p.value))]
    if false == "leading" and kept[:1] == [FALSE] or false == "absorbs" and FALSE in kept:
        return FALSE
    return _chain("&&", kept, TRUE)


def disj(*parts: Expr) -> Expr:
    """``parts`` joined by ``||`` as a left-nested chain: ``FALSE`` parts dropped, ``TRUE``
    when any part is ``TRUE`` (or one is the whole), ``FALSE`` when none remain."""
    kept = [p for p in parts if p != FALSE]
    if TRUE in kept:
        return TRUE
    return _chain("||", kept, FALSE)


def _chain(op: str, parts: list[Expr], empty: Expr) -> Expr:
    if not parts:
        return empty
    out = parts[0]
    for p in parts[1:]:
        out = Binary(op, out, p)
    return out


def neg(e: Expr, *, cancel: bool = False) -> Expr:
    """``!e``.  With ``cancel`` (Murphi, whose booleans are 0/1) every constant folds and a
    double negation ``!!x`` becomes ``x``, which keeps its truth (all a guard needs) though not
    a non-boolean value; without it (Promela) only ``TRUE`` and ``FALSE`` fold."""
    if cancel:
        if isinstance(e, Const):
            return Const(int(not e.value))
        if isinstance(e, Unary) and e.op == "!":
            return e.operand
    elif e == TRUE or e == FALSE:
        return Const(int(not e.value))
    return Unary("!", e)


def fold(e: Expr, *, keep: tuple[str, ...] = ()) -> Expr:
    """``e`` with its top operator applied when its operands are constants (children are
    already folded); an operation that faults on those constants stays, so the fault happens
    at run time, where the languages' own tools report it.  Operators in ``keep`` stay even
    on constants (Promela's lowering keeps ``/`` and ``%``; folding them would change the
    shape of its models' guards)."""
    if isinstance(e, Unary) and isinstance(e.operand, Const):
        return Const(apply_unary(e.op, e.operand.value))
    if isinstance(e, Binary) and isinstance(e.left, Const) and isinstance(e.right, Const) and e.op not in keep:
        try:
            return Const(apply_binary(e.op, e.left.value, e.right.value))
        except Fault:
            return e
    return e


def simplify(e: Expr) -> Expr:
    """``fold``, then the algebraic identities that need only one constant operand: ``x + 0``,
    ``x - 0``, ``0 + x``, ``(x - k) + k``, ``(x + k) - k``, ``0 * x`` (``x`` a name or
    constant), ``&&``/``||`` with a constant side, and ``Ite`` on a constant condition.

    Why the identities (CSP#): family slot indices come out as ``c - lo + base``; left
    unfolded, a family starting at 0 (no offset) would get a different graph shape from its
    sibling families and the symmetry between them would be lost.  Ints do not overflow in
    the IR, so the cancellations are exact."""
    folded = fold(e)
    if folded is not e:
        return folded
    if isinstance(e, Binary):
        a, b = e.left, e.right
        if e.op in ("+", "-") and isinstance(b, Const) and b.value == 0:
            return a
        if e.op == "+" and isinstance(a, Const) and a.value == 0:
            return b
        if (e.op in ("+", "-") and isinstance(b, Const) and isinstance(a, Binary)
                and a.op == ("-" if e.op == "+" else "+") and isinstance(a.right, Const)
                and a.right.value == b.value):
            return a.left
        if e.op == "*" and isinstance(a, Const) and a.value == 0 and isinstance(b, (Const, Name)):
            return Const(0)
        if e.op == "&&" and isinstance(a, Const):
            return truth(b) if a.value else Const(0)
        if e.op == "&&" and isinstance(b, Const) and b.value:
            return truth(a)
        if e.op == "||" and isinstance(a, Const):
            return Const(1) if a.value else truth(b)
    if isinstance(e, Ite) and isinstance(e.cond, Const):
        return e.then if e.cond.value else e.else_
    return e


def is_truth(e: Expr) -> bool:
    """``e`` certainly evaluates to 0 or 1: a comparison, ``&&``/``||``, ``!``, or 0/1."""
    return (isinstance(e, Const) and e.value in (0, 1) or isinstance(e, Unary) and e.op == "!"
            or isinstance(e, Binary) and e.op in TRUTH_OPERATORS)


def truth(e: Expr) -> Expr:
    """``e`` as a 0/1 value: ``e`` itself if ``is_truth``, a constant folds, anything else
    becomes ``e != 0``."""
    if is_truth(e):
        return e
    if isinstance(e, Const):
        return Const(int(bool(e.value)))
    return Binary("!=", e, Const(0))
