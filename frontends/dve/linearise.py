"""DVE syntax tree -> ``SequentialModel`` with DiVinE's interleaving semantics.

Layout of the state (``detect.ir.state_slots``): top-level variables and buffered channels in
source order, then for every process its program counter ``P.state`` followed by its locals
``P.x`` (all with ``owner = P``).  ``P.state`` holds the index of P's current state in its
``state`` list.

One summand per transition of a process (``owners = (P,)``) and one per matching rendezvous
pair (``owners = (sender, receiver)``).  Summands of processes written from one template are
built identically: nothing but the source text distinguishes ``P_0`` from ``P_1``.

Semantics follow DiVinE's DVE compiler (the generator LTSmin and DiVinE share):

* guard: ``P.state == src`` then the ``guard`` expressions (and, for a buffered channel,
  "not full" / "not empty");
* rendezvous ``c!v`` / ``c?x``: receiver's and sender's guards, both in the pre-state; then
  ``x := v`` with ``v`` evaluated in the pre-state, the receiver's pc and effects, then the
  sender's pc and effects;
* buffered channels: a FIFO ``c.x0[..]``, ``c.x1[..]`` (one array per component type) with
  ``c.count``; sending appends, receiving takes element 0 and shifts the rest down, zeroing
  the vacated slot, so each queue content has exactly one representation;
* effects run left to right, each seeing the previous ones;
* committed states: when any process is in a committed state only transitions leaving a
  committed state may fire, and a rendezvous only when *both* parties are committed;
* ``byte`` is 0..255 and ``int`` -32768..32767: a write outside the type (and an index out
  of bounds) is a fault of the IR semantics, DiVinE's error state;
* ``system sync``: every step moves all processes at once, one transition each, effects in
  process order.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional, Union

from detect import ir
from detect.errors import InputError
from detect.ir.build import conj, disj, fold
from detect.ir.semantics import Fault, apply_binary, apply_unary

from frontends.dve.syntax import (
    Assignment, BinaryOp, ChannelDecl, Expr, Named, Num, ProcessDecl, Ref, SyncSpec,
    SystemDecl, TransitionDecl, UnaryOp, VarDecl,
)
from frontends.kit.lowering import FifoBuffer, ProgramCounter, simultaneous
from frontends.kit.bounds import state_slots_refusal

TYPE_DOMAINS: dict[str, tuple[int, int]] = {"byte": (0, 255), "int": (-32768, 32767)}

#: DVE's reserved words.  Lark's contextual lexer would accept some of them as names where
#: no keyword fits (``byte state;``), which would clash with the pc ``P.state``: refuse them.
KEYWORDS = frozenset(
    "byte int const channel process state init accept commit assert trans guard sync effect "
    "system async property imply and or not true false".split()
)

#: ``system sync`` builds one summand per tuple of transitions; refuse absurd products.
MAX_SYNC_SUMMANDS = 100_000
#: Largest array or channel buffer accepted (DiVinE's state vector would not hold more).
MAX_ARRAY_SIZE = 65_536


# ---------------------------------------------------------------------------- symbol tables


@dataclass(frozen=True)
class VarSymbol:
    """A state variable as DVE code sees it: ``ir_name`` is its name in the IR."""

    ir_name: str
    type: str
    size: Optional[int]


@dataclass(frozen=True)
class ConstSymbol:
    """A ``const`` (or a define): one value, or a tuple for a constant array."""

    type: str
    value: Union[int, tuple[int, ...]]


@dataclass(frozen=True)
class ChannelSymbol:
    name: str
    types: tuple[str, ...]
    capacity: int  # 0: rendezvous

    @property
    def buffer(self) -> FifoBuffer:
        """The state of a buffered channel: ``name.count`` and one array ``name.x<k>`` per field."""
        return FifoBuffer.named(self.name, len(self.types), self.capacity, length="count", field="x")


@dataclass(frozen=True)
class ProcessSymbol:
    name: str
    states: Mapping[str, int]
    symbols: Mapping[str, Union[VarSymbol, ConstSymbol]]
    commits: frozenset[int]

    @property
    def pc_name(self) -> str:
        return f"{self.name}.state"

    @property
    def counter(self) -> ProgramCounter:
        return ProgramCounter(ir.Name(self.pc_name))


@dataclass
class _Tables:
    """Everything declared, filled in one pass before any transition is translated."""

    path: str
    globals: dict[str, Union[VarSymbol, ConstSymbol]] = field(default_factory=dict)
    channels: dict[str, ChannelSymbol] = field(default_factory=dict)
    processes: dict[str, ProcessSymbol] = field(default_factory=dict)
    variables: list[ir.Variable] = field(default_factory=list)

    def error(self, message: str, node) -> InputError:
        return InputError(message, self.path, getattr(node, "line", 0), getattr(node, "column", 0))


# ---------------------------------------------------------------------------- constants


def _const_value(e: Expr, scope: Mapping[str, Union[VarSymbol, ConstSymbol]], tables: _Tables) -> int:
    """Value of a constant expression (array sizes, initialisers, ``const`` values)."""
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Ref):
        if e.process is not None:
            raise tables.error("expected a constant expression, found a reference to a process", e)
        sym = scope.get(e.name)
        if sym is None:
            raise tables.error(f"unknown identifier {e.name!r}", e)
        if not isinstance(sym, ConstSymbol):
            raise tables.error(f"expected a constant expression; {e.name!r} is a variable", e)
        if isinstance(sym.value, tuple):
            if e.index is None:
                raise tables.error(f"constant array {e.name!r} needs an index", e)
            k = _const_value(e.index, scope, tables)
            if not 0 <= k < len(sym.value):
                raise tables.error(f"index {k} out of bounds for {e.name}[{len(sym.value)}]", e)
            return sym.value[k]
        if e.index is not None:
            raise tables.error(f"{e.name!r} is not an array", e)
        return sym.value
    try:
        if isinstance(e, UnaryOp):
            a = _const_value(e.operand, scope, tables)
            if e.op == "~":
                return -a - 1
            return apply_unary("!" if e.op == "not" else e.op, a) if e.op != "+" else a
        if isinstance(e, BinaryOp):
            a = _const_value(e.left, scope, tables)
            b = _const_value(e.right, scope, tables)
            if e.op == "imply":
                return int((not a) or bool(b))
            return apply_binary(_IR_BINARY.get(e.op, e.op), a, b)
    except Fault as fault:
        raise tables.error(f"constant expression: {fault}", e) from None
    raise tables.error("expected a constant expression", e)


_IR_BINARY = {"and": "&&", "or": "||"}


def _check_not_keyword(name: str, node, tables: _Tables) -> None:
    if name in KEYWORDS:
        raise tables.error(f"{name!r} is a reserved word; expected a name", node)


def _check_in_type(value: int, type_name: str, what: str, node, tables: _Tables) -> int:
    lo, hi = TYPE_DOMAINS[type_name]
    if not lo <= value <= hi:
        raise tables.error(f"{what}: value {value} outside {type_name} ({lo}..{hi})", node)
    return value


def _declare_vars(
    decls: tuple[VarDecl, ...],
    scope: dict[str, Union[VarSymbol, ConstSymbol]],
    lookup: Mapping[str, Union[VarSymbol, ConstSymbol]],
    prefix: str,
    owner: Optional[str],
    defines: Mapping[str, int],
    tables: _Tables,
) -> None:
    """Add ``decls`` to ``scope`` (and variables to ``tables.variables``).

    ``lookup`` is what constant expressions may refer to (``scope`` chained over outer scopes).
    """
    for d in decls:
        _check_not_keyword(d.name, d, tables)
        if d.name in scope:
            raise tables.error(f"{d.name!r} declared twice", d)
        size = None
        if d.size is not None:
            size = _const_value(d.size, lookup, tables)
            if not 1 <= size <= MAX_ARRAY_SIZE:
                raise tables.error(
                    f"array {d.name!r} has size {size}; expected 1..{MAX_ARRAY_SIZE}", d.size
                )
        length = 1 if size is None else size
        if not d.is_const:
            _check_state_slots(length, d.name, d.size or d, tables)
        if d.init is None:
            values = [0] * length
        else:
            if size is None and d.init_is_list:
                raise tables.error(f"{d.name!r} is not an array but has a brace initialiser", d)
            if size is not None and not d.init_is_list:
                raise tables.error(f"array {d.name!r} needs a brace initialiser {{...}}", d)
            if len(d.init) > length:
                raise tables.error(
                    f"{len(d.init)} initial values for {d.name}[{length}]", d.init[length]
                )
            values = [_const_value(e, lookup, tables) for e in d.init]
            values += [0] * (length - len(values))  # DiVinE pads short initialisers with 0
        if d.is_const and prefix == "" and d.name in defines:
            values = [defines[d.name]] * length if size is None else values
        for v, node in zip(values, d.init or [d] * length):
            _check_in_type(v, d.type, f"initial value of {d.name!r}", node, tables)
        if d.is_const:
            value = values[0] if size is None else tuple(values)
            scope[d.name] = ConstSymbol(d.type, value)
            if isinstance(lookup, _ChainedScope):
                lookup.refresh()
            continue
        ir_name = prefix + d.name
        scope[d.name] = VarSymbol(ir_name, d.type, size)
        if isinstance(lookup, _ChainedScope):
            lookup.refresh()
        lo, hi = TYPE_DOMAINS[d.type]
        tables.variables.append(
            ir.Variable(
                name=ir_name,
                domain=tuple(range(lo, hi + 1)),
                init=tuple((v,) for v in values),
                size=size,
                owner=owner,
            )
        )


def _check_state_slots(adding: int, name: str, node, tables: _Tables) -> None:
    """Refuse, at ``node``, a declaration taking the state vector past the kit's slot bound:
    the automorphism search and exploration work per slot and would run for hours first."""
    refusal = state_slots_refusal(sum(v.length for v in tables.variables), adding, name)
    if refusal is not None:
        raise tables.error(refusal, node)


class _ChainedScope(dict):
    """A read-only view of an inner scope over an outer one (inner names win)."""

    def __init__(self, inner: dict, outer: Mapping):
        super().__init__()
        self._inner, self._outer = inner, outer
        self.refresh()

    def refresh(self) -> None:
        self.clear()
        self.update(self._outer)
        self.update(self._inner)


# ---------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class _Context:
    """Where an expression is translated: inside process ``process`` (or at top level)."""

    tables: _Tables
    process: Optional[ProcessSymbol]

    def lookup(self, name: str):
        if self.process is not None and name in self.process.symbols:
            return self.process.symbols[name]
        return self.tables.globals.get(name)


def translate_expr(e: Expr, ctx: _Context) -> ir.Expr:
    """DVE expression -> IR expression; unknown names are ``InputError``s at their position."""
    tables = ctx.tables
    if isinstance(e, Num):
        return ir.Const(e.value)
    if isinstance(e, Ref):
        return _translate_ref(e, ctx)
    if isinstance(e, UnaryOp):
        a = translate_expr(e.operand, ctx)
        if e.op == "not":
            return fold(ir.Unary("!", a))
        if e.op == "-":
            return fold(ir.Unary("-", a))
        if e.op == "+":
            return a
        if e.op == "~":  # two's complement: ~a == -a - 1
            return fold(ir.Binary("-", fold(ir.Unary("-", a)), ir.Const(1)))
        raise tables.error(f"unknown operator {e.op!r}", e)
    if isinstance(e, BinaryOp):
        a = translate_expr(e.left, ctx)
        b = translate_expr(e.right, ctx)
        if e.op == "imply":
            return fold(ir.Binary("||", fold(ir.Unary("!", a)), b))
        op = _IR_BINARY.get(e.op, e.op)
        if op not in ir.BINARY_OPS:
            raise tables.error(f"unknown operator {e.op!r}", e)
        return fold(ir.Binary(op, a, b))
    raise tables.error("expected an expression", e)


def _translate_ref(e: Ref, ctx: _Context) -> ir.Expr:
    tables = ctx.tables
    if e.process is not None:
        proc = tables.processes.get(e.process)
        if proc is None:
            raise tables.error(f"unknown process {e.process!r}", e)
        if e.dotted and e.index is None and e.name in proc.states:
            return proc.counter.at(proc.states[e.name])
        sym = proc.symbols.get(e.name)
        if sym is None:
            what = "state or variable" if e.dotted else "variable"
            raise tables.error(f"process {e.process!r} has no {what} {e.name!r}", e)
        return _symbol_value(sym, e, ctx)
    sym = ctx.lookup(e.name)
    if sym is None:
        if e.name in tables.channels:
            raise tables.error(f"channel {e.name!r} used as a value", e)
        if e.name in tables.processes:
            raise tables.error(f"process {e.name!r} used as a value; expected {e.name}.state", e)
        raise tables.error(f"unknown identifier {e.name!r}", e)
    return _symbol_value(sym, e, ctx)


def _symbol_value(sym, e: Ref, ctx: _Context) -> ir.Expr:
    tables = ctx.tables
    if isinstance(sym, ConstSymbol):
        if not isinstance(sym.value, tuple):
            if e.index is not None:
                raise tables.error(f"{e.name!r} is not an array", e)
            return ir.Const(sym.value)
        if e.index is None:
            raise tables.error(f"constant array {e.name!r} needs an index", e)
        index = translate_expr(e.index, ctx)
        if isinstance(index, ir.Const):
            if not 0 <= index.value < len(sym.value):
                raise tables.error(
                    f"index {index.value} out of bounds for {e.name}[{len(sym.value)}]", e.index
                )
            return ir.Const(sym.value[index.value])
        # A table lookup by a run-time index; past the end it divides by zero so that the
        # IR reports a fault, as DiVinE reports an out-of-bounds read.
        result: ir.Expr = ir.Binary("/", ir.Const(1), ir.Const(0))
        for k in reversed(range(len(sym.value))):
            result = ir.Ite(ir.Binary("==", index, ir.Const(k)), ir.Const(sym.value[k]), result)
        return result
    if sym.size is None:
        if e.index is not None:
            raise tables.error(f"{e.name!r} is not an array", e)
        return ir.Name(sym.ir_name)
    if e.index is None:
        raise tables.error(f"array {e.name!r} needs an index", e)
    return ir.Index(sym.ir_name, translate_expr(e.index, ctx))


def translate_target(target: Ref, ctx: _Context) -> Union[ir.Name, ir.Index]:
    """An assignment or receive target: a variable, never a constant."""
    tables = ctx.tables
    sym = ctx.lookup(target.name)
    if sym is None:
        raise tables.error(f"unknown variable {target.name!r}", target)
    if isinstance(sym, ConstSymbol):
        raise tables.error(f"cannot assign to constant {target.name!r}", target)
    value = _symbol_value(sym, target, ctx)
    assert isinstance(value, (ir.Name, ir.Index))
    return value


# ---------------------------------------------------------------------------- declarations


def _declare(system: SystemDecl, path: str, defines: Mapping[str, int]) -> tuple[_Tables, list[ProcessDecl]]:
    tables = _Tables(path)
    consts = {item.name for item in system.items if isinstance(item, VarDecl) and item.is_const}
    arrays = {item.name for item in system.items if isinstance(item, VarDecl) and item.is_const
              and item.size is not None}
    for name in defines:
        if name not in consts:
            known = ", ".join(sorted(consts)) or "none"
            raise InputError(f"-D {name}: the model has no global 'const {name}'; its constants are: {known}", path)
        if name in arrays:
            raise InputError(f"-D {name}: 'const {name}' is an array; -D sets scalar constants only", path)
    for name, value in defines.items():
        tables.globals[name] = ConstSymbol("int", int(value))
    defined = frozenset(defines)
    processes: list[ProcessDecl] = []
    for item in system.items:
        if isinstance(item, VarDecl):
            if item.name in tables.globals and not (item.is_const and item.name in defined):
                raise tables.error(f"{item.name!r} declared twice", item)
            if item.name in tables.channels or item.name in tables.processes:
                raise tables.error(f"{item.name!r} declared twice", item)
            if item.is_const and item.name in defined:
                tables.globals.pop(item.name)  # the define overrides the declared value
            _declare_vars((item,), tables.globals, tables.globals, "", None, defines, tables)
        elif isinstance(item, ChannelDecl):
            _check_not_keyword(item.name, item, tables)
            if item.name in tables.globals or item.name in tables.channels or item.name in tables.processes:
                raise tables.error(f"{item.name!r} declared twice", item)
            capacity = 0 if item.size is None else _const_value(item.size, tables.globals, tables)
            if not 0 <= capacity <= MAX_ARRAY_SIZE:
                raise tables.error(
                    f"channel {item.name!r} has size {capacity}; expected 0..{MAX_ARRAY_SIZE}",
                    item.size,
                )
            # a buffer is its length plus one array per message field
            _check_state_slots(1 + capacity * len(item.types) if capacity else 0, item.name, item.size or item, tables)
            chan = ChannelSymbol(item.name, item.types, capacity)
            tables.channels[item.name] = chan
            if capacity > 0:
                tables.variables.append(chan.buffer.length_variable())
                for k, type_name in enumerate(item.types):
                    lo, hi = TYPE_DOMAINS[type_name]
                    tables.variables.append(chan.buffer.field_variable(k, tuple(range(lo, hi + 1))))
        else:
            _check_not_keyword(item.name, item, tables)
            if item.name in tables.globals or item.name in tables.channels or item.name in tables.processes:
                raise tables.error(f"{item.name!r} declared twice", item)
            tables.processes[item.name] = _declare_process(item, tables, defines)
            processes.append(item)
    return tables, processes


def _declare_process(p: ProcessDecl, tables: _Tables, defines: Mapping[str, int]) -> ProcessSymbol:
    states: dict[str, int] = {}
    for s in p.states:
        _check_not_keyword(s.name, s, tables)
        if s.name in states:
            raise tables.error(f"state {s.name!r} declared twice in process {p.name!r}", s)
        states[s.name] = len(states)

    def state_index(named: Named) -> int:
        if named.name not in states:
            raise tables.error(f"process {p.name!r} has no state {named.name!r}", named)
        return states[named.name]

    init = state_index(p.init)
    for named in p.accepts:
        state_index(named)
    commits = frozenset(state_index(named) for named in p.commits)
    pc = ir.Variable(f"{p.name}.state", tuple(range(len(states))), ((init,),), owner=p.name,
                     value_names=tuple((index, name) for name, index in states.items()))
    tables.variables.append(pc)
    local: dict[str, Union[VarSymbol, ConstSymbol]] = {}
    _declare_vars(p.decls, local, _ChainedScope(local, tables.globals), f"{p.name}.", p.name, {}, tables)
    return ProcessSymbol(p.name, states, local, commits)


# ---------------------------------------------------------------------------- transitions


@dataclass(frozen=True)
class _Part:
    """One process's share of a summand: its guard conjuncts and its statements."""

    guard: tuple[ir.Expr, ...]
    program: tuple[ir.Stmt, ...]


