"""Promela AST -> ``SequentialModel``: one pc global per process instance, Spin's semantics.

Instances: every ``active [N]`` proctype and ``init`` run from the start, with pids in
declaration order (as Spin 6 assigns them); ``run`` statements in ``init`` start further
instances, whose pids come from executing init's deterministic prefix at load time (the
*spawn plan*).  Each instance ``P`` with pid ``p`` owns ``P_p.pc`` (0 = not running) and its
locals ``P_p.x``; ``_pid`` and channel parameters are constants in its summands, built from
the same template as every other instance of ``P``.

Dynamic creation (``ProcessSlots``): when a ``run`` is in another proctype, depends on
run-time values, or may follow the end of a process whose pid it would then reuse, every
``run`` is a step at run time.  Each (proctype that may be run, pid below ``--max-procs``)
is an instance; at most one instance of a pid runs.  As in Spin, the new process takes pid
``_nr_pr`` and only the process with the highest pid is removed once it has ended, so
the pids in use are always ``0 .. _nr_pr - 1``.

Atomicity (Spin): ``_atomic`` holds the pid of the process whose last step keeps atomic
control (``cfg.Transition.keep``, Spin's ``atom & 2``; -1 otherwise); other processes may move only if that one is blocked.  Spin
does not store such mid-atomic states unless that process is blocked: ``detect.checking.spin_counts``
gives the number Spin reports as "states, stored".

Rendezvous (``chan c = [0] of {...}``): a send and a matching receive of another process are
one step (``handshakes``), as Spin's offer-and-accept pair whose middle state is never stored.
The step is the sender's under the atomic rules; afterwards the receiver holds atomic control
if its receive keeps it, and nobody does otherwise (the sender loses it).
For ``else``, a send counts as executable when a handshake is possible, a receive never.

Guards are put in ``normal`` form (clauses, split alternatives) so that processes built from
one template differ only in constants, never in the order of their clauses.
"""
from __future__ import annotations

import dataclasses
import functools
import warnings
from dataclasses import dataclass
from typing import Callable, Optional

from detect import ir
from detect.errors import InputError
from detect.ir import Assert, Assign, Binary, Const, Expr, If, Index, Ite, Name, ToolBound, Unary, While
from detect.ir import build, walk
from detect.ir.build import disj, fold, neg

from frontends.kit.lowering import ExclusiveOwner, FifoBuffer, ProgramCounter, latch
from frontends.kit.bounds import state_slots_refusal
from frontends.kit import Span
from frontends.promela import events, records, syntax as S
from frontends.promela.cfg import Graph, Transition, build_graph
from frontends.promela.claim import (CARRY as CLAIM_CARRY, CLAIM_PC, NP_ASSERTION, ClaimStep, check_claim,
                                     claim_timeouts, cycle_assertions, np_claim, product)
from frontends.promela.normal import alternatives, normal_guard
from frontends.promela.syntax import find_node
from frontends.promela import pids, pointsto, rvpoll

TRUE, FALSE = ir.TRUE, ir.FALSE
ATOMIC = "_atomic"
_TIMEOUT = "__timeout__"
#: Spin's ``int`` is C's 32-bit int (and ``unsigned x : n`` takes up to 32 bits): a value
#: beyond the type wraps as Spin's generated C stores it (``wrap``).
INT_RANGE = (-(1 << 31), (1 << 31) - 1)
#: Types with more values than this are not enumerated: such a variable is declared with its
#: initial values only and gets its domain from the value analysis (``Lowering.wide``; see
#: ``detect.transform.narrowing``).
ENUMERATED = 1 << 16

_TYPES = {
    "bit": (0, 1), "bool": (0, 1), "byte": (0, 255), "pid": (0, 255), "mtype": (0, 255),
    "short": (-32768, 32767), "int": INT_RANGE,
    # a channel value is a channel's identity: Spin numbers channels from 1 in creation
    # order (0: no channel) and stores the number in a byte
    "chan": (0, 255),
}
@functools.lru_cache(maxsize=None)
def domain_of(bounds: tuple[int, int]) -> tuple[int, ...]:
    """The values ``bounds[0]..bounds[1]`` (memoised: type domains are asked for per variable)."""
    return tuple(range(bounds[0], bounds[1] + 1))


def wrap(e: Expr, bounds: tuple[int, int], exact: bool) -> Expr:
    """``e`` truncated as Spin stores it into a variable of range ``bounds``.

    Unsigned ranges wrap modulo 2^k (byte: ``& 255``, bit and bool: ``& 1``, as Spin's C
    bit-fields do); short and int wrap to 16- and 32-bit two's complement; ``exact`` skips
    the wrap when ``e`` is known to fit already."""
    lo, hi = bounds
    if exact:
        return e
    if isinstance(e, Const):
        return Const(_wrap_value(e.value, bounds))
    if lo == 0 and (hi + 1) & hi == 0:
        return Binary("&", e, Const(hi))
    if lo == -(hi + 1) and (hi + 1) & hi == 0:
        span = hi + 1
        return Binary("-", Binary("&", Binary("+", e, Const(span)), Const(2 * span - 1)), Const(span))
    return e


def _wrap_value(v: int, bounds) -> int:
    lo, hi = bounds
    if lo == 0 and (hi + 1) & hi == 0:
        return v & hi
    if lo == -(hi + 1) and (hi + 1) & hi == 0:
        return ((v + hi + 1) & (2 * hi + 1)) - (hi + 1)
    return v


def _bounds(e: Expr, env) -> Optional[tuple[int, int]]:
    """A cheap interval of ``e`` (None if unknown), used only to omit needless wraps."""
    if isinstance(e, Const):
        return (e.value, e.value)
    if isinstance(e, (Name, Index)):
        return env.get(e.name if isinstance(e, Name) else e.array)
    if isinstance(e, Binary):
        if e.op in ("==", "!=", "<", "<=", ">", ">=", "&&", "||"):
            return (0, 1)
        a, b = _bounds(e.left, env), _bounds(e.right, env)
        if a is None or b is None:
            return None
        if e.op == "+":
            return (a[0] + b[0], a[1] + b[1])
        if e.op == "-":
            return (a[0] - b[1], a[1] - b[0])
        if e.op == "*":
            c = [x * y for x in a for y in b]
            return (min(c), max(c))
        if e.op == "%" and b[0] > 0 and a[0] >= 0:
            return (0, min(a[1], b[1] - 1))
        if e.op == "&" and b[0] >= 0 and b[0] == b[1]:
            return (0, b[1])
        return None
    if isinstance(e, Unary) and e.op == "!":
        return (0, 1)
    if isinstance(e, Ite):
        a, b = _bounds(e.then, env), _bounds(e.else_, env)
        if a is None or b is None:
            return None
        return (min(a[0], b[0]), max(a[1], b[1]))
    return None


def conj(*es: Expr) -> Expr:
    """Promela's conjunction: any ``FALSE`` conjunct is the whole (``build.conj``)."""
    return build.conj(*es, false="absorbs")


def substitute(e: Expr, name: str, value: Expr) -> Expr:
    return walk.substitute(e, {Name(name): value})


def substitute_stmts(stmts, name, value):
    return walk.substitute_program(stmts, {Name(name): value})


# ---------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class VarInfo:
    """A Promela variable (a flattened record field is its own VarInfo): IR ``name``,
    value range, array ``size`` (None for scalars)."""

    name: str
    bounds: tuple[int, int]
    size: Optional[int]
    hidden: bool = False
    #: a ``chan`` variable: holds a channel's identity (``Channel.ident``)
    chan: bool = False
    #: for a field of a record (flattened, ``m.c``): the array length of each level of its
    #: path (``m``, ``c``, nested fields...), None for a level that is no array; the flat
    #: array holds the elements in row-major order (``m[i].c[j]`` is ``i * len(c) + j``)
    levels: tuple[Optional[int], ...] = ()


@dataclass(frozen=True)
class Channel:
    """One channel instance: ``prefix.len`` and ``prefix.f<k>`` (arrays of ``capacity``);
    ``ident`` is its number as a value (Spin's: globals from 1 in declaration order, then
    each process's local channels as the process is created, in pid order)."""

    prefix: str
    capacity: int
    fields: tuple[tuple[int, int], ...]
    ident: int = 0
    #: for a local channel of a process created at run time: that instance's pc variable.
    #: The channel exists while it is nonzero; instances of several proctypes that may take
    #: one pid can have channels of the same identity, one of them alive at a time.
    alive: Optional[str] = None
    #: for such a channel, what its number depends on: (pc variable, count) per process
    #: that may hold a lower pid, whose ``count`` channels come before it while it runs;
    #: the number is ``ident`` plus the counts of those running (``value``)
    offset: tuple[tuple[str, int], ...] = ()
    #: for a local channel of a process that exists from the start (``alive`` None) and
    #: may end: that process's pc.  pan deletes the channel when it removes the process
    #: (``delq``): where the pc is 0 its number names a deleted queue (``Translator.deleted``)
    removed_with: Optional[str] = None

    def value(self) -> Expr:
        """The channel's number as a value (an expression over pcs when ``offset``)."""
        out: Expr = Const(self.ident)
        for pc, count in self.offset:
            out = Binary("+", out, Binary("*", Binary("!=", Name(pc), Const(0)), Const(count)))
        return out

    def may_be(self, v: int) -> bool:
        """Whether the channel's number may be ``v``."""
        return self.ident <= v <= self.ident + sum(c for _, c in self.offset) if self.offset else v == self.ident

    @property
    def buffer(self) -> FifoBuffer:
        """The state of a buffered channel: ``prefix.len`` and one array ``prefix.f<k>`` per field."""
        return FifoBuffer.named(self.prefix, len(self.fields), self.capacity, length="len", field="f")


@dataclass(frozen=True)
class Instance:
    proctype: str
    pid: int
    prefix: str
    owner: str
    graph: Graph
    args: tuple  # per parameter: int value, Channel, or None (not given)
    running: bool  # running in the initial state


class Lowering:
    """Mutable builder used by ``lower``; its result is a frozen ``SequentialModel``."""

    def __init__(self, program: S.Program, pre, path: str, name: str):
        self.program = program
        self.pre = pre
        self.path = path
        self.name = name
        self.mtypes: dict[str, int] = {}
        #: per mtype (None: the plain one, else the name of ``mtype:name``), its names
        self.mtype_names: dict[Optional[str], list[str]] = {}
        self.typedefs: dict[str, S.Typedef] = {}
        self.inlines: dict[str, S.Inline] = {}
        self.proctypes: dict[str, S.Proctype] = {}
        self.globals: dict[str, object] = {}  # source name -> VarInfo | list[VarInfo] (records) | list[Channel]
        self.variables: list[ir.Variable] = []
        self.var_bounds: dict[str, tuple[int, int]] = {}
        self.global_init: dict[str, tuple] = {}
        self.warned: set[str] = set()
        #: variables (and channel fields) of types too wide to enumerate -> their bounds
        self.wide: dict[str, tuple[int, int]] = {}
        #: where each of ``wide`` is declared: (file, line, column), line 0 if unknown
        self.wide_at: dict[str, tuple[str, int, int]] = {}
        #: the never claim, if the model has one (it counts in ``_nr_pr``, as in pan)
        self.claim: Optional[S.Never] = None
        #: pan's ``:np_:`` claim replaces ``claim`` (non-progress cycles, ``claim.np_claim``)
        self.non_progress = False
        #: every channel instance, in the order of their identities (``Channel.ident``)
        self.channels: list[Channel] = []
        #: the IR variables holding channel identities (``chan`` variables and message fields)
        self.chan_valued: set[str] = set()
        #: the channel numbers each ``chan``-valued variable may hold (``pointsto``): an
        #: operation on it expands only over those; None: over every channel.  A variable
        #: it does not name may hold only its initial values (``TOP``: any value)
        self.points_to: Optional[dict] = None
        #: some expression reads an ``rvpoll`` placeholder (a poll of a rendezvous channel, a
        #: chan variable naming no channel; ``Translator.placeholder``): steps need ``split_polls``
        self.rv_polled = False
        #: Spin 6.2's priorities are in use (``priority`` tags, ``set_priority``,
        #: ``get_priority``, ``_priority``): every process has a ``_priority`` in the state
        #: vector (pan's ``HAS_PRIORITY``), and only processes of the highest priority among
        #: the enabled ones may move (``scheduling``)
        self.priorities = find_node(program, lambda n: isinstance(n, S.Proctype) and n.priority is not None
                                    or isinstance(n, S.Run) and n.priority is not None
                                    or isinstance(n, S.SetPriority)
                                    or isinstance(n, S.ProcFn) and n.fn == "get_priority"
                                    or isinstance(n, S.VarRef) and n.name == "_priority") is not None
        #: ``_last`` is read: the pid of the process that moved last is a global of the
        #: state vector (pan's ``HAS_LAST``), set by every step of a process
        self.uses_last = find_node(program, lambda n: isinstance(n, S.VarRef) and n.name == "_last") is not None
        #: the ``trace``/``notrace`` of the model, if it has one, and its automaton (``events``)
        self.trace_unit: Optional[S.Trace] = None
        self.trace: Optional[events.EventTrace] = None
        #: ``enabled(pid)`` is used (pan's ``HAS_ENABLED``)
        self.uses_enabled = find_node(program, lambda n: isinstance(n, S.ProcFn) and n.fn == "enabled") is not None

    @functools.cached_property
    def rendezvous_declared(self) -> bool:
        """The model's text declares a rendezvous channel (Spin's ``u_sync``, counted over
        the declarations, also of proctypes never run; a capacity not constant here counts
        as both kinds)."""
        return find_node(self.program, lambda n: isinstance(n, S.ChanInit)
                         and self.static(n.capacity, {}) in (0, None)) is not None

    @functools.cached_property
    def buffered_declared(self) -> bool:
        """The model's text declares a buffered channel (Spin's ``u_async``)."""
        return find_node(self.program, lambda n: isinstance(n, S.ChanInit)
                         and self.static(n.capacity, {}) != 0) is not None

    @property
    def rendezvous_only(self) -> bool:
        """Every channel the model's text declares is a rendezvous (at least one; Spin's
        ``u_sync && !u_async``): pan's receive then tests ``boq != c`` before anything
        else, so a receive on a chan variable naming no channel blocks without an error
        (Spin 6.5.2).  With both kinds declared it tests ``q_zero(c)`` first (an error on
        a value naming no queue); with buffered ones only, ``q_len(c)``."""
        return self.rendezvous_declared and not self.buffered_declared

    def error(self, message: str, pos: Span) -> InputError:
        path, line = self.pre.origin(pos.line) if pos and pos.line else (self.path, 0)
        return InputError(message, path or self.path, line, pos.column if pos else 0)

    def warn(self, message: str) -> None:
        if message not in self.warned:
            self.warned.add(message)
            warnings.warn(f"{self.path}: {message}", stacklevel=4)

    # ------------------------------------------------------------------ constants
    def const(self, e, ctx=None) -> int:
        v = self.static(e, ctx or {})
        if v is None:
            raise self.error("expected a constant expression", getattr(e, "pos", None))
        return v

    def static(self, e, known: dict) -> Optional[int]:
        """Value of ``e`` from constants, mtypes and ``known`` (name -> int), else None."""
        from detect.ir.semantics import Fault, apply_binary
        if isinstance(e, S.Num):
            return e.value
        if isinstance(e, S.VarRef):
            if e.index is None and e.field is None:
                if e.name in known:
                    return known[e.name]
                if e.name in self.mtypes:
                    return self.mtypes[e.name]
            chans = self.globals.get(e.name)
            if e.field is None and isinstance(chans, list) and chans and isinstance(chans[0], Channel):
                k = 0 if e.index is None else self.static(e.index, known)
                return chans[k].ident if k is not None and 0 <= k < len(chans) else None
            return None
        if isinstance(e, S.UnOp):
            v = self.static(e.operand, known)
            if v is None:
                return None
            return {"!": int(not v), "-": -v, "~": ~v}[e.op]
        if isinstance(e, S.BinOp):
            a, b = self.static(e.left, known), self.static(e.right, known)
            if a is None or b is None:
                return None
            try:
                return apply_binary(e.op, a, b)
            except Fault:
                return None
        if isinstance(e, S.CondExpr):
            c = self.static(e.cond, known)
            if c is None:
                return None
            return self.static(e.then if c else e.else_, known)
        if isinstance(e, S.Special) and e.name == "_pid" and "_pid" in known:
            return known["_pid"]
        return None

    def type_bounds(self, type_: str, bits, pos) -> tuple[int, int]:
        if type_ == "unsigned":
            if bits is None:
                raise self.error("unsigned needs a width: unsigned x : n", pos)
            n = self.const(bits)
            if not 1 <= n <= 32:
                raise self.error(f"unsigned width {n} not supported (1..32)", pos)
            return (0, (1 << n) - 1)
        if type_ in _TYPES:
            return _TYPES[type_]
        if type_.startswith("mtype:"):
            if type_[len("mtype:"):] not in self.mtype_names:
                raise self.error(f"undeclared mtype {type_}", pos)
            return _TYPES["mtype"]
        raise self.error(f"unsupported type {type_}", pos)

    def domain(self, name: str, bounds: tuple[int, int], inits, pos: Optional[Span]) -> tuple[int, ...]:
        """The IR domain of a variable of range ``bounds`` declared at ``pos``: the whole
        range, or for a type too wide to enumerate, its initial values (and 0) until the value
        analysis runs (``wide``, ``wide_at``: where a refusal to bound it points)."""
        lo, hi = bounds
        if hi - lo + 1 <= ENUMERATED:
            return domain_of(bounds)
        self.wide[name] = bounds
        path, line = self.pre.origin(pos.line) if pos and pos.line else (self.path, 0)
        self.wide_at[name] = (path or self.path, line, pos.column if pos and line else 0)
        return tuple(sorted({0, *inits}))

    # ------------------------------------------------------------------ globals
    def declare(self, d: S.VarDecl, prefix: str, owner: Optional[str], known: dict,
                evaluate: Optional[Callable[[object], int]] = None, levels: tuple = (),
                made: Optional[dict] = None) -> list:
        """Declare variable ``d`` as IR globals named ``prefix + name``; returns its entries.
        ``evaluate`` gives the value of an initialiser that is not a constant where the
        variable is created (``initial_value``); without it such a variable starts at 0.
        ``levels``: for a field of a record, the array lengths of the levels above it
        (``VarInfo.levels``).  ``made``: for a record with initialised ``chan`` fields, the
        channels it creates (``record_channels``; made here, numbered next, when None)."""
        if d.type == "chan" and isinstance(d.init, S.ChanInit):
            if not levels or made is None or d.name not in made:
                raise self.error("an initialised channel is declared here only as a record's field", d.pos)
            return self.channel_field(d, prefix, owner, known, levels, made[d.name])
        size = self.const(d.size, known) if d.size is not None else None
        if size is not None and size <= 0:
            raise self.error(f"array size must be positive, got {size}", d.pos)
        if d.type in self.typedefs:
            if d.init is not None and owner is None:
                # Spin 6.5.2 ignores it: the fields keep the typedef's own initialisers
                # (``R g = 1`` with ``typedef R { byte a = 3 }``: g.a is 3)
                self.warn(f"the initialiser of typedef variable {d.name} is ignored (as Spin 6.5.2 does)")
            elif d.init is not None:
                raise self.error("initialisers of local typedef variables are not supported (Spin 6.5.2 "
                                 "ignores one where the process is created; after a statement pan.c "
                                 "does not compile)", d.pos)
            path = levels + (size,)
            width = 1
            for n in path:
                width *= n or 1
            # Checked here too, so that the error points at this declaration, not at a field.
            self.check_state_size(width * self.record_width(d.type, known), d.name, d.pos)
            if made is None and not levels:
                made = self.record_channels(d, known, prefix, owner)
            out = []
            for f in self.typedefs[d.type].fields:
                sub = dataclasses.replace(f, name=f"{d.name}.{f.name}", hidden=d.hidden)
                out.extend(self.declare(sub, prefix, owner, known, None, path, made))
            return out
        if levels:  # a field of a record: one flat array over every level of its path
            path = levels + (size,)
            total = 1
            for n in path:
                total *= n or 1
            inner = self.declare(dataclasses.replace(d, size=S.Num(total, d.pos) if any(path) else None),
                                 prefix, owner, known, evaluate)
            return [(src, dataclasses.replace(info, levels=path) if any(path) else info, init)
                    for src, info, init in inner]
        bounds = self.type_bounds(d.type, d.bits, d.pos)
        value = 0
        if isinstance(d.init, tuple):
            return self._declare_listed(d, prefix, owner, known, size, bounds)
        if d.init is not None:
            if isinstance(d.init, S.ChanInit):
                raise self.error("expected an expression as initialiser", d.pos)
            value = self.static(d.init, known)
            if value is None and evaluate is not None:
                value = evaluate(d.init)
            if value is None:
                value = "dynamic"
        if d.hidden:
            self.warn(f"hidden variable {d.name} is kept in the state vector (Spin drops it), "
                      f"so state counts can exceed Spin's")
        name = prefix + d.name
        info = VarInfo(name, bounds, size, d.hidden, chan=d.type == "chan")
        if d.type == "chan":
            self.chan_valued.add(name)
        self.var_bounds[name] = bounds
        init_value = 0 if value == "dynamic" or owner is not None and not known.get("__running__") else _wrap_value(value, bounds)
        # mtype values show by name (0 is Spin's "no mtype").
        names = ()
        if d.type == "mtype" or d.type.startswith("mtype:"):
            sub = d.type[len("mtype:"):] or None
            names = tuple(sorted((self.mtypes[n], n) for n in self.mtype_names.get(sub, ())))
        self.check_state_size(size or 1, d.name, d.pos)
        self.variables.append(ir.Variable(
            name, self.domain(name, bounds, (init_value,), d.pos), tuple((init_value,) for _ in range(size or 1)), size,
            owner, d.hidden,
            value_names=names,
        ))
        return [(d.name, info, d.init)]

    def _declare_listed(self, d: S.VarDecl, prefix: str, owner: Optional[str], known: dict, size: Optional[int],
                        bounds: tuple) -> list:
        """An array declared with an initialiser list (``int a[4] = {3, 5}``): element k
        starts at the list's k-th value, the elements past the list at its last value, values
        past the array's end are dropped (pan.c 6.5.2: ``a[2] = 5; a[3] = 5``).  The values
        must be constants (``listed_values``)."""
        if size is None or d.type == "chan":
            raise self.error("an initialiser list needs an array of a basic type", d.pos)
        values = self.listed_values(d, known, size)
        if d.hidden:
            self.warn(f"hidden variable {d.name} is kept in the state vector (Spin drops it), "
                      f"so state counts can exceed Spin's")
        name = prefix + d.name
        info = VarInfo(name, bounds, size, d.hidden, chan=False)
        self.var_bounds[name] = bounds
        if owner is not None and not known.get("__running__"):
            values = [0] * size  # a process not yet running: set when it is created
        values = [_wrap_value(v, bounds) for v in values]
        names = ()
        if d.type == "mtype" or d.type.startswith("mtype:"):
            sub = d.type[len("mtype:"):] or None
            names = tuple(sorted((self.mtypes[n], n) for n in self.mtype_names.get(sub, ())))
        self.check_state_size(size, d.name, d.pos)
        self.variables.append(ir.Variable(
            name, self.domain(name, bounds, tuple(sorted(set(values))), d.pos), tuple((v,) for v in values), size,
            owner, d.hidden, value_names=names))
        return [(d.name, info, d.init)]

    def listed_values(self, d: S.VarDecl, known: dict, size: int) -> list[int]:
        """The start value of each of the ``size`` elements of ``d``, declared with an
        initialiser list of constants (``_declare_listed``)."""
        values = []
        for e in d.init:
            v = self.static(e, known)
            if v is None:
                raise self.error("an initialiser list of constants is supported here", d.pos)
            values.append(v)
        if not values:
            raise self.error("empty initialiser list", d.pos)
        return (values + [values[-1]] * size)[:size]

    def may_hold(self, name: str) -> "pointsto.Values":
        """The values ``chan``-valued variable ``name`` may hold (``points_to``)."""
        if self.points_to is None:
            return pointsto.TOP
        if name in self.points_to:
            return self.points_to[name]
        v = next(v for v in self.variables if v.name == name)
        return frozenset(x for element in v.init for x in element)

    def record_width(self, tname: str, known: dict) -> int:
        """The state slots a ``tname`` value takes (one per leaf field element)."""
        return len(records.leaves(self.typedefs, tname, lambda e: self.const(e, known)))

    def check_state_size(self, adding: int, name: str, pos: Span) -> None:
        """Refuse, at the declaration, a state vector of more than ``MAX_STATE_SLOTS`` slots:
        later stages (value analysis, tables, exploration) work per slot, and a huge array
        would run for hours before any bound applied."""
        refusal = state_slots_refusal(sum(v.length for v in self.variables), adding, name,
                                      "shrink its size (Spin itself needs -DVECTORSZ past 1024 bytes)")
        if refusal is not None:
            raise self.error(refusal, pos)

    def channel_field(self, d: S.VarDecl, prefix: str, owner: Optional[str], known: dict, levels: tuple,
                      chans: list[Channel]) -> list:
        """Declare a record's initialised ``chan`` field ``d`` (``levels``: see ``declare``):
        Spin creates its channels (``chans``, one per element of its flat array) with the
        record, and the field is a chan variable holding their numbers -- from the start
        where the record exists then (a global, a running process's local), else set by
        ``run`` (``local_initialisers``)."""
        out = self.declare(dataclasses.replace(d, init=None), prefix, owner, known, None, levels)
        running = owner is None or known.get("__running__")
        values = tuple(ch.ident if running and not ch.offset and ch.alive is None else 0 for ch in chans)
        k = next(k for k, v in enumerate(self.variables) if v.name == prefix + d.name)
        v = self.variables[k]
        assert v.length == len(values), (v.name, v.length, len(values))
        self.variables[k] = dataclasses.replace(v, init=tuple((x,) for x in values))
        return out

    def record_channels(self, d: S.VarDecl, known: dict, prefix: str, owner: Optional[str],
                        ident: Optional[int] = None, alive: Optional[str] = None,
                        offset: tuple = (), removed_with: Optional[str] = None) -> dict[str, list[Channel]]:
        """The channels record variable ``d`` creates (its initialised ``chan`` fields, at
        any depth, for every element), numbered next (from ``ident``, see
        ``declare_channel``) in pan's order: element by element, each element's fields
        depth first (``records.created_channels``; Spin 6.5.2's ``addproc`` and
        ``iniglobals``).  Keyed by the field's flat name (``d.name`` + ``.r.c``), each list
        in the order of that field's flat array (``VarInfo.levels``); ``removed_with``: a
        process's local record, deleted with it (``Channel``)."""
        size = self.const(d.size, known) if d.size is not None else None
        made: dict[str, list[Channel]] = {}
        for e in range(size or 1):
            for path, f in records.created_channels(self.typedefs, d.type, lambda x: self.const(x, known)):
                label = d.name + ("" if size is None else f"[{e}]") + "".join(
                    f".{n}" + ("" if k is None else f"[{k}]") for n, k in path)
                chans = self.declare_channel(dataclasses.replace(f, name=label, size=None), known, prefix, owner,
                                             None if ident is None else ident + sum(map(len, made.values())),
                                             alive, offset, removed_with)
                made.setdefault(".".join([d.name, *(n for n, _ in path)]), []).extend(chans)
        return made

    def declare_channel(self, d: S.VarDecl, known: dict, prefix: str = "", owner: Optional[str] = None,
                        ident: Optional[int] = None, alive: Optional[str] = None,
                        offset: tuple = (), removed_with: Optional[str] = None) -> list[Channel]:
        """The channel instances ``d`` creates (an array: one per element), numbered next
        (from identity ``ident`` plus ``offset`` when given: a process created at run time,
        ``alive`` its pc; see ``Channel``); their buffers are owned by ``owner`` (a
        process's local channels move with it); ``removed_with``: see ``Channel``."""
        cap = self.const(d.init.capacity, known)
        count = self.const(d.size, known) if d.size is not None else None
        # a record is its fields, depth first (Spin's ``spin -I``: ``records``)
        types = records.flat_types(self.typedefs, d.init.types, lambda e: self.const(e, known))
        fields = [self.type_bounds(t, None, d.init.pos) for t in types]
        chans = []
        self.check_state_size((count or 1) * (1 + cap * len(fields)) if cap > 0 else 0, d.name, d.pos)
        for k in range(count or 1):
            name = prefix + (d.name if count is None else f"{d.name}_{k}")
            ch = Channel(name, cap, tuple(fields), len(self.channels) + 1 if ident is None else ident + k, alive,
                         offset, removed_with)
            if cap > 0:
                fifo = ch.buffer
                self.variables.append(dataclasses.replace(fifo.length_variable(), owner=owner))
                self.chan_valued.update(fifo.fields[j] for j, t in enumerate(types) if t == "chan")
                for j, fb in enumerate(fields):
                    self.variables.append(dataclasses.replace(
                        fifo.field_variable(j, self.domain(fifo.fields[j], fb, (0,), d.pos)), owner=owner))
            chans.append(ch)
            self.channels.append(ch)
        return chans


