"""Symbol tables of a CSP# script and the translation of its expressions/programs to the IR.

A ``Scope`` is built once per script (after ``-D`` overrides) and never changes.  Process
parameters, bound names and program temporaries are passed in an ``env`` mapping each
name to the IR expression it stands for; lookup order is env, globals, #defines, enums.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Union

from detect.errors import InputError
from detect.ir import Assign, Binary, Const, Expr, If, Index, Ite, Name, Stmt, Unary, While
from detect.ir import build
from detect.ir.build import simplify

from frontends.csp.syntax import (
    AssertDecl, Bin, ChannelDecl, Cond, Define, EnumDecl, Ident, Num, Pos, ProcDef, SAssign,
    Script, SExpr, SIf, SLocal, SStmt, Subscript, SWhile, Un, VarDecl,
)


#: Most values of one indexed operator's range (``||| x:{lo..hi}@P``).
MAX_INDEXED = 10_000


@dataclass(frozen=True)
class GlobalVar:
    """A declared variable; ``dims`` are the evaluated dimensions (empty for a scalar)."""

    decl: VarDecl
    dims: tuple[int, ...]

    @property
    def size(self) -> Optional[int]:
        if not self.dims:
            return None
        n = 1
        for d in self.dims:
            n *= d
        return n


@dataclass(frozen=True)
class Scope:
    path: str
    numeric: Mapping[str, int]          # numeric #defines (after overrides) and enum constants
    macros: Mapping[str, Define]        # non-constant #defines (conditions over variables)
    variables: Mapping[str, GlobalVar]
    channels: Mapping[str, ChannelDecl]
    capacities: Mapping[str, int]
    processes: Mapping[str, ProcDef]
    assertions: tuple[AssertDecl, ...]
    order: tuple[str, ...]              # variable names in declaration order

    def error(self, message: str, pos: Pos) -> InputError:
        return InputError(message, self.path, pos.line, pos.column)

    # ------------------------------------------------------------------ expressions
    def expr(self, e: SExpr, env: Mapping[str, Expr], _macros: tuple[str, ...] = ()) -> Expr:
        """Translate ``e``; unknown names and misuse of arrays raise ``InputError``."""
        if isinstance(e, Num):
            return Const(e.value)
        if isinstance(e, Ident):
            if e.name in env:
                return env[e.name]
            var = self.variables.get(e.name)
            if var is not None:
                if var.dims:
                    raise self.error(f"array '{e.name}' used without an index", e.pos)
                return Name(e.name)
            if e.name in self.numeric:
                return Const(self.numeric[e.name])
            if e.name in self.macros:
                if e.name in _macros:
                    raise self.error(f"#define '{e.name}' refers to itself", e.pos)
                return self.expr(self.macros[e.name].value, {}, _macros + (e.name,))
            raise self.error(f"unknown identifier '{e.name}'", e.pos)
        if isinstance(e, Subscript):
            return self.element(e, env)
        if isinstance(e, Un):
            return simplify(Unary(e.op, self.expr(e.operand, env, _macros)))
        if isinstance(e, Bin):
            return simplify(Binary(e.op, self.expr(e.left, env, _macros), self.expr(e.right, env, _macros)))
        if isinstance(e, Cond):
            return simplify(Ite(self.expr(e.cond, env, _macros), self.expr(e.then, env, _macros),
                                self.expr(e.else_, env, _macros)))
        raise TypeError(e)

    def element(self, e: Subscript, env: Mapping[str, Expr]) -> Index:
        """``a[i][j]`` -> ``Index(a, i * dim1 + j)`` (row-major flattening)."""
        var = self.variables.get(e.name)
        if var is None:
            if e.name in env:
                raise self.error(f"'{e.name}' is not an array", e.pos)
            raise self.error(f"unknown array '{e.name}'", e.pos)
        if not var.dims:
            raise self.error(f"'{e.name}' is not an array", e.pos)
        if len(e.indices) != len(var.dims):
            raise self.error(
                f"array '{e.name}' has {len(var.dims)} dimension(s) but {len(e.indices)} "
                f"index(es) given", e.pos)
        flat: Expr = Const(0)
        for idx, dim in zip(e.indices, var.dims):
            flat = simplify(Binary("+", simplify(Binary("*", flat, Const(dim))), self.expr(idx, env)))
        return Index(e.name, flat)

    def index_range(self, p, env: Mapping[str, Expr] = {}) -> range:
        """The values of an indexed operator's ``x:{lo..hi}``: located errors when a bound is
        not constant or the range has more than ``MAX_INDEXED`` values (a parameter too
        large for any machine must stop here, not after hours of instantiation)."""
        lo = self.constant(p.lo, env, "a constant range bound")
        hi = self.constant(p.hi, env, "a constant range bound")
        if hi - lo + 1 > MAX_INDEXED:
            raise self.error(f"the range {{{lo}..{hi}}} of '{p.var}' has {hi - lo + 1:,} values; "
                             f"at most {MAX_INDEXED:,} are supported (lower the parameter with -D)", p.pos)
        return range(lo, hi + 1)

    def constant(self, e: SExpr, env: Mapping[str, Expr] = {}, what: str = "a constant") -> int:
        value = self.expr(e, env)
        if not isinstance(value, Const):
            raise self.error(f"expected {what} (an expression of #define constants)", e.pos)
        return value.value

    # ------------------------------------------------------------------ programs
    def program(self, stmts: tuple[SStmt, ...], env: Mapping[str, Expr],
                readonly: frozenset = frozenset()) -> tuple[Stmt, ...]:
        """Translate a program; ``var t = e`` temporaries become IR temporaries ``_t``."""
        out: list[Stmt] = []
        env = dict(env)
        for st in stmts:
            if isinstance(st, SLocal):
                temp = Name("_" + st.name)
                if temp.name in self.variables:
                    raise self.error(f"temporary '{st.name}' clashes with variable '{temp.name}'", st.pos)
                out.append(Assign(temp, self.expr(st.value, env)))
                env[st.name] = temp
            elif isinstance(st, SAssign):
                out.append(Assign(self.target(st.target, env, readonly), self.expr(st.value, env)))
            elif isinstance(st, SIf):
                out.append(If(self.expr(st.cond, env), self.program(st.then, env, readonly),
                              self.program(st.else_, env, readonly)))
            elif isinstance(st, SWhile):
                out.append(While(self.expr(st.cond, env), self.program(st.body, env, readonly)))
            else:
                raise TypeError(st)
        return tuple(out)

    def target(self, t: Union[Ident, Subscript], env: Mapping[str, Expr], readonly) -> Union[Name, Index]:
        if isinstance(t, Subscript):
            if t.name in env:
                raise self.error(f"'{t.name}' is not an array variable", t.pos)
            return self.element(t, env)
        if t.name in env:
            value = env[t.name]
            if isinstance(value, Name) and value.name.startswith("_") and t.name not in readonly:
                return value  # a program temporary
            raise self.error(f"cannot assign to '{t.name}': process parameters and received "
                             f"values are read-only", t.pos)
        var = self.variables.get(t.name)
        if var is None:
            raise self.error(f"unknown variable '{t.name}'", t.pos)
        if var.dims:
            raise self.error(f"array '{t.name}' assigned without an index", t.pos)
        return Name(t.name)


# ---------------------------------------------------------------------------- folding


def conj(*parts: Expr) -> Expr:
    """CSP#'s conjunction of guards: truth values, so every non-zero constant is a unit."""
    return build.conj(*parts, units="truthy")


