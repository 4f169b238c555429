"""Murphi syntax tree -> ``SequentialModel`` with CMurphi's semantics.

Values.  Every simple type is an interval of ints: a subrange ``lo..hi`` is itself, an
``Enum {A, B, ...}`` is ``0..k-1`` in declaration order, ``boolean`` is ``false = 0,
true = 1`` and ``Scalarset(N)`` is ``0..N-1``.  Murphi's *undefined* value of a variable of
type ``lo..hi`` is the extra value ``lo - 1``: ``Undefine`` writes it, ``Clear`` writes
``lo``, and two states that differ only in whether a variable is defined are different states
(as Murphi counts them).  Only variables that can be undefined (in some start state, or by an
``Undefine`` or a whole-array copy of possibly undefined data) get the extra value.

Layout.  A ``Var`` of simple type is one IR scalar.  Arrays and records are flattened into one
IR variable per record field path (``r.f``, ``A.f`` for an array of records), a 1-D array
indexed by the row-major position of the subscripts (``A[i][j]`` of an ``Array[T] Of
Array[U] Of ...`` is ``A[(i - lo_T) * |U| + (j - lo_U)]``).

Rules.  Every ``Rule`` becomes one summand whose locals are the parameters of the enclosing
``Ruleset``s, in order (a ruleset over a scalarset is *one* summand family: that is what lets
the symmetry detection see the scalarset's permutations).  Its event is the rule's name with
the parameter values.  ``Forall``/``Exists`` and ``For`` loops are expanded over their
(finite, constant) ranges, with the quantified variable a constant in each copy.

Errors.  Reading an undefined value, an index out of range, a value written outside its
type, ``Error`` and a failed ``Assert`` are faults of the IR (Murphi's error states).  A read
that may see an undefined value is preceded by an ``Assert`` of its definedness condition,
which follows the short-circuit evaluation of ``&``, ``|``, ``->`` and ``?:``.  A rule whose
guard may read an undefined value becomes two summands: ``[defined & guard] body`` and
``[!defined] assert(false)``, so guards stay pure.

Routines.  The IR has no calls, so every call is inlined.  A ``Procedure``'s value
parameters become temporaries (or the argument itself when neither can change), its ``Var``
parameters alias the argument designator (subscripts evaluated at the call), its locals are
temporaries set to the undefined value on entry and checked on read, and an early ``Return``
sets a flag that guards the rest.  A ``Function`` body is executed symbolically into one
expression (``_FunctionRun``): it may assign only its own locals and value parameters (side
effects on state are refused), and the call's definedness condition is "no fault in the
body".  ``Alias`` substitutes its designator; ``Switch`` is ``If``/``Elsif`` (``syntax``).
Recursion is refused with the call cycle.

Start states.  Each ``Startstate`` (once per valuation of its enclosing ruleset parameters)
is run from the all-undefined state by the reference interpreter when the model is loaded
(CMurphi: every start state is initial).  When the resulting states are all combinations of
their per-slot values (2_peterson's ``turn := i``) they are the IR's per-slot initial sets;
otherwise (list6too's message at place ``i``) the model lists them (``SequentialModel.initial``).  ``Invariant``s become ``invariant`` assertions; one that reads an undefined
value counts as violated.
"""
from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Callable, Iterator, Mapping, Optional, Union

from detect import ir
from detect.errors import InputError, StartStateFault
from detect.ir import build
from detect.ir.build import disj, fold, is_truth
from detect.ir.semantics import Env, Fault, execute
from detect.ir.walk import map_expr, map_program, names_read, subexpressions

from frontends.murphi.syntax import (
    AliasStmt, ArrayType, AssertStmt, AssignStmt, BinaryOp, Call, ClearStmt, ConstDecl,
    Designator, EnumType, ErrorStmt, Expr, Field, Formal, ForStmt, IfStmt, InvariantDecl, IsUndefined, Num,
    AliasRule, Program, QuantRange, QuantType, Quantified, RecordType, ReturnStmt, RoutineDecl, RuleSet,
    ScalarsetType, SimpleRule, StartState, Subrange, Subscript, TypeDecl, TypeName, UnaryOp, UnionType,
    ChooseRule, IsMember, MultisetAdd, MultisetCount, MultisetRemove, MultisetRemovePred, MultisetType,
    UndefineStmt, VarDecl, WhileStmt, Conditional, AssumeStmt, CoverStmt,
)

#: Largest number of state slots one variable may flatten into, and of unrolled copies of
#: one ``For``/``Forall`` (Murphi's own tables would not hold more either).
MAX_ELEMENTS = 65_536
#: Largest number of start states (ruleset instances of ``Startstate``s).
MAX_START_STATES = 100_000
#: Largest number of copies all quantifiers, ``For`` loops and invariant instances of one
#: translation unroll together.  Each is bounded by ``MAX_ELEMENTS``, but nested ones
#: multiply: ``Forall i: t Do Forall j: t Do ...`` over a scalarset of 65,536 values is
#: 4·10^9 copies, hours of translation before any later bound applies.  The bundled models
#: need at most a few thousand; this many take about 15 s.
MAX_UNROLLED = 50_000
#: The deadlock property's text (CMurphi: "Deadlocked state found.").
DEADLOCK_TEXT = "no deadlocked state (CMurphi's deadlock check; explore --ndl turns it off)"
#: Rounds a ``While`` may run before it is an error: CMurphi's default ``-loop 1000``.
LOOP_MAX = 1000

# ---------------------------------------------------------------------------- types


@dataclass(frozen=True)
class Simple:
    """A simple type: the ints ``lo..hi``; ``kind`` is subrange, enum, boolean or scalarset."""

    kind: str
    lo: int
    hi: int
    name: str = ""
    #: source names of values (enum constants, false/true), for showing states
    value_names: tuple[tuple[int, str], ...] = ()
    #: the undefined value when it is not ``lo - 1``: -1 for a ``Union`` and its members,
    #: whose values start at 0 and follow one another, so that no member's undefined value
    #: is another member's value
    undef: Optional[int] = None

    @property
    def shown_names(self) -> tuple[tuple[int, str], ...]:
        """``value_names`` plus the undefined value's."""
        return ((self.undefined, "undefined"),) + self.value_names

    @property
    def undefined(self) -> int:
        return self.lo - 1 if self.undef is None else self.undef

    @property
    def values(self) -> tuple[int, ...]:
        if self.wide:
            # (callers that enumerate a type check ``wide`` first: see ``enumerable``)
            raise ValueError(f"the {self.size:,} values of {self.name} are not enumerated")
        return tuple(range(self.lo, self.hi + 1))

    @property
    def wide(self) -> bool:
        """More than ``MAX_ELEMENTS`` values: a variable of this type gets the values it can
        hold from the value analysis (``ir.Unranged``), and nothing ranges over it."""
        return self.size > MAX_ELEMENTS

    @property
    def size(self) -> int:
        return self.hi - self.lo + 1


@dataclass(frozen=True)
class Array:
    index: Simple
    element: "Type"


@dataclass(frozen=True)
class Record:
    fields: tuple[tuple[str, "Type"], ...]
    #: a ``Multiset[n]`` (n > 0): the fields ``$valid`` (which of the n places hold an
    #: element) and ``$elem`` (the places); ``m[i]`` is ``m.$elem[i]``
    multiset: int = 0


Type = Union[Simple, Array, Record]

BOOLEAN = Simple("boolean", 0, 1, "boolean", ((0, "false"), (1, "true")))


def _slots_of(t: Type) -> int:
    if isinstance(t, Simple):
        return 1
    if isinstance(t, Array):
        return t.index.size * _slots_of(t.element)
    return sum(_slots_of(f) for _, f in t.fields)


@dataclass(frozen=True)
class Leaf:
    """One IR variable of a Murphi variable: the field ``path`` and the array ``dims`` on it."""

    ir_name: str
    path: tuple[str, ...]
    dims: tuple[Simple, ...]
    type: Simple

    @property
    def size(self) -> Optional[int]:
        return math.prod(d.size for d in self.dims) if self.dims else None


def _leaves(name: str, t: Type, path=(), dims=()) -> Iterator[Leaf]:
    if isinstance(t, Simple):
        yield Leaf(".".join((name,) + path), path, dims, t)
    elif isinstance(t, Array):
        yield from _leaves(name, t.element, path, dims + (t.index,))
    else:
        for fname, ftype in t.fields:
            yield from _leaves(name, ftype, path + (fname,), dims)


# ---------------------------------------------------------------------------- symbols


@dataclass(frozen=True)
class ConstSym:
    value: int
    type: Optional[Simple]  # None: an integer constant


@dataclass(frozen=True)
class TypeSym:
    type: Type


@dataclass(frozen=True)
class VarSym:
    name: str
    type: Type
    leaves: Mapping[tuple[str, ...], Leaf]


@dataclass(frozen=True)
class LocalSym:
    """A ruleset parameter (a summand local) or a rule's local variable (a temporary).

    ``sentinel``: a procedure's local, set to the undefined value ``lo - 1`` on entry (so a
    call inside a ``While`` starts undefined each time) and checked on every read."""

    ir_name: str
    type: Simple
    temporary: bool = False
    sentinel: bool = False


@dataclass(frozen=True)
class RoutineSym:
    """A ``Procedure`` or ``Function``: inlined at every call."""

    decl: RoutineDecl


@dataclass(frozen=True)
class AliasSym:
    """A name standing for a designator (``Alias``, a ``Var`` parameter): a part of a global
    variable whose non-constant subscripts were evaluated when it was bound, or a local."""

    target: Union["Access", LocalSym]


@dataclass(frozen=True)
class ValueSym:
    """A name standing for a value read-only (an ``Alias`` of an expression, a value
    parameter bound to an argument that cannot change, a function's local at this point)."""

    value: "Value"


@dataclass(frozen=True)
class FnLocal:
    """A function's local or value parameter while its body is executed symbolically:
    ``key`` names its current ``Value`` in the run (see ``_FunctionRun``)."""

    key: str
    type: Simple


@dataclass(frozen=True)
class ContextSym:
    """Translation context kept in a scope under a key no identifier can spell: ``CALLS``
    (the routines being inlined, outermost first) and ``RETURN`` (the name of the "has
    returned" flag of the procedure being inlined, ``None`` if it needs none)."""

    value: object


CALLS = "$calls"
RETURN = "$return"
RESULT = "$result"  # the Access a record-returning function's ``Return e`` copies into

Symbol = Union[ConstSym, TypeSym, VarSym, LocalSym, RoutineSym, AliasSym, ValueSym, FnLocal, ContextSym]
Scope = Mapping[str, Symbol]

PREDEFINED: dict[str, Symbol] = {
    "boolean": TypeSym(BOOLEAN),
    "true": ConstSym(1, BOOLEAN),
    "false": ConstSym(0, BOOLEAN),
}

# ---------------------------------------------------------------------------- helpers


def conj(*parts: ir.Expr) -> ir.Expr:
    """Murphi's short-circuit conjunction: a leading ``FALSE`` is the whole (``build.conj``)."""
    return build.conj(*parts, false="leading")


def neg(a: ir.Expr) -> ir.Expr:
    """Negation of a Murphi truth value (0/1): ``!!x`` is ``x`` (``build.neg``)."""
    return build.neg(a, cancel=True)


def _in_range(e: ir.Expr, lo: int, hi: int) -> ir.Expr:
    return conj(fold(ir.Binary(">=", e, ir.Const(lo))), fold(ir.Binary("<=", e, ir.Const(hi))))


@dataclass(frozen=True)
class Value:
    """A translated expression: its IR form, bounds of its value when known (``None``:
    unknown), and ``defined``: the condition under which evaluating it reads no undefined
    value (short-circuit aware)."""

    expr: ir.Expr
    lo: Optional[int]
    hi: Optional[int]
    defined: ir.Expr = ir.TRUE

    def within(self, t: Simple) -> bool:
        return self.lo is not None and self.hi is not None and t.lo <= self.lo and self.hi <= t.hi


def _const_value(v: Value) -> Value:
    if isinstance(v.expr, ir.Const):
        return Value(v.expr, v.expr.value, v.expr.value, v.defined)
    return v


BOOL_RANGE = (0, 1)


@dataclass(frozen=True)
class Access:
    """A designator naming (part of) a variable: ``type`` is what is left after the
    selectors, ``path`` the fields chosen so far and ``indices`` the subscripts."""

    var: VarSym
    type: Type
    path: tuple[str, ...]
    indices: tuple[Value, ...]
    text: str


# ---------------------------------------------------------------------------- translator


