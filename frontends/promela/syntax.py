"""Promela source text (already preprocessed) -> a frozen abstract syntax tree.

Every node carries ``pos`` (``frontends.kit.Span``) in the *preprocessed* text; errors map
it back to the user's file through ``Preprocessed.origin``.  Parsing uses the LALR grammar
in ``grammar.lark`` through ``frontends.kit``; any lark error becomes an ``InputError``.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Optional, Union

from lark import Token

from detect.errors import InputError

from frontends.kit import (
    AssertStmt, Assignment as Assign, BinaryOp as BinOp, Call, Conditional as CondExpr, Grammar, Ident as Special,
    Located, Num, Span, SyntaxBuilder, UnaryOp as UnOp, Vocabulary, collect, first, infix, tagged,
)

from frontends.promela.preprocess import Preprocessed

# ---------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class VarRef(Located):
    """``name``, ``name[index]`` and record fields ``name[index].field...``."""

    name: str
    index: Optional["Expr"]
    field: Optional["VarRef"]
    pos: Span


@dataclass(frozen=True)
class ChanFn(Located):
    """``len``/``empty``/``nempty``/``full``/``nfull`` of a channel."""

    fn: str
    chan: VarRef
    pos: Span


@dataclass(frozen=True)
class Poll(Located):
    """``c?[args]`` (``random`` for ``c??[args]``): is the receive executable?"""

    chan: VarRef
    args: tuple["RecvArg", ...]
    random: bool
    pos: Span


@dataclass(frozen=True)
class ArrayLength(Located):
    """The number of elements of array ``array`` (the bound of ``for (i in array)``)."""

    array: VarRef
    pos: Span


@dataclass(frozen=True)
class RemoteLabel(Located):
    """``proctype[pid]@label`` (``pid`` None for ``proctype@label``): is that process at
    ``label``?  Spin allows it in never claims."""

    proctype: str
    pid: Optional["Expr"]
    label: str
    pos: Span


@dataclass(frozen=True)
class RemoteVar(Located):
    """``proctype[pid]:var`` or ``proctype[pid]:var[index]`` (``pid`` None for
    ``proctype:var``): the variable ``var`` of the process with that pid, read as pan reads
    it.  ``var`` is a plain name: it is the other process's, never resolved here."""

    proctype: str
    pid: Optional["Expr"]
    var: str
    index: Optional["Expr"]
    pos: Span


@dataclass(frozen=True)
class ProcFn(Located):
    """``enabled(pid)``, ``pc_value(pid)`` or ``get_priority(pid)``: a question about the
    process with pid ``pid``."""

    fn: str
    pid: "Expr"
    pos: Span


#: ``UnOp.op`` is "!", "-" or "~"; ``CondExpr`` is ``(cond -> then : else_)``.
#: ``Special`` is ``_pid``, ``_nr_pr`` or ``timeout``.
Expr = Union[Num, VarRef, UnOp, BinOp, CondExpr, ChanFn, Poll, Special, RemoteLabel, RemoteVar, ArrayLength,
             ProcFn]


@dataclass(frozen=True)
class RecvArg(Located):
    """``kind`` is ``var`` (store into ``ref``; a bare mtype name is resolved later),
    ``const`` (match ``expr``) or ``eval`` (match the value of ``expr``)."""

    kind: str
    ref: Optional[VarRef]
    expr: Optional[Expr]
    pos: Span


# ---------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class ChanInit(Located):
    capacity: Expr
    types: tuple[str, ...]
    pos: Span


@dataclass(frozen=True)
class VarDecl(Located):
    """``type name[size] : bits = init``; ``init`` is an expression, a ``ChanInit``, a tuple
    of expressions (array initialiser list) or ``None``."""

    type: str
    name: str
    size: Optional[Expr]
    bits: Optional[Expr]
    init: object
    hidden: bool
    pos: Span


@dataclass(frozen=True)
class Decl(Located):
    vars: tuple[VarDecl, ...]
    pos: Span


# ---------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class IncDec(Located):
    target: VarRef
    op: str  # "++" or "--"
    pos: Span


@dataclass(frozen=True)
class Send(Located):
    chan: VarRef
    args: tuple[Expr, ...]
    sorted: bool
    pos: Span


@dataclass(frozen=True)
class Recv(Located):
    chan: VarRef
    args: tuple[RecvArg, ...]
    random: bool
    copy: bool
    pos: Span


