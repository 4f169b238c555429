"""Murphi source text -> a frozen abstract syntax tree (no name resolution yet).

Every node carries ``line``/``column`` (1-based) so that later stages report ``InputError``
at the construct that is wrong.  Parsing uses the LALR grammar in ``grammar.lark``; a lark
error becomes an ``InputError`` naming what was expected, and constructs outside the
supported subset (``Put``) are refused by name.  ``Switch`` is desugared here into
``If``/``Elsif`` (see ``_ToAst.switch_stmt``); procedures, functions, calls, ``Return`` and
``Alias`` stay in the tree for ``linearise`` to inline.
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

# ---------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Num:
    value: int
    line: int
    column: int


@dataclass(frozen=True)
class Field:
    """``.name`` in a designator."""

    name: str
    line: int
    column: int


@dataclass(frozen=True)
class Subscript:
    """``[index]`` in a designator."""

    index: "Expr"
    line: int
    column: int


@dataclass(frozen=True)
class Designator:
    """``name`` followed by field selections and subscripts, in source order."""

    name: str
    selectors: tuple[Union[Field, Subscript], ...]
    line: int
    column: int


@dataclass(frozen=True)
class UnaryOp:
    op: str  # "-", "!"
    operand: "Expr"
    line: int
    column: int


@dataclass(frozen=True)
class BinaryOp:
    """``op`` is one of ``+ - * / % = != < <= > >= & | ->``."""

    op: str
    left: "Expr"
    right: "Expr"
    line: int
    column: int


@dataclass(frozen=True)
class Conditional:
    cond: "Expr"
    then: "Expr"
    else_: "Expr"
    line: int
    column: int


@dataclass(frozen=True)
class Quantified:
    """``Forall``/``Exists`` (``kind``) over ``quantifiers`` of ``body``."""

    kind: str
    quantifiers: tuple["Quantifier", ...]
    body: "Expr"
    line: int
    column: int


@dataclass(frozen=True)
class IsUndefined:
    target: Designator
    line: int
    column: int


@dataclass(frozen=True)
class Call:
    """A function call ``name(args)`` in an expression (inlined by ``linearise``)."""

    name: str
    args: tuple["Expr", ...]
    line: int
    column: int


Expr = Union[Num, Designator, UnaryOp, BinaryOp, Conditional, Quantified, IsUndefined, Call]

# ---------------------------------------------------------------------------- types


@dataclass(frozen=True)
class TypeName:
    name: str
    line: int
    column: int


@dataclass(frozen=True)
class Subrange:
    lo: Expr
    hi: Expr
    line: int
    column: int


@dataclass(frozen=True)
class EnumType:
    names: tuple[tuple[str, int, int], ...]  # (name, line, column)
    line: int
    column: int


@dataclass(frozen=True)
class ScalarsetType:
    size: Expr
    line: int
    column: int


@dataclass(frozen=True)
class ArrayType:
    index: "TypeExpr"
    element: "TypeExpr"
    line: int
    column: int


@dataclass(frozen=True)
class RecordType:
    fields: tuple["VarDecl", ...]
    line: int
    column: int


TypeExpr = Union[TypeName, Subrange, EnumType, ScalarsetType, ArrayType, RecordType]

# ---------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class ConstDecl:
    name: str
    value: Expr
    line: int
    column: int


@dataclass(frozen=True)
class TypeDecl:
    name: str
    type: TypeExpr
    line: int
    column: int


@dataclass(frozen=True)
class VarDecl:
    names: tuple[tuple[str, int, int], ...]  # (name, line, column)
    type: TypeExpr
    line: int
    column: int


Decl = Union[ConstDecl, TypeDecl, VarDecl]


@dataclass(frozen=True)
class QuantType:
    """``name : type`` -- every value of a finite type."""

    name: str
    type: TypeExpr
    line: int
    column: int


@dataclass(frozen=True)
class QuantRange:
    """``name := lo To hi [By step]``."""

    name: str
    lo: Expr
    hi: Expr
    step: Optional[Expr]
    line: int
    column: int


Quantifier = Union[QuantType, QuantRange]

# ---------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class AssignStmt:
    target: Designator
    value: Expr
    line: int
    column: int


@dataclass(frozen=True)
class IfStmt:
    """``If c1 Then s1 Elsif c2 Then s2 ... Else e End``."""

    branches: tuple[tuple[Expr, tuple["Stmt", ...]], ...]
    else_: tuple["Stmt", ...]
    line: int
    column: int


@dataclass(frozen=True)
class WhileStmt:
    cond: Expr
    body: tuple["Stmt", ...]
    line: int
    column: int


@dataclass(frozen=True)
class ForStmt:
    quantifiers: tuple[Quantifier, ...]
    body: tuple["Stmt", ...]
    line: int
    column: int


@dataclass(frozen=True)
class ClearStmt:
    target: Designator
    line: int
    column: int


@dataclass(frozen=True)
class UndefineStmt:
    target: Designator
    line: int
    column: int


@dataclass(frozen=True)
class ErrorStmt:
    text: str
    line: int
    column: int


@dataclass(frozen=True)
class AssertStmt:
    cond: Expr
    text: str
    line: int
    column: int


@dataclass(frozen=True)
class CallStmt:
    """A procedure call ``name(args);``."""

    name: str
    args: tuple[Expr, ...]
    line: int
    column: int


@dataclass(frozen=True)
class ReturnStmt:
    """``Return [value]``: ends the procedure or function (``value``: a function's result)."""

    value: Optional[Expr]
    line: int
    column: int


@dataclass(frozen=True)
class AliasStmt:
    """``Alias a: e; b: f Do body End``: each name stands for its designator or value in
    ``body`` (later aliases may use earlier ones)."""

    aliases: tuple[tuple[str, Expr, int, int], ...]  # (name, target, line, column)
    body: tuple["Stmt", ...]
    line: int
    column: int


Stmt = Union[AssignStmt, IfStmt, WhileStmt, ForStmt, ClearStmt, UndefineStmt, ErrorStmt, AssertStmt,
             CallStmt, ReturnStmt, AliasStmt]

# ---------------------------------------------------------------------------- routines


@dataclass(frozen=True)
class Formal:
    """One formal parameter; ``by_reference`` for ``Var`` parameters."""

    name: str
    type: TypeExpr
    by_reference: bool
    line: int
    column: int


@dataclass(frozen=True)
class RoutineDecl:
    """A ``Procedure`` (``result`` is ``None``) or ``Function`` declaration."""

    name: str
    formals: tuple[Formal, ...]
    result: Optional[TypeExpr]
    decls: tuple[Decl, ...]
    body: tuple[Stmt, ...]
    line: int
    column: int

    @property
    def kind(self) -> str:
        return "procedure" if self.result is None else "function"

# ---------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class SimpleRule:
    name: str
    guard: Optional[Expr]
    decls: tuple[Decl, ...]
    body: tuple[Stmt, ...]
    line: int
    column: int


@dataclass(frozen=True)
class StartState:
    name: str
    decls: tuple[Decl, ...]
    body: tuple[Stmt, ...]
    line: int
    column: int


@dataclass(frozen=True)
class InvariantDecl:
    name: str
    cond: Expr
    text: str
    line: int
    column: int


@dataclass(frozen=True)
class RuleSet:
    quantifiers: tuple[Quantifier, ...]
    rules: tuple["Rule", ...]
    line: int
    column: int


Rule = Union[SimpleRule, StartState, InvariantDecl, RuleSet]


@dataclass(frozen=True)
class Program:
    """The whole file: declarations and rules in source order."""

    items: tuple[Union[Decl, RoutineDecl, Rule], ...]


# ---------------------------------------------------------------------------- parsing


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = (Path(__file__).with_name("grammar.lark")).read_text()
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


def _pos(meta_or_token) -> tuple[int, int]:
    if isinstance(meta_or_token, Token):
        return meta_or_token.line, meta_or_token.column
    return getattr(meta_or_token, "line", 0) or 0, getattr(meta_or_token, "column", 0) or 0


def _string(tok: Token) -> str:
    return str(tok)[1:-1]


class _Unsupported(Exception):
    def __init__(self, what: str, line: int, column: int):
        super().__init__(what)
        self.what, self.line, self.column = what, line, column


#: What to say about a construct outside the subset, by its (lower-case) keyword.
_UNSUPPORTED = {
    "put": "'Put' is not supported (it only prints)",
}


class _ToAst(Transformer):
    """Bottom-up conversion of lark's parse tree into the dataclasses above."""

    def __init__(self, text: str):
        super().__init__()
        self._text = text

    # -------------------------------------------------------------- expressions
    def number(self, children):
        (tok,) = children
        return Num(int(tok), tok.line, tok.column)

    def field(self, children):
        (tok,) = children
        return Field(str(tok), tok.line, tok.column)

    @v_args(meta=True)
    def subscript(self, meta, children):
        (index,) = children
        return Subscript(index, *_pos(meta))

    def designator(self, children):
        tok = children[0]
        return Designator(str(tok), tuple(children[1:]), tok.line, tok.column)

    @v_args(meta=True)
    def negate(self, meta, children):
        return UnaryOp("-", children[0], *_pos(meta))

    @v_args(meta=True)
    def not_(self, meta, children):
        return UnaryOp("!", children[0], *_pos(meta))

    def compare(self, children):
        left, op, right = children
        return BinaryOp(str(op), left, right, op.line, op.column)

    def arith(self, children):
        left, op, right = children
        return BinaryOp(str(op), left, right, op.line, op.column)

    @v_args(meta=True)
    def and_(self, meta, children):
        return BinaryOp("&", children[0], children[1], *_pos(meta))

    @v_args(meta=True)
    def or_(self, meta, children):
        return BinaryOp("|", children[0], children[1], *_pos(meta))

    @v_args(meta=True)
    def implies(self, meta, children):
        return BinaryOp("->", children[0], children[1], *_pos(meta))

    @v_args(meta=True)
    def conditional(self, meta, children):
        return Conditional(children[0], children[1], children[2], *_pos(meta))

    def _quantified(self, kind, children):
        kw, quantifiers, body = children[0], children[1], children[3]
        return Quantified(kind, quantifiers, body, kw.line, kw.column)

    def forall(self, children):
        return self._quantified("forall", children)

    def exists(self, children):
        return self._quantified("exists", children)

    def isundefined(self, children):
        kw, target = children
        return IsUndefined(target, kw.line, kw.column)

    def call(self, children):
        tok = children[0]
        return Call(str(tok), tuple(children[1:]), tok.line, tok.column)

    # -------------------------------------------------------------- types
    def type_name(self, children):
        (tok,) = children
        return TypeName(str(tok), tok.line, tok.column)

    @v_args(meta=True)
    def subrange(self, meta, children):
        lo, _dots, hi = children
        return Subrange(lo, hi, *_pos(meta))

    def enum_type(self, children):
        kw = children[0]
        return EnumType(tuple((str(t), t.line, t.column) for t in children[1:]), kw.line, kw.column)

    def scalarset(self, children):
        kw, size = children
        return ScalarsetType(size, kw.line, kw.column)

    def array_type(self, children):
        kw, index, _of, element = children
        return ArrayType(index, element, kw.line, kw.column)

    def record_type(self, children):
        kw = children[0]
        return RecordType(tuple(children[1:-1]), kw.line, kw.column)

    # -------------------------------------------------------------- declarations
    def const_decl(self, children):
        tok, value = children
        return ConstDecl(str(tok), value, tok.line, tok.column)

    def type_decl(self, children):
        tok, type_ = children
        return TypeDecl(str(tok), type_, tok.line, tok.column)

    def var_decl(self, children):
        names = tuple((str(t), t.line, t.column) for t in children[:-1])
        return VarDecl(names, children[-1], children[0].line, children[0].column)

    def const_section(self, children):
        return list(children[1:])

    type_section = const_section
    var_section = const_section

    def local_decls(self, children):
        return tuple(d for section in children for d in section)

    def unsupported(self, children):
        (tok,) = children
        raise _Unsupported(_UNSUPPORTED[str(tok).lower()], tok.line, tok.column)

    def unsupported_stmt(self, children):
        tok = children[0]
        raise _Unsupported(_UNSUPPORTED[str(tok).lower()], tok.line, tok.column)

    # -------------------------------------------------------------- routines
    def formal(self, children):
        by_reference = isinstance(children[0], Token) and children[0].type == "VAR"
        names = children[1:-1] if by_reference else children[:-1]
        return tuple(Formal(str(t), children[-1], by_reference, t.line, t.column) for t in names)

    def formals(self, children):
        return tuple(f for group in children for f in group)

    def routine_body(self, children):
        decls, _begin, body, _end = children
        return decls, body

    def routine_body_bare(self, children):
        body, _end = children
        return (), body

    def procedure(self, children):
        kw, name = children[0], children[1]
        formals = children[2] if len(children) == 4 else ()
        decls, body = children[-1]
        return [RoutineDecl(str(name), formals, None, decls, body, kw.line, kw.column)]

    def function(self, children):
        kw, name = children[0], children[1]
        formals = children[2] if len(children) == 5 else ()
        decls, body = children[-1]
        return [RoutineDecl(str(name), formals, children[-2], decls, body, kw.line, kw.column)]

    def call_stmt(self, children):
        tok = children[0]
        return CallStmt(str(tok), tuple(children[1:]), tok.line, tok.column)

    def return_stmt(self, children):
        kw = children[0]
        return ReturnStmt(children[1] if len(children) > 1 else None, kw.line, kw.column)

    def alias_decl(self, children):
        tok, target = children
        return (str(tok), target, tok.line, tok.column)

    def alias_stmt(self, children):
        kw, body = children[0], children[-2]
        aliases = tuple(children[1:-3])  # then Do, the body, End
        return AliasStmt(aliases, body, kw.line, kw.column)

    def case(self, children):
        kw, labels, body = children[0], children[1:-1], children[-1]
        return ("case", kw, tuple(labels), body)

    def switch_stmt(self, children):
        """``Switch e Case c1, c2: s ... Else t End`` as ``If e = c1 | e = c2 Then s ...
        Else t End``: exact, since the labels are constants and ``e`` reads the same state
        each time it is compared (a fault in ``e`` happens at its first comparison, as in
        Murphi's single evaluation)."""
        kw, subject = children[0], children[1]
        branches = []
        else_: tuple = ()
        for part in children[2:-1]:
            if part[0] == "case":
                _, case_kw, labels, body = part
                cond = None
                for label in labels:
                    test = BinaryOp("=", subject, label, case_kw.line, case_kw.column)
                    cond = test if cond is None else BinaryOp("|", cond, test, case_kw.line, case_kw.column)
                branches.append((cond, body))
            else:
                else_ = part[1]
        if not branches:  # only an Else: it always runs
            return IfStmt(((Num(1, kw.line, kw.column), else_),), (), kw.line, kw.column)
        return IfStmt(tuple(branches), else_, kw.line, kw.column)

    def empty_item(self, children):
        return []

    # -------------------------------------------------------------- quantifiers
    def quant_type(self, children):
        tok, type_ = children
        return QuantType(str(tok), type_, tok.line, tok.column)

    def quant_range(self, children):
        tok, lo, _to, hi = children[:4]
        step = children[5] if len(children) > 4 else None
        return QuantRange(str(tok), lo, hi, step, tok.line, tok.column)

    def quantifiers(self, children):
        return tuple(children)

    # -------------------------------------------------------------- statements
    def stmts(self, children):
        return tuple(children)

    def assign(self, children):
        target, value = children
        return AssignStmt(target, value, target.line, target.column)

    def elsif(self, children):
        _kw, cond, _then, body = children
        return ("elsif", cond, body)

    def else_part(self, children):
        _kw, body = children
        return ("else", body)

    def if_stmt(self, children):
        kw, cond, _then, body = children[:4]
        branches = [(cond, body)]
        else_: tuple = ()
        for part in children[4:-1]:
            if part[0] == "elsif":
                branches.append((part[1], part[2]))
            else:
                else_ = part[1]
        return IfStmt(tuple(branches), else_, kw.line, kw.column)

    def while_stmt(self, children):
        kw, cond, _do, body, _end = children
        return WhileStmt(cond, body, kw.line, kw.column)

    def for_stmt(self, children):
        kw, quantifiers, _do, body, _end = children
        return ForStmt(quantifiers, body, kw.line, kw.column)

    def clear_stmt(self, children):
        kw, target = children
        return ClearStmt(target, kw.line, kw.column)

    def undefine_stmt(self, children):
        kw, target = children
        return UndefineStmt(target, kw.line, kw.column)

    def error_stmt(self, children):
        kw, text = children
        return ErrorStmt(_string(text), kw.line, kw.column)

    def assert_stmt(self, children):
        kw, cond = children[0], children[1]
        text = _string(children[2]) if len(children) > 2 else ""
        return AssertStmt(cond, text, kw.line, kw.column)

    # -------------------------------------------------------------- rules
    def rule_name(self, children):
        return ("name", _string(children[0]))

    def guard(self, children):
        return ("guard", children[0])

    def simple_rule(self, children):
        kw = children[0]
        name, guard, decls, body = "", None, (), ()
        for child in children[1:]:
            if isinstance(child, tuple) and child and child[0] == "name":
                name = child[1]
            elif isinstance(child, tuple) and child and child[0] == "guard":
                guard = child[1]
        decls, body = children[-4], children[-2]
        return SimpleRule(name, guard, decls, body, kw.line, kw.column)

    def start_state(self, children):
        kw = children[0]
        name = children[1][1] if isinstance(children[1], tuple) and children[1][:1] == ("name",) else ""
        decls, body = children[-4], children[-2]
        return StartState(name, decls, body, kw.line, kw.column)

    @v_args(meta=True)
    def invariant(self, meta, children):
        kw = children[0]
        name = children[1][1] if len(children) > 2 else ""
        source = self._text[meta.start_pos:meta.end_pos]
        # The condition's text: the source after the keyword and the optional quoted name.
        source = re.sub(r'^\w+\s*("[^"\n]*")?', "", source)
        text = " ".join(re.sub(r"--[^\n]*", "", source).split())
        return InvariantDecl(name, children[-1], text, kw.line, kw.column)

    def rules(self, children):
        return tuple(children)

    def ruleset(self, children):
        kw, quantifiers, _do, rules, _end = children
        return RuleSet(quantifiers, rules, kw.line, kw.column)

    def start(self, children):
        items: list = []
        for child in children:
            if isinstance(child, list):
                items.extend(child)
            else:
                items.append(child)
        return Program(tuple(items))


_PRETTY = {
    "SEMICOLON": "';'", "COMMA": "','", "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('",
    "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "NAME": "an identifier",
    "NUMBER": "a number", "STRING": "a string", "COLON": "':'", "DOT": "'.'", "BANG": "'!'",
    "MINUS": "'-'", "PLUS": "'+'", "COMPARE": "a comparison", "ADDOP": "'+' or '-'",
    "MULOP": "'*', '/' or '%'", "DOTDOT": "'..'", "QMARK": "'?'", "VBAR": "'|'",
    "AMPERSAND": "'&'", "__ANON_0": "'==>'", "__ANON_1": "':='", "__ANON_2": "'->'",
}


def _describe_expected(expected) -> str:
    names = sorted(expected or ())
    shown = []
    for n in names:
        if n in _PRETTY:
            shown.append(_PRETTY[n])
        elif n.startswith("__ANON"):
            shown.append("an operator")
        elif n.isupper():
            shown.append(n.capitalize())
        else:
            shown.append(n)
    shown = list(dict.fromkeys(shown))
    more = ", ..." if len(shown) > 8 else ""
    return ", ".join(shown[:8]) + more


def _first_unsupported(text: str) -> Optional[tuple[str, int, int]]:
    """The first reserved word of an unsupported construct: (message, line, column)."""
    try:
        for tok in _parser().lex(text):
            if tok.type.lower() in _UNSUPPORTED:
                return _UNSUPPORTED[tok.type.lower()], tok.line, tok.column
    except lark.exceptions.LarkError:
        pass  # a character no token matches: the syntax error says so
    return None


def parse_syntax(text: str, path: str = "") -> Program:
    """Parse Murphi ``text``; syntax errors become ``InputError`` at ``path:line:col``."""
    try:
        tree = _parser().parse(text)
    except lark.exceptions.UnexpectedInput as e:
        message, line, column = syntax_error(e, text, _describe_expected)
        unsupported = _first_unsupported(text)
        if unsupported is not None and unsupported[1:] <= (line, column):
            # The parser stumbled over the construct we refuse (``Procedure p(...)``):
            # say what is unsupported rather than what token was unexpected.
            raise InputError(*unsupported[:1], path, *unsupported[1:]) from None
        raise InputError(message, path, line, column) from None
    try:
        return _ToAst(text).transform(tree)
    except lark.exceptions.VisitError as e:
        if isinstance(e.orig_exc, _Unsupported):
            u = e.orig_exc
            raise InputError(u.what, path, u.line, u.column) from None
        raise