@dataclass
class _Translator:
    """Name resolution and translation; ``undefinable`` are the IR variables that may hold
    the undefined value, ``undefined_writes`` collects those a translated rule may make
    undefined (the fixpoint in ``linearise`` grows the first from the second)."""

    path: str
    defines: Mapping[str, int]
    globals: dict[str, Symbol] = field(default_factory=lambda: dict(PREDEFINED))
    variables: list[VarSym] = field(default_factory=list)
    undefinable: frozenset[str] = frozenset()
    undefined_writes: set[str] = field(default_factory=set)
    #: names of the temporaries made while inlining (all contain '.', which no Murphi
    #: identifier, rule local or copy temporary does)
    temp_names: set[str] = field(default_factory=set)
    #: copies unrolled so far in this translation round (``MAX_UNROLLED``)
    unrolled: int = 0
    #: the leaves of the local arrays and records of the rule being translated, by IR name
    #: (``None``: none may be declared here); see ``local_aggregate``
    aggregates: Optional[dict[str, Leaf]] = None
    #: names of the types that are members of some ``Union``, and the next value free for one
    union_members: frozenset = frozenset()
    union_next: int = 0
    #: the variables holding a multiset that the rule being translated may change
    multisets_touched: set = field(default_factory=set)
    #: sort multisets after each rule and start state (CMurphi's default; ``-nomultiset`` not)
    multiset_sort_on: bool = True
    aggregate_inits: list = field(default_factory=list)
    #: the leaves of every rule's local aggregates: state variables (see ``_rule_summands``)
    aggregate_leaves: dict = field(default_factory=dict)
    #: translating a rule: its local aggregates are state variables shared with other rules
    share_aggregates: bool = False
    #: the shared aggregates in scope where the translation is (see ``local_aggregate``)
    live_aggregates: set = field(default_factory=set)
    #: function name -> whether it may change state (``impure``)
    impure_functions: dict = field(default_factory=dict)
    #: translating a rule: the temporary a failed ``Assume`` sets (``None``: not in a rule),
    #: and whether the rule has one (see ``_discarding``)
    assume_flag: Optional[str] = None
    assume_used: bool = False
    #: Rumur's ``Cover`` statements seen, by (line, column); the one translated as its probe
    #: (``ir.CoverProbe``), if any; in a start state, the temporary each one sets when it
    #: is hit; and those a start state hit
    covers: dict = field(default_factory=dict)
    #: where each global variable is declared (line, column)
    declared_at: dict = field(default_factory=dict)
    cover_probe: Optional[tuple] = None
    cover_flags: Optional[dict] = None
    start_covered: set = field(default_factory=set)

    def local_aggregate(self, name: str, t: Type, taken: set[str]) -> VarSym:
        """A local array or record: translated as a variable whose leaves are named
        ``name$local...`` (no Murphi name has ``$``), held in one temporary per element by
        ``lower_aggregates`` after translation.  It starts undefined: ``entry_undefined``."""
        if self.share_aggregates:
            # Rules' aggregates are state variables that every rule leaves undefined, so
            # rules share them: the k-th `msg` of one type in any rule is one variable
            # (newcache3.m's Send, inlined at 27 places, made 135 state slots whose value
            # swaps were 567 of the graph's 690 generators); within a rule each is new.
            # A procedure's are free again once its inlined body ends (``live_aggregates``):
            # each call starts them undefined (``take_aggregate_inits``).
            k = 1
            while True:
                base = f"{name}$local" + (f"_{k}" if k > 1 else "")
                leaves = {leaf.path: leaf for leaf in _leaves(base, t)}
                if base not in self.temp_names or base not in self.live_aggregates and all(
                        (self.aggregates.get(leaf.ir_name) or self.aggregate_leaves.get(leaf.ir_name)) == leaf
                        for leaf in leaves.values()):
                    break
                k += 1
            self.temp_names.add(base)
            self.live_aggregates.add(base)
        else:
            base = fresh_name(f"{name}$local", self.temp_names)
            leaves = {leaf.path: leaf for leaf in _leaves(base, t)}
        for leaf in leaves.values():
            self.aggregates[leaf.ir_name] = leaf
            self.aggregate_inits += list(_undefine_leaves((leaf,)))
        self.undefinable = self.undefinable | frozenset(l.ir_name for l in leaves.values())
        return VarSym(base, t, leaves)

    def take_aggregate_inits(self) -> list[ir.Stmt]:
        """The statements that make the local aggregates declared since the last call
        undefined (run where their scope is entered)."""
        out, self.aggregate_inits = self.aggregate_inits, []
        return out

    def unroll(self, copies: int, node) -> None:
        """Count ``copies`` more unrolled copies, made at ``node``; a located error beyond
        ``MAX_UNROLLED`` in all."""
        self.unrolled += copies
        if self.unrolled > MAX_UNROLLED:
            raise self.error(f"unrolling quantifiers, For loops and rulesets makes more than {MAX_UNROLLED:,} "
                             "copies in all; lower the constants they range over", node)

    def fresh_temp(self, routine: str, name: str) -> str:
        return fresh_name(f"{routine}.{name}", self.temp_names)

    def error(self, message: str, node) -> InputError:
        return InputError(message, self.path, getattr(node, "line", 0), getattr(node, "column", 0))

    # ------------------------------------------------------------------ constants
    def const(self, e, scope: Scope) -> int:
        """Value of a constant expression (type bounds, constant declarations, ranges)."""
        call = _first_call(e)
        if call is not None:
            # CMurphi ("CONST declaration requires constant expression") and Rumur 2022.08.20
            # ("... is not a constant") refuse a call there, even to a function that folds.
            raise self.error(f"expected a constant expression, not a call of {call.name!r}", call)
        v = self.expr(e, scope)
        if not isinstance(v.expr, ir.Const):
            raise self.error("expected a constant expression", e)
        return v.expr.value

    # ------------------------------------------------------------------ declarations
    def declare(self, scope: dict[str, Symbol], name: str, sym: Symbol, node) -> None:
        if name in scope and not (name in PREDEFINED and scope is not self.globals):
            raise self.error(f"{name!r} declared twice", node)
        scope[name] = sym

    def union_values(self, size: int, shift: bool) -> int:
        """The first value of an enum or scalarset of ``size`` values: 0, or for a member of a
        ``Union`` (``shift``) the next values no other member has, so that a union holds
        each member's values apart (CMurphi numbers them apart too)."""
        if not shift:
            return 0
        first = self.union_next
        self.union_next += size
        return first

    def resolve_type(self, t, scope: dict[str, Symbol], shift: bool = False) -> Type:
        """The type ``t`` denotes; an ``Enum`` declares its constants in ``scope``;
        ``shift``: a ``Union`` member (``union_values``)."""
        if isinstance(t, TypeName):
            sym = _lookup(scope, t.name)
            if sym is None:
                raise self.error(f"unknown type {t.name!r}", t)
            if not isinstance(sym, TypeSym):
                raise self.error(f"{t.name!r} is not a type", t)
            return sym.type
        if isinstance(t, Subrange):
            lo, hi = self.const(t.lo, scope), self.const(t.hi, scope)
            if lo > hi:
                raise self.error(f"empty subrange {lo}..{hi}", t)
            # Wider than MAX_ELEMENTS values: fine for a variable (the values it can hold
            # come from the value analysis); refused where the values are enumerated.
            return Simple("subrange", lo, hi, f"{lo}..{hi}")
        if isinstance(t, EnumType):
            first = self.union_values(len(t.names), shift)
            simple = Simple("enum", first, first + len(t.names) - 1, "enum {" + ", ".join(n for n, _ in t.names) + "}",
                            tuple((first + k, n) for k, (n, _) in enumerate(t.names)), -1 if shift else None)
            for k, (n, pos) in enumerate(t.names):
                if n in scope:
                    raise self.error(f"{n!r} declared twice", pos)
                scope[n] = ConstSym(first + k, simple)
            return simple
        if isinstance(t, ScalarsetType):
            n = self.const(t.size, scope)
            if not 1 <= n <= MAX_ELEMENTS:
                raise self.error(f"scalarset size {n}; expected 1..{MAX_ELEMENTS}", t)
            first = self.union_values(n, shift)
            return Simple("scalarset", first, first + n - 1, f"scalarset({n})", (), -1 if shift else None)
        if isinstance(t, UnionType):
            return self.resolve_union(t, scope)
        if isinstance(t, MultisetType):
            n = self.const(t.size, scope)
            if not 1 <= n <= MAX_ELEMENTS:
                raise self.error(f"multiset size {n}; expected 1..{MAX_ELEMENTS}", t)
            slot = Simple("subrange", 0, n - 1, f"0..{n - 1}")
            element = self.resolve_type(t.element, scope)
            result = Record((("$valid", Array(slot, BOOLEAN)), ("$elem", Array(slot, element))), multiset=n)
            if _slots_of(result) > MAX_ELEMENTS:
                raise self.error(f"multiset has more than {MAX_ELEMENTS} elements", t)
            return result
        if isinstance(t, ArrayType):
            index = self.resolve_type(t.index, scope)
            if not isinstance(index, Simple):
                raise self.error("an array index type must be a subrange, enum, boolean or scalarset", t.index)
            element = self.resolve_type(t.element, scope)
            result = Array(index, element)
            if _slots_of(result) > MAX_ELEMENTS:
                raise self.error(f"array has more than {MAX_ELEMENTS} elements", t)
            return result
        if isinstance(t, RecordType):
            fields: list[tuple[str, Type]] = []
            for decl in t.fields:
                ftype = self.resolve_type(decl.type, scope)
                for n, pos in decl.names:
                    if any(n == f for f, _ in fields):
                        raise self.error(f"field {n!r} declared twice", pos)
                    fields.append((n, ftype))
            result = Record(tuple(fields))
            if _slots_of(result) > MAX_ELEMENTS:
                raise self.error(f"record has more than {MAX_ELEMENTS} elements", t)
            return result
        raise self.error("expected a type", t)

    def resolve_union(self, t: UnionType, scope: dict[str, Symbol]) -> Simple:
        """``Union{A, B, ...}`` of enums and scalarsets: every member's values (apart, see
        ``union_values``), which must be consecutive."""
        members = []
        for m in t.members:
            mt = self.resolve_type(m, scope, shift=True)
            if not isinstance(mt, Simple) or mt.kind not in ("enum", "scalarset"):
                raise self.error("a Union's members must be enums or scalarsets", m)
            if isinstance(m, TypeName) and m.name not in self.union_members:
                raise self.error(f"{m.name!r} is a Union member declared where it is not known to be one", m)
            members.append(mt)
        values = sorted({v for mt in members for v in mt.values})
        if values != list(range(values[0], values[-1] + 1)):
            raise self.error("this Union's members are also members of another Union with other types; "
                             "not supported", t)
        kind = "scalarset" if any(mt.kind == "scalarset" for mt in members) else "enum"
        names = tuple(sorted({pair for mt in members for pair in mt.value_names}))
        return Simple(kind, values[0], values[-1], "union{" + ", ".join(mt.name for mt in members) + "}", names, -1)

    def declare_globals(self, program: Program) -> None:
        consts = [item.name for item in program.items if isinstance(item, ConstDecl)]
        for name in self.defines:
            if name not in consts:
                # The wording of the CSP# front end's "-D N: the model has no '#define N'".
                known = ", ".join(sorted(set(consts))) or "none"
                raise InputError(f"-D {name}: the model has no 'Const {name}'; its constants are: {known}",
                                 self.path)
        for name, value in self.defines.items():
            self.globals[name] = ConstSym(int(value), None)
        defined = frozenset(self.defines)
        self.union_members = _union_members(program)
        for item in program.items:
            if isinstance(item, ConstDecl):
                if item.name in defined:
                    continue  # -D overrides the file's constant
                self.declare(self.globals, item.name, ConstSym(self.const(item.value, self.globals), self._const_type(item.value)), item)
            elif isinstance(item, TypeDecl):
                t = self.resolve_type(item.type, self.globals, shift=item.name in self.union_members)
                self.declare(self.globals, item.name, TypeSym(t), item)
            elif isinstance(item, RoutineDecl):
                seen: set[str] = set()
                for f in item.formals:
                    if f.name in seen:
                        raise self.error(f"parameter {f.name!r} declared twice", f)
                    seen.add(f.name)
                self.declare(self.globals, item.name, RoutineSym(item), item)
            elif isinstance(item, VarDecl):
                t = self.resolve_type(item.type, self.globals)
                for n, pos in item.names:
                    leaves = {leaf.path: leaf for leaf in _leaves(n, t)}
                    for leaf in leaves.values():
                        if any(d.wide for d in leaf.dims):
                            raise self.error(f"array {n!r} has an index type of more than {MAX_ELEMENTS} values", pos)
                    sym = VarSym(n, t, leaves)
                    if n in self.globals:
                        raise self.error(f"{n!r} declared twice", pos)
                    self.declared_at[n] = (pos.line, pos.column)
                    self.globals[n] = sym
                    self.variables.append(sym)

    def _const_type(self, e) -> Optional[Simple]:
        if isinstance(e, Designator) and not e.selectors:
            sym = self.globals.get(e.name)
            if isinstance(sym, ConstSym):
                return sym.type
        return None

    def local_scope(self, decls, scope: Scope, taken: set[str],
                    variable: Optional[Callable[[str, Simple], Symbol]] = None) -> dict[str, Symbol]:
        """``scope`` extended by a rule's own ``Const``/``Type``/``Var`` declarations; its
        variables are IR temporaries (simple types only), or what ``variable(name, type)``
        makes of them."""
        inner: dict[str, Symbol] = dict(scope)
        own: set[str] = set()
        for d in decls:
            names = [(d.name, d.pos)] if not isinstance(d, VarDecl) else list(d.names)
            for n, pos in names:
                if n in own:
                    raise self.error(f"{n!r} declared twice", pos)
                own.add(n)
            if isinstance(d, ConstDecl):
                inner[d.name] = ConstSym(self.const(d.value, inner), None)
            elif isinstance(d, TypeDecl):
                inner[d.name] = TypeSym(self.resolve_type(d.type, inner))
            else:
                t = self.resolve_type(d.type, inner)
                if not isinstance(t, Simple):
                    if self.aggregates is None:
                        raise self.error("local variables of array or record type are not supported here "
                                         "(only in rules, start states and procedures)", d)
                    for n, _ in d.names:
                        inner[n] = self.local_aggregate(n, t, taken)
                    continue
                for n, _ in d.names:
                    inner[n] = variable(n, t) if variable else LocalSym(fresh_name(n, taken), t, temporary=True)
        return inner

    # ------------------------------------------------------------------ designators
    def access(self, d: Designator, scope: Scope) -> Union[Access, Value, LocalSym]:
        """A variable access, a constant's ``Value``, or a local (parameter / temporary)."""
        sym = _lookup(scope, d.name)
        if sym is None or isinstance(sym, ContextSym):
            raise self.error(f"unknown identifier {d.name!r}", d)
        if isinstance(sym, TypeSym):
            raise self.error(f"type {d.name!r} used as a value", d)
        if isinstance(sym, RoutineSym):
            raise self.error(f"{sym.decl.kind} {d.name!r} used as a variable", d)
        if isinstance(sym, FnLocal):
            raise self.error(f"{d.name!r} is not a constant; expected a constant expression", d)
        if isinstance(sym, AliasSym) and isinstance(sym.target, Access):
            start: Access = sym.target
        elif isinstance(sym, VarSym):
            start = Access(sym, sym.type, (), (), d.name)
        else:
            if d.selectors:
                raise self.error(f"{d.name!r} is not an array or record", d.selectors[0])
            if isinstance(sym, ConstSym):
                return Value(ir.Const(sym.value), sym.value, sym.value)
            if isinstance(sym, ValueSym):
                return sym.value
            return sym.target if isinstance(sym, AliasSym) else sym
        t: Type = start.type
        path: tuple[str, ...] = start.path
        indices: list[Value] = list(start.indices)
        text = start.text
        sym = start.var
        for sel in d.selectors:
            if isinstance(sel, Field):
                if not isinstance(t, Record):
                    raise self.error(f"{text} is not a record; no field {sel.name!r}", sel)
                ftype = dict(t.fields).get(sel.name)
                if ftype is None:
                    raise self.error(f"{text} has no field {sel.name!r}", sel)
                t, path, text = ftype, path + (sel.name,), f"{text}.{sel.name}"
            else:
                held = None
                if isinstance(t, Record) and t.multiset:
                    # m[i] is m.$elem[i], an error unless place i holds an element (CMurphi).
                    held = Access(sym, BOOLEAN, path + ("$valid",), tuple(indices), text)
                    t, path = dict(t.fields)["$elem"], path + ("$elem",)
                if not isinstance(t, Array):
                    raise self.error(f"{text} is not an array", sel)
                index = self.scalar(sel.index, scope)
                if held is not None:
                    ((_, vref, vdef),) = list(self.leaf_targets(replace(held, indices=held.indices + (index,))))
                    index = replace(index, defined=conj(index.defined, conj(vdef, ir.Binary("==", vref, ir.Const(1)))))
                if isinstance(index.expr, ir.Const) and not t.index.lo <= index.expr.value <= t.index.hi:
                    # CMurphi reports "k not in index range" only when the statement runs (a
                    # rule not fired, a branch not taken is no error): never defined, so every
                    # use -- a read, a write, an alias or Var parameter bound -- asserts first.
                    warnings.warn(f"{self.path or '<input>'}:{sel.line}:{sel.column}: index {index.expr.value} out of range "
                                  f"{t.index.lo}..{t.index.hi} of {text} (an error if it runs)", stacklevel=2)
                    index = replace(index, defined=ir.FALSE)
                elif not index.within(t.index):
                    # The same for a subscript that may be out of range: binding an alias or a
                    # Var parameter to it is CMurphi's error even if the name is never used.
                    index = replace(index, defined=conj(index.defined, _in_range(index.expr, t.index.lo, t.index.hi)))
                indices.append(index)
                t, text = t.element, f"{text}[]"
        return Access(sym, t, path, tuple(indices), text)

    def _flat_index(self, leaf: Leaf, indices: list[Value]) -> tuple[Optional[ir.Expr], ir.Expr]:
        """Row-major position of ``indices`` in ``leaf`` and the indices' definedness."""
        defined = ir.TRUE
        for v in indices:
            defined = conj(defined, v.defined)
        if not leaf.dims:
            return None, defined
        flat: ir.Expr = ir.Const(0)
        checks: ir.Expr = ir.TRUE
        stride = 1
        for dim, v in reversed(list(zip(leaf.dims, indices))):
            term = fold(ir.Binary("-", v.expr, ir.Const(dim.lo))) if dim.lo else v.expr
            if stride != 1:
                term = fold(ir.Binary("*", term, ir.Const(stride)))
            flat = term if flat == ir.Const(0) else fold(ir.Binary("+", term, flat))
            # A scalarset read is not checked for definedness (``expr``): its undefined value
            # -1 is out of range, which the flat position of a multi-dimensional array does
            # not show (``a[n][-1]`` is ``a[n-1][last]``), so every subscript but a constant
            # is checked there.
            if len(leaf.dims) > 1 and not (v.within(dim) and isinstance(v.expr, ir.Const)):
                checks = conj(checks, _in_range(v.expr, dim.lo, dim.hi))
            stride *= dim.size
        if checks != ir.TRUE:
            # A subscript out of its range (not only the flat position) is Murphi's error:
            # an out-of-bounds position -1 makes the IR fault there.
            flat = ir.Ite(checks, flat, ir.Const(-1))
        return flat, defined

    def leaf_targets(self, a: Access) -> Iterator[tuple[Leaf, ir.Expr, ir.Expr]]:
        """Every scalar element under ``a``: ``(leaf, IR reference, definedness of indices)``."""
        sub_leaves = [leaf for path, leaf in a.var.leaves.items() if path[:len(a.path)] == a.path]
        for leaf in sub_leaves:
            free_dims = leaf.dims[len(a.indices):]
            for values in itertools.product(*(d.values for d in free_dims)):
                indices = list(a.indices) + [Value(ir.Const(x), x, x) for x in values]
                flat, defined = self._flat_index(leaf, indices)
                ref = ir.Name(leaf.ir_name) if flat is None else ir.Index(leaf.ir_name, flat)
                yield leaf, ref, defined

    def scalar_access(self, a: Access, node) -> tuple[Leaf, ir.Expr, ir.Expr]:
        if not isinstance(a.type, Simple):
            what = "array" if isinstance(a.type, Array) else "record"
            raise self.error(f"{a.text} is an {what}; expected a simple value", node)
        ((leaf, ref, defined),) = list(self.leaf_targets(a))
        return leaf, ref, defined

    # ------------------------------------------------------------------ expressions
    def scalar(self, e, scope: Scope) -> Value:
        return self.expr(e, scope)

    def expr(self, e, scope: Scope) -> Value:
        """Translate expression ``e`` (see ``Value``).

        A scalarset variable is never *read* as CMurphi reads: all one can do with it is
        compare (``=``, ``!=``), copy, choose (``?:``) or index, and CMurphi does the first
        three on the stored value, undefined included (two undefined scalarsets are equal);
        indexing with the undefined value is out of range, a fault either way."""
        if isinstance(e, Num):
            return Value(ir.Const(e.value), e.value, e.value)
        if isinstance(e, Designator):
            a = self.access(e, scope)
            if isinstance(a, Value):
                return a
            if isinstance(a, LocalSym):
                unread = a.type.kind == "scalarset"
                defined = (ir.Binary("!=", ir.Name(a.ir_name), ir.Const(a.type.undefined))
                           if a.sentinel and not unread else ir.TRUE)
                return Value(ir.Name(a.ir_name), a.type.lo, a.type.hi, defined)
            leaf, ref, defined = self.scalar_access(a, e)
            if leaf.ir_name in self.undefinable and leaf.type.kind != "scalarset":
                defined = conj(defined, ir.Binary("!=", ref, ir.Const(leaf.type.undefined)))
            return Value(ref, leaf.type.lo, leaf.type.hi, defined)
        if isinstance(e, UnaryOp):
            return self._unary(e, scope)
        if isinstance(e, BinaryOp):
            return self._binary(e, scope)
        if isinstance(e, Conditional):
            c, t, f = self.expr(e.cond, scope), self.expr(e.then, scope), self.expr(e.else_, scope)
            if isinstance(c.expr, ir.Const):
                chosen = t if c.expr.value else f
                return Value(chosen.expr, chosen.lo, chosen.hi, conj(c.defined, chosen.defined))
            lo = None if t.lo is None or f.lo is None else min(t.lo, f.lo)
            hi = None if t.hi is None or f.hi is None else max(t.hi, f.hi)
            branch_defined = ir.TRUE if t.defined == f.defined == ir.TRUE else ir.Ite(c.expr, t.defined, f.defined)
            return Value(ir.Ite(c.expr, t.expr, f.expr), lo, hi, conj(c.defined, branch_defined))
        if isinstance(e, Quantified):
            result: Optional[Value] = None
            for inner in self.quantified_scopes(e.quantifiers, scope):
                v = self.expr(e.body, inner)
                if result is None:
                    result = v
                else:
                    result = self._logic("&" if e.kind == "forall" else "|", result, v)
            if result is None:
                return Value(ir.TRUE if e.kind == "forall" else ir.FALSE, 0, 1)
            return result
        if isinstance(e, IsUndefined):
            return self._is_undefined(e, scope)
        if isinstance(e, Call):
            return self.call_function(e, scope)
        if isinstance(e, MultisetCount):
            return self.multiset_count(e, scope)
        if isinstance(e, IsMember):
            # A union holds each member's values apart (``union_values``): a range test.
            t = self.resolve_type(e.type, dict(scope))
            if not isinstance(t, Simple):
                raise self.error("IsMember expects an enum or scalarset type", e.type)
            v = self.expr(e.value, scope)
            return _const_value(Value(_in_range(v.expr, t.lo, t.hi), 0, 1, v.defined))
        raise self.error("expected an expression", e)

    def _unary(self, e: UnaryOp, scope: Scope) -> Value:
        v = self.expr(e.operand, scope)
        if e.op == "-":
            lo, hi = (None, None) if v.lo is None else (-v.hi, -v.lo)
            return _const_value(Value(fold(ir.Unary("-", v.expr)), lo, hi, v.defined))
        if e.op == "~":  # Rumur's bitwise not, on two's complement numbers: -x - 1
            lo, hi = (None, None) if v.lo is None else (-v.hi - 1, -v.lo - 1)
            return _const_value(Value(fold(ir.Binary("-", ir.Unary("-", v.expr), ir.Const(1))), lo, hi, v.defined))
        return _const_value(Value(neg(v.expr), 0, 1, v.defined))

    def _aggregate_equal(self, e: BinaryOp, scope: Scope) -> Optional[Value]:
        """Rumur's ``x = y`` / ``x != y`` of two arrays or records of one type: every element
        compared by its stored value (an undefined element equals an undefined one, as
        Rumur compares the stored bits); ``None`` when the operands are simple values."""
        a, b = self.access(e.left, scope), self.access(e.right, scope)
        if not (isinstance(a, Access) and isinstance(b, Access)):
            return None
        if isinstance(a.type, Simple) and isinstance(b.type, Simple):
            return None
        if a.type != b.type:
            raise self.error(f"{a.text} and {b.text} are of different types", e)
        same, defined = ir.TRUE, ir.TRUE
        for (_, ra, da), (_, rb, db) in zip(self.leaf_targets(a), self.leaf_targets(b)):
            same = conj(same, fold(ir.Binary("==", ra, rb)))
            defined = conj(defined, conj(da, db))
        return _const_value(Value(same if e.op == "=" else neg(same), 0, 1, defined))


    def _is_undefined(self, e: IsUndefined, scope: Scope) -> Value:
        """``IsUndefined(designator)``: true where it holds its type's undefined value."""
        a = self.access(e.target, scope)
        if isinstance(a, LocalSym) and a.sentinel:
            return Value(ir.Binary("==", ir.Name(a.ir_name), ir.Const(a.type.undefined)), 0, 1)
        if isinstance(a, Value):
            # A ruleset parameter, quantified variable or value parameter: CMurphi
            # accepts it; only a value that may be undefined (a parameter) can be.
            return _const_value(Value(neg(a.defined), 0, 1))
        if isinstance(a, LocalSym):
            return Value(ir.FALSE, 0, 0)
        if not isinstance(a, Access):
            raise self.error("IsUndefined expects a variable", e.target)
        leaf, ref, defined = self.scalar_access(a, e.target)
        if leaf.ir_name not in self.undefinable:
            if isinstance(ref, ir.Index) and not isinstance(ref.index, ir.Const):
                # Never undefined, but the read still faults where the subscript is out
                # of range (an undefined scalarset): CMurphi's "Indexing to a using an
                # undefined value" for IsUndefined(a[p]) with p undefined.
                return Value(ir.Binary("==", ref, ir.Const(leaf.type.undefined)), 0, 1, defined)
            return Value(ir.FALSE, 0, 0, defined)
        return Value(ir.Binary("==", ref, ir.Const(leaf.type.undefined)), 0, 1, defined)

    def _logic(self, op: str, a: Value, b: Value) -> Value:
        """``a & b`` / ``a | b`` / ``a -> b``, evaluated left to right with short circuit."""
        if op == "&":
            defined = conj(a.defined, disj(neg(a.expr), b.defined))
            expr = ir.FALSE if a.expr == ir.FALSE else conj(a.expr, b.expr)
        elif op == "|":
            defined = conj(a.defined, disj(a.expr, b.defined))
            expr = ir.TRUE if a.expr == ir.TRUE else disj(a.expr, b.expr)
        else:
            defined = conj(a.defined, disj(neg(a.expr), b.defined))
            expr = ir.TRUE if a.expr == ir.FALSE else disj(neg(a.expr), b.expr)
        return _const_value(Value(fold(expr), 0, 1, defined))

    def _binary(self, e: BinaryOp, scope: Scope) -> Value:
        if e.op in ("=", "!=") and isinstance(e.left, Designator) and isinstance(e.right, Designator):
            whole = self._aggregate_equal(e, scope)
            if whole is not None:
                return whole
        a, b = self.expr(e.left, scope), self.expr(e.right, scope)
        if e.op == "->" or (e.op in ("&", "|") and _boolean_range(a) and _boolean_range(b)):
            return self._logic(e.op, a, b)
        defined = conj(a.defined, b.defined)
        if e.op in ("&", "|", "^"):
            # Rumur's bitwise operators: "&" and "|" between numbers (on values 0 and 1 the
            # logical reading gives the same value), "^" always.
            return _const_value(Value(fold(ir.Binary(e.op, a.expr, b.expr)), *_bitwise_range(e.op, a, b), defined))
        if e.op in ("<<", ">>"):
            return _const_value(Value(fold(_shift(e.op, a.expr, b.expr)), None, None, defined))
        if e.op in ("=", "!=", "<", "<=", ">", ">="):
            op = "==" if e.op == "=" else e.op
            return _const_value(Value(fold(ir.Binary(op, a.expr, b.expr)), 0, 1, defined))
        lo = hi = None
        if a.lo is not None and b.lo is not None:
            if e.op == "+":
                lo, hi = a.lo + b.lo, a.hi + b.hi
            elif e.op == "-":
                lo, hi = a.lo - b.hi, a.hi - b.lo
            elif e.op == "*":
                products = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
                lo, hi = min(products), max(products)
        return _const_value(Value(fold(ir.Binary(e.op, a.expr, b.expr)), lo, hi, defined))

    def quantified_scopes(self, quantifiers, scope: Scope) -> Iterator[Scope]:
        """One scope per valuation of ``quantifiers``, each variable bound to a constant."""
        if not quantifiers:
            yield scope
            return
        q, rest = quantifiers[0], quantifiers[1:]
        values, qtype = self.quantifier_values(q, scope)
        self.unroll(len(values), q)
        for x in values:
            inner = dict(scope)
            inner[q.name] = ConstSym(x, qtype)
            yield from self.quantified_scopes(rest, inner)

    def quantifier_values(self, q, scope: Scope) -> tuple[tuple[int, ...], Optional[Simple]]:
        if isinstance(q, QuantType):
            t = self.resolve_type(q.type, dict(scope))
            if not isinstance(t, Simple):
                raise self.error("expected a subrange, enum, boolean or scalarset to range over", q.type)
            if t.wide:
                raise self.error(f"a quantifier over {t.name} ranges over more than {MAX_ELEMENTS} values", q.type)
            return t.values, t
        lo, hi = self.const(q.lo, scope), self.const(q.hi, scope)
        step = 1 if q.step is None else self.const(q.step, scope)
        if step == 0:
            raise self.error("'By 0' never ends", q.step)
        values = tuple(range(lo, hi + 1, step)) if step > 0 else tuple(range(lo, hi - 1, step))
        if len(values) > MAX_ELEMENTS:
            raise self.error(f"more than {MAX_ELEMENTS} iterations", q)
        return values, None

    # ------------------------------------------------------------------ statements
    def stmts(self, stmts, scope: Scope) -> list[ir.Stmt]:
        """Translate ``stmts``; inside a procedure with an early ``Return``, what follows a
        statement that may return runs only while the procedure's flag says it has not."""
        out: list[ir.Stmt] = []
        flag = _return_flag(scope)
        for k, s in enumerate(stmts):
            out.extend(self.stmt(s, scope))
            if flag and _contains_return(s):
                rest = [] if isinstance(s, ReturnStmt) else self.stmts(stmts[k + 1:], scope)
                if rest:
                    out.append(ir.If(_not_returned(flag), tuple(rest), ()))
                break
        return out

    def _return(self, s: ReturnStmt, scope: Scope) -> list[ir.Stmt]:
        """``Return`` in an inlined procedure: sets its flag; ``Return e`` in a function
        returning a record (``RESULT``) first copies ``e`` into the call's target."""
        if RETURN not in scope:
            raise self.error("'Return' outside a procedure or function", s)
        flag = _return_flag(scope)
        out = []
        if s.value is not None:
            target = scope.get(RESULT)
            if not isinstance(target, ContextSym) or target.value is None:
                raise self.error("'Return' takes no value here (only in a function)", s.value)
            if isinstance(target.value, LocalSym):  # a hoisted call's scalar result
                t = target.value.type
                v = self.expr(s.value, scope)
                out = self._check(v.defined, s.value)
                if not v.within(t):
                    out.append(ir.Assert(_in_range(v.expr, t.lo, t.hi),
                                         f"{self.path or '<input>'}:{s.line}: returned value out of range"))
                out.append(ir.Assign(ir.Name(target.value.ir_name), v.expr))
            else:
                out = self._copy_into(target.value, s.value, s, scope)
        return out + ([ir.Assign(ir.Name(flag), ir.Const(1))] if flag else [])

    def impure(self, name: str) -> bool:
        """Whether function ``name`` may change state (assigns, clears or undefines a name that
        is not its own local or value parameter, through an alias too; calls a procedure or
        another such function; adds to or removes from a multiset) or loops (``While``: it
        cannot become one expression either): syntactic, so an over-
        approximation, which only costs a hoist where a call is evaluated unconditionally."""
        known = self.impure_functions
        if name in known:
            return known[name]
        sym = self.globals.get(name)
        if not isinstance(sym, RoutineSym) or sym.decl.kind != "function":
            return False
        decl = sym.decl
        known[name] = False  # recursion is refused elsewhere
        own = {f.name for f in decl.formals if not f.by_reference}
        own |= {n for d in decl.decls if isinstance(d, VarDecl) for n, _ in d.names}
        result = False
        for node in _syntax_nodes(decl.body):
            if isinstance(node, (AssignStmt, ClearStmt, UndefineStmt)) and (
                    not isinstance(node.target, Designator) or node.target.name not in own):
                result = True
            elif isinstance(node, (MultisetAdd, MultisetRemove, MultisetRemovePred, WhileStmt)):
                result = True  # (a While cannot become one expression: inlined as a statement)
            elif isinstance(node, Call):
                called = self.globals.get(node.name)
                if isinstance(called, RoutineSym) and (called.decl.kind == "procedure" or self.impure(node.name)):
                    result = True
            if result:
                break
        known[name] = result
        return result

    def hoist_impure_calls(self, s, scope: Scope) -> Optional[list[ir.Stmt]]:
        """``s`` with each call of a function that changes state (ProtoGen's ``if
        Func_cache(msg, n) then``, which CMurphi runs) made first, where ``s`` evaluates it
        unconditionally: the function inlined as a procedure whose ``Return e`` sets a
        temporary, read by ``s`` in the call's place.  ``None`` where there is none (a call
        under ``&``, ``|``, ``->``, ``?:``, a quantifier or a later ``Elsif`` stays a call,
        refused if it changes state, as CMurphi would skip it)."""
        if self.aggregates is None:
            return None  # inside a function: no state to change
        if isinstance(s, AssignStmt) and not (isinstance(s.value, Call) and self._aggregate_target(s, scope)):
            roots = [s.value]
        elif isinstance(s, IfStmt) and s.switch is None and s.branches:
            roots = [s.branches[0][0]]
        elif isinstance(s, AssertStmt):
            roots = [s.cond]
        elif isinstance(s, Call):
            roots = [a for a in s.args if not isinstance(a, Designator)]
        else:
            return None
        calls = [c for r in roots for c in _unconditional_calls(r) if self.impure(c.name)]
        if not calls:
            return None
        out: list[ir.Stmt] = []
        inner = dict(scope)
        names: dict[int, str] = {}
        for k, c in enumerate(calls):
            decl = self.routine(c, scope, "function")
            rtype = self.resolve_type(decl.result, dict(self.globals))
            if not isinstance(rtype, Simple):
                return None
            tmp = LocalSym(self.fresh_temp(decl.name, "result"), rtype, temporary=True, sentinel=True)
            out.append(ir.Assign(ir.Name(tmp.ir_name), ir.Const(rtype.undefined)))
            out += self.call_procedure(c, scope, result=tmp)
            names[id(c)] = f"$hoisted{k}"
            inner[names[id(c)]] = tmp
        return out + self.stmt(_replace_calls(s, names), inner)

    def _aggregate_target(self, s: AssignStmt, scope: Scope) -> bool:
        target = self.access(s.target, scope)
        return isinstance(target, Access) and not isinstance(target.type, Simple)

    def _check(self, defined: ir.Expr, node) -> list[ir.Stmt]:
        if defined == ir.TRUE:
            return []
        return [ir.Assert(defined, f"{self.path or '<input>'}:{node.line}: undefined value read "
                                   "or subscript out of range")]

    def stmt(self, s, scope: Scope) -> list[ir.Stmt]:
        hoisted = self.hoist_impure_calls(s, scope)
        if hoisted is not None:
            return hoisted
        if isinstance(s, AssignStmt):
            return self._assign(s, scope)
        if isinstance(s, IfStmt):
            return self._if(list(s.branches), s.else_, scope)
        if isinstance(s, WhileStmt):
            c = self.expr(s.cond, scope)
            flag = _return_flag(scope)
            if flag and any(_contains_return(b) for b in s.body):
                # A Return inside the loop ends it (and the flag guards the rest).
                c = Value(conj(_not_returned(flag), c.expr), 0, 1, disj(neg(_not_returned(flag)), c.defined))
            body = self.stmts(s.body, scope) + self._check(c.defined, s)
            return self._check(c.defined, s) + [ir.While(c.expr, tuple(body))]
        if isinstance(s, ForStmt) and s.quantifiers and self.computed_step(s.quantifiers[0], scope):
            return self.stepped_for(s, scope)
        if isinstance(s, ForStmt) and s.quantifiers and self.computed_range(s.quantifiers[0], scope):
            return self.computed_for(s, scope)
        if isinstance(s, ForStmt):
            scopes = []
            for inner in self.quantified_scopes(s.quantifiers, scope):
                scopes.append(inner)
                if len(scopes) > MAX_ELEMENTS:
                    raise self.error(f"loop unrolls into more than {MAX_ELEMENTS} copies", s)
            flag = _return_flag(scope)
            returns = flag is not None and any(_contains_return(b) for b in s.body)
            return self._copies(s.body, scopes, flag if returns else None)
        if isinstance(s, Call):
            return self.call_procedure(s, scope)
        if isinstance(s, ReturnStmt):
            return self._return(s, scope)
        if isinstance(s, AliasStmt):
            out = []
            inner = dict(scope)
            for name, target, _ in s.aliases:
                inner[name] = self.bind_alias(target, inner, out)
            return out + self.stmts(s.body, inner)
        if isinstance(s, (ClearStmt, UndefineStmt)):
            a = self.access(s.target, scope)
            if isinstance(a, Access) and _has_multiset(a.type):
                return self.empty_multisets(a, s)
            if isinstance(a, Access) and "$elem" in a.path:
                self.multisets_touched.add(a.var.name)
            if not isinstance(a, Access):
                if isinstance(a, LocalSym) and a.temporary and isinstance(s, ClearStmt):
                    return [ir.Assign(ir.Name(a.ir_name), ir.Const(a.type.lo))]
                if isinstance(a, LocalSym) and a.sentinel:
                    return [ir.Assign(ir.Name(a.ir_name), ir.Const(a.type.undefined))]
                what = "Clear" if isinstance(s, ClearStmt) else "Undefine"
                raise self.error(f"{what} expects a global variable", s.target)
            out = []
            for leaf, ref, defined in self.leaf_targets(a):
                out += self._check(defined, s)
                if isinstance(s, ClearStmt):
                    out.append(ir.Assign(ref, ir.Const(leaf.type.lo)))
                else:
                    self.undefined_writes.add(leaf.ir_name)
                    out.append(ir.Assign(ref, ir.Const(leaf.type.undefined)))
            return out
        if isinstance(s, (MultisetAdd, MultisetRemove, MultisetRemovePred)):
            return self.stmts(self.multiset_statement(s, scope), scope)
        if isinstance(s, ErrorStmt):
            return [ir.Assert(ir.FALSE, f"Error: {s.text}")]
        if isinstance(s, AssertStmt):
            c = self.expr(s.cond, scope)
            text = s.text or f"{self.path or '<input>'}:{s.line}"
            return self._check(c.defined, s) + [ir.Assert(c.expr, f"Assert: {text}")]
        if isinstance(s, (CoverStmt, AssumeStmt)):
            return self.rumur_stmt(s, scope)
        raise self.error("unsupported statement", s)

    def rumur_stmt(self, s, scope: Scope) -> list[ir.Stmt]:
        """Rumur's ``Cover`` and ``Assume`` statements (see ``covers`` and ``assume_flag``)."""
        if isinstance(s, CoverStmt):
            c = self.expr(s.cond, scope)
            key = (s.line, s.column)
            self.covers.setdefault(key, s)
            out = self._check(c.defined, s)
            if self.cover_flags is not None:  # a start state: it sets a flag when hit
                flag = self.cover_flags.setdefault(key, fresh_name(f"cover.{s.line}.{s.column}", self.temp_names))
                return out + [ir.If(c.expr, (ir.Assign(ir.Name(flag), ir.Const(1)),), ())]
            if self.cover_probe == key:
                return out + [ir.Assert(neg(c.expr), _cover_mark(key))]
            return out
        if self.assume_flag is None:
            raise self.error("'Assume' as a statement is supported in rules, start states and the "
                             "procedures they call (Rumur's: a failed one discards the step)", s)
        c = self.expr(s.cond, scope)
        self.assume_used = True
        return self._check(c.defined, s) + [ir.If(neg(c.expr), (ir.Assign(ir.Name(self.assume_flag), ir.Const(1)),))]

    # ------------------------------------------------------------------ multisets
    def empty_multisets(self, a: Access, s) -> list:
        """``Clear``/``Undefine`` of a value holding multisets: as CMurphi's generated
        ``clear()`` and ``undefine()`` of a multiset, each multiset under ``a`` becomes empty
        (every place free, its element undefined, for ``Clear`` too); other fields are
        cleared or undefined as usual."""
        out = []
        for leaf, ref, defined in self.leaf_targets(a):
            out += self._check(defined, s)
            if "$valid" in leaf.path:
                out.append(ir.Assign(ref, ir.Const(0)))
            elif "$elem" in leaf.path or not isinstance(s, ClearStmt):
                self.undefined_writes.add(leaf.ir_name)
                out.append(ir.Assign(ref, ir.Const(leaf.type.undefined)))
            else:
                out.append(ir.Assign(ref, ir.Const(leaf.type.lo)))
        self.multisets_touched.add(a.var.name)
        return out

    def multiset_access(self, d: Designator, scope: Scope, write: bool = True) -> tuple[Access, int]:
        """The multiset ``d`` names and its size; a located error if it is none."""
        a = self.access(d, scope)
        if not isinstance(a, Access) or not isinstance(a.type, Record) or not a.type.multiset:
            raise self.error(f"{d.name} is not a multiset", d)
        if write:
            self.multisets_touched.add(a.var.name)
        return a, a.type.multiset

    def multiset_statement(self, s, scope: Scope) -> tuple:
        """``MultisetAdd``/``Remove``/``RemovePred`` as the statements CMurphi runs: an add
        takes the first free place (an error if there is none), a remove frees the place and
        undefines its element."""
        _, n = self.multiset_access(s.multiset, scope)
        d, pos = s.multiset, s.pos

        def valid(k):
            return Designator(d.name, d.selectors + (Field("$valid", pos), Subscript(k, pos)), pos)

        def element(k):  # the place itself, free or not
            return Designator(d.name, d.selectors + (Field("$elem", pos), Subscript(k, pos)), pos)

        true, false = Designator("true", (), pos), Designator("false", (), pos)

        def remove(k) -> tuple:
            return (AssignStmt(valid(k), false, pos), UndefineStmt(element(k), pos))

        if isinstance(s, MultisetAdd):
            branches = tuple((UnaryOp("!", valid(Num(k, pos)), pos),
                              (AssignStmt(element(Num(k, pos)), s.value, pos), AssignStmt(valid(Num(k, pos)), true, pos)))
                             for k in range(n))
            return (IfStmt(branches, (ErrorStmt(f"Maximum size of MultiSet ({d.name}) exceeded.", pos),), pos),)
        if isinstance(s, MultisetRemove):
            return (IfStmt(((UnaryOp("!", valid(s.index), pos), (ErrorStmt("Illegal Multiset element selected.", pos),)),), (), pos),
                    ) + remove(s.index)
        k = Designator(s.name, (), pos)
        body = (IfStmt(((valid(k), (IfStmt(((s.pred, remove(k)),), (), pos),)),), (), pos),)
        return (ForStmt((QuantRange(s.name, Num(0, pos), Num(n - 1, pos), None, pos),), body, pos),)

    def multiset_count(self, e: MultisetCount, scope: Scope) -> Value:
        """``MultisetCount(i : m, pred)``: the number of places ``i`` holding an element for
        which ``pred`` holds (``pred`` is read only for places holding one)."""
        a, n = self.multiset_access(e.multiset, scope, write=False)
        d, pos = e.multiset, e.pos
        total: ir.Expr = ir.Const(0)
        defined: ir.Expr = ir.TRUE
        slot = Simple("subrange", 0, n - 1)
        for k in range(n):
            inner = dict(scope)
            inner[e.name] = ConstSym(k, slot)
            valid = Designator(d.name, d.selectors + (Field("$valid", pos), Subscript(Num(k, pos), pos)), pos)
            c = self.expr(BinaryOp("&", valid, e.pred, pos), inner)
            term = ir.Ite(c.expr, ir.Const(1), ir.Const(0)) if not isinstance(c.expr, ir.Const) else c.expr
            total = term if total == ir.Const(0) else fold(ir.Binary("+", total, term))
            defined = conj(defined, c.defined)
        return _const_value(Value(total, 0, n, defined))

    def multiset_places(self, var: VarSym) -> Iterator[tuple[list[ir.Expr], list[list[ir.Expr]]]]:
        """Per multiset in ``var``: the references of its ``$valid`` flags and, per place,
        of its element's leaves (in the order ``multiset_sort`` compares them)."""
        for access in _multiset_instances(var):
            n = access.type.multiset
            valid_access = replace(access, type=dict(access.type.fields)["$valid"], path=access.path + ("$valid",))
            valid = [ref for _, ref, _ in self.leaf_targets(valid_access)]
            elem_type = dict(access.type.fields)["$elem"].element
            places = []
            for k in range(n):
                a = replace(access, type=elem_type, path=access.path + ("$elem",),
                            indices=access.indices + (Value(ir.Const(k), k, k),))
                places.append([ref for _, ref, _ in self.leaf_targets(a)])
            yield valid, places

    def multiset_sort(self, var: VarSym) -> list[ir.Stmt]:
        """Every multiset in ``var`` in CMurphi's canonical order (``MultisetSort``, which
        CMurphi applies to each state it stores unless ``-nomultiset``): the elements moved
        to the first places in their order, then sorted (compared field by field, the
        undefined value first)."""
        out: list[ir.Stmt] = []
        for access in _multiset_instances(var):
            n = access.type.multiset
            valid_access = replace(access, type=dict(access.type.fields)["$valid"], path=access.path + ("$valid",))
            valid = [ref for _, ref, _ in self.leaf_targets(valid_access)]
            elem_type = dict(access.type.fields)["$elem"].element

            def comps(k):
                a = replace(access, type=elem_type, path=access.path + ("$elem",),
                            indices=access.indices + (Value(ir.Const(k), k, k),))
                return [(leaf, ref) for leaf, ref, _ in self.leaf_targets(a)]

            places = [comps(k) for k in range(n)]
            for leaf, _ in places[0]:
                self.undefined_writes.add(leaf.ir_name)
            is_ = lambda ref, v: ir.Binary("==", ref, ir.Const(v))
            for _ in range(n - 1):  # compact, keeping the order
                for i in range(n - 1):
                    move = [ir.Assign(ti, tj) for (_, ti), (_, tj) in zip(places[i], places[i + 1])]
                    move += [ir.Assign(valid[i], ir.Const(1)), ir.Assign(valid[i + 1], ir.Const(0))]
                    move += [ir.Assign(tj, ir.Const(leaf.type.undefined)) for leaf, tj in places[i + 1]]
                    out.append(ir.If(conj(is_(valid[i], 0), is_(valid[i + 1], 1)), tuple(move), ()))
            temps = [ir.Name(fresh_name(f"{var.name}$sort", self.temp_names)) for _ in places[0]]
            for i in range(n):  # CMurphi's bubble sort
                for j in range(i + 1, n):
                    greater: ir.Expr = ir.FALSE
                    for (_, x), (_, y) in reversed(list(zip(places[i], places[j]))):
                        greater = disj(ir.Binary(">", x, y), conj(ir.Binary("==", x, y), greater))
                    swap = [ir.Assign(t, x) for t, (_, x) in zip(temps, places[i])]
                    swap += [ir.Assign(x, y) for (_, x), (_, y) in zip(places[i], places[j])]
                    swap += [ir.Assign(y, t) for t, (_, y) in zip(temps, places[j])]
                    out.append(ir.If(conj(is_(valid[j], 1), greater), tuple(swap), ()))
        return out

    def computed_range(self, q, scope: Scope) -> bool:
        """``q`` is ``i := lo To hi`` with a bound that is not a constant (ldash.m's
        ``For i := 0 To QueuedCount-2``)."""
        return isinstance(q, QuantRange) and not all(
            isinstance(self.expr(e, scope).expr, ir.Const) for e in (q.lo, q.hi))

    def computed_step(self, q, scope: Scope) -> bool:
        """``q`` is ``i := lo To hi By step`` with a step that is not a constant (Rumur's;
        ``mu`` says "BY value must be constant")."""
        return (isinstance(q, QuantRange) and q.step is not None
                and not isinstance(self.expr(q.step, scope).expr, ir.Const))

    def stepped_for(self, s: ForStmt, scope: Scope) -> list[ir.Stmt]:
        """A ``For`` whose step is computed, as Rumur 2022.08.20 runs it: ``lo``, ``hi`` and
        ``step`` evaluated once on entry (a step of 0 or against the bounds' direction is an
        error), the body run first with ``i = lo`` and then while
        ``lo < hi & i <= hi`` or ``lo > hi & i >= hi`` (the direction is the bounds', not the
        step's), ``i`` growing by ``step`` after each round: a ``While`` (``--loop-max``
        bounds it, as any)."""
        q = s.quantifiers[0]
        out: list[ir.Stmt] = []
        names, values = [], []
        for e, what in ((q.lo, "lo"), (q.hi, "hi"), (q.step, "step")):
            v = self.expr(e, scope)
            if v.lo is None or v.hi is None:
                raise self.error("expected a value of a bounded type", e)
            out += self._check(v.defined, e)
            tmp = self.fresh_temp("for", f"{q.name}${what}")
            out.append(ir.Assign(ir.Name(tmp), v.expr))
            names.append(ir.Name(tmp))
            values.append(v)
        lo, hi, step = names
        # Rumur's checks before the loop (a step that would never reach the bound)
        zero = ir.Const(0)
        out.append(ir.Assert(ir.Binary("!=", step, zero), "infinite loop due to step being 0"))
        against = disj(conj(ir.Binary(">", hi, lo), ir.Binary("<", step, zero)),
                       conj(ir.Binary("<", hi, lo), ir.Binary(">", step, zero)))
        out.append(ir.Assert(neg(against), "infinite loop due to step being in the wrong direction"))
        reach = max(abs(values[2].lo), abs(values[2].hi))
        # The values ``i`` may take in a round are the bounds' give or take a step (beyond
        # that only with a step against the bounds' direction, which the loop bound stops).
        t = Simple("subrange", min(values[0].lo, values[1].lo) - reach, max(values[0].hi, values[1].hi) + reach)
        i = ir.Name(self.fresh_temp("for", q.name))
        first = ir.Name(self.fresh_temp("for", f"{q.name}$first"))
        out += [ir.Assign(i, lo), ir.Assign(first, ir.Const(1))]
        more = disj(ir.Binary("!=", first, ir.Const(0)),
                    disj(conj(ir.Binary("<", lo, hi), ir.Binary("<=", i, hi)),
                         conj(ir.Binary(">", lo, hi), ir.Binary(">=", i, hi))))
        flag = _return_flag(scope)
        if flag and any(_contains_return(b) for b in s.body):
            more = conj(_not_returned(flag), more)
        inner = dict(scope)
        inner[q.name] = LocalSym(i.name, t, temporary=True)
        body = (self.stmt(ForStmt(s.quantifiers[1:], s.body, s.pos), inner) if len(s.quantifiers) > 1
                else self.stmts(s.body, inner))
        body += [ir.Assign(first, ir.Const(0)), ir.Assign(i, ir.Binary("+", i, step))]
        return out + [ir.While(more, tuple(body))]

    def computed_for(self, s: ForStmt, scope: Scope) -> list[ir.Stmt]:
        """A ``For`` whose first range has a computed bound, as CMurphi runs it: both bounds
        evaluated once on entry (``int mu__ub = hi; for (i = lo; i <= mu__ub; i += by)``),
        unrolled over every value the bounds' types allow, each copy guarded by
        ``lo <= i <= hi`` (``>=`` for a negative step)."""
        q = s.quantifiers[0]
        out: list[ir.Stmt] = []
        bounds = []
        for e in (q.lo, q.hi):
            v = self.expr(e, scope)
            if isinstance(v.expr, ir.Const):
                bounds.append((v.expr, v.expr.value, v.expr.value))
                continue
            if v.lo is None or v.hi is None:
                raise self.error("expected a constant expression or a value of a bounded type", e)
            out += self._check(v.defined, e)
            tmp = self.fresh_temp("for", f"{q.name}$bound")
            out.append(ir.Assign(ir.Name(tmp), v.expr))
            bounds.append((ir.Name(tmp), v.lo, v.hi))
        (lo_e, lo_min, lo_max), (hi_e, hi_min, hi_max) = bounds
        step = 1 if q.step is None else self.const(q.step, scope)
        if step == 0:
            raise self.error("'By 0' never ends", q.step)
        if abs(step) != 1 and not isinstance(lo_e, ir.Const):
            raise self.error("a For loop with a computed start needs step 1 or -1", q.lo)
        if step > 0:
            values = range(lo_min, hi_max + 1, step)
            guards = [conj(ir.Binary("<=", lo_e, ir.Const(k)), ir.Binary("<=", ir.Const(k), hi_e)) for k in values]
        else:
            values = range(lo_max, hi_min - 1, step)
            guards = [conj(ir.Binary(">=", lo_e, ir.Const(k)), ir.Binary(">=", ir.Const(k), hi_e)) for k in values]
        if len(values) > MAX_ELEMENTS:
            raise self.error(f"more than {MAX_ELEMENTS} iterations", q)
        self.unroll(len(values), q)
        flag = _return_flag(scope)
        returns = flag is not None and any(_contains_return(b) for b in s.body)
        rest: list[ir.Stmt] = []
        for k, guard in reversed(list(zip(values, guards))):
            inner = dict(scope)
            inner[q.name] = ConstSym(k, None)
            body = (self.stmt(ForStmt(s.quantifiers[1:], s.body, s.pos), inner) if len(s.quantifiers) > 1
                    else self.stmts(s.body, inner))
            copy: list[ir.Stmt] = [ir.If(fold(guard), tuple(body), ())]
            if rest:
                copy += [ir.If(_not_returned(flag), tuple(rest), ())] if returns else rest
            rest = copy
        return out + rest

    def _copies(self, body, scopes, flag: Optional[str]) -> list[ir.Stmt]:
        """The unrolled copies of a ``For`` body; with a return ``flag``, each copy after
        one that may return runs only while the flag is clear."""
        out: list[ir.Stmt] = []
        for k, inner in enumerate(scopes):
            out.extend(self.stmts(body, inner))
            if flag and k + 1 < len(scopes):
                rest = self._copies(body, scopes[k + 1:], flag)
                if rest:
                    out.append(ir.If(_not_returned(flag), tuple(rest), ()))
                break
        return out

    # ------------------------------------------------------------------ routines
    def routine(self, call, scope: Scope, kind: str) -> RoutineDecl:
        """The routine ``call`` names, checked: its kind, argument count, no recursion."""
        sym = _lookup(scope, call.name)
        if sym is None:
            raise self.error(f"unknown {kind} {call.name!r}", call)
        if not isinstance(sym, RoutineSym) or sym.decl.kind != kind:
            what = sym.decl.kind if isinstance(sym, RoutineSym) else "not a routine"
            raise self.error(f"{call.name!r} is {'a ' + what if isinstance(sym, RoutineSym) else what}; "
                             f"expected a {kind} here", call)
        decl = sym.decl
        calls = _calls(scope)
        if decl.name in calls:
            cycle = calls[calls.index(decl.name):] + (decl.name,)
            raise self.error(f"recursive call {' -> '.join(cycle)}: recursion cannot be inlined "
                             "(the IR has no calls)", call)
        if len(call.args) != len(decl.formals):
            raise self.error(f"{kind} {decl.name!r} takes {len(decl.formals)} argument(s), "
                             f"given {len(call.args)}", call)
        return decl

    def formal_type(self, f) -> Type:
        return self.resolve_type(f.type, dict(self.globals))

    def freeze(self, a: Access, scope: Scope, node, out: list[ir.Stmt], routine: str) -> Access:
        """``a`` with every subscript that may change (it reads state or a temporary)
        evaluated now into a temporary: a reference is bound when it is made."""
        stable = _stable_names(scope)
        indices = []
        for v in a.indices:
            if _stable(v.expr, stable) and v.defined == ir.TRUE:
                indices.append(v)
                continue
            tmp = self.fresh_temp(routine, "index")
            out.extend(self._check(v.defined, node))
            out.append(ir.Assign(ir.Name(tmp), v.expr))
            indices.append(Value(ir.Name(tmp), v.lo, v.hi))
        return replace(a, indices=tuple(indices))

    def alias_symbol(self, target, scope: Scope) -> Symbol:
        """What the name of an ``Alias`` around rules stands for in them: the designator,
        its subscripts evaluated where it is used (a guard has no statements to evaluate
        them before), or the expression's value."""
        if isinstance(target, Designator):
            a = self.access(target, scope)
            return ValueSym(a) if isinstance(a, Value) else AliasSym(a)
        return ValueSym(self.expr(target, scope))

    def bind_alias(self, target, scope: Scope, out: list[ir.Stmt]) -> Symbol:
        """What an ``Alias`` name stands for; statements evaluating it go to ``out``."""
        if isinstance(target, Designator):
            a = self.access(target, scope)
            if isinstance(a, Access):
                return AliasSym(self.freeze(a, scope, target, out, "alias"))
            return ValueSym(a) if isinstance(a, Value) else AliasSym(a)
        v = self.expr(target, scope)
        if _stable(v.expr, _stable_names(scope)) and v.defined == ir.TRUE:
            return ValueSym(v)
        tmp = self.fresh_temp("alias", "value")
        out.extend(self._check(v.defined, target))
        out.append(ir.Assign(ir.Name(tmp), v.expr))
        return ValueSym(Value(ir.Name(tmp), v.lo, v.hi))

    def reference(self, f, arg, scope: Scope, out: list[ir.Stmt], routine: str) -> Symbol:
        """A ``Var`` parameter ``f`` bound to the designator ``arg``."""
        if not isinstance(arg, Designator):
            raise self.error(f"Var parameter {f.name!r} needs a variable, not an expression", arg)
        ftype = self.formal_type(f)
        a = self.access(arg, scope)
        if isinstance(a, Value):
            raise self.error(f"Var parameter {f.name!r} needs a variable, not a constant", arg)
        atype = a.type
        same = (atype.lo, atype.hi) == (ftype.lo, ftype.hi) if isinstance(atype, Simple) and isinstance(ftype, Simple) \
            else _shape(atype) == _shape(ftype)
        if not same:
            raise self.error(f"Var parameter {f.name!r}: the argument's type differs from the parameter's", arg)
        if isinstance(a, Access):
            return AliasSym(self.freeze(a, scope, arg, out, routine))
        return AliasSym(a)

    def call_procedure(self, s: Call, scope: Scope, result: Union[Access, LocalSym, None] = None) -> list[ir.Stmt]:
        """Inline procedure call ``s``: arguments bound in order, locals undefined, body.
        With ``result``, ``s`` calls a function returning an array or record (CMurphi's
        ``msg := Request(...)``): inlined as a procedure whose ``Return e`` copies ``e`` into
        ``result``.  A value parameter of array or record type is a local copy of its
        argument (CMurphi passes it by value), made before the body runs."""
        decl = self.routine(s, scope, "procedure" if result is None else "function")
        if isinstance(result, Access):
            rtype = self.resolve_type(decl.result, dict(self.globals))
            if rtype != result.type:
                raise self.error(f"function {decl.name!r} returns another type than {result.text}'s", s)
        live = set(self.live_aggregates)
        inner: dict[str, Symbol] = dict(self.globals)
        inner[CALLS] = ContextSym(_calls(scope) + (decl.name,))
        inner[RESULT] = ContextSym(result)
        out: list[ir.Stmt] = []
        assigned = _assigned_names(decl.body)
        stable = _stable_names(scope)
        for f, arg in zip(decl.formals, s.args):
            if f.by_reference:
                inner[f.name] = self.reference(f, arg, scope, out, decl.name)
                continue
            ftype = self.formal_type(f)
            if not isinstance(ftype, Simple) and self.aggregates is not None:
                copy = self.local_aggregate(f.name, ftype, self.temp_names)
                inner[f.name] = copy
                out += self.take_aggregate_inits()
                if not _is_undefined_keyword(arg, scope):
                    out += self._copy_into(Access(copy, ftype, (), (), f.name), arg, arg, scope)
                continue
            if _is_undefined_keyword(arg, scope):
                ftype = self.formal_type(f)
                if not isinstance(ftype, Simple):
                    raise self.error(f"value parameter {f.name!r} of array or record type is not supported; "
                                     "declare it Var", f)
                tmp = self.fresh_temp(decl.name, f.name)
                out.append(ir.Assign(ir.Name(tmp), ir.Const(ftype.undefined)))
                inner[f.name] = LocalSym(tmp, ftype, temporary=True, sentinel=True)
                continue
            ftype, v = self.value_argument(f, arg, scope)
            if f.name not in assigned and _stable(v.expr, stable) and v.defined == ir.TRUE and v.within(ftype):
                inner[f.name] = ValueSym(v)  # cannot change while the body runs: substitute
                continue
            tmp = self.fresh_temp(decl.name, f.name)
            source = self.copy_source(arg, scope)
            if source is not None:
                # As an assignment: the parameter may start undefined (CMurphi reads nothing).
                sref, undefined, stype, sdefined = source
                out.extend(self._check(sdefined, arg))
                if not (ftype.lo <= stype.lo and stype.hi <= ftype.hi) and undefined != ir.TRUE:
                    out.append(ir.Assert(disj(undefined, _in_range(sref, ftype.lo, ftype.hi)),
                                         f"{self.path or '<input>'}:{arg.line}: argument out of range of {f.name}"))
                value = sref if stype.lo == ftype.lo else fold(ir.Ite(undefined, ir.Const(ftype.undefined), sref))
                out.append(ir.Assign(ir.Name(tmp), value))
                inner[f.name] = LocalSym(tmp, ftype, temporary=True, sentinel=True)
                continue
            out.extend(self._check(v.defined, arg))
            if not v.within(ftype):
                out.append(ir.Assert(_in_range(v.expr, ftype.lo, ftype.hi),
                                     f"{self.path or '<input>'}:{arg.line}: argument out of range of {f.name}"))
            out.append(ir.Assign(ir.Name(tmp), v.expr))
            inner[f.name] = LocalSym(tmp, ftype, temporary=True)
        flag = None
        if _returns_early(decl.body):
            flag = self.fresh_temp(decl.name, "returned")
            out.append(ir.Assign(ir.Name(flag), ir.Const(0)))
        inner[RETURN] = ContextSym(flag)
        local_vars: list[LocalSym] = []

        def variable(name: str, t: Simple) -> LocalSym:
            sym = LocalSym(self.fresh_temp(decl.name, name), t, temporary=True, sentinel=True)
            local_vars.append(sym)
            return sym

        body_scope = self.local_scope(decl.decls, inner, self.temp_names, variable)
        out += [ir.Assign(ir.Name(v.ir_name), ir.Const(v.type.undefined)) for v in local_vars]
        out += self.take_aggregate_inits()
        out += self.stmts(decl.body, body_scope)
        self.live_aggregates = live  # the call's own local aggregates end with it
        return out

    def value_argument(self, f: Formal, arg: Expr, scope: Scope) -> tuple[Simple, Value]:
        """The type of value parameter ``f`` (arrays and records are refused) and the value of
        its argument ``arg``."""
        ftype = self.formal_type(f)
        if not isinstance(ftype, Simple):
            raise self.error(f"value parameter {f.name!r} of array or record type is not supported; "
                             "declare it Var", f)
        return ftype, self.expr(arg, scope)

    def call_function(self, e: Call, scope: Scope) -> Value:
        """The value of function call ``e``: the body executed symbolically (``_FunctionRun``)
        into one expression; its ``defined`` is the condition that no fault happens."""
        decl = self.routine(e, scope, "function")
        rtype = self.resolve_type(decl.result, dict(self.globals))
        if not isinstance(rtype, Simple):
            raise self.error(f"function {decl.name!r} returns an array or record; not supported", decl.result)
        run = _FunctionRun(self, decl, rtype)
        base: dict[str, Symbol] = dict(self.globals)
        base[CALLS] = ContextSym(_calls(scope) + (decl.name,))
        entry_ok: ir.Expr = ir.TRUE
        assigned = _assigned_names(decl.body)
        for f, arg in zip(decl.formals, e.args):
            if f.by_reference:
                # The function writes no state, so the reference can stay symbolic.
                base[f.name] = self.reference(f, arg, scope, [], decl.name)
                continue
            if not isinstance(self.formal_type(f), Simple) and isinstance(arg, Designator):
                # A record or array passed by value (gcd_2.m's ``compare(ar_1, ar_2:
                # cmp_type)``): the function writes no state and ``mu`` refuses writes to a
                # value parameter, so the argument itself, read in place, is the copy.
                if f.name in assigned:
                    raise self.error(f"value parameter {f.name!r} is assigned (CMurphi refuses that too)", f)
                base[f.name] = self.reference(f, arg, scope, [], decl.name)
                continue
            ftype, v = self.value_argument(f, arg, scope)
            ok = v.defined if v.within(ftype) else conj(v.defined, _in_range(v.expr, ftype.lo, ftype.hi))
            entry_ok = conj(entry_ok, ok)
            base[f.name] = run.new_local(f.name, ftype, Value(v.expr, *((v.lo, v.hi) if v.within(ftype) else (ftype.lo, ftype.hi))))
        saved, self.aggregates = self.aggregates, None  # a function becomes one expression
        try:
            body_scope = self.local_scope(
                decl.decls, base, self.temp_names,
            lambda name, t: run.new_local(name, t, Value(ir.Const(t.undefined), t.lo, t.hi, ir.FALSE)))
        finally:
            self.aggregates = saved
        run.block(decl.body, ir.TRUE, body_scope)
        if run.result is None:
            raise self.error(f"function {decl.name!r} never returns a value", decl)
        defined = conj(entry_ok, conj(neg(run.fault), run.returned))
        return _const_value(Value(run.result.expr, rtype.lo, rtype.hi, defined))

    def _if(self, branches, else_, scope: Scope) -> list[ir.Stmt]:
        if not branches:
            return self.stmts(else_, scope)
        cond, body = branches[0]
        c = self.expr(cond, scope)
        then = self.stmts(body, scope)
        rest = self._if(branches[1:], else_, scope)
        check = self._check(c.defined, cond)
        if isinstance(c.expr, ir.Const):
            return check + (then if c.expr.value else rest)
        return check + [ir.If(c.expr, tuple(then), tuple(rest))]

    def _assign(self, s: AssignStmt, scope: Scope) -> list[ir.Stmt]:
        target = self.access(s.target, scope)
        if isinstance(target, Access) and ("$elem" in target.path or _has_multiset(target.type)):
            self.multisets_touched.add(target.var.name)  # its order may change: sorted after the rule
        if isinstance(target, Value):
            raise self.error(f"cannot assign to constant {s.target.name!r}", s.target)
        if isinstance(target, LocalSym):
            if not target.temporary:
                raise self.error(f"cannot assign to ruleset parameter {s.target.name!r}", s.target)
            source = self.copy_source(s.value, scope) if target.sentinel else None
            if source is not None:
                sref, undefined, stype, sdefined = source
                t = target.type
                out = self._check(sdefined, s)
                value = sref if stype.lo == t.lo else fold(ir.Ite(undefined, ir.Const(t.undefined), sref))
                if not (t.lo <= stype.lo and stype.hi <= t.hi) and undefined != ir.TRUE:
                    out.append(ir.Assert(disj(undefined, _in_range(sref, t.lo, t.hi)),
                                         f"{self.path or '<input>'}:{s.line}: value out of range of {s.target.name}"))
                return out + [ir.Assign(ir.Name(target.ir_name), value)]
            v = self.expr(s.value, scope)
            out = self._check(v.defined, s)
            if not v.within(target.type):
                out.append(ir.Assert(_in_range(v.expr, target.type.lo, target.type.hi),
                                     f"{self.path or '<input>'}:{s.line}: value out of range of {s.target.name}"))
            return out + [ir.Assign(ir.Name(target.ir_name), v.expr)]
        if not isinstance(target.type, Simple):
            return self._copy(target, s, scope)
        leaf, ref, index_defined = self.scalar_access(target, s.target)
        source = self.copy_source(s.value, scope)
        if source is not None:
            # CMurphi copies a designator's value, undefined included: no read, no fault.
            sref, undefined, stype, sdefined = source
            out = self._check(conj(sdefined, index_defined), s)
            value = sref if stype.lo == leaf.type.lo else fold(ir.Ite(undefined, ir.Const(leaf.type.undefined), sref))
            if not (leaf.type.lo <= stype.lo and stype.hi <= leaf.type.hi) and undefined != ir.TRUE:
                out.append(ir.Assert(disj(undefined, _in_range(sref, leaf.type.lo, leaf.type.hi)),
                                     f"{self.path or '<input>'}:{s.line}: value out of range of {target.text}"))
            self.undefined_writes.add(leaf.ir_name)
            return out + [ir.Assign(ref, value)]
        v = self.expr(s.value, scope)
        out = self._check(conj(v.defined, index_defined), s)
        if leaf.ir_name in self.undefinable and not v.within(leaf.type):
            # The undefined value lo-1 is in the IR domain: reject it (and anything else out
            # of range) here, as the IR's domain check does for the other variables.
            out.append(ir.Assert(_in_range(v.expr, leaf.type.lo, leaf.type.hi),
                                 f"{self.path or '<input>'}:{s.line}: value out of range of {target.text}"))
        return out + [ir.Assign(ref, v.expr)]

    def copy_source(self, e, scope: Scope) -> Optional[tuple[ir.Expr, ir.Expr, Simple, ir.Expr]]:
        """``e`` if it is a simple designator that may hold the undefined value, as
        ``(reference, "is undefined", its type, definedness of its subscripts)``."""
        if not isinstance(e, Designator):
            return None
        if _is_undefined_keyword(e, scope):
            # CMurphi's ``UNDEFINED`` (newlist6.m: ``Send(Add, d, s, UNDEFINED, UNDEFINED)``):
            # a value that is undefined in every type; copying it reads nothing.
            return ir.Const(0), ir.TRUE, UNDEFINED_SOURCE, ir.TRUE
        a = self.access(e, scope)
        if isinstance(a, LocalSym) and a.sentinel:
            name = ir.Name(a.ir_name)
            return name, ir.Binary("==", name, ir.Const(a.type.undefined)), a.type, ir.TRUE
        if not isinstance(a, Access) or not isinstance(a.type, Simple):
            return None
        leaf, ref, defined = self.scalar_access(a, e)
        if leaf.ir_name not in self.undefinable:
            return None
        if (a.indices or a.path) and leaf.type.kind != "scalarset":
            # CMurphi copies a whole variable as it is, but reads an element or a field,
            # also through an alias (``b := fl[1]``, ``i := r.f``: "The undefined value at
            # fl[1] is referenced"); a scalarset is never read.
            return None
        return ref, ir.Binary("==", ref, ir.Const(leaf.type.undefined)), leaf.type, defined

    def _copy(self, target: Access, s: AssignStmt, scope: Scope) -> list[ir.Stmt]:
        return self._copy_into(target, s.value, s, scope)

    def _copy_into(self, target: Access, value, s, scope: Scope) -> list[ir.Stmt]:
        """``a := b`` for arrays and records of the same type: element by element, undefined
        elements included (a copy reads no value); ``a := F(...)`` for a function ``F``
        returning that type runs ``F`` inlined with its ``Return e`` copying ``e`` into ``a``."""
        if isinstance(value, Call) and isinstance(_lookup(scope, value.name), RoutineSym):
            return self.call_procedure(value, scope, result=target)
        if isinstance(value, Conditional):
            # ``a := c ? b : d`` of arrays (btor2murphi's ``node52 := in_rd[0]?node51:out_data``).
            c = self.expr(value.cond, scope)
            then = self._copy_into(target, value.then, s, scope)
            other = self._copy_into(target, value.else_, s, scope)
            if isinstance(c.expr, ir.Const):
                return self._check(c.defined, value.cond) + (then if c.expr.value else other)
            return self._check(c.defined, value.cond) + [ir.If(c.expr, tuple(then), tuple(other))]
        source = self.access(value, scope) if isinstance(value, Designator) else None
        if not isinstance(source, Access) or source.type != target.type:
            raise self.error(f"{target.text} is an array or record; expected a variable of the same type", value)
        out: list[ir.Stmt] = []
        copies = list(zip(self.leaf_targets(target), self.leaf_targets(source)))
        for (tleaf, tref, tdef), (sleaf, sref, sdef) in copies:
            out += self._check(conj(tdef, sdef), s)
            if sleaf.ir_name in self.undefinable:
                self.undefined_writes.add(tleaf.ir_name)
        # All elements are read before any is written (``A := A`` with overlap is harmless,
        # but a record copied into a part of itself must see the old values).
        # Temporaries need identifier names (the compiled explorer makes them Python
        # variables); Murphi names cannot contain '.', so "_copy" names with '_' are free
        # unless a variable took one: lengthen until unused.
        used = {leaf.ir_name for var in self.variables for leaf in var.leaves.values()}
        used |= {s.ir_name for s in scope.values() if isinstance(s, LocalSym)}
        stem = f"{target.var.name}_copy"
        while any(u.startswith(stem) for u in used):
            stem += "_"
        temps = [ir.Name(f"{stem}{k}") for k in range(len(copies))]
        out += [ir.Assign(tmp, sref) for tmp, (_, (_, sref, _)) in zip(temps, copies)]
        out += [ir.Assign(tref, tmp) for tmp, ((_, tref, _), _) in zip(temps, copies)]
        return out