def _transition_part(
    proc: ProcessSymbol, t: TransitionDecl, tables: _Tables,
    pre: tuple[ir.Stmt, ...] = (),
) -> _Part:
    """Guard and program of ``t``; ``pre`` runs before the pc update (channel operations)."""
    ctx = _Context(tables, proc)
    src = _state_index(proc, t.source, tables)
    dst = _state_index(proc, t.target, tables)
    guard = [proc.counter.at(src)]
    guard += [translate_expr(g, ctx) for g in t.guards]
    program: list[ir.Stmt] = list(pre)
    program.append(proc.counter.goto(dst))
    for a in t.effects:
        program.append(ir.Assign(translate_target(a.target, ctx), translate_expr(a.value, ctx)))
    return _Part(tuple(guard), tuple(program))


def _state_index(proc: ProcessSymbol, named: Named, tables: _Tables) -> int:
    if named.name not in proc.states:
        raise tables.error(f"process {proc.name!r} has no state {named.name!r}", named)
    return proc.states[named.name]


def _committed(tables: _Tables) -> ir.Expr:
    """True iff some process is in a committed state."""
    return disj(*[
        p.counter.at(c)
        for p in tables.processes.values()
        for c in sorted(p.commits)
    ])


def _buffered_ops(chan: ChannelSymbol, sync: SyncSpec, ctx: _Context) -> tuple[list[ir.Expr], list[ir.Stmt]]:
    """Guard conjuncts and statements of a send to / receive from a buffered channel."""
    tables = ctx.tables
    if len(sync.items) != len(chan.types):
        raise tables.error(
            f"channel {chan.name!r} carries {len(chan.types)} value(s); "
            f"this {'send' if sync.send else 'receive'} has {len(sync.items)}",
            sync,
        )
    fifo = chan.buffer
    if sync.send:
        return [fifo.not_full()], list(fifo.enqueue([translate_expr(v, ctx) for v in sync.items]))
    stmts: list[ir.Stmt] = []
    for k, target in enumerate(sync.items):
        if not isinstance(target, Ref) or target.process is not None:
            raise tables.error("expected a variable to receive into", target)
        stmts.append(ir.Assign(translate_target(target, ctx), fifo.head(k)))
    return [fifo.not_empty()], stmts + list(fifo.dequeue(length_first=True))


