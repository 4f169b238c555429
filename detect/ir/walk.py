"""Walkers over IR expressions and statements: the one place that switches on node classes.

Every pass that needs "the sub-expressions", "the names read", "this expression with some
leaves replaced" or "every expression of a program" uses these instead of its own
``isinstance`` chain, so a new node class is taught to the IR in one module.

Conventions: ``names_read`` gives ``Name`` leaves only (array names are not values; an
``Index`` contributes the names in its subscript).  ``map_expr`` is top-down: where the
function returns an expression it replaces the whole subtree, where it returns ``None``
the node is rebuilt from its mapped children (and returned unchanged, the same object,
when no child changed).
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterable, Iterator, Mapping, Optional, Sequence

from detect.ir.model import (
    Assert, Assign, Binary, Const, Expr, If, Index, Ite, ModelError, Name, Stmt, Unary, While,
)

ExprMap = Callable[[Expr], Optional[Expr]]


def children(e: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of ``e`` in source order."""
    if isinstance(e, Index):
        return (e.index,)
    if isinstance(e, Unary):
        return (e.operand,)
    if isinstance(e, Binary):
        return (e.left, e.right)
    if isinstance(e, Ite):
        return (e.cond, e.then, e.else_)
    return ()


def _rebuild(e: Expr, parts: Sequence[Expr]) -> Expr:
    if isinstance(e, Index):
        return Index(e.array, parts[0])
    if isinstance(e, Unary):
        return Unary(e.op, parts[0])
    if isinstance(e, Binary):
        return Binary(e.op, parts[0], parts[1])
    if isinstance(e, Ite):
        return Ite(parts[0], parts[1], parts[2])
    return e