# ---------------------------------------------------------------------------- building


def build_scope(script: Script, overrides: Mapping[str, int]) -> Scope:
    """Symbol tables of ``script``; ``overrides`` replace numeric #defines (``-D``)."""
    path = script.path
    defines = [it for it in script.items if isinstance(it, Define)]
    define_names = {d.name for d in defines}
    for name in overrides:
        if name not in define_names:
            known = ", ".join(sorted(define_names)) or "none"
            raise InputError(f"-D {name}: the model has no '#define {name}'; its defines are: {known}", path)
    numeric: dict[str, int] = {}
    macros: dict[str, Define] = {}
    variables: dict[str, GlobalVar] = {}
    channels: dict[str, ChannelDecl] = {}
    capacities: dict[str, int] = {}
    processes: dict[str, ProcDef] = {}
    assertions: list[AssertDecl] = []
    order: list[str] = []
    taken: dict[str, str] = {}

    def claim(name: str, kind: str, pos: Pos) -> None:
        if name in taken:
            raise InputError(f"'{name}' is already declared as a {taken[name]}", path, pos.line, pos.column)
        taken[name] = kind

    def partial() -> Scope:
        return Scope(path, numeric, macros, variables, channels, capacities, processes, (), tuple(order))

    for it in script.items:
        if isinstance(it, Define):
            claim(it.name, "#define", it.pos)
            if it.name in overrides:
                numeric[it.name] = int(overrides[it.name])
                continue
            value = partial().expr(it.value, {}) if _is_closed(it.value, partial()) else None
            if isinstance(value, Const):
                numeric[it.name] = value.value
            else:
                macros[it.name] = it
        elif isinstance(it, EnumDecl):
            for k, (name, pos) in enumerate(zip(it.names, it.positions)):
                claim(name, "enum constant", pos)
                numeric[name] = k
        elif isinstance(it, VarDecl):
            claim(it.name, "variable", it.pos)
            dims = tuple(partial().constant(d, what="an array size") for d in it.dims)
            for d, e in zip(dims, it.dims):
                if d <= 0:
                    raise InputError(f"array size must be positive, got {d}", path, e.pos.line, e.pos.column)
            variables[it.name] = GlobalVar(it, dims)
            order.append(it.name)
        elif isinstance(it, ChannelDecl):
            claim(it.name, "channel", it.pos)
            cap = partial().constant(it.capacity, what="a channel capacity")
            if cap < 0:
                raise InputError(f"channel capacity must be >= 0, got {cap}", path, it.pos.line, it.pos.column)
            if it.size is not None:
                n = partial().constant(it.size, what="a channel array size")
                if n <= 0:
                    raise InputError(f"channel array size must be positive, got {n}", path,
                                     it.pos.line, it.pos.column)
            channels[it.name] = it
            capacities[it.name] = cap
        elif isinstance(it, ProcDef):
            claim(it.name, "process", it.pos)
            if len(set(it.params)) != len(it.params):
                raise InputError(f"process '{it.name}' repeats a parameter name", path, it.pos.line, it.pos.column)
            processes[it.name] = it
        elif isinstance(it, AssertDecl):
            assertions.append(it)
    return Scope(path, numeric, macros, variables, channels, capacities, processes,
                 tuple(assertions), tuple(order))


def _is_closed(e: SExpr, scope: Scope) -> bool:
    """True when ``e`` mentions no variable (so it is a numeric #define)."""
    if isinstance(e, Ident):
        return e.name in scope.numeric
    if isinstance(e, Subscript):
        return False
    if isinstance(e, Un):
        return _is_closed(e.operand, scope)
    if isinstance(e, Bin):
        return _is_closed(e.left, scope) and _is_closed(e.right, scope)
    if isinstance(e, Cond):
        return all(_is_closed(x, scope) for x in (e.cond, e.then, e.else_))
    return True
