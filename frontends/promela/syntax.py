"""Promela source text (already preprocessed) -> a frozen abstract syntax tree.

Every node carries ``line``/``column`` of the *preprocessed* text; ``parse_program`` maps
them back to the user's file through ``Preprocessed.origin`` when it reports an error.
Parsing uses the LALR grammar in ``grammar.lark``; any lark error becomes an ``InputError``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional, Union

import lark
from lark import Lark, Token, Transformer, v_args

from detect.errors import InputError

from frontends.syntax_errors import syntax_error

from frontends.promela.preprocess import Preprocessed

# ---------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Pos:
    line: int
    column: int


@dataclass(frozen=True)
class Num:
    value: int
    pos: Pos


@dataclass(frozen=True)
class VarRef:
    """``name``, ``name[index]`` and record fields ``name[index].field...``."""

    name: str
    index: Optional["Expr"]
    field: Optional["VarRef"]
    pos: Pos


@dataclass(frozen=True)
class UnOp:
    op: str  # "!", "-", "~"
    operand: "Expr"
    pos: Pos


@dataclass(frozen=True)
class BinOp:
    op: str
    left: "Expr"
    right: "Expr"
    pos: Pos


@dataclass(frozen=True)
class CondExpr:
    """``(cond -> then : else_)``."""

    cond: "Expr"
    then: "Expr"
    else_: "Expr"
    pos: Pos


@dataclass(frozen=True)
class ChanFn:
    """``len``/``empty``/``nempty``/``full``/``nfull`` of a channel."""

    fn: str
    chan: VarRef
    pos: Pos


@dataclass(frozen=True)
class Poll:
    """``c?[args]`` (``random`` for ``c??[args]``): is the receive executable?"""

    chan: VarRef
    args: tuple["RecvArg", ...]
    random: bool
    pos: Pos


@dataclass(frozen=True)
class Special:
    """``_pid``, ``_nr_pr`` or ``timeout``."""

    name: str
    pos: Pos


Expr = Union[Num, VarRef, UnOp, BinOp, CondExpr, ChanFn, Poll, Special]


@dataclass(frozen=True)
class RecvArg:
    """``kind`` is ``var`` (store into ``ref``; a bare mtype name is resolved later),
    ``const`` (match ``expr``) or ``eval`` (match the value of ``expr``)."""

    kind: str
    ref: Optional[VarRef]
    expr: Optional[Expr]
    pos: Pos


# ---------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class ChanInit:
    capacity: Expr
    types: tuple[str, ...]
    pos: Pos


@dataclass(frozen=True)
class VarDecl:
    """``type name[size] : bits = init``; ``init`` is an expression, a ``ChanInit``, a tuple
    of expressions (array initialiser list) or ``None``."""

    type: str
    name: str
    size: Optional[Expr]
    bits: Optional[Expr]
    init: object
    hidden: bool
    pos: Pos


@dataclass(frozen=True)
class Decl:
    vars: tuple[VarDecl, ...]
    pos: Pos


# ---------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class Assign:
    target: VarRef
    value: Expr
    pos: Pos


@dataclass(frozen=True)
class IncDec:
    target: VarRef
    op: str  # "++" or "--"
    pos: Pos


@dataclass(frozen=True)
class Send:
    chan: VarRef
    args: tuple[Expr, ...]
    sorted: bool
    pos: Pos


@dataclass(frozen=True)
class Recv:
    chan: VarRef
    args: tuple[RecvArg, ...]
    random: bool
    copy: bool
    pos: Pos


@dataclass(frozen=True)
class ExprStmt:
    expr: Expr
    pos: Pos


@dataclass(frozen=True)
class Goto:
    label: str
    pos: Pos


@dataclass(frozen=True)
class Break:
    pos: Pos


@dataclass(frozen=True)
class Else:
    pos: Pos


@dataclass(frozen=True)
class Printf:
    pos: Pos


@dataclass(frozen=True)
class AssertStmt:
    cond: Expr
    text: str
    pos: Pos


@dataclass(frozen=True)
class Run:
    proctype: str
    args: tuple[Expr, ...]
    pos: Pos


@dataclass(frozen=True)
class Call:
    """An ``inline`` call ``name(args)``."""

    name: str
    args: tuple[Expr, ...]
    pos: Pos


@dataclass(frozen=True)
class Choice:
    """``if`` (``loop`` false) or ``do`` (``loop`` true) with its options."""

    options: tuple["Sequence", ...]
    loop: bool
    pos: Pos


@dataclass(frozen=True)
class Block:
    """``{ ... }`` (``kind`` "block"), ``atomic { ... }`` or ``d_step { ... }``."""

    kind: str
    body: "Sequence"
    pos: Pos


@dataclass(frozen=True)
class Labeled:
    label: str
    stmt: "Stmt"
    pos: Pos


@dataclass(frozen=True)
class Sequence:
    stmts: tuple["Stmt", ...]
    pos: Pos


Stmt = Union[Assign, IncDec, Send, Recv, ExprStmt, Goto, Break, Else, Printf, AssertStmt, Run,
             Call, Choice, Block, Labeled, Decl]

# ---------------------------------------------------------------------------- top level


@dataclass(frozen=True)
class Param:
    type: str
    name: str
    pos: Pos


@dataclass(frozen=True)
class Proctype:
    """A ``proctype``; ``active`` is ``None`` (started by ``run``) or the instance count."""

    name: str
    active: Optional[Expr]
    params: tuple[Param, ...]
    body: Sequence
    pos: Pos


@dataclass(frozen=True)
class Init:
    body: Sequence
    pos: Pos


@dataclass(frozen=True)
class Inline:
    name: str
    params: tuple[str, ...]
    body: Sequence
    pos: Pos


@dataclass(frozen=True)
class Typedef:
    name: str
    fields: tuple[VarDecl, ...]
    pos: Pos


@dataclass(frozen=True)
class MtypeDecl:
    names: tuple[str, ...]
    pos: Pos


@dataclass(frozen=True)
class Program:
    """Top-level units in source order (``Decl``, ``Proctype``, ``Init``, ...)."""

    units: tuple[object, ...]
    ltl_ignored: int


# ---------------------------------------------------------------------------- parsing


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR parser.  ``NAME NAME`` at a statement start is a declaration with a
    ``typedef`` type (a shift/reduce conflict resolved by shifting, as in C)."""
    grammar = (Path(__file__).parent / "grammar.lark").read_text()
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


