"""Parse PAT CSP# text into a frozen syntax tree (``Script``); no meaning is given here.

Every node carries ``pos`` (``frontends.kit.Span``, 1-based) of its first token so later
stages can raise ``InputError`` at the right place.  Process nodes compare by identity
(``eq=False``): the linearisation uses them as keys of control locations, and two textually
equal sub-processes at different places are different control points.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Optional, Union

from detect.errors import InputError

from frontends.kit import (
    Assignment as SAssign, BinaryOp as Bin, Call as FCall, Conditional as Cond, Constant as Define, Grammar,
    Ident, Located, Num, Span, SyntaxBuilder, UnaryOp as Un, Vocabulary, WhileLoop as SWhile, collect, infix,
)

# ---------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Subscript(Located):
    """``name[i][j]...``: one index per declared dimension."""

    name: str
    indices: tuple["SExpr", ...]
    pos: Span


@dataclass(frozen=True)
class Quant:
    """PAT's ``&& x:{lo..hi}@e`` (``op`` ``&&``) or ``|| x:{lo..hi}@e``: the conjunction or
    disjunction of ``e`` over the constant range (true, resp. false, when it is empty)."""

    op: str
    var: str
    lo: "SExpr"
    hi: "SExpr"
    body: "SExpr"
    pos: Span


@dataclass(frozen=True)
class ArrayLit(Located):
    """``[e0, e1, ...]`` passed as a process argument (``Tx([1, 2])``)."""

    values: tuple["SExpr", ...]
    pos: Span


#: ``FCall`` is ``f(a, ...)`` in an expression: PAT's ``call(f, ...)`` of an ``#import``ed C#
#: library (never run here; refused where it is translated).
SExpr = Union[Num, Ident, Subscript, Un, Bin, Cond, Quant, FCall, ArrayLit]

# ---------------------------------------------------------------------------- statements


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
class SLocalArray:
    """``var t = [e0, e1, ...];`` inside a program: a temporary array of fixed length."""

    name: str
    values: tuple[SExpr, ...]
    pos: Span


@dataclass(frozen=True)
class SCall(Located):
    """``call(f, ...);`` used as a statement (its value is dropped)."""

    call: FCall
    pos: Span


SStmt = Union[SAssign, SLocal, SLocalArray, SIf, SWhile, SCall]

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
    """``c?x.y{program}``: binds ``x``, ``y`` in the program and the continuation.

    PAT's matching input: ``items`` are the received positions as written (a name binds
    the value unless it names a constant; any other expression must equal the value), and
    ``guard`` is the ``c?[cond]x`` condition over the received values.  ``names`` are the
    names among ``items`` (those that turn out to be constants bind nothing)."""

    channel: str
    names: tuple[str, ...]
    program: tuple[SStmt, ...]
    pos: Span
    index: Optional[SExpr] = None  # ``c[i]?...`` on a channel array
    items: tuple[SExpr, ...] = ()
    guard: Optional[SExpr] = None


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


@dataclass(frozen=True)
class EventItem:
    """An event listed in a hiding set or an ``#alphabet``: ``name.a1.a2``.  In a hiding set
    ``name`` alone hides every event so named; with ``args`` only that compound event (the
    arguments must be constants)."""

    name: str
    args: tuple[SExpr, ...]
    pos: Span


@dataclass(frozen=True, eq=False)
class PHide:
    """``proc \\ {a, b.1}``: the listed events of ``proc`` become τ."""

    proc: "Proc"
    events: tuple[EventItem, ...]
    pos: Span


Proc = Union[PSkip, PStop, PCall, PPrefix, PGuard, PBinary, PIf, PAtomic, PIndexed, PHide]

# ---------------------------------------------------------------------------- top level


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
    """``kind`` is ``deadlockfree``, ``reaches`` (with ``condition``) or ``unchecked``;
    ``reaches cond with min(e)`` / ``max(e)`` has ``sense`` ``min`` / ``max`` and ``objective`` e."""

    process: str
    args: tuple[SExpr, ...]
    kind: str
    condition: Optional[SExpr]
    text: str
    pos: Span
    objective: Optional[SExpr] = None
    sense: Optional[str] = None
    #: ``|= F`` (``kind`` ``ltl``): the formula's text and where it starts
    formula: Optional[str] = None
    formula_pos: Optional[Span] = None


@dataclass(frozen=True)
class Include:
    """``#include "file";`` (replaced by the included file's items in ``parse_script``)."""

    file: str
    pos: Span


