"""Symbol tables of a CSP# script and the translation of its expressions/programs to the IR.

A ``Scope`` is built once per script (after ``-D`` overrides) and never changes.  Process
parameters, bound names and program temporaries are passed in an ``env`` mapping each
name to the IR expression it stands for; lookup order is env, globals, #defines, enums.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Optional, Union

from detect.errors import InputError
from detect.ir import Assign, Binary, Const, Expr, If, Index, Ite, Name, Stmt, Unary, While
from detect.ir import build
from detect.ir.build import simplify

from frontends.csp.syntax import (
    AlphabetDecl, ArrayLit, AssertDecl, Bin, ChannelDecl, Cond, Define, EnumDecl, FCall, Ident, Import, Num,
    ProcDef, Quant, SAssign, SCall, Script, SExpr, SIf, SLocal, SLocalArray, SStmt, Subscript, SWhile,
    Un, VarDecl,
)
from frontends.csp import patmath
from frontends.kit import Span
from frontends.kit.bounds import MAX_STATE_SLOTS, state_slots_refusal


#: Most values of one indexed operator's range (``||| x:{lo..hi}@P``).
MAX_INDEXED = 10_000


@dataclass(frozen=True)
class GlobalVar:
    """A declared variable; ``dims`` are the evaluated dimensions (empty for a scalar)."""

    decl: VarDecl
    dims: tuple[int, ...]

    @property
    def size(self) -> Optional[int]:
        return math.prod(self.dims) if self.dims else None


@dataclass(frozen=True)
class TempArray:
    """A program's ``var t = [a, b];``: in an ``env``, ``t`` maps to this (its elements are
    the IR temporaries ``_t_0``, ``_t_1``, ...)."""

    name: str
    elements: tuple[Name, ...]


@dataclass(frozen=True)
class ConstArray:
    """An array passed to a process (``Tx([1, 2])``): in an ``env``, the parameter maps to
    this; ``a[i]`` reads an element, an index outside the array faults (as in PAT)."""

    values: tuple[int, ...]


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
    imports: tuple[Import, ...] = ()    # #import'ed C# libraries
    alphabets: tuple[AlphabetDecl, ...] = ()  # #alphabet declarations, in order

    def error(self, message: str, pos: Span) -> InputError:
        return InputError(message, self.path, pos.line, pos.column)

    # ------------------------------------------------------------------ expressions
    def expr(self, e: SExpr, env: Mapping[str, Expr], _macros: tuple[str, ...] = ()) -> Expr:
        """Translate ``e``; unknown names and misuse of arrays raise ``InputError``."""
        if isinstance(e, Num):
            return Const(e.value)
        if isinstance(e, Ident):
            if e.name in env:
                if isinstance(env[e.name], (TempArray, ConstArray)):
                    raise self.error(f"array '{e.name}' used without an index", e.pos)
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
            if isinstance(env.get(e.name), TempArray):
                return self.temp_element(e, env)
            if isinstance(env.get(e.name), ConstArray):
                return self.array_element(e, env)
            return self.element(e, env)
        if isinstance(e, ArrayLit):
            raise self.error("an array value '[...]' is only supported as a process argument", e.pos)
        if isinstance(e, Quant):
            # PAT's quantifiers over a constant range: unrolled into && / || of the instances.
            parts = [self.expr(e.body, {**env, e.var: Const(v)}, _macros)
                     for v in self.index_range(e, env)]
            out: Expr = Const(1 if e.op == "&&" else 0)
            for part in parts:
                out = simplify(Binary(e.op, out, part))
            return out
        if isinstance(e, FCall):
            return self.library_call(e, env, _macros)
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

    def library_call(self, e: FCall, env: Mapping[str, Expr], _macros: tuple[str, ...] = ()) -> Expr:
        """``call(f, ...)`` of ``#import "PAT.Math"``'s integer functions (``patmath``); any
        other call is refused naming the function and the libraries."""
        if e.name == "call" and e.args and isinstance(e.args[0], Ident) \
                and any(i.library == patmath.LIBRARY for i in self.imports):
            args = [self.expr(a, env, _macros) for a in e.args[1:]]
            try:
                value = patmath.translate(e.args[0].name, args)
            except ValueError as why:
                raise self.error(str(why), e.pos) from None
            if value is not None:
                return value
        raise self.error(self.call_refusal(e), e.pos)

    def call_refusal(self, e: FCall) -> str:
        """Why the call ``e`` cannot be translated, naming the function and the library."""
        libraries = ", ".join(f'"{i.library}"' for i in self.imports) or "none is #import'ed"
        if e.name == "call" and e.args and isinstance(e.args[0], Ident):
            known = ", ".join(patmath.FUNCTIONS)
            return (f"call({e.args[0].name}, ...) runs a C# library function (#import: {libraries}); "
                    f"C# libraries cannot be run (of {patmath.LIBRARY}, only {known} are), so this model is refused")
        return f"'{e.name}(...)' is a function call: only C# library calls (#import: {libraries}) are " \
               f"written so in PAT, and they cannot be run, so this model is refused"

    def arg(self, a: SExpr, env: Mapping[str, Expr]):
        """A process call's argument: an IR expression, or a ``ConstArray`` for an array value
        (``[1, 2]``, or a parameter bound to one passed on); its elements must be constants."""
        if isinstance(a, ArrayLit):
            return ConstArray(tuple(self.constant(v, env, "a constant array element") for v in a.values))
        if isinstance(a, Ident) and isinstance(env.get(a.name), ConstArray):
            return env[a.name]
        return self.expr(a, env)

    def array_element(self, e: Subscript, env: Mapping[str, Expr]) -> Expr:
        """``a[i]`` of an array argument: the element for a constant index, else a choice
        over the elements; an index outside the array faults (a division by zero)."""
        arr = env[e.name]
        if len(e.indices) != 1:
            raise self.error(f"array argument '{e.name}' has one dimension", e.pos)
        i = self.expr(e.indices[0], env)
        fault = Binary("/", Const(1), Const(0))
        if isinstance(i, Const):
            return Const(arr.values[i.value]) if 0 <= i.value < len(arr.values) else fault
        out: Expr = fault
        for k in reversed(range(len(arr.values))):
            out = Ite(simplify(Binary("==", i, Const(k))), Const(arr.values[k]), out)
        return out

    def temp_element(self, e: Subscript, env: Mapping[str, Expr]) -> Expr:
        """``t[i]`` of a program's temporary array: the element itself for a constant index,
        else a choice over the elements; an index outside the array divides by zero so that
        the step faults, as PAT's out-of-bounds access does."""
        arr = env[e.name]
        if len(e.indices) != 1:
            raise self.error(f"temporary array '{e.name}' has one dimension", e.pos)
        i = self.expr(e.indices[0], env)
        if isinstance(i, Const):
            if not 0 <= i.value < len(arr.elements):
                raise self.error(f"index {i.value} is outside temporary array '{e.name}' "
                                 f"of {len(arr.elements)} element(s)", e.pos)
            return arr.elements[i.value]
        out: Expr = Binary("/", Const(1), Const(0))
        for k in reversed(range(len(arr.elements))):
            out = Ite(Binary("==", i, Const(k)), arr.elements[k], out)
        return out

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
            if isinstance(st, SLocalArray):
                elements = tuple(Name(f"_{st.name}_{k}") for k in range(len(st.values)))
                for el, value in zip(elements, st.values):
                    out.append(Assign(el, self.expr(value, env)))
                env[st.name] = TempArray(st.name, elements)
            elif isinstance(st, SAssign) and isinstance(st.target, Subscript) \
                    and isinstance(env.get(st.target.name), TempArray):
                value = self.expr(st.value, env)
                arr = env[st.target.name]
                index = self.expr(st.target.indices[0], env)
                # Outside the array: a division by zero, so the step faults (as in PAT).
                branch: tuple = (Assign(arr.elements[0], Binary("/", Const(1), Const(0))),)
                for k in reversed(range(len(arr.elements))):
                    branch = (If(simplify(Binary("==", index, Const(k))), (Assign(arr.elements[k], value),), branch),)
                out.extend(branch)
            elif isinstance(st, SLocal):
                temp = Name("_" + st.name)
                if temp.name in self.variables:
                    raise self.error(f"temporary '{st.name}' clashes with variable '{temp.name}'", st.pos)
                out.append(Assign(temp, self.expr(st.value, env)))
                env[st.name] = temp
            elif isinstance(st, SAssign):
                out.append(Assign(self.target(st.target, env, readonly), self.expr(st.value, env)))
            elif isinstance(st, SCall):
                # ``call(f, ...);`` as a statement: a PAT.Math function has no effect but may
                # fault, so its value goes to a temporary nothing reads; other calls are refused.
                out.append(Assign(Name("_call"), self.expr(st.call, env)))
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
    """Symbol tables of ``script``; ``overrides`` replace numeric #defines (``-D``).

    Why one function: one pass over the script's declarations with a short case per kind; later kinds read the tables earlier ones filled.
    """
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
    imports: list[Import] = []
    alphabets: list[AlphabetDecl] = []
    order: list[str] = []
    taken: dict[str, str] = {}
    slots = 0  # state slots declared so far: array elements, and channel buffers' cells and counts

    def check_slots(adding: int, name: str, pos: Span) -> int:
        """``slots`` after adding ``adding``, or a located refusal past the kit's bound (a
        mutated 2^31-cell channel would otherwise be lowered, and explored, cell by cell)."""
        refusal = state_slots_refusal(slots, adding, name)
        if refusal is not None:
            raise InputError(refusal, path, pos.line, pos.column)
        return slots + adding

    def claim(name: str, kind: str, pos: Span) -> None:
        if name in taken:
            raise InputError(f"'{name}' is already declared as a {taken[name]}", path, pos.line, pos.column)
        taken[name] = kind

    def partial() -> Scope:
        return Scope(path, numeric, macros, variables, channels, capacities, processes, (), tuple(order),
                     tuple(imports))

    for it in script.items:
        if isinstance(it, Import):
            imports.append(it)
        elif isinstance(it, AlphabetDecl):
            alphabets.append(it)
        elif isinstance(it, Define):
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
            if not dims and isinstance(it.init, tuple):
                # ``var b = [0, 1, 0];`` / ``[0(N)]``: a one-dimensional array as long as its
                # initialiser (PAT's arrays declared by their value).
                dims = (sum(1 if item.count is None else
                            partial().constant(item.count, what="a constant repeat count")
                            for item in it.init),)
            for d, e in zip(dims, it.dims):
                if d <= 0:
                    raise InputError(f"array size must be positive, got {d}", path, e.pos.line, e.pos.column)
            slots = check_slots(math.prod(dims), it.name, it.pos)
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
                if n > MAX_STATE_SLOTS:
                    # even rendezvous elements (no state) are lowered one by one
                    raise InputError(f"channel array size must be at most {MAX_STATE_SLOTS:,}, got {n:,}", path,
                                     it.pos.line, it.pos.column)
                slots = check_slots(n * (cap + 1) if cap else 0, it.name, it.pos)
            else:
                # a buffered channel is at least a count and one cell per message
                slots = check_slots(cap + 1 if cap else 0, it.name, it.pos)
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
                 tuple(assertions), tuple(order), tuple(imports), tuple(alphabets))


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
    if isinstance(e, (Quant, FCall, ArrayLit)):
        return False  # a condition kept as a macro (translated, or refused, where it is used)
    return True