# ---------------------------------------------------------------------------- instances


@dataclass
class Ctx:
    """Name resolution inside one instance (or the global scope when ``inst`` is None)."""

    inst: Optional[Instance]
    locals: dict  # source name -> VarInfo
    chans: dict  # source name -> list[Channel]


class Translator:
    def __init__(self, low: Lowering, instances: list, slots: Optional["ProcessSlots"] = None,
                 ctxs: Optional[dict] = None):
        self.low = low
        self.instances = instances
        #: the pids ``run`` fills at run time (None: every run is in init's start-up plan)
        self.slots = slots
        #: each instance's ``Ctx``, by owner
        self.ctxs = ctxs or {}

    def counter(self, inst: Instance) -> ProgramCounter:
        return ProgramCounter(Name(f"{inst.prefix}.pc"))

    def free(self, pid: int) -> Expr:
        """No process has pid ``pid``."""
        return conj(*(self.counter(i).at(0) for i in self.instances if i.pid == pid))

    def occupied(self, pid: int) -> Expr:
        return neg(self.free(pid))

    def run(self, st: S.Run, ctx: Ctx) -> list[tuple[Expr, tuple]]:
        """``run`` at run time: the new process takes pid ``_nr_pr`` (Spin's ``addproc``),
        the lowest free pid, since processes are removed last-in-first-out: pids in use
        are always ``0 .. _nr_pr - 1``, so "``_nr_pr == p``" is "pid p - 1 in use, p free".
        One alternative per pid, and a fault when every pid up to the bound is in use."""
        slots = self.slots
        if slots is None:
            raise self.low.error("run is supported only in init's start-up sequence", st.pos)
        out = []
        given, overflow = slots.pids(st)
        for pid in given:
            target = slots.holder(st.proctype, pid)
            # a channel parameter is the same channel in every run (a constant of the
            # instance), or a variable given the channel's identity here
            args = tuple(None if isinstance(fixed, Channel) else self.expr(a, ctx)
                         for fixed, a in zip(target.args, st.args))
            fresh = self.free(pid) if pid == slots.first else conj(self.occupied(pid - 1), self.free(pid))
            start = (self.counter(target).goto(target.graph.entry),) + \
                local_initialisers(self.low, self, target, self.ctxs[target.owner], args)
            start += run_priority(target, self.ctxs[target.owner], st)
            if st.target is not None:  # p = run P(): the new pid
                start += (self.assign(st.target, Const(pid), ctx),)
            out.append((fresh, start))
        full = self.occupied(slots.bound - 1)
        if overflow:
            out.append((full, (slots.overflow(),)))
        if slots.creations is not None and not (overflow and given == list(range(slots.first, slots.bound))):
            # ``pids.creations`` over-approximates: this never holds in a reachable state,
            # but should the analysis miss a case, the model says so rather than block
            missed = neg(disj(*[g for g, _ in out]))
            if fold(missed) != FALSE:
                out.append((missed, (Assert(FALSE, f"internal error: run {st.proctype}() gives a pid the "
                                                   f"pid analysis (frontends/promela/pids.py) did not foresee"),)))
        return out

    def nr_pr(self) -> Expr:
        terms = [Binary("!=", self.counter(i).slot, Const(0)) for i in self.instances]
        if not terms:  # a global's initialiser: no process exists yet
            return Const(0)
        out = terms[0]
        for t in terms[1:]:
            out = Binary("+", out, t)
        return out

    def var(self, r: S.VarRef, ctx: Ctx):
        """(VarInfo, index IR expr or None) of a variable reference."""
        path = [(r.name, r.index)]
        f = r.field
        while f is not None:
            path.append((f.name, f.index))
            f = f.field
        name = ".".join(n for n, _ in path)
        index = next((i for _, i in path if i is not None), None)
        info = ctx.locals.get(name) or self.low.globals.get(name)
        if not isinstance(info, VarInfo):
            if name in ctx.chans or name in self.low.globals:
                raise self.low.error(f"channel {name} used as a value", r.pos)
            raise self.low.error(f"undeclared variable {name}", r.pos)
        if info.levels:
            return info, self.flat_index(info, path, r, ctx)
        if len(path) > 1 and sum(i is not None for _, i in path) > 1:
            raise self.low.error(f"{name}: too many indices", r.pos)
        if info.size is None and index is not None:
            raise self.low.error(f"{name} is not an array", r.pos)
        if info.size is not None and index is None:
            raise self.low.error(f"array {name} used without an index", r.pos)
        return info, (self.expr(index, ctx) if index is not None else None)

    def flat_index(self, info: VarInfo, path: list, r: S.VarRef, ctx: Ctx) -> Optional[Expr]:
        """The element of a record field's flat array that ``path`` (name, index) names
        (``VarInfo.levels``).  Spin checks each index against its own bound: an index out
        of its level's range becomes an out-of-range flat index (a fault), not another
        record's element (the first level's own range is the flat array's)."""
        flat: Optional[Expr] = None
        inside: Expr = TRUE
        for (n, idx), length in zip(path, info.levels):
            if length is None:
                if idx is not None:
                    raise self.low.error(f"{n} is not an array", r.pos)
                continue
            if idx is None:
                count = sum(x is not None for x in info.levels)
                shape = ".".join(f"{m}[{'ijkl'[min(3, sum(x is not None for x in info.levels[:k]))]}]"
                                 if info.levels[k] is not None else m for k, (m, _) in enumerate(path))
                name = ".".join(m for m, _ in path)
                raise self.low.error(f"{name} needs {({2: 'two', 3: 'three'}).get(count, count)} "
                                     f"ind{'ices' if count > 1 else 'ex'}: {shape}", r.pos)
            e = self.expr(idx, ctx)
            if flat is None:
                flat = e
                continue
            inside = fold(conj(inside, fold(Binary(">=", e, Const(0))), fold(Binary("<", e, Const(length)))))
            flat = fold(Binary("+", fold(Binary("*", flat, Const(length))), e))
        if isinstance(inside, Const):
            return flat if inside.value else Const(info.size)
        return Ite(inside, flat, Const(info.size))

    def lvalue(self, r: S.VarRef, ctx: Ctx):
        info, idx = self.var(r, ctx)
        return info, (Name(info.name) if idx is None else Index(info.name, idx))

    def channel_instances(self, name: str, ctx: Ctx) -> Optional[list[Channel]]:
        """The channel instances a declared channel ``name`` stands for (None: not one)."""
        if name in ctx.chans:
            return ctx.chans[name]
        if name in ctx.locals:
            return None
        chans = self.low.globals.get(name)
        return chans if isinstance(chans, list) and chans and isinstance(chans[0], Channel) else None

    def channel(self, r: S.VarRef, ctx: Ctx, arity: Optional[int] = None) -> list[tuple[Expr, Channel]]:
        """Candidate channels of a channel reference, each with the condition selecting it;
        for a ``chan`` variable, every channel of ``arity`` fields its value may name."""
        chans = self.channel_instances(r.name, ctx) if r.field is None else None
        if chans is None:
            return self.channel_value(r, ctx, arity)
        if r.index is None:
            if len(chans) != 1:
                raise self.low.error(f"channel array {r.name} used without an index", r.pos)
            return [(TRUE, chans[0])]
        idx = self.expr(r.index, ctx)
        if isinstance(idx, Const):
            if not 0 <= idx.value < len(chans):
                raise self.low.error(f"channel index {idx.value} out of range", r.pos)
            return [(TRUE, chans[idx.value])]
        return [(Binary("==", idx, Const(k)), ch) for k, ch in enumerate(chans)]

    def channel_value(self, r: S.VarRef, ctx: Ctx, arity: Optional[int],
                      none_ok: bool = False) -> list[tuple[Expr, Channel]]:
        """The candidates of a reference to a ``chan`` variable (or field): the channel its
        value names, selected by ``value == ident``.  A value naming no such channel (0, an
        unset variable) selects none: the operation's fault (``uninitialised``, the
        ``UNINIT_CHAN`` of a channel function).  No candidate at all is an input error
        unless ``none_ok``."""
        info, _ = self.var(r, ctx)
        if not info.chan:
            raise self.low.error(f"{r.name} is not a channel", r.pos)
        if r.name == "STDIN" and r.field is None and r.name not in ctx.locals:
            # Spin's predefined channel: the simulator's standard input; pan has none and
            # stops at the first state that reads it ("1 (incomplete)"), so no count to match
            raise self.low.error("unsupported construct: STDIN (Spin's standard input, read only by the simulator; "
                                 "pan cannot verify a model that reads it)", r.pos)
        value = self.expr(r, ctx)
        candidates = [ch for ch in self.low.channels if arity is None or len(ch.fields) == arity]
        if isinstance(value, Const):
            candidates = [ch for ch in candidates if ch.may_be(value.value)]
        if not candidates and not none_ok:
            raise self.low.error(f"{r.name} names no channel" + ("" if arity is None else f" of {arity} fields"),
                                 r.pos)
        held = self.low.may_hold(info.name)
        if held is not pointsto.TOP:
            # the channels it may name in a reachable state; none: the operation never moves
            candidates = [ch for ch in candidates if any(ch.may_be(v) for v in held)]
        return [(conj(TRUE if isinstance(value, Const) and not ch.offset else fold(Binary("==", value, ch.value())),
                      TRUE if ch.alive is None else Binary("!=", Name(ch.alive), Const(0))), ch)
                for ch in candidates]

    def is_variable_channel(self, r: S.VarRef, ctx: Ctx) -> bool:
        """``r`` is a ``chan`` variable, not a declared channel."""
        return r.field is not None or self.channel_instances(r.name, ctx) is None

    def expr(self, e, ctx: Ctx) -> Expr:
        if isinstance(e, S.Num):
            return Const(e.value)
        if isinstance(e, S.VarRef) and e.field is None and (chans := self.channel_instances(e.name, ctx)):
            # a declared channel as a value: its identity
            if e.index is None:
                return chans[0].value()
            idx = self.expr(e.index, ctx)
            if isinstance(idx, Const):
                return chans[idx.value].value() if 0 <= idx.value < len(chans) else Const(0)
            out: Expr = Const(0)
            for k in reversed(range(len(chans))):
                out = Ite(Binary("==", idx, Const(k)), chans[k].value(), out)
            return out
        if isinstance(e, S.VarRef):
            if e.index is None and e.field is None and e.name not in ctx.locals and e.name not in self.low.globals \
                    and e.name in self.low.mtypes:
                return Const(self.low.mtypes[e.name])
            info, idx = self.var(e, ctx)
            return Name(info.name) if idx is None else Index(info.name, idx)
        if isinstance(e, S.UnOp):
            x = self.expr(e.operand, ctx)
            if e.op == "~":
                return Binary("-", Unary("-", x), Const(1))
            return fold(Unary(e.op, x))
        if isinstance(e, S.BinOp):
            # A faulting operation on constants (``1 << 300``) is not an input error (Spin
            # accepts it) but a run-time fault of the model, as the other front ends leave it.
            return fold(Binary(e.op, self.expr(e.left, ctx), self.expr(e.right, ctx)), keep=("/", "%"))
        if isinstance(e, S.CondExpr):
            return Ite(self.expr(e.cond, ctx), self.expr(e.then, ctx), self.expr(e.else_, ctx))
        if isinstance(e, S.Special):
            if e.name == "_pid":
                if ctx.inst is None:
                    raise self.low.error("_pid outside a process", e.pos)
                stored = ctx.locals.get("_pid")  # a process that receives into _pid (``declare_instance``)
                return Const(ctx.inst.pid) if stored is None else Name(stored.name)
            if e.name == "_nr_pr":
                has_claim = self.low.claim is not None or self.low.non_progress
                return Binary("+", self.nr_pr(), Const(1)) if has_claim else self.nr_pr()
            return Name(_TIMEOUT)
        if isinstance(e, S.ChanFn):
            out = []
            # a ``chan`` variable may name no channel (0: never assigned): pan's q_len and
            # q_full report "ref to uninitialized chan name" where they evaluate it
            variable = self.is_variable_channel(e.chan, ctx)
            candidates = (self.channel_value(e.chan, ctx, None, none_ok=True) if variable
                          else self.channel(e.chan, ctx))
            for cond, ch in candidates:
                ln = Name(ch.buffer.length) if ch.capacity > 0 else Const(0)
                v = {"len": ln, "empty": Binary("==", ln, Const(0)), "nempty": Binary("!=", ln, Const(0)),
                     "full": Binary("==", ln, Const(ch.capacity)), "nfull": Binary("<", ln, Const(ch.capacity))}[e.fn]
                if ch.capacity == 0 and e.fn in ("full", "nfull"):
                    # Spin: a rendezvous channel is never full (checked against Spin 6.5.2)
                    v = Const(int(e.fn == "nfull"))
                if e.fn in ("full", "nfull") and variable:
                    v = self.deleted(ch, v, candidates)  # pan's q_full on a deleted queue
                out.append((cond, v))
            if not variable:
                return _select(out)
            # a value, not a truth value: the candidates chained by ``?:``, the last
            # alternative the fault (``rvpoll.UNINIT_CHAN``) or a deleted queue's reading
            value: Expr = self.deleted_chan_fn(e, ctx, self.placeholder(rvpoll.UNINIT_CHAN))
            for cond, v in reversed(out):
                value = v if cond == TRUE else Ite(cond, v, value)
            return value
        if isinstance(e, S.RemoteLabel):
            return self.remote_label(e, ctx)
        if isinstance(e, S.RemoteVar):
            return self.remote_var(e, ctx)
        if isinstance(e, S.ArrayLength):
            return Const(self.array_length(e.array, ctx))
        if isinstance(e, S.ProcFn):
            return self.proc_fn(e, ctx)
        if isinstance(e, S.Poll):
            return self.poll(e, ctx)
        raise self.low.error(f"unsupported expression {type(e).__name__}", getattr(e, "pos", None))

    def placeholder(self, name: str) -> Expr:
        """The ``rvpoll`` placeholder ``name``, noting that the model reads one (so every
        step gets its probes: ``split_polls``)."""
        self.low.rv_polled = True
        return Name(name)

    def poll(self, e: S.Poll, ctx: Ctx) -> Expr:
        """``c?[args]`` (``c??[args]``: some message anywhere in the queue matches, pan's
        ``Q_has``).  Spin 6.5.2: a poll of a rendezvous channel is false (it holds no
        message), and pan reports an error where it evaluates one (``rvpoll.RV_POLL``); a
        ``chan`` variable naming no channel is pan's q_len error "ref to uninitialized chan
        name" where it evaluates the poll (``rvpoll.UNINIT_CHAN``)."""
        out = [(c, self.placeholder(rvpoll.RV_POLL) if ch.capacity == 0 else
                (self.random_guard if e.random else self.recv_guard)(ch, e.args, ctx, e.pos))
               for c, ch in self.channel(e.chan, ctx, len(e.args))]
        if not self.is_variable_channel(e.chan, ctx):
            return _select(out)
        # pan's ``not_RV(c)`` (``q_zero``) where a rendezvous channel is declared, and
        # ``Q_has`` for a random poll that matches a value, stop at a deleted queue
        tests_type = self.low.rendezvous_declared or self.poll_uses_q_has(e, ctx)
        if tests_type:
            candidates = self.channel(e.chan, ctx, len(e.args))
            out = [(c, self.deleted(ch, v, candidates)) for (c, v), (_, ch) in zip(out, candidates)]
        dead = self.run_deleted(e.chan, ctx)
        none = _names_none(out)
        return disj(*(conj(c, v) for c, v in out), conj(none, neg(dead), self.placeholder(rvpoll.UNINIT_CHAN)),
                    conj(none, dead, self.placeholder(rvpoll.DELETED_CHAN)) if tests_type else FALSE)

    def poll_uses_q_has(self, e: S.Poll, ctx: Ctx) -> bool:
        """pan tests random poll ``e`` with ``Q_has`` (which stops at a queue number past
        ``_nr_qs``, a deleted queue: "qrecv bad queue#"): some argument is a value to match
        (a constant, an mtype name, ``eval``); with none it tests ``q_len(c) > 0`` alone
        (Spin 6.5.2's generated code)."""
        return e.random and any(self.recv_arg_value(a, ctx) is not None for a in e.args)

    def proc_fn(self, e: S.ProcFn, ctx: Ctx) -> Expr:
        """``enabled(p)``: a placeholder ``__enabled__<p>`` that ``scheduling`` replaces by
        "some step of process p is executable" once every step is known (pan's
        ``enabled``: its transitions tried in test mode, ignoring ``provided``, priorities
        and atomic sequences; 0 for a pid in use by nobody).  ``get_priority(p)``: that
        process's ``_priority`` (0 for none).  ``pc_value`` is refused: its value is Spin's
        number of the process's state, and which states a process passes through depends on
        Spin's options -- with statement merging (Spin's default) pan never stores the
        states inside a merged sequence, which ``-o3`` (the semantics our counts follow)
        keeps: ``do :: i < 2 -> i++; n++ ...`` beside ``assert(pc_value(0) != 2)`` holds
        with ``spin -a`` and fails with ``spin -o3 -a`` (Spin 6.5.2), so no one value is
        Spin's."""
        if e.fn == "pc_value":
            raise self.low.error("unsupported construct 'pc_value' (its value is Spin's state number of the "
                                 "process, and the states a process passes through depend on Spin's statement "
                                 "merging, on by default and off with -o3: no one value is Spin's)", e.pos)
        pid = self.expr(e.pid, ctx)
        pids = sorted({i.pid for i in self.instances})
        if e.fn == "enabled":
            # of the process itself too: pan's error where it evaluates it (``scheduling``)
            value = lambda k: Name(f"{ENABLED}{k}")  # noqa: E731
        else:
            def value(k: int) -> Expr:
                out: Expr = Const(0)
                for i in self.instances:
                    if i.pid == k and f"{i.prefix}{PRIORITY_SUFFIX}" in self.low.var_bounds:
                        out = Ite(Binary("!=", self.counter(i).slot, Const(0)), Name(f"{i.prefix}{PRIORITY_SUFFIX}"), out)
                return out
        if isinstance(pid, Const):
            return value(pid.value) if pid.value in pids else Const(0)
        out: Expr = Const(0)
        for k in reversed(pids):
            out = Ite(Binary("==", pid, Const(k)), value(k), out)
        return out

    def set_priority(self, st: S.SetPriority, ctx: Ctx) -> tuple:
        """pan's ``set_priority``: the running process with that pid gets the priority (a
        value outside 1..255 is the error "priority is out of range"); no such process:
        nothing happens."""
        pid, value = self.expr(st.pid, ctx), self.expr(st.value, ctx)
        out: tuple = ()
        for i in reversed(self.instances):
            target = f"{i.prefix}{PRIORITY_SUFFIX}"
            if target not in self.low.var_bounds:
                continue
            body = (Assert(conj(Binary(">=", value, Const(1)), Binary("<=", value, Const(255))),
                           "priority is out of range"), Assign(Name(target), wrap(value, (0, 255), False)))
            out = (If(conj(fold(Binary("==", pid, Const(i.pid))), Binary("!=", self.counter(i).slot, Const(0))),
                      body, out),)
        return out

    def array_length(self, r: S.VarRef, ctx: Ctx) -> int:
        """The number of elements of the array ``r`` names (``for (i in r)``)."""
        if r.index is not None or r.field is not None:
            raise self.low.error(f"for (i in {r.name}): expected an array name", r.pos)
        chans = self.channel_instances(r.name, ctx)
        if chans is not None:  # an array of channels (one channel: ``records.expand`` loops over its messages)
            return len(chans)
        info = ctx.locals.get(r.name) or self.low.globals.get(r.name)
        if not isinstance(info, VarInfo):
            fields = [v for k, v in {**self.low.globals, **ctx.locals}.items()
                      if k.startswith(r.name + ".") and isinstance(v, VarInfo)]
            if fields and fields[0].levels and fields[0].levels[0] is not None:
                return fields[0].levels[0]  # an array of records
            raise self.low.error(f"undeclared variable {r.name}", r.pos)
        if info.size is None:
            raise self.low.error(f"for (i in {r.name}): {r.name} is not an array", r.pos)
        return info.size

    def remote_label(self, e: S.RemoteLabel, ctx: Ctx) -> Expr:
        """``P[pid]@label``: the process with that pid is an instance of ``P`` at ``label``."""
        insts = [i for i in self.instances if i.proctype == e.proctype]
        if e.proctype == "init" or not insts:
            raise self.low.error(f"remote reference to {e.proctype}: no proctype of that name"
                                 + (" (init is not supported)" if e.proctype == "init" else ""), e.pos)
        where = dict(insts[0].graph.labels).get(e.label)
        if where is None:
            raise self.low.error(f"remote reference {e.proctype}@{e.label}: {e.proctype} has no label {e.label}",
                                 e.pos)
        if e.pid is None:
            if len(insts) == 1 or all(i.running for i in insts):
                # pan's f_pid: the first process of that proctype in pid order.  With every
                # instance active from the start, that is the lowest pid for as long as any
                # instance is left (pan removes processes in reverse pid order only).
                return self.counter(min(insts, key=lambda i: i.pid)).at(where)
            if not self.ctxs or any("_pid" in self.ctxs[i.owner].locals for i in insts):
                raise self.low.error(f"remote reference {e.proctype}@{e.label} needs a pid: "
                                     f"{e.proctype} has {len(insts)} instances, not all active from the start"
                                     + (f", and {e.proctype} receives into _pid (pan's f_pid returns what it "
                                        f"received)" if self.ctxs else ""), e.pos)
            # instances that come and go: the running one of lowest pid (its end included,
            # until it is removed); none: pan's zeroed noptr, at no label
            out: Expr = FALSE
            for inst in sorted(insts, key=lambda i: i.pid, reverse=True):
                counter = self.counter(inst)
                out = Ite(Binary("!=", counter.slot, Const(0)), counter.at(where), out)
            return out
        pid = self.expr(e.pid, ctx)
        if isinstance(pid, Const):
            # several instances may take that pid in turn (processes created at run time)
            owners = [i for i in insts if i.pid == pid.value]
            if not owners:
                raise self.low.error(f"remote reference {e.proctype}[{pid.value}]@{e.label}: "
                                     f"no instance of {e.proctype} has pid {pid.value}", e.pos)
            return disj(*(self.counter(i).at(where) for i in owners))
        return disj(*(conj(Binary("==", pid, Const(i.pid)), self.counter(i).at(where)) for i in insts))

    def remote_var(self, e: S.RemoteVar, ctx: Ctx) -> Expr:
        """``P[pid]:v`` as pan 6.5.2 reads it: ``((P *)Pptr(BASE+pid))->v``, the bytes of the
        process with that pid read as a ``P``.  The process running there is one of the
        instances that may hold that pid: its ``v`` while it runs (its end included, until
        it is removed), 0 where no process has the pid (pan's ``noptr``, zeroed, and a
        removed process's bytes are zeroed).  Refused by name where pan reads another
        proctype's bytes (the pid may be a process of another proctype, or its place in the
        state vector moves with the proctypes below it, so a stale offset may point into a
        live process).  ``P:v`` is pan's ``f_pid``: the running ``P`` of lowest pid, 0 for
        none.  An element index is the reader's; pan does not check it (we fault outside
        the array)."""
        name = f"{e.proctype}{'' if e.pid is None else '[pid]'}:{e.var}"
        insts = [i for i in self.instances if i.proctype == e.proctype]
        if e.proctype not in self.low.proctypes:
            raise self.low.error(f"remote reference {name}: no proctype {e.proctype}"
                                 + (" (init is not supported)" if e.proctype == "init" else ""), e.pos)
        if not self.ctxs:
            raise self.low.error(f"remote reference {name} in an initialiser (not supported)", e.pos)
        index = self.expr(e.index, ctx) if e.index is not None else None

        def value(inst: Instance) -> Expr:
            other = self.ctxs[inst.owner]
            info = other.locals.get(e.var)
            if e.var == "_pid" or not isinstance(info, VarInfo):
                what = "a channel" if e.var in other.chans else (
                    "a record" if any(k.startswith(e.var + ".") for k in other.locals) else "no variable")
                raise self.low.error(f"remote reference {name}: {e.var} is {what} of {e.proctype} "
                                     f"(only its scalars and array elements are read)", e.pos)
            if (info.size is None) != (index is None):
                raise self.low.error(f"remote reference {name}: {e.var} is "
                                     + ("an array: give an index" if index is None else "not an array"), e.pos)
            return Name(info.name) if index is None else Index(info.name, index)

        def first_running(holders: list) -> Expr:
            """The value of the first of ``holders`` (in order) that runs, 0 for none."""
            out: Expr = Const(0)
            for inst in reversed(holders):
                out = Ite(Binary("!=", self.counter(inst).slot, Const(0)), value(inst), out)
            return out

        if e.pid is None:
            if any("_pid" in self.ctxs[i.owner].locals for i in insts):
                raise self.low.error(f"remote reference {name} without a pid: {e.proctype} receives into _pid, "
                                     "and pan's f_pid returns what it received (not supported)", e.pos)
            return first_running(sorted(insts, key=lambda i: i.pid))
        pid = fold(self.expr(e.pid, ctx))
        by_pid: dict[int, list] = {}
        for i in self.instances:
            by_pid.setdefault(i.pid, []).append(i)
        candidates = [pid.value] if isinstance(pid, Const) else sorted(by_pid)
        if not isinstance(pid, Const) and (span := _bounds(pid, self.low.var_bounds)) is not None:
            candidates = [k for k in candidates if span[0] <= k <= span[1]]

        def at(k: int) -> Expr:
            holders = by_pid.get(k, [])
            strangers = sorted({i.proctype for i in holders if i.proctype != e.proctype})
            if strangers:
                raise self.low.error(f"remote reference {name}: pid {k} is (or may be) a process of "
                                     f"{', '.join(strangers)}, whose bytes pan would read as {e.proctype}'s "
                                     f"(not reproduced)", e.pos)
            below = [j for j in by_pid if j < k and len({i.proctype for i in by_pid[j]}) > 1]
            if holders and below:
                raise self.low.error(f"remote reference {name}: pid {k}'s place in pan's state vector depends on "
                                     f"which proctype has pid {below[0]}, so pan may read another process's bytes "
                                     f"where pid {k} is not running (not reproduced)", e.pos)
            return first_running(holders)  # (one of them at a time)

        if isinstance(pid, Const):
            return at(pid.value)
        out = Const(0)
        for k in reversed(candidates):
            out = Ite(Binary("==", pid, Const(k)), at(k), out)
        return out

    # ------------------------------------------------------------------ channel operations
    def recv_arg_value(self, a: S.RecvArg, ctx: Ctx) -> Optional[Expr]:
        """The value a receive argument must match, or None when it stores into a variable."""
        if a.kind in ("const", "eval"):
            return self.expr(a.expr, ctx)
        r = a.ref
        if r.index is None and r.field is None and r.name not in ctx.locals and r.name not in self.low.globals:
            if r.name in self.low.mtypes:
                return Const(self.low.mtypes[r.name])
            if r.name == "_":
                return None
        return None

    def recv_guard(self, ch: Channel, args, ctx: Ctx, pos) -> Expr:
        if ch.capacity == 0:
            raise self.low.error("unsupported construct: rendezvous channels ([0] of {...})", pos)
        if len(args) > len(ch.fields):
            raise self.low.error(f"receive with {len(args)} arguments from a channel of {len(ch.fields)} fields", pos)
        fifo = ch.buffer
        conds = [fifo.not_empty()]  # fewer arguments: the fields given are matched (pan)
        for j, a in enumerate(args):
            v = self.recv_arg_value(a, ctx)
            if v is not None:
                conds.append(Binary("==", fifo.head(j), v))
        return conj(*conds)

    def distinct_targets(self, st: S.Recv, ctx: Ctx) -> None:
        """Spin refuses a receive (not a poll) into one plain variable twice ("cannot use
        var ('x') in multiple msg fields"; ``x[0],x[0]`` it accepts, and any receive
        inside a ``d_step``, where the fields are stored in order)."""
        seen: set[str] = set()
        for a in st.args:
            if a.kind != "var" or a.ref.index is not None or a.ref.field is not None or a.ref.name == "_" \
                    or self.recv_arg_value(a, ctx) is not None:
                continue
            if a.ref.name in seen:
                raise self.low.error(f"cannot use var ('{a.ref.name}') in multiple msg fields (Spin)", st.pos)
            seen.add(a.ref.name)

    def matches_at(self, ch: Channel, args, ctx: Ctx, slot: int) -> Expr:
        """The queue holds a message in ``slot`` whose fields match every constant and
        ``eval()`` argument (pan's ``Q_has``: variables and ``_`` match anything)."""
        fifo = ch.buffer
        conds = [Binary(">", Name(fifo.length), Const(slot))]
        for j, a in enumerate(args):
            v = self.recv_arg_value(a, ctx)
            if v is not None:
                conds.append(Binary("==", fifo.at(slot, j), v))
        return conj(*conds)

    def random_guard(self, ch: Channel, args, ctx: Ctx, pos) -> Expr:
        """``c??args`` and ``c??[args]`` are executable: some message in the queue matches."""
        if len(args) > len(ch.fields):
            raise self.low.error(f"receive with {len(args)} arguments from a channel of {len(ch.fields)} fields", pos)
        return disj(*(self.matches_at(ch, args, ctx, k) for k in range(ch.capacity)))

    def random_program(self, ch: Channel, args, ctx: Ctx, copy: bool) -> tuple:
        """``c??args`` (``copy``: ``c??<args>``): the FIRST matching message in queue order
        is read into the variables and (unless ``copy``) removed from its slot, the
        messages behind it moving up (pan's ``Q_has`` then ``qrecv`` at that slot).  One
        branch per slot, each under "no earlier slot matched"; the last needs no test (the
        guard ensures some slot matches)."""
        fifo = ch.buffer
        out: tuple = ()
        for k in reversed(range(ch.capacity)):
            prog = []
            for j, a in enumerate(args):
                if self.recv_arg_value(a, ctx) is not None or (a.kind == "var" and a.ref.name == "_"):
                    continue
                info, target = self.lvalue(a.ref, ctx)
                prog.append(Assign(target, wrap(fifo.at(k, j), info.bounds, _fits(ch.fields[j], info.bounds))))
            if not copy:
                # pan's trace check (``require`` in ``qrecv``) reads the HEAD, not the
                # message taken, before it is removed
                event = self.low.trace.update("r", ch.prefix, [fifo.head(j) for j in range(len(ch.fields))]) \
                    if self.low.trace is not None else ()
                prog = [*event, *prog, *fifo.remove(k), *_missing_fields(len(args), ch)]
            out = tuple(prog) if k == ch.capacity - 1 else (If(self.matches_at(ch, args, ctx, k), tuple(prog), out),)
        return out

    def sorted_send_program(self, ch: Channel, args, ctx: Ctx, pos) -> tuple:
        """``c!!args``: the message goes before the first message in the queue that is
        greater, comparing field by field (pan's ``qsend`` with ``sorted``: it compares the
        values as computed, before they are truncated to the fields, with the stored ones;
        an equal message does not stop the scan, so equal keys stay in sending order), at
        the tail if none is.  One branch per slot; the last slot is never an insertion
        point (the queue is not full)."""
        fifo = ch.buffer
        values = self.sent_values(ch, args, ctx, pos)
        raw = [self.expr(a, ctx) for a in args] + [Const(0)] * (len(ch.fields) - len(args))
        # the trace check (``require`` after the insertion) reads the TAIL message
        event = self.low.trace.update(
            "s", ch.prefix, [Index(f, Binary("-", Name(fifo.length), Const(1))) for f in fifo.fields]) \
            if self.low.trace is not None else ()
        out: tuple = fifo.enqueue(values)
        for k in reversed(range(ch.capacity - 1)):
            less: Expr = Binary("<", raw[-1], fifo.at(k, len(raw) - 1))
            for j in reversed(range(len(raw) - 1)):
                less = disj(Binary("<", raw[j], fifo.at(k, j)), conj(Binary("==", raw[j], fifo.at(k, j)), less))
            out = (If(conj(Binary(">", Name(fifo.length), Const(k)), less), fifo.insert(k, values), out),)
        return out + event + _too_few_values(len(args), ch)

    def recv_program(self, ch: Channel, args, ctx: Ctx, copy: bool) -> tuple:
        fifo = ch.buffer
        prog = []
        for j, a in enumerate(args):
            if self.recv_arg_value(a, ctx) is not None or (a.kind == "var" and a.ref.name == "_"):
                continue
            info, target = self.lvalue(a.ref, ctx)
            prog.append(Assign(target, wrap(fifo.head(j), info.bounds, _fits(ch.fields[j], info.bounds))))
        if copy:
            return tuple(prog)
        # the trace sees the message before it leaves the head (pan's qrecv: require, then remove)
        event = self.low.trace.update("r", ch.prefix, [fifo.head(j) for j in range(len(ch.fields))]) \
            if self.low.trace is not None else ()
        return event + tuple(prog) + fifo.dequeue() + _missing_fields(len(args), ch)

    def send_program(self, ch: Channel, args, ctx: Ctx, pos) -> tuple:
        if ch.capacity == 0:
            raise self.low.error("unsupported construct: rendezvous channels ([0] of {...})", pos)
        values = self.sent_values(ch, args, ctx, pos)
        # the trace sees the message once it is appended (pan's qsend: append, then require)
        event = self.low.trace.update("s", ch.prefix, values) if self.low.trace is not None else ()
        return ch.buffer.enqueue(values) + event + _too_few_values(len(args), ch)

    def sent_values(self, ch: Channel, args, ctx: Ctx, pos) -> list[Expr]:
        """The values a send of ``args`` puts into ``ch``, wrapped to its fields; pan
        fills fields not given with 0 (``_too_few_values``)."""
        if len(args) > len(ch.fields):
            raise self.low.error(f"send of {len(args)} values to a channel of {len(ch.fields)} fields", pos)
        values = []
        for j, a in enumerate(args):
            v = self.expr(a, ctx)
            values.append(wrap(v, ch.fields[j], _fits(_bounds(v, self.low.var_bounds), ch.fields[j])))
        return values + [Const(0)] * (len(ch.fields) - len(args))

    def buffered(self, r: S.VarRef, ctx: Ctx, arity: Optional[int]) -> list[tuple[Expr, Channel]]:
        """The buffered candidates of a channel reference (a ``chan`` variable's rendezvous
        candidates are handshakes, see ``rendezvous``)."""
        offers = self.channel(r, ctx, arity)
        if self.is_variable_channel(r, ctx):
            return [(c, ch) for c, ch in offers if ch.capacity > 0]
        if any(ch.capacity == 0 for _, ch in offers):
            raise self.low.error("unsupported construct: rendezvous channels ([0] of {...})", r.pos)
        return offers

    def rendezvous(self, t: Transition, ctx: Ctx) -> Optional[list[tuple[Expr, Channel]]]:
        """The (selecting condition, channel) offers of a send or receive on rendezvous
        channels; None for any other statement or a buffered channel.  A ``chan`` variable
        may name both kinds: its rendezvous candidates are offers, its buffered ones steps
        (``has_buffered``)."""
        st = t.stmt
        if isinstance(st, S.Recv):
            self.distinct_targets(st, ctx)
        if not isinstance(st, (S.Send, S.Recv)) or isinstance(st, S.Recv) and st.copy:
            return None  # ``c?<...>`` on a rendezvous channel is no handshake (``basic``)
        offers = self.channel(st.chan, ctx, len(st.args))
        kinds = {ch.capacity == 0 for _, ch in offers}
        if kinds != {True}:
            if True not in kinds:
                return None
            if not self.is_variable_channel(st.chan, ctx):
                raise self.low.error("a channel array mixing rendezvous and buffered channels", st.pos)
            offers = [(c, ch) for c, ch in offers if ch.capacity == 0]
        # Spin 6.5.2 on a rendezvous channel: ``c!!m`` is ``c!m`` (sorted into an empty
        # queue) and ``c??m`` is ``c?m`` (the handshake's message is the only one)
        return offers

    def has_buffered(self, t: Transition, ctx: Ctx) -> bool:
        """``t`` is a channel operation with a step of its own beside its handshakes: a
        buffered candidate, or a ``chan`` variable's fault where it names no channel
        (``uninitialised``)."""
        st = t.stmt
        return isinstance(st, (S.Send, S.Recv)) and (self.is_variable_channel(st.chan, ctx) or any(
            ch.capacity > 0 for _, ch in self.channel(st.chan, ctx, len(st.args))))

    @staticmethod
    def exists(ch: Channel) -> Expr:
        """Where channel ``ch`` exists as far as its removal goes (``Channel.removed_with``)."""
        return TRUE if ch.removed_with is None else Binary("!=", Name(ch.removed_with), Const(0))

    @staticmethod
    def gone(ch: Channel, candidates: list[tuple[Expr, Channel]]) -> Expr:
        """Where candidate ``ch`` (``Channel.removed_with``) has been deleted and no other
        candidate took its number since (a process created later numbers its channels
        after those in use: its own, alive, is the one the value names)."""
        others = [neg(c) for c, other in candidates
                  if other is not ch and (other.offset or other.ident == ch.ident)]
        return conj(Binary("==", Name(ch.removed_with), Const(0)), *others)

    def deleted(self, ch: Channel, value: Expr, candidates: list[tuple[Expr, Channel]]) -> Expr:
        """``value`` (an operation's guard or result on ``ch``) where pan's ``q_full`` or
        ``q_zero`` would read ``ch``: where ``ch`` was deleted with its process, pan's
        fatal "bad queue" (the placeholder ``DELETED_CHAN``; its zeroed queue reads as
        empty, so ``len``, ``empty`` and a receive tested by ``q_len`` alone need none)."""
        if ch.removed_with is None:
            return value
        return Ite(self.gone(ch, candidates), self.placeholder(rvpoll.DELETED_CHAN), value)

    def deleted_faults(self, st, ctx: Ctx) -> list[tuple[Expr, tuple]]:
        """The alternatives of a send or receive on a ``chan`` variable whose value names a
        channel deleted with its process, where pan's code tests it with ``q_full`` (every
        send) or ``q_zero`` (a receive where both kinds of channel are declared): never
        executable, they fault where pan tries the operation ("bad queue", Spin 6.5.2).
        A receive of a rendezvous-only model (``boq != c``) or a buffered-only one
        (``q_len``: 0) blocks there instead, as the emptied channel does."""
        if not self.is_variable_channel(st.chan, ctx):
            return []
        dead = self.run_deleted(st.chan, ctx)  # a channel created by ``run``, deleted since
        if isinstance(st, S.Recv) and st.copy and self.low.rendezvous_only and dead != FALSE:
            # pan's code for ``c?<m>`` there reports "polling rv chan" whatever ``c`` holds
            return [(conj(dead, self.placeholder(rvpoll.RV_POLL)), ())]
        if isinstance(st, S.Recv) and not (self.low.rendezvous_declared and self.low.buffered_declared):
            return []
        candidates = self.channel(st.chan, ctx, len(st.args))
        return [(conj(cond, self.gone(ch, candidates), self.placeholder(rvpoll.DELETED_CHAN)), ())
                for cond, ch in candidates if ch.removed_with is not None] + (
            [] if dead == FALSE else [(conj(dead, self.placeholder(rvpoll.DELETED_CHAN)), ())])

    def run_deleted(self, r: S.VarRef, ctx: Ctx) -> Expr:
        """Where ``chan`` variable ``r`` names a channel created at run time (``Channel.alive``)
        that pan has deleted with its process (``delq``) and nobody has numbered since: a
        value that is not 0 and names no channel that exists (pan numbers the queues in use
        ``1 .. _nr_qs``; a larger number is a deleted queue's, whose zeroed bytes pan reads:
        length 0, and type 0, "bad queue", where it tests the type).  FALSE where no
        channel is created at run time (a local channel of a process that exists from the
        start: ``Channel.removed_with``, ``gone``).  Pan reads whatever now lies at the deleted
        queue's offset: zero unless a process created since reaches that far (see README)."""
        if not self.is_variable_channel(r, ctx) or all(ch.alive is None for ch in self.low.channels):
            return FALSE
        value = self.expr(r, ctx)
        if isinstance(value, Const):
            return FALSE  # 0, or a channel created with the model: ``channel_value``
        every = self.channel_value(r, ctx, None, none_ok=True)
        if not any(ch.alive is not None for _, ch in every):
            return FALSE
        return conj(Binary("!=", value, Const(0)), _names_none(every))

    def deleted_chan_fn(self, e: S.ChanFn, ctx: Ctx, otherwise: Expr) -> Expr:
        """``len``, ``empty`` ... (``e``) where its ``chan`` variable names a queue deleted with
        its process (``run_deleted``), else ``otherwise``: pan's ``q_len`` reads the zeroed
        length (0), ``q_full`` stops at the zeroed type ("bad queue", Spin 6.5.2)."""
        dead = self.run_deleted(e.chan, ctx)
        if dead == FALSE:
            return otherwise
        value = self.placeholder(rvpoll.DELETED_CHAN) if e.fn in ("full", "nfull") else Const(
            {"len": 0, "empty": 1, "nempty": 0}[e.fn])
        return Ite(dead, value, otherwise)

    def uninitialised(self, st, ctx: Ctx) -> list[tuple[Expr, tuple]]:
        """The alternative of a send or receive on a ``chan`` variable that names none of
        its candidates (0: never assigned): never executable, it faults where pan tries the
        operation (pan's q_full / q_len: "ref to uninitialized chan name", checked against
        Spin 6.5.2 for buffered and rendezvous candidates, in an ``if`` beside ``else``, in
        atomic and d_step), through the ``rvpoll`` probes.  None for a declared channel."""
        if not self.is_variable_channel(st.chan, ctx):
            return []
        # a value naming a channel deleted with its process: ``deleted_faults``
        return self.deleted_faults(st, ctx) + self.none_named(st, ctx)

    def none_named(self, st, ctx: Ctx) -> list[tuple[Expr, tuple]]:
        """``uninitialised`` without the deleted channels."""
        if isinstance(st, S.Recv) and not st.copy and self.low.rendezvous_only:
            # pan's ``if (boq != c) continue;`` comes first: a rendezvous-only model's
            # receive on a value naming no channel blocks, with no error (a poll ``c?<m>``
            # there is pan's "polling rv chan" whatever ``c`` holds)
            return []
        none = conj(_names_none(self.channel(st.chan, ctx, len(st.args))), neg(self.run_deleted(st.chan, ctx)))
        return [] if none == FALSE else [(conj(none, self.placeholder(rvpoll.UNINIT_CHAN)), ())]

    # ------------------------------------------------------------------ statements
    def assign(self, r: S.VarRef, value: Expr, ctx: Ctx) -> Assign:
        info, target = self.lvalue(r, ctx)
        return Assign(target, wrap(value, info.bounds, _fits(_bounds(value, self.low.var_bounds), info.bounds)))

    def basic(self, st, ctx: Ctx, run_program=None) -> list[tuple[Expr, tuple]]:
        """(guard, program) alternatives of one basic statement (several for a channel
        reference with a variable index)."""
        if isinstance(st, S.ExprStmt):
            return [(self.expr(st.expr, ctx), ())]
        if isinstance(st, S.Assign):
            info = self.lvalue(st.target, ctx)[0] if isinstance(st.value, S.Num) else None
            if info is not None and info.chan and st.target.field is None:
                # Spin 6.5.2's parser: a number stored in a chan variable or array (``d = 0``;
                # ``d = x``, ``chan d = 0`` and a record's chan field, ``r.c = 0``, pass)
                raise self.low.error("invalid asgn to chan: a number assigned to a chan variable "
                                     "(Spin rejects it too)", st.pos)
            return [(TRUE, (self.assign(st.target, self.expr(st.value, ctx), ctx),))]
        if isinstance(st, S.IncDec):
            cur = self.expr(st.target, ctx)
            return [(TRUE, (self.assign(st.target, Binary("+" if st.op == "++" else "-", cur, Const(1)), ctx),))]
        if isinstance(st, S.Printf):
            return [(TRUE, ())]
        if isinstance(st, S.AssertStmt):
            return [(TRUE, (Assert(self.expr(st.cond, ctx), f"line {self.low.pre.origin(st.pos.line)[1]}"),))]
        if isinstance(st, S.Send):
            send = self.sorted_send_program if st.sorted else self.send_program
            return [(conj(cond, ch.buffer.not_full(), self.exists(ch)), send(ch, st.args, ctx, st.pos))
                    for cond, ch in self.buffered(st.chan, ctx, len(st.args))] + self.uninitialised(st, ctx)
        if isinstance(st, S.Recv) and st.copy and any(ch.capacity == 0 for _, ch in self.channel(
                st.chan, ctx, len(st.args))):
            # ``c?<...>``/``c??<...>`` on a rendezvous channel: pan reports "polling rv
            # chan" each time it tries the statement, which then blocks (no message waits
            # there): a poll of a rendezvous channel (``rvpoll``)
            for a in st.args:  # its arguments are checked all the same (undeclared names)
                if self.recv_arg_value(a, ctx) is None and not (a.kind == "var" and a.ref.name == "_"):
                    self.lvalue(a.ref, ctx)
            return [(conj(cond, self.placeholder(rvpoll.RV_POLL)), ()) if ch.capacity == 0 else
                    (conj(cond, (self.random_guard if st.random else self.recv_guard)(ch, st.args, ctx, st.pos)),
                     (self.random_program if st.random else self.recv_program)(ch, st.args, ctx, True))
                    for cond, ch in self.channel(st.chan, ctx, len(st.args))] + self.uninitialised(st, ctx)
        if isinstance(st, S.Recv):
            if st.random:
                return [(conj(cond, self.random_guard(ch, st.args, ctx, st.pos)),
                         self.random_program(ch, st.args, ctx, st.copy))
                        for cond, ch in self.buffered(st.chan, ctx, len(st.args))] + self.uninitialised(st, ctx)
            return [(conj(cond, self.recv_guard(ch, st.args, ctx, st.pos)), self.recv_program(ch, st.args, ctx, st.copy))
                    for cond, ch in self.buffered(st.chan, ctx, len(st.args))] + self.uninitialised(st, ctx)
        if isinstance(st, S.Run):
            if run_program is None:
                return self.run(st, ctx)
            return [(TRUE, run_program)]
        if isinstance(st, S.SetPriority):
            return [(TRUE, self.set_priority(st, ctx))]
        raise self.low.error(f"unsupported statement {type(st).__name__}", getattr(st, "pos", None))

    def dstep(self, body: S.Sequence, ctx: Ctx) -> tuple[Expr, tuple]:
        """A d_step is one step: its first statement's executability, then the whole body
        run deterministically (the first executable option of an if/do)."""
        stmts = [s for s in body.stmts if s is not None and not isinstance(s, S.Decl)]
        if not stmts:
            return TRUE, ()
        guard = self.first_guard(stmts[0], ctx)
        if _has_jumps(stmts):
            return guard, self.jumping(stmts, ctx, f"__dpc{body.pos.line}_{body.pos.column}")
        return guard, self.structured(stmts, ctx, first=True)

    def jumping(self, stmts, ctx, pc: str) -> tuple:
        """A d_step body with ``goto`` and labels (cfg.py has checked every jump stays inside
        it): blocks numbered from 0, each ending with the number of the next one in the
        temporary ``pc`` (-1: the end), run by a loop that dispatches on ``pc``.  A label and
        the statement after an ``if``/``do`` begin blocks; an ``if`` ends one.  As in
        ``structured``, an option is taken when its first statement is executable (the first
        such option), and none executable is pan's "blocking sel in d_step" (a fault)."""
        blocks: list[list] = []
        labels: dict[str, int] = {}

        def new() -> int:
            blocks.append([])
            return len(blocks) - 1

        def jump(out: list, k: int) -> None:
            out.append(Assign(Name(pc), Const(k)))

        def seq(sts, out: list, brk: Optional[int], first: bool) -> list:
            for i, st in enumerate(sts):
                out = one(st, out, brk, first and i == 0)
            return out

        def one(st, out: list, brk: Optional[int], first: bool) -> list:
            if isinstance(st, S.Labeled):
                k = labels.setdefault(st.label, new())
                jump(out, k)
                return one(st.stmt, blocks[k], brk, False)
            if isinstance(st, S.Goto):
                jump(out, labels.setdefault(st.label, new()))
                return []  # what follows is reached only through a label
            if isinstance(st, S.Break):
                if brk is None:
                    raise self.low.error("break outside a do loop", st.pos)
                jump(out, brk)
                return []
            if isinstance(st, S.Else):
                return out
            if isinstance(st, S.Block):
                return seq([s for s in st.body.stmts if s is not None and not isinstance(s, S.Decl)],
                           out, brk, first)
            if isinstance(st, S.Choice):
                after = new()
                head = out
                if st.loop:
                    head_k = new()
                    jump(out, head_k)
                    head = blocks[head_k]
                back = head_k if st.loop else after
                options, else_body = [], None
                for o in st.options:
                    inner = [s for s in o.stmts if s is not None and not isinstance(s, S.Decl)]
                    branch: list = []
                    jump(seq(inner, branch, after if st.loop else brk, False), back)
                    if isinstance(inner[0], S.Else):
                        else_body = tuple(branch)
                    else:
                        options.append((self.first_guard(inner[0], ctx), tuple(branch)))
                chain: tuple = (else_body if else_body is not None
                                else (Assert(FALSE, "d_step blocked: no option executable"),))
                for g, body in reversed(options):
                    chain = (If(g, body, chain),)
                head.extend(chain)
                return blocks[after]
            out.extend(self.dstep_statement(st, ctx, checked=first))
            return out

        entry = new()
        jump(seq(stmts, blocks[entry], None, True), -1)
        dispatch: tuple = (Assert(FALSE, "d_step: no such block"),)
        for k in reversed(range(len(blocks))):
            dispatch = (If(Binary("==", Name(pc), Const(k)), tuple(blocks[k]), dispatch),)
        return (Assign(Name(pc), Const(entry)), While(Binary("!=", Name(pc), Const(-1)), dispatch))

    def first_guard(self, st, ctx) -> Expr:
        if isinstance(st, S.Labeled):
            return self.first_guard(st.stmt, ctx)
        if isinstance(st, S.Block):
            inner = [s for s in st.body.stmts if s is not None and not isinstance(s, S.Decl)]
            return self.first_guard(inner[0], ctx) if inner else TRUE
        if isinstance(st, S.Choice):
            gs = []
            for o in st.options:
                inner = [s for s in o.stmts if s is not None and not isinstance(s, S.Decl)]
                if isinstance(inner[0], S.Else):
                    return TRUE
                gs.append(self.first_guard(inner[0], ctx))
            return disj(*gs)
        if isinstance(st, (S.Break, S.Goto, S.Else)):
            return TRUE
        return disj(*(g for g, _ in self.basic(st, ctx)))

    def structured(self, stmts, ctx, first=False, brk: Optional[str] = None) -> tuple:
        out = []
        for i, st in enumerate(stmts):
            if isinstance(st, S.Block):
                out.extend(self.structured([s for s in st.body.stmts if s is not None and not isinstance(s, S.Decl)], ctx, first and i == 0, brk))
            elif isinstance(st, S.Choice):
                out.extend(self.structured_choice(st, ctx, brk))
            elif isinstance(st, S.Break):
                if brk is None:
                    raise self.low.error("break outside a do loop", st.pos)
                out.append(Assign(Name(brk), Const(0)))
                break
            elif isinstance(st, S.Else):
                continue
            else:
                out.extend(self.dstep_statement(st, ctx, checked=first and i == 0))
        return tuple(out)

    def dstep_statement(self, st, ctx: Ctx, checked: bool) -> tuple:
        """A basic statement inside a d_step: the enabled one of its alternatives (their
        selecting conditions exclude each other), or a fault when none is -- a d_step that
        blocks after its first statement is an error in Spin.  ``checked``: the step's guard
        already ensures an alternative is enabled."""
        # (no candidate at all: a chan variable that only ever names none, pan's error)
        named = self.channel(st.chan, ctx, len(st.args)) if isinstance(st, (S.Send, S.Recv)) else []
        if named and all(ch.capacity == 0 for _, ch in named):
            raise self.low.error("unsupported construct: a rendezvous inside d_step", st.pos)
        alts = self.basic(st, ctx)
        blocked = () if checked else (Assert(FALSE, "d_step statement blocked"),)
        if len(alts) == 1 and (checked or alts[0][0] == TRUE):
            return alts[0][1]
        out = blocked
        for guard, prog in reversed(alts):
            out = (If(guard, prog, out),)
        return out

    def structured_choice(self, st: S.Choice, ctx, brk) -> tuple:
        options = []
        else_body = None
        loop_flag = f"__loop{st.pos.line}_{st.pos.column}"
        for o in st.options:
            inner = [s for s in o.stmts if s is not None and not isinstance(s, S.Decl)]
            body = self.structured(inner, ctx, False, loop_flag if st.loop else brk)
            if isinstance(inner[0], S.Else):
                else_body = body
            else:
                options.append((self.first_guard(inner[0], ctx), body))
        chain: tuple = (else_body if else_body is not None else (Assert(FALSE, "d_step blocked: no option executable"),))
        for g, body in reversed(options):
            chain = (If(g, body, chain),)
        if not st.loop:
            return chain
        return (Assign(Name(loop_flag), Const(1)), While(Binary("==", Name(loop_flag), Const(1)), chain))