def _pos(meta_or_tok) -> Pos:
    return Pos(getattr(meta_or_tok, "line", 0) or 0, getattr(meta_or_tok, "column", 0) or 0)


@v_args(meta=True)
class _ToAst(Transformer):
    # ---- expressions
    def number(self, meta, c):
        return Num(int(c[0]), _pos(meta))

    def char(self, meta, c):
        return Num(ord(str(c[0])[1]), _pos(meta))

    def true_(self, meta, c):
        return Num(1, _pos(meta))

    def false_(self, meta, c):
        return Num(0, _pos(meta))

    def skip_(self, meta, c):
        return Num(1, _pos(meta))

    def varref(self, meta, c):
        index = field = None
        for x in c[1:]:
            if isinstance(x, tuple) and x[0] == "index":
                index = x[1]
            elif isinstance(x, tuple) and x[0] == "field":
                field = x[1]
        return VarRef(str(c[0]), index, field, _pos(meta))

    def index(self, meta, c):
        return ("index", c[0])

    def field(self, meta, c):
        return ("field", c[0])

    def _bin(op):
        def build(self, meta, c):
            return BinOp(op, c[0], c[1], _pos(meta))
        return build

    or_ = _bin("||")
    and_ = _bin("&&")
    bor = _bin("|")
    bxor = _bin("^")
    band = _bin("&")
    eq = _bin("==")
    ne = _bin("!=")
    lt = _bin("<")
    le = _bin("<=")
    gt = _bin(">")
    ge = _bin(">=")
    shl = _bin("<<")
    shr = _bin(">>")
    add = _bin("+")
    sub = _bin("-")
    mul = _bin("*")
    div = _bin("/")
    mod = _bin("%")

    def not_(self, meta, c):
        return UnOp("!", c[0], _pos(meta))

    def neg(self, meta, c):
        if isinstance(c[0], Num):
            return Num(-c[0].value, _pos(meta))
        return UnOp("-", c[0], _pos(meta))

    def compl(self, meta, c):
        return UnOp("~", c[0], _pos(meta))

    def cond_expr(self, meta, c):
        cond, then, else_ = (x for x in c if not isinstance(x, lark.Token))
        return CondExpr(cond, then, else_, _pos(meta))

    def chan_fn(self, meta, c):
        return ChanFn(str(c[0]), c[1], _pos(meta))

    def poll(self, meta, c):
        return Poll(c[0], c[1], False, _pos(meta))

    def poll_random(self, meta, c):
        return Poll(c[0], c[1], True, _pos(meta))

    def special(self, meta, c):
        return Special(str(c[0]), _pos(meta))

    # ---- receive arguments
    def recv_arg(self, meta, c):
        return RecvArg("var", c[0], None, _pos(meta))

    def recv_eval(self, meta, c):
        return RecvArg("eval", None, c[0], _pos(meta))

    def recv_const(self, meta, c):
        tok = str(c[0])
        value = ord(tok[1]) if tok.startswith("'") else int(tok)
        return RecvArg("const", None, Num(value, _pos(meta)), _pos(meta))

    def recv_negconst(self, meta, c):
        return RecvArg("const", None, Num(-int(c[0]), _pos(meta)), _pos(meta))

    def recv_args(self, meta, c):
        return tuple(c)

    def recv_args_paren(self, meta, c):
        return tuple(c)

    # ---- declarations
    def type_name(self, meta, c):
        return str(c[0])

    def __default_token__(self, tok):
        return tok

    def ch_init(self, meta, c):
        return ChanInit(c[0], tuple(c[1:]), _pos(meta))

    def array_init(self, meta, c):
        return tuple(c)

    def decl_size(self, meta, c):
        return ("size", c[0])

    def decl_bits(self, meta, c):
        return ("bits", c[0])

    def decl_init(self, meta, c):
        return ("init", c[0])

    def ivar(self, meta, c):
        parts = dict(c[1:])
        return (str(c[0]), parts.get("size"), parts.get("bits"), parts.get("init"), _pos(meta))

    def decl_stmt(self, meta, c):
        hidden = False
        if isinstance(c[0], Token) and c[0].type == "VISIBILITY":
            hidden = str(c[0]) == "hidden"
            c = c[1:]
        type_ = c[0]
        vars_ = tuple(VarDecl(type_, n, s, b, i, hidden, p) for (n, s, b, i, p) in c[1:])
        return Decl(vars_, _pos(meta))

    # ---- statements
    def sequence(self, meta, c):
        return Sequence(tuple(x for x in c if not isinstance(x, Token)), _pos(meta))

    def labeled(self, meta, c):
        return Labeled(str(c[0]), c[1], _pos(meta))

    def xr_stmt(self, meta, c):
        return None  # exclusive-use assertions only matter for partial-order reduction

    def option(self, meta, c):
        return c[0]

    def if_stmt(self, meta, c):
        return Choice(tuple(c), False, _pos(meta))

    def do_stmt(self, meta, c):
        return Choice(tuple(c), True, _pos(meta))

    def atomic_stmt(self, meta, c):
        return Block("atomic", c[0], _pos(meta))

    def dstep_stmt(self, meta, c):
        return Block("d_step", c[0], _pos(meta))

    def block(self, meta, c):
        return Block("block", c[0], _pos(meta))

    def send(self, meta, c):
        return Send(c[0], c[1], False, _pos(meta))

    def send_sorted(self, meta, c):
        return Send(c[0], c[1], True, _pos(meta))

    def send_args(self, meta, c):
        return tuple(c)

    def send_args_paren(self, meta, c):
        return tuple(c)

    def recv(self, meta, c):
        return Recv(c[0], c[1], False, False, _pos(meta))

    def recv_random(self, meta, c):
        return Recv(c[0], c[1], True, False, _pos(meta))

    def recv_copy(self, meta, c):
        return Recv(c[0], c[1], False, True, _pos(meta))

    def recv_random_copy(self, meta, c):
        return Recv(c[0], c[1], True, True, _pos(meta))

    def assign(self, meta, c):
        return Assign(c[0], c[1], _pos(meta))

    def inc(self, meta, c):
        return IncDec(c[0], "++", _pos(meta))

    def dec(self, meta, c):
        return IncDec(c[0], "--", _pos(meta))

    def goto_stmt(self, meta, c):
        return Goto(str(c[0]), _pos(meta))

    def break_stmt(self, meta, c):
        return Break(_pos(meta))

    def else_stmt(self, meta, c):
        return Else(_pos(meta))

    def printf_stmt(self, meta, c):
        return Printf(_pos(meta))

    def assert_stmt(self, meta, c):
        return AssertStmt(c[0], "", _pos(meta))

    def call_stmt(self, meta, c):
        return Call(str(c[0]), tuple(c[1:]), _pos(meta))

    def run_stmt(self, meta, c):
        return Run(str(c[0]), tuple(c[1:]), _pos(meta))

    def expr_stmt(self, meta, c):
        return ExprStmt(c[0], _pos(meta))

    # ---- top level
    def mtype_decl(self, meta, c):
        if str(c[0]) != "mtype":
            raise InputError(f"expected 'mtype' before '= {{', found {c[0]!s}", "", meta.line, meta.column)
        return MtypeDecl(tuple(str(x) for x in c[1:]), _pos(meta))

    def typedef(self, meta, c):
        fields = tuple(v for d in c[1:] if isinstance(d, Decl) for v in d.vars)
        return Typedef(str(c[0]), fields, _pos(meta))

    def active(self, meta, c):
        return c[0] if c else Num(1, _pos(meta))

    def param_group(self, meta, c):
        return tuple(Param(c[0], str(n), _pos(n)) for n in c[1:])

    def proctype(self, meta, c):
        active = None
        if not isinstance(c[0], Token):
            active, c = c[0], c[1:]
        name = str(c[0])
        params = tuple(p for group in c[1:-1] for p in group)
        return Proctype(name, active, params, c[-1], _pos(meta))

    def init(self, meta, c):
        return Init(c[0], _pos(meta))

    def inline_def(self, meta, c):
        return Inline(str(c[0]), tuple(str(x) for x in c[1:-1]), c[-1], _pos(meta))

    def start(self, meta, c):
        units = tuple(x for x in c if not isinstance(x, Token))
        ltl = sum(1 for x in c if isinstance(x, Token) and x.type == "LTL")
        return Program(units, ltl)