@dataclass(frozen=True)
class ExprStmt(Located):
    expr: Expr
    pos: Span


@dataclass(frozen=True)
class Goto(Located):
    label: str
    pos: Span


@dataclass(frozen=True)
class Break(Located):
    pos: Span


@dataclass(frozen=True)
class Else(Located):
    pos: Span


@dataclass(frozen=True)
class Printf(Located):
    pos: Span


@dataclass(frozen=True)
class Run(Located):
    """``run P(args)``; ``target`` for ``target = run P(args)``, which stores the new
    process's pid (Spin's run is an expression; ours is a statement or this assignment)."""

    proctype: str
    args: tuple[Expr, ...]
    pos: Span
    target: Optional[VarRef] = None
    #: ``run P() priority N``: the new process's priority (None: 1, as pan's addproc)
    priority: Optional[int] = None


@dataclass(frozen=True)
class SetPriority(Located):
    """``set_priority(pid, value)`` (Spin 6.2): a statement, always executable."""

    pid: "Expr"
    value: "Expr"
    pos: Span


@dataclass(frozen=True)
class Unless(Located):
    """``main unless escape`` (both statements): while control is inside ``main``, the
    first step of ``escape``, when executable, preempts every step of ``main``."""

    main: "Stmt"
    escape: "Stmt"
    pos: Span


@dataclass(frozen=True)
class Choice(Located):
    """``if`` (``loop`` false) or ``do`` (``loop`` true) with its options."""

    options: tuple["Sequence", ...]
    loop: bool
    pos: Span


@dataclass(frozen=True)
class Block(Located):
    """``{ ... }`` (``kind`` "block"), ``atomic { ... }`` or ``d_step { ... }``."""

    kind: str
    body: "Sequence"
    pos: Span


@dataclass(frozen=True)
class ForIn(Located):
    """``for (var in name) { body }``: over an array's indices or a channel's messages.
    Which one depends on declarations, so ``records.expand`` replaces it (``for_array``
    or ``for_channel``) before the control-flow graph is built."""

    var: VarRef
    array: VarRef
    body: "Sequence"
    pos: Span


@dataclass(frozen=True)
class Labeled(Located):
    label: str
    stmt: "Stmt"
    pos: Span


@dataclass(frozen=True)
class Sequence(Located):
    stmts: tuple["Stmt", ...]
    pos: Span


Stmt = Union[Assign, IncDec, Send, Recv, ExprStmt, Goto, Break, Else, Printf, AssertStmt, Run,
             Call, Choice, Block, Labeled, Decl, SetPriority, Unless, ForIn]

# ---------------------------------------------------------------------------- top level


@dataclass(frozen=True)
class Param(Located):
    type: str
    name: str
    pos: Span


@dataclass(frozen=True)
class Proctype(Located):
    """A ``proctype``; ``active`` is ``None`` (started by ``run``) or the instance count."""

    name: str
    active: Optional[Expr]
    params: tuple[Param, ...]
    body: Sequence
    pos: Span
    #: ``priority N`` after the parameters (None: 1)
    priority: Optional[int] = None
    #: ``provided (expr)``: a further guard on every step of the process
    provided: Optional[Expr] = None


@dataclass(frozen=True)
class Init(Located):
    body: Sequence
    pos: Span


@dataclass(frozen=True)
class Never(Located):
    """``never { ... }``: the never claim, run in lock-step with the system (``lower``)."""

    body: Sequence
    pos: Span


@dataclass(frozen=True)
class Trace(Located):
    """``trace { ... }`` (``negated`` False) or ``notrace { ... }``: an event trace
    (``events``)."""

    body: Sequence
    negated: bool
    pos: Span


@dataclass(frozen=True)
class Inline(Located):
    name: str
    params: tuple[str, ...]
    body: Sequence
    pos: Span


@dataclass(frozen=True)
class Typedef(Located):
    name: str
    fields: tuple[VarDecl, ...]
    pos: Span


@dataclass(frozen=True)
class MtypeDecl(Located):
    """``mtype = { names }``, or ``mtype:subtype = { names }`` (``subtype`` None: the
    plain mtype); variables of a named mtype have type ``"mtype:subtype"``."""

    names: tuple[str, ...]
    pos: Span
    subtype: Optional[str] = None