def _has_jumps(stmts) -> bool:
    """Some statement of ``stmts`` (at any depth) is a ``goto`` or labelled."""
    for st in stmts:
        if st is None or isinstance(st, S.Decl):
            continue
        if isinstance(st, (S.Goto, S.Labeled)):
            return True
        if isinstance(st, S.Block) and _has_jumps(st.body.stmts):
            return True
        if isinstance(st, S.Choice) and any(_has_jumps(o.stmts) for o in st.options):
            return True
    return False


def _missing_fields(given: int, ch: Channel) -> tuple:
    """A receive that takes a message with fewer arguments than fields: pan removes the
    message and reports "missing pars in receive" (an error; a poll or ``?<...>`` is not)."""
    return (Assert(FALSE, "missing pars in receive"),) if given < len(ch.fields) else ()


def _too_few_values(given: int, ch: Channel) -> tuple:
    """A send of fewer values than fields: pan sends 0 for the rest and reports "too few
    parameters in send stmnt" (an error)."""
    return (Assert(FALSE, "too few parameters in send stmnt"),) if given < len(ch.fields) else ()


def _fits(inner, outer) -> bool:
    return inner is not None and outer[0] <= inner[0] and inner[1] <= outer[1]


def _names_none(candidates: list[tuple[Expr, object]]) -> Expr:
    """Where none of the candidates' selecting conditions holds."""
    return neg(disj(*(c for c, _ in candidates)))


