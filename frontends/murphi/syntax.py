"""Murphi source text -> a frozen abstract syntax tree (no name resolution yet).

Every node carries ``pos`` (``frontends.kit.Span``, 1-based) so that later stages report
``InputError`` at the construct that is wrong.  Parsing uses the LALR grammar in
``grammar.lark`` through ``frontends.kit``; a lark error becomes an ``InputError`` naming
what was expected, and constructs outside the supported subset (``Put``) are refused by
name.  ``Switch`` is desugared here into ``If``/``Elsif`` (see ``_ToAst.switch_stmt``);
procedures, functions, calls, ``Return`` and ``Alias`` stay in the tree for ``linearise``
to inline.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Union

import lark
from lark import Token

from detect.errors import InputError

from frontends.kit import (
    AssertStmt, Assignment as AssignStmt, BinaryOp, Call, Conditional, Constant as ConstDecl, Grammar,
    Ident as TypeName, Located, Num, Span, SyntaxBuilder, UnaryOp, Vocabulary, WhileLoop as WhileStmt, collect,
    tagged,
)

# ---------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Field(Located):
    """``.name`` in a designator."""

    name: str
    pos: Span


@dataclass(frozen=True)
class Subscript(Located):
    """``[index]`` in a designator."""

    index: "Expr"
    pos: Span


@dataclass(frozen=True)
class Designator(Located):
    """``name`` followed by field selections and subscripts, in source order."""

    name: str
    selectors: tuple[Union[Field, Subscript], ...]
    pos: Span


@dataclass(frozen=True)
class Quantified(Located):
    """``Forall``/``Exists`` (``kind``) over ``quantifiers`` of ``body``."""

    kind: str
    quantifiers: tuple["Quantifier", ...]
    body: "Expr"
    pos: Span


@dataclass(frozen=True)
class IsUndefined(Located):
    target: Designator
    pos: Span


@dataclass(frozen=True)
class MultisetCount(Located):
    """``MultisetCount(i : m, pred)``: the elements ``i`` of ``m`` where ``pred`` holds."""

    name: str
    multiset: Designator
    pred: "Expr"
    pos: Span


@dataclass(frozen=True)
class IsMember(Located):
    """``IsMember(e, T)``: the value of ``e`` (of a ``Union``) is one of type ``T``'s."""

    value: "Expr"
    type: "TypeExpr"
    pos: Span


#: ``UnaryOp.op`` is "-" or "!"; ``BinaryOp.op`` one of ``+ - * / % = != < <= > >= & | ->``.
Expr = Union[Num, Designator, UnaryOp, BinaryOp, Conditional, Quantified, IsUndefined, Call, MultisetCount,
             IsMember]

# ---------------------------------------------------------------------------- types


@dataclass(frozen=True)
class Subrange(Located):
    lo: Expr
    hi: Expr
    pos: Span


@dataclass(frozen=True)
class EnumType(Located):
    names: tuple[tuple[str, Span], ...]
    pos: Span


@dataclass(frozen=True)
class ScalarsetType(Located):
    size: Expr
    pos: Span


@dataclass(frozen=True)
class ArrayType(Located):
    index: "TypeExpr"
    element: "TypeExpr"
    pos: Span


@dataclass(frozen=True)
class RecordType(Located):
    fields: tuple["VarDecl", ...]
    pos: Span


@dataclass(frozen=True)
class UnionType(Located):
    """``Union{A, B, ...}``: the values of its enum and scalarset members."""

    members: tuple["TypeExpr", ...]
    pos: Span


@dataclass(frozen=True)
class MultisetType(Located):
    """``Multiset[size] Of element``."""

    size: Expr
    element: "TypeExpr"
    pos: Span


TypeExpr = Union[TypeName, Subrange, EnumType, ScalarsetType, ArrayType, RecordType, UnionType, MultisetType]

# ---------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class TypeDecl(Located):
    name: str
    type: TypeExpr
    pos: Span


@dataclass(frozen=True)
class VarDecl(Located):
    names: tuple[tuple[str, Span], ...]
    type: TypeExpr
    pos: Span


Decl = Union[ConstDecl, TypeDecl, VarDecl]