@dataclass(frozen=True)
class Import:
    """``#import "PAT.Lib.X";``: a C# library, whose calls cannot be run here."""

    library: str
    pos: Span


@dataclass(frozen=True)
class AlphaRange:
    """``x:{lo..hi}@item`` inside an ``#alphabet``."""

    var: str
    lo: SExpr
    hi: SExpr
    item: Union[EventItem, "AlphaRange"]
    pos: Span


@dataclass(frozen=True)
class AlphabetDecl:
    """``#alphabet P {...};``: the events process ``P`` synchronises on when it is an
    operand of ``||`` (instead of the events it performs)."""

    process: str
    items: tuple[Union[EventItem, AlphaRange], ...]
    pos: Span


Item = Union[Define, EnumDecl, VarDecl, ChannelDecl, ProcDef, AssertDecl, Import, AlphabetDecl]


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

    def at(self, meta) -> tuple[str, int, int]:
        """``InputError``'s file, line and column for a refusal of the construct at ``meta``."""
        span = self.span(meta)
        return self.file, span.line, span.column

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

    def forall(self, meta, c):
        var, lo, hi = c[0]
        return Quant("&&", var, lo, hi, c[1], self.span(meta))

    def exists(self, meta, c):
        var, lo, hi = c[0]
        return Quant("||", var, lo, hi, c[1], self.span(meta))

    def fcall(self, meta, c):
        return FCall(str(c[0]), tuple(a for a in c[1:] if a is not None), self.span(c[0]))

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

    def call_stmt(self, meta, c):
        call = self.fcall(meta, c)
        return SCall(call, call.pos)

    def local_decl(self, meta, c):
        return SLocal(str(c[0]), c[1], self.span(c[0]))

    def local_array(self, meta, c):
        return SLocalArray(str(c[0]), tuple(c[1:]), self.span(c[0]))

    def empty(self, meta, c):
        return None

    def block(self, meta, c):
        return tuple(s for s in c if s is not None)

    def sbody(self, meta, c):
        body = c[0]
        if isinstance(body, tuple):
            return body
        return () if body is None else (body,)

    def sif(self, meta, c):
        else_ = c[2] if len(c) > 2 and c[2] is not None else ()
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

    def recv_guard(self, meta, c):
        return ("guard", c[0])

    def recv_event(self, meta, c):
        program = c[-1] if isinstance(c[-1], tuple) or c[-1] is None else ()
        rest = c[2:-1]
        guard = None
        if rest and isinstance(rest[0], tuple):
            guard = rest[0][1]
        elif rest and rest[0] is None:
            pass
        items = tuple(x for x in rest[1:] if x is not None)
        names = tuple(x.name for x in items if isinstance(x, Ident))
        return RecvEvent(str(c[0]), names, program or (), self.span(c[0]), c[1], items, guard)

    def anon_event(self, meta, c):
        # PAT's anonymous program ``{x = 1;} -> P``: an invisible event running the program.
        return PlainEvent("tau", (), c[0], self.span(meta))

    # processes
    def skip(self, meta, c):
        return PSkip(self.span(meta))

    def stop(self, meta, c):
        return PStop(self.span(meta))

    def array_lit(self, meta, c):
        return ArrayLit(tuple(c), self.span(meta))

    def args(self, meta, c):
        return tuple(a for a in c if a is not None)

    def call(self, meta, c):
        return PCall(str(c[0]), c[1] or (), self.span(c[0]))

    def guarded(self, meta, c):
        return PGuard(c[0], c[1], self.span(meta))

    def call_prefix(self, meta, c):
        raise InputError(f"'{c[0]}(...) -> ...': a process call followed by '->' is not a PAT event prefix; "
                         f"write '{c[0]}(...); e -> ...' to run the process first", *self.at(meta))

    def event_prefix(self, meta, c):
        return PPrefix(c[0], c[1], c[0].pos)

    def interrupt_op(self, meta, c):
        raise InputError("'interrupt' (P interrupt Q) is not supported", *self.at(meta))

    def hide_item(self, meta, c):
        return EventItem(str(c[0]), c[1], self.span(c[0]))

    def hiding(self, meta, c):
        return PHide(c[0], tuple(c[1:]), self.span(meta))

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
        # Without ``else`` the other branch is Skip, as for ``if``.
        pos = self.span(meta)
        other = c[2] if len(c) > 2 and c[2] is not None else PSkip(pos)
        return PBinary("[]", PGuard(c[0], c[1], pos), PGuard(Un("!", c[0], pos), other, pos), pos)

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

    def _replicated(op):
        def build(self, meta, c):
            # ``|||{N}@P``: N copies of P, an indexed operator whose index P does not read.
            pos = self.span(meta)
            hi = Bin("-", c[0], Num(1, pos), pos)
            return PIndexed(op, f"rep_{pos.line}_{pos.column}", Num(0, pos), hi, c[1], pos)

        return build

    replicated_interleave = _replicated("|||")
    replicated_parallel = _replicated("||")

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
        value = c[0]
        if isinstance(value, FCall) and c[1] is None and len(value.args) == 1:
            # ``[N(K)]``: a name repeated, which the expression grammar read as a call.
            return InitItem(Ident(value.name, value.pos), value.args[0])
        return InitItem(value, c[1])

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
        return ("deadlockfree", None, None)

    def assert_reaches(self, meta, c):
        return ("reaches", c[0], c[1])

    def reach_with(self, meta, c):
        return (str(c[0]), c[1])

    def assert_other(self, meta, c):
        token = c[0]
        if str(token).startswith("|="):
            # ``|= F``: the formula is read by ``frontends.csp.ltl`` (positions from here)
            body = str(token)[2:]
            return ("ltl", body, self.span(token))
        return ("unchecked", None, None)

    def assertion(self, meta, c):
        name, args, (kind, cond, with_) = c
        text = self.source(meta)
        if kind == "ltl":
            at = with_
            return AssertDecl(str(name), args or (), kind, None, text, self.span(meta), formula=cond,
                              formula_pos=Span(at.line, at.column + 2, at.file))
        sense, objective = with_ if with_ is not None else (None, None)
        return AssertDecl(str(name), args or (), kind, cond, text, self.span(meta), objective, sense)

    def include(self, meta, c):
        return Include(str(c[0])[1:-1], self.span(meta))

    def import_(self, meta, c):
        return Import(str(c[0])[1:-1], self.span(meta))

    def alpha_event(self, meta, c):
        return self.hide_item(meta, c)

    def alpha_range(self, meta, c):
        return AlphaRange(str(c[0]), c[1], c[2], c[3], self.span(c[0]))

    def alphabet(self, meta, c):
        return AlphabetDecl(str(c[0]), tuple(x for x in c[1:] if x is not None), self.span(meta))

    def macro(self, meta, c):
        name = str(c[0]).split("(")[0].split()[-1]
        raise InputError(f"parameterised #define macro '{name}(...)' is not supported", *self.at(meta))

    start = collect