def _origin(tables: _Tables, *transitions: TransitionDecl) -> ir.Origin:
    path = tables.path or "<input>"
    return ir.Origin(tuple(ir.SourceLocation(tables.path, t.line, t.column, f"{path}:{t.line}")
                           for t in transitions), " & ")


def _async_summands(processes: list[ProcessDecl], tables: _Tables) -> list[ir.Summand]:
    any_commits = any(p.commits for p in tables.processes.values())
    not_committed = ir.Unary("!", _committed(tables)) if any_commits else None
    summands: list[ir.Summand] = []
    senders: dict[str, list[tuple[ProcessSymbol, TransitionDecl]]] = {}
    receivers: dict[str, list[tuple[ProcessSymbol, TransitionDecl]]] = {}
    for decl in processes:
        proc = tables.processes[decl.name]
        ctx = _Context(tables, proc)
        for t in decl.transitions:
            src = _state_index(proc, t.source, tables)
            _state_index(proc, t.target, tables)
            extra_guard: list[ir.Expr] = []
            pre: list[ir.Stmt] = []
            event = ir.Event(f"{t.source.name}->{t.target.name}")
            if t.sync is not None:
                chan = tables.channels.get(t.sync.channel)
                if chan is None:
                    raise tables.error(f"unknown channel {t.sync.channel!r}", t.sync)
                if chan.capacity == 0:
                    # Translate now so that errors surface even if no partner ever matches.
                    _transition_part(proc, t, tables)
                    if not t.sync.send:
                        for target in t.sync.items:
                            if not isinstance(target, Ref) or target.process is not None:
                                raise tables.error("expected a variable to receive into", target)
                            translate_target(target, ctx)
                    else:
                        for value in t.sync.items:
                            translate_expr(value, ctx)
                    (senders if t.sync.send else receivers).setdefault(chan.name, []).append((proc, t))
                    continue
                extra_guard, pre = _buffered_ops(chan, t.sync, ctx)
                event = ir.Event(f"{chan.name}{'!' if t.sync.send else '?'}")
            part = _transition_part(proc, t, tables, tuple(pre))
            guard = list(part.guard) + extra_guard
            if not_committed is not None and src not in proc.commits:
                guard.append(not_committed)
            summands.append(ir.Summand(
                (), conj(*guard), event, part.program, _origin(tables, t), (proc.name,),
            ))
    summands += _rendezvous_summands(senders, receivers, not_committed, tables)
    return summands