@dataclass(frozen=True)
class QuantType(Located):
    """``name : type`` -- every value of a finite type."""

    name: str
    type: TypeExpr
    pos: Span


@dataclass(frozen=True)
class QuantRange(Located):
    """``name := lo To hi [By step]``."""

    name: str
    lo: Expr
    hi: Expr
    step: Optional[Expr]
    pos: Span


Quantifier = Union[QuantType, QuantRange]

# ---------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class IfStmt(Located):
    """``If c1 Then s1 Elsif c2 Then s2 ... Else e End``; a desugared ``Switch`` keeps its
    ``(subject, labels)`` in ``switch`` for the type check."""

    branches: tuple[tuple[Expr, tuple["Stmt", ...]], ...]
    else_: tuple["Stmt", ...]
    pos: Span
    switch: Optional[tuple[Expr, tuple[Expr, ...]]] = None


@dataclass(frozen=True)
class ForStmt(Located):
    quantifiers: tuple[Quantifier, ...]
    body: tuple["Stmt", ...]
    pos: Span


@dataclass(frozen=True)
class ClearStmt(Located):
    target: Designator
    pos: Span


@dataclass(frozen=True)
class UndefineStmt(Located):
    target: Designator
    pos: Span


@dataclass(frozen=True)
class ErrorStmt(Located):
    text: str
    pos: Span


@dataclass(frozen=True)
class ReturnStmt(Located):
    """``Return [value]``: ends the procedure or function (``value``: a function's result)."""

    value: Optional[Expr]
    pos: Span


@dataclass(frozen=True)
class AliasStmt(Located):
    """``Alias a: e; b: f Do body End``: each name stands for its designator or value in
    ``body`` (later aliases may use earlier ones)."""

    aliases: tuple[tuple[str, Expr, Span], ...]
    body: tuple["Stmt", ...]
    pos: Span


@dataclass(frozen=True)
class MultisetAdd(Located):
    """``MultisetAdd(e, m)``: ``e`` into the first free place of ``m``."""

    value: Expr
    multiset: Designator
    pos: Span


@dataclass(frozen=True)
class MultisetRemove(Located):
    """``MultisetRemove(i, m)``: the element ``i`` (a ``Choose`` index) out of ``m``."""

    index: Expr
    multiset: Designator
    pos: Span


@dataclass(frozen=True)
class MultisetRemovePred(Located):
    """``MultisetRemovePred(i : m, pred)``: every element ``i`` of ``m`` where ``pred`` holds."""

    name: str
    multiset: Designator
    pred: Expr
    pos: Span


@dataclass(frozen=True)
class AssumeStmt(Located):
    """Rumur's ``Assume [text] cond [text]`` in a rule: where ``cond`` is false the step is
    discarded (no successor; the invariants are not checked)."""

    cond: Expr
    text: str
    pos: Span


@dataclass(frozen=True)
class CoverStmt(Located):
    """Rumur's ``Cover [text] cond [text]`` in a rule or start state: hit when it runs with
    ``cond`` true; one never hit is an error at the end of the exploration."""

    cond: Expr
    text: str
    pos: Span


Stmt = Union[AssignStmt, IfStmt, WhileStmt, ForStmt, ClearStmt, UndefineStmt, ErrorStmt, AssertStmt,
             Call, ReturnStmt, AliasStmt, MultisetAdd, MultisetRemove, MultisetRemovePred, AssumeStmt,
             CoverStmt]

# ---------------------------------------------------------------------------- routines


@dataclass(frozen=True)
class Formal(Located):
    """One formal parameter; ``by_reference`` for ``Var`` parameters."""

    name: str
    type: TypeExpr
    by_reference: bool
    pos: Span


@dataclass(frozen=True)
class RoutineDecl(Located):
    """A ``Procedure`` (``result`` is ``None``) or ``Function`` declaration."""

    name: str
    formals: tuple[Formal, ...]
    result: Optional[TypeExpr]
    decls: tuple[Decl, ...]
    body: tuple[Stmt, ...]
    pos: Span

    @property
    def kind(self) -> str:
        return "procedure" if self.result is None else "function"