@dataclass(frozen=True)
class Program:
    """Top-level units in source order (``Decl``, ``Proctype``, ``Init``, ...)."""

    units: tuple[object, ...]
    ltl_ignored: int
    #: each ``ltl`` block's text (whitespace collapsed), in source order; not checked
    ltl_texts: tuple[str, ...] = ()


# ---------------------------------------------------------------------------- parsing


#: The LALR grammar.  ``NAME NAME`` at a statement start is a declaration with a
#: ``typedef`` type (a shift/reduce conflict resolved by shifting, as in C).
GRAMMAR = Grammar("frontends.promela", Vocabulary({
    "NAME": "a name", "NUMBER": "a number", "SEMICOLON": "';'", "RBRACE": "'}'", "LBRACE": "'{'",
    "LPAR": "'('", "RPAR": "')'", "COLON": "':'", "COMMA": "','", "EQUAL": "'='", "TYPE": "a type",
}, str, literals=True, sort_words=True, prefix="one of: "))


class _ToAst(SyntaxBuilder):
    # ---- expressions
    def number(self, meta, c):
        return Num(int(c[0]), self.span(meta))

    def char(self, meta, c):
        return Num(char_value(str(c[0])), self.span(meta))

    def true_(self, meta, c):
        return Num(1, self.span(meta))

    def false_(self, meta, c):
        return Num(0, self.span(meta))

    def skip_(self, meta, c):
        return Num(1, self.span(meta))

    def varref(self, meta, c):
        if str(c[0]) == "run":
            # Spin's keyword, read here as a name because the grammar has run only as a statement.
            raise InputError(RUN_AS_EXPRESSION, "", meta.line, meta.column)
        index = field = None
        for x in c[1:]:
            if isinstance(x, tuple) and x[0] == "index":
                index = x[1]
            elif isinstance(x, tuple) and x[0] == "field":
                field = x[1]
        return VarRef(str(c[0]), index, field, self.span(meta))

    index = tagged("index")
    field = tagged("field")

    or_ = infix(BinOp, "||")
    and_ = infix(BinOp, "&&")
    bor = infix(BinOp, "|")
    bxor = infix(BinOp, "^")
    band = infix(BinOp, "&")
    eq = infix(BinOp, "==")
    ne = infix(BinOp, "!=")
    lt = infix(BinOp, "<")
    le = infix(BinOp, "<=")
    gt = infix(BinOp, ">")
    ge = infix(BinOp, ">=")
    shl = infix(BinOp, "<<")
    shr = infix(BinOp, ">>")
    add = infix(BinOp, "+")
    sub = infix(BinOp, "-")
    mul = infix(BinOp, "*")
    div = infix(BinOp, "/")
    mod = infix(BinOp, "%")

    def not_(self, meta, c):
        return UnOp("!", c[0], self.span(meta))

    def neg(self, meta, c):
        if isinstance(c[0], Num):
            return Num(-c[0].value, self.span(meta))
        return UnOp("-", c[0], self.span(meta))

    def compl(self, meta, c):
        return UnOp("~", c[0], self.span(meta))

    def cond_expr(self, meta, c):
        cond, then, else_ = (x for x in c if not isinstance(x, Token))
        return CondExpr(cond, then, else_, self.span(meta))

    def chan_fn(self, meta, c):
        return ChanFn(str(c[0]), c[1], self.span(meta))

    def poll(self, meta, c):
        return Poll(c[0], c[1], False, self.span(meta))

    def poll_random(self, meta, c):
        return Poll(c[0], c[1], True, self.span(meta))

    def special(self, meta, c):
        return Special(str(c[0]), self.span(meta))

    def remote_label(self, meta, c):
        pid = c[1][1] if len(c) == 3 else None
        return RemoteLabel(str(c[0]), pid, str(c[-1]), self.span(meta))

    def remote_var(self, meta, c):
        colon = next(k for k, x in enumerate(c) if isinstance(x, Token) and x.type == "REMOTE_COLON")
        pid = c[1][1] if colon == 2 else None
        index = c[colon + 2][1] if len(c) > colon + 2 else None
        return RemoteVar(str(c[0]), pid, str(c[colon + 1]), index, self.span(meta))

    # ---- receive arguments
    def recv_arg(self, meta, c):
        ref = c[0]
        if isinstance(ref, VarRef) and ref.name in ("true", "false") and ref.index is None and ref.field is None:
            # Spin's lexer reads them as the constants 1 and 0 here too (``c?false,x``:
            # election.pml's ``#define election false``)
            return RecvArg("const", None, Num(int(ref.name == "true"), self.span(meta)), self.span(meta))
        return RecvArg("var", ref, None, self.span(meta))

    def recv_eval(self, meta, c):
        return RecvArg("eval", None, c[0], self.span(meta))

    def recv_const(self, meta, c):
        tok = str(c[0])
        value = char_value(tok) if tok.startswith("'") else int(tok)
        return RecvArg("const", None, Num(value, self.span(meta)), self.span(meta))

    def recv_negconst(self, meta, c):
        return RecvArg("const", None, Num(-int(c[0]), self.span(meta)), self.span(meta))

    recv_args = collect
    recv_args_paren = collect

    # ---- declarations
    def type_name(self, meta, c):
        if len(c) > 1:
            if str(c[0]) != "mtype":
                raise InputError(f"'{c[0]!s}:{c[1][1]}': only mtype has named subtypes", "", meta.line, meta.column)
            return f"mtype:{c[1][1]}"
        return str(c[0])

    def __default_token__(self, tok):
        return tok

    def ch_init(self, meta, c):
        return ChanInit(c[0], tuple(c[1:]), self.span(meta))

    array_init = collect
    decl_size = tagged("size")
    decl_bits = tagged("bits")
    decl_init = tagged("init")

    def ivar(self, meta, c):
        parts = dict(c[1:])
        return (str(c[0]), parts.get("size"), parts.get("bits"), parts.get("init"), self.span(meta))

    def decl_stmt(self, meta, c):
        hidden = False
        if isinstance(c[0], Token) and c[0].type == "VISIBILITY":
            hidden = str(c[0]) == "hidden"
            c = c[1:]
        type_ = c[0]
        vars_ = tuple(VarDecl(type_, n, s, b, i, hidden, p) for (n, s, b, i, p) in c[1:])
        return Decl(vars_, self.span(meta))

    # ---- statements
    def sequence(self, meta, c):
        return Sequence(tuple(x for x in c if not isinstance(x, Token)), self.span(meta))

    def labeled(self, meta, c):
        if c[1] is None:  # an xr/xs claim, which is no statement (Spin refuses the label too)
            raise InputError(f"label {c[0]!s} precedes an xr/xs claim, which is not a statement; label the "
                             "statement after it", "", meta.line, meta.column)
        return Labeled(str(c[0]), c[1], self.span(meta))

    def xr_stmt(self, meta, c):
        return None  # exclusive-use assertions only matter for partial-order reduction

    option = first

    def if_stmt(self, meta, c):
        return Choice(tuple(c), False, self.span(meta))

    def do_stmt(self, meta, c):
        return Choice(tuple(c), True, self.span(meta))

    def atomic_stmt(self, meta, c):
        return Block("atomic", c[0], self.span(meta))

    def dstep_stmt(self, meta, c):
        return Block("d_step", c[0], self.span(meta))

    def block(self, meta, c):
        return Block("block", c[0], self.span(meta))

    def send(self, meta, c):
        return Send(c[0], c[1], False, self.span(meta))

    def send_sorted(self, meta, c):
        return Send(c[0], c[1], True, self.span(meta))

    send_args = collect
    send_args_paren = collect

    def recv(self, meta, c):
        return Recv(c[0], c[1], False, False, self.span(meta))

    def recv_random(self, meta, c):
        return Recv(c[0], c[1], True, False, self.span(meta))

    def recv_copy(self, meta, c):
        return Recv(c[0], c[1], False, True, self.span(meta))

    def recv_random_copy(self, meta, c):
        return Recv(c[0], c[1], True, True, self.span(meta))

    def assign(self, meta, c):
        return Assign(c[0], c[1], self.span(meta))

    def inc(self, meta, c):
        return IncDec(c[0], "++", self.span(meta))

    def dec(self, meta, c):
        return IncDec(c[0], "--", self.span(meta))

    def goto_stmt(self, meta, c):
        return Goto(str(c[0]), self.span(meta))

    def break_stmt(self, meta, c):
        return Break(self.span(meta))

    def else_stmt(self, meta, c):
        return Else(self.span(meta))

    def printf_stmt(self, meta, c):
        return Printf(self.span(meta))

    def assert_stmt(self, meta, c):
        return AssertStmt(c[0], "", self.span(meta))

    def call_stmt(self, meta, c):
        if str(c[0]) == "set_priority":
            if len(c) != 3:
                raise InputError("set_priority takes two arguments (pid, priority)", "", meta.line, meta.column)
            return SetPriority(c[1], c[2], self.span(meta))
        return Call(str(c[0]), tuple(c[1:]), self.span(meta))

    def run_stmt(self, meta, c):
        args, prio = _run_parts(c[1:])
        return Run(str(c[0]), args, self.span(meta), None, prio)

    def assign_run(self, meta, c):
        args, prio = _run_parts(c[2:])
        return Run(str(c[1]), args, self.span(meta), c[0], prio)

    def unless_stmt(self, meta, c):
        return Unless(c[0], c[1], self.span(meta))

    def proc_fn(self, meta, c):
        return ProcFn(str(c[0]), c[1], self.span(meta))

    # ---- Spin 6's for and select, expanded as Spin 6.5.2 expands them (checked by state
    # counts, and by ``spin -I``): for (i : lo .. hi) { body } is i = lo; do :: i <= hi -> body;
    # i++ :: else -> break od; for (i in a) runs i over a's indices, for (x in c) over c's
    # messages (``ForIn``, ``for_array``, ``for_channel``); select (i : lo .. hi) is an if
    # with one option i = v per value when both bounds are numbers at most 32 apart and the
    # variable's name has no underscore (Spin's lexer rewrites only ``name: lo .. hi`` with
    # an alphanumeric name: ``select(one_six: 1 .. 6)`` is the loop, 10 states stored against
    # ``onesix``'s 5 for 1 .. 3), else i = lo; do :: i < hi -> i++ :: break od.
    def for_stmt(self, meta, c):
        var, lo, hi, body = (x for x in c if not isinstance(x, Token))
        pos = self.span(meta)
        return _loop(var, lo, BinOp("<=", var, hi, pos), (), body, pos)

    def for_in(self, meta, c):
        var, array, body = (x for x in c if not isinstance(x, Token))
        return ForIn(var, array, body, self.span(meta))

    def select_stmt(self, meta, c):
        var, lo, hi = (x for x in c if not isinstance(x, Token))
        pos = self.span(meta)
        if isinstance(lo, Num) and isinstance(hi, Num) and "_" not in var.name:
            if hi.value < lo.value:
                raise InputError("bad range in select statement", "", meta.line, meta.column)
            if hi.value - lo.value <= 32:
                return Choice(tuple(Sequence((Assign(var, Num(v, pos), pos),), pos)
                                    for v in range(lo.value, hi.value + 1)), False, pos)
        loop = Choice((Sequence((ExprStmt(BinOp("<", var, hi, pos), pos), IncDec(var, "++", pos)), pos),
                       Sequence((Break(pos),), pos)), True, pos)
        return Block("block", Sequence((Assign(var, lo, pos), loop), pos), pos)

    def expr_stmt(self, meta, c):
        return ExprStmt(c[0], self.span(meta))

    # ---- top level
    def mtype_decl(self, meta, c):
        if str(c[0]) != "mtype":
            raise InputError(f"expected 'mtype' before '= {{', found {c[0]!s}", "", meta.line, meta.column)
        sub = c[1][1] if isinstance(c[1], tuple) else None
        return MtypeDecl(tuple(str(x) for x in c[1 + (sub is not None):]), self.span(meta), sub)

    def mtype_sub(self, meta, c):
        return ("sub", str(c[0]))

    def typedef(self, meta, c):
        fields = tuple(v for d in c[1:] if isinstance(d, Decl) for v in d.vars)
        return Typedef(str(c[0]), fields, self.span(meta))

    def active(self, meta, c):
        return c[0] if c else Num(1, self.span(meta))

    def param_group(self, meta, c):
        return tuple(Param(c[0], str(n), self.span(n)) for n in c[1:])

    def proctype(self, meta, c):
        active = None
        if not isinstance(c[0], Token):
            active, c = c[0], c[1:]
        name = str(c[0])
        extra = {x[0]: x[1] for x in c[1:-1] if isinstance(x, tuple) and x and x[0] in ("priority", "provided")}
        params = tuple(p for group in c[1:-1] if group is not None and not (
            isinstance(group, tuple) and len(group) == 2 and group[0] in ("priority", "provided")) for p in group)
        return Proctype(name, active, params, c[-1], self.span(meta), extra.get("priority"), extra.get("provided"))

    def proc_priority(self, meta, c):
        return ("priority", _priority_value(int(c[0]), meta))

    def run_priority(self, meta, c):
        return ("priority", _priority_value(int(c[0]), meta))

    def proc_provided(self, meta, c):
        return ("provided", c[0])

    def init(self, meta, c):
        return Init(c[0], self.span(meta))

    def never_claim(self, meta, c):
        return Never(c[0], self.span(meta))

    def trace_unit(self, meta, c):
        return Trace(c[0], False, self.span(meta))

    def notrace_unit(self, meta, c):
        return Trace(c[0], True, self.span(meta))

    def inline_def(self, meta, c):
        return Inline(str(c[0]), tuple(str(x) for x in c[1:-1]), c[-1], self.span(meta))

    def start(self, meta, c):
        units = tuple(x for x in c if not isinstance(x, Token))
        ltl = tuple(" ".join(str(x).split()) for x in c if isinstance(x, Token) and x.type == "LTL")
        return Program(units, len(ltl), ltl)


