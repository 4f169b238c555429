"""Murphi's type rules, checked on the syntax tree before ``linearise``.

``check(program, path)`` raises ``InputError`` at the first ill-typed construct, with
CMurphi's message.  It refuses only what *both* peers refuse: CMurphi 5.4 (the oracle of
the files ``mu`` reads) and Rumur 2022.08.20 (the oracle of the others), so that no model
either of them runs is refused here.  Hence the rules it does not check although ``mu``
does: a number as a rule guard, an ``Invariant`` or an ``Assert`` condition, ``?:``
branches of different types, ``=`` between arrays or records, structurally equal arrays
and records of different declarations (Rumur accepts all these), and ``&``/``|`` between
numbers (Rumur's bitwise operators -- but only where the left operand's declared type is
a bare subrange: Rumur reads ``&`` on a value of a *named* subrange type as the logical
operator and refuses it, as ``mu`` does).

Types are compared by kind (number, boolean, enum/scalarset/union, array, record,
multiset); two enums, two scalarsets or a union and a member are never told apart (the
peers' rules there are finer, the translation refuses what it cannot encode).  A type
that cannot be worked out (an unknown name: ``linearise`` says so) is ``None`` and
satisfies every rule.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional

from detect.errors import InputError

from frontends.kit import AssertStmt, Assignment as AssignStmt, BinaryOp, Call, Conditional, Num, UnaryOp
from frontends.kit import Constant as ConstDecl, Ident as TypeName, WhileLoop as WhileStmt
from frontends.murphi.syntax import (
    AliasRule, AliasStmt, ArrayType, ChooseRule, Designator, EnumType, Field, ForStmt, IfStmt, InvariantDecl,
    IsMember, IsUndefined, MultisetCount, MultisetRemovePred, MultisetType, Program, QuantRange, QuantType,
    Quantified, RecordType, ReturnStmt, RoutineDecl, RuleSet, ScalarsetType, SimpleRule, StartState, Subrange,
    Subscript, TypeDecl, UnionType, VarDecl,
)


@dataclass(frozen=True)
class Ty:
    """A type as the rules see it.  ``kind``: int, bool, enum, scalarset, union, array,
    record, multiset; ``parts``: an array's (index, element), a record's ((field, Ty), ...),
    a multiset's (element,); ``named``: a number whose declared type is a type name."""

    kind: str
    parts: tuple = ()
    named: bool = False


INT = Ty("int")
BOOL = Ty("bool")
_SIMPLE = ("int", "bool", "enum", "scalarset", "union")
_ORDINAL = ("enum", "scalarset", "union")


@dataclass(frozen=True)
class _Entry:
    """What a name stands for: a ``value`` of type ``ty`` (constant, variable, parameter,
    alias), a ``type``, or a ``routine``."""

    what: str
    ty: Optional[Ty] = None
    routine: Optional[RoutineDecl] = None


Env = Mapping[str, _Entry]

_PREDEFINED = {"boolean": _Entry("type", BOOL), "true": _Entry("value", BOOL), "false": _Entry("value", BOOL)}


def compatible(a: Optional[Ty], b: Optional[Ty]) -> bool:
    """Whether a value of ``b`` may meet one of ``a`` (assignment, ``=``, a parameter, an
    index): same kind; the enum-like kinds are one kind here."""
    if a is None or b is None:
        return True
    if a.kind in _ORDINAL and b.kind in _ORDINAL:
        return True
    return a.kind == b.kind


def _simple(t: Optional[Ty]) -> bool:
    return t is None or t.kind in _SIMPLE