# ---------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class SimpleRule(Located):
    name: str
    guard: Optional[Expr]
    decls: tuple[Decl, ...]
    body: tuple[Stmt, ...]
    pos: Span


@dataclass(frozen=True)
class StartState(Located):
    name: str
    decls: tuple[Decl, ...]
    body: tuple[Stmt, ...]
    pos: Span


@dataclass(frozen=True)
class InvariantDecl(Located):
    """``Invariant`` (``kind`` "invariant": every reachable state satisfies ``cond``) or
    Rumur's ``Cover`` (``kind`` "cover": some reachable state does), ``Assume`` ("assume":
    the states that do not are discarded) or ``Liveness`` ("liveness": from every reachable
    state one that satisfies it is reachable)."""

    name: str
    cond: Expr
    text: str
    pos: Span
    kind: str = "invariant"


@dataclass(frozen=True)
class RuleSet(Located):
    quantifiers: tuple[Quantifier, ...]
    rules: tuple["Rule", ...]
    pos: Span


@dataclass(frozen=True)
class AliasRule(Located):
    """``Alias a: e; ... Do <rules> End``: each name stands for its designator or value in
    the rules."""

    aliases: tuple[tuple[str, Expr, Span], ...]
    rules: tuple["Rule", ...]
    pos: Span


@dataclass(frozen=True)
class ChooseRule(Located):
    """``Choose i : m Do <rules> End``: the rules once per element ``i`` of multiset ``m``."""

    name: str
    multiset: Designator
    rules: tuple["Rule", ...]
    pos: Span


Rule = Union[SimpleRule, StartState, InvariantDecl, RuleSet, AliasRule, ChooseRule]


@dataclass(frozen=True)
class Program:
    """The whole file: declarations and rules in source order."""

    items: tuple[Union[Decl, RoutineDecl, Rule], ...]


# ---------------------------------------------------------------------------- parsing


def _string(tok: Token) -> str:
    return str(tok)[1:-1]


#: What to say about a construct outside the subset, by its (lower-case) reserved word.
_UNSUPPORTED = {
    "interleaved": "'Interleaved' scalarsets are not supported",
}


def _other_word(name: str) -> str:
    """Keywords as Murphi spells them (``STARTSTATE`` -> ``Startstate``)."""
    if name.startswith("__ANON"):
        return "an operator"
    return name.capitalize() if name.isupper() else name


GRAMMAR = Grammar("frontends.murphi", Vocabulary({
    "SEMICOLON": "';'", "COMMA": "','", "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('",
    "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "NAME": "an identifier",
    "NUMBER": "a number", "STRING": "a string", "COLON": "':'", "DOT": "'.'", "BANG": "'!'",
    "MINUS": "'-'", "PLUS": "'+'", "COMPARE": "a comparison", "ADDOP": "'+' or '-'",
    "MULOP": "'*', '/' or '%'", "DOTDOT": "'..'", "QMARK": "'?'", "VBAR": "'|'",
    "AMPERSAND": "'&'", "_ARROW": "'==>'", "_ASSIGN": "':='", "_IMPLIES": "'->'", "_BANG": "'!'",
    "_MINUS": "'-'", "_AMP": "'&'", "_VBAR": "'|'", "_LOR": "'||'", "_LAND": "'&&'",
    "SHIFTOP": "'<<' or '>>'", "CIRCUMFLEX": "'^'", "TILDE": "'~'",
}, _other_word))

#: Rumur's other spellings of CMurphi's operators.
_SPELLING = {"==": "=", "≠": "!=", "≤": "<=", "≥": ">=", "−": "-", "×": "*", "÷": "/", "∕": "/"}