_UNSUPPORTED = re.compile(
    r"\b(unless|select|for|c_code|c_decl|c_expr|c_state|c_track|never|trace|notrace|enabled|"
    r"pc_value|_last|np_|priority|provided)\b|(chan\s+\w+\s*=\s*\[[^]]*\]\s*of\s*\{[^}]*\bchan\b)"
)

_TYPEDEF = re.compile(r"\btypedef\s+([A-Za-z_]\w*)")


def parse_program(pre: Preprocessed) -> Program:
    """Parse preprocessed text; errors are ``InputError`` located in the user's file."""
    text = pre.text

    def fail(message: str, line: int, column: int):
        path, src_line = pre.origin(line)
        return InputError(message, path, src_line, column)

    for m in _UNSUPPORTED.finditer(_blank_strings(text)):
        line = text.count("\n", 0, m.start()) + 1
        column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        word = (m.group(1) or m.group(2)).split()[0]
        what = "channels of channels (chan fields in messages)" if word == "chan" else f"'{word}'"
        raise fail(f"unsupported construct {what}", line, column)
    try:
        tree = _parser().parse(text)
    except lark.exceptions.UnexpectedInput as e:
        message, line, column = syntax_error(e, text, _describe_expected)
        raise fail(message, line, column) from None
    return _ToAst().transform(tree)


def _blank_strings(text: str) -> str:
    return re.sub(r'"(\\.|[^"\\])*"', lambda m: " " * len(m.group(0)), text)


_TERMINAL_NAMES = {
    "NAME": "a name", "NUMBER": "a number", "SEMICOLON": "';'", "RBRACE": "'}'", "LBRACE": "'{'",
    "LPAR": "'('", "RPAR": "')'", "COLON": "':'", "COMMA": "','", "EQUAL": "'='", "TYPE": "a type",
}


def _describe_expected(names) -> str:
    expected = sorted({_pretty_terminal(t) for t in names})
    return "one of: " + ", ".join(expected[:8]) + (", ..." if len(expected) > 8 else "")


def _pretty_terminal(name: str) -> str:
    if name in _TERMINAL_NAMES:
        return _TERMINAL_NAMES[name]
    try:
        pattern = _parser().get_terminal(name).pattern
        if pattern.type == "str":
            return repr(pattern.value)
    except KeyError:
        pass
    return name
