"""Which subrange types of a Murphi program CMurphi would accept as ``Scalarset``s, and the
source text with them re-declared (``symdetect export --format murphi``).

A named type ``T: lo..hi`` may become ``Scalarset(hi-lo+1)`` when every value of type T is
used only as Murphi's scalarset rules allow: as an index of arrays indexed by T, compared
with ``=``/``!=`` to another T value, assigned to / passed as / returned as a T, quantified
over with ``T``.  Anything else -- arithmetic, ordered comparison, a literal or an int where a
T is expected (or the reverse), ``Clear`` of a T value, unions, ``IsMember`` -- refuses T
with the located reason.  Invariant: the check is conservative (a construct it does not
model refuses T), so a re-declared program type-checks as the scalarset program and means
the same as the original (only the names of the values change, which nothing can observe).
"""
from __future__ import annotations

import re
from typing import Optional

from frontends.kit import AssertStmt, Assignment as AssignStmt, BinaryOp, Call, Conditional, Constant as ConstDecl
from frontends.kit import Ident as TypeName, Num, UnaryOp, WhileLoop as WhileStmt
from frontends.murphi.syntax import (
    AliasRule, AliasStmt, ArrayType, ChooseRule, ClearStmt, Designator, ErrorStmt, Field, ForStmt, IfStmt,
    InvariantDecl, IsMember, IsUndefined, MultisetAdd, MultisetCount, MultisetRemove, MultisetRemovePred,
    MultisetType, Program, QuantRange, QuantType, Quantified, RecordType, ReturnStmt, RoutineDecl, RuleSet,
    SimpleRule, StartState, Subrange, Subscript, TypeDecl, UndefineStmt, UnionType, VarDecl, parse_syntax,
)

__all__ = ["Refused", "candidates", "check", "rewrite"]

INT = "<int>"  # any value that is not of the candidate type


class Refused(Exception):
    """T cannot be a scalarset: ``str(self)`` is ``line:col: reason``."""


def candidates(program: Program) -> list[str]:
    """The top-level named subrange types, in declaration order."""
    return [d.name for d in program.items if isinstance(d, TypeDecl) and isinstance(d.type, Subrange)]