def _select(alts: list[tuple[Expr, Expr]]) -> Expr:
    if len(alts) == 1 and alts[0][0] == TRUE:
        return alts[0][1]
    return disj(*(conj(c, v) for c, v in alts))


# ---------------------------------------------------------------------------- assembly


@dataclass
class _Step:
    inst: Instance
    src: int
    dst: int
    guard: Expr  # executability, without pc test / atomic exclusion
    program: tuple
    origin: ir.Origin
    event: str
    #: the process keeps atomic control after this step (``cfg.Transition.keep``)
    keep: bool = False
    #: For a rendezvous, the receiving instance, the location its receive leads to and
    #: whether the receive keeps atomic control; the step belongs to the sender
    #: (``inst``), whose turn it is under the atomic rules.
    partner: Optional[tuple] = None
    #: faults where pan evaluates a poll of a rendezvous channel; never executable
    #: (``rvpoll``): no part of timeout, ``else``, ``enabled`` or the claim's stutter move
    probe: bool = False
    #: With priorities, the guard without the conjuncts that defer to processes of a
    #: higher priority (``scheduling``): "some step can move" is the same with or without
    #: them, so ``timeout`` is computed from these (much smaller) guards.
    unranked: Optional[Expr] = None

    def holder_instance(self) -> Optional[Instance]:
        """The instance in atomic mode after this step (Spin: after a rendezvous the
        receiver, if its receive is marked atomic; the sender loses control)."""
        if self.partner is not None:
            receiver, _, keep = self.partner
            return receiver if keep else None
        return self.inst if self.keep else None

    def holder(self) -> Optional[int]:
        """The pid of ``holder_instance`` (what ``_atomic`` stores)."""
        inst = self.holder_instance()
        return None if inst is None else inst.pid


def _at(low: Lowering, line: int, text: str) -> ir.SourceLocation:
    """The source location of preprocessed ``line``, shown as ``text``."""
    path, src_line = low.pre.origin(line) if line else ("", 0)
    return ir.SourceLocation(path or low.path, src_line, 0, text)


def _line_of(low: Lowering, inst: Instance, line: int) -> ir.Origin:
    """The origin of a step of ``inst`` at preprocessed ``line``, shown as ``proc line N``
    with N the line in its own file."""
    path, src_line = low.pre.origin(line)
    return ir.Origin((ir.SourceLocation(path or low.path, src_line, 0, f"{inst.owner} line {src_line}"),))


def lower(program: S.Program, pre, path: str, name: str) -> ir.SequentialModel:
    """The ``SequentialModel`` of ``program`` (see the module docstring); variables of wide
    types (``int``) still have placeholder domains (see ``lower_with_storage``)."""
    return lower_with_storage(program, pre, path, name)[1]


#: lowerings with a growing guess of the channel points-to before giving up on it
POINTS_TO_ROUNDS = 8


def lower_with_storage(program: S.Program, pre, path: str, name: str, max_procs: Optional[int] = None,
                       non_progress: bool = False
                       ) -> tuple[Expr, ir.SequentialModel, dict[str, tuple[tuple[int, int], tuple[str, int, int]]]]:
    """``_lower_once`` with the channel points-to (``pointsto``): lowered with a guess of
    the channels each ``chan`` variable may name (at first its initial values), then
    again with the guess grown by the values the lowered model may assign, until they lie
    inside the guess (then the lowered model is exact: see ``pointsto``).  After
    ``POINTS_TO_ROUNDS`` rounds, every operation expands over every channel."""
    guess: dict = {}
    for _ in range(POINTS_TO_ROUNDS):
        stored, model, wide, low = _lower_once(program, pre, path, name, max_procs, non_progress, guess)
        if not low.chan_valued:
            break
        held = pointsto.values(model, low.chan_valued, low.wide)
        if all(pointsto.inside(v, low.may_hold(n)) for n, v in held.items()):
            break
        guess = {n: pointsto.join(v, low.may_hold(n)) for n, v in held.items()}
    else:
        stored, model, wide, low = _lower_once(program, pre, path, name, max_procs, non_progress, None)
    return stored, model, wide