def _rendezvous_summands(senders, receivers, not_committed, tables: _Tables) -> list[ir.Summand]:
    summands: list[ir.Summand] = []
    for chan_name, sends in senders.items():
        for sender, st in sends:
            for receiver, rt in receivers.get(chan_name, []):
                if receiver.name == sender.name:
                    continue  # a process cannot synchronise with itself
                if len(st.sync.items) != len(rt.sync.items):
                    raise tables.error(
                        f"channel {chan_name!r}: the send at line {st.sync.line} has "
                        f"{len(st.sync.items)} value(s) but this receive takes {len(rt.sync.items)}",
                        rt.sync,
                    )
                s_committed = _state_index(sender, st.source, tables) in sender.commits
                r_committed = _state_index(receiver, rt.source, tables) in receiver.commits
                if s_committed != r_committed:
                    # One party committed means the system is in committed mode, where a
                    # rendezvous needs both parties committed: it can never fire.
                    continue
                s_ctx, r_ctx = _Context(tables, sender), _Context(tables, receiver)
                values = [translate_expr(v, s_ctx) for v in st.sync.items]
                targets = []
                for target in rt.sync.items:
                    if not isinstance(target, Ref) or target.process is not None:
                        raise tables.error("expected a variable to receive into", target)
                    targets.append(translate_target(target, r_ctx))
                transfer = simultaneous(list(zip(targets, values)), lambda k: f"{chan_name}.v{k}")
                r_part = _transition_part(receiver, rt, tables, transfer)
                s_part = _transition_part(sender, st, tables)
                guard = list(r_part.guard) + list(s_part.guard)
                if not_committed is not None and not s_committed:
                    guard.append(not_committed)
                summands.append(ir.Summand(
                    (), conj(*guard), ir.Event(chan_name, tuple(values)),
                    r_part.program + s_part.program, _origin(tables, st, rt),
                    (sender.name, receiver.name),
                ))
    return summands