class _Checker:
    def __init__(self, program: Program, t: str):
        self.t = t
        self.types = {d.name: d.type for d in program.items if isinstance(d, TypeDecl)}
        self.routines = {d.name: d for d in program.items if isinstance(d, RoutineDecl)}

    def refuse(self, node, why: str) -> Refused:
        return Refused(f"{node.pos.line}:{node.pos.column}: {why}")

    # types ------------------------------------------------------------------------------
    def resolve(self, ty, seen=()):
        """A type with named aliases followed; ``TypeName(t)`` stays (it is the candidate)."""
        while isinstance(ty, TypeName) and ty.name != self.t and ty.name in self.types and ty.name not in seen:
            seen = seen + (ty.name,)
            ty = self.types[ty.name]
        return ty

    def is_t(self, ty) -> bool:
        ty = self.resolve(ty)
        return isinstance(ty, TypeName) and ty.name == self.t

    def holds_t(self, ty, depth=0) -> bool:
        """Whether a value of ``ty`` has T-typed parts (an array merely indexed by T has not)."""
        ty = self.resolve(ty)
        if depth > 20:
            return True
        if self.is_t(ty):
            return True
        if isinstance(ty, ArrayType):
            return self.holds_t(ty.element, depth + 1)
        if isinstance(ty, MultisetType):
            return self.holds_t(ty.element, depth + 1)
        if isinstance(ty, RecordType):
            return any(self.holds_t(f.type, depth + 1) for f in ty.fields)
        return False

    def kind(self, ty) -> str:
        return self.t if self.is_t(ty) else INT

    # expressions ------------------------------------------------------------------------
    def designator(self, d: Designator, env: dict):
        """The declared type of ``d`` (or INT for constants and int loop variables)."""
        if d.name not in env:
            if d.selectors:
                raise self.refuse(d, f"{d.name} is not known here")
            return TypeName(INT, d.pos)
        ty = env[d.name]
        for s in d.selectors:
            ty = self.resolve(ty)
            if isinstance(s, Subscript):
                if not isinstance(ty, ArrayType):
                    raise self.refuse(s, "subscript of a non-array")
                want = self.kind(ty.index)
                got = self.expr(s.index, env)
                if want != got:
                    raise self.refuse(s.index, f"index of {'a ' + self.t if got == self.t else 'an integer'} kind "
                                      f"into an array indexed by {'the ' + self.t if want == self.t else 'another type'}")
                ty = ty.element
            else:
                if not isinstance(ty, RecordType):
                    raise self.refuse(s, "field of a non-record")
                match = [f.type for f in ty.fields if s.name in [n for n, _ in f.names]]
                if not match:
                    raise self.refuse(s, f"no field {s.name}")
                ty = match[0]
        if isinstance(self.resolve(ty), UnionType) and self.holds_t(ty):
            raise self.refuse(d, f"{self.t} in a Union")
        return ty

    def expr(self, e, env: dict) -> str:
        """The kind of ``e``'s value: ``self.t`` or INT; refuses T uses scalarsets forbid."""
        if isinstance(e, Num):
            return INT
        if isinstance(e, Designator):
            ty = self.designator(e, env)
            if isinstance(ty, TypeName) and ty.name == INT:
                return INT
            return self.kind(ty)
        if isinstance(e, UnaryOp):
            if self.expr(e.operand, env) == self.t:
                raise self.refuse(e, f"operator {e.op} on a value of type {self.t}")
            return INT
        if isinstance(e, BinaryOp):
            a, b = self.expr(e.left, env), self.expr(e.right, env)
            if e.op in ("=", "!="):
                if a != b:
                    raise self.refuse(e, f"a value of type {self.t} compared with a value of another type")
                return INT
            if self.t in (a, b):
                raise self.refuse(e, f"{'arithmetic' if e.op in '+-*/%' else 'operator ' + e.op} on a value of type {self.t}")
            return INT
        if isinstance(e, Conditional):
            if self.expr(e.cond, env) == self.t:
                raise self.refuse(e, f"a value of type {self.t} as a condition")
            a, b = self.expr(e.then, env), self.expr(e.else_, env)
            if a != b:
                raise self.refuse(e, f"a conditional mixing {self.t} and other values")
            return a
        if isinstance(e, Quantified):
            inner = self.quantifiers(e.quantifiers, env)
            if self.expr(e.body, inner) == self.t:
                raise self.refuse(e, f"a value of type {self.t} as a condition")
            return INT
        if isinstance(e, IsUndefined):
            self.designator(e.target, env)
            return INT
        if isinstance(e, Call):
            return self.call(e, env)
        if isinstance(e, MultisetCount):
            self.designator(e.multiset, env)
            self.expr(e.pred, {**env, e.name: TypeName(INT, e.pos)})
            return INT
        if isinstance(e, IsMember):
            if self.expr(e.value, env) == self.t:
                raise self.refuse(e, f"IsMember on a value of type {self.t}")
            return INT
        raise self.refuse(e, f"unsupported construct {type(e).__name__}")

    def call(self, c: Call, env: dict) -> str:
        r = self.routines.get(c.name)
        if r is None:
            for a in c.args:
                if self.expr(a, env) == self.t:
                    raise self.refuse(c, f"a value of type {self.t} passed to {c.name}")
            return INT
        if len(r.formals) != len(c.args):
            raise self.refuse(c, f"{c.name} called with {len(c.args)} arguments")
        for f, a in zip(r.formals, c.args):
            if self.expr(a, env) != self.kind(f.type) or (f.by_reference and self.holds_t(f.type) and not self.is_t(f.type)):
                raise self.refuse(a, f"argument of another type than {c.name}'s formal {f.name}")
        return self.kind(r.result) if r.result is not None else INT

    def quantifiers(self, qs, env: dict) -> dict:
        env = dict(env)
        for q in qs:
            if isinstance(q, QuantType):
                if isinstance(self.resolve(q.type), UnionType) and self.holds_t(q.type):
                    raise self.refuse(q, f"{self.t} in a Union")
                env[q.name] = q.type
            else:
                for x in (q.lo, q.hi) + ((q.step,) if q.step is not None else ()):
                    if self.expr(x, env) == self.t:
                        raise self.refuse(x, f"a value of type {self.t} as a loop bound")
                env[q.name] = TypeName(INT, q.pos)
        return env

    # statements and declarations ----------------------------------------------------------
    def decls(self, decls, env: dict) -> dict:
        env = dict(env)
        for d in decls:
            if isinstance(d, VarDecl):
                for name, _ in d.names:
                    env[name] = d.type
            elif isinstance(d, ConstDecl):
                env.pop(d.name, None)
            elif isinstance(d, TypeDecl) and d.name == self.t:
                raise self.refuse(d, f"{self.t} declared again locally")
        return env

    def stmts(self, body, env: dict, result=None) -> None:
        for s in body:
            self.stmt(s, env, result)

    def assign_kind(self, target_ty, value_kind: str, node) -> None:
        want = self.kind(target_ty)
        if want != value_kind or (want == INT and self.holds_t(target_ty)):
            raise self.refuse(node, "a value of another type assigned to "
                              + (f"a variable of type {self.t}" if want == self.t else "a variable of another type"))

    def stmt(self, s, env: dict, result) -> None:
        if isinstance(s, AssignStmt):
            ty = self.designator(s.target, env)
            if isinstance(ty, TypeName) and ty.name == INT:
                raise self.refuse(s, f"assignment to {s.target.name}")
            kind = self.expr(s.value, env)
            if self.holds_t(ty) and not self.is_t(ty):
                # whole arrays/records: only a designator of the same declared type
                if not (isinstance(s.value, Designator) and self.resolve(self.designator(s.value, env)) == self.resolve(ty)):
                    raise self.refuse(s, f"a compound value holding values of type {self.t} assigned from another type")
                return
            self.assign_kind(ty, kind, s)
        elif isinstance(s, IfStmt):
            for cond, body in s.branches:
                self.expr(cond, env)
                self.stmts(body, env, result)
            self.stmts(s.else_, env, result)
        elif isinstance(s, WhileStmt):
            self.expr(s.cond, env)
            self.stmts(s.body, env, result)
        elif isinstance(s, ForStmt):
            self.stmts(s.body, self.quantifiers(s.quantifiers, env), result)
        elif isinstance(s, ClearStmt):
            if self.holds_t(self.designator(s.target, env)):
                raise self.refuse(s, f"Clear of a value of type {self.t} (it picks a particular {self.t})")
        elif isinstance(s, UndefineStmt):
            self.designator(s.target, env)
        elif isinstance(s, (ErrorStmt,)):
            pass
        elif isinstance(s, AssertStmt):
            self.expr(s.cond, env)
        elif isinstance(s, Call):
            self.call(s, env)
        elif isinstance(s, ReturnStmt):
            if s.value is not None:
                kind = self.expr(s.value, env)
                if result is not None:
                    self.assign_kind(result, kind, s)
                elif kind == self.t:
                    raise self.refuse(s, f"a value of type {self.t} returned")
        elif isinstance(s, AliasStmt):
            inner = self.aliases(s.aliases, env)
            self.stmts(s.body, inner, result)
        elif isinstance(s, MultisetAdd):
            ty = self.resolve(self.designator(s.multiset, env))
            self.assign_kind(ty.element if isinstance(ty, MultisetType) else ty, self.expr(s.value, env), s)
        elif isinstance(s, MultisetRemove):
            self.designator(s.multiset, env)
            if self.expr(s.index, env) == self.t:
                raise self.refuse(s, f"a value of type {self.t} as a multiset index")
        elif isinstance(s, MultisetRemovePred):
            self.designator(s.multiset, env)
            self.expr(s.pred, {**env, s.name: TypeName(INT, s.pos)})
        else:
            raise self.refuse(s, f"unsupported statement {type(s).__name__}")

    def aliases(self, aliases, env: dict) -> dict:
        """``env`` with the names of an ``Alias`` (statement or around rules) bound: a
        designator to its type, any other expression to an int (refused if of type ``t``)."""
        inner = dict(env)
        for name, e, pos in aliases:
            if isinstance(e, Designator):
                inner[name] = self.designator(e, inner)
            elif self.expr(e, inner) == self.t:
                raise self.refuse(e, f"an alias of a {self.t} expression")
            else:
                inner[name] = TypeName(INT, pos)
        return inner

    def rule(self, r, env: dict) -> None:
        if isinstance(r, (SimpleRule, StartState)):
            inner = self.decls(r.decls, env)
            if isinstance(r, SimpleRule) and r.guard is not None:
                self.expr(r.guard, inner)
            self.stmts(r.body, inner)
        elif isinstance(r, InvariantDecl):
            self.expr(r.cond, env)
        elif isinstance(r, RuleSet):
            inner = self.quantifiers(r.quantifiers, env)
            for x in r.rules:
                self.rule(x, inner)
        elif isinstance(r, AliasRule):
            inner = self.aliases(r.aliases, env)
            for x in r.rules:
                self.rule(x, inner)
        elif isinstance(r, ChooseRule):
            self.designator(r.multiset, env)
            inner = {**env, r.name: TypeName(INT, r.pos)}
            for x in r.rules:
                self.rule(x, inner)
        else:
            raise self.refuse(r, f"unsupported rule {type(r).__name__}")

    def program(self, program: Program) -> None:
        env: dict = {}
        for d in program.items:
            if isinstance(d, VarDecl):
                for name, _ in d.names:
                    env[name] = d.type
        for d in program.items:
            if isinstance(d, RoutineDecl):
                inner = dict(env)
                for f in d.formals:
                    inner[f.name] = f.type
                self.stmts(d.body, self.decls(d.decls, inner), d.result)
            elif isinstance(d, (SimpleRule, StartState, InvariantDecl, RuleSet, AliasRule, ChooseRule)):
                self.rule(d, env)


