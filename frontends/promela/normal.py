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

``alternatives`` then splits a clause ``a || (b && c)`` into two guards, one with ``a`` and one
with ``!a && b && c`` (one summand each, same program), so ``b`` and ``c`` become independent
constraints too.  Distributing instead (``(a || b) && (a || c)``) would be as symmetric but
copies ``a`` into every clause: with ``a = victim[l] != _pid`` the array read costs N tables of
(N+1)^3 rows per clause, 3 million graph nodes at N = 12.

Every rewrite keeps the *evaluation* the interpreter performs, faults included: De Morgan
evaluates the same operands under the same conditions; the split guards evaluate the clauses
before ``a`` as before, then ``a``; the first stops there, the second goes on with ``b`` and ``c``
exactly when ``a`` is false.  Their union is the original guard.  When ``b && c`` cannot
fault, the second guard drops ``!a`` (the two may then overlap, adding no transition: both
lead to the same state); that leaves one copy of ``a`` per step.
"""
from __future__ import annotations

from typing import Mapping

from detect.ir import Binary, Const, Expr, Ite, Unary, may_fault

_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
#: Most guards ``alternatives`` splits one guard into.
MAX_ALTERNATIVES = 16


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
        return _or(left, right)
    if isinstance(e, Binary) and e.op in _NEGATED:
        return e if positive else Binary(_NEGATED[e.op], e.left, e.right)
    if isinstance(e, Ite):
        return e if positive else Unary("!", e)
    return e if positive and _is_bool(e) else (Unary("!", e) if not positive else Binary("!=", e, Const(0)))


def alternatives(guard: Expr, sizes: Mapping[str, int], limit: int = MAX_ALTERNATIVES) -> list[Expr]:
    """Guards whose union is ``guard`` (already in ``normal_guard`` form), each a conjunction
    of clauses, that fault exactly where ``guard`` does; a clause ``a || (b && ...)`` splits
    as the module docstring says.  ``sizes`` gives array lengths (see ``may_fault``)."""
    cs = clauses(guard)
    for i, c in enumerate(cs):
        if isinstance(c, Binary) and c.op == "||" and len(clauses(c.right)) > 1:
            first = _conj(cs[:i] + [c.left] + cs[i + 1:])
            # ``!a`` keeps the alternatives disjoint; it is needed only where the right side
            # could fault (with ``a`` true the original never evaluates it).  Overlapping
            # alternatives add no transition: both lead to the same state.
            negated = [normal_guard(c.left, False)] if may_fault(c.right, sizes) else []
            second = _conj(cs[:i] + negated + clauses(c.right) + cs[i + 1:])
            rest = alternatives(second, sizes, limit - 1) if limit > 2 else [second]
            head = alternatives(first, sizes, limit - len(rest)) if limit - len(rest) > 1 else [first]
            return head + rest
    return [guard]