def _sync_system_summands(processes: list[ProcessDecl], tables: _Tables) -> list[ir.Summand]:
    for decl in processes:
        if decl.commits:
            raise tables.error("committed states are not supported in 'system sync'", decl.commits[0])
        for t in decl.transitions:
            if t.sync is not None:
                raise tables.error("channel synchronisation is not supported in 'system sync'", t.sync)
    parts_per_process = []
    total = 1
    for decl in processes:
        proc = tables.processes[decl.name]
        parts_per_process.append([(t, _transition_part(proc, t, tables)) for t in decl.transitions])
        total *= len(decl.transitions)
    if total > MAX_SYNC_SUMMANDS:
        raise tables.error(
            f"'system sync' needs {total} combined transitions; at most {MAX_SYNC_SUMMANDS} are supported",
            processes[0] if processes else None,
        )
    summands = []
    owners = tuple(p.name for p in processes)
    for combo in itertools.product(*parts_per_process):
        guard = [g for _, part in combo for g in part.guard]
        program = tuple(st for _, part in combo for st in part.program)
        summands.append(ir.Summand(
            (), conj(*guard), ir.Event("step"), program,
            _origin(tables, *(t for t, _ in combo)), owners,
        ))
    return summands


def _assertions(processes: list[ProcessDecl], tables: _Tables) -> list[ir.Assertion]:
    result = []
    for decl in processes:
        proc = tables.processes[decl.name]
        for a in decl.asserts:
            idx = _state_index(proc, a.state, tables)
            cond = translate_expr(a.condition, _Context(tables, proc))
            in_state = ir.Binary("!=", ir.Name(proc.pc_name), ir.Const(idx))
            result.append(ir.Assertion("invariant", f"{decl.name}: {a.text}", ir.Binary("||", in_state, cond)))
    return result