def _loop(counter: VarRef, lo, test, head: tuple, body: Sequence, pos: Span) -> Block:
    """``counter = lo; do :: test -> head; body; counter++ :: else -> break od`` (Spin's
    expansion of ``for``)."""
    loop = Choice((Sequence((ExprStmt(test, pos),) + head + body.stmts + (IncDec(counter, "++", pos),), pos),
                   Sequence((Else(pos), Break(pos)), pos)), True, pos)
    return Block("block", Sequence((Assign(counter, lo, pos), loop), pos), pos)


def for_array(st: ForIn) -> Block:
    """``for (i in a)``: ``i`` runs over ``0 .. len(a) - 1``."""
    pos = st.pos
    return _loop(st.var, Num(0, pos), BinOp("<", st.var, ArrayLength(st.array, pos), pos), (), st.body, pos)


def for_channel(st: ForIn, counter: VarRef, fields: tuple) -> Block:
    """``for (x in c)`` as Spin 6.5.2 writes it (``spin -I``): with a fresh byte
    ``counter``, ``counter = 0; do :: counter < len(c) -> c?x; c!x; body; counter++ :: else
    -> break od`` -- each message is taken from the head and put back at the tail, so the
    channel holds what it held once the loop ends.  ``fields`` are ``x``'s references (its
    fields for a record)."""
    pos = st.pos
    head = (Recv(st.array, tuple(RecvArg("var", f, None, pos) for f in fields), False, False, pos),
            Send(st.array, fields, False, pos))
    return _loop(counter, Num(0, pos), BinOp("<", counter, ChanFn("len", st.array, pos), pos), head,
                 st.body, pos)