class _ToAst(SyntaxBuilder):
    """Bottom-up conversion of lark's parse tree into the dataclasses above; ``octal``:
    a number with a leading zero is octal (Rumur's reading; CMurphi's is decimal)."""

    octal = False

    def _unsupported(self, tok: Token) -> InputError:
        return InputError(_UNSUPPORTED[str(tok).lower()], self.file, tok.line, tok.column)

    def put_stmt(self, meta, children):
        """``Put e`` / ``Put "text"`` only prints (CMurphi writes it during the search): a
        statement that does nothing to the state."""
        return None

    # -------------------------------------------------------------- expressions
    def number(self, meta, children):
        (tok,) = children
        if tok[:2] in ("0x", "0X"):
            return Num(int(tok, 16), self.span(tok))
        if self.octal and tok[0] == "0" and len(tok) > 1 and not set(tok) & {"8", "9"}:
            return Num(int(tok, 8), self.span(tok))
        return Num(int(tok), self.span(tok))

    def field(self, meta, children):
        (tok,) = children
        return Field(str(tok), self.span(tok))

    def subscript(self, meta, children):
        (index,) = children
        return Subscript(index, self.span(meta))

    def designator(self, meta, children):
        tok = children[0]
        return Designator(str(tok), tuple(children[1:]), self.span(tok))

    def negate(self, meta, children):
        return UnaryOp("-", children[0], self.span(meta))

    def not_(self, meta, children):
        return UnaryOp("!", children[0], self.span(meta))

    def compare(self, meta, children):
        left, op, right = children
        return BinaryOp(_SPELLING.get(str(op), str(op)), left, right, self.span(op))

    arith = compare

    def xor(self, meta, children):
        return BinaryOp("^", children[0], children[1], self.span(meta))

    def bitnot(self, meta, children):
        return UnaryOp("~", children[0], self.span(meta))

    def and_(self, meta, children):
        return BinaryOp("&", children[0], children[1], self.span(meta))

    def or_(self, meta, children):
        return BinaryOp("|", children[0], children[1], self.span(meta))

    def implies(self, meta, children):
        return BinaryOp("->", children[0], children[1], self.span(meta))

    def conditional(self, meta, children):
        return Conditional(children[0], children[1], children[2], self.span(meta))

    def _quantified(self, kind, children):
        kw, quantifiers, body = children[0], children[1], children[3]
        return Quantified(kind, quantifiers, body, self.span(kw))

    def forall(self, meta, children):
        return self._quantified("forall", children)

    def exists(self, meta, children):
        return self._quantified("exists", children)

    def isundefined(self, meta, children):
        kw, target = children
        return IsUndefined(target, self.span(kw))

    def call(self, meta, children):
        tok = children[0]
        return Call(str(tok), tuple(children[1:]), self.span(tok))

    # -------------------------------------------------------------- types
    def type_name(self, meta, children):
        (tok,) = children
        return TypeName(str(tok), self.span(tok))

    def subrange(self, meta, children):
        lo, _dots, hi = children
        return Subrange(lo, hi, self.span(meta))

    def enum_type(self, meta, children):
        kw = children[0]
        return EnumType(tuple((str(t), self.span(t)) for t in children[1:]), self.span(kw))

    def scalarset(self, meta, children):
        kw, size = children
        return ScalarsetType(size, self.span(kw))

    def multiset_type(self, meta, children):
        kw, size, _of, element = children
        return MultisetType(size, element, self.span(kw))

    def multiset_add(self, meta, children):
        kw, value, target = children
        return MultisetAdd(value, target, self.span(kw))

    def multiset_remove(self, meta, children):
        kw, index, target = children
        return MultisetRemove(index, target, self.span(kw))

    def multiset_remove_pred(self, meta, children):
        kw, name, target, pred = children
        return MultisetRemovePred(str(name), target, pred, self.span(kw))

    def ismember(self, meta, children):
        kw, value, type_ = children
        return IsMember(value, type_, self.span(kw))

    def multiset_count(self, meta, children):
        kw, name, target, pred = children
        return MultisetCount(str(name), target, pred, self.span(kw))

    def choose_rule(self, meta, children):
        kw, name, target, _do, rules, _end = children
        return ChooseRule(str(name), target, rules, self.span(kw))

    def union_type(self, meta, children):
        kw = children[0]
        return UnionType(tuple(children[1:]), self.span(kw))

    def array_type(self, meta, children):
        kw, index, _of, element = children
        return ArrayType(index, element, self.span(kw))

    def record_type(self, meta, children):
        kw, fields = children[0], children[1]
        return RecordType(tuple(fields), self.span(kw))

    record_fields = collect

    # -------------------------------------------------------------- declarations
    def const_decl(self, meta, children):
        tok, value = children
        return ConstDecl(str(tok), value, self.span(tok))

    def type_decl(self, meta, children):
        tok, type_ = children
        return TypeDecl(str(tok), type_, self.span(tok))

    def var_decl(self, meta, children):
        names = tuple((str(t), self.span(t)) for t in children[:-1])
        return VarDecl(names, children[-1], self.span(children[0]))

    def const_section(self, meta, children):
        return list(children[1:])

    type_section = const_section
    var_section = const_section

    def local_decls(self, meta, children):
        return tuple(d for section in children for d in section)

    def unsupported(self, meta, children):
        raise self._unsupported(children[0])

    unsupported_stmt = unsupported

    # -------------------------------------------------------------- routines
    def formal(self, meta, children):
        by_reference = isinstance(children[0], Token) and children[0].type == "VAR"
        names = children[1:-1] if by_reference else children[:-1]
        return tuple(Formal(str(t), children[-1], by_reference, self.span(t)) for t in names)

    def formals(self, meta, children):
        return tuple(f for group in children for f in group)

    def routine_body(self, meta, children):
        decls, _begin, body, _end = children
        return decls, body

    def routine_body_bare(self, meta, children):
        body, _end = children
        return (), body

    def procedure(self, meta, children):
        kw, name = children[0], children[1]
        formals = children[2] if len(children) == 4 else ()
        decls, body = children[-1]
        return [RoutineDecl(str(name), formals, None, decls, body, self.span(kw))]

    def function(self, meta, children):
        kw, name = children[0], children[1]
        formals = children[2] if len(children) == 5 else ()
        decls, body = children[-1]
        return [RoutineDecl(str(name), formals, children[-2], decls, body, self.span(kw))]

    def call_stmt(self, meta, children):
        tok = children[0]
        return Call(str(tok), tuple(children[1:]), self.span(tok))

    def return_stmt(self, meta, children):
        kw = children[0]
        return ReturnStmt(children[1] if len(children) > 1 else None, self.span(kw))

    def alias_decl(self, meta, children):
        tok, target = children
        return (str(tok), target, self.span(tok))

    def alias_stmt(self, meta, children):
        kw, body = children[0], children[-2]
        aliases = tuple(children[1:-3])  # then Do, the body, End
        return AliasStmt(aliases, body, self.span(kw))

    def case(self, meta, children):
        kw, labels, body = children[0], children[1:-1], children[-1]
        return ("case", kw, tuple(labels), body)

    def switch_stmt(self, meta, children):
        """``Switch e Case c1, c2: s ... Else t End`` as ``If e = c1 | e = c2 Then s ...
        Else t End``: exact, since the labels are constants and ``e`` reads the same state
        each time it is compared (a fault in ``e`` happens at its first comparison, as in
        Murphi's single evaluation)."""
        kw, subject = children[0], children[1]
        branches = []
        else_: tuple = ()
        all_labels: list = []
        for part in children[2:-1]:
            if part[0] == "case":
                _, case_kw, labels, body = part
                all_labels.extend(labels)
                cond = None
                for label in labels:
                    test = BinaryOp("=", subject, label, self.span(case_kw))
                    cond = test if cond is None else BinaryOp("|", cond, test, self.span(case_kw))
                branches.append((cond, body))
            else:
                else_ = part[1]
        switch = (subject, tuple(all_labels))
        if not branches:  # only an Else: it always runs
            return IfStmt(((Num(1, self.span(kw)), else_),), (), self.span(kw), switch)
        return IfStmt(tuple(branches), else_, self.span(kw), switch)

    def empty_item(self, meta, children):
        return []

    # -------------------------------------------------------------- quantifiers
    def quant_type(self, meta, children):
        tok, type_ = children
        return QuantType(str(tok), type_, self.span(tok))

    def quant_range(self, meta, children):
        tok, lo, _to, hi = children[:4]
        step = children[5] if len(children) > 4 else None
        return QuantRange(str(tok), lo, hi, step, self.span(tok))

    quantifiers = collect

    # -------------------------------------------------------------- statements
    def stmts(self, meta, children):
        return tuple(c for c in children if c is not None)  # ``Put`` is None

    def assign(self, meta, children):
        target, value = children
        return AssignStmt(target, value, target.pos)

    def elsif(self, meta, children):
        _kw, cond, _then, body = children
        return ("elsif", cond, body)

    def else_part(self, meta, children):
        _kw, body = children
        return ("else", body)

    def if_stmt(self, meta, children):
        kw, cond, _then, body = children[:4]
        branches = [(cond, body)]
        else_: tuple = ()
        for part in children[4:-1]:
            if part[0] == "elsif":
                branches.append((part[1], part[2]))
            else:
                else_ = part[1]
        return IfStmt(tuple(branches), else_, self.span(kw))

    def while_stmt(self, meta, children):
        kw, cond, _do, body, _end = children
        return WhileStmt(cond, body, self.span(kw))

    def for_stmt(self, meta, children):
        kw, quantifiers, _do, body, _end = children
        return ForStmt(quantifiers, body, self.span(kw))

    def clear_stmt(self, meta, children):
        kw, target = children
        return ClearStmt(target, self.span(kw))

    def undefine_stmt(self, meta, children):
        kw, target = children
        return UndefineStmt(target, self.span(kw))

    def error_stmt(self, meta, children):
        kw, text = children
        return ErrorStmt(_string(text), self.span(kw))

    def assert_stmt(self, meta, children):
        kw, rest = children[0], children[1:]
        texts = [_string(c) for c in rest if isinstance(c, Token) and c.type == "STRING"]
        cond = next(c for c in rest if not (isinstance(c, Token) and c.type == "STRING"))
        return AssertStmt(cond, texts[0] if texts else "", self.span(kw))

    def property_stmt(self, meta, children):
        kw = children[0]
        if kw.type == "ASSUME":
            texts = [_string(c) for c in children[1:] if isinstance(c, Token) and c.type == "STRING"]
            cond = next(c for c in children[1:] if not (isinstance(c, Token) and c.type == "STRING"))
            return AssumeStmt(cond, texts[0] if texts else "", self.span(kw))
        if kw.type == "COVER":
            texts = [_string(c) for c in children[1:] if isinstance(c, Token) and c.type == "STRING"]
            cond = next(c for c in children[1:] if not (isinstance(c, Token) and c.type == "STRING"))
            return CoverStmt(cond, texts[0] if texts else "", self.span(kw))
        raise InputError(f"'{str(kw).capitalize()}' as a statement (Rumur's) is not supported",
                         self.file, kw.line, kw.column)

    def property(self, meta, children):
        kw = children[0]
        return self.invariant(meta, children, {"COVER": "cover", "ASSUME": "assume", "LIVENESS": "liveness"}[kw.type])

    # -------------------------------------------------------------- rules
    def rule_name(self, meta, children):
        return ("name", _string(children[0]))

    guard = tagged("guard")

    def simple_rule(self, meta, children):
        kw = children[0]
        name, guard, decls, body = "", None, (), ()
        for child in children[1:]:
            if isinstance(child, Token) and child.type == "NUMBER" and int(child) != 0:
                # CMurphi fires only the enabled rules of least priority.
                raise InputError(f"rule priority {child} is not supported (only 0, the default)",
                                 self.file, child.line, child.column)
            if isinstance(child, tuple) and child and child[0] == "name":
                name = child[1]
            elif isinstance(child, tuple) and child and child[0] == "guard":
                guard = child[1]
        decls, body = _decls_and_body(children)
        return SimpleRule(name, guard, decls, body, self.span(kw))

    def start_state(self, meta, children):
        kw = children[0]
        name = children[1][1] if isinstance(children[1], tuple) and children[1][:1] == ("name",) else ""
        decls, body = _decls_and_body(children)
        return StartState(name, decls, body, self.span(kw))

    def invariant(self, meta, children, kind: str = "invariant"):
        kw, rest = children[0], list(children[1:])
        name = ""
        if rest and isinstance(rest[0], tuple):
            name = rest.pop(0)[1]
        source = self.source(meta)
        # The condition's text: the source after the keyword and the optional quoted name.
        source = re.sub(r'^\w+\s*("[^"\n]*")?', "", source)
        if len(rest) > 1:  # Rumur: the name after the condition
            name = name or _string(rest[1])
            source = re.sub(r'"[^"\n]*"\s*$', "", source.rstrip())
        text = " ".join(re.sub(r"--[^\n]*", "", source).split())
        return InvariantDecl(name, rest[0], text, self.span(kw), kind)

    rules = collect

    def alias_rule(self, meta, children):
        kw, rules = children[0], children[-2]
        return AliasRule(tuple(children[1:-3]), rules, self.span(kw))

    def ruleset(self, meta, children):
        kw, quantifiers, _do, rules, _end = children
        return RuleSet(quantifiers, rules, self.span(kw))

    def start(self, meta, children):
        items: list = []
        for child in children:
            if isinstance(child, list):
                items.extend(child)
            else:
                items.append(child)
        return Program(tuple(items))