def _multiset_instances(var: VarSym) -> Iterator[Access]:
    """Every multiset inside ``var`` (itself, in records, in arrays: one per element)."""
    def walk(t: Type, path: tuple[str, ...], indices: tuple) -> Iterator[Access]:
        if isinstance(t, Record) and t.multiset:
            yield Access(var, t, path, indices, var.name)
        elif isinstance(t, Record):
            for name, f in t.fields:
                yield from walk(f, path + (name,), indices)
        elif isinstance(t, Array):
            for x in t.index.values:
                yield from walk(t.element, path, indices + (Value(ir.Const(x), x, x),))

    yield from walk(var.type, (), ())


def _has_multiset(t: Type) -> bool:
    if isinstance(t, Record):
        return bool(t.multiset) or any(_has_multiset(f) for _, f in t.fields)
    return isinstance(t, Array) and _has_multiset(t.element)


def _union_members(program: Program) -> frozenset[str]:
    """The named types that some ``Union`` of the program's declarations lists."""
    names: set[str] = set()

    def walk(t) -> None:
        if isinstance(t, UnionType):
            names.update(m.name for m in t.members if isinstance(m, TypeName))
            for m in t.members:
                walk(m)
        elif isinstance(t, ArrayType):
            walk(t.index)
            walk(t.element)
        elif isinstance(t, RecordType):
            for f in t.fields:
                walk(f.type)

    for item in program.items:
        if isinstance(item, (TypeDecl, VarDecl)):
            walk(item.type)
    return frozenset(names)


