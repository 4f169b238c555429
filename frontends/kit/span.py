"""Source positions of syntax tree nodes, and the nodes several languages share.

Every node of every front end's syntax tree carries ``pos: Span`` (where the front end
locates it: its first token, or its operator for some binary operators); error messages
print ``line``/``column`` exactly as lark reported them.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """Where a construct starts: 1-based ``line`` and ``column`` (0 when unknown, e.g. an
    empty rule) in ``file`` (the path the text was read from; empty where the text is not a
    file's, as Promela's preprocessed text, whose ``Preprocessed.origin`` maps lines back)."""

    line: int
    column: int
    file: str = ""


class Located:
    """A syntax node with a ``pos: Span`` field; ``line`` and ``column`` read through it."""

    __slots__ = ()

    @property
    def line(self) -> int:
        return self.pos.line

    @property
    def column(self) -> int:
        return self.pos.column


@dataclass(frozen=True)
class Num(Located):
    """An integer literal (``true``/``false`` as 1/0 where a language has them)."""

    value: int
    pos: Span


@dataclass(frozen=True)
class UnaryOp(Located):
    """``op operand``; ``op`` as the front end spells it."""

    op: str
    operand: object
    pos: Span


@dataclass(frozen=True)
class BinaryOp(Located):
    """``left op right``; ``op`` as the front end spells it."""

    op: str
    left: object
    right: object
    pos: Span


@dataclass(frozen=True)
class Conditional(Located):
    """``cond ? then : else_`` (each language has its own spelling)."""

    cond: object
    then: object
    else_: object
    pos: Span


@dataclass(frozen=True)
class AssertStmt(Located):
    """``assert cond`` with the message ``text`` the source gives (empty if none)."""

    cond: object
    text: str
    pos: Span


@dataclass(frozen=True)
class CallStmt(Located):
    """A call statement ``name(args)`` (a Promela inline, a Murphi procedure)."""

    name: str
    args: tuple
    pos: Span