def _lower_once(program: S.Program, pre, path: str, name: str, max_procs: Optional[int], non_progress: bool,
                points_to: Optional[dict]):
    """With ``non_progress``, the model's never claim and ltl blocks give way to pan's
    ``:np_:`` claim (``claim.np_claim``), as pan compiled with ``-DNP`` and run with ``-l``.
    ``(stored, model, wide)``: ``stored`` holds in the states Spin stores -- not inside an
    atomic sequence, or inside one whose process is blocked (timeout counted as false, as
    Spin decides it before trying timeout).  ``wide`` maps the variables whose type is too
    wide to enumerate (``int``) to their type's range and where they are declared (file,
    line, column); their domains in ``model`` are placeholders until
    ``detect.transform.narrowing`` gives them their values.

    Why one function: the lowering's phases in Spin's order (mtypes, typedefs, globals, proctypes, instances, summands), all on one ``Lowering``.
    """
    low = Lowering(program, pre, path, name)
    low.non_progress = non_progress
    low.points_to = points_to
    units = program.units
    # mtypes (Spin 6.5.2): each mtype (the plain one and each named mtype:sub) numbers its
    # names from 1; a declaration's names follow the ones declared before, the last first.
    for u in units:
        if isinstance(u, S.MtypeDecl):
            known = low.mtype_names.setdefault(u.subtype, [])
            for k, n in enumerate(u.names):
                if n in low.mtypes:
                    raise low.error(f"mtype name {n} declared twice", u.pos)
                low.mtypes[n] = len(known) + len(u.names) - k
            known.extend(sorted(u.names, key=low.mtypes.get))
    for u in units:
        if isinstance(u, S.Typedef):
            low.typedefs[u.name] = u
        elif isinstance(u, S.Inline):
            low.inlines[u.name] = u
        elif isinstance(u, S.Proctype):
            if u.name in low.proctypes:
                raise low.error(f"proctype {u.name} declared twice", u.pos)
            low.proctypes[u.name] = u
        elif isinstance(u, S.Trace):
            if low.trace_unit is not None:
                raise low.error("unsupported construct: a second trace or notrace", u.pos)
            low.trace_unit = u
        elif isinstance(u, S.Never):
            if low.claim is not None:
                raise low.error("unsupported construct: a second never claim", u.pos)
            low.claim = u
    if non_progress:
        if low.claim is not None:
            low.warn("the never claim is not used: --non-progress checks pan's own claim (as pan -l)")
            low.claim = None
        if program.ltl_texts:
            low.warn(f"{len(program.ltl_texts)} ltl formula(s) not checked: --non-progress checks "
                     "non-progress cycles only (as pan -l)")
    elif program.ltl_ignored:
        low.warn(f"{program.ltl_ignored} ltl formula(s) not checked (one is checked per run: choose it with --ltl NAME)")
    assigned = _assigned_names(program)
    # Spin numbers the channels records create after every other global channel (checked:
    # chan a; T t; chan b gives t.c number 3)
    deferred = [d for u in units if isinstance(u, S.Decl) for d in u.vars
                if d.type in low.typedefs and _creates_channels(low, d.type)]
    for u in units:
        if isinstance(u, S.Decl):
            for d in u.vars:
                if d.name in low.globals or d.name in {x.name for x in deferred if x is not d}:
                    raise low.error(f"{d.name} declared twice", d.pos)
                if any(d is x for x in deferred):
                    continue
                if d.type == "chan" and isinstance(d.init, S.ChanInit):
                    chans = low.declare_channel(d, {})
                    low.globals[d.name] = chans
                    if d.size is None and d.name in assigned:
                        # Spin: a channel's name is a variable holding the channel's number
                        # (``x = fa; fa = fp; fp = x`` swaps two names, mobile2.pml); one the
                        # model assigns is a chan variable starting at its own channel
                        var = S.VarDecl("chan", d.name, None, None, S.Num(chans[0].ident, d.pos), False, d.pos)
                        for src, info, _ in low.declare(var, "", None, {"__running__": True}):
                            low.globals[src] = info
                else:
                    # Spin sets globals in declaration order: an initialiser reads those before
                    top = Translator(low, [])
                    for src, info, _ in low.declare(d, "", None, {"__running__": True},
                                                    lambda e: initial_value(low, top, e, Ctx(None, {}, {}))):
                        low.globals[src] = info
    for d in deferred:
        for src, info, _ in low.declare(d, "", None, {"__running__": True}):
            low.globals[src] = info
    if low.uses_last:
        if LAST in low.globals:
            raise low.error(f"{LAST} declared twice (Spin's predefined variable)", low.program.units[0].pos)
        for src, info, _ in low.declare(S.VarDecl("pid", LAST, None, None, None, False, Span(0, 0)), "", None, {}):
            low.globals[src] = info
    # ---- instances started at load time, in declaration order
    graphs: dict[str, Graph] = {}

    visible = _remote_labels(program)

    global_decls = [d for u in units if isinstance(u, S.Decl) for d in u.vars]

    def graph(pname: str, body: S.Sequence) -> Graph:
        if pname not in graphs:
            body = expand_inlines(low, body)
            pdecl = low.proctypes.get(pname)
            types, arrays, messages = records.scope_types(global_decls, body, pdecl.params if pdecl is not None else ())
            body = records.expand(body, types, low.typedefs, low.const, arrays, low.error, messages)
            graphs[pname] = build_graph(pname, body, path, pre.origin,
                                        frozenset(label for p, label in visible if p == pname))
        return graphs[pname]

    instances: list[Instance] = []
    init_unit = None
    for u in units:
        if isinstance(u, S.Proctype) and u.active is not None:
            count = low.const(u.active)
            if len(instances) + count > SPIN_MAX_PROCS:
                # Refused before the loop below makes 2^31 instances of ``active [2147483648]``.
                raise low.error(f"active [{count:,}] proctype {u.name}: more than {SPIN_MAX_PROCS} processes "
                                f"(Spin: max nr of processes is {SPIN_MAX_PROCS})", getattr(u.active, "pos", None) or u.pos)
            for _ in range(count):
                pid = len(instances)
                if u.params:
                    low.warn(f"parameters of active proctype {u.name} start as 0")
                instances.append(Instance(u.name, pid, f"{u.name}_{pid}", f"{u.name}[{pid}]",
                                          graph(u.name, u.body), tuple(0 for _ in u.params), True))
        elif isinstance(u, S.Init):
            if init_unit is not None:
                raise low.error("init declared twice", u.pos)
            init_unit = u
            instances.append(Instance("init", len(instances), "init", "init", graph(":init:", u.body), (), True))
    if not instances:
        raise InputError("no active proctype and no init: nothing runs", path, 1, 1)
    init_inst = next((i for i in instances if i.proctype == "init"), None)
    runs = spawned(low, [i.graph for i in instances], graph)
    plan: Optional[_Plan] = _Plan((), None)
    if init_inst is not None and all(where == ":init:" for where, _ in runs):
        plan = plan_init(low, init_inst)
    slots = None
    if plan is not None and plan.runs and _may_reuse_pids(low, init_inst, plan, instances, graph):
        # every process init starts is known, but a pid may be reused: as many slots as runs
        bound = len(instances) + len(plan.runs)
        plan = None
        max_procs = bound if max_procs is None else max_procs
    if plan is None or any(where != ":init:" for where, _ in runs):
        # Processes created at run time: every run, init's too, takes the lowest free pid.
        plan = _Plan((), init_inst.graph.entry if init_inst is not None else None)
        slots = dynamic_slots(low, instances, runs, graph, max_procs)
    for proctype, args, pos in plan.runs:
        pdecl = low.proctypes.get(proctype)
        if pdecl is None:
            raise low.error(f"run of undeclared proctype {proctype}", pos)
        if len(args) != len(pdecl.params):
            raise low.error(f"run {proctype} with {len(args)} arguments, expected {len(pdecl.params)}", pos)
        pid = len(instances)
        instances.append(Instance(proctype, pid, f"{proctype}_{pid}", f"{proctype}[{pid}]",
                                  graph(proctype, pdecl.body), args, False))
    if low.trace_unit is not None:
        declare_trace(low, graph(":trace:", low.trace_unit.body))
    # ---- per-instance state variables, in pid order (Spin numbers local channels so)
    ctxs: dict[str, Ctx] = {}
    early = Translator(low, instances, slots)  # for initialisers that read variables
    bases = slot_channel_bases(low, instances, slots) if slots is not None else {}
    for k, inst in enumerate(instances):
        if any(isinstance(a, _InitChannel) for a in inst.args):
            # a planned run passing one of init's local channels, numbered by now
            inst = instances[k] = dataclasses.replace(inst, args=tuple(
                a.resolve(ctxs[init_inst.owner]) if isinstance(a, _InitChannel) else a for a in inst.args))
        ctxs[inst.owner] = declare_instance(low, inst, early, bases.get(inst.owner))
    tr = Translator(low, instances, slots, ctxs)
    # ---- steps
    steps: list[_Step] = []
    rv_sends: list = []
    rv_recvs: list = []
    deferred_else: list = []
    for inst in instances:
        ctx = ctxs[inst.owner]
        g = inst.graph
        start_locs = None
        if inst is init_inst:
            steps.extend(init_prefix_steps(low, tr, inst, ctx, plan, instances, ctxs))
            start_locs = g.reachable_from(plan.stop) if plan.stop is not None else set()
        for k, t in enumerate(g.transitions):
            if start_locs is not None and t.src not in start_locs:
                continue
            if t.kind == "end":
                if g.end not in g.reachable_from(g.entry) and not (inst is init_inst and plan.stop == g.end):
                    continue
                if slots is None:
                    guard = conj(*[tr.counter(i).at(0) for i in instances if i.pid > inst.pid])
                else:  # the pids in use are 0 .. _nr_pr - 1 (``Translator.run``)
                    guard = tr.free(inst.pid + 1)
                steps.append(_Step(inst, g.end, 0, guard, reset_program(low, inst, ctx),
                                   ir.Origin((_at(low, 0, f"{inst.owner} -end-"),)), f"{inst.proctype}.end"))
                continue
            offers = tr.rendezvous(t, ctx) if t.kind == "stmt" else None
            if offers is not None:
                # pan tries the sender's escapes before its send, as before any step
                # (``preempted``); the receiver's half runs while the offer is pending, when
                # every escape it tries first is blocked (pan's IfNotBlocked), so none preempts it
                escaped = preempted(low, tr, g, t, ctx)
                if isinstance(t.stmt, S.Send):
                    rv_sends.extend((inst, t, conj(cond, neg(escaped)), ch, ctx) for cond, ch in offers)
                else:
                    rv_recvs.extend((inst, t, cond, ch, ctx) for cond, ch in offers)
                if not tr.has_buffered(t, ctx):
                    continue
            if has_rendezvous_send(tr, g, t, ctx):
                deferred_else.append((inst, t, ctx))
                continue
            escaped = preempted(low, tr, g, t, ctx)
            for guard, prog in transition_alternatives(low, tr, g, t, ctx):
                # pan tries no step of a location once an escape moved (``preempted``)
                steps.extend(split_polls(_Step(inst, t.src, t.dst, guard, prog, _line_of(low, inst, t.line),
                                               f"{inst.proctype}.{t.src}", t.keep), neg(escaped), low.rv_polled))
    offered: dict = {}
    steps.extend(handshakes(low, tr, rv_sends, rv_recvs, offered))
    for inst, t, ctx in deferred_else:
        for guard, prog in transition_alternatives(low, tr, inst.graph, t, ctx, offered):
            steps.append(_Step(inst, t.src, t.dst, guard, prog,
                               _line_of(low, inst, t.line), f"{inst.proctype}.{t.src}", t.keep))
    claim = None
    if low.claim is not None:
        claim_graph = graph(":never:", low.claim.body)
        check_claim(low.claim, claim_graph, low.error)
        claim = (claim_graph, claim_steps(low, tr, claim_graph))
    elif non_progress:
        at_progress = [tr.counter(i).at(loc) for i in instances for label, loc in i.graph.labels
                       if label.startswith("progress")]
        claim = np_claim(at_progress, ir.Origin.at(text="pan's non-progress claim (np_)"))
    if low.rv_polled:
        steps = [p for st in steps for p in split_polls(st)]
    steps = scheduling(low, tr, instances, steps, ctxs)
    stored, model = assemble(low, tr, instances, steps, plan, init_inst, claim)
    # pan's queue of each channel whose number is fixed: q_offset[ident - 1] (symdetect spin)
    model = dataclasses.replace(model, annotations=model.annotations + (
        ("spin_channels", tuple((ch.prefix, ch.ident) for ch in low.channels if not ch.offset)),))
    if slots is not None:
        groups = anonymous_processes(low, instances, slots)
        if groups:
            model = dataclasses.replace(model, annotations=model.annotations + (
                ("anonymous_pids", (groups, tuple(v.name for v in low.variables if v.name == ATOMIC))),))
    return stored, model, {v: (bounds, low.wide_at[v]) for v, bounds in low.wide.items()}, low


def _creates_channels(low: Lowering, tname: str) -> bool:
    """A ``tname`` value has an initialised channel field (at any depth)."""
    return any(f.type == "chan" and isinstance(f.init, S.ChanInit)
               or f.type in low.typedefs and _creates_channels(low, f.type) for f in low.typedefs[tname].fields)


def _assigned_names(program) -> frozenset[str]:
    """The names the model assigns as a whole (no index, no field): assignment targets,
    ``++``/``--``, receive variables and ``p = run P()`` targets."""
    out: set[str] = set()

    def note(n) -> bool:
        ref = n.target if isinstance(n, (S.Assign, S.IncDec)) or isinstance(n, S.Run) and n.target is not None \
            else n.ref if isinstance(n, S.RecvArg) and n.kind == "var" else None
        if isinstance(ref, S.VarRef) and ref.index is None and ref.field is None:
            out.add(ref.name)
        return False

    find_node(program, note)
    return frozenset(out)


def declare_trace(low: Lowering, g: Graph) -> None:
    """The model's event trace (``events``): its automaton and its location ``_event``."""
    tr, ctx = Translator(low, []), Ctx(None, {}, {})

    def channel(ref: S.VarRef) -> Channel:
        offers = tr.channel(ref, ctx)
        if len(offers) != 1 or offers[0][0] != TRUE or offers[0][1].offset or offers[0][1].alive:
            raise low.error("a trace may only name global channels (a constant reference)", ref.pos)
        return offers[0][1]

    def constant(a) -> Optional[Expr]:
        if isinstance(a, S.RecvArg):
            value = tr.recv_arg_value(a, ctx)
            if value is None and not (a.kind == "var" and a.ref.name == "_"):
                raise low.error(f"a trace may only match constants or _, found {a.ref.name}", a.pos)
        elif isinstance(a, S.VarRef) and a.name == "_" and a.index is None and a.field is None:
            return None
        else:
            value = fold(tr.expr(a, ctx))
        if value is not None and not isinstance(value, Const):
            raise low.error("a trace may only match constants or _", getattr(a, "pos", None))
        return value

    low.trace = events.event_trace(low.trace_unit, g, channel, constant, low.error)
    low.var_bounds[events.EVENT] = (0, max(g.locations))
    low.variables.append(ir.Variable(events.EVENT, tuple(range(0, max(g.locations) + 1)), ((g.entry,),), None, None,
                                     value_names=location_names(g, low.pre.origin)))


def claim_steps(low: Lowering, tr: "Translator", g: Graph) -> list[ClaimStep]:
    """The never claim's transitions with their guards (conditions over the system state)."""
    ctx = Ctx(None, {}, {})
    out = []
    etim = find_node(tuple(u for u in low.program.units if isinstance(u, (S.Proctype, S.Init, S.Inline))),
                     lambda n: isinstance(n, S.Special) and n.name == "timeout") is not None
    for t in g.transitions:
        if t.kind == "end":  # the claim is removed last (see ``claim``)
            out.append(ClaimStep(t.src, t.dst, conj(*(tr.counter(i).at(0) for i in tr.instances)),
                                 ir.Origin((_at(low, 0, "never -end-"),))))
            continue
        if t.escape:
            raise low.error("unsupported construct: unless inside a never claim", t.stmt.pos)
        for guard, prog in transition_alternatives(low, tr, g, t, ctx):
            if not etim:
                # pan's claim reads timeout as its search's bit, which only pan's ETIM code
                # sets, compiled in where a proctype's text has a timeout: false otherwise
                guard = substitute(guard, _TIMEOUT, FALSE)
            if any(isinstance(x, Name) and x.name.startswith(ENABLED) for x in walk.subexpressions(guard)):
                raise low.error("unsupported construct: enabled() inside a never claim", t.stmt.pos)
            path, line = low.pre.origin(t.line)
            origin = ir.Origin((ir.SourceLocation(path or low.path, line, 0, f"never line {line}"),))
            polled = ClaimStep(t.src, t.dst, guard, origin, prog, t.keep)
            for where, message in _probes(guard, polled):
                out.append(ClaimStep(t.src, t.src, where, origin, (Assert(FALSE, message),), probe=True))
            out.append(ClaimStep(t.src, t.dst, rvpoll.unpolled(guard), origin, rvpoll.unpolled_program(prog), t.keep))
    return out


def split_polls(st: _Step, before: Expr = TRUE, polled: bool = True) -> list[_Step]:
    """``st`` guarded by ``before`` (which pan decides first), with its polls of rendezvous
    channels false, preceded by its probes: where its guard evaluates one, and where it is
    executable and its program evaluates one (``rvpoll``: pan reports the error and
    completes the step with the poll false).  ``polled``: False when the model reads no
    ``rvpoll`` placeholder (then only ``before`` is added)."""
    if not polled:
        return [dataclasses.replace(st, guard=conj(before, st.guard))]
    out = []
    for where, message in _probes(st.guard, st):
        out.append(dataclasses.replace(st, dst=st.src, guard=conj(before, where),
                                       program=(Assert(FALSE, message),), keep=False, partner=None,
                                       probe=True))
    # ``before`` first: where it is false pan evaluates nothing of the guard (``enabled``'s errors)
    out.append(dataclasses.replace(st, guard=conj(before, rvpoll.unpolled(st.guard)),
                                   program=rvpoll.unpolled_program(st.program)))
    return out


def _probes(guard: Expr, st) -> list[tuple[Expr, str]]:
    """The probes of ``st`` (a ``_Step`` or ``ClaimStep``) whose guard is ``guard``: where
    evaluating the guard evaluates a placeholder (``rvpoll.probes``), and where the step is
    executable and its program evaluates a poll of a rendezvous channel -- each with pan's
    error; none that can never fire."""
    out = rvpoll.probes(guard) + [(conj(rvpoll.unpolled(guard), _program_polled(st)), rvpoll.ERROR)]
    return [(where, message) for where, message in out if where != FALSE]


def _program_polled(st) -> Expr:
    """Where the program of ``st`` (a ``_Step`` or ``ClaimStep``) evaluates a poll of a
    rendezvous channel; a poll after or inside a loop of the program is refused by name."""
    if not rvpoll.program_polls(st.program):
        return FALSE
    where = rvpoll.reached(st.program)
    if where is None:
        at = st.origin.locations[0]
        raise InputError("unsupported construct: a poll of a rendezvous channel inside or after a loop of a "
                         "d_step (pan reports its error and goes on; where it does is not worked out for loops)",
                         at.file, at.line, 1)
    return where


def anonymous_processes(low: Lowering, instances: list, slots: ProcessSlots) -> tuple[tuple[str, ...], ...]:
    """Per proctype that ``run`` creates and whose pid nobody can observe, its instances
    (``detect.checking.pids``): it never ends -- Spin's last-in-first-out removal is what
    tells creation order, hence pids, apart -- and never reads ``_pid``.  Its instances
    share one code and (``dynamic_slots``) the same channels, so which pids the running
    ones have is immaterial -- unless a remote reference ``P[k]@L`` names the proctype
    anywhere (a process, an assertion, the never claim): it asks what the process with pid
    ``k`` does, which tells the pids apart.  Only groups of two or more."""
    out = []
    observed = _remotely_referenced(low.program)
    for name in dict.fromkeys(p for p, _ in dict(slots.holders)):
        members = [i for i in instances if i.proctype == name]
        g = members[0].graph
        if len(members) < 2 or g.end in g.reachable_from(g.entry) or _reads_pid(g) or name in observed \
                or any(d.type == "chan" and isinstance(d.init, S.ChanInit) for d in g.locals):
            # (a local channel's number follows its creator's pid: swapping pids would
            # have to renumber it wherever it is stored)
            continue
        out.append(tuple(i.owner for i in sorted(members, key=lambda i: i.pid)))
    return tuple(out)


def _remotely_referenced(program: S.Program) -> frozenset[str]:
    """The proctypes some remote reference ``P[k]@L`` or ``P[k]:v`` names, anywhere in the program
    (unused inlines too: over-approximating only forgoes a reduction)."""
    found: set[str] = set()

    def note(n) -> bool:
        if isinstance(n, (S.RemoteLabel, S.RemoteVar)):
            found.add(n.proctype)
        return False

    find_node(program, note)
    return frozenset(found)


def _remote_labels(program: S.Program) -> frozenset[tuple[str, str]]:
    """``(proctype, label)`` for every remote reference ``P[k]@L`` in the program."""
    found: set[tuple[str, str]] = set()

    def note(n) -> bool:
        if isinstance(n, S.RemoteLabel):
            found.add((n.proctype, n.label))
        return False

    find_node(program, note)
    return frozenset(found)