def parse_script(text: str, path: str, _including: tuple[str, ...] = ()) -> Script:
    """Parse ``text``; any syntax error becomes one ``InputError`` naming what was expected.

    Leading UTF-8 byte-order marks (PAT's editor writes one; a file saved twice has two) are
    skipped.  ``#include "f";`` is replaced by the items of ``f``, read relative to the
    including file; a file that cannot be read, or includes itself, is an error located at
    the ``#include``.  A variable of a C# library type (``var<Queue> q;``) is refused by name
    before parsing: its methods (``q.Enqueue(x)``) are not CSP# syntax."""
    text = text.lstrip("\ufeff")
    _refuse_library_types(text, path)
    try:
        tree = GRAMMAR.parse(text, path)
    except InputError as e:
        raise _named_syntax_error(e, text) from None
    items = _Build(text, path).build(tree)
    out: list = []
    for it in items:
        if isinstance(it, Include):
            out.extend(_included(it, path, _including + (path,)).items)
        else:
            out.append(it)
    return Script(tuple(out), path)


_COMMENT = re.compile(r"//[^\n]*|/\*(?:.|\n)*?\*/")
#: ``var<T> x`` / ``hvar<T> x``: a variable whose type is a class of an ``#import``ed C# library.
_LIBRARY_TYPE = re.compile(r"\b(h?var)\s*<\s*([A-Za-z_]\w*)\s*>\s*([A-Za-z_]\w*)?")


