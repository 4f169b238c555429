"""Guards in a shape that does not order what the source treats alike.

The CSP translation flattens ``a || b`` and nested ``!``/``&&``/``||`` into chains of binary
constraints whose order is visible in the coloured graph, while it splits a top-level
conjunction into independent constraints.  Peterson's filter guard
``victim[l] != _pid || !(level[1] >= l || level[2] >= l || ...)`` is a chain over the other
pids in index order, so a permutation of pids that is a symmetry of the LTS maps one
process's chain onto a differently ordered chain: no graph automorphism, no symmetry found.

``normal_guard`` rewrites a guard into an equivalent conjunction of small clauses:

* constants fold (``_pid != 1`` is already ``0`` in process 1's copy, so ``0 && x`` is ``0``);
* negation moves inwards (De Morgan; ``!(a >= b)`` is ``a < b``);
* ``a || (b && c)`` becomes ``(a || b) && (a || c)`` while the result stays small.

Every rewrite keeps the *evaluation* the interpreter performs, faults included: De Morgan
evaluates the same operands under the same conditions, and after distribution ``a`` is
evaluated first in each clause, ``b`` exactly when ``a`` is false, ``c`` exactly when ``a`` is
false and ``b`` true, as before (evaluating the pure ``a`` twice changes nothing).
"""
from __future__ import annotations

from detect.ir import Binary, Const, Expr, Ite, Unary

_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
#: Largest number of clauses distribution may produce from one disjunction.
MAX_CLAUSES = 64


def _is_bool(e: Expr) -> bool:
    """``e`` is 0 or 1 whatever the state (so ``!!e`` is ``e``)."""
    if isinstance(e, Const):
        return e.value in (0, 1)
    if isinstance(e, Unary):
        return e.op == "!"
    if isinstance(e, Binary):
        return e.op in _NEGATED or e.op in ("&&", "||")
    return False


def _and(a: Expr, b: Expr) -> Expr:
    if isinstance(a, Const):
        return b if a.value and _is_bool(b) else (Const(0) if not a.value else Binary("&&", a, b))
    if isinstance(b, Const) and b.value and _is_bool(a):
        return a
    return Binary("&&", a, b)


def _or(a: Expr, b: Expr) -> Expr:
    if isinstance(a, Const):
        return Const(1) if a.value else (b if _is_bool(b) else Binary("||", a, b))
    if isinstance(b, Const) and not b.value and _is_bool(a):
        return a
    return Binary("||", a, b)


def clauses(e: Expr) -> list[Expr]:
    """The top-level conjuncts of ``e``, left to right."""
    if isinstance(e, Binary) and e.op == "&&":
        return clauses(e.left) + clauses(e.right)
    return [e]


def _conj(parts: list[Expr]) -> Expr:
    out = parts[0]
    for p in parts[1:]:
        out = _and(out, p)
    return out


def normal_guard(e: Expr, positive: bool = True) -> Expr:
    """An expression true exactly where ``e`` is ``positive`` (0/1 valued), faulting exactly
    where ``e`` faults; see the module docstring for the shape."""
    if isinstance(e, Const):
        return Const(int(bool(e.value) == positive))
    if isinstance(e, Unary) and e.op == "!":
        return normal_guard(e.operand, not positive)
    if isinstance(e, Binary) and e.op in ("&&", "||"):
        conjunctive = (e.op == "&&") == positive
        left = normal_guard(e.left, positive)
        right = normal_guard(e.right, positive)
        if conjunctive:
            return _and(left, right)
        if isinstance(left, Const) or isinstance(right, Const):
            return _or(left, right)
        # Distribute the disjunction over the conjuncts of its right side only: the left
        # side is evaluated first in every clause, as it was before.
        parts = clauses(right)
        if 1 < len(parts) <= MAX_CLAUSES and len(clauses(left)) == 1:
            return _conj([_or(left, p) for p in parts])
        return _or(left, right)
    if isinstance(e, Binary) and e.op in _NEGATED:
        return e if positive else Binary(_NEGATED[e.op], e.left, e.right)
    if isinstance(e, Ite):
        return e if positive else Unary("!", e)
    return e if positive and _is_bool(e) else (Unary("!", e) if not positive else Binary("!=", e, Const(0)))