class _Checker:
    def __init__(self, path: str):
        self.path = path

    def fail(self, message: str, node) -> InputError:
        return InputError(message, self.path, getattr(node, "line", 0), getattr(node, "column", 0))

    # ------------------------------------------------------------------ names and types
    @staticmethod
    def lookup(env: Env, name: str) -> Optional[_Entry]:
        e = env.get(name)
        if e is None:
            e = _PREDEFINED.get(name.lower())
        return e

    def type_of(self, t, env: dict[str, _Entry]) -> Optional[Ty]:
        """The ``Ty`` of type expression ``t``; an enum's constants join ``env``."""
        if isinstance(t, TypeName):
            e = self.lookup(env, t.name)
            if e is None or e.what != "type" or e.ty is None:
                return None
            return Ty("int", named=True) if e.ty.kind == "int" else e.ty
        if isinstance(t, Subrange):
            return INT
        if isinstance(t, EnumType):
            ty = Ty("enum", (t.pos,))
            for name, _ in t.names:
                env[name] = _Entry("value", ty)
            return ty
        if isinstance(t, ScalarsetType):
            return Ty("scalarset", (t.pos,))
        if isinstance(t, UnionType):
            for m in t.members:
                self.type_of(m, env)
            return Ty("union", (t.pos,))
        if isinstance(t, ArrayType):
            return Ty("array", (self.type_of(t.index, env), self.type_of(t.element, env)))
        if isinstance(t, RecordType):
            fields = []
            for d in t.fields:
                ft = self.type_of(d.type, env)
                fields.extend((n, ft) for n, _ in d.names)
            return Ty("record", tuple(fields))
        if isinstance(t, MultisetType):
            return Ty("multiset", (self.type_of(t.element, env),))
        return None

    def declare(self, decls, env: dict[str, _Entry]) -> None:
        for d in decls:
            if isinstance(d, ConstDecl):
                env[d.name] = _Entry("value", self.expr(d.value, env))
            elif isinstance(d, TypeDecl):
                env[d.name] = _Entry("type", self.type_of(d.type, env))
            elif isinstance(d, VarDecl):
                t = self.type_of(d.type, env)
                for n, _ in d.names:
                    env[n] = _Entry("value", t)
            elif isinstance(d, RoutineDecl):
                env[d.name] = _Entry("routine", routine=d)

    def quantifiers(self, qs, env: dict[str, _Entry]) -> dict[str, _Entry]:
        inner = dict(env)
        for q in qs:
            if isinstance(q, QuantType):
                inner[q.name] = _Entry("value", self.type_of(q.type, inner))
            elif isinstance(q, QuantRange):
                for e in (q.lo, q.hi) + ((q.step,) if q.step is not None else ()):
                    self.expr(e, inner)
                inner[q.name] = _Entry("value", INT)
        return inner

    def aliases(self, aliases, env: dict[str, _Entry]) -> dict[str, _Entry]:
        inner = dict(env)
        for name, target, _ in aliases:
            inner[name] = _Entry("value", self.expr(target, inner))
        return inner

    # ------------------------------------------------------------------ expressions
    def boolean(self, e, env: Env, message: str) -> None:
        t = self.expr(e, env)
        if t is not None and t.kind != "bool":
            raise self.fail(message, e)

    def designator(self, d: Designator, env: Env) -> Optional[Ty]:
        entry = self.lookup(env, d.name)
        t = entry.ty if entry is not None and entry.what == "value" else None
        for sel in d.selectors:
            if isinstance(sel, Subscript):
                index = self.expr(sel.index, env)
                if t is None or t.kind not in ("array", "multiset"):
                    t = None
                    continue
                if t.kind == "array":
                    if not compatible(t.parts[0], index):
                        raise self.fail("Wrong index type for array reference.", sel)
                    t = t.parts[1]
                else:
                    t = t.parts[0]
            elif isinstance(sel, Field):
                t = dict(t.parts).get(sel.name) if t is not None and t.kind == "record" else None
        return t

    def expr(self, e, env: Env) -> Optional[Ty]:
        if isinstance(e, Num):
            return INT
        if isinstance(e, Designator):
            return self.designator(e, env)
        if isinstance(e, UnaryOp):
            t = self.expr(e.operand, env)
            if e.op == "!":
                if t is not None and t.kind != "bool":
                    raise self.fail("Arguments of ! must be boolean.", e)
                return BOOL
            if t is not None and t.kind != "int":
                raise self.fail(f"Arguments of {e.op} must be integral or real.", e)
            return INT
        if isinstance(e, BinaryOp):
            return self.binary(e, env)
        if isinstance(e, Conditional):
            self.boolean(e.cond, env, "First argument of ?: must be boolean.")
            a, b = self.expr(e.then, env), self.expr(e.else_, env)
            return a if compatible(a, b) else None
        if isinstance(e, Quantified):
            inner = self.quantifiers(e.quantifiers, dict(env))
            self.boolean(e.body, inner, "Quantified subexpressions must be boolean.")
            return BOOL
        if isinstance(e, IsUndefined):
            return BOOL
        if isinstance(e, IsMember):
            self.expr(e.value, env)
            return BOOL
        if isinstance(e, MultisetCount):
            inner = dict(env)
            inner[e.name] = _Entry("value", None)
            self.boolean(e.pred, inner, "3rd Argument of MultiSetCount must be boolean.")
            return INT
        if isinstance(e, Call):
            return self.call(e, env)
        return None

    def binary(self, e: BinaryOp, env: Env) -> Optional[Ty]:
        a, b = self.expr(e.left, env), self.expr(e.right, env)
        op = e.op
        if op in ("&", "|"):
            if a is None:
                return None
            if a.kind == "int" and not a.named:  # Rumur's bitwise operator
                if b is not None and b.kind != "int":
                    raise self.fail("Arguments of &, |, -> must be boolean.", e)
                return INT
            if a.kind != "bool" or (b is not None and b.kind != "bool"):
                raise self.fail("Arguments of &, |, -> must be boolean.", e)
            return BOOL
        if op == "->":
            if any(t is not None and t.kind != "bool" for t in (a, b)):
                raise self.fail("Arguments of &, |, -> must be boolean.", e)
            return BOOL
        if op in ("=", "!="):
            if not compatible(a, b) or (a is not None and b is not None and _simple(a) != _simple(b)):
                raise self.fail("Arguments of = or <> must have same types.", e)
            return BOOL
        if op in ("<", "<=", ">", ">="):
            if any(t is not None and t.kind != "int" for t in (a, b)):
                raise self.fail("Arguments of <, <=, >, >= must be integral or real.", e)
            return BOOL
        # + - * / % and Rumur's ^ << >>
        if any(t is not None and t.kind != "int" for t in (a, b)):
            raise self.fail(f"Arguments of {op} must be integral or real.", e)
        return INT

    def call(self, c: Call, env: Env) -> Optional[Ty]:
        """The arguments of a call checked against the formals (a value parameter takes a
        value of its kind; ``Var`` parameters are the translation's); the result type."""
        entry = self.lookup(env, c.name)
        args = [None if _is_undefined(a, env) else self.expr(a, env) for a in c.args]
        if entry is None or entry.what != "routine":
            return None
        r = entry.routine
        outer = dict(env)
        for f, t in zip(r.formals, args):
            if not f.by_reference and not compatible(self.type_of(f.type, outer), t):
                raise self.fail(f"Actual parameter to {c.name} has wrong type.", c.args[r.formals.index(f)])
        return None if r.result is None else self.type_of(r.result, outer)

    # ------------------------------------------------------------------ statements
    def stmts(self, stmts, env: Env, result: Optional[Ty]) -> None:
        for s in stmts:
            self.stmt(s, env, result)

    def stmt(self, s, env: Env, result: Optional[Ty]) -> None:
        if isinstance(s, AssignStmt):
            t = self.expr(s.target, env)
            if _is_undefined(s.value, env):
                return
            v = self.expr(s.value, env)
            if not compatible(t, v) or (t is not None and v is not None and _simple(t) != _simple(v)):
                raise self.fail("Type of target of assignment doesn't match type of source.", s)
        elif isinstance(s, IfStmt):
            if s.switch is not None:
                subject, labels = s.switch
                st = self.expr(subject, env)
                if not _simple(st):
                    raise self.fail("Switch quantity must be of simple type.", subject)
                for label in labels:
                    if not compatible(st, self.expr(label, env)):
                        raise self.fail("Type of case does not match type of switch expression.", label)
            for cond, body in s.branches:
                if s.switch is None:
                    self.boolean(cond, env, "Test of if statement must be boolean.")
                self.stmts(body, env, result)
            self.stmts(s.else_, env, result)
        elif isinstance(s, WhileStmt):
            self.boolean(s.cond, env, "Test of while loop must be boolean.")
            self.stmts(s.body, env, result)
        elif isinstance(s, ForStmt):
            self.stmts(s.body, self.quantifiers(s.quantifiers, dict(env)), result)
        elif isinstance(s, AliasStmt):
            self.stmts(s.body, self.aliases(s.aliases, dict(env)), result)
        elif isinstance(s, AssertStmt):
            self.expr(s.cond, env)  # a number: Rumur accepts it
        elif isinstance(s, Call):
            self.call(s, env)
        elif isinstance(s, ReturnStmt):
            if s.value is not None:
                v = self.expr(s.value, env)
                if result is not None and not compatible(result, v):
                    raise self.fail("Invalid type for return value.", s)
        elif isinstance(s, MultisetRemovePred):
            inner = dict(env)
            inner[s.name] = _Entry("value", None)
            self.boolean(s.pred, inner, "Multisetremove statement -- 3rd argument must be a boolean expression.")

    # ------------------------------------------------------------------ rules and routines
    def routine(self, r: RoutineDecl, env: dict[str, _Entry]) -> None:
        inner = dict(env)
        for f in r.formals:
            inner[f.name] = _Entry("value", self.type_of(f.type, inner))
        result = None if r.result is None else self.type_of(r.result, inner)
        self.declare(r.decls, inner)
        self.stmts(r.body, inner, result)

    def rules(self, rules, env: dict[str, _Entry]) -> None:
        for r in rules:
            if isinstance(r, (SimpleRule, StartState)):
                inner = dict(env)
                if isinstance(r, SimpleRule) and r.guard is not None:
                    self.expr(r.guard, inner)  # a number: Rumur accepts it
                self.declare(r.decls, inner)
                self.stmts(r.body, inner, None)
            elif isinstance(r, InvariantDecl):
                self.expr(r.cond, env)  # a number: Rumur accepts it (and fails the check)
            elif isinstance(r, RuleSet):
                self.rules(r.rules, self.quantifiers(r.quantifiers, dict(env)))
            elif isinstance(r, AliasRule):
                self.rules(r.rules, self.aliases(r.aliases, dict(env)))
            elif isinstance(r, ChooseRule):
                inner = dict(env)
                inner[r.name] = _Entry("value", None)
                self.rules(r.rules, inner)


def _is_undefined(e, env: Env) -> bool:
    """The keyword ``Undefined`` (as an assigned value or an argument)."""
    return (isinstance(e, Designator) and not e.selectors and e.name.lower() == "undefined"
            and e.name not in env)


def check(program: Program, path: str = "") -> None:
    """Raise ``InputError`` at the first construct both CMurphi and Rumur refuse as a type
    error (see the module docstring); every declaration is visible everywhere, as the
    translation's own scoping decides what is declared too late."""
    ch = _Checker(path)
    env: dict[str, _Entry] = {}
    ch.declare([i for i in program.items if isinstance(i, (ConstDecl, TypeDecl, VarDecl, RoutineDecl))], env)
    for item in program.items:
        if isinstance(item, RoutineDecl):
            ch.routine(item, env)
    ch.rules([i for i in program.items if not isinstance(i, (ConstDecl, TypeDecl, VarDecl, RoutineDecl))], env)