def _reads_pid(g: Graph) -> bool:
    """Whether ``_pid`` occurs in ``g``'s statements or local initialisers."""
    return receives_into_pid(g) is not None or find_node(
        (tuple(t.stmt for t in g.transitions), g.locals),
        lambda n: isinstance(n, S.Special) and n.name == "_pid") is not None


def handshakes(low: Lowering, tr: "Translator", sends: list, recvs: list, offered: dict) -> list[_Step]:
    """One step per (send, receive) pair on the same rendezvous channel in two different
    instances: Spin's handshake, the send and the matching receive as one move.

    Guard: the sender's executability context, the receiver at its receive's location, and
    every constant or ``eval`` field of the receive equal to the value sent.  Program: the
    sent values (evaluated first, in the pre-state) stored into the receive's variables,
    the receiver's pc moved; ``assemble`` moves the sender's pc.  Spin's intermediate
    state (offer made, not yet taken) is never stored and never exists here.  ``offered``
    collects, per (sender pid, id of its send transition), the guards of its handshakes."""
    out = []
    for s_inst, s_t, s_cond, ch, s_ctx in sends:
        send = s_t.stmt
        values = tr.sent_values(ch, send.args, s_ctx, send.pos)
        for r_inst, r_t, r_cond, r_ch, r_ctx in recvs:
            if r_ch is not ch or r_inst is s_inst:
                continue
            recv = r_t.stmt
            if len(recv.args) > len(ch.fields):
                raise low.error(f"receive with {len(recv.args)} arguments from a channel of {len(ch.fields)} fields", recv.pos)
            # folded: a constant sent where the receive wants another (``c!ack`` against
            # ``c?nak``) makes the pair's guard FALSE, and a pair that can never fire is not a
            # step (a model whose channels are chosen at run time has thousands of them)
            match = [fold(Binary("==", values[j], want)) for j, a in enumerate(recv.args)
                     if (want := tr.recv_arg_value(a, r_ctx)) is not None]
            guard = conj(s_cond, tr.counter(r_inst).at(r_t.src), r_cond, *match)
            if guard == FALSE:
                continue
            offered.setdefault((s_inst.pid, id(s_t)), []).append(guard)
            latched, temps = latch(values, lambda j: f"__rv{j}")
            stores = []
            for j, a in enumerate(recv.args):
                if tr.recv_arg_value(a, r_ctx) is not None or (a.kind == "var" and a.ref.name == "_"):
                    continue
                info, target = tr.lvalue(a.ref, r_ctx)
                stores.append(Assign(target, wrap(temps[j], info.bounds, _fits(ch.fields[j], info.bounds))))
            program = latched + tuple(stores) + (tr.counter(r_inst).goto(r_t.dst),) \
                + _too_few_values(len(send.args), ch) + _missing_fields(len(recv.args), ch)
            origin = ir.Origin(_line_of(low, s_inst, s_t.line).locations
                               + _line_of(low, r_inst, r_t.line).locations, " ! ")
            out.append(_Step(s_inst, s_t.src, s_t.dst, guard, program, origin,
                             f"{s_inst.proctype}.{s_t.src}!{r_inst.proctype}.{r_t.src}",
                             partner=(r_inst, r_t.dst, r_t.keep)))
    return out


def _declared_names(node, inlines: Optional[dict] = None) -> set[str]:
    """The names ``node`` declares (``VarDecl``), not looking into inline calls."""
    out: set[str] = set()

    def walk(n):
        if isinstance(n, S.VarDecl):
            out.add(n.name)
        elif isinstance(n, tuple):
            for x in n:
                walk(x)
        elif dataclasses.is_dataclass(n) and not isinstance(n, (Span, type)):
            for f in dataclasses.fields(n):
                walk(getattr(n, f.name))
    walk(node)
    return out


def _rename_locals(node, renames: dict):
    """``node`` with the variables named in ``renames`` (declarations and references, not
    record field names) renamed."""
    if isinstance(node, S.VarRef):
        return dataclasses.replace(node, name=renames.get(node.name, node.name),
                                   index=_rename_locals(node.index, renames),
                                   field=_rename_field(node.field, renames))
    if isinstance(node, S.VarDecl):
        return dataclasses.replace(node, name=renames.get(node.name, node.name),
                                   size=_rename_locals(node.size, renames), init=_rename_locals(node.init, renames))
    if isinstance(node, tuple):
        return tuple(_rename_locals(x, renames) for x in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, (Span, type)):
        return dataclasses.replace(node, **{f.name: _rename_locals(getattr(node, f.name), renames)
                                            for f in dataclasses.fields(node)})
    return node


def _rename_field(field, renames: dict):
    if field is None:
        return None
    return dataclasses.replace(field, index=_rename_locals(field.index, renames),
                               field=_rename_field(field.field, renames))


def expand_inlines(low: Lowering, body: S.Sequence, depth: int = 0, seen: Optional[dict] = None) -> S.Sequence:
    """``body`` with every inline call replaced by the inline's body (parameters substituted).

    Spin 6.5.2 gives each expansion's locals a scope of their own (pan's ``_1_1_t``,
    ``_1_2_t`` for an inline declaring ``t`` called twice): an expansion declaring a name
    that an earlier expansion, or the proctype itself, declares gets a variable of its own,
    renamed ``_<k>_<name>``, so that one inline may be called twice (``scopes.check`` refuses
    the redeclarations Spin refuses).  The first expansion keeps the name."""
    if depth > 32:
        raise low.error("inline expansion too deep (recursive inline?)", body.pos)
    if seen is None:  # the names declared so far (the proctype's own locals first): their count
        seen = dict.fromkeys(_declared_names(body), 1)

    def subst(node, mapping):
        if isinstance(node, S.VarRef) and node.name in mapping and node.index is None:
            rep = mapping[node.name]
            if isinstance(rep, S.VarRef):
                return dataclasses.replace(rep, field=subst(node.field, mapping) if node.field else rep.field)
            if node.field is None:
                return rep
        if dataclasses.is_dataclass(node) and not isinstance(node, Span):
            return dataclasses.replace(node, **{f.name: subst(getattr(node, f.name), mapping)
                                                for f in dataclasses.fields(node)})
        if isinstance(node, tuple):
            return tuple(subst(x, mapping) for x in node)
        return node

    def walk(node):
        if isinstance(node, S.Call):
            inl = low.inlines.get(node.name)
            if inl is None:
                raise low.error(f"call of undeclared inline {node.name}", node.pos)
            if len(node.args) != len(inl.params):
                raise low.error(f"inline {node.name} expects {len(inl.params)} arguments", node.pos)
            inner = subst(inl.body, dict(zip(inl.params, node.args)))
            renames = {}
            for name in sorted(_declared_names(inl.body) - set(inl.params)):
                if name in seen:
                    renames[name] = f"_{seen[name]}_{name}"
                seen[name] = seen.get(name, 0) + 1
            if renames:
                inner = _rename_locals(inner, renames)
            return S.Block("block", expand_inlines(low, inner, depth + 1, seen), node.pos)
        if dataclasses.is_dataclass(node) and not isinstance(node, Span) and not isinstance(node, type):
            return dataclasses.replace(node, **{f.name: walk(getattr(node, f.name)) for f in dataclasses.fields(node)})
        if isinstance(node, tuple):
            return tuple(walk(x) for x in node)
        return node

    return walk(body)


def declare_instance(low: Lowering, inst: Instance, tr: Optional["Translator"] = None,
                     first_ident: Optional[tuple] = None) -> Ctx:
    """The state variables of ``inst`` (parameters, ``_pid`` if it receives into it, locals,
    local channels, its pc), declared in ``low``, and its name scope; a running instance's
    locals declared before the body's first statement start at their initialisers' values
    (evaluated by ``tr`` when not constant, ``initial_value``), the others at 0 (see
    ``local_initialisers``).  ``first_ident``: for a process created at run time, the number
    its first local channel gets, as (ident, offset) of ``Channel`` (``slot_channel_bases``);
    otherwise its channels are numbered next."""
    g = inst.graph
    locals_: dict = {}
    chans: dict = {}
    owner = inst.owner
    pdecl = low.proctypes.get(inst.proctype)
    params = pdecl.params if pdecl is not None else ()
    known = {"_pid": inst.pid, "__running__": inst.running}
    assigned = _assigned_names(pdecl.body) if pdecl is not None else frozenset()
    for p, arg in zip(params, inst.args):
        if p.type == "chan" and isinstance(arg, Channel) and p.name not in assigned:
            chans[p.name] = [arg]
            continue
        if p.type == "chan" and isinstance(arg, Channel):
            pass  # assigned in the body (``m = m_new``): a chan variable given the channel's number
        elif p.type == "chan" and inst.running:
            raise low.error(f"parameter {p.name} of {inst.proctype} needs a channel argument", p.pos)
        d = S.VarDecl(p.type, p.name, None, None, None, False, p.pos)
        for src, info, _ in low.declare(d, inst.prefix + ".", owner, known):
            locals_[src] = info
    if receives_into_pid(g) is not None:
        # Spin's verifier (6.5.2) stores a received value into the process's _pid, which
        # its later reads of _pid see; pan leaves _pid out of the states it stores, so it is
        # one of the "spin_hidden" variables (``PID_SUFFIX``).  Where pan's search merges
        # states differing only there, whose futures differ, its count depends on the search
        # order; ours keeps them apart (we explore every state).
        name = inst.prefix + PID_SUFFIX
        locals_["_pid"] = VarInfo(name, _TYPES["pid"], None)
        low.var_bounds[name] = _TYPES["pid"]
        low.variables.append(ir.Variable(name, domain_of(_TYPES["pid"]), ((inst.pid if inst.running else 0,),),
                                         None, owner))
    created = {id(d) for d in g.created}
    removed = f"{inst.prefix}.pc" if g.end in g.reachable_from(g.entry) else None
    for d in g.locals:
        if d.name in locals_ or d.name in chans:
            raise low.error(f"{d.name} declared twice in {inst.proctype}", d.pos)
        if d.type == "chan" and isinstance(d.init, S.ChanInit):
            # created with the process, as Spin does (their numbers follow the pids)
            if first_ident is None:  # deleted with the process if it may end (``Channel.removed_with``)
                chans[d.name] = low.declare_channel(d, known, inst.prefix + ".", owner, removed_with=removed)
            else:
                chans[d.name] = low.declare_channel(d, known, inst.prefix + ".", owner, first_ident[0],
                                                    f"{inst.prefix}.pc", first_ident[1])
                first_ident = (first_ident[0] + len(chans[d.name]), first_ident[1])
            if d.size is None and not chans[d.name][0].offset:
                known[d.name] = chans[d.name][0].ident  # ``chan c = mine`` reads it
            continue
        # A declaration after the first statement is a step (``cfg.declarations_as_steps``):
        # the variable is 0 until control passes it.
        # (A typedef variable's step is empty: its fields keep what creation gave them.)
        values = dict(known) if id(d) in created or d.type in low.typedefs else dict(known, __running__=False)
        evaluate = None
        if inst.running and id(d) in created and tr is not None:
            ctx = Ctx(inst, locals_, chans)
            evaluate = functools.partial(initial_value, low, tr, ctx=ctx)
        made, first_ident = _local_record_channels(low, inst, d, known, first_ident, removed)
        chans.update(made or {})
        for src, info, init in low.declare(d, inst.prefix + ".", owner, values, evaluate, made=made):
            locals_[src] = info
    if low.priorities:
        # pan's _priority: the proctype's tag for an active process (1 without one, and
        # for init); a process started by run gets run's tag, or 1 (``run_priority``)
        tag = pdecl.priority if pdecl is not None and pdecl.priority is not None and inst.running else 1
        d = S.VarDecl("byte", "_priority", None, None, S.Num(tag, pdecl.pos if pdecl else Span(0, 0)), False,
                      pdecl.pos if pdecl else Span(0, 0))
        for src, info, _ in low.declare(d, inst.prefix + ".", owner, known):
            locals_[src] = info
    pc_domain = tuple(range(0, max(g.locations) + 1 + 4096)) if inst.proctype == "init" else tuple(range(0, max(g.locations) + 1))
    low.variables.append(ir.Variable(f"{inst.prefix}.pc", pc_domain,
                                     ((g.entry if inst.running else 0,),), None, owner,
                                     value_names=location_names(g, low.pre.origin)))
    return Ctx(inst, locals_, chans)


def _local_record_channels(low: Lowering, inst: Instance, d: S.VarDecl, known: dict,
                           first_ident: Optional[tuple],
                           removed: Optional[str] = None) -> tuple[Optional[dict], Optional[tuple]]:
    """The channels local record ``d`` of ``inst`` creates (None: none), and the number the
    process's next channel gets (``first_ident``, advanced).  Spin creates them with the
    process wherever the record is declared (pan's ``addproc``), in declaration order among
    its other channels; ``declare_instance`` keeps them in the ``Ctx``'s ``chans`` under the
    fields' flat names (never a source name), for ``local_initialisers`` and ``reset_program``.
    ``removed``: the pc of a process that exists from the start and may end, with which pan
    deletes these channels as its others (``delq``, Spin 6.5.2; ``Channel.removed_with``)."""
    if d.type not in low.typedefs or not _creates_channels(low, d.type):
        return None, first_ident
    if first_ident is None:
        return low.record_channels(d, known, inst.prefix + ".", inst.owner, removed_with=removed), None
    made = low.record_channels(d, known, inst.prefix + ".", inst.owner, first_ident[0], f"{inst.prefix}.pc",
                               first_ident[1])
    return made, (first_ident[0] + sum(map(len, made.values())), first_ident[1])


def location_names(g: Graph, origin: Callable[[int], tuple[str, int]]) -> tuple[tuple[int, str], ...]:
    """How traces show a process's program counter, in Spin users' terms: a location's label
    where it has one (the first declared), else ``line N`` of the statement that leaves it
    (the line ``spin -t -p`` prints), ``end`` for the closing brace and ``not running`` for 0."""
    names = {0: "not running", g.end: "end"}
    for label, loc in reversed(g.labels):
        names[loc] = label
    for t in g.transitions:
        if t.src not in names and t.line:
            names[t.src] = f"line {origin(t.line)[1]}"
    return tuple(sorted(names.items()))


#: The IR name of a process's ``_pid`` when it receives into it: ``<prefix>._pid``.
PID_SUFFIX = "._pid"
#: The IR name of a process's priority when priorities are in use: ``<prefix>._priority``.
PRIORITY_SUFFIX = "._priority"
#: ``enabled(p)`` before ``scheduling`` knows every step: ``Name(ENABLED + str(p))``.
ENABLED = "__enabled__"
#: pan's errors in ``enabled``: of the caller itself, of a process being tried (``scheduling``)
ENABLED_SELF = "__enabled_self__"
ENABLED_LOOP = "__enabled_loop__"
LAST = "_last"


def run_priority(target: Instance, ctx: Ctx, st: S.Run) -> tuple:
    """The new process's ``_priority`` when ``st`` starts it: run's tag, else 1 (pan's
    ``addproc(II, 1, ...)``: the proctype's own tag is not used)."""
    info = ctx.locals.get("_priority")
    return () if info is None else (Assign(Name(info.name), Const(st.priority or 1)),)


class _InitialState:
    """``semantics.evaluate``'s environment for an initialiser: each variable declared so far
    at its (first) initial value; a program counter not declared yet is 0 (that process does
    not exist yet) but the one of ``own``, the process being created."""

    def __init__(self, variables, own: Optional[str]):
        self.state: list[int] = []
        self.offsets: dict[str, int] = {}
        self.lengths: dict[str, int] = {}
        for v in variables:
            self.offsets[v.name] = len(self.state)
            self.lengths[v.name] = v.length
            self.state.extend(allowed[0] for allowed in v.init)
        self.own = own

    def read(self, name: str) -> int:
        from detect.ir.semantics import Fault
        if name in self.offsets:
            return self.state[self.offsets[name]]
        if name.endswith(".pc"):
            return int(name == self.own)
        raise Fault(f"{name} has no value when the process is created")

    def element(self, array: str, k: int) -> int:
        from detect.ir.semantics import Fault
        if array not in self.offsets:
            raise Fault(f"{array} has no value when the process is created")
        if not 0 <= k < self.lengths[array]:
            raise Fault(f"index {k} out of bounds for {array}[{self.lengths[array]}]")
        return self.offsets[array] + k


def initial_value(low: Lowering, tr: "Translator", e, ctx: Ctx) -> int:
    """The value of initialiser ``e`` when its variable is created (Spin: globals in
    declaration order, then each process's locals as ``addproc`` creates it): the variables
    declared before hold their initial values, ``_nr_pr`` counts the processes created so
    far.  A fault (a division by zero, an index out of range) is refused where ``e`` is."""
    from detect.ir.semantics import Fault, evaluate
    own = None if ctx.inst is None else f"{ctx.inst.prefix}.pc"
    try:
        return evaluate(tr.expr(e, ctx), _InitialState(low.variables, own))
    except Fault as err:
        raise low.error(f"initialiser: {err}", getattr(e, "pos", None)) from None


def receives_into_pid(g: Graph) -> Optional[Span]:
    """Where a receive of ``g`` stores into ``_pid`` (a variable argument named ``_pid``), or None."""
    found = find_node(tuple(t.stmt for t in g.transitions),
                      lambda n: isinstance(n, S.RecvArg) and n.kind == "var" and n.ref.name == "_pid")
    return None if found is None else found.pos


def local_initialisers(low: Lowering, tr: Translator, inst: Instance, ctx: Ctx,
                       args: Optional[tuple] = None) -> tuple:
    """Assignments giving a newly started instance its parameters (``args``, by default
    the instance's own) and initial locals."""
    prog = []
    if "_pid" in ctx.locals:  # first: the initialisers below may read it
        prog.append(Assign(Name(ctx.locals["_pid"].name), Const(inst.pid)))
    pdecl = low.proctypes.get(inst.proctype)
    params = pdecl.params if pdecl is not None else ()
    for p, arg in zip(params, inst.args if args is None else args):
        if p.name in ctx.chans or arg is None:  # a channel constant of the instance
            continue
        info = ctx.locals[p.name]
        value = arg.value() if isinstance(arg, Channel) else arg if isinstance(arg, Expr.__args__) else Const(arg)
        prog.append(Assign(Name(info.name), wrap(value, info.bounds, False) if not isinstance(value, Const) else Const(_wrap_value(value.value, info.bounds))))
    for name, chans in ctx.chans.items():
        if name in ctx.locals:  # a record's channel fields (``declare_instance``): its new channels
            info = ctx.locals[name]
            prog.extend(Assign(Name(info.name) if info.size is None else Index(info.name, Const(k)), ch.value())
                        for k, ch in enumerate(chans))
    created = {id(d) for d in inst.graph.created}
    inits = []
    for d in inst.graph.locals:
        if d.type in low.typedefs:  # fields with initialisers, wherever it is declared
            inits.extend((ctx.locals.get(f"{d.name}.{f.name}"), f.init) for f in low.typedefs[d.type].fields
                         if f.init is not None and not isinstance(f.init, (tuple, S.ChanInit)))
        elif id(d) in created and d.init is not None and d.name not in ctx.chans:
            inits.append((ctx.locals[d.name], d.init))  # the others are steps (``cfg.declarations_as_steps``)
    for info, init in inits:
        if info is None:  # a field of a nested record
            continue
        if isinstance(init, tuple):  # an initialiser list (``Lowering._declare_listed``)
            listed = low.listed_values(S.VarDecl("int", info.name, None, None, init, False, Span(0, 0)), {},
                                       info.size or 1)
            prog.extend(Assign(Index(info.name, Const(k)), Const(_wrap_value(v, info.bounds)))
                        for k, v in enumerate(listed))
            continue
        value = tr.expr(init, ctx)
        for k in range(info.size or 1):
            target = Name(info.name) if info.size is None else Index(info.name, Const(k))
            prog.append(Assign(target, wrap(value, info.bounds, _fits(_bounds(value, low.var_bounds), info.bounds))))
    return tuple(prog)


def reset_program(low: Lowering, inst: Instance, ctx: Ctx) -> tuple:
    """A removed process leaves no trace: its locals return to 0 and its local channels
    empty (Spin drops both)."""
    prog = []
    for info in ctx.locals.values():
        for k in range(info.size or 1):
            prog.append(Assign(Name(info.name) if info.size is None else Index(info.name, Const(k)), Const(0)))
    own = [ch for chans in ctx.chans.values() for ch in chans
           if ch.capacity > 0 and ch.prefix.startswith(inst.prefix + ".")]  # not channel parameters
    for ch in own:
        fifo = ch.buffer
        prog.append(Assign(Name(fifo.length), Const(0)))
        for f in fifo.fields:
            prog.extend(Assign(Index(f, Const(k)), Const(0)) for k in range(ch.capacity))
    return tuple(prog)


def preempted(low: Lowering, tr: Translator, g: Graph, t: Transition, ctx: Ctx) -> Expr:
    """When the escapes of the ``unless`` statements around ``t`` preempt it: one of them
    that pan tries before ``t`` is executable (``Graph.preempting``).  pan leaves a
    location's step list at the first escape group that moved; a rendezvous as an escape
    is refused (pan's own handling of it depends on its search), one in the main part is
    not (see ``lower``: escapes preempt its send, not its receive)."""
    groups = g.preempting(t)
    if not groups and not (t.escape and dict(g.escapes).get(t.src)):
        return FALSE
    parts = []
    for u in g.transitions:
        if u.src == t.src and (u.escape in groups or u is t):
            if u.kind == "stmt" and (u is not t or t.escape) and tr.rendezvous(u, ctx) is not None:
                raise low.error("unsupported construct: a rendezvous as the escape of 'unless'", u.stmt.pos)
            if u is not t:
                parts.extend(guard for guard, _ in transition_alternatives(low, tr, g, u, ctx))
    # an escape's own step evaluates its polls (``split_polls``)
    return rvpoll.unpolled(disj(*parts))


