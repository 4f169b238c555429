"""Parse PAT CSP# text into a frozen syntax tree (``Script``); no meaning is given here.

Every node carries ``pos`` (``frontends.kit.Span``, 1-based) of its first token so later
stages can raise ``InputError`` at the right place.  Process nodes compare by identity
(``eq=False``): the linearisation uses them as keys of control locations, and two textually
equal sub-processes at different places are different control points.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from lark import Token

from frontends.kit import (
    BinaryOp as Bin, Conditional as Cond, Grammar, Located, Num, Span, SyntaxBuilder, UnaryOp as Un,
    Vocabulary, collect, infix,
)

#: The name ``scope`` and ``linearise`` know positions by.
Pos = Span

# ---------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Ident(Located):
    name: str
    pos: Span


@dataclass(frozen=True)
class Subscript(Located):
    """``name[i][j]...``: one index per declared dimension."""

    name: str
    indices: tuple["SExpr", ...]
    pos: Span


SExpr = Union[Num, Ident, Subscript, Un, Bin, Cond]

# ---------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class SAssign(Located):
    target: Union[Ident, Subscript]
    value: SExpr
    pos: Span


@dataclass(frozen=True)
class SLocal(Located):
    """``var t = e;`` inside a program: a temporary visible until the program ends."""

    name: str
    value: SExpr
    pos: Span


@dataclass(frozen=True)
class SIf(Located):
    cond: SExpr
    then: tuple["SStmt", ...]
    else_: tuple["SStmt", ...]
    pos: Span


@dataclass(frozen=True)
class SWhile(Located):
    cond: SExpr
    body: tuple["SStmt", ...]
    pos: Span


SStmt = Union[SAssign, SLocal, SIf, SWhile]

# ---------------------------------------------------------------------------- events


@dataclass(frozen=True)
class PlainEvent(Located):
    """``name.a1.a2{program}``; ``name`` ``tau`` is the invisible event."""

    name: str
    args: tuple[SExpr, ...]
    program: tuple[SStmt, ...]
    pos: Span


@dataclass(frozen=True)
class SendEvent(Located):
    channel: str
    args: tuple[SExpr, ...]
    program: tuple[SStmt, ...]
    pos: Span
    index: Optional[SExpr] = None  # ``c[i]!...`` on a channel array


@dataclass(frozen=True)
class RecvEvent(Located):
    """``c?x.y{program}``: binds ``x``, ``y`` in the program and the continuation."""

    channel: str
    names: tuple[str, ...]
    program: tuple[SStmt, ...]
    pos: Span
    index: Optional[SExpr] = None  # ``c[i]?...`` on a channel array


SEvent = Union[PlainEvent, SendEvent, RecvEvent]

# ---------------------------------------------------------------------------- processes


@dataclass(frozen=True, eq=False)
class PSkip(Located):
    pos: Span


@dataclass(frozen=True, eq=False)
class PStop(Located):
    pos: Span


@dataclass(frozen=True, eq=False)
class PCall(Located):
    name: str
    args: tuple[SExpr, ...]
    pos: Span


@dataclass(frozen=True, eq=False)
class PPrefix(Located):
    event: SEvent
    then: "Proc"
    pos: Span


@dataclass(frozen=True, eq=False)
class PGuard(Located):
    cond: SExpr
    proc: "Proc"
    pos: Span


@dataclass(frozen=True, eq=False)
class PBinary(Located):
    """``left op right`` for ``op`` in ``[]``, ``<>``, ``|||``, ``||``, ``;``."""

    op: str
    left: "Proc"
    right: "Proc"
    pos: Span


@dataclass(frozen=True, eq=False)
class PIf(Located):
    cond: SExpr
    then: "Proc"
    else_: Optional["Proc"]
    pos: Span


@dataclass(frozen=True, eq=False)
class PAtomic(Located):
    proc: "Proc"
    pos: Span


@dataclass(frozen=True, eq=False)
class PIndexed(Located):
    """``op var:{lo..hi}@body`` for ``op`` in ``[]``, ``<>``, ``|||``, ``||``."""

    op: str
    var: str
    lo: SExpr
    hi: SExpr
    body: "Proc"
    pos: Span


Proc = Union[PSkip, PStop, PCall, PPrefix, PGuard, PBinary, PIf, PAtomic, PIndexed]

# ---------------------------------------------------------------------------- top level


@dataclass(frozen=True)
class Define(Located):
    name: str
    value: SExpr
    pos: Span


@dataclass(frozen=True)
class EnumDecl:
    names: tuple[str, ...]
    positions: tuple[Span, ...]


@dataclass(frozen=True)
class InitItem:
    value: SExpr
    count: Optional[SExpr]


@dataclass(frozen=True)
class VarDecl(Located):
    """``init`` is ``None`` (zero), ``"*"`` (any value of the range), an expression or a list."""

    name: str
    hidden: bool
    dims: tuple[SExpr, ...]
    range: Optional[tuple[SExpr, SExpr]]
    init: Union[None, str, SExpr, tuple[InitItem, ...]]
    pos: Span


@dataclass(frozen=True)
class ChannelDecl(Located):
    name: str
    capacity: SExpr
    pos: Span
    size: Optional[SExpr] = None  # ``channel c[N] k;``: N channels c[0..N-1]


@dataclass(frozen=True)
class ProcDef(Located):
    name: str
    params: tuple[str, ...]
    body: Proc
    pos: Span


@dataclass(frozen=True)
class AssertDecl(Located):
    """``kind`` is ``deadlockfree``, ``reaches`` (with ``condition``) or ``unchecked``."""

    process: str
    args: tuple[SExpr, ...]
    kind: str
    condition: Optional[SExpr]
    text: str
    pos: Span


Item = Union[Define, EnumDecl, VarDecl, ChannelDecl, ProcDef, AssertDecl]


@dataclass(frozen=True)
class Script:
    items: tuple[Item, ...]
    path: str


# ---------------------------------------------------------------------------- parser


#: The grammar, with plain words for its named terminals in "expected ..." messages.
GRAMMAR = Grammar("frontends.csp", Vocabulary({
    "NAME": "an identifier",
    "NUMBER": "a number",
    "EQOP": "'==' or '!='",
    "RELOP": "a comparison ('<', '<=', '>', '>=')",
    "ADDOP": "'+' or '-'",
    "MULOP": "'*', '/' or '%'",
    "XOROP": "'^'",
    "SHIFTOP": "'<<' or '>>'",
    "DEF_END": "';' ending the process definition",
    "OTHER_ASSERT": "an assertion ('deadlockfree', 'reaches', '|=', 'refines', ...)",
    "$END": "end of file",
}, str.lower, literals=True, sort_words=True, limit=12), maybe_placeholders=True)


class _Build(SyntaxBuilder):
    """lark tree -> syntax nodes (see the grammar for the rule names)."""

    # expressions
    def number(self, meta, c):
        return Num(int(c[0]), self.span(c[0]))

    def true(self, meta, c):
        return Num(1, self.span(meta))

    def false(self, meta, c):
        return Num(0, self.span(meta))

    def name(self, meta, c):
        return Ident(str(c[0]), self.span(c[0]))

    def index(self, meta, c):
        return Subscript(str(c[0]), tuple(c[1:]), self.span(c[0]))

    def not_(self, meta, c):
        return Un("!", c[0], self.span(meta))

    def neg(self, meta, c):
        return Un("-", c[0], self.span(meta))

    def binop(self, meta, c):
        return Bin(str(c[1]), c[0], c[2], c[0].pos)

    def and_(self, meta, c):
        return Bin("&&", c[0], c[1], c[0].pos)

    def or_(self, meta, c):
        return Bin("||", c[0], c[1], c[0].pos)

    def ite(self, meta, c):
        return Cond(c[0], c[1], c[2], c[0].pos)

    # statements
    def lvalue(self, meta, c):
        if len(c) == 1:
            return Ident(str(c[0]), self.span(c[0]))
        return Subscript(str(c[0]), tuple(c[1:]), self.span(c[0]))

    def assign(self, meta, c):
        return SAssign(c[0], c[1], c[0].pos)

    def incr(self, meta, c):
        return SAssign(c[0], Bin("+", c[0], Num(1, c[0].pos), c[0].pos), c[0].pos)

    def decr(self, meta, c):
        return SAssign(c[0], Bin("-", c[0], Num(1, c[0].pos), c[0].pos), c[0].pos)

    def add_assign(self, meta, c):
        return SAssign(c[0], Bin("+", c[0], c[1], c[0].pos), c[0].pos)

    def sub_assign(self, meta, c):
        return SAssign(c[0], Bin("-", c[0], c[1], c[0].pos), c[0].pos)

    def local_decl(self, meta, c):
        return SLocal(str(c[0]), c[1], self.span(c[0]))

    def empty(self, meta, c):
        return None

    def block(self, meta, c):
        return tuple(s for s in c if s is not None)

    def sif(self, meta, c):
        else_ = c[2] if len(c) > 2 and c[2] is not None else ()
        if isinstance(else_, SIf):
            else_ = (else_,)
        return SIf(c[0], c[1], else_, self.span(meta))

    def swhile(self, meta, c):
        return SWhile(c[0], c[1], self.span(meta))

    # events
    eargs = collect

    eargs_first = eargs

    def plain_event(self, meta, c):
        return PlainEvent(str(c[0]), c[1], c[2] or (), self.span(c[0]))

    def send_event(self, meta, c):
        return SendEvent(str(c[0]), c[2], c[3] or (), self.span(c[0]), c[1])

    def recv_event(self, meta, c):
        program = c[-1] if isinstance(c[-1], tuple) or c[-1] is None else ()
        names = [str(t) for t in c[2:] if isinstance(t, Token)]
        return RecvEvent(str(c[0]), tuple(names), program or (), self.span(c[0]), c[1])

    # processes
    def skip(self, meta, c):
        return PSkip(self.span(meta))

    def stop(self, meta, c):
        return PStop(self.span(meta))

    def args(self, meta, c):
        return tuple(a for a in c if a is not None)

    def call(self, meta, c):
        return PCall(str(c[0]), c[1] or (), self.span(c[0]))

    def guarded(self, meta, c):
        return PGuard(c[0], c[1], self.span(meta))

    def event_prefix(self, meta, c):
        return PPrefix(c[0], c[1], c[0].pos)

    interleave_op = infix(PBinary, "|||")
    parallel_op = infix(PBinary, "||")
    choice_op = infix(PBinary, "[]")
    internal_op = infix(PBinary, "<>")
    sequence_op = infix(PBinary, ";")

    def pif(self, meta, c):
        return PIf(c[0], c[1], c[2] if len(c) > 2 else None, self.span(meta))

    def pifa(self, meta, c):
        # PAT's atomic if: the condition is tested together with the chosen branch's first
        # event, so no τ step of its own -- a choice between the two guarded branches.
        pos = self.span(meta)
        return PBinary("[]", PGuard(c[0], c[1], pos), PGuard(Un("!", c[0], pos), c[2], pos), pos)

    def pifb(self, meta, c):
        # PAT's blocking if: waits until the condition holds.
        return PGuard(c[0], c[1], self.span(meta))

    def case_arm(self, meta, c):
        return (c[0], c[1], self.span(meta))

    def pcase(self, meta, c):
        # PAT's case: ONE τ step to the first arm whose condition holds, else to the default
        # (Skip when there is none) -- a choice of τ-prefixed arms under exclusive guards.
        pos = self.span(meta)
        arms = [x for x in c if isinstance(x, tuple)]
        default = c[-1] if c and not isinstance(c[-1], tuple) and c[-1] is not None else PSkip(pos)
        branches, earlier = [], []
        for cond, proc, arm_pos in arms:
            guard = cond
            for e in earlier:
                guard = Bin("&&", guard, Un("!", e, arm_pos), arm_pos)
            branches.append(PGuard(guard, PPrefix(PlainEvent("tau", (), (), arm_pos), proc, arm_pos), arm_pos))
            earlier.append(cond)
        guard = Un("!", earlier[0], pos)
        for e in earlier[1:]:
            guard = Bin("&&", guard, Un("!", e, pos), pos)
        branches.append(PGuard(guard, PPrefix(PlainEvent("tau", (), (), pos), default, pos), pos))
        result = branches[0]
        for b in branches[1:]:
            result = PBinary("[]", result, b, pos)
        return result

    def atomic(self, meta, c):
        return PAtomic(c[0], self.span(meta))

    def binder(self, meta, c):
        return (str(c[0]), c[1], c[2])

    def _indexed(op):
        def build(self, meta, c):
            var, lo, hi = c[0]
            return PIndexed(op, var, lo, hi, c[1], self.span(meta))

        return build

    indexed_interleave = _indexed("|||")
    indexed_parallel = _indexed("||")
    indexed_choice = _indexed("[]")
    indexed_internal = _indexed("<>")

    # top level
    def define(self, meta, c):
        return Define(str(c[0]), c[1], self.span(meta))

    def enumdecl(self, meta, c):
        return EnumDecl(tuple(str(t) for t in c), tuple(self.span(t) for t in c))

    def varkw(self, meta, c):
        return str(c[0]) == "hvar"

    dims = collect

    def range(self, meta, c):
        return (c[0], c[1])

    def init_scalar(self, meta, c):
        return c[0]

    def init_any(self, meta, c):
        return "*"

    def init_item(self, meta, c):
        return InitItem(c[0], c[1])

    init_list = collect

    def vardecl(self, meta, c):
        hidden, name, dims, rng, init = c
        return VarDecl(str(name), hidden, dims, rng, init, self.span(name))

    def channel(self, meta, c):
        return ChannelDecl(str(c[0]), c[2], self.span(c[0]), c[1])

    def params(self, meta, c):
        return tuple(str(t) for t in c if t is not None)

    def procdef(self, meta, c):
        name, params, body, _end = c
        return ProcDef(str(name), params or (), body, self.span(name))

    def assert_deadlockfree(self, meta, c):
        return ("deadlockfree", None)

    def assert_reaches(self, meta, c):
        return ("reaches", c[0])

    def assert_other(self, meta, c):
        return ("unchecked", None)

    def assertion(self, meta, c):
        name, args, (kind, cond) = c
        text = self.source(meta)
        return AssertDecl(str(name), args or (), kind, cond, text, self.span(meta))

    start = collect


def parse_script(text: str, path: str) -> Script:
    """Parse ``text``; any syntax error becomes one ``InputError`` naming what was expected."""
    return Script(tuple(_Build(text, path).build(GRAMMAR.parse(text, path))), path)