def _priority_value(v: int, meta) -> int:
    """A priority tag's value; Spin takes 1..255 (pan stores it in 8 bits)."""
    if not 1 <= v <= 255:
        raise InputError(f"priority {v} out of range (1..255)", "", meta.line, meta.column)
    return v


def _run_parts(c) -> tuple[tuple, Optional[int]]:
    """``run``'s arguments and its ``priority`` tag (None without one)."""
    prio = next((x[1] for x in c if isinstance(x, tuple) and len(x) == 2 and x[0] == "priority"), None)
    return tuple(x for x in c if x is not None and not (isinstance(x, tuple) and len(x) == 2
                                                          and x[0] == "priority")), prio


#: Spin 6.5.2's character escapes: \n \r \t \f; a backslash before anything else is that character
_ESCAPES = {"n": 10, "r": 13, "t": 9, "f": 12}


def char_value(tok: str) -> int:
    """The value of a character literal token ``'c'`` or ``'\\c'``."""
    inner = tok[1:-1]
    if inner.startswith("\\"):
        return _ESCAPES.get(inner[1], ord(inner[1]))
    return ord(inner)


_UNSUPPORTED = re.compile(
    r"\b(c_code|c_decl|c_expr|c_state|c_track|np_)\b"
)


def parse_program(pre: Preprocessed) -> Program:
    """Parse preprocessed text; errors are ``InputError`` located in the user's file."""
    text = pre.text

    def fail(message: str, line: int, column: int):
        path, src_line = pre.origin(line)
        return InputError(message, path, src_line, column)

    for m in _UNSUPPORTED.finditer(_blank_strings(text)):
        line = text.count("\n", 0, m.start()) + 1
        column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        raise fail(f"unsupported construct '{m.group(1)}'", line, column)
    text = mark_remote_variables(text)
    try:
        tree = GRAMMAR.parse(text, "")
    except InputError as e:  # located in the preprocessed text
        run_column = _run_expression(text, e.line, e.column)
        if run_column is not None:
            raise fail(RUN_AS_EXPRESSION, e.line, run_column) from None
        raise fail(_remote_variable(text, e.line, e.column) or e.message, e.line, e.column) from None
    try:
        return _ToAst(text).build(tree)
    except InputError as e:  # the builder's, located in the preprocessed text
        raise fail(e.message, e.line, e.column) from None