def _calls(scope: Scope) -> tuple[str, ...]:
    sym = scope.get(CALLS)
    return sym.value if isinstance(sym, ContextSym) else ()


def _first_call(e) -> Optional[Call]:
    """The first function call in syntax tree ``e``, or None."""
    if isinstance(e, Call):
        return e
    if isinstance(e, tuple):
        return next((c for c in map(_first_call, e) if c is not None), None)
    if is_dataclass(e):
        return next((c for c in (_first_call(getattr(e, f.name)) for f in fields(e)) if c is not None), None)
    return None


def _return_scope(tr: _Translator, scope: Scope, body) -> tuple[Scope, list[ir.Stmt]]:
    """``scope`` for a rule or start state whose ``body`` may ``Return`` (a flag temporary,
    cleared by the statements returned, when one returns before the end)."""
    if not any(_contains_return(s) for s in body):
        return scope, []
    inner = dict(scope)
    flag = tr.fresh_temp("rule", "returned") if _returns_early(body) else None
    inner[RETURN] = ContextSym(flag)
    return inner, ([ir.Assign(ir.Name(flag), ir.Const(0))] if flag else [])


def _return_flag(scope: Scope) -> Optional[str]:
    sym = scope.get(RETURN)
    return sym.value if isinstance(sym, ContextSym) else None


