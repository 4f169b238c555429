"""DVE source text -> a frozen abstract syntax tree (no name resolution yet).

Every node carries ``line``/``column`` (1-based) so later stages can report ``InputError``
at the construct that is wrong.  Parsing uses the LALR grammar in ``grammar.lark``; any
lark error becomes an ``InputError`` naming what was expected.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional, Union

import lark
from lark import Lark, Token, Transformer, v_args

from detect.errors import InputError

from frontends.syntax_errors import syntax_error

# ---------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Num:
    value: int
    line: int
    column: int


@dataclass(frozen=True)
class Ref:
    """``name`` or ``name[index]``; ``process`` is set for ``P->name`` and ``P.name``.

    ``dotted`` distinguishes ``P.name`` (a state test or, failing that, a variable of P)
    from ``P->name`` (always a variable of P).
    """

    name: str
    index: Optional["Expr"]
    line: int
    column: int
    process: Optional[str] = None
    dotted: bool = False


@dataclass(frozen=True)
class UnaryOp:
    op: str  # "-", "~", "not"
    operand: "Expr"
    line: int
    column: int


@dataclass(frozen=True)
class BinaryOp:
    op: str  # C operators plus "and", "or", "imply"
    left: "Expr"
    right: "Expr"
    line: int
    column: int


Expr = Union[Num, Ref, UnaryOp, BinaryOp]

# ---------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class VarDecl:
    """``[const] byte|int name[size] = init``; ``init`` is ``None`` (zeros), one expression
    for a scalar, or the brace list of an array."""

    type: str
    name: str
    size: Optional[Expr]
    init: Optional[tuple[Expr, ...]]
    init_is_list: bool
    is_const: bool
    line: int
    column: int


@dataclass(frozen=True)
class ChannelDecl:
    """``channel {types} name[size]``: ``size`` 0 or absent is a rendezvous channel."""

    name: str
    types: tuple[str, ...]
    size: Optional[Expr]
    line: int
    column: int


@dataclass(frozen=True)
class Named:
    """An identifier occurrence (a state name in a list, say) with its position."""

    name: str
    line: int
    column: int


@dataclass(frozen=True)
class Assignment:
    target: Ref
    value: Expr
    line: int
    column: int


@dataclass(frozen=True)
class SyncSpec:
    """``c!v`` (``send``) or ``c?x`` (receive); ``items`` are values or target ``Ref``s."""

    channel: str
    send: bool
    items: tuple[Expr, ...]
    line: int
    column: int


@dataclass(frozen=True)
class TransitionDecl:
    source: Named
    target: Named
    guards: tuple[Expr, ...]
    sync: Optional[SyncSpec]
    effects: tuple[Assignment, ...]
    line: int
    column: int


@dataclass(frozen=True)
class AssertDecl:
    state: Named
    condition: Expr
    text: str


@dataclass(frozen=True)
class ProcessDecl:
    name: str
    decls: tuple[VarDecl, ...]
    states: tuple[Named, ...]
    init: Named
    accepts: tuple[Named, ...]
    commits: tuple[Named, ...]
    asserts: tuple[AssertDecl, ...]
    transitions: tuple[TransitionDecl, ...]
    line: int
    column: int


@dataclass(frozen=True)
class SystemDecl:
    """The whole file: top-level items in source order, then ``system async|sync``."""

    items: tuple[Union[VarDecl, ChannelDecl, ProcessDecl], ...]
    synchronous: bool
    property: Optional[Named]
    line: int
    column: int


# ---------------------------------------------------------------------------- parsing


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = (Path(__file__).with_name("grammar.lark")).read_text()
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


def _pos(meta_or_token) -> tuple[int, int]:
    if isinstance(meta_or_token, Token):
        return meta_or_token.line, meta_or_token.column
    return getattr(meta_or_token, "line", 0), getattr(meta_or_token, "column", 0)


_BINARY_SPELLING = {"||": "or", "&&": "and"}


class _ToAst(Transformer):
    """Bottom-up conversion of lark's parse tree into the dataclasses above."""

    def __init__(self, text: str):
        super().__init__()
        self._text = text

    # -------------------------------------------------------------- expressions
    def number(self, children):
        (tok,) = children
        return Num(int(tok), tok.line, tok.column)

    def true(self, children):
        return Num(1, children[0].line, children[0].column)

    def false(self, children):
        return Num(0, children[0].line, children[0].column)

    def name(self, children):
        (tok,) = children
        return Ref(str(tok), None, tok.line, tok.column)

    def index(self, children):
        tok, idx = children
        return Ref(str(tok), idx, tok.line, tok.column)

    def dot(self, children):
        proc, member = children
        return Ref(str(member), None, proc.line, proc.column, str(proc), True)

    def dot_index(self, children):
        proc, member, idx = children
        return Ref(str(member), idx, proc.line, proc.column, str(proc), True)

    def arrow(self, children):
        proc, member = children
        return Ref(str(member), None, proc.line, proc.column, str(proc), False)

    def arrow_index(self, children):
        proc, member, idx = children
        return Ref(str(member), idx, proc.line, proc.column, str(proc), False)

    def unary(self, children):
        op, operand = children
        spelled = "not" if str(op) in ("not", "!") else str(op)
        return UnaryOp(spelled, operand, op.line, op.column)

    def binary(self, children):
        left, op, right = children
        spelled = _BINARY_SPELLING.get(str(op), str(op))
        return BinaryOp(spelled, left, right, op.line, op.column)

    @v_args(meta=True)
    def imply(self, meta, children):
        left, right = children
        return BinaryOp("imply", left, right, *_pos(meta))

    # -------------------------------------------------------------- declarations
    def array_size(self, children):
        return ("size", children[0])

    def scalar_init(self, children):
        return ("init", tuple(children), False)

    def array_init(self, children):
        return ("init", tuple(children), True)

    def declarator(self, children):
        tok = children[0]
        size = init = None
        is_list = False
        for extra in children[1:]:
            if extra[0] == "size":
                size = extra[1]
            else:
                init, is_list = extra[1], extra[2]
        return (tok, size, init, is_list)

    def _decls(self, type_tok, declarators, is_const):
        return [
            VarDecl(str(type_tok), str(tok), size, init, is_list, is_const, tok.line, tok.column)
            for tok, size, init, is_list in declarators
        ]

    def var_decl(self, children):
        return self._decls(children[0], children[1:], False)

    def const_decl(self, children):
        return self._decls(children[0], children[1:], True)

    def channel_types(self, children):
        return ("types", tuple(str(t) for t in children))

    def channel_declarator(self, children):
        tok = children[0]
        size = children[1][1] if len(children) > 1 else None
        return (tok, size)

    def channel_decl(self, children):
        types: tuple[str, ...] = ()
        if children and isinstance(children[0], tuple) and children[0][0] == "types":
            types = children[0][1]
            children = children[1:]
        return [ChannelDecl(str(tok), types, size, tok.line, tok.column) for tok, size in children]

    # -------------------------------------------------------------- processes
    @staticmethod
    def _named(tokens) -> tuple[Named, ...]:
        return tuple(Named(str(t), t.line, t.column) for t in tokens)

    def state_decl(self, children):
        return ("states", self._named(children))

    def init_decl(self, children):
        return ("init", self._named(children)[0])

    def accept_decl(self, children):
        return ("accepts", self._named(children))

    def commit_decl(self, children):
        return ("commits", self._named(children))

    @v_args(meta=True)
    def assert_item(self, meta, children):
        tok, cond = children
        text = self._text[meta.start_pos:meta.end_pos]
        return AssertDecl(Named(str(tok), tok.line, tok.column), cond, " ".join(text.split()))

    def assert_decl(self, children):
        return ("asserts", tuple(children))

    def trans_decl(self, children):
        return ("transitions", tuple(children))

    def guard(self, children):
        return ("guards", tuple(children))

    def sync_values(self, children):
        return tuple(children)

    def sync_targets(self, children):
        return tuple(children)

    def lvalue(self, children):
        tok = children[0]
        return Ref(str(tok), children[1] if len(children) > 1 else None, tok.line, tok.column)

    def _sync(self, children, send: bool):
        kw, chan, _mark = children[:3]
        items = children[3] if len(children) > 3 else ()
        return ("sync", SyncSpec(str(chan), send, items, kw.line, kw.column))

    def send(self, children):
        return self._sync(children, True)

    def receive(self, children):
        return self._sync(children, False)

    def assignment(self, children):
        target, value = children
        return Assignment(target, value, target.line, target.column)

    def effect(self, children):
        return ("effects", tuple(children))

    def transition(self, children):
        src, dst = children[0], children[1]
        parts = dict(children[2:])
        return TransitionDecl(
            Named(str(src), src.line, src.column),
            Named(str(dst), dst.line, dst.column),
            parts.get("guards", ()),
            parts.get("sync"),
            parts.get("effects", ()),
            src.line,
            src.column,
        )

    @v_args(meta=True)
    def process(self, meta, children):
        name = children[0]
        decls: list[VarDecl] = []
        sections: dict[str, tuple] = {"accepts": (), "commits": (), "asserts": (), "transitions": ()}
        states: tuple[Named, ...] = ()
        init = None
        for child in children[1:]:
            if isinstance(child, list):
                decls.extend(child)
            elif child[0] == "states":
                states = child[1]
            elif child[0] == "init":
                init = child[1]
            else:
                sections[child[0]] = sections[child[0]] + child[1]
        return ProcessDecl(
            str(name), tuple(decls), states, init, sections["accepts"], sections["commits"],
            sections["asserts"], sections["transitions"], name.line, name.column,
        )

    @v_args(meta=True)
    def system(self, meta, children):
        kind = children[0]
        prop = children[1] if len(children) > 1 else None
        return (
            "system",
            str(kind) == "sync",
            Named(str(prop), prop.line, prop.column) if prop is not None else None,
            kind.line,
            kind.column,
        )

    def start(self, children):
        items: list = []
        for child in children[:-1]:
            if isinstance(child, list):
                items.extend(child)
            else:
                items.append(child)
        _, synchronous, prop, line, column = children[-1]
        return SystemDecl(tuple(items), synchronous, prop, line, column)


def _describe_expected(expected) -> str:
    names = sorted(expected or ())
    pretty = {
        "SEMICOLON": "';'", "COMMA": "','", "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('",
        "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "NAME": "an identifier",
        "NUMBER": "a number", "EQUAL": "'='", "COLON": "':'", "DOT": "'.'", "BANG": "'!'",
        "RECV": "'?'", "MINUS": "'-'", "PLUS": "'+'", "TILDE": "'~'", "NOT_WORD": "not",
    }
    shown = [pretty.get(n, n.lower() if n.isupper() else n) for n in names[:8]]
    more = ", ..." if len(names) > 8 else ""
    return ", ".join(shown) + more


def parse_syntax(text: str, path: str = "") -> SystemDecl:
    """Parse DVE ``text``; syntax errors become ``InputError`` at ``path:line:col``."""
    try:
        tree = _parser().parse(text)
    except lark.exceptions.UnexpectedInput as e:
        message, line, column = syntax_error(e, text, _describe_expected)
        raise InputError(message, path, line, column) from None
    return _ToAst(text).transform(tree)