RUN_AS_EXPRESSION = ("'run' as an expression is supported only as 'p = run P()' (the new pid); "
                     "write 'run P()' as a statement")


def _run_expression(text: str, line: int, column: int) -> int | None:
    """For a syntax error after a ``run`` used inside an expression on the same line (``x = run
    P() + 1``: Spin's run is an expression, ours a statement), the column of that ``run``."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    before = lines[line - 1][:max(0, column - 1)]
    for m in re.finditer(r"\brun\b", before):
        preceding = before[:m.start()].rstrip()
        # After an operator, '(' or ',': inside an expression; '->' and ';' end a statement.
        if re.search(r"[=(,+\-*/%&|^!<>?]$", preceding) and not preceding.endswith("->"):
            return m.start() + 1
    return None


def _remote_variable(text: str, line: int, column: int) -> str | None:
    """The message for a syntax error at the ``:`` of what reads as a remote variable
    reference ``name[pid]:var`` of no proctype declared before it (Spin's "undeclared
    variable": its lexer knows a proctype's name only once declared), or at a remote
    reference's ``:`` itself (``P[1]:x = 1``, ``P[1]:r.f``: Spin's syntax errors too), or
    None for any other error."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines) or not 1 <= column <= len(lines[line - 1]):
        return None
    before, at = lines[line - 1][:column - 1], lines[line - 1][column - 1:]
    if at.startswith(":") and (m := re.search(r"\b([A-Za-z_]\w*)\s*\[[^\]]*\]\s*$", before)):
        if m.group(1) == "init":
            return "unsupported construct: remote variable reference to init (init[pid]:var)"
        return (f"undeclared variable: {m.group(1)} (a remote reference {m.group(1)}[pid]:var names a proctype "
                "declared before it, as Spin requires)")
    if at.startswith("$"):
        return "syntax error at the ':' of a remote variable reference"
    return None