def check(program: Program, t: str) -> Optional[str]:
    """None when type ``t`` may be declared a scalarset, else ``line:col: reason``."""
    try:
        _Checker(program, t).program(program)
    except Refused as why:
        return str(why)
    return None


def variable_index_types(program: Program) -> dict[str, Optional[str]]:
    """Each top-level variable's outermost array index type name (None if not a named type)."""
    types = {d.name: d.type for d in program.items if isinstance(d, TypeDecl)}
    out = {}
    for d in program.items:
        if isinstance(d, VarDecl):
            ty, seen = d.type, set()
            while isinstance(ty, TypeName) and ty.name in types and ty.name not in seen:
                seen.add(ty.name)
                ty = types[ty.name]
            index = ty.index if isinstance(ty, ArrayType) else None
            for name, _ in d.names:
                out[name] = index.name if isinstance(index, TypeName) else None
    return out


def _offset(text: str, line: int, column: int) -> int:
    # Only "\n" ends a line for the parser (str.splitlines would also split at \f, \r, ...).
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[: line - 1]) + column - 1


def rewrite(text: str, program: Program, declare: list[str]) -> str:
    """``text`` with each named subrange in ``declare`` re-declared as a ``Scalarset`` of as
    many values (the rest of the text unchanged, byte for byte)."""
    edits = []
    for d in program.items:
        if isinstance(d, TypeDecl) and d.name in declare and isinstance(d.type, Subrange):
            start = _offset(text, d.type.pos.line, d.type.pos.column)
            end = text.index(";", start)
            lo, hi = (x.strip() for x in text[start:end].split("..", 1))
            if lo == "0" and re.fullmatch(r"(.+?)\s*-\s*1", hi):
                size = re.fullmatch(r"(.+?)\s*-\s*1", hi).group(1)
            elif lo == "1":
                size = hi
            else:
                size = f"({hi}) - ({lo}) + 1"
            edits.append((start, end, f"Scalarset({size})"))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def parse(text: str, path: str = "") -> Program:
    return parse_syntax(text, path)