def _not_returned(flag: str) -> ir.Expr:
    return ir.Binary("==", ir.Name(flag), ir.Const(0))


def _shape(t: Type):
    """``t`` up to the names of its simple types (a Var parameter's type must match)."""
    if isinstance(t, Simple):
        return (t.lo, t.hi)
    if isinstance(t, Array):
        return ("array", _shape(t.index), _shape(t.element))
    return ("record", tuple((n, _shape(f)) for n, f in t.fields))


def _stable_names(scope: Scope) -> set[str]:
    """IR names that keep their value while a summand runs: its locals (ruleset
    parameters, witnesses), never assigned."""
    return {s.ir_name for s in scope.values() if isinstance(s, LocalSym) and not s.temporary}


def _stable(e: ir.Expr, names: set[str]) -> bool:
    """``e`` reads only constants and ``names`` (no state, no temporary)."""
    return not any(isinstance(x, ir.Index) for x in subexpressions(e)) and names_read(e) <= names


def _syntax_nodes(node) -> Iterator:
    """Every syntax node in ``node`` (a node or a tuple of them), ``node`` included."""
    if isinstance(node, tuple):
        for x in node:
            yield from _syntax_nodes(x)
    elif is_dataclass(node):
        yield node
        for f in fields(node):
            if f.name != "pos":
                yield from _syntax_nodes(getattr(node, f.name))


def _unconditional_calls(e) -> Iterator[Call]:
    """The calls evaluating ``e`` always makes (not under the right of ``&``, ``|``, ``->``,
    a ``?:`` branch or a quantifier: CMurphi's C++ short-circuits them)."""
    if isinstance(e, Call):
        yield e
    elif isinstance(e, BinaryOp) and e.op in ("&", "|", "->"):
        yield from _unconditional_calls(e.left)
    elif isinstance(e, Conditional):
        yield from _unconditional_calls(e.cond)
    elif isinstance(e, Quantified):
        return
    elif isinstance(e, tuple):
        for x in e:
            yield from _unconditional_calls(x)
    elif is_dataclass(e):
        for f in fields(e):
            if f.name != "pos":
                yield from _unconditional_calls(getattr(e, f.name))


def _replace_calls(node, names: dict[int, str]):
    """``node`` with each call whose id ``names`` maps replaced by a designator of that name."""
    if isinstance(node, Call) and id(node) in names:
        return Designator(names[id(node)], (), node.pos)
    if isinstance(node, tuple):
        return tuple(_replace_calls(x, names) for x in node)
    if is_dataclass(node) and not isinstance(node, type):
        changes = {f.name: _replace_calls(getattr(node, f.name), names) for f in fields(node) if f.name != "pos"}
        if any(changes[k] is not getattr(node, k) for k in changes):
            return replace(node, **changes)
    return node


def _sub_statements(s) -> Iterator:
    if isinstance(s, IfStmt):
        for _, body in s.branches:
            yield from body
        yield from s.else_
    elif isinstance(s, (WhileStmt, ForStmt, AliasStmt)):
        yield from s.body


def _contains_return(s) -> bool:
    return isinstance(s, ReturnStmt) or any(_contains_return(x) for x in _sub_statements(s))


def _returns_early(body) -> bool:
    """Whether a ``Return`` in ``body`` is anything but its last statement (which needs no flag)."""
    if not body:
        return False
    return any(_contains_return(s) for s in body[:-1]) or (
        not isinstance(body[-1], ReturnStmt) and _contains_return(body[-1]))


def _assigned_names(body) -> set[str]:
    """Names a body may change: assigned, cleared, undefined, passed as a bare designator to a
    procedure (perhaps by reference) or aliased (over-approximated: that is safe)."""
    names: set[str] = set()
    for s in body:
        if isinstance(s, (AssignStmt, ClearStmt, UndefineStmt)):
            names.add(s.target.name)
        elif isinstance(s, Call):
            names |= {a.name for a in s.args if isinstance(a, Designator)}
        elif isinstance(s, AliasStmt):
            names |= {t.name for _, t, _ in s.aliases if isinstance(t, Designator)}
        names |= _assigned_names(tuple(_sub_statements(s)))
    return names