def _decls_and_body(children) -> tuple[tuple, tuple]:
    """A rule's declarations and statements: ``... [decls Begin] stmts End`` (CMurphi needs
    ``Begin`` only after declarations)."""
    begin = children[-3]
    if isinstance(begin, Token) and begin.type == "BEGIN":
        return children[-4], children[-2]
    return (), children[-2]


def _first_unsupported(text: str) -> Optional[tuple[str, int, int]]:
    """The first reserved word of an unsupported construct: (message, line, column)."""
    try:
        for tok in GRAMMAR.parser.lex(text):
            if tok.type == "UNSUPPORTED_WORD":
                return _UNSUPPORTED[str(tok).lower()], tok.line, tok.column
    except lark.exceptions.LarkError:
        pass  # a character no token matches: the syntax error says so
    return None


#: Tokens ``mu`` does not read (it stops at the first with a syntax error): a file that has
#: one is Rumur's.
_RUMUR_TEXTS = frozenset({"==", "^", "~", "<<", ">>", "&&", "||", "≠", "≤", "≥", "−", "×", "÷", "∕", "¬", "∧",
                          "∨", "→", "⇒", "≔"})
_RUMUR_TYPES = frozenset({"COVER", "ASSUME", "LIVENESS"})
_LEADING_ZERO = re.compile(r"(?<![\w.])0[0-7]+(?![\w.])")