def scheduling(low: Lowering, tr: Translator, instances, steps: list, ctxs: dict) -> list:
    """``steps`` under pan's process scheduling: ``enabled(p)`` placeholders replaced by
    "some step of p is executable" (its guards as pan tries them in test mode: no
    ``provided``, priority or atomic sequence); each step of a process with a ``provided``
    clause guarded by it (a rendezvous: both processes'); with priorities, a step of p
    only when no other process of a higher ``_priority``, its ``provided`` holding, is
    enabled (pan's ``highest_priority``).  pan refuses priorities and ``enabled`` beside
    rendezvous channels ("cannot be combined with rendezvous"), and so do we."""
    provided = {}
    for inst in instances:
        pdecl = low.proctypes.get(inst.proctype)
        if pdecl is not None and pdecl.provided is not None:
            provided[inst.owner] = tr.expr(pdecl.provided, ctxs[inst.owner])
    if not (provided or low.priorities or low.uses_enabled):
        return steps
    if low.priorities or low.uses_enabled:
        rv = next((st for st in steps if st.partner is not None), None)
        if rv is not None:
            what = "priorities" if low.priorities else "enabled()"
            at = rv.origin.locations[0]
            raise InputError(f"use of {what} cannot be combined with rendezvous (as pan refuses it)",
                             at.file or low.path, at.line, 1)
    resolve, raw = _enabled_calls(low, tr, instances, steps)
    enabled = {inst.owner: resolve(raw.get(inst.owner, FALSE), inst.pid, frozenset({inst.pid}))
               for inst in instances}
    provided = {k: resolve(v, next(i.pid for i in instances if i.owner == k)) for k, v in provided.items()}
    faults = frozenset((ENABLED_SELF, ENABLED_LOOP))
    errors = ((ENABLED_SELF, "used: enabled(pid=thisproc)"),
              (ENABLED_LOOP, "enabled(): a process asked about while it is being tried (pan recurses "
                             "without end and overflows its stack)"))
    clean = functools.partial(rvpoll.unpolled, names=faults)
    # A priority nothing changes (no set_priority, no store to _priority) is a constant of
    # the instance when every run of its proctype gives the same tag: comparisons of
    # constants fold away, which keeps guards small (each inlines the executability of
    # every process of a higher priority).
    changed = find_node(low.program, lambda n: isinstance(n, S.SetPriority) or isinstance(
        n, (S.Assign, S.IncDec)) and n.target.name == "_priority" or isinstance(n, S.Recv) and any(
        a.kind == "var" and a.ref.name == "_priority" for a in n.args)) is not None

    def priority_of(inst: Instance) -> Expr:
        pdecl = low.proctypes.get(inst.proctype)
        if not changed:
            if inst.running:
                return Const(pdecl.priority or 1 if pdecl is not None else 1)
            tags = {r.priority or 1 for r in _runs_of(low.program, inst.proctype)}
            if len(tags) == 1:
                return Const(tags.pop())
        return Name(f"{inst.prefix}{PRIORITY_SUFFIX}")

    out = []
    for st in steps:
        guard, program = resolve(st.guard, st.inst.pid), resolve(st.program, st.inst.pid)
        movers = [st.inst] + ([st.partner[0]] if st.partner is not None else [])
        # pan's order: the mover's provided, the processes of a higher priority, the guard
        first = [provided[m.owner] for m in movers if m.owner in provided]
        if low.priorities:
            for q in instances:
                if q.pid == st.inst.pid:
                    continue
                above = fold(Binary(">", priority_of(q), priority_of(st.inst)))
                if above == FALSE:
                    continue
                first.append(neg(conj(above, provided.get(q.owner, TRUE), enabled.get(q.owner, FALSE))))
        tried = conj(*first, guard)
        if not st.probe and rvpoll.polls(tried, faults):
            for name, text in errors:
                where = rvpoll.evaluated(tried, name, faults - {name})
                if where != FALSE:
                    out.append(dataclasses.replace(st, dst=st.src, guard=where, program=(Assert(FALSE, text),),
                                                   keep=False, partner=None, probe=True, unranked=None))
        extra = [clean(x) for x in first]
        unranked = conj(clean(guard), *(clean(provided[m.owner]) for m in movers if m.owner in provided)) \
            if low.priorities else None
        program = rvpoll.unpolled_program(program, errors) if rvpoll.polls_program(program, faults) else program
        out.append(dataclasses.replace(st, guard=conj(clean(guard), *extra), program=program, unranked=unranked))
    return out


def _enabled_calls(low: Lowering, tr: Translator, instances, steps: list) -> tuple:
    """``(resolve, raw)``: ``resolve(e, iam, stack)`` is expression or program ``e`` with its
    ``enabled()`` placeholders replaced as process ``iam`` evaluates them while the processes
    ``stack`` are being tried; ``raw`` maps each instance to "some step can move", its own
    placeholders unresolved.

    pan's enabled(pid), called by process ``iam``: the error "used: enabled(pid=thisproc)"
    where pid is iam; else pid's steps at its location tried in turn, in test mode, until
    one is executable, their own enabled() calls made with pid as iam -- recursively, so a
    process asked about again while it is being tried recurses without end (pan overflows
    its stack).  Both are placeholders (``ENABLED_SELF``, ``ENABLED_LOOP``), faults where
    evaluated (``rvpoll``)."""
    raw: dict[str, Expr] = {}
    for st in steps:
        if st.probe:
            continue
        raw[st.inst.owner] = disj(raw.get(st.inst.owner, FALSE), conj(tr.counter(st.inst).at(st.src), st.guard))
    raw_pid: dict[int, Expr] = {}
    for inst in instances:
        raw_pid[inst.pid] = disj(raw_pid.get(inst.pid, FALSE), raw.get(inst.owner, FALSE))
    tested: dict = {}

    def resolve(e, iam: Optional[int], stack: frozenset = frozenset()):
        """``e`` (an expression or a program) as process ``iam`` evaluates it while the
        processes ``stack`` are being tried."""
        if not low.uses_enabled:
            return e

        def value(k: int) -> Expr:
            if k == iam:
                return Name(ENABLED_SELF)
            if k in stack:
                return Name(ENABLED_LOOP)
            key = (k, stack | {k})
            if key not in tested:
                tested[key] = FALSE  # not reached: k is on the stack below
                tested[key] = resolve(raw_pid.get(k, FALSE), k, stack | {k})
            return tested[key]

        def placeholder(x: Expr) -> Optional[Expr]:
            if isinstance(x, Name) and x.name.startswith(ENABLED) and x.name[len(ENABLED):].isdigit():
                return value(int(x.name[len(ENABLED):]))
            return None

        return walk.map_program(e, placeholder) if isinstance(e, tuple) else walk.map_expr(e, placeholder)

    return resolve, raw


def _runs_of(node, proctype: str) -> list:
    """Every ``run`` of ``proctype`` inside AST ``node``."""
    out: list = []
    find_node(node, lambda n: isinstance(n, S.Run) and n.proctype == proctype and out.append(n) is not None)
    return out


def has_rendezvous_send(tr: Translator, g: Graph, t: Transition, ctx: Ctx) -> bool:
    """``t`` is an ``else`` beside a rendezvous send (its guard needs the handshakes)."""
    return t.kind == "else" and any(
        g.transitions[k].kind == "stmt" and isinstance(g.transitions[k].stmt, S.Send)
        and tr.rendezvous(g.transitions[k], ctx) is not None for k in t.siblings)


def transition_alternatives(low, tr: Translator, g: Graph, t: Transition, ctx: Ctx,
                            offered: Optional[dict] = None) -> list[tuple[Expr, tuple]]:
    """(guard, program) alternatives of transition ``t``.  ``offered`` maps (pid, id of a
    rendezvous send transition) to the guards of its handshakes (needed by an ``else``)."""
    if t.kind == "goto":
        return [(TRUE, ())]
    if t.kind == "else":
        sib = []
        for k in t.siblings:
            other = g.transitions[k]
            if other.kind == "stmt" and tr.rendezvous(other, ctx) is not None:
                # Checked against Spin 6.5.2: a rendezvous receive never counts as executable
                # for ``else`` (it only moves as a sender's partner); a send counts when some
                # handshake is possible.
                if isinstance(other.stmt, S.Send):
                    sib.extend((offered or {}).get((ctx.inst.pid, id(other)), []))
                if not tr.has_buffered(other, ctx):
                    continue
            for guard, _ in transition_alternatives(low, tr, g, other, ctx):
                sib.append(guard)
        # pan tries else on its own flag: it evaluates none of its siblings' polls
        return [(rvpoll.unpolled(neg(disj(*sib))), ())]
    if t.kind == "dstep":
        return [tr.dstep(t.stmt.body, ctx)]
    if isinstance(t.stmt, S.Recv):
        tr.distinct_targets(t.stmt, ctx)  # (Spin checks none inside a d_step)
    return tr.basic(t.stmt, ctx)


#: Spin's MAXPROC: pan reports "too many processes" when a run would exceed it.
SPIN_MAX_PROCS = 255
#: The default bound on processes alive at once when ``run`` creates them at run time
#: (``--max-procs``): each pid below it is a slot per proctype that may be run, so the
#: model grows with it; a run beyond it is a fault that names the option.
DEFAULT_MAX_PROCS = 8


@dataclass(frozen=True)
class ProcessSlots:
    """Dynamic process creation: pids ``first .. bound - 1`` that ``run`` may fill, with
    one instance per (proctype that may be run, pid) in ``holders`` -- at most one of the
    instances of a pid is running.  ``first`` is the lowest pid that can become free: the
    processes running from the start below it never end (and pid 0 never becomes free
    while somebody can still run)."""

    first: int
    bound: int
    holders: tuple[tuple[tuple[str, int], Instance], ...]
    #: ``pids.creations`` of the model (None: not known, every pid is possible)
    creations: Optional[pids.Creations] = None

    def holder(self, proctype: str, pid: int) -> Instance:
        return dict(self.holders)[(proctype, pid)]

    def pids(self, st: S.Run) -> tuple[list[int], bool]:
        """The pids ``st`` may give below the bound, and whether it may find them all in
        use (the overflow fault)."""
        if self.creations is None:
            return list(range(self.first, self.bound)), True
        given = self.creations.run_pids.get(st, frozenset())
        return sorted(p for p in given if self.first <= p < self.bound), any(p >= self.bound for p in given)

    def overflow(self) -> Assert:
        """The fault of a run with every pid below the bound in use: at Spin's own bound
        pan's error, below it a bound of ours (``--max-procs``), no error of the model."""
        if self.bound == SPIN_MAX_PROCS:
            return Assert(FALSE, "too many processes")
        return Assert(FALSE, f"run: more than {self.bound} processes alive (at most {SPIN_MAX_PROCS} as in Spin)",
                      ToolBound("--max-procs", self.bound, SPIN_MAX_PROCS))


def spawned(low: Lowering, roots, graph) -> list[tuple[str, S.Run]]:
    """Every ``run`` of the graphs ``roots`` and of the proctypes they run, transitively,
    each with the name of the graph it is in (``graph(name, body)`` builds a proctype's)."""
    out: list = []
    seen: set = set()
    todo = list(roots)
    while todo:
        g = todo.pop()
        if g.name in seen:
            continue
        seen.add(g.name)
        for t in g.transitions:
            if t.kind == "stmt" and isinstance(t.stmt, S.Run):
                pdecl = low.proctypes.get(t.stmt.proctype)
                if pdecl is None:
                    raise low.error(f"run of undeclared proctype {t.stmt.proctype}", t.stmt.pos)
                if len(t.stmt.args) != len(pdecl.params):
                    raise low.error(f"run {pdecl.name} with {len(t.stmt.args)} arguments, "
                                    f"expected {len(pdecl.params)}", t.stmt.pos)
                out.append((g.name, t.stmt))
                todo.append(graph(pdecl.name, pdecl.body))
    return out


def dynamic_slots(low: Lowering, instances: list, runs: list, graph, max_procs: Optional[int]) -> ProcessSlots:
    """Add to ``instances`` one instance per (proctype run by ``runs``, pid that run may
    give it), up to ``max_procs`` processes alive at once.  Without ``max_procs`` the bound
    is the most processes the creation skeleton (``pids.creations``) can have alive, so no
    run a reachable state makes is cut short; only where that is unbounded (a run at every
    pid up to Spin's 255) or not known is it ``DEFAULT_MAX_PROCS``, past which a run is a
    fault naming the option."""
    pos = runs[0][1].pos
    found = None
    if max_procs is None:
        found = creations(low, instances, graph, SPIN_MAX_PROCS)
        given = [p for v in found.run_pids.values() for p in v] if found is not None else None
        if given is not None and (not given or max(given) < SPIN_MAX_PROCS - 1):
            # every run finds a free pid below the skeleton's largest: Spin's own answer
            bound = max(len(instances) + 1, max(given, default=0) + 1)
        else:
            bound, found = DEFAULT_MAX_PROCS, None
    else:
        bound = max_procs
    if not len(instances) < bound <= SPIN_MAX_PROCS:
        raise low.error(f"--max-procs {bound}: {len(instances)} processes run from the start and run "
                        f"creates more; give a bound from {len(instances) + 1} to {SPIN_MAX_PROCS}", pos)
    first = len(instances)
    while first > 1 and instances[first - 1].graph.end in instances[first - 1].graph.reachable_from(
            instances[first - 1].graph.entry):
        first -= 1
    proctypes = list(dict.fromkeys(st.proctype for _, st in runs))
    if found is None:
        found = creations(low, instances, graph, bound)
    holders: dict = {(i.proctype, i.pid): i for i in instances if i.pid >= first}
    for name in proctypes:
        pdecl = low.proctypes[name]
        args = tuple(_fixed_channel(low, name, k, [st for _, st in runs if st.proctype == name])
                     if p.type == "chan" else None for k, p in enumerate(pdecl.params))
        for pid in range(first, bound):
            if found is not None and (name, pid) not in found.holders:
                continue  # no run gives this proctype this pid
            if (name, pid) not in holders:
                inst = Instance(name, pid, f"{name}_{pid}", f"{name}[{pid}]", graph(name, pdecl.body), args, False)
                holders[(name, pid)] = inst
                instances.append(inst)
    return ProcessSlots(first, bound, tuple(holders.items()), found)


def creations(low: Lowering, instances: list, graph, bound: int) -> Optional[pids.Creations]:
    """``pids.creations`` of the model whose processes ``instances`` run from the start."""
    counts: dict = {}

    def channels(g: Graph, pid: int) -> int:
        if (g.name, pid) not in counts:
            counts[(g.name, pid)] = _local_channels(g, low, {"_pid": pid})
        return counts[(g.name, pid)]

    prioritised = find_node(low.program, lambda n: isinstance(n, S.SetPriority) or isinstance(
        n, (S.Run, S.Proctype)) and n.priority is not None) is not None
    blockable = frozenset(name for name, p in low.proctypes.items() if p.provided is not None)
    return pids.creations([i.graph for i in instances], lambda name: graph(name, low.proctypes[name].body),
                          bound, channels, not prioritised, blockable)


def _fixed_channel(low: Lowering, proctype: str, k: int, runs: list) -> Optional[Channel]:
    """The channel every run of ``proctype`` passes as its parameter ``k`` when that is one
    global channel named with a constant index (then a constant of each instance); None
    when the runs pass different channels, local ones, or one chosen at run time (the
    parameter is then a ``chan`` variable, given the channel's identity by ``run``)."""
    pdecl = low.proctypes.get(proctype)
    if pdecl is not None and k < len(pdecl.params) and pdecl.params[k].name in _assigned_names(pdecl.body):
        return None  # the process assigns it: a chan variable
    chosen = set()
    for st in runs:
        a = st.args[k]
        if not isinstance(a, S.VarRef) or a.field is not None:
            return None
        chans = low.globals.get(a.name)
        if not (isinstance(chans, list) and chans and isinstance(chans[0], Channel)):
            return None
        idx = 0 if a.index is None else low.static(a.index, {})
        if idx is None or not 0 <= idx < len(chans):
            return None
        chosen.add(chans[idx])
    return chosen.pop() if len(chosen) == 1 else None


def _local_channels(g: Graph, low: Lowering, known: dict) -> int:
    """How many channels a process of graph ``g`` creates (Spin: all of them when it is
    created, an array one per element)."""
    def created(d: S.VarDecl) -> int:
        n = low.const(d.size, known) if d.size is not None else 1
        if d.type in low.typedefs:
            return n * len(records.created_channels(low.typedefs, d.type, lambda e: low.const(e, known)))
        return n if d.type == "chan" and isinstance(d.init, S.ChanInit) else 0
    return sum(created(d) for d in g.locals)


def slot_channel_bases(low: Lowering, instances: list, slots: ProcessSlots) -> dict[str, tuple]:
    """For each instance created at run time that has local channels, the number of its
    first one as ``(ident, offset)`` (see ``Channel``).  Spin gives a new channel the
    number after the channels in use, and removes a process's channels with it; processes
    are removed last-in-first-out, so the channels in use are the globals, then each live
    process's in pid order, and every pid below a live process's is in use.  A lower pid
    whose possible holders all create as many channels adds a constant; otherwise the
    number depends on which of them runs there (``offset``)."""
    holders: dict[int, list[Instance]] = {}
    for inst in instances:
        holders.setdefault(inst.pid, []).append(inst)
    counts = {i.owner: _local_channels(i.graph, low, {"_pid": i.pid}) for i in instances}
    out: dict[str, tuple] = {}
    base = len(low.channels) + 1  # the globals, declared by now
    offset: list = []
    in_use = slots.creations.channels_in_use if slots.creations is not None else {}
    for pid in sorted(holders):
        for inst in holders[pid]:
            if not inst.running and counts[inst.owner]:
                known = in_use.get((inst.proctype, pid), ())
                # one number of channels in use whenever it is created (``pids``): a constant
                out[inst.owner] = (len(low.channels) + 1 + min(known), ()) if len(known) == 1 \
                    else (base, tuple(offset))
        sizes = {counts[i.owner] for i in holders[pid]}
        if len(sizes) == 1:
            base += sizes.pop()
        else:
            offset.extend((f"{i.prefix}.pc", counts[i.owner]) for i in holders[pid] if counts[i.owner])
    return out


@dataclass(frozen=True)
class _InitChannel:
    """A planned run's channel argument that is init's local channel ``name[index]``:
    numbered when init's locals are declared, then ``resolve``d."""

    name: str
    index: int

    def resolve(self, init_ctx: "Ctx") -> Channel:
        return init_ctx.chans[self.name][self.index]


@dataclass(frozen=True)
class _Plan:
    """init's deterministic start-up: ``segments`` are steps (a merged atomic block is one
    step), each a tuple of transition indices; ``runs`` the processes started, in order."""

    runs: tuple
    stop: Optional[int]
    segments: tuple = ()


_MAX_PREFIX = 20_000


def plan_init(low: Lowering, inst: Instance) -> Optional[_Plan]:
    """Execute init at load time while its control flow depends only on its own locals;
    None when a ``run`` remains after that (its processes are then created dynamically)."""
    g = inst.graph
    known: dict = {"_pid": inst.pid}
    created = {id(d) for d in g.created}
    for d in g.locals:
        if d.size is None and d.type not in low.typedefs and d.type != "chan":
            # a declaration after the first statement is a step: 0 until it runs
            v = low.static(d.init, known) if d.init is not None and id(d) in created else 0
            if v is not None:
                known[d.name] = _wrap_value(v, low.type_bounds(d.type, d.bits, d.pos))
    local_bounds = {d.name: d for d in g.locals}
    runs: list = []
    segments: list = []
    current: list = []
    loc = g.entry
    # (location, locals) met at a segment boundary: met again, init loops without end.
    seen: set = set()
    for _ in range(_MAX_PREFIX):
        if loc == g.end:
            break
        if not current:
            here = (loc, tuple(sorted(known.items())))
            if here in seen:
                break
            seen.add(here)
        options = [k for k in g.outgoing(loc)]
        enabled = []
        for k in options:
            v = _static_guard(low, g, g.transitions[k], known)
            if v is None:
                enabled = None
                break
            if v:
                enabled.append(k)
        if enabled is None or len(enabled) != 1:
            break
        k = enabled[0]
        t = g.transitions[k]
        if not _apply_static(low, t, known, local_bounds, runs):
            break
        current.append(k)
        if not t.keep:
            segments.append(tuple(current))
            current = []
        loc = t.dst
    if current:  # stopped inside an atomic block: keep its steps separate
        segments.extend((k,) for k in current)
    if loc != g.end and _runs_from(g, g.reachable_from(loc)):
        return None
    # The plan ends with the last run: what init does after it is its own code, so that a
    # loop after the runs is init's loop (Spin's states), not a chain of fresh locations
    # unrolled up to _MAX_PREFIX steps (``do :: i++ od``: 256 states, not 20,256).
    last = max((n for n, seg in enumerate(segments)
                if any(isinstance(g.transitions[k].stmt, S.Run) for k in seg)), default=-1)
    cut = g.transitions[segments[last][-1]].dst if last >= 0 else g.entry
    # ... unless the last run is inside a loop the plan unrolled (``do :: n < 2 -> run W(n);
    # n++ :: else -> break od``): from there the run is init's code again, which only the
    # whole plan (past the loop's exit, checked above) leaves behind.
    if last + 1 < len(segments) and not _runs_from(g, g.reachable_from(cut)):
        segments = segments[:last + 1]
        loc = cut
    return _Plan(tuple(runs), loc, tuple(segments))


def _runs_from(g: Graph, locations: set) -> bool:
    """A ``run`` statement leaves one of ``locations``."""
    return any(t.kind == "stmt" and isinstance(t.stmt, S.Run) and t.src in locations for t in g.transitions)