def _merge(c: ir.Expr, new: "Value", old: Optional["Value"]) -> "Value":
    """``new`` where ``c`` holds, else ``old``."""
    if c == ir.TRUE or old is None or new == old:
        return new
    if c == ir.FALSE:
        return old
    lo = None if new.lo is None or old.lo is None else min(new.lo, old.lo)
    hi = None if new.hi is None or old.hi is None else max(new.hi, old.hi)
    return Value(_ite(c, new.expr, old.expr), lo, hi, _ite(c, new.defined, old.defined))


def _ite(c: ir.Expr, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    """``c ? a : b``, as ``&&``/``||`` where both sides are truth values.

    Why: a function's ``For`` loop with an early ``Return true`` comes out as a chain of
    ``Ite``s in loop order, which hides the loop's symmetry from the detection; as one
    ``||`` chain the CSP sees an n-ary disjunction whose operands may be exchanged."""
    if a == b:
        return a
    if isinstance(c, ir.Const):
        return a if c.value else b
    if is_truth(c) and is_truth(a) and is_truth(b):
        if a == ir.TRUE:
            return disj(c, b)
        if a == ir.FALSE:
            return conj(neg(c), b)
        if b == ir.FALSE:
            return conj(c, a)
        if b == ir.TRUE:
            return disj(neg(c), a)
    return ir.Ite(c, a, b)


class _FunctionRun:
    """Symbolic execution of one inlined function body into expressions.

    A function may not change state (CMurphi allows it; we refuse it: an IR expression
    cannot), so its body only assigns its own locals and value parameters.  Each statement
    runs under a path condition; an assignment makes the local ``Ite(path, new, old)``.
    ``fault`` is the condition under which the body faults (undefined read, range, ``Error``,
    failed ``Assert``), ``returned`` the condition that it has returned and ``result`` the
    value it returned.  Mutable, but local to one ``call_function``."""

    def __init__(self, tr: _Translator, decl: RoutineDecl, rtype: Simple):
        self.tr, self.decl, self.rtype = tr, decl, rtype
        self.values: dict[str, Value] = {}
        self.fault: ir.Expr = ir.FALSE
        self.returned: ir.Expr = ir.FALSE
        self.result: Optional[Value] = None

    def new_local(self, name: str, t: Simple, value: Value) -> FnLocal:
        key = f"{name}#{len(self.values)}"
        self.values[key] = value
        return FnLocal(key, t)

    def view(self, scope: Scope) -> dict[str, Symbol]:
        """``scope`` with every local replaced by its current value."""
        return {k: ValueSym(self.values[s.key]) if isinstance(s, FnLocal) else s for k, s in scope.items()}

    def fail(self, active: ir.Expr, bad: ir.Expr) -> None:
        if bad != ir.FALSE:
            self.fault = disj(self.fault, conj(active, bad))

    def side_effect(self, node, what: str) -> InputError:
        return self.tr.error(
            f"function {self.decl.name!r} {what}: functions with side effects are not supported "
            "(a function may assign only its own locals and value parameters)", node)

    def assign(self, target: Designator, value: Value, active: ir.Expr, scope: Scope, node) -> None:
        sym = _lookup(scope, target.name)
        if sym is None:
            raise self.tr.error(f"unknown identifier {target.name!r}", target)
        if not isinstance(sym, FnLocal) or target.selectors:
            raise self.side_effect(node, f"changes {target.name!r}")
        t = sym.type
        # Out of range is a fault for a defined value (an undefined one is copied: callers
        # that read it have already made its reading a fault).
        if not value.within(t):
            self.fail(active, conj(value.defined, neg(_in_range(value.expr, t.lo, t.hi))))
        stored = Value(value.expr, *((value.lo, value.hi) if value.within(t) else (t.lo, t.hi)), value.defined)
        self.values[sym.key] = _merge(active, stored, self.values[sym.key])

    def copied(self, e, active: ir.Expr, scope: Scope) -> Optional[Value]:
        """``e``'s value with its definedness, if ``e`` is a bare designator (a local, or a
        global that may be undefined); faults only for its subscripts."""
        if not isinstance(e, Designator):
            return None
        sym = _lookup(scope, e.name)
        if isinstance(sym, FnLocal) and not e.selectors:
            return self.values[sym.key]
        source = self.tr.copy_source(e, self.view(scope))
        if source is None:
            return None
        sref, undefined, stype, sdefined = source
        self.fail(active, neg(sdefined))
        return Value(sref, stype.lo, stype.hi, neg(undefined))

    def computed_for(self, s: ForStmt, active: ir.Expr, scope: Scope, pc: ir.Expr) -> None:
        """``For i := lo To hi`` with a computed bound (gcd_2.m's ``For i := 0 To
        ar_1.length - 1``), as ``_Translator.computed_for``: the bounds read once on entry,
        the body unrolled over every value their types allow, each copy under ``lo <= i <= hi``."""
        tr, q = self.tr, s.quantifiers[0]
        view = self.view(scope)
        lo, hi = (tr.expr(e, view) for e in (q.lo, q.hi))
        for v, e in ((lo, q.lo), (hi, q.hi)):
            if v.lo is None or v.hi is None:
                raise tr.error("expected a constant expression or a value of a bounded type", e)
            self.fail(active, neg(v.defined))
        step = 1 if q.step is None else tr.const(q.step, scope)
        if step not in (1, -1):
            raise tr.error("a For loop with a computed bound in a function needs step 1 or -1", q)
        values = range(lo.lo, hi.hi + 1) if step > 0 else range(lo.hi, hi.lo - 1, -1)
        if len(values) > MAX_ELEMENTS:
            raise tr.error(f"more than {MAX_ELEMENTS} iterations", q)
        tr.unroll(len(values), q)
        op = "<=" if step > 0 else ">="
        body = s.body if len(s.quantifiers) == 1 else (ForStmt(s.quantifiers[1:], s.body, s.pos),)
        for k in values:
            guard = fold(conj(ir.Binary(op, lo.expr, ir.Const(k)), ir.Binary(op, ir.Const(k), hi.expr)))
            inner = dict(scope)
            inner[q.name] = ConstSym(k, None)
            if guard != ir.FALSE:
                self.block(body, conj(pc, guard), inner)

    def block(self, stmts, pc: ir.Expr, scope: Scope) -> None:
        for s in stmts:
            active = conj(pc, neg(self.returned)) if self.returned != ir.FALSE else pc
            if active == ir.FALSE:
                return
            if isinstance(s, (AssumeStmt, CoverStmt)):
                # Rumur: a failed Assume disables the rule in a guard, discards the step in a
                # rule and the state in an invariant; a Cover is hit by a run of the call --
                # one expression can say neither.
                what = "Assume" if isinstance(s, AssumeStmt) else "Cover"
                raise self.tr.error(f"'{what}' in function {self.decl.name!r} is not supported (a function "
                                    "becomes one expression)", s)
            self.stmt(s, active, scope, pc)

    def stmt(self, s, active: ir.Expr, scope: Scope, pc: ir.Expr) -> None:
        """Run ``s`` where ``active`` (= ``pc`` and not yet returned) holds."""
        tr = self.tr
        if isinstance(s, AssignStmt):
            copied = self.copied(s.value, active, scope)
            if copied is not None:
                # A bare designator copies its value, undefined included (as in CMurphi).
                self.assign(s.target, copied, active, scope, s)
                return
            v = tr.expr(s.value, self.view(scope))
            self.fail(active, neg(v.defined))
            self.assign(s.target, Value(v.expr, v.lo, v.hi), active, scope, s)
        elif isinstance(s, (ClearStmt, UndefineStmt)):
            sym = _lookup(scope, s.target.name)
            if not isinstance(sym, FnLocal) or s.target.selectors:
                if sym is None:
                    raise tr.error(f"unknown identifier {s.target.name!r}", s.target)
                raise self.side_effect(s, f"changes {s.target.name!r}")
            t = sym.type
            new = Value(ir.Const(t.lo), t.lo, t.lo) if isinstance(s, ClearStmt) else \
                Value(ir.Const(t.undefined), t.lo, t.hi, ir.FALSE)
            self.values[sym.key] = _merge(active, new, self.values[sym.key])
        elif isinstance(s, IfStmt):
            # All conditions read the locals as they are before any branch runs.
            # Branch paths are ``pc`` and the branch's conditions; ``block`` adds "not yet
            # returned" itself (keeping it out of ``pc`` keeps ``returned`` an || chain).
            view = self.view(scope)
            conds = [tr.expr(c, view) for c, _ in s.branches]
            chain = ir.TRUE  # the earlier conditions are false
            for c, (_, body) in zip(conds, s.branches):
                self.fail(conj(active, chain), neg(c.defined))
                taken = conj(pc, conj(chain, c.expr))
                chain = conj(chain, neg(c.expr))
                if taken != ir.FALSE:
                    self.block(body, taken, scope)
            if chain != ir.FALSE:
                self.block(s.else_, conj(pc, chain), scope)
        elif isinstance(s, ForStmt) and s.quantifiers and tr.computed_range(s.quantifiers[0], self.view(scope)):
            self.computed_for(s, active, scope, pc)
        elif isinstance(s, ForStmt):
            for inner in tr.quantified_scopes(s.quantifiers, scope):
                self.block(s.body, pc, inner)
        elif isinstance(s, WhileStmt):
            raise tr.error(f"'While' in function {self.decl.name!r} is not supported "
                           "(a function becomes one expression)", s)
        elif isinstance(s, ReturnStmt):
            if s.value is None:
                raise tr.error(f"function {self.decl.name!r}: 'Return' needs a value", s)
            v = tr.expr(s.value, self.view(scope))
            t = self.rtype
            ok = v.defined if v.within(t) else conj(v.defined, _in_range(v.expr, t.lo, t.hi))
            self.fail(active, neg(ok))
            self.result = _merge(active, Value(v.expr, t.lo, t.hi), self.result)
            # returned | (pc & !returned) == returned | pc: keeps an n-ary || chain.
            self.returned = disj(self.returned, pc)
        elif isinstance(s, ErrorStmt):
            self.fail(active, ir.TRUE)
        elif isinstance(s, AssertStmt):
            c = tr.expr(s.cond, self.view(scope))
            self.fail(active, neg(conj(c.defined, c.expr)))
        elif isinstance(s, Call):
            raise self.side_effect(s, f"calls procedure {s.name!r}")
        elif isinstance(s, AliasStmt):
            inner = dict(scope)
            for name, target, _ in s.aliases:
                sym = _lookup(inner, target.name) if isinstance(target, Designator) else None
                if isinstance(sym, FnLocal) and not target.selectors:
                    inner[name] = sym  # the local itself, as it changes
                    continue
                view = self.view(inner)
                if isinstance(target, Designator):
                    a = tr.access(target, view)
                    inner[name] = ValueSym(a) if isinstance(a, Value) else AliasSym(a)
                else:
                    v = tr.expr(target, view)
                    self.fail(active, neg(v.defined))
                    inner[name] = ValueSym(Value(v.expr, v.lo, v.hi))
            self.block(s.body, pc, inner)
        else:
            raise tr.error("unsupported statement", s)


#: The type of the ``UNDEFINED`` keyword as a copy source: no type's values (so every copy
#: takes the target's own undefined value).
UNDEFINED_SOURCE = Simple("undefined", -(10 ** 9), -(10 ** 9), "UNDEFINED")


def _is_undefined_keyword(e, scope: Scope) -> bool:
    return (isinstance(e, Designator) and not e.selectors and e.name.lower() == "undefined"
            and _lookup(scope, e.name) is None)


def _lookup(scope: Scope, name: str) -> Optional[Symbol]:
    """``name`` in ``scope``; ``boolean``, ``true`` and ``false`` are reserved words in
    CMurphi and so, like every keyword, case-insensitive."""
    sym = scope.get(name)
    if sym is None and name.lower() in PREDEFINED:
        sym = scope.get(name.lower())
    return sym


def fresh_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name_2``, ``name_3``, ... if taken; the result is added to ``taken``."""
    candidate, k = name, 1
    while candidate in taken:
        k += 1
        candidate = f"{name}_{k}"
    taken.add(candidate)
    return candidate


# ---------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class _Param:
    """A ruleset parameter: its source name, IR local name and values."""

    name: str
    ir_name: str
    values: tuple[int, ...]
    type: Optional[Simple]
    #: an ``Alias name : alias Do <rules> End`` around rules instead of a parameter: the
    #: name stands for the designator or expression in the rules (``_param_scope``)
    alias: Optional[Expr] = None
    #: a ``Choose`` index: the rules inside run only where this holds (the place is taken)
    guard: Optional[Expr] = None


def _reals(params) -> tuple[_Param, ...]:
    """The ruleset parameters among ``params`` (not the aliases)."""
    return tuple(p for p in params if p.alias is None)


def _walk_rules(tr: _Translator, rules, params: tuple[_Param, ...], taken: frozenset[str]):
    """``(rule, params)`` for every rule, startstate and invariant inside rulesets."""
    for r in rules:
        if isinstance(r, RuleSet):
            ps = list(params)
            names = set(taken) | {p.ir_name for p in _reals(params)}
            scope = _param_scope(tr, ps)
            for q in r.quantifiers:
                values, qtype = tr.quantifier_values(q, scope)
                if not values:
                    raise tr.error(f"ruleset parameter {q.name!r} has no values", q)
                p = _Param(q.name, fresh_name(q.name, names), values, qtype)
                ps.append(p)
                scope = _param_scope(tr, ps)
            yield from _walk_rules(tr, r.rules, tuple(ps), taken)
        elif isinstance(r, ChooseRule):
            names = set(taken) | {p.ir_name for p in _reals(params)}
            _, n = tr.multiset_access(r.multiset, _param_scope(tr, params), write=False)
            pos = r.pos
            valid = Designator(r.multiset.name, r.multiset.selectors + (
                Field("$valid", pos), Subscript(Designator(r.name, (), pos), pos)), pos)
            p = _Param(r.name, fresh_name(r.name, names), tuple(range(n)), Simple("subrange", 0, n - 1), guard=valid)
            for inner in r.rules:
                if isinstance(inner, StartState):
                    raise tr.error("a Startstate inside Choose is not supported", inner)
            yield from _walk_rules(tr, r.rules, params + (p,), taken)
        elif isinstance(r, AliasRule):
            aliases = tuple(_Param(name, "", (), None, target) for name, target, _ in r.aliases)
            yield from _walk_rules(tr, r.rules, params + aliases, taken)
        else:
            yield r, params


def _param_scope(tr: _Translator, params, as_constants: Optional[tuple[int, ...]] = None) -> dict[str, Symbol]:
    """Globals with ``params`` bound as summand locals, or to the values ``as_constants``."""
    scope: dict[str, Symbol] = dict(tr.globals)
    k = -1
    for p in params:
        if p.alias is not None:
            scope[p.name] = tr.alias_symbol(p.alias, scope)
            continue
        k += 1
        t = p.type or Simple("subrange", min(p.values), max(p.values))
        if as_constants is not None:
            scope[p.name] = ConstSym(as_constants[k], p.type)
        else:
            scope[p.name] = LocalSym(p.ir_name, t)
    return scope


#: Most summands one rule may split into (see ``_Cases``); beyond it the rule keeps its
#: conditions as expressions (the same LTS, possibly less symmetry visible to detection).
MAX_CASES = 64


@dataclass(frozen=True)
class Case:
    """One way a condition can come out: guard ``conjuncts`` over the summand's locals plus
    the existential ``locals`` (witnesses of ``Exists`` / failed ``Forall``) it adds."""

    conjuncts: tuple[ir.Expr, ...] = ()
    locals: tuple[ir.Local, ...] = ()


def _product(xs: list[Case], ys: list[Case]) -> list[Case]:
    return [Case(a.conjuncts + b.conjuncts, a.locals + b.locals) for a in xs for b in ys]


@dataclass(frozen=True)
class _Cases:
    """A condition split into mutually exclusive cases: it is true, false, or evaluating it
    reads an undefined value (``fault``), each a disjunction of ``Case``s.

    Why: the CSP encodes ``a && b`` inside an expression as a chain of binary functions, whose
    graph cannot exchange the conjuncts of ``Forall k: pid Do c(k) End`` (only a guard's
    top-level conjuncts become separate constraints), so a quantifier over a scalarset would
    hide the scalarset's symmetry.  As guard conjuncts, the copies of ``c(k)`` are separate
    constraints of one shape; a false ``Forall`` (a true ``Exists``) becomes a witness local
    ``k`` with the guard ``!c(k)`` -- the witnesses lead to the same successor, so the
    transition system is unchanged.
    """

    true: list[Case]
    false: list[Case]
    fault: list[Case]

    def negated(self) -> "_Cases":
        return _Cases(self.false, self.true, self.fault)

    def too_big(self) -> bool:
        return max(len(self.true), len(self.false), len(self.fault)) > MAX_CASES


def _boolean_range(v: Value) -> bool:
    """``v`` takes only the values 0 and 1 (a boolean, or a number that logic reads alike)."""
    return v.lo is not None and 0 <= v.lo and v.hi <= 1


def _bitwise_range(op: str, a: Value, b: Value) -> tuple[Optional[int], Optional[int]]:
    """Bounds of ``a op b`` for bitwise ``op`` on non-negative operands (else unknown)."""
    if a.lo is None or b.lo is None or a.lo < 0 or b.lo < 0:
        return None, None
    top = (1 << max(a.hi, b.hi).bit_length()) - 1
    return (0, min(a.hi, b.hi)) if op == "&" else (0, top)


#: Rumur's shifts act on 64-bit values: a shift by 64 or more either way gives 0.
_SHIFT_WIDTH = 64


def _shift(op: str, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    """Rumur's ``a << b`` / ``a >> b``: a negative ``b`` shifts the other way, an overshift
    gives 0 (the IR's shifts take ``0 <= b < 64`` only)."""
    other = ">>" if op == "<<" else "<<"
    if isinstance(b, ir.Const):  # the usual case: one operator, or 0
        if not -_SHIFT_WIDTH < b.value < _SHIFT_WIDTH:
            return ir.Const(0)
        return fold(ir.Binary(op, a, b) if b.value >= 0 else ir.Binary(other, a, ir.Const(-b.value)))
    inside = ir.Binary("&&", ir.Binary(">", b, ir.Const(-_SHIFT_WIDTH)), ir.Binary("<", b, ir.Const(_SHIFT_WIDTH)))
    ways = ir.Ite(ir.Binary(">=", b, ir.Const(0)), ir.Binary(op, a, b), ir.Binary(other, a, ir.Unary("-", b)))
    return ir.Ite(inside, ways, ir.Const(0))


def _split(tr: _Translator, e, scope: Scope, taken: set[str]) -> Optional[_Cases]:
    """``e`` as ``_Cases``, or ``None`` where splitting is not exact or too big (then the
    caller keeps ``e`` as an expression)."""
    if isinstance(e, UnaryOp) and e.op == "!":
        inner = _split(tr, e.operand, scope, taken)
        return None if inner is None else inner.negated()
    if isinstance(e, BinaryOp) and e.op in ("&", "|", "->"):
        a = _split(tr, e.left, scope, taken)
        if a is None:
            return None
        b = _split(tr, e.right, scope, taken)
        if b is None:
            return None
        if e.op == "->":
            a = a.negated()
        if e.op == "&":
            result = _Cases(_product(a.true, b.true), a.false + _product(a.true, b.false),
                            a.fault + _product(a.true, b.fault))
        else:
            result = _Cases(a.true + _product(a.false, b.true), _product(a.false, b.false),
                            a.fault + _product(a.false, b.fault))
        return None if result.too_big() else result
    if isinstance(e, Quantified):
        return _split_quantified(tr, e.kind, e.quantifiers, e.body, scope, taken)
    v = tr.expr(e, scope)
    temporaries = {s.ir_name for s in scope.values() if isinstance(s, LocalSym) and s.temporary}
    if temporaries and _mentions(v.expr, temporaries) | _mentions(v.defined, temporaries):
        return None  # a rule-local variable: unassigned before the body runs
    if isinstance(v.expr, ir.Const):
        value_cases = ([Case()], []) if v.expr.value else ([], [Case()])
    else:
        value_cases = ([Case((v.expr,))], [Case((neg(v.expr),))])
    if v.defined == ir.TRUE:
        return _Cases(value_cases[0], value_cases[1], [])
    d = Case((v.defined,))
    return _Cases(_product([d], value_cases[0]), _product([d], value_cases[1]), [Case((neg(v.defined),))])


def _split_quantified(tr: _Translator, kind: str, quantifiers, body, scope: Scope,
                      taken: set[str]) -> Optional[_Cases]:
    if not quantifiers:
        return _split(tr, body, scope, taken)
    q, rest = quantifiers[0], quantifiers[1:]
    values, qtype = tr.quantifier_values(q, scope)
    tr.unroll(len(values), q)
    every = kind == "forall"
    # All copies at once: the conjunction (Forall) or the negated disjunction (Exists).
    combined: list[Case] = [Case()]
    for x in values:
        inner = dict(scope)
        inner[q.name] = ConstSym(x, qtype)
        copy = _split_quantified(tr, kind, rest, body, inner, taken)
        if copy is None or copy.fault:
            return None  # where a copy may fault, the evaluation order matters: keep it
        cases = copy.true if every else copy.false
        if len(cases) > 1:
            # One conjunct per copy keeps the guard at one case (not 2^N): the copy as it
            # stands, which reads no undefined value (no fault cases).
            whole = tr.expr(Quantified(kind, rest, body, q.pos) if rest else body, inner)
            cases = [Case((whole.expr if every else neg(whole.expr),))]
        combined = _product(combined, cases)
        if len(combined) > MAX_CASES:
            return None
    # Some copy fails (Forall) or holds (Exists): a witness local.
    witness = fresh_name(q.name, taken)
    inner = dict(scope)
    wtype = qtype or Simple("subrange", min(values), max(values))
    inner[q.name] = LocalSym(witness, wtype)
    try:
        witnessed = _split_quantified(tr, kind, rest, body, inner, taken) if values else _Cases([], [], [])
    except InputError:
        # The body needs the variable as a constant (a bound of an inner range, say):
        # keep the expansion, which reports any real error itself.
        return None
    if witnessed is None or witnessed.fault:
        return None
    local = ir.Local(witness, tuple(values))
    some = [Case(c.conjuncts, (local,) + c.locals) for c in (witnessed.false if every else witnessed.true)]
    return _Cases(combined, some, []) if every else _Cases(some, combined, [])


def _mentions(e: ir.Expr, names: set[str]) -> bool:
    """``e`` reads one of ``names`` (array names are not read as ``Name``s)."""
    return not names_read(e).isdisjoint(names)


def _split_body(tr: _Translator, stmts, scope: Scope, taken: set[str]):
    """``(cases, faults)``: ``cases`` pairs a ``Case`` with the IR program run in it.  A body
    that starts with an ``If`` is split on its condition (which then reads the pre-state
    only), recursively; anything else is translated as it stands."""
    if stmts and isinstance(stmts[0], IfStmt) and not any(
            tr.impure(c.name) for c in _unconditional_calls(stmts[0].branches[0][0])):
        # (A condition calling a function that changes state is a statement: ``stmt``.)
        first, rest = stmts[0], tuple(stmts[1:])
        cond, then = first.branches[0]
        split = _split(tr, cond, scope, taken)
        if split is not None:
            if len(first.branches) > 1:
                otherwise = (IfStmt(first.branches[1:], first.else_, first.pos),) + rest
            else:
                otherwise = tuple(first.else_) + rest
            then_cases, then_faults = _split_body(tr, tuple(then) + rest, scope, taken)
            else_cases, else_faults = _split_body(tr, otherwise, scope, taken)
            # (A comprehension that rebinds its own ``c`` here once let each branch case
            # inherit the conjuncts of the one before it: contradictory guards.)
            cases = [(Case(sc.conjuncts + bc.conjuncts, sc.locals + bc.locals), program)
                     for part, branch in ((split.true, then_cases), (split.false, else_cases))
                     for sc in part for bc, program in branch]
            faults = (split.fault + _product(split.true, then_faults) + _product(split.false, else_faults))
            if len(cases) <= MAX_CASES and len(faults) <= MAX_CASES:
                return cases, faults
    return [(Case(), tuple(tr.stmts(stmts, scope)))], []


def _rule_summands(tr: _Translator, rule: SimpleRule, params: tuple[_Param, ...],
                   global_names: frozenset[str]) -> list[ir.Summand]:
    taken = set(global_names) | {p.ir_name for p in _reals(params)}
    local_vars: list[LocalSym] = []

    def variable(n: str, t: Simple) -> LocalSym:
        # Undefined on entry and checked on read, as in CMurphi (IsUndefined, Undefine,
        # copying an undefined value into it).
        sym = LocalSym(fresh_name(n, taken), t, temporary=True, sentinel=True)
        local_vars.append(sym)
        return sym

    saved_undefinable = tr.undefinable
    tr.assume_flag, tr.assume_used = fresh_name("rule.discarded", tr.temp_names), False
    tr.aggregates, tr.aggregate_inits = {}, []
    tr.multisets_touched = set()
    tr.share_aggregates, tr.live_aggregates = True, set()
    rule = replace(rule, guard=_with_choose_guards(rule.guard, params, rule.pos))
    try:
        return _rule_summands_in(tr, rule, params, taken, local_vars, variable)
    finally:
        tr.assume_flag = None
        tr.share_aggregates = False
        # A local aggregate's leaves are no state: not undefinable globally, never written.
        tr.undefined_writes -= set(tr.aggregates)
        tr.undefinable = saved_undefinable
        tr.aggregates = None


def _aliases_bound(tr: _Translator, params, scope: Scope, guard) -> ir.Expr:
    """The condition that binding the ``Alias`` names among ``params`` (bound in ``scope``)
    reads no undefined value: an expression's value, a designator's subscripts.

    Inside a ``Choose`` (``guard``: the rule's condition after the ``Choose`` conditions,
    ``_with_choose_guards``), CMurphi's generated ``NextRule`` tests that the place holds an
    element before it binds the aliases where the rule's own condition reads the ``Choose``
    index, directly or through an alias of it (the EECS570 and ProtoGen ``Choose midx :
    Net[n] Do Alias msg : Net[n][midx] Do Rule "receive" msg.vtype = ...``): no error at an
    empty place.  Where the condition does not read it, the alias is bound first, and an
    empty place is CMurphi's "Internal Error: 0 not in index range of ms"."""
    own = guard
    for p in params:
        if p.guard is not None:
            own = None if own is p.guard else (
                own.right if isinstance(own, BinaryOp) and own.op == "&" and own.left is p.guard else own)
    used = {n.name for n in _syntax_nodes(own) if isinstance(n, Designator)} if own is not None else set()
    ok: ir.Expr = ir.TRUE
    chosen: ir.Expr = ir.TRUE
    depends: dict[str, set[str]] = {}  # Choose index -> the names standing for its place
    for p in params:
        if p.guard is not None:
            depends[p.name] = {p.name}
        elif p.alias is not None:
            names = {n.name for n in _syntax_nodes(p.alias) if isinstance(n, Designator)}
            for d in depends.values():
                if names & d:
                    d.add(p.name)
    for p in params:
        if p.guard is not None and depends[p.name] & used:
            chosen = conj(chosen, tr.expr(p.guard, scope).expr)
        if p.alias is None:
            continue
        sym = scope.get(p.name)
        defined: ir.Expr = ir.TRUE
        if isinstance(sym, ValueSym):
            defined = sym.value.defined
        elif isinstance(sym, AliasSym) and isinstance(sym.target, Access):
            for index in sym.target.indices:
                defined = conj(defined, index.defined)
        ok = conj(ok, defined if chosen == ir.TRUE or defined == ir.TRUE else disj(neg(chosen), defined))
    return ok


def _with_choose_guards(guard, params, pos):
    """``guard`` after the conditions of the ``Choose`` indices among ``params`` (their
    places hold an element; ``&`` evaluates left to right, so ``m[i]`` is read only then)."""
    for p in reversed(params):
        if p.guard is not None:
            guard = p.guard if guard is None else BinaryOp("&", p.guard, guard, pos)
    return guard


def _rule_summands_in(tr: _Translator, rule: SimpleRule, params, taken, local_vars, variable) -> list[ir.Summand]:
    scope = tr.local_scope(rule.decls, _param_scope(tr, params), taken, variable)
    entry = tuple(ir.Assign(ir.Name(v.ir_name), ir.Const(v.type.undefined)) for v in local_vars)
    entry += tuple(tr.take_aggregate_inits())
    name = rule.name or f"rule@{rule.line}"
    origin = ir.Origin.at(tr.path, rule.line, rule.column, f"{tr.path or '<input>'}:{rule.line}: rule \"{name}\"")
    params_locals = tuple(ir.Local(p.ir_name, p.values) for p in _reals(params))
    event = ir.Event(name, tuple(ir.Name(p.ir_name) for p in _reals(params)))
    undefined_event = ir.Event(f"{name}.undefined", event.args)
    where = f"{tr.path or '<input>'}:{rule.line}"
    if rule.guard is None:
        guard = _Cases([Case()], [], [])
    else:
        guard = _split(tr, rule.guard, scope, taken)
        if guard is None:
            g = tr.expr(rule.guard, scope)
            faults = [] if g.defined == ir.TRUE else [Case((neg(g.defined),))]
            guard = _Cases([Case((conj(g.defined, g.expr),))], [], faults)
    bound = _aliases_bound(tr, params, scope, rule.guard)
    if bound != ir.TRUE:
        # CMurphi binds the aliases around a rule before it evaluates the rule's condition
        # (a Choose place's too): one that reads an undefined value is an error there.
        guard = _Cases([Case((bound,) + c.conjuncts, c.locals) for c in guard.true],
                       [Case((bound,) + c.conjuncts, c.locals) for c in guard.false],
                       [Case((neg(bound),))] + [Case((bound,) + c.conjuncts, c.locals) for c in guard.fault])
    returns = any(_contains_return(s) for s in rule.body)
    body_cases, body_faults = _split_body(tr, rule.body, scope, taken) if not (tr.aggregates or returns) else ([], [])
    if returns:
        # A "Return" ends the rule (CMurphi's mu accepts it): what follows runs while a flag
        # says it has not returned, as in an inlined procedure.
        scope, entry_flag = _return_scope(tr, scope, rule.body)
        body_cases = [(Case(), tuple(entry_flag + tr.stmts(rule.body, scope)))]
    elif not body_cases or len(guard.true) * (len(body_cases) + len(body_faults)) > MAX_CASES:
        # (A condition on a local aggregate must not move into the guard: not split then.)
        body_cases, body_faults = [(Case(), tuple(tr.stmts(rule.body, scope)))], []
    if tr.assume_used:
        body_cases = [(c, _discarding(tr, program, tr.assume_flag)) for c, program in body_cases]
    if entry:
        body_cases = [(c, entry + program) for c, program in body_cases]
    if tr.multisets_touched and tr.multiset_sort_on:
        # CMurphi stores each state with its multisets sorted (``MultisetSort``).
        sort = tuple(st for var in tr.variables if var.name in tr.multisets_touched for st in tr.multiset_sort(var))
        body_cases = [(c, program + sort) for c, program in body_cases]
    if tr.aggregates:
        # Local arrays and records are state variables that every rule leaves undefined, so
        # no two stored states differ in them (the counts are CMurphi's); as state, their
        # elements are read and written per element, as the symmetry detection needs
        # (temporaries chosen by a chain of ``?:`` would single out one element).
        for leaf in tr.aggregates.values():
            tr.aggregate_leaves.setdefault(leaf.ir_name, leaf)
        reset = tuple(_undefine_leaves(tr.aggregates.values()))
        body_cases = [(c, program + reset) for c, program in body_cases]
    summands = []
    for g in guard.true:
        for c, program in body_cases:
            guard_expr = conj(*(g.conjuncts + c.conjuncts))
            if guard_expr == ir.FALSE:
                continue
            summands.append(ir.Summand(params_locals + g.locals + c.locals, guard_expr, event, program, origin))
    fault_cases = [(c, "guard") for c in guard.fault] + [(c, "condition") for c in _product(guard.true, body_faults)]
    for c, what in fault_cases:
        text = f"{where}: {what} of rule \"{name}\" reads an undefined value"
        summands.append(ir.Summand(params_locals + c.locals, conj(*c.conjuncts), undefined_event,
                                   (ir.Assert(ir.FALSE, text),), origin))
    return summands


def _sets(s: ir.Stmt, name: str) -> bool:
    """Whether statement ``s`` may assign the temporary ``name``."""
    if isinstance(s, ir.Assign):
        return s.target == ir.Name(name)
    if isinstance(s, ir.If):
        return any(_sets(t, name) for t in s.then + s.else_)
    if isinstance(s, ir.While):
        return any(_sets(t, name) for t in s.body)
    return False


def _skip_after(stmts: tuple, flag: str) -> tuple:
    """``stmts`` with everything after a statement that may set ``flag`` run only while it
    is clear (a ``While`` that may set it stops when it does)."""
    clear = ir.Binary("==", ir.Name(flag), ir.Const(0))
    out: list = []
    for k, s in enumerate(stmts):
        if isinstance(s, ir.If):
            s = ir.If(s.cond, _skip_after(s.then, flag), _skip_after(s.else_, flag))
        elif isinstance(s, ir.While) and _sets(s, flag):
            s = ir.While(ir.Binary("&&", clear, s.cond), _skip_after(s.body, flag))
        out.append(s)
        if _sets(s, flag):
            # The rest in one ``If``: a temporary it assigns and reads (an inlined
            # procedure's return flag) is then assigned on every path that reads it.
            rest = _skip_after(stmts[k + 1:], flag)
            if rest:
                out.append(ir.If(clear, rest, ()))
            break
    return tuple(out)


def _written(stmts, names: Mapping[str, Leaf]) -> dict[str, Leaf]:
    """The state leaves among ``names`` that ``stmts`` may assign."""
    out: dict[str, Leaf] = {}
    for s in stmts:
        if isinstance(s, ir.Assign):
            target = s.target.name if isinstance(s.target, ir.Name) else s.target.array
            if target in names:
                out[target] = names[target]
        elif isinstance(s, ir.If):
            out.update(_written(s.then + s.else_, names))
        elif isinstance(s, ir.While):
            out.update(_written(s.body, names))
    return out


def _discarding(tr: _Translator, program: tuple, flag: str) -> tuple:
    """A rule's ``program`` whose ``Assume``s set ``flag`` when they fail, made into Rumur's
    discarded step: nothing after a failed one runs, and the state is put back as it was
    before the step (a self-loop, which the Murphi deadlock check -- a state whose only
    successor is itself -- counts as no successor, as Rumur does for a discarded step).
    The state variables the program writes are saved in temporaries first."""
    leaves = {leaf.ir_name: leaf for var in tr.variables for leaf in var.leaves.values()}
    save, restore = [], []
    for name, leaf in _written(program, leaves).items():
        if leaf.size is None:
            keep = fresh_name(f"{name}.before", tr.temp_names)
            save.append(ir.Assign(ir.Name(keep), ir.Name(name)))
            restore.append(ir.Assign(ir.Name(name), ir.Name(keep)))
            continue
        for k in range(leaf.size):
            keep = fresh_name(f"{name}.before{k}", tr.temp_names)
            save.append(ir.Assign(ir.Name(keep), ir.Index(name, ir.Const(k))))
            restore.append(ir.Assign(ir.Index(name, ir.Const(k)), ir.Name(keep)))
    failed = ir.Binary("!=", ir.Name(flag), ir.Const(0))
    return ((ir.Assign(ir.Name(flag), ir.Const(0)),) + tuple(save) + _skip_after(program, flag)
            + (ir.If(failed, tuple(restore), ()),))


def _undefine_leaves(leaves) -> Iterator[ir.Stmt]:
    for leaf in leaves:
        refs = [ir.Name(leaf.ir_name)] if not leaf.dims else \
            [ir.Index(leaf.ir_name, ir.Const(k)) for k in range(leaf.size)]
        yield from (ir.Assign(ref, ir.Const(leaf.type.undefined)) for ref in refs)


def lower_aggregates(program, aggregates: Mapping[str, Leaf], where: str) -> tuple[ir.Stmt, ...]:
    """``program`` with the local arrays and records ``aggregates`` (leaves by IR name) held
    in one temporary per element, ``leaf[k]``: an element read with a computed subscript is
    a choice over the elements, a write an ``If`` chain; a subscript outside the array
    faults, as reading or writing a state array out of its bounds does."""
    def element(leaf: str, k: int) -> ir.Name:
        return ir.Name(f"{leaf}[{k}]")

    def read(e: ir.Expr):
        if isinstance(e, ir.Index) and e.array in aggregates:
            index = map_expr(e.index, read)
            n = aggregates[e.array].size
            if isinstance(index, ir.Const):
                return element(e.array, index.value) if 0 <= index.value < n else ir.Binary("/", ir.Const(1), ir.Const(0))
            out: ir.Expr = ir.Binary("/", ir.Const(1), ir.Const(0))  # out of bounds: a fault
            for k in reversed(range(n)):
                out = ir.Ite(ir.Binary("==", index, ir.Const(k)), element(e.array, k), out)
            return out
        return None

    def lower(stmts) -> tuple[ir.Stmt, ...]:
        out: list[ir.Stmt] = []
        for st in stmts:
            if isinstance(st, ir.Assign) and isinstance(st.target, ir.Index) and st.target.array in aggregates:
                index = map_expr(st.target.index, read)
                value = map_expr(st.value, read)
                n = aggregates[st.target.array].size
                if isinstance(index, ir.Const):
                    out.append(ir.Assign(element(st.target.array, index.value), value) if 0 <= index.value < n
                               else ir.Assert(ir.FALSE, f"{where}: index out of range"))
                    continue
                chain: tuple = (ir.Assert(ir.FALSE, f"{where}: index out of range"),)
                for k in reversed(range(n)):
                    chain = (ir.If(ir.Binary("==", index, ir.Const(k)),
                                   (ir.Assign(element(st.target.array, k), value),), chain),)
                out.extend(chain)
            elif isinstance(st, ir.If):
                out.append(ir.If(map_expr(st.cond, read), lower(st.then), lower(st.else_)))
            elif isinstance(st, ir.While):
                out.append(ir.While(map_expr(st.cond, read), lower(st.body)))
            else:
                out.extend(map_program((st,), read))
        return tuple(out)

    return lower(program)


def _start_states(tr: _Translator, starts, variables: tuple[ir.Variable, ...], global_names,
                  loop_max: int = LOOP_MAX) -> list[tuple[int, ...]]:
    """Every start state, by running each ``Startstate`` instance from all-undefined."""
    # Every variable may be undefined while a start state runs.
    saved = tr.undefinable
    tr.undefinable = frozenset(v.name for v in variables)
    model = ir.SequentialModel("start", variables, (), loop_bound=loop_max, loop_option="")
    offsets = ir.slot_offsets(model)
    # A multiset starts empty: its places are free, not undefined.
    undefined_state = [0 if "$valid" in v.name.split(".") else v.domain[0] for v in variables for _ in range(v.length)]
    results: list[tuple[int, ...]] = []
    tr.multisets_touched = set()
    sort = tuple(st for var in tr.variables if _has_multiset(var.type) for st in tr.multiset_sort(var)) \
        if tr.multiset_sort_on else ()
    try:
        # CMurphi's order, which decides how many start states it stores before one faults:
        # the last Startstate first, each Ruleset binding with its first parameter fastest.
        for start, params in reversed(starts):
            taken = set(global_names) | {p.ir_name for p in _reals(params)}
            tr.aggregates, tr.aggregate_inits = {}, []
            # Rumur discards a start state whose ``Assume`` fails (nothing after it runs).
            flag = tr.assume_flag = fresh_name("start.discarded", tr.temp_names)
            tr.assume_used, tr.cover_flags = False, {}
            try:
                scope = tr.local_scope(start.decls, _param_scope(tr, params), taken)
                scope, entry_flag = _return_scope(tr, scope, start.body)
                body = tuple(entry_flag + tr.stmts(start.body, scope))
            finally:
                tr.assume_flag = None
                cover_flags, tr.cover_flags = tr.cover_flags, None
            if tr.assume_used:
                body = (ir.Assign(ir.Name(flag), ir.Const(0)),) + _skip_after(body, flag)
            program = tuple(tr.take_aggregate_inits()) + body
            if tr.aggregates:
                program = lower_aggregates(program, tr.aggregates, f"{tr.path or '<input>'}:{start.line}")
            tr.aggregates = None
            program += sort  # CMurphi stores the start states sorted too
            reals = _reals(params)
            for backwards in itertools.product(*(p.values for p in reversed(reals))):
                binding = backwards[::-1]
                if len(results) >= MAX_START_STATES:
                    raise tr.error(f"more than {MAX_START_STATES} start states", start)
                env = Env(model, offsets, list(undefined_state), {p.ir_name: x for p, x in zip(reals, binding)})
                try:
                    execute(program, env)
                except Fault as fault:
                    where = ", ".join(f"{p.name}={x}" for p, x in zip(reals, binding))
                    error = StartStateFault(f"start state fails{' (' + where + ')' if where else ''}: {fault}",
                                            tr.path, getattr(start, "line", 0), getattr(start, "column", 0),
                                            len(set(results)), str(fault))
                    error.made = tuple(dict.fromkeys(results))
                    raise error from None
                # (Rumur counts a cover hit before an Assume discards the state.)
                tr.start_covered.update(key for key, hit in cover_flags.items() if env.scope.get(hit))
                if not env.scope.get(flag):
                    results.append(tuple(env.state))
    finally:
        tr.undefinable = saved
    return results


# ---------------------------------------------------------------------------- entry point


def linearise(program: Program, path: str = "", defines: Optional[Mapping[str, int]] = None,
              loop_max: int = LOOP_MAX, multiset_sort: bool = True) -> ir.SequentialModel:
    """The ``SequentialModel`` of a parsed Murphi program (see the module docstring);
    ``loop_max`` is its ``loop_bound`` (CMurphi's ``-loop``); without ``multiset_sort``
    multisets keep their elements where they were put (CMurphi's ``-nomultiset``)."""
    defines = dict(defines or {})
    tr = _Translator(path, defines)
    tr.multiset_sort_on = multiset_sort
    tr.declare_globals(program)
    top_rules = [item for item in program.items
                 if isinstance(item, (SimpleRule, StartState, InvariantDecl, RuleSet, AliasRule, ChooseRule))]
    leaves = [leaf for var in tr.variables for leaf in var.leaves.values()]
    global_names = frozenset(leaf.ir_name for leaf in leaves)
    walked = list(_walk_rules(tr, top_rules, (), global_names))
    starts = [(r, ps) for r, ps in walked if isinstance(r, StartState)]
    if not starts:
        raise InputError("expected at least one Startstate", path, 1, 1)

    # Start states, with every variable able to hold its undefined value.
    # (A wide type's values are a ``range``: the start states only test membership; this
    # model is never validated.)
    full = tuple(
        ir.Variable(leaf.ir_name, range(leaf.type.undefined, leaf.type.hi + 1) if leaf.type.wide else
                    (leaf.type.undefined,) + leaf.type.values,
                    tuple((leaf.type.undefined,) for _ in range(leaf.size or 1)), leaf.size)
        for leaf in leaves
    )
    try:
        states = sorted(set(_start_states(tr, starts, full, global_names, loop_max)))
    except StartStateFault as fault:
        if fault.made:  # the model whose start states are those made before the fault
            fault.model = _linearised(tr, path, defines, walked, leaves, full, sorted(fault.made), loop_max,
                                      multiset_sort)
        raise
    if not states:
        # Every start state's ``Assume`` failed: Rumur explores no state.  The model keeps the
        # all-undefined state as its start state and an assumption that discards it.
        states = [tuple(0 if "$valid" in v.name.split(".") else v.domain[0] for v in full for _ in range(v.length))]
        model = _linearised(tr, path, defines, walked, leaves, full, states, loop_max, multiset_sort)
        return replace(model, assumptions=(ir.Assumption(ir.FALSE, "every start state is discarded"),)
                       + model.assumptions)
    return _linearised(tr, path, defines, walked, leaves, full, states, loop_max, multiset_sort)


def _linearised(tr: _Translator, path: str, defines: dict, walked: list, leaves: list,
                full: tuple[ir.Variable, ...], states: list, loop_max: int, multiset_sort: bool) -> ir.SequentialModel:
    """``linearise``'s model from its start ``states`` (sorted, distinct) on."""
    global_names = frozenset(leaf.ir_name for leaf in leaves)
    per_slot = [sorted({s[k] for s in states}) for k in range(len(states[0]))]
    # Start states that are not every combination of their per-slot values (a Startstate
    # inside a Ruleset putting one message at the place i) are listed one by one.
    listed = math.prod(len(values) for values in per_slot) != len(states)

    # Which variables can be undefined: those undefined in a start state, grown by what
    # the rules may undefine, to a fixpoint.
    offsets = ir.slot_offsets(ir.SequentialModel("s", full, ()))
    undefinable = {
        leaf.ir_name for leaf in leaves
        if any(leaf.type.undefined in per_slot[offsets[leaf.ir_name] + k] for k in range(leaf.size or 1))
    }
    rules = [(r, ps) for r, ps in walked if isinstance(r, SimpleRule)]
    while True:
        tr.undefinable = frozenset(undefinable)
        tr.undefined_writes = set()
        tr.temp_names = set()
        tr.unrolled = 0
        tr.aggregate_leaves = {}
        summands = [s for r, ps in rules for s in _rule_summands(tr, r, ps, global_names)]
        properties = [(r, ps) for r, ps in walked if isinstance(r, InvariantDecl)]
        assertions = [a for r, ps in properties if r.kind != "assume" for a in _invariant(tr, r, ps)]
        assumptions = _assumptions(tr, [(r, ps) for r, ps in properties if r.kind == "assume"])
        if tr.undefined_writes <= undefinable:
            break
        undefinable |= tr.undefined_writes

    assertions = _cover_statements(tr, rules, global_names) + assertions
    variables = _variables(leaves, offsets, per_slot, undefinable) + _variables(
        tr.aggregate_leaves.values(), None, None, set(tr.aggregate_leaves))
    initial = None
    if listed:
        # The rules' local aggregates (after the globals) start undefined in every start state.
        tail = tuple(a[0] for v in variables[len(leaves):] for a in v.init)
        initial = tuple(state + tail for state in states)
    name = Path(path).stem if path else "murphi"
    model = ir.SequentialModel(
        name=name,
        variables=tuple(variables),
        summands=tuple(summands),
        # CMurphi reports a deadlock as an error unless -ndl (``explore --ndl``): a state in
        # which no rule is enabled or every enabled rule leaves the state as it is.
        assertions=tuple(assertions) + (ir.Assertion("deadlockfree", DEADLOCK_TEXT),),
        parameters=tuple(sorted(defines.items())),
        source=path,
        loop_bound=loop_max, loop_option="",  # CMurphi's -loop: past it is its error
        stutter_deadlock=True,
        initial=initial,
        annotations=_multiset_annotations(tr, variables, multiset_sort),
        assumptions=tuple(assumptions[:1]),
        domains=_wide_facts(tr, leaves, undefinable),
    )
    model = replace(model, assertions=tuple(assumptions[1:]) + model.assertions)
    ir.validate(model)
    if model.assumptions:
        # Rumur discards a start state that violates a global assumption: the model is made
        # again from the others (the domains and the undefinable variables follow them).
        from detect.ir.semantics import assumed

        kept = [s for s in states if assumed(model, s + tuple(a[0] for v in variables[len(leaves):] for a in v.init))]
        if kept and len(kept) < len(states):
            return _linearised(tr, path, defines, walked, leaves, full, kept, loop_max, multiset_sort)
    return model


def _multiset_annotations(tr: _Translator, variables: list[ir.Variable], sorted_: bool) -> tuple:
    """``("multisets", instances)``: per multiset, per place, the slots of its ``$valid`` flag
    and of its element's leaves (in ``multiset_sort``'s order of comparison); with
    ``("multisets_sorted", True)`` when every stored state has them sorted (CMurphi's default).
    ``detect.checking.multisets`` quotients by the permutations of each multiset's places."""
    offsets = ir.slot_offsets(ir.SequentialModel("s", tuple(variables), ()))

    def slot(ref: ir.Expr) -> int:
        return offsets[ref.name] if isinstance(ref, ir.Name) else offsets[ref.array] + ref.index.value

    instances = tuple(tuple((slot(valid[k]),) + tuple(slot(r) for r in place) for k, place in enumerate(places))
                      for var in tr.variables for valid, places in tr.multiset_places(var))
    if not instances:
        return ()
    return (("multisets", instances),) + ((("multisets_sorted", True),) if sorted_ else ())


def _variables(leaves, offsets, per_slot, undefinable) -> list[ir.Variable]:
    """The IR variables of ``leaves``, starting with the values ``per_slot`` gives their
    slots (at ``offsets``), or undefined without them (rules' local arrays and records)."""
    variables = []
    for leaf in leaves:
        if leaf.type.wide:
            # A placeholder: the start states' values (``_wide_facts``; narrowing settles it).
            domain = tuple(sorted({x for k in range(leaf.size or 1) for x in per_slot[offsets[leaf.ir_name] + k]})) \
                if per_slot is not None else (leaf.type.undefined,)
            if leaf.ir_name in undefinable and leaf.type.undefined not in domain:
                domain = (leaf.type.undefined,) + domain
        else:
            domain = leaf.type.values
            if leaf.ir_name in undefinable:
                domain = (leaf.type.undefined,) + domain
        if per_slot is None:
            init = tuple((leaf.type.undefined,) for _ in range(leaf.size or 1))
        else:
            init = tuple(tuple(per_slot[offsets[leaf.ir_name] + k]) for k in range(leaf.size or 1))
        variables.append(ir.Variable(leaf.ir_name, domain, init, leaf.size, value_names=leaf.type.shown_names))
    return variables


def _wide_facts(tr: _Translator, leaves, undefinable) -> ir.DomainFacts:
    """The variables of a subrange type of more than ``MAX_ELEMENTS`` values (Rumur's
    ``0 .. 1073741824``) as ``ir.Unranged``: their domains are placeholders that narrowing
    (``detect.transform.narrowing``, Murphi's policy) replaces by the values they can hold,
    cut to the declared range (with the undefined value where they can be undefined: an
    assignment out of the range is then an explicit check), so that an assignment outside
    it is still an error.  No facts without such variables."""
    wide = [leaf for leaf in leaves if leaf.type.wide]
    if not wide:
        return ir.DomainFacts()
    where = {leaf.ir_name: tr.declared_at.get(leaf.ir_name.split(".")[0], (0, 0)) for leaf in wide}
    return ir.DomainFacts("murphi", tuple(
        ir.Unranged(leaf.ir_name, (leaf.type.undefined if leaf.ir_name in undefinable else leaf.type.lo, leaf.type.hi),
                    True, f"variable '{leaf.ir_name}'", tr.path or "<input>", *where[leaf.ir_name])
        for leaf in wide))


def _cover_mark(key: tuple) -> str:
    return f"cover statement at {key[0]}:{key[1]} hit"


def _cover_statements(tr: _Translator, rules, global_names) -> list:
    """One ``cover`` assertion per ``Cover`` statement, in source order: hit by a start state,
    or with its probe (``ir.CoverProbe``): the rules translated again with the statement as
    an ``Assert`` of its negation, those that run it."""
    out = []
    for key, stmt in sorted(tr.covers.items()):
        label = f'"{stmt.text}"' if stmt.text else f"at line {key[0]}"
        mark = _cover_mark(key)
        if key in tr.start_covered:
            probe = ir.CoverProbe((), mark, at_start=True)
        else:
            tr.cover_probe, tr.unrolled = key, 0
            try:
                summands = [s for r, ps in rules for s in _rule_summands(tr, r, ps, global_names)]
            finally:
                tr.cover_probe = None
            probe = ir.CoverProbe(tuple(s for s in summands if _runs_mark(s.program, mark)), mark)
        out.append(ir.Assertion("cover", f"cover {label}", probe=probe))
    return out


def _runs_mark(program, mark: str) -> bool:
    from detect.ir.walk import statements

    return any(isinstance(st, ir.Assert) and st.text == mark for st in statements(program))


def _assumptions(tr: _Translator, decls) -> list:
    """Rumur's global ``Assume``s (in declaration order, each over its ruleset instances):
    ``[Assumption, invariant]``, or ``[]`` without any.  Rumur evaluates them in order: the
    first that reads an undefined value is an error, the first that is false discards the
    state.  So the assumption keeps a state unless the first of them that fails is false,
    and the invariant (``undefined read``) fails where the first that fails reads an
    undefined value; both are the chain of ``?:`` over the parts from the last one."""
    parts = []
    for inv, params in decls:
        for binding in itertools.product(*(p.values for p in _reals(params))):
            tr.unroll(1, inv)
            v = tr.expr(inv.cond, _param_scope(tr, params, binding))
            parts.append((v.defined, v.expr))
    if not parts:
        return []
    keep: ir.Expr = ir.TRUE
    defined: ir.Expr = ir.TRUE
    for d, e in reversed(parts):
        keep = fold(ir.Ite(d, conj(e, keep), ir.TRUE)) if d != ir.TRUE else conj(e, keep)
        defined = fold(ir.Ite(d, fold(ir.Ite(e, defined, ir.TRUE)), ir.FALSE)) if d != ir.TRUE or defined != ir.TRUE \
            else ir.TRUE
    texts = "; ".join(f'"{inv.name}" {inv.text}' if inv.name else inv.text for inv, _ in decls)
    where = f"{tr.path or '<input>'}:{decls[0][0].line}"
    out: list = [ir.Assumption(keep, texts)]
    if defined != ir.TRUE:
        out.append(ir.Assertion("invariant", f"{where}: assumption reads no undefined value", defined))
    return out


def _invariant(tr: _Translator, inv: InvariantDecl, params: tuple[_Param, ...]) -> list[ir.Assertion]:
    """One ``invariant`` assertion: the conjunction over the ruleset instances; reading an
    undefined value makes it false (Murphi stops with an error there too).  A ``Cover``:
    one ``reaches`` assertion per ruleset instance (Rumur checks each instance is hit), its
    condition false where it reads an undefined value."""
    if inv.kind == "liveness":
        # One per ruleset instance, as covers; an undefined read is an error (an invariant).
        out, defined = [], ir.TRUE
        for binding in itertools.product(*(p.values for p in _reals(params))):
            tr.unroll(1, inv)
            v = tr.expr(inv.cond, _param_scope(tr, params, binding))
            label = f'"{inv.name}" ' if inv.name else ""
            out.append(ir.Assertion("liveness", f"liveness {label}{inv.text}", conj(v.defined, v.expr)))
            defined = conj(defined, v.defined)
        if defined != ir.TRUE:
            out.append(ir.Assertion("invariant", f"{tr.path or '<input>'}:{inv.line}: liveness property reads "
                                    "no undefined value", defined))
        return out
    if inv.kind == "cover":
        out = []
        for binding in itertools.product(*(p.values for p in _reals(params))):
            tr.unroll(1, inv)
            v = tr.expr(inv.cond, _param_scope(tr, params, binding))
            label = f'"{inv.name}" ' if inv.name else ""
            out.append(ir.Assertion("reaches", f"cover {label}{inv.text}", conj(v.defined, v.expr)))
        return out
    condition: ir.Expr = ir.TRUE
    for binding in itertools.product(*(p.values for p in _reals(params))):
        tr.unroll(1, inv)
        cond = inv.cond
        for p in reversed(params):
            if p.guard is not None:  # inside Choose: for the places holding an element
                cond = BinaryOp("->", p.guard, cond, inv.pos)
        v = tr.expr(cond, _param_scope(tr, params, binding))
        condition = conj(condition, conj(v.defined, v.expr))
    text = f'"{inv.name}" {inv.text}' if inv.name else inv.text
    return [ir.Assertion("invariant", text, condition)]