# ---------------------------------------------------------------------------- entry point


def _processes(processes: list[ProcessDecl], tables: _Tables) -> tuple[ir.Process, ...]:
    """One ``Process`` per declared process, owning its pc and locals.  DVE has no pids, but
    BEEM's generated models write a template's copies as ``P_0``, ``P_1``, ... and their code
    refers to the copies by that number (``flag[2]`` is ``P_2``'s), so a name's trailing
    number is the number the model uses for the process."""
    out = []
    for decl in processes:
        number = re.search(r"(\d+)\D*$", decl.name)
        slots = tuple((v.name, k) for v in tables.variables if v.owner == decl.name for k in range(v.length))
        out.append(ir.Process(decl.name, decl.name, 0, int(number.group(1)) if number else None, slots))
    return tuple(out)


def linearise(
    system: SystemDecl, path: str = "", defines: Optional[Mapping[str, int]] = None
) -> ir.SequentialModel:
    """The ``SequentialModel`` of a parsed DVE system (type domains not yet narrowed)."""
    defines = dict(defines or {})
    tables, processes = _declare(system, path, defines)
    if system.property is not None:
        raise tables.error(
            "property processes (Büchi automata for LTL) are not supported; "
            "remove 'property' from the system line", system.property,
        )
    if not processes:
        raise tables.error("expected at least one process", system)
    if system.synchronous:
        summands = _sync_system_summands(processes, tables)
    else:
        summands = _async_summands(processes, tables)
    name = Path(path).name if path else "dve"
    if name.endswith(".dve"):
        name = name[: -len(".dve")]
    model = ir.SequentialModel(
        name=name,
        variables=tuple(tables.variables),
        summands=tuple(summands),
        assertions=tuple(_assertions(processes, tables)),
        parameters=tuple(sorted(defines.items())),
        source=path,
        processes=_processes(processes, tables),
    )
    ir.validate(model)
    return model