def _may_reuse_pids(low: Lowering, init_inst: Instance, plan: _Plan, instances: list, graph) -> bool:
    """A process started before one of init's planned runs may end before it: the run may
    then reuse its pid (Spin), which the load-time plan cannot follow."""
    g = init_inst.graph
    started = [i.graph for i in instances if i is not init_inst]
    for segment in plan.segments:
        runs = [g.transitions[k].stmt for k in segment if isinstance(g.transitions[k].stmt, S.Run)]
        if runs and any(s.end in s.reachable_from(s.entry) for s in started):
            return True
        started.extend(graph(r.proctype, low.proctypes[r.proctype].body) for r in runs)
    return False


def _static_guard(low, g, t: Transition, known) -> Optional[bool]:
    if t.kind in ("goto", "end"):
        return True
    if t.kind == "else":
        vals = [_static_guard(low, g, g.transitions[k], known) for k in t.siblings]
        return None if None in vals else not any(vals)
    st = t.stmt
    if t.kind == "dstep":
        inner = [s for s in st.body.stmts if s is not None and not isinstance(s, S.Decl)]
        st = inner[0] if inner else S.Printf(t.stmt.pos)
        if isinstance(st, (S.Choice, S.Block, S.Labeled)):
            return None
    if isinstance(st, S.ExprStmt):
        v = low.static(st.expr, known)
        return None if v is None else bool(v)
    if isinstance(st, (S.Assign, S.IncDec, S.Printf, S.AssertStmt, S.Run)):
        return True
    return None


def _apply_static(low, t: Transition, known: dict, local_decls, runs: list) -> bool:
    def assign(r: S.VarRef, value):
        if r.name in local_decls and r.index is None and r.field is None:
            d = local_decls[r.name]
            known[r.name] = None if value is None else _wrap_value(value, low.type_bounds(d.type, d.bits, d.pos))
            if known[r.name] is None:
                del known[r.name]
        elif r.name in local_decls:
            known.pop(r.name, None)

    if t.kind == "dstep":
        for st in t.stmt.body.stmts:
            if isinstance(st, S.Assign):
                assign(st.target, low.static(st.value, known))
            elif isinstance(st, (S.ExprStmt, S.Printf, S.AssertStmt)) or st is None:
                continue
            else:
                return False
        return True
    st = t.stmt
    if isinstance(st, S.Assign):
        assign(st.target, low.static(st.value, known))
    elif isinstance(st, S.IncDec):
        v = low.static(st.target, known)
        assign(st.target, None if v is None else v + (1 if st.op == "++" else -1))
    elif isinstance(st, S.Run):
        args = []
        pdecl = low.proctypes.get(st.proctype)
        if pdecl is None:
            raise low.error(f"run of undeclared proctype {st.proctype}", st.pos)
        for p, a in zip(pdecl.params, st.args):
            if p.type == "chan":
                if not isinstance(a, S.VarRef) or a.field is not None:
                    return False  # a channel value: given at run time
                idx = 0 if a.index is None else low.static(a.index, known)
                chans = low.globals.get(a.name)
                local = local_decls.get(a.name)
                if local is not None and local.type == "chan" and isinstance(local.init, S.ChanInit):
                    size = low.const(local.size, known) if local.size is not None else 1
                    if idx is None or not 0 <= idx < size:
                        return False
                    args.append(_InitChannel(a.name, idx))
                    continue
                if local is not None or not (isinstance(chans, list) and chans and isinstance(chans[0], Channel)):
                    return False  # a chan variable: its value is known at run time
                if idx is None:
                    return False  # known only at run time: the plan stops here
                if not 0 <= idx < len(chans):
                    raise low.error(f"channel index {idx} out of range", a.pos)
                args.append(chans[idx])
            else:
                v = low.static(a, known)
                if v is None:
                    return False
                args.append(v)
        args.extend([0] * (len(pdecl.params) - len(args)))
        runs.append((st.proctype, tuple(args), st.pos))
        if st.target is not None:
            assign(st.target, None)  # the pid, not tracked here: later tests of it stop the plan
    return True


def init_prefix_steps(low, tr: Translator, inst: Instance, ctx: Ctx, plan: _Plan, instances, ctxs) -> list:
    """init's start-up as a chain of fresh pc values (one per step, a merged atomic block
    being one step); ``run`` k starts the instance planned for it."""
    g = inst.graph
    steps = []
    base = max(g.locations) + 1
    run_no = 0
    n_initial = sum(1 for i in instances if i.running)
    for s, seg in enumerate(plan.segments):
        src = base + s if s > 0 else g.entry
        dst = base + s + 1 if s + 1 < len(plan.segments) else plan.stop
        program: list = []
        guard = TRUE
        for j, k in enumerate(seg):
            t = g.transitions[k]
            if isinstance(t.stmt, S.Run):
                # No process started earlier can have ended (``_may_reuse_pids``), so the
                # run takes the next pid, the planned instance's.
                target = instances[n_initial + run_no]
                run_no += 1
                alts = [(TRUE, (tr.counter(target).goto(target.graph.entry),) +
                         local_initialisers(low, tr, target, ctxs[target.owner]) +
                         run_priority(target, ctxs[target.owner], t.stmt) +
                         ((tr.assign(t.stmt.target, Const(target.pid), ctx),) if t.stmt.target is not None else ()))]
            else:
                alts = transition_alternatives(low, tr, g, t, ctx)
            if len(alts) != 1:
                raise low.error("channel operation with a variable channel in init's start-up", Span(t.line, 0))
            if j == 0:
                guard = alts[0][0]
            program.extend(alts[0][1])
        origin = ir.Origin((_at(low, g.transitions[seg[0]].line, f"init start-up step {s}"),))
        steps.append(_Step(inst, src, dst, guard, tuple(program),
                           origin, f"init.start{s}", g.transitions[seg[-1]].keep))
    return steps


def assemble(low: Lowering, tr: Translator, instances, steps: list, plan: _Plan, init_inst,
             claim: Optional[tuple[Graph, list[ClaimStep]]] = None) -> tuple[Expr, ir.SequentialModel]:
    """The model, and the condition under which Spin stores a state (``detect.checking.spin_counts``);
    with a never ``claim`` (its graph and steps), the product with it (``claim.product``)."""
    probes = [st for st in steps if st.probe]
    steps = [st for st in steps if not st.probe]
    atomic_pids = sorted({st.holder() for st in steps} - {None})
    owner = ExclusiveOwner(ATOMIC, -1)
    # Where each process may hold atomic control: after a step that keeps it.  Keyed by
    # instance: with dynamic creation, instances of several proctypes share a pid (one at
    # a time), and their locations are numbered independently.
    holding: dict[str, set] = {}
    for st in steps:
        if st.holder() is not None:
            holding.setdefault(st.holder_instance().owner, set()).add(st.dst if st.partner is None else st.partner[1])
    # A step whose guard splits into disjoint alternatives (see ``normal``) becomes one
    # summand per alternative, with the same program.
    sizes = {v.name: v.length for v in low.variables if v.size is not None}
    # Some step can move exactly where some step can move ignoring priorities (the
    # process of the highest priority among those that can move may): the timeout from
    # the guards without the priority conjuncts, which inline other processes' steps.
    unranked = [conj(tr.counter(st.inst).at(st.src), st.unranked) for st in steps if st.unranked is not None]
    steps_before = steps
    steps = [dataclasses.replace(st, guard=g) for st in steps for g in alternatives(normal_guard(st.guard), sizes)]
    full = []
    for st in steps:
        full.append(conj(tr.counter(st.inst).at(st.src), st.guard))
    if atomic_pids:
        low.variables.append(owner.variable(atomic_pids))
    claim_timeout = claim is not None and any(_TIMEOUT in walk.names_read(st.guard) for st in claim[1])
    carry, at_guard, timeout = _timeouts(steps, full, holding, atomic_pids, owner, claim is not None,
                                         unranked if unranked and len(unranked) == len(steps_before) else None,
                                         claim_timeout)
    # one object per pid: every summand of a process carries its turn condition, and walks
    # memoised by node identity (``walk.fold``) then cost it once, not once per summand
    turn = functools.lru_cache(maxsize=None)(functools.partial(_turn, owner, atomic_pids, at_guard,
                                                               claim is not None))
    # one rewriter for every guard and program: they share their subexpressions
    with_timeout = walk.substituter({Name(_TIMEOUT): timeout})
    summands = _step_summands(low, tr, steps, full, with_timeout, turn, owner, atomic_pids)
    checks = [ir.Summand((), with_timeout(conj(tr.counter(st.inst).at(st.src), st.guard, turn(st.inst.pid))),
                         ir.Event(st.event), st.program, st.origin,
                         (st.inst.owner,)) for st in probes]
    params = tuple((n, int(v)) for n, v in low.pre.macros if _is_int(v))
    low.variables = _named_channel_values(low)
    blocked = [conj(owner.held_by(Const(p)), neg(at_guard[p])) for p in atomic_pids]
    stored = owner.turn((), blocked) if atomic_pids else TRUE
    variables, processes = tuple(low.variables), _processes(instances, low.variables)
    assertions: tuple = (ir.Assertion("deadlockfree", "no invalid end states"),)
    terminal = _valid_end(low, tr, instances)
    if claim is not None:
        claim_graph, claim_moves = claim
        # the value of timeout at the claim's turn (the carried bit is 0 there)
        claim_moves = claim_timeouts(claim_moves, _TIMEOUT, fold(substitute(timeout, CLAIM_CARRY, Const(0)))
                                     if carry else timeout, carry)
        prod = product(summands, [st.holder() is not None for st in steps], claim_moves, claim_graph,
                       atomic_free=owner.held_by(Const(owner.free)) if atomic_pids else TRUE,
                       holder_blocked=disj(*blocked) if atomic_pids else FALSE,
                       release=(owner.release(),) if atomic_pids else (), lengths=sizes,
                       carried=tuple(_carried(st, timeout) for st in steps) if carry else None, probes=checks)
        summands, stored = list(prod.summands), prod.stored
        variables, processes = variables + prod.variables, processes + (prod.process,)
        # pan does not look for invalid end states under a never claim
        assertions, terminal = (prod.assertion,), TRUE
    else:
        summands += checks
    assertions = _cycle_properties(tr, instances, claim[0] if claim is not None else None, assertions,
                                   low.non_progress, low.program.ltl_texts)
    fairness = ()
    if claim is not None:
        fairness = (("weak_fairness", _weak_fairness(instances, low.non_progress,
                                                     owner.held_by(Const(owner.free)) if atomic_pids else TRUE,
                                                     timeout)),)
    return stored, ir.SequentialModel(
        name=low.name, variables=variables, summands=tuple(summands),
        assertions=assertions, parameters=params, source=low.path, terminal=terminal,
        processes=processes, marks=_label_marks(tr, instances, claim[0] if claim is not None else None),
        annotations=fairness,
    )


def _step_summands(low: Lowering, tr: Translator, steps: list, full: list, with_timeout, turn,
                   owner: ExclusiveOwner, atomic_pids: list) -> list:
    """One summand per step: its guard ``full`` (location and guard) with the atomic turn,
    ``timeout`` substituted; its program, then the move to its target location, ``_last``
    and the atomic owner."""
    summands = []
    for st, f in zip(steps, full):
        guard = with_timeout(conj(f, turn(st.inst.pid)))
        prog = walk.map_program(st.program, with_timeout)
        prog += (tr.counter(st.inst).goto(st.dst),)
        if low.uses_last:  # pan: the pid of the process that moved last (a rendezvous: the receiver)
            prog += (Assign(Name(LAST), Const(st.inst.pid if st.partner is None else st.partner[0].pid)),)
        if atomic_pids:
            holder = st.holder()
            prog += (owner.release() if holder is None else owner.take(Const(holder)),)
        owners = (st.inst.owner,) if st.partner is None else (st.inst.owner, st.partner[0].owner)
        summands.append(ir.Summand((), guard, ir.Event(st.event), prog, st.origin, owners))
    return summands


def _valid_end(low: Lowering, tr: Translator, instances) -> Expr:
    """Where a state with no move is a valid end state: every process at an end label or
    ended, and (with a trace) the event trace completed."""
    parts = [disj(*(tr.counter(inst).at(v) for v in sorted({0} | set(inst.graph.end_labels))))
             for inst in instances]
    if low.trace is not None:
        # pan's endstate: "event_trace not completed" -- unless no process is left, which
        # pan accepts before asking endstate
        parts.append(disj(conj(*(tr.counter(i).at(0) for i in instances)),
                          *(Binary("==", Name(events.EVENT), Const(v)) for v in sorted(low.trace.stops))))
    return conj(*parts)


def _weak_fairness(instances, non_progress: bool, atomic_free: Expr,
                   timeout: Expr) -> ir.WeakFairness:
    """What ``pan -f`` needs to know of the product (``ir.WeakFairness``): pan applies its
    fairness rules where the system is to move, no process holds atomic control and the
    claim did not just stutter."""
    from frontends.promela.claim import STUTTER, TURN

    turn = Binary("==", Name(TURN), Const(0))
    return ir.WeakFairness(
        system_turn=turn, counted=build.conj(turn, Binary("==", Name(STUTTER), Const(0)), atomic_free),
        atomic_free=atomic_free, processes=tuple(inst.owner for inst in instances),
        timeout=timeout, non_progress=non_progress)


def _timeouts(steps: list, full: list, holding: dict, atomic_pids: list, owner: ExclusiveOwner,
              claimed: bool, unranked: Optional[list] = None, claim_timeout: bool = False) -> tuple[bool, dict, Expr]:
    """``(carry, at_guard, timeout)``: whether the claim product carries timeout through
    atomic sequences (``claim.CARRY``), each atomic pid's "can move where it holds control"
    and the value of ``timeout`` (``full``: each step's guard with its location;
    ``unranked``, when given, the same disjunction without the priority conjuncts)."""
    # Under a never claim pan decides timeout at the claim's move ("req timeout") and an
    # atomic sequence keeps the value it started with (claim.CARRY): a holder's timeout is
    # that carried value, the others' is "no process can move" while nobody holds control.
    # (only where a holder may read it: a step from where a process may hold control tests
    # timeout; elsewhere the carried bit would only cost state and graph size)
    carry = claimed and any(st.src in holding.get(st.inst.owner, ()) and _reads_timeout(st) for st in steps)
    # a claim move made with its timeout bit on passes it to the system's next step
    # (``claim.claim_timeouts``), whose timeout moves then are enabled
    carry = carry or claim_timeout and any(_reads_timeout(st) for st in steps)
    holder_timeout = Binary("==", Name(CLAIM_CARRY), Const(1)) if carry else FALSE
    at_guard = {}
    for pid in atomic_pids:
        # Spin decides that the atomic process is blocked before it tries timeout: a
        # holder whose only move is a timeout hands control to everybody (who may then
        # take their own timeout moves).
        at_guard[pid] = substitute(disj(*(f for st, f in zip(steps, full)
                                         if st.inst.pid == pid and st.src in holding.get(st.inst.owner, ()))),
                                   _TIMEOUT, holder_timeout)
    timeout = neg(_wide_disj([substitute(f, _TIMEOUT, FALSE) for f in (full if unranked is None else unranked)]))
    if carry:
        timeout = disj(holder_timeout, conj(owner.held_by(Const(owner.free)) if atomic_pids else TRUE, timeout))
    return carry, at_guard, timeout


def _turn(owner: ExclusiveOwner, atomic_pids: list, at_guard: dict, claimed: bool, pid: int) -> Expr:
    """Where process ``pid`` may move as far as atomic sequences go (``at_guard``: each
    holder's "can move")."""
    if not atomic_pids:
        return TRUE
    # Under a claim a blocked holder hands control over through a move of the claim.
    others = [conj(owner.held_by(Const(p)), neg(at_guard[p])) for p in atomic_pids if p != pid and not claimed]
    return owner.turn([Const(pid)] if pid in atomic_pids else [], others)


def _carried(st, timeout: Expr) -> Optional[Expr]:
    """What the carried timeout (``claim.CARRY``) becomes after step ``st`` where ``st``
    keeps atomic control; None: unchanged.  ``timeout``: its value on the system's turn,
    ``CARRY == 1 || (nobody holds control && no step is enabled without timeout)``.

    Only a guard that reads ``timeout`` can change it: where another step is enabled, the
    step itself is enabled without timeout, so "no step is enabled" is false and the value
    is the carried bit itself (0 where nobody holds control: every move that frees control
    clears it).  A guard with a conjunct on ``timeout`` alone decides it: ``timeout``
    (1), ``!timeout`` (0, so the carried bit was 0: unchanged).  (The whole condition
    assigned in every atomic step made the value analysis of ``promela_gen.claimed(4)``
    take minutes instead of seconds.)"""
    if _TIMEOUT not in walk.names_read(st.guard):
        return None
    for c in _conjuncts(st.guard):
        if walk.names_read(c) == {_TIMEOUT}:
            if fold(substitute(c, _TIMEOUT, Const(0))) == FALSE:
                return Const(1)
            if fold(substitute(c, _TIMEOUT, Const(1))) == FALSE:
                return None
    return Ite(timeout, Const(1), Const(0))


def _conjuncts(e: Expr) -> list[Expr]:
    """The operands of a chain of ``&&`` (``e`` itself when it is no conjunction)."""
    if isinstance(e, Binary) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _reads_timeout(st) -> bool:
    """Step ``st``'s guard or program reads ``timeout``."""
    exprs = (st.guard,) + tuple(walk.program_expressions(st.program))
    return any(isinstance(x, Name) and x.name == _TIMEOUT for e in exprs for x in walk.subexpressions(e))


def _label_marks(tr: Translator, instances, claim: Optional[Graph]) -> tuple[tuple[str, int, int, str], ...]:
    """``SequentialModel.marks``: each program counter's literals at a location with an
    ``accept`` or ``progress`` label, and (without a never claim, under which pan ignores
    end states) at a valid end location -- an ``end`` label, the process's end, or gone
    (0), the locations ``terminal`` accepts.  The claim's ``accept`` labels and its end
    (a violation, ``never-end``) are marked on its counter."""
    out = []

    def mark(pc: str, labels, extra=()) -> None:
        for name, loc in labels:
            for kind in ("accept", "progress"):
                if name.startswith(kind):
                    out.append((pc, 0, loc, kind))
        out.extend((pc, 0, loc, kind) for loc, kind in extra)

    for inst in instances:
        g = inst.graph
        ends = () if claim is not None else tuple((loc, "end") for loc in sorted({0} | set(g.end_labels)))
        mark(tr.counter(inst).slot.name, g.labels, ends)
    if claim is not None:
        mark(CLAIM_PC, claim.labels, tuple((loc, "never-end") for loc in sorted({0} | set(claim.end_labels))))
    return tuple(dict.fromkeys(out))


#: Past this many parts, ``_wide_disj`` nests a disjunction as a balanced tree.
_CHAIN_LIMIT = 256


def _wide_disj(parts: list[Expr]) -> Expr:
    """``disj(*parts)``; with more than ``_CHAIN_LIMIT`` parts (timeout over thousands of
    handshakes between processes given channels at run time) a balanced tree, since a
    chain that deep overflows Python's recursion in every later pass over it."""
    if len(parts) <= _CHAIN_LIMIT:
        return disj(*parts)
    half = len(parts) // 2
    return disj(_wide_disj(parts[:half]), _wide_disj(parts[half:]))


def _named_channel_values(low: Lowering) -> list[ir.Variable]:
    """``low.variables`` with channel identities shown as the channels' names."""
    # a number that several channels may have (processes created at run time) stays unnamed
    named: dict[int, list[str]] = {}
    for ch in low.channels:
        for v in range(ch.ident, ch.ident + sum(c for _, c in ch.offset) + 1):
            if ch.may_be(v):
                named.setdefault(v, []).append(ch.prefix)
    idents = tuple((v, names[0]) for v, names in sorted(named.items()) if len(names) == 1)
    return [dataclasses.replace(v, value_names=idents) if v.name in low.chan_valued else v for v in low.variables]


def _cycle_properties(tr: Translator, instances, claim: Optional[Graph], before: tuple, non_progress: bool,
                      ltl_texts: tuple) -> tuple[ir.Assertion, ...]:
    """``before`` and the acceptance and non-progress properties the labels ask for: ``accept``
    labels of the claim and of the processes (pan's ``-a`` marks a state accepting when any
    process, the claim or another, is at an accept label: pan.c's ``accpstate`` loop over
    all ``_nr_pr`` processes), ``progress`` labels of the processes, then the ``ltl`` blocks
    not checked (``ltl_texts``: "not checked", so a run never reports them holding).  With
    ``non_progress``, only the claim ``:np_:``'s accepting location (pan.c's ``a_cycles``
    under ``-DNP``): its claim has no end, and the ltl blocks are not asked for."""
    if non_progress:
        return (ir.Assertion("acceptance", NP_ASSERTION, Binary("==", Name(CLAIM_PC), Const(2))),)
    accepting = []
    if claim is not None:
        accepting = [Binary("==", Name(CLAIM_PC), Const(loc)) for name, loc in claim.labels
                     if name.startswith("accept")]
    accepting += [tr.counter(i).at(loc) for i in instances for name, loc in i.graph.labels
                  if name.startswith("accept")]
    progress = any(name.startswith("progress") for i in instances for name, _ in i.graph.labels)
    return before + cycle_assertions(accepting, progress) + tuple(ir.Assertion("ltl", text) for text in ltl_texts)


def _processes(instances, variables) -> tuple[ir.Process, ...]:
    """One ``Process`` per instance (``index``: its place among its proctype's instances),
    owning the variables declared with it as owner."""
    out = []
    for inst in instances:
        index = sum(1 for other in instances if other.proctype == inst.proctype and other.pid < inst.pid)
        slots = tuple((v.name, k) for v in variables if v.owner == inst.owner for k in range(v.length))
        out.append(ir.Process(inst.owner, inst.proctype, index, inst.pid, slots))
    return tuple(out)


def _is_int(v: str) -> bool:
    try:
        int(v)
        return True
    except ValueError:
        return False
