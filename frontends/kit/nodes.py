"""Syntax tree nodes whose shape several languages share.

A front end imports a node here, under its own name where it has one (``SAssign``,
``Named``, ``ConstDecl``), when its tree has the node with these fields; a language whose
node needs another field (Promela's ``VarRef`` target, Murphi's ``Elsif`` branches) keeps
its own class.  Field types are ``object``/``tuple``: each language's tree says what it
puts there.
"""
from __future__ import annotations

from dataclasses import dataclass

from frontends.kit.span import Located, Span

# ---------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Num(Located):
    """An integer literal (``true``/``false`` as 1/0 where a language has them)."""

    value: int
    pos: Span


@dataclass(frozen=True)
class Ident(Located):
    """A bare name: a name read (CSP#), a process state (DVE), a type's name (Murphi), a
    predefined variable (Promela's ``_pid``)."""

    name: str
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
class Call(Located):
    """``name(args)``: a call statement (a Promela inline, a Murphi procedure) or a call in an
    expression (a Murphi function, a CSP# library call)."""

    name: str
    args: tuple
    pos: Span

# ---------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class Assignment(Located):
    """``target = value``; the target is the language's: a name, a subscript, a designator."""

    target: object
    value: object
    pos: Span


@dataclass(frozen=True)
class WhileLoop(Located):
    """``while cond do body``; ``body`` a tuple of the language's statements."""

    cond: object
    body: tuple
    pos: Span


@dataclass(frozen=True)
class AssertStmt(Located):
    """``assert cond`` with the message ``text`` the source gives (empty if none)."""

    cond: object
    text: str
    pos: Span

# ---------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Constant(Located):
    """A named constant: CSP#'s ``#define name value;``, Murphi's ``Const name: value``."""

    name: str
    value: object
    pos: Span