def _proctype_names(text: str) -> list[tuple[int, str]]:
    """``(offset, name)`` of each proctype declaration of ``text``, in order."""
    return [(m.start(), m.group(1)) for m in re.finditer(r"\bproctype\s+([A-Za-z_]\w*)", _blank_strings(text))]


def mark_remote_variables(text: str) -> str:
    """``text`` with the ``:`` of each remote variable reference ``P[pid]:var`` or ``P:var``
    written ``$`` (same length, so positions hold), which the grammar reads as the remote
    reference's colon.  As Spin's lexer, a name is a proctype's (and then ``P:`` always a
    remote reference, never a label) only after its ``proctype`` declaration."""
    declared = _proctype_names(text)
    if not declared:
        return text
    blank = _blank_strings(text)
    out = list(text)
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*", blank):
        names = {n for at, n in declared if at < m.start()}
        if m.group(1) not in names or blank[max(0, m.start() - 1)] in ".":
            continue
        k = m.end()
        if k < len(blank) and blank[k] == "[":  # the pid: up to the matching bracket
            depth = 0
            while k < len(blank):
                depth += {"[": 1, "]": -1}.get(blank[k], 0)
                k += 1
                if depth == 0:
                    break
            while k < len(blank) and blank[k] in " \t":
                k += 1
        if k + 1 < len(blank) and blank[k] == ":" and blank[k + 1] != ":" \
                and not re.match(r"\s*\d", blank[k + 1:k + 8]):
            out[k] = "$"
    return "".join(out)


def _blank_strings(text: str) -> str:
    return re.sub(r'"(\\.|[^"\\])*"', lambda m: " " * len(m.group(0)), text)


def find_node(node, match) -> Optional[object]:
    """The first AST node inside ``node`` (depth first) for which ``match`` holds, or None."""
    if match(node):
        return node
    if isinstance(node, (tuple, list)):
        return next((f for x in node if (f := find_node(x, match)) is not None), None)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return next((f for fl in dataclasses.fields(node) if (f := find_node(getattr(node, fl.name), match)) is not None),
                    None)
    return None