def subexpressions(e: Expr) -> Iterator[Expr]:
    """``e`` and every expression below it, pre-order."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def distinct_subexpressions(e: Expr, seen: dict[int, Expr]) -> Iterator[Expr]:
    """The expressions below ``e`` (``e`` included) not yet in ``seen`` (node ids; the nodes are
    kept there so that no id is reused), each node object once, added to ``seen``.

    Why: expressions are built from shared parts (every guard of a Promela model carries the
    same atomic-turn and ``timeout`` conditions): LTL/mobile2.pml's 8,489 guards hold 7.6
    million nodes as trees but 170,000 node objects, and a walk per guard was most of its
    detection.  Use it for facts of a set of expressions as a whole (their constants); see
    ``fold`` for facts of each one."""
    stack = [e]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        yield node
        stack.extend(reversed(children(node)))


def fold(e: Expr, f: Callable[[Expr, tuple], object], memo: dict[int, tuple[Expr, object]]):
    """``f(node, results of its children)`` computed bottom-up for ``e``, each node object once
    per ``memo`` (node id -> (node, result); the node kept so that its id is not reused): on
    expressions built from shared parts a fact of each of many expressions costs the shared
    parts once (see ``distinct_subexpressions``).  Iterative: deep expressions do not recurse."""
    hit = memo.get(id(e))
    if hit is not None:
        return hit[1]
    stack = [(e, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in memo:
            continue
        kids = children(node)
        if ready:
            memo[id(node)] = (node, f(node, tuple(memo[id(c)][1] for c in kids)))
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(kids) if id(c) not in memo)
    return memo[id(e)][1]


def map_expr(e: Expr, f: ExprMap, finish: Optional[Callable[[Expr], Expr]] = None) -> Expr:
    """``e`` with every subtree for which ``f`` returns an expression replaced by it.

    ``finish``, when given, is applied to every rebuilt operator node (``Index`` excepted),
    bottom-up: a front end passes its constant folder so substitution leaves folded
    expressions."""
    replaced = f(e)
    if replaced is not None:
        return replaced
    old = children(e)
    if not old:
        return e
    new = tuple(map_expr(c, f, finish) for c in old)
    if finish is not None and not isinstance(e, Index):
        return finish(_rebuild(e, new))
    return e if all(a is b for a, b in zip(old, new)) else _rebuild(e, new)


def substitute(e: Expr, mapping: Mapping[Expr, Expr]) -> Expr:
    """``e`` with each subtree equal to a key of ``mapping`` replaced by its value
    (outermost match wins; replacements are not substituted again)."""
    if not mapping:
        return e
    return map_expr(e, _lookup(mapping))


def _lookup(mapping: Mapping[Expr, Expr]) -> ExprMap:
    """``mapping.get``, without hashing every node when every key is a ``Name``: a frozen
    dataclass's hash walks its whole subtree, so looking up each node of a deep expression
    is quadratic (the guards with pan's ``timeout`` substituted took minutes)."""
    if all(type(k) is Name for k in mapping):
        by_name = {k.name: v for k, v in mapping.items()}
        return lambda x: by_name.get(x.name) if type(x) is Name else None
    return mapping.get


def substituter(mapping: Mapping[Expr, Expr]) -> Callable[[Expr], Expr]:
    """``substitute(·, mapping)`` that remembers each subtree (by identity) it rewrote:
    expressions built from shared parts (every guard of a Promela model carries the same
    atomic-turn and ``timeout`` conditions) are rewritten once per shared part."""
    lookup = _lookup(mapping)
    memo: dict[int, tuple[Expr, Expr]] = {}

    def sub(e: Expr) -> Expr:
        hit = memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        out = lookup(e)
        if out is None:
            old = children(e)
            new = tuple(sub(c) for c in old)
            out = e if all(a is b for a, b in zip(old, new)) else _rebuild(e, new)
        memo[id(e)] = (e, out)  # ``e`` kept alive: its id is not reused while memo lives
        return out

    return sub


def names_read(e: Expr) -> set[str]:
    """The ``Name`` leaves of ``e`` (globals, locals and temporaries it reads)."""
    return {x.name for x in subexpressions(e) if isinstance(x, Name)}


def constants(e: Expr) -> Iterator[int]:
    """The values of the ``Const`` leaves of ``e``, pre-order."""
    return (x.value for x in subexpressions(e) if isinstance(x, Const))


# ---------------------------------------------------------------------------- statements


def statements(stmts: Iterable[Stmt]) -> Iterator[Stmt]:
    """Every statement of a program, nested ones included, in source order."""
    for st in stmts:
        yield st
        if isinstance(st, If):
            yield from statements(st.then)
            yield from statements(st.else_)
        elif isinstance(st, While):
            yield from statements(st.body)


def own_expressions(st: Stmt) -> tuple[Expr, ...]:
    """The expressions a statement itself evaluates (not those of nested statements): an
    assignment's value and, for an element target, its subscript; a condition."""
    if isinstance(st, Assign):
        if isinstance(st.target, Index):
            return (st.value, st.target.index)
        return (st.value,)
    if isinstance(st, (If, While, Assert)):
        return (st.cond,)
    raise ModelError(f"unknown statement {st!r}")


def program_expressions(stmts: Iterable[Stmt]) -> Iterator[Expr]:
    """``own_expressions`` of every statement of a program, in source order."""
    for st in statements(stmts):
        yield from own_expressions(st)


def program_names_read(stmts: Iterable[Stmt]) -> set[str]:
    """Names a program reads (``names_read`` of every expression it evaluates)."""
    names: set[str] = set()
    for e in program_expressions(stmts):
        names |= names_read(e)
    return names


def assigned_names(stmts: Iterable[Stmt]) -> set[str]:
    """Names a program assigns as scalars (``Name`` targets: globals and temporaries)."""
    return {st.target.name for st in statements(stmts)
            if isinstance(st, Assign) and isinstance(st.target, Name)}


def map_program(stmts: Iterable[Stmt], f: ExprMap,
                finish: Optional[Callable[[Expr], Expr]] = None) -> tuple[Stmt, ...]:
    """A program with ``map_expr(·, f, finish)`` applied to every expression it evaluates
    (targets keep their variable; an element target's subscript is mapped)."""
    out: list[Stmt] = []
    for st in stmts:
        if isinstance(st, Assign):
            target = st.target
            if isinstance(target, Index):
                target = Index(target.array, map_expr(target.index, f, finish))
            out.append(Assign(target, map_expr(st.value, f, finish)))
        elif isinstance(st, If):
            out.append(If(map_expr(st.cond, f, finish), map_program(st.then, f, finish),
                          map_program(st.else_, f, finish)))
        elif isinstance(st, While):
            out.append(While(map_expr(st.cond, f, finish), map_program(st.body, f, finish)))
        elif isinstance(st, Assert):
            out.append(dataclasses.replace(st, cond=map_expr(st.cond, f, finish)))
        else:
            raise ModelError(f"unknown statement {st!r}")
    return tuple(out)


def substitute_program(stmts: Iterable[Stmt], mapping: Mapping[Expr, Expr]) -> tuple[Stmt, ...]:
    """``substitute`` applied to every expression a program evaluates."""
    return map_program(stmts, _lookup(mapping)) if mapping else tuple(stmts)


# ---------------------------------------------------------------------------- faults


def may_fault(e: Expr, sizes: Mapping[str, int], memo: Optional[dict] = None) -> bool:
    """Whether evaluating ``e`` might fault (a conservative syntactic test): an array read
    whose index is not a constant within ``sizes`` (array name -> length), a division, a
    remainder or a shift.  ``memo``: a dict kept between calls with the same ``sizes``, so
    that parts shared between expressions are tested once (``fold``)."""
    def faults(x: Expr) -> bool:
        if isinstance(x, Index) and not (
                isinstance(x.index, Const) and 0 <= x.index.value < sizes.get(x.array, 0)):
            return True
        return isinstance(x, Binary) and x.op in ("/", "%", "<<", ">>")

    if memo is not None:
        return fold(e, lambda x, below: faults(x) or any(below), memo)
    return any(faults(x) for x in subexpressions(e))


# ---------------------------------------------------------------------------- renaming


def shape(e: Expr, memo: dict[int, tuple[Expr, object]]) -> int:
    """A hash of ``e`` with its names erased (variables and arrays alike): expressions that
    differ only in the names they read have equal shapes.  ``memo`` as for ``fold``."""
    return fold(e, lambda x, below: hash((type(x).__name__, _label(x), below)), memo)


def _label(x: Expr) -> object:
    """What of a node itself (not its children) besides names its shape keeps."""
    if isinstance(x, Const):
        return x.value
    return getattr(x, "op", None)


def program_shape(stmts: Iterable[Stmt], memo: dict) -> int:
    """``shape`` of a program: its statements' kinds and their expressions' shapes."""
    parts = []
    for st in stmts:
        if isinstance(st, Assign):
            parts.append(("=", shape(st.target, memo), shape(st.value, memo)))
        elif isinstance(st, If):
            parts.append(("if", shape(st.cond, memo), program_shape(st.then, memo), program_shape(st.else_, memo)))
        elif isinstance(st, While):
            parts.append(("while", shape(st.cond, memo), program_shape(st.body, memo)))
        elif isinstance(st, Assert):
            parts.append(("assert", shape(st.cond, memo)))
        else:
            raise ModelError(f"unknown statement {st!r}")
    return hash(tuple(parts))


def names_below(x: Expr, below: tuple) -> frozenset:
    """``fold``'s step for the names (variables and arrays) read in and below ``x``."""
    own = x.name if isinstance(x, Name) else x.array if isinstance(x, Index) else None
    out = frozenset().union(*below) if below else frozenset()
    return out | {own} if own is not None else out


class Renaming:
    """Aligns expressions and programs that are equal up to a one-to-one renaming of the
    names they read (variables and arrays alike), building the renaming as it goes.

    ``pairs`` maps each name of the first side met so far to the second's.  Subtrees shared
    by both sides (the same object, as front ends share guard parts) map their names to
    themselves without being walked again; ``memo`` (node id -> names below, as ``fold``
    keeps it) is meant to live as long as the expressions."""

    def __init__(self, memo: dict[int, tuple[Expr, object]]):
        self.pairs: dict[str, str] = {}
        self._back: dict[str, str] = {}
        self._memo = memo
        self._seen: set[tuple[int, int]] = set()

    def pair(self, a: str, b: str) -> bool:
        """Record ``a -> b``; False when it contradicts a pair already recorded."""
        return self.pairs.setdefault(a, b) == b and self._back.setdefault(b, a) == a

    def expr(self, a: Expr, b: Expr) -> bool:
        """Whether ``b`` is ``a`` renamed (extending ``pairs``)."""
        stack = [(a, b)]
        while stack:
            x, y = stack.pop()
            if x is y:
                if not all(self.pair(n, n) for n in fold(x, names_below, self._memo)):
                    return False
                continue
            key = (id(x), id(y))
            if key in self._seen:
                continue
            self._seen.add(key)  # (both sides are kept alive by their models: ids stay unique)
            t = type(x)
            if t is not type(y):
                return False
            if t is Const:
                if x.value != y.value:
                    return False
            elif t is Name:
                if not self.pair(x.name, y.name):
                    return False
            elif t is Index:
                if not self.pair(x.array, y.array):
                    return False
                stack.append((x.index, y.index))
            else:
                if getattr(x, "op", None) != getattr(y, "op", None):
                    return False
                stack.extend(zip(children(x), children(y)))
        return True

    def program(self, a: Sequence[Stmt], b: Sequence[Stmt]) -> bool:
        """Whether program ``b`` is ``a`` renamed (assertion texts aside)."""
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if type(x) is not type(y):
                return False
            if isinstance(x, Assign):
                if not (self.expr(x.target, y.target) and self.expr(x.value, y.value)):
                    return False
            elif isinstance(x, If):
                if not (self.expr(x.cond, y.cond) and self.program(x.then, y.then)
                        and self.program(x.else_, y.else_)):
                    return False
            elif isinstance(x, While):
                if not (self.expr(x.cond, y.cond) and self.program(x.body, y.body)):
                    return False
            elif isinstance(x, Assert):
                if not self.expr(x.cond, y.cond):
                    return False
            else:
                raise ModelError(f"unknown statement {x!r}")
        return True
