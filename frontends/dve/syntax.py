"""DVE source text -> a frozen abstract syntax tree (no name resolution yet).

Every node carries ``pos`` (``frontends.kit.Span``, 1-based) so later stages can report
``InputError`` at the construct that is wrong.  Parsing uses the LALR grammar in
``grammar.lark`` through ``frontends.kit``; any lark error becomes an ``InputError`` naming
what was expected.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from frontends.kit import (
    Assignment, BinaryOp, Grammar, Ident as Named, Located, Num, Span, SyntaxBuilder, UnaryOp, Vocabulary, collect,
    tagged,
)

# ---------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Ref(Located):
    """``name`` or ``name[index]``; ``process`` is set for ``P->name`` and ``P.name``.

    ``dotted`` distinguishes ``P.name`` (a state test or, failing that, a variable of P)
    from ``P->name`` (always a variable of P).
    """

    name: str
    index: Optional["Expr"]
    pos: Span
    process: Optional[str] = None
    dotted: bool = False


#: ``UnaryOp.op`` is "-", "~" or "not"; ``BinaryOp.op`` a C operator, "and", "or" or "imply".
Expr = Union[Num, Ref, UnaryOp, BinaryOp]

# ---------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class VarDecl(Located):
    """``[const] byte|int name[size] = init``; ``init`` is ``None`` (zeros), one expression
    for a scalar, or the brace list of an array."""

    type: str
    name: str
    size: Optional[Expr]
    init: Optional[tuple[Expr, ...]]
    init_is_list: bool
    is_const: bool
    pos: Span


@dataclass(frozen=True)
class ChannelDecl(Located):
    """``channel {types} name[size]``: ``size`` 0 or absent is a rendezvous channel."""

    name: str
    types: tuple[str, ...]
    size: Optional[Expr]
    pos: Span


@dataclass(frozen=True)
class SyncSpec(Located):
    """``c!v`` (``send``) or ``c?x`` (receive); ``items`` are values or target ``Ref``s."""

    channel: str
    send: bool
    items: tuple[Expr, ...]
    pos: Span


@dataclass(frozen=True)
class TransitionDecl(Located):
    source: Named
    target: Named
    guards: tuple[Expr, ...]
    sync: Optional[SyncSpec]
    effects: tuple[Assignment, ...]
    pos: Span


@dataclass(frozen=True)
class AssertDecl:
    state: Named
    condition: Expr
    text: str


@dataclass(frozen=True)
class ProcessDecl(Located):
    name: str
    decls: tuple[VarDecl, ...]
    states: tuple[Named, ...]
    init: Named
    accepts: tuple[Named, ...]
    commits: tuple[Named, ...]
    asserts: tuple[AssertDecl, ...]
    transitions: tuple[TransitionDecl, ...]
    pos: Span


@dataclass(frozen=True)
class SystemDecl(Located):
    """The whole file: top-level items in source order, then ``system async|sync``."""

    items: tuple[Union[VarDecl, ChannelDecl, ProcessDecl], ...]
    synchronous: bool
    property: Optional[Named]
    pos: Span



# ---------------------------------------------------------------------------- parsing


def _other_word(name: str) -> str:
    return name.lower() if name.isupper() else name


GRAMMAR = Grammar("frontends.dve", Vocabulary({
    "SEMICOLON": "';'", "COMMA": "','", "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('",
    "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "NAME": "an identifier",
    "NUMBER": "a number", "EQUAL": "'='", "COLON": "':'", "DOT": "'.'", "BANG": "'!'",
    "RECV": "'?'", "MINUS": "'-'", "PLUS": "'+'", "TILDE": "'~'", "NOT_WORD": "not",
}, _other_word))

_BINARY_SPELLING = {"||": "or", "&&": "and"}


class _ToAst(SyntaxBuilder):
    """Bottom-up conversion of lark's parse tree into the dataclasses above."""

    # -------------------------------------------------------------- expressions
    def number(self, meta, children):
        (tok,) = children
        return Num(int(tok), self.span(tok))

    def true(self, meta, children):
        return Num(1, self.span(children[0]))

    def false(self, meta, children):
        return Num(0, self.span(children[0]))

    def name(self, meta, children):
        (tok,) = children
        return Ref(str(tok), None, self.span(tok))

    def index(self, meta, children):
        tok, idx = children
        return Ref(str(tok), idx, self.span(tok))

    def _member(self, children, dotted: bool) -> Ref:
        """``P.name``/``P->name`` with an optional ``[index]``, at ``P``."""
        proc, member = children[:2]
        idx = children[2] if len(children) > 2 else None
        return Ref(str(member), idx, self.span(proc), str(proc), dotted)

    def dot(self, meta, children):
        return self._member(children, True)

    dot_index = dot

    def arrow(self, meta, children):
        return self._member(children, False)

    arrow_index = arrow

    def unary(self, meta, children):
        op, operand = children
        spelled = "not" if str(op) in ("not", "!") else str(op)
        return UnaryOp(spelled, operand, self.span(op))

    def binary(self, meta, children):
        left, op, right = children
        spelled = _BINARY_SPELLING.get(str(op), str(op))
        return BinaryOp(spelled, left, right, self.span(op))

    def imply(self, meta, children):
        left, right = children
        return BinaryOp("imply", left, right, self.span(meta))

    # -------------------------------------------------------------- declarations
    array_size = tagged("size")

    def scalar_init(self, meta, children):
        return ("init", tuple(children), False)

    def array_init(self, meta, children):
        return ("init", tuple(children), True)

    def declarator(self, meta, children):
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
            VarDecl(str(type_tok), str(tok), size, init, is_list, is_const, self.span(tok))
            for tok, size, init, is_list in declarators
        ]

    def var_decl(self, meta, children):
        return self._decls(children[0], children[1:], False)

    def const_decl(self, meta, children):
        return self._decls(children[0], children[1:], True)

    def channel_types(self, meta, children):
        return ("types", tuple(str(t) for t in children))

    def channel_declarator(self, meta, children):
        tok = children[0]
        size = children[1][1] if len(children) > 1 else None
        return (tok, size)

    def channel_decl(self, meta, children):
        types: tuple[str, ...] = ()
        if children and isinstance(children[0], tuple) and children[0][0] == "types":
            types = children[0][1]
            children = children[1:]
        return [ChannelDecl(str(tok), types, size, self.span(tok)) for tok, size in children]

    # -------------------------------------------------------------- processes
    def _named(self, tok) -> Named:
        return Named(str(tok), self.span(tok))

    def state_decl(self, meta, children):
        return ("states", tuple(map(self._named, children)))

    def init_decl(self, meta, children):
        return ("init", self._named(children[0]))

    def accept_decl(self, meta, children):
        return ("accepts", tuple(map(self._named, children)))

    def commit_decl(self, meta, children):
        return ("commits", tuple(map(self._named, children)))

    def assert_item(self, meta, children):
        tok, cond = children
        return AssertDecl(self._named(tok), cond, " ".join(self.source(meta).split()))

    def assert_decl(self, meta, children):
        return ("asserts", tuple(children))

    def trans_decl(self, meta, children):
        return ("transitions", tuple(children))

    def guard(self, meta, children):
        return ("guards", tuple(children))

    sync_values = collect
    sync_targets = collect

    def lvalue(self, meta, children):
        tok = children[0]
        return Ref(str(tok), children[1] if len(children) > 1 else None, self.span(tok))

    def _sync(self, children, send: bool):
        kw, chan, _mark = children[:3]
        items = children[3] if len(children) > 3 else ()
        return ("sync", SyncSpec(str(chan), send, items, self.span(kw)))

    def send(self, meta, children):
        return self._sync(children, True)

    def receive(self, meta, children):
        return self._sync(children, False)

    def assignment(self, meta, children):
        target, value = children
        return Assignment(target, value, target.pos)

    def effect(self, meta, children):
        return ("effects", tuple(children))

    def transition(self, meta, children):
        src, dst = children[0], children[1]
        parts = dict(children[2:])
        return TransitionDecl(
            self._named(src), self._named(dst), parts.get("guards", ()), parts.get("sync"),
            parts.get("effects", ()), self.span(src),
        )

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
            sections["asserts"], sections["transitions"], self.span(name),
        )

    def system(self, meta, children):
        kind = children[0]
        prop = children[1] if len(children) > 1 else None
        named = self._named(prop) if prop is not None else None
        return ("system", str(kind) == "sync", named, self.span(kind))

    def start(self, meta, children):
        items: list = []
        for child in children[:-1]:
            if isinstance(child, list):
                items.extend(child)
            else:
                items.append(child)
        _, synchronous, prop, pos = children[-1]
        return SystemDecl(tuple(items), synchronous, prop, pos)


def parse_syntax(text: str, path: str = "") -> SystemDecl:
    """Parse DVE ``text``; syntax errors become ``InputError`` at ``path:line:col``."""
    return _ToAst(text, path).build(GRAMMAR.parse(text, path))