def _blank_comments(text: str) -> str:
    """``text`` with comments replaced by spaces (newlines kept: offsets stay those of ``text``)."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def _refuse_library_types(text: str, path: str) -> None:
    """A located refusal of the first ``var<T> x`` outside comments, naming the type."""
    plain = _blank_comments(text)
    m = _LIBRARY_TYPE.search(plain)
    if m is None:
        return
    line = plain.count("\n", 0, m.start()) + 1
    column = m.start() - (plain.rfind("\n", 0, m.start()) + 1) + 1
    name = f" '{m.group(3)}'" if m.group(3) else ""
    raise InputError(f"variable{name} of type '{m.group(2)}' ({m.group(1)}<{m.group(2)}>) is an object of a C# "
                     f"library: its methods cannot be run, so this model is refused", path, line, column)
_HEAD = r"([A-Za-z_]\w*)\s*(?:\([^()]*\))?\s*"
#: The text before a syntax error at '=' when a definition has no body: ``P(x) = Q() =``
#: (the next definition follows the first one's '='), starting a top-level item.
_NO_BODY = re.compile(r"(?:^|[;}])\s*" + _HEAD + r"=\s*" + _HEAD + r"$")


def _named_syntax_error(e: InputError, text: str) -> InputError:
    """``e`` (a syntax error in ``text``) reworded to name the mistake when it is one PAT
    users make: a definition without a body, or a stray character after the last
    definition.  Both are syntax errors in PAT's grammar too (``Name(...) = process;``; no
    token starts with an unknown character)."""
    if not e.line:
        return e
    # Comments blanked, newlines kept, so that offsets and line numbers stay those of ``text``.
    plain = _blank_comments(text)
    lines = plain.split("\n")
    at = sum(len(x) + 1 for x in lines[:e.line - 1]) + e.column - 1
    if e.message.startswith("syntax error: unexpected '='"):
        m = _NO_BODY.search(plain[:at])
        if m:
            line = plain.count("\n", 0, m.start(1)) + 1
            column = m.start(1) - (plain.rfind("\n", 0, m.start(1)) + 1) + 1
            return InputError(f"process '{m.group(1)}' has no body: '{m.group(1)}(...) =' is followed by the "
                              f"definition of '{m.group(2)}' (a definition is 'Name(...) = process;')",
                              e.path, line, column)
    if e.message.startswith("syntax error: unexpected character") and 0 <= at < len(plain) \
            and not plain[at + 1:].strip():
        return InputError(f"stray character {plain[at]!r} after the last definition (no CSP# token starts "
                          "with it)", e.path, e.line, e.column)
    return e


def _included(inc: Include, path: str, including: tuple[str, ...]) -> Script:
    """The parsed items of the file ``inc`` names, relative to ``path``'s directory."""
    from frontends.kit.source import read_source

    base = os.path.dirname(path) if path and not path.startswith("<") else "."
    target = os.path.normpath(os.path.join(base, inc.file))
    if target in {os.path.normpath(p) for p in including}:
        raise InputError(f'#include "{inc.file}" includes itself (through {" -> ".join(including)})',
                         path, inc.pos.line, inc.pos.column)
    if not os.path.isfile(target):
        raise InputError(f'#include "{inc.file}": no such file {target}', path, inc.pos.line, inc.pos.column)
    try:
        text = read_source(target, "#include file")
    except InputError as e:
        raise InputError(f'#include "{inc.file}": {e}', path, inc.pos.line, inc.pos.column) from None
    return parse_script(text, target, including)