def rumur_dialect(text: str) -> bool:
    """Whether ``text`` has a token of Rumur's that CMurphi 5.4 does not read (so that
    ``mu`` refuses the file and Rumur is its oracle): an operator of Rumur's spelling
    (``==``, ``&&``, ``^``, ``<<``, the Unicode ones), a hexadecimal number, a curly-quoted
    string, ``Cover``/``Assume``/``Liveness``."""
    try:
        for tok in GRAMMAR.parser.lex(text):
            if (str(tok) in _RUMUR_TEXTS or tok.type in _RUMUR_TYPES or str(tok)[:2] in ("0x", "0X")
                    or str(tok).startswith("“")):
                return True
    except lark.exceptions.LarkError:
        pass
    return False


def parse_syntax(text: str, path: str = "") -> Program:
    """Parse Murphi ``text``; syntax errors become ``InputError`` at ``path:line:col``."""
    try:
        tree = GRAMMAR.parse(text, path)
    except InputError as e:
        unsupported = _first_unsupported(text)
        if unsupported is not None and unsupported[1:] <= (e.line, e.column):
            # The parser stumbled over the construct we refuse (``Procedure p(...)``):
            # say what is unsupported rather than what token was unexpected.
            raise InputError(*unsupported[:1], path, *unsupported[1:]) from None
        raise
    builder = _ToAst(text, path)
    # ``010``: CMurphi reads ten (sscanf "%d"), Rumur eight.  The file's oracle decides:
    # Rumur's for a file ``mu`` cannot read, CMurphi's otherwise.  (``09`` is not octal:
    # Rumur refuses it, CMurphi reads nine.)
    builder.octal = _LEADING_ZERO.search(text) is not None and rumur_dialect(text)
    return builder.build(tree)
