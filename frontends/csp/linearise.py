"""Linearisation of a CSP# system into a ``SequentialModel`` (seed 002, section IV-A).

Pipeline:

1. ``_flatten`` unfolds the system process into a tree of ``|||``/``||`` nodes whose leaves
   are *components*: sequential processes.  An indexed ``|||x:{a..b}@P(..)`` whose body is
   sequential stays ONE leaf with a ``Local`` x (a family); ``||``-indexed families are
   instantiated concretely (their synchronisation needs concrete alphabets).
2. For every component, process parameters are classified (``_classify``): a parameter that
   always holds the same expression over the component's identity is *static* (substituted);
   one that changes along a recursion is *stored* in a per-instance global.
3. ``_Automaton`` explores the control locations of a component symbolically: a location is a
   normalised process term (syntax node + bindings of its free names).  A component with more
   than one location gets a program-counter element ``pc_<Group>[slot]``.
4. ``_combine`` builds joint summands for ``||`` synchronisation (shared event with equal
   arguments), synchronous channel hand-shakes, buffered channel operations and ``atomic``.

Deliberate simplifications (documented in the report): a tau step does not resolve ``[]``
any differently from a visible event (the first step of either branch resolves the choice);
a process inside ``atomic`` blocks all others until it leaves the atomic block, even when it
is itself blocked; ``Skip; Q`` continues with ``Q`` without a separate step.
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from typing import Mapping, Optional, Union

from detect.errors import InputError
from detect.ir import (
    Assert, Assertion, Assign, Binary, Const, DomainFacts, Event, Expr, If, Index, Ite, Local, Name, Origin,
    Placeholder, Process, SequentialModel, Stmt, Summand, ToolBound, Unary, Unranged, Variable, While,
)
from detect.ir.build import simplify
from detect.ir.walk import map_expr, map_program

from frontends.csp.ltl import temporal_property
from frontends.csp.scope import ConstArray, Scope, conj
from frontends.csp.syntax import (
    AlphaRange, ArrayLit, Bin, Cond, EventItem, FCall, Ident, Num, PAtomic, PBinary, PCall, PGuard, PHide, PIf,
    PIndexed, PlainEvent, PPrefix, Proc, ProcDef, PSkip, PStop, Quant, RecvEvent, SAssign, SCall,
    SendEvent, SExpr, SIf, SLocal, SLocalArray, Subscript, SWhile, Un,
)
from frontends.kit import Span
from frontends.kit.lowering import ExclusiveOwner, FifoBuffer, ProgramCounter, latch, simultaneous

TAU = "τ"
#: Bounds on the control structure of one component: beyond them recursion is not tail
#: recursion (the process term grows without bound).
MAX_LOCATIONS = 20_000
MAX_TERM_DEPTH = 40
MAX_UNFOLD = 200
#: Placeholder for "no value" of a dead stored value or an empty buffer slot.  Narrowing
#: replaces it by one less than the smallest value those globals can really hold, so that it
#: never coincides with a process id or a data value (a fixed 0 would single out process 0 and
#: break the symmetry between processes): the model's ``ir.Placeholder``.
NONE = -(2 ** 40) - 7
#: Prefix of the placeholders for received values in a receive's matching condition.
RECEIVED = "_recv"

# ============================================================================ substitution


def subst(e: Expr, m: Mapping[str, Expr]) -> Expr:
    """Replace ``Name``s (locals, temporaries) by expressions, folding constants."""
    return map_expr(e, lambda x: m.get(x.name) if isinstance(x, Name) else None, simplify)


def subst_stmts(stmts: tuple[Stmt, ...], m: Mapping[str, Expr]) -> tuple[Stmt, ...]:
    return map_program(stmts, lambda x: m.get(x.name) if isinstance(x, Name) else None, simplify)


# ============================================================================ free names


def sexpr_names(e: SExpr) -> set[str]:
    if isinstance(e, Num):
        return set()
    if isinstance(e, Ident):
        return {e.name}
    if isinstance(e, Subscript):
        return {e.name}.union(*(sexpr_names(i) for i in e.indices))
    if isinstance(e, Un):
        return sexpr_names(e.operand)
    if isinstance(e, Bin):
        return sexpr_names(e.left) | sexpr_names(e.right)
    if isinstance(e, Cond):
        return sexpr_names(e.cond) | sexpr_names(e.then) | sexpr_names(e.else_)
    if isinstance(e, Quant):
        return sexpr_names(e.lo) | sexpr_names(e.hi) | (sexpr_names(e.body) - {e.var})
    if isinstance(e, FCall):
        return set().union(*(sexpr_names(a) for a in e.args))
    if isinstance(e, ArrayLit):
        return set().union(*(sexpr_names(a) for a in e.values))
    raise TypeError(e)


def _stmt_names(stmts) -> set[str]:
    out: set[str] = set()
    for st in stmts:
        if isinstance(st, SAssign):
            out |= sexpr_names(st.target) | sexpr_names(st.value)
        elif isinstance(st, SLocal):
            out |= sexpr_names(st.value)
        elif isinstance(st, SLocalArray):
            out |= set().union(*(sexpr_names(v) for v in st.values))
        elif isinstance(st, SIf):
            out |= sexpr_names(st.cond) | _stmt_names(st.then) | _stmt_names(st.else_)
        elif isinstance(st, SWhile):
            out |= sexpr_names(st.cond) | _stmt_names(st.body)
        elif isinstance(st, SCall):
            out |= sexpr_names(st.call)
    return out


def free_names(p: Proc, cache: dict) -> frozenset:
    """Names a process term reads (over-approximation: globals are included too).

    Syntax nodes are immutable, so the cache keyed by identity (nodes are kept alive by the
    script) is safe; it makes location keys cheap to build.
    """
    key = id(p)
    hit = cache.get(key)
    if hit is not None and hit[0] is p:
        return hit[1]
    if isinstance(p, (PSkip, PStop)):
        names: set = set()
    elif isinstance(p, PCall):
        names = set().union(*(sexpr_names(a) for a in p.args))
    elif isinstance(p, PPrefix):
        ev = p.event
        index = sexpr_names(ev.index) if getattr(ev, "index", None) is not None else set()
        if isinstance(ev, RecvEvent):
            matched = set().union(*(sexpr_names(a) for a in ev.items if not isinstance(a, Ident)))
            guard = sexpr_names(ev.guard) if ev.guard is not None else set()
            inner = (_stmt_names(ev.program) | free_names(p.then, cache) | guard) - set(ev.names)
            names = inner | matched | index
        else:
            names = (set().union(*(sexpr_names(a) for a in ev.args)) | _stmt_names(ev.program)
                     | free_names(p.then, cache) | index)
    elif isinstance(p, PGuard):
        names = sexpr_names(p.cond) | free_names(p.proc, cache)
    elif isinstance(p, PBinary):
        names = free_names(p.left, cache) | free_names(p.right, cache)
    elif isinstance(p, PIf):
        names = sexpr_names(p.cond) | free_names(p.then, cache) | (free_names(p.else_, cache) if p.else_ else set())
    elif isinstance(p, PAtomic):
        names = set(free_names(p.proc, cache))
    elif isinstance(p, PIndexed):
        names = sexpr_names(p.lo) | sexpr_names(p.hi) | (free_names(p.body, cache) - {p.var})
    elif isinstance(p, PHide):
        names = set(free_names(p.proc, cache))
    else:
        raise TypeError(p)
    result = frozenset(names)
    cache[key] = (p, result)
    return result


# ============================================================================ components


@dataclass(frozen=True)
class Component:
    """A sequential process running in parallel with the others.

    ``entry`` is the process term it starts as, with ``env`` binding its free names (to
    constants, or to the family local).  ``group`` names the arrays (pc, stored parameters)
    its per-instance state lives in; ``slot`` is its index in them (``offset + x - lo`` for a
    family).  ``owner`` is the instance's name (``None`` for a family).
    """

    group: str
    entry: Proc
    env: tuple[tuple[str, Expr], ...]
    local: Optional[Local]
    lo: int
    offset: int
    owner: Optional[str]
    pos: Span
    after: tuple[int, ...] = ()         # components that must be at Skip before this one starts
    alphabet: Optional[frozenset] = None  # declared #alphabet: (name, argument values) pairs
    spawned: Optional[str] = None       # a pool of slots for this process, spawned by '|||' (see ``Linearisation``)

    @property
    def count(self) -> int:
        return len(self.local.domain) if self.local else 1

    def slot(self) -> Expr:
        if self.local is None:
            return Const(self.offset)
        return simplify(Binary("+", simplify(Binary("-", Name(self.local.name), Const(self.lo))), Const(self.offset)))


@dataclass(frozen=True)
class Tree:
    """``op`` is ``|||`` or ``||``; ``children`` are ``Tree``s or component indices."""

    op: str
    children: tuple[Union["Tree", int], ...]
    hidden: tuple[EventItem, ...] = ()  # events relabelled τ after this node is combined


class _Flattener:
    """Unfold the system process into a ``Tree`` of components."""

    def __init__(self, scope: Scope):
        self.scope = scope
        self.components: list[dict] = []

    def error(self, msg, pos):
        return self.scope.error(msg, pos)

    def is_parallel(self, p: Proc, env: Mapping[str, Expr], seen: frozenset = frozenset()) -> bool:
        if isinstance(p, PBinary) and p.op in ("|||", "||"):
            return True
        if isinstance(p, PHide):
            return True  # flattened to a node that relabels its events
        if isinstance(p, PBinary) and p.op == ";" and self.is_parallel(p.right, env, seen):
            return True  # ``Init(); (P || Q)``: see ``flatten``
        if isinstance(p, PIndexed) and p.op in ("|||", "||"):
            return True
        if isinstance(p, PCall) and p.name in self.scope.processes and p.name not in seen:
            return self.is_parallel(self.scope.processes[p.name].body, env, seen | {p.name})
        return False

    def bind_call(self, p: PCall, env: Mapping[str, Expr]) -> tuple[ProcDef, dict]:
        d = _called_process(self.scope, p)
        return d, {name: self.scope.arg(a, env) for name, a in zip(d.params, p.args)}

    def flatten(self, p: Proc, env: Mapping[str, Expr], locals_: tuple, depth: int = 0) -> Union[Tree, int]:
        if depth > MAX_UNFOLD:
            raise self.error("parallel composition is defined recursively (unbounded number of processes)", p.pos)
        if isinstance(p, PHide):
            # Hiding: the node's events (after its own synchronisation) are relabelled τ.
            inner = self.flatten(p.proc, env, locals_, depth + 1)
            return Tree("|||", (inner,), p.events)
        if isinstance(p, PBinary) and p.op == ";" and self.is_parallel(p.right, env):
            # ``Init(); (P || Q)``: Init is a component of its own, and every component of
            # the parallel part starts only once Init is at Skip.  Init's terminated state
            # stands for its absence, so the LTS is PAT's (Skip; Q goes on without a step).
            if self.is_parallel(p.left, env) or locals_:
                raise self.error("sequential composition after a parallel composition "
                                 "('(P || Q); R', or inside a family) is not supported", p.pos)
            first = self.flatten(p.left, env, locals_, depth + 1)
            start = len(self.components)
            rest = self.flatten(p.right, env, locals_, depth + 1)
            for c in self.components[start:]:
                c["after"] = c.get("after", ()) + (first,)
            return Tree("|||", (first, rest))
        if isinstance(p, PCall) and self.is_parallel(p, env):
            d, args = self.bind_call(p, env)
            return self.flatten(d.body, args, locals_, depth + 1)
        if isinstance(p, PBinary) and p.op in ("|||", "||"):
            parts = []
            for side in (p.left, p.right):
                sub = self.flatten(side, env, locals_, depth + 1)
                if isinstance(sub, Tree) and sub.op == p.op:
                    parts.extend(sub.children)  # both operators are associative
                else:
                    parts.append(sub)
            return Tree(p.op, tuple(parts))
        if isinstance(p, PIndexed) and p.op in ("|||", "||"):
            values = self.scope.index_range(p, env)
            lo, hi = values.start, values.stop - 1
            if hi < lo:
                raise self.error(f"empty range {{{lo}..{hi}}}", p.pos)
            body_env = dict(env)
            if p.op == "|||" and not locals_ and self.family_ok(p.body, {**env, p.var: Name(p.var)}):
                # One set of summands with a local for the whole family (seed 002, Figure 3).
                local = Local(p.var, tuple(range(lo, hi + 1)))
                body_env[p.var] = Name(p.var)
                return self.flatten(p.body, body_env, (local,), depth + 1)
            parts = []
            for v in range(lo, hi + 1):
                body_env[p.var] = Const(v)
                parts.append(self.flatten(p.body, dict(body_env), locals_, depth + 1))
            flat = []
            for sub in parts:
                if isinstance(sub, Tree) and sub.op == p.op:
                    flat.extend(sub.children)
                else:
                    flat.append(sub)
            return Tree(p.op, tuple(flat))
        # A sequential leaf.
        if isinstance(p, PCall):
            self.bind_call(p, env)  # checks the process exists and the arity
            group = p.name
            args = ", ".join(_show(self.scope.arg(a, env)) for a in p.args)
            owner = f"{p.name}({args})" if p.args else p.name
        else:
            group = f"Proc{p.pos.line}_{p.pos.column}"
            owner = group
        local = locals_[0] if locals_ else None
        self.components.append(dict(group=group, entry=p, env=tuple(sorted(env.items(), key=lambda kv: kv[0])),
                                    local=local, owner=None if local else owner, pos=p.pos,
                                    alphabet=self.alphabet(p, env)))
        return len(self.components) - 1

    def alphabet(self, p: Proc, env: Mapping[str, Expr]) -> Optional[frozenset]:
        """The ``#alphabet`` declared for the process ``p`` calls, as concrete events
        ``(name, argument values)``; ``None`` when none is declared (then a process
        synchronises on the events it can perform)."""
        if not isinstance(p, PCall):
            return None
        decls = [a for a in self.scope.alphabets if a.process == p.name]
        if not decls:
            return None
        _, args = self.bind_call(p, env)
        events: set = set()

        def add(item, bindings):
            if isinstance(item, AlphaRange):
                for v in self.scope.index_range(item, bindings):
                    add(item.item, {**bindings, item.var: Const(v)})
                return
            values = tuple(self.scope.constant(a, bindings, "a constant event argument in an #alphabet")
                           for a in item.args)
            events.add((item.name, values))

        for decl in decls:
            for item in decl.items:
                add(item, {**env, **args})
        return frozenset(events)

    def family_ok(self, body: Proc, env) -> bool:
        """A ``|||`` family stays symbolic when its body unfolds only into ``|||`` of sequential parts."""
        if isinstance(body, PCall):
            if body.name not in self.scope.processes:
                return True  # reported later with position
            d = self.scope.processes[body.name]
            if not self.is_parallel(body, env):
                return True
            return self.family_ok(d.body, env)
        if isinstance(body, PBinary) and body.op == "|||":
            return self.family_ok(body.left, env) and self.family_ok(body.right, env)
        return not self.is_parallel(body, env)


def _called_process(scope: Scope, call: PCall) -> ProcDef:
    """The process ``call`` calls; refused unless it is defined with as many parameters as
    ``call`` passes arguments."""
    d = scope.processes.get(call.name)
    if d is None:
        raise scope.error(f"unknown process '{call.name}'{_did_you_mean(call.name)}", call.pos)
    if len(call.args) != len(d.params):
        raise scope.error(f"process '{call.name}' expects {len(d.params)} argument(s), got {len(call.args)}", call.pos)
    return d


def _did_you_mean(name: str) -> str:
    """PAT's terminating and deadlocked processes are ``Skip`` and ``Stop``, capitalised."""
    return f" (PAT writes '{name.capitalize()}')" if name in ("skip", "stop") else ""


def _show(e: Expr) -> str:
    from detect.ir.pretty import show_expr

    if isinstance(e, ConstArray):
        return "[" + ", ".join(str(v) for v in e.values) + "]"
    return show_expr(e)


# ============================================================================ classification


TOP = "TOP"  # marker: a stored (run-time) parameter


def _classify(scope: Scope, comp: Component) -> dict:
    """(process, parameter) -> static IR expression, or ``TOP`` for stored parameters."""
    values: dict = {}
    # A spawned process's parameters are whatever its spawner passes: stored.
    entry_env = {p: TOP for p in scope.processes[comp.spawned].params} if comp.spawned else dict(comp.env)

    def join(key, value):
        old = values.get(key, None)
        new = value if old is None else (old if old == value else TOP)
        if new != old:
            values[key] = new
            return True
        return False

    def arg_value(a: SExpr, env: dict, dynamic: set, multi: dict):
        names = sexpr_names(a)
        if names & dynamic or any(n in scope.variables and n not in env and n not in multi for n in names):
            return TOP
        if any(env.get(n) == TOP for n in names):
            return TOP
        chosen = [n for n in names if n in multi]
        results = set()
        for combo in itertools.product(*(multi[n] for n in chosen)):
            e2 = {k: v for k, v in env.items() if v != TOP}
            e2.update({n: Const(v) for n, v in zip(chosen, combo)})
            results.add(scope.arg(a, e2))
        return results.pop() if len(results) == 1 else TOP

    def walk(p: Proc, env: dict, dynamic: set, multi: dict, changed: list):
        if isinstance(p, (PSkip, PStop)):
            return
        if isinstance(p, PCall):
            d = _called_process(scope, p)
            if d.name not in visited_defs:
                changed.append(d.name)  # its body's calls too (a process without parameters)
            for name, a in zip(d.params, p.args):
                if join((d.name, name), arg_value(a, env, dynamic, multi)):
                    changed.append(d.name)
            return
        if isinstance(p, PPrefix):
            ev = p.event
            dyn = dynamic | set(ev.names) if isinstance(ev, RecvEvent) else dynamic
            walk(p.then, env, dyn, {k: v for k, v in multi.items() if k not in dyn}, changed)
        elif isinstance(p, PGuard):
            walk(p.proc, env, dynamic, multi, changed)
        elif isinstance(p, PBinary):
            walk(p.left, env, dynamic, multi, changed)
            walk(p.right, env, dynamic, multi, changed)
        elif isinstance(p, PIf):
            walk(p.then, env, dynamic, multi, changed)
            if p.else_ is not None:
                walk(p.else_, env, dynamic, multi, changed)
        elif isinstance(p, (PAtomic, PHide)):
            walk(p.proc, env, dynamic, multi, changed)
        elif isinstance(p, PIndexed):
            envc = {k: v for k, v in env.items() if v != TOP}
            walk(p.body, env, dynamic - {p.var}, {**multi, p.var: tuple(scope.index_range(p, envc))}, changed)

    # The entry term itself: its env is fixed (constants or the family local).
    pending = [("__entry__", comp.entry, entry_env)]
    visited_defs: set = set()
    first = True
    while pending or first:
        first = False
        changed: list = []
        for _, body, env in pending:
            walk(body, env, set(), {}, changed)
        pending = []
        todo = set(changed) | (set(d for d, _ in values) - visited_defs)
        if not todo:
            break
        for name in sorted(todo):
            visited_defs.add(name)
            d = scope.processes[name]
            env = {p: values.get((name, p), TOP) for p in d.params}
            pending.append((name, d.body, env))
    return values


#: Most values a parameter's value set may hold (``_value_sets``), and most combinations of
#: argument values enumerated for one argument: beyond them the set is unknown.
MAX_VALUE_SET = 256
MAX_COMBINATIONS = 4096


def _value_sets(scope: Scope, comp: Component, local_value: Optional[int] = None) -> dict:
    """(process, parameter) -> the finite set of values the parameter can hold in ``comp``
    (``None``: unknown -- it depends on variables, received values, or grows without bound).

    Values flow from the entry's bindings (a family's local is ``local_value`` when given,
    else its whole domain), through call arguments and indexed choices (``[] i:{0..N-1}@
    Serve(i)`` gives ``Serve``'s ``i`` the set {0..N-1}).  ``||`` needs these sets: they are
    the concrete events a stored parameter's event can be (its alphabet, as PAT instantiates
    it).

    Why one function: a fixpoint over the process definitions whose two helpers (an argument's
    values, the walk of a body) share the sets being built."""
    sets: dict = {}
    if comp.spawned:
        entry_env: dict = {p: None for p in scope.processes[comp.spawned].params}
    else:
        entry_env = {}
        for name, value in comp.env:
            if isinstance(value, Const):
                entry_env[name] = frozenset({value.value})
            elif comp.local is not None and value == Name(comp.local.name):
                entry_env[name] = (frozenset({local_value}) if local_value is not None
                                   else frozenset(comp.local.domain))
            else:
                entry_env[name] = None

    def values_of(a: SExpr, env: dict) -> Optional[frozenset]:
        names = sorted(n for n in sexpr_names(a) if n in env)
        if any(env[n] is None for n in names):
            return None
        if any(n in scope.variables for n in sexpr_names(a) if n not in env):
            return None
        combos = 1
        for n in names:
            combos *= len(env[n])
        if combos > MAX_COMBINATIONS:
            return None
        out = set()
        for combo in itertools.product(*(sorted(env[n]) for n in names)):
            try:
                value = scope.expr(a, {n: Const(v) for n, v in zip(names, combo)})
            except InputError:
                return None  # reported where the expression is translated
            if not isinstance(value, Const):
                return None
            out.add(value.value)
        return frozenset(out)

    def walk(p: Proc, env: dict, changed: set) -> None:
        if isinstance(p, PCall):
            d = scope.processes.get(p.name)
            if d is None or len(d.params) != len(p.args):
                return  # reported with its position elsewhere
            if d.name not in visited:
                visited.add(d.name)
                changed.add(d.name)
            for name, a in zip(d.params, p.args):
                key = (d.name, name)
                new = values_of(a, env)
                old = sets.get(key, frozenset())
                joined = None if new is None or old is None else old | new
                if joined is not None and len(joined) > MAX_VALUE_SET:
                    joined = None
                if key not in sets or joined != old:
                    sets[key] = joined
                    changed.add(d.name)
        elif isinstance(p, PPrefix):
            ev = p.event
            inner = {**env, **{n: None for n in ev.names}} if isinstance(ev, RecvEvent) else env
            walk(p.then, inner, changed)
        elif isinstance(p, (PGuard, PAtomic, PHide)):
            walk(p.proc, env, changed)
        elif isinstance(p, PBinary):
            walk(p.left, env, changed)
            walk(p.right, env, changed)
        elif isinstance(p, PIf):
            walk(p.then, env, changed)
            if p.else_ is not None:
                walk(p.else_, env, changed)
        elif isinstance(p, PIndexed):
            try:
                bound = frozenset(scope.index_range(p, {k: Const(next(iter(v))) for k, v in env.items()
                                                        if v is not None and len(v) == 1}))
            except InputError:
                bound = None
            walk(p.body, {**env, p.var: bound}, changed)

    todo: set = set()
    visited: set = set()
    walk(comp.entry, entry_env, todo)
    rounds = 0
    while todo and rounds < 10_000:
        rounds += 1
        name = min(todo)
        todo.discard(name)
        d = scope.processes[name]
        walk(d.body, {p: sets.get((name, p)) for p in d.params}, todo)
    return sets


# ============================================================================ automaton


@dataclass(frozen=True)
class Bound:
    """What a name stands for: ``value``; ``storage`` is the global it lives in, if stored.

    A binding is *pending* when ``value != storage``: the value was computed by a call in
    this step and is written to the storage when the step reaches its target location.
    """

    value: Expr
    storage: Optional[Expr] = None


SKIP = ("skip",)
STOP = ("stop",)


@dataclass(frozen=True)
class Spawn:
    """``Q(args) ||| R`` reached by a sequential process: ``process`` Q starts in a free slot
    of its pool while the process goes on as R; ``args`` are over the spawner's values there."""

    process: str
    args: tuple[Expr, ...]
    pos: Span


@dataclass(frozen=True)
class Move:
    guard: Expr
    action: tuple  # ("event", name, args) | ("send", ch, args) | ("recv", ch, storages)
    program: tuple[Stmt, ...]
    target: tuple  # raw term
    pos: Span


class _Automaton:
    """Control locations and moves of one component (symbolic in the family local)."""

    def __init__(self, scope: Scope, comp: Component, storage):
        self.scope = scope
        self.comp = comp
        self.storage = storage  # callable(comp, kind, process, name, pos) -> Expr
        self.classes = _classify(scope, comp)
        #: ``free_names`` memo for this automaton's terms (keyed by node identity)
        self.free_names: dict = {}

    def error(self, msg, pos):
        return self.scope.error(msg, pos)

    # -- terms -------------------------------------------------------------------
    def values(self, env: Mapping[str, Bound]) -> dict:
        return {k: b.value for k, b in env.items()}

    def freeze(self, node: Proc, env: Mapping[str, Bound], stores: list) -> tuple:
        items = []
        for name in sorted(free_names(node, self.free_names) & env.keys()):
            b = env[name]
            if b.storage is not None and b.value != b.storage:
                stores.append((b.storage, b.value))
                b = Bound(b.storage, b.storage)
            items.append((name, b))
        return tuple(items)

    def enter(self, call: PCall, env: Mapping[str, Bound]) -> tuple[Proc, dict]:
        d = _called_process(self.scope, call)
        vals = self.values(env)
        new = {}
        for name, a in zip(d.params, call.args):
            value = self.scope.arg(a, vals)
            if self.classes.get((d.name, name), TOP) == TOP:
                if isinstance(value, ConstArray):
                    raise self.error(f"process '{d.name}' is called with different arrays for '{name}': an "
                                     f"array argument must be the same in every call", a.pos)
                new[name] = Bound(value, self.storage(self.comp, "param", d.name, name, d.pos))
            else:
                new[name] = Bound(value)
        return d.body, new

    def norm(self, raw: tuple, stores: list, depth: int = 0) -> tuple:
        """Canonical location for a raw term; pending bindings are written to ``stores``."""
        if depth > MAX_UNFOLD:
            raise self.error("unguarded recursion: a process calls itself before any event", self.comp.pos)
        kind = raw[0]
        if kind in ("skip", "stop"):
            return raw
        if kind == "at":
            node, env = raw[1], raw[2]
            if isinstance(node, PSkip):
                return SKIP
            if isinstance(node, PStop):
                return STOP
            if isinstance(node, PCall):
                body, env2 = self.enter(node, env)
                return self.norm(("at", body, env2), stores, depth + 1)
            if isinstance(node, PBinary) and node.op == ";":
                return self.norm(("seq", ("at", node.left, env), node.right, env), stores, depth + 1)
            if isinstance(node, PAtomic):
                return self.norm(("atomic", ("at", node.proc, env)), stores, depth + 1)
            if isinstance(node, PBinary) and node.op == "|||":
                spawned, rest = self.split_spawn(node)
                vals = self.values(env)
                args = tuple(self.scope.arg(a, vals) for a in spawned.args)
                if any(isinstance(a, ConstArray) for a in args):
                    raise self.error("an array argument of a spawned process is not supported", node.pos)
                stores.append(Spawn(spawned.name, args, node.pos))
                return self.norm(("at", rest, env), stores, depth + 1)
            self.check_sequential(node)
            return ("at", node, self.freeze(node, env, stores))
        if kind == "seq":
            first = self.norm(raw[1], stores, depth + 1)
            self.no_spawn_inside(stores, "before ';' (';' would wait for the spawned process to end)")
            if first == SKIP:
                return self.norm(("at", raw[2], raw[3]), stores, depth + 1)
            if first == STOP:
                return STOP
            return ("seq", first, raw[2], self.freeze(raw[2], raw[3], stores))
        if kind == "atomic":
            inner = self.norm(raw[1], stores, depth + 1)
            self.no_spawn_inside(stores, "inside atomic")
            return inner if inner in (SKIP, STOP) else ("atomic", inner)
        raise ValueError(raw)

    def split_spawn(self, node: PBinary) -> tuple[PCall, Proc]:
        """``Q(..) ||| R`` (either order) as (the call spawned, the process going on).  The one
        that goes on is the operand that may reach a parallel composition again (``P()`` in
        ``P() = a -> (Q() ||| P())``), else the right one; the spawned one is a call of a
        sequential process."""
        operands = _interleaved(node)
        if len(operands) != 2:
            raise self.error("'|||' inside a sequential process spawns one process at a time: "
                             "write 'Q() ||| P()' (one spawned call and the process that goes on)", node.pos)
        goes_on = [o for o in operands if _reaches(self.scope, o, _is_parallel_node)]
        if len(goes_on) > 1:
            raise self.error("'|||' inside a sequential process: a spawned process that runs a parallel "
                             "composition or spawns again is not supported", node.pos)
        rest = goes_on[0] if goes_on else operands[1]
        spawned = operands[0] if rest is operands[1] else operands[1]
        if not isinstance(spawned, PCall):
            raise self.error("'|||' inside a sequential process: the spawned operand must be a process call "
                             "('Q(..) ||| P(..)')", spawned.pos)
        _called_process(self.scope, spawned)
        return spawned, rest

    def no_spawn_inside(self, stores: list, where: str) -> None:
        """Refuse a spawn met while normalising the first part of a ``;`` or an atomic block."""
        spawns = [s for s in stores if isinstance(s, Spawn)]
        if spawns:
            raise self.error(f"spawning ('Q() ||| P()') {where} is not supported", spawns[-1].pos)

    def check_sequential(self, node: Proc) -> None:
        if isinstance(node, PHide):
            raise self.error("hiding ('P \\ {...}') inside a sequential process is not supported: "
                             "hide a whole process of the system", node.pos)
        if isinstance(node, (PBinary, PIndexed)) and node.op in ("|||", "||"):
            raise self.error(
                f"'{node.op}' inside a sequential process is not supported: parallel composition "
                "must be at the top of the system (unbounded control otherwise)", node.pos)

    def moves(self, term: tuple) -> list[Move]:
        if term in (SKIP, STOP):
            return []
        if term[0] == "at":
            return self.node_moves(term[1], dict(term[2]), 0)
        if term[0] == "seq":
            return [dataclasses.replace(m, target=("seq", m.target, term[2], dict(term[3])))
                    for m in self.moves(term[1])]
        if term[0] == "atomic":
            return [dataclasses.replace(m, target=("atomic", m.target)) for m in self.moves(term[1])]
        raise ValueError(term)

    def node_moves(self, p: Proc, env: dict, depth: int, calls: tuple = (), guards: int = 0) -> list[Move]:
        """The first moves of ``p``.  ``calls`` are the calls unfolded on the way here, each
        with the number of guards passed before it: a call met again behind a further guard
        (``P = [c] a -> Q [] R``, ``R = [d] ... [] P``) adds only moves with stronger guards
        than those it already gave, so the unfolding stops there; met again without one,
        it is unguarded recursion."""
        if depth > MAX_UNFOLD:
            raise self.error("unguarded recursion: a process calls itself before any event", p.pos)
        if isinstance(p, (PSkip, PStop)):
            return []
        vals = self.values(env)
        if isinstance(p, PCall):
            key = (p.name, tuple(self.scope.arg(a, vals) for a in p.args))
            for seen, passed in calls:
                if seen == key:
                    if passed < guards:
                        return []
                    raise self.error("unguarded recursion: a process calls itself before any event", p.pos)
            body, env2 = self.enter(p, env)
            return self.node_moves(body, env2, depth + 1, calls + ((key, guards),), guards)
        if isinstance(p, PPrefix):
            return [self.prefix_move(p, env, vals)]
        if isinstance(p, PGuard):
            g = self.scope.expr(p.cond, vals)
            return [dataclasses.replace(m, guard=conj(g, m.guard))
                    for m in self.node_moves(p.proc, env, depth + 1, calls, guards + 1)]
        if isinstance(p, PBinary):
            if p.op == "[]":
                return (self.node_moves(p.left, env, depth + 1, calls, guards)
                        + self.node_moves(p.right, env, depth + 1, calls, guards))
            if p.op == "<>":
                return [Move(Const(1), ("event", TAU, ()), (), ("at", side, env), p.pos) for side in (p.left, p.right)]
            if p.op == ";":
                out = [dataclasses.replace(m, target=("seq", m.target, p.right, env))
                       for m in self.node_moves(p.left, env, depth + 1)]  # another context: no cut
                if self.may_skip(p.left, 0):
                    out += self.node_moves(p.right, env, depth + 1, calls, guards)
                return out
            self.check_sequential(p)
        if isinstance(p, PIf):
            c = self.scope.expr(p.cond, vals)
            other = ("at", p.else_, env) if p.else_ is not None else SKIP
            return [Move(c, ("event", TAU, ()), (), ("at", p.then, env), p.pos),
                    Move(simplify(Unary("!", c)), ("event", TAU, ()), (), other, p.pos)]
        if isinstance(p, PAtomic):
            return [dataclasses.replace(m, target=("atomic", m.target)) for m in self.node_moves(p.proc, env, depth + 1)]
        if isinstance(p, PHide):
            self.check_sequential(p)
        if isinstance(p, PIndexed):
            self.check_sequential(p)
            out = []
            for v in self.scope.index_range(p, vals):
                env2 = {**env, p.var: Bound(Const(v))}
                if p.op == "[]":
                    out += self.node_moves(p.body, env2, depth + 1, calls, guards)
                else:
                    out.append(Move(Const(1), ("event", TAU, ()), (), ("at", p.body, env2), p.pos))
            return out
        raise TypeError(p)

    def may_skip(self, p: Proc, depth: int) -> bool:
        """Can ``p`` terminate without an event (``Skip``, a call of ``Skip``, ``Skip; Skip``)?"""
        if depth > MAX_UNFOLD:
            return False
        if isinstance(p, PSkip):
            return True
        if isinstance(p, PCall) and p.name in self.scope.processes:
            return self.may_skip(self.scope.processes[p.name].body, depth + 1)
        if isinstance(p, PBinary) and p.op == ";":
            return self.may_skip(p.left, depth + 1) and self.may_skip(p.right, depth + 1)
        if isinstance(p, PAtomic):
            return self.may_skip(p.proc, depth + 1)
        return False

    def prefix_move(self, p: PPrefix, env: dict, vals: dict) -> Move:
        ev = p.event
        sc = self.scope
        if isinstance(ev, PlainEvent):
            if ev.name in sc.channels:
                raise self.error(f"'{ev.name}' is a channel: use '{ev.name}!' or '{ev.name}?'", ev.pos)
            args = tuple(sc.expr(a, vals) for a in ev.args)
            name = TAU if ev.name == "tau" else ev.name
            return Move(Const(1), ("event", name, args), sc.program(ev.program, vals), ("at", p.then, env), ev.pos)
        if ev.channel not in sc.channels:
            raise self.error(f"unknown channel '{ev.channel}'", ev.pos)
        # A channel of an array is (name, index expression); ``channels`` splits it per element.
        is_array = sc.channels[ev.channel].size is not None
        if is_array != (ev.index is not None):
            raise self.error(f"channel '{ev.channel}' is {'an array: write' if is_array else 'not an array: write'} "
                             f"'{ev.channel}{'[i]' if is_array else ''}{'!' if isinstance(ev, SendEvent) else '?'}'",
                             ev.pos)
        channel = (ev.channel, sc.expr(ev.index, vals)) if is_array else ev.channel
        if isinstance(ev, SendEvent):
            args = tuple(sc.expr(a, vals) for a in ev.args)
            return Move(Const(1), ("send", channel, args), sc.program(ev.program, vals), ("at", p.then, env), ev.pos)
        # Each received position either binds a name (stored per instance) or, for PAT's
        # matching input, must equal an expression.  Conditions on the received values are
        # written over the placeholders ``_recv<k>``, which the channel lowering replaces by
        # the values sent (``_received``).
        env2 = dict(env)
        stores: list = []
        matches: list = []
        placeholders: dict = {}
        bound: list = []
        items = ev.items or tuple(Ident(n, ev.pos) for n in ev.names)
        for k, item in enumerate(items):
            slot = Name(f"{RECEIVED}{k}")
            if isinstance(item, Ident) and item.name not in sc.numeric and item.name not in sc.macros:
                st = self.storage(self.comp, "recv", None, item.name, ev.pos)
                env2[item.name] = Bound(st, st)
                stores.append(st)
                placeholders[item.name] = slot
                bound.append(item.name)
            else:
                stores.append(slot)
                matches.append(Binary("==", slot, sc.expr(item, vals)))
        if ev.guard is not None:
            matches.append(sc.expr(ev.guard, {**vals, **placeholders}))
        vals2 = self.values(env2)
        program = sc.program(ev.program, vals2, readonly=frozenset(bound))
        return Move(conj(*matches), ("recv", channel, tuple(stores)), program, ("at", p.then, env2), ev.pos)


def live_storage(term: tuple) -> set:
    """Stored globals whose values a location still needs."""
    if term in (SKIP, STOP):
        return set()
    if term[0] == "at":
        return {b.storage for _, b in term[2] if b.storage is not None}
    if term[0] == "seq":
        return live_storage(term[1]) | {b.storage for _, b in term[3] if b.storage is not None}
    if term[0] == "atomic":
        return live_storage(term[1])
    raise ValueError(term)


def in_atomic(term: tuple) -> bool:
    if term in (SKIP, STOP):
        return False
    if term[0] == "atomic":
        return True
    if term[0] == "seq":
        return in_atomic(term[1])
    return False


def term_depth(term: tuple) -> int:
    if term[0] == "seq":
        return 1 + term_depth(term[1])
    if term[0] == "atomic":
        return 1 + term_depth(term[1])
    return 0


# ============================================================================ pieces


@dataclass(frozen=True)
class Cand:
    """A candidate transition: one component's move, or a joint move of several."""

    locals: tuple[Local, ...]
    guard: Expr
    action: tuple
    program: tuple[Stmt, ...]
    origin: Origin
    owners: tuple[str, ...]
    comps: tuple[int, ...]
    atomic_ids: tuple[Expr, ...]


@dataclass
class _Storage:
    """Per-instance globals created by the linearisation (pc arrays, stored values)."""

    scope: Scope
    group_sizes: Mapping[str, int]
    taken: set
    names: dict  # key -> variable name
    order: list  # (name, size or None, pos, description)

    def fresh(self, base: str) -> str:
        name = base
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name

    def get(self, comp: Component, kind: str, process: Optional[str], name: str, pos: Span) -> Expr:
        if kind == "param" and process != comp.group:
            base = f"{comp.group}_{process}_{name}"
        else:
            base = f"{comp.group}_{name}"
        key = (comp.group, kind, process, name)
        if key not in self.names:
            var = self.fresh(base)
            size = self.group_sizes[comp.group]
            what = f"parameter '{name}' of process '{process}'" if kind == "param" else f"received value '{name}'"
            self.names[key] = var
            self.order.append((var, size if size > 1 else None, pos, what))
        var = self.names[key]
        return Index(var, comp.slot()) if self.group_sizes[comp.group] > 1 else Name(var)


#: Slots per pool of spawned processes (``Q() ||| P()`` in a sequential process) when
#: ``--max-procs`` is not given.
DEFAULT_MAX_SPAWNED = 4
#: The largest pool ``explore`` grows to by itself (``ToolBound.most``) when a spawn finds
#: every slot taken and the user gave no ``--max-procs``: each slot is a copy of the process.
MOST_SPAWNED = 64


class Linearisation:
    """All the state of one linearisation run (no globals); ``run`` returns the model.

    Dynamic process creation: a sequential process reaching ``Q(..) ||| P(..)`` spawns Q and
    goes on as P.  Each (component, process it spawns) gets a *pool*: a family component
    over ``max_spawned`` slots whose location 0 is Skip, meaning "free".  A slot starts free;
    the spawning step takes ANY free slot (one alternative per slot, a summand local), not a
    fixed one: spawned CSP# processes are anonymous, so slots are interchangeable and the
    detected group permutes them; a spawn with every slot taken is a fault naming the bound;
    Q's termination (Skip) frees its slot.
    """

    def __init__(self, scope: Scope, system: str, system_args: tuple, name: str,
                 max_spawned: Optional[int] = None):
        self.scope = scope
        self.system = system
        self.system_args = system_args
        self.name = name
        self.max_spawned = DEFAULT_MAX_SPAWNED if max_spawned is None else max_spawned
        if self.max_spawned < 1:
            raise InputError(f"--max-procs {self.max_spawned}: a pool of spawned processes needs a slot", scope.path)
        #: (spawning component, spawned process) -> index of its pool component
        self.pools: dict[tuple[int, str], int] = {}

    def error(self, msg, pos):
        return self.scope.error(msg, pos)

    def run(self):
        sc = self.scope
        proc = sc.processes[self.system]
        flat = _Flattener(sc)
        call = PCall(self.system, self.system_args, proc.pos)
        tree = flat.flatten(call, {}, ())
        if isinstance(tree, int):
            tree = Tree("|||", (tree,))
        # Components, their groups and slot offsets.
        sizes: dict[str, int] = {}
        comps: list[Component] = []
        for c in flat.components:
            count = len(c["local"].domain) if c["local"] else 1
            offset = sizes.get(c["group"], 0)
            sizes[c["group"]] = offset + count
            lo = c["local"].domain[0] if c["local"] else 0
            comps.append(Component(c["group"], c["entry"], c["env"], c["local"], lo, offset, c["owner"], c["pos"],
                                   c.get("after", ()), c.get("alphabet")))
        self.comps = comps
        taken = set(sc.variables) | set(sc.numeric) | set(sc.macros) | set(sc.channels) | set(sc.processes)
        taken |= {c.local.name for c in comps if c.local is not None}  # a pool's local joins its spawner's
        storage = _Storage(sc, sizes, taken, {}, [])
        self.storage = storage
        self._value_sets: dict = {}
        autos = [self.component_automaton(c, storage) for c in comps]
        #: storage variable -> (group, kind, process, name) of what it stores
        self.stored = {var: key for key, var in storage.names.items()}
        tree = _with_pools(tree, self.add_pools(comps, autos, sizes, storage))
        self.autos = autos
        uses_atomic = any(_uses_atomic(sc, c.entry) for c in comps)
        self.owner = ExclusiveOwner(storage.fresh("atomic_owner"), 0) if uses_atomic else None
        # Atomic ids: 1 + global position of the instance.
        id_base, acc = [], 0
        for c in comps:
            id_base.append(acc)
            acc += c.count
        self.n_instances = acc
        # pc arrays: one per group, only if some instance has more than one location.
        group_locs: dict[str, int] = {}
        for c, (locs, _, _) in zip(comps, autos):
            group_locs[c.group] = max(group_locs.get(c.group, 0), len(locs))
        pcs = {g: storage.fresh(f"pc_{g}") for g, n in group_locs.items() if n > 1}
        self.pcs = pcs

        pieces: list[list[Cand]] = []
        for k, (c, (locs, edges, init_stores)) in enumerate(zip(comps, autos)):
            gate = conj(*(self.terminated(comps[a], autos[a][0], pcs, sizes) for a in c.after))
            pieces.append([dataclasses.replace(x, guard=conj(gate, x.guard))
                           for x in self.pieces(k, c, locs, edges, pcs.get(c.group), sizes[c.group], id_base[k])])
        cands = self.combine(tree, pieces, comps)
        summands = self.channels(cands, comps)
        return comps, autos, pcs, group_locs, storage, summands, id_base

    def add_pools(self, comps: list[Component], autos: list, sizes: dict, storage: _Storage) -> dict[int, list[int]]:
        """Append a pool component (and its automaton) per (component, process it spawns);
        the pools' indices by spawning component."""
        by_spawner: dict[int, list[int]] = {}
        for k in range(len(comps)):
            for sp in dict.fromkeys(sp.process for edge in autos[k][1] for sp in edge[7]):
                if comps[k].alphabet is not None:
                    raise self.error(f"a process with an #alphabet that spawns '{sp}' is not supported", comps[k].pos)
                group, n = sp, 1
                while group in sizes:
                    group, n = f"{sp}_{n}", n + 1
                d = self.scope.processes[sp]
                local = Local(storage.fresh(f"{group}_slot"), tuple(range(self.max_spawned)))
                comps.append(Component(group, d.body, (), local, 0, 0, None, d.pos, spawned=sp))
                sizes[group] = self.max_spawned
                autos.append(self.component_automaton(comps[-1], storage))
                self.pools[(k, sp)] = len(comps) - 1
                by_spawner.setdefault(k, []).append(len(comps) - 1)
        return by_spawner

    def spawn_variants(self, k: int, spawns: tuple[Spawn, ...]) -> list[tuple[tuple[Local, ...], Expr, tuple[Stmt, ...]]]:
        """The alternatives of component ``k``'s step as (extra locals, extra guard, statements
        starting the spawned process): one taking any free slot of the pool, one that is the
        bound's fault when no slot is free; a step that spawns nothing is one alternative."""
        if not spawns:
            return [((), Const(1), ())]
        (sp,) = spawns  # ``split_spawn`` lets a step spawn one process
        pool = self.comps[self.pools[(k, sp.process)]]
        locs = self.autos[self.pools[(k, sp.process)]][0]
        pc = self.pcs.get(pool.group)
        if pc is None:
            return [((), Const(1), ())]  # the spawned process is Skip: it ends at once
        many = self.max_spawned > 1

        def counter(slot: Expr) -> ProgramCounter:
            return ProgramCounter(Index(pc, slot) if many else Name(pc))

        slot = Name(pool.local.name) if many else Const(0)
        entry_reads = live_storage(locs[1])
        starts: list[Stmt] = [counter(slot).goto(1)]
        for param, arg in zip(self.scope.processes[sp.process].params, sp.args):
            if (pool.group, "param", sp.process, param) in self.storage.names:
                st = self.storage.get(pool, "param", sp.process, param, sp.pos)
                if st in entry_reads:
                    starts.append(Assign(st, arg))
        full = conj(*(simplify(Unary("!", counter(Const(j)).at(0))) for j in range(self.max_spawned)))
        # PAT has no such bound: the pool's size is ours, and a spawn past it no error of the model
        fault = Assert(Const(0), f"more than {self.max_spawned} processes '{sp.process}' spawned by '|||' "
                                 f"alive at once", ToolBound("--max-procs", self.max_spawned, MOST_SPAWNED))
        return [((pool.local,) if many else (), counter(slot).at(0), tuple(starts)), ((), full, (fault,))]

    def terminated(self, comp: Component, locs, pcs, sizes) -> Expr:
        """The condition that ``comp`` (not a family) is at Skip."""
        if SKIP not in locs:
            return Const(0)
        pc = pcs.get(comp.group)
        if pc is None:
            return Const(1)  # Skip is its only location
        ref = Index(pc, comp.slot()) if sizes[comp.group] > 1 else Name(pc)
        return Binary("==", ref, Const(locs.index(SKIP)))

    # -- one component ---------------------------------------------------------
    def component_automaton(self, comp: Component, storage: _Storage):
        """``comp``'s automaton, explored from its entry: its locations (in discovery order), edges and initial stores."""
        auto = _Automaton(self.scope, comp, storage.get)
        if comp.spawned:
            # A spawned process's parameters are stored per slot, written by the spawner.
            d = self.scope.processes[comp.spawned]
            read = free_names(comp.entry, auto.free_names)
            env = {p: Bound(st, st) for p in d.params if p in read
                   for st in (storage.get(comp, "param", d.name, p, d.pos),)}
        else:
            env = {k: Bound(v) for k, v in comp.env}
        init_stores: list = []
        start = auto.norm(("at", comp.entry, env), init_stores)
        auto.no_spawn_inside(init_stores, "before the process's first event")
        # A pool's slot starts free: at Skip, location 0, before the spawned process's entry.
        order = [SKIP] if comp.spawned and start != SKIP else []
        order.append(start)
        locs = {t: i for i, t in enumerate(order)}
        edges = []  # (src, tgt, move, stores, resets, atomic at src, atomic at tgt, spawns)
        i = 0
        while i < len(order):
            term = order[i]
            i += 1
            for m in auto.moves(term):
                stores: list = []
                tgt = auto.norm(m.target, stores)
                spawns = tuple(s for s in stores if isinstance(s, Spawn))
                stores = [s for s in stores if not isinstance(s, Spawn)]
                if tgt not in locs:
                    if len(locs) >= MAX_LOCATIONS or term_depth(tgt) > MAX_TERM_DEPTH:
                        raise self.error(
                            "non-tail recursion: the process term grows without bound "
                            "(recursion must be the last thing a process does)", comp.pos)
                    locs[tgt] = len(order)
                    order.append(tgt)
                dedup = []
                for st, val in stores:
                    if all(st != s for s, _ in dedup):
                        dedup.append((st, val))
                received = {x for x in m.action[2] if not _is_placeholder(x)} if m.action[0] == "recv" else set()
                dead = (live_storage(term) | received) - live_storage(tgt)
                edges.append((locs[term], locs[tgt], m, tuple(dedup), tuple(sorted(dead, key=repr)),
                              in_atomic(term), in_atomic(tgt), spawns))
        return order, edges, init_stores

    def pieces(self, k: int, comp: Component, locs, edges, pc: Optional[str], size: int, id_base: int) -> list[Cand]:
        slot = comp.slot()
        counter = ProgramCounter(Index(pc, slot) if size > 1 else Name(pc)) if pc else None
        me = self.atomic_id(comp, id_base)
        out = []
        for src, tgt, m, stores, resets, a_src, a_tgt, spawns in edges:
            for extra_locals, when, starts in self.spawn_variants(k, spawns):
                guard = conj(counter.at(src), m.guard, when) if counter is not None else conj(m.guard, when)
                # The spawned process's arguments are read before the spawner's own stored
                # parameters change (``Q(i) ||| P(i + 1)`` passes the old i).
                program = list(m.program) + list(starts)
                program += simultaneous(stores, lambda j: f"_arg{j}")
                program += [Assign(r, Const(NONE)) for r in resets]
                if counter is not None and tgt != src:
                    program.append(counter.goto(tgt))
                if self.owner is not None:
                    if a_tgt:
                        program.append(self.owner.take(me))
                    elif a_src:
                        program.append(self.owner.release())
                out.append(Cand(
                    ((comp.local,) if comp.local else ()) + extra_locals, guard, m.action, tuple(program),
                    Origin.at(self.scope.path, m.pos.line, m.pos.column, f"{self.scope.path}:{m.pos.line}"),
                    (comp.owner,) if comp.owner else (), (k,), (me,)))
        return out

    def atomic_id(self, comp: Component, id_base: int) -> Expr:
        if comp.local is None:
            return Const(id_base + 1)
        return simplify(Binary("+", simplify(Binary("-", Name(comp.local.name), Const(comp.lo))), Const(id_base + 1)))

    # -- parallel composition ----------------------------------------------------
    def combine(self, tree: Union[Tree, int], pieces, comps) -> list[Cand]:
        if isinstance(tree, int):
            return pieces[tree]
        results = [self.combine(ch, pieces, comps) for ch in tree.children]
        if tree.op == "|||":
            combined = [c for r in results for c in r]
        else:
            alphabets = [comps[ch].alphabet if isinstance(ch, int) else None for ch in tree.children]
            combined = self.synchronise(results, alphabets)
        return self.hide(combined, tree.hidden) if tree.hidden else combined

    def hide(self, cands: list[Cand], items: tuple[EventItem, ...]) -> list[Cand]:
        """Relabel the events ``items`` name as τ (PAT's hiding).  A compound item ``a.1``
        hides ``a`` with those constant arguments: an event whose arguments depend on a
        family's local is split into its hidden and visible instances by guards."""
        out = []
        for c in cands:
            if c.action[0] != "event":
                out.append(c)
                continue
            name, args = c.action[1], c.action[2]
            hidden_when: list[Expr] = []
            for item in items:
                if item.name != name:
                    continue
                if not item.args:
                    hidden_when = [Const(1)]
                    break
                if len(item.args) != len(args):
                    continue
                values = [self.scope.constant(a, what="a constant event argument in a hiding set")
                          for a in item.args]
                hidden_when.append(conj(*(simplify(Binary("==", a, Const(v))) for a, v in zip(args, values))))
            hidden = Const(0)
            for h in hidden_when:
                hidden = simplify(Binary("||", hidden, h))
            if isinstance(hidden, Const) and not hidden.value:
                out.append(c)
                continue
            tau = dataclasses.replace(c, action=("event", TAU, ()), guard=conj(c.guard, hidden))
            if isinstance(hidden, Const):
                out.append(tau)
            else:
                out += [tau, dataclasses.replace(c, guard=conj(c.guard, simplify(Unary("!", hidden))))]
        return out

    def synchronise(self, results: list[list[Cand]], alphabets=None) -> list[Cand]:
        """CSP alphabetised parallel: a shared event needs every child whose alphabet has it.

        A child's alphabet is the events it performs, or its declared ``#alphabet``
        (``alphabets[i]``, concrete events): a declared event the child cannot perform
        blocks the others, and an event outside it is not synchronised."""
        alphabets = alphabets or [None] * len(results)

        def key_name(c):
            return (c.action[1], len(c.action[2])) if c.action[0] == "event" and c.action[1] != TAU else None

        declared_names = [None if a is None else {(n, len(v)) for n, v in a} for a in alphabets]
        names_per_child = [({key_name(c) for c in r} - {None}) if d is None else d
                           for r, d in zip(results, declared_names)]
        counts: dict = {}
        for names in names_per_child:
            for n in names:
                counts[n] = counts.get(n, 0) + 1
        shared = {n for n, k in counts.items() if k > 1}
        out: list[Cand] = []
        by_value: list[dict] = []
        for r, alphabet, names in zip(results, alphabets, declared_names):
            table: dict = {}
            for c in r:
                kn = key_name(c)
                if kn not in shared or (names is not None and kn not in names):
                    out.append(c)
                    continue
                for inst in (x for i in self.instantiate(c) for x in self.concrete(i, kn[0], alphabet, out)):
                    args = inst.action[2]
                    key = (kn[0], tuple(a.value for a in args))
                    if alphabet is not None and key not in alphabet:
                        out.append(inst)
                        continue
                    table.setdefault(key, []).append(inst)
            by_value.append(table)
        keys = sorted({k for t in by_value for k in t}, key=repr)
        for key in keys:
            if any(a is not None and key in a and key not in t for t, a in zip(by_value, alphabets)):
                continue  # a child declares the event but cannot perform it
            parts = [t[key] for t in by_value if key in t]
            for combo in itertools.product(*parts):
                out.append(self.joint(combo))
        return out

    def concrete(self, c: Cand, event: str, alphabet: Optional[frozenset] = None,
                 alone: Optional[list] = None) -> list[Cand]:
        """``c`` (without locals) as one candidate per concrete event it can be: an argument
        over stored process parameters (``req.i`` after ``[] i:{0..N-1}@Serve(i)``) takes
        each value of their value sets (``_value_sets``), under the guard that they hold it.
        With a declared ``alphabet``, any argument is split over the declared events of its
        name, and the candidate for every other value (not synchronised) goes to ``alone``.
        Otherwise arguments over variables or received values have no such set: refused."""
        args = c.action[2]
        if all(isinstance(a, Const) for a in args):
            return [c]
        if alphabet is not None:
            declared = sorted(v for n, v in alphabet if n == event and len(v) == len(args))
            out = []
            for values in declared:
                held = conj(*(simplify(Binary("==", a, Const(v))) for a, v in zip(args, values)))
                out.append(dataclasses.replace(c, guard=conj(c.guard, held),
                                               action=(c.action[0], c.action[1], tuple(Const(v) for v in values))))
            other = [simplify(Unary("!", conj(*(simplify(Binary("==", a, Const(v))) for a, v in zip(args, values)))))
                     for values in declared]
            alone.append(dataclasses.replace(c, guard=conj(c.guard, *other)))
            return out
        refs: dict = {}
        unknown: list = []

        def find(x: Expr):
            var = x.array if isinstance(x, Index) else x.name if isinstance(x, Name) else None
            if var is None:
                return None
            key = self.stored.get(var)
            if key is None or key[1] != "param" or len(c.comps) != 1:
                unknown.append(x)
                return x
            comp = self.comps[c.comps[0]]
            local_value = None
            if comp.local is not None:
                if not (isinstance(x, Index) and isinstance(x.index, Const)):
                    unknown.append(x)
                    return x
                local_value = x.index.value - comp.offset + comp.lo
            values = self.value_sets(c.comps[0], local_value).get((key[2], key[3]))
            if values is None:
                unknown.append(x)
            else:
                refs[x] = values
            return x

        for a in args:
            map_expr(a, find)
        if unknown:
            raise InputError(
                f"event '{event}' is synchronised by '||' but its arguments depend on "
                f"variables ({', '.join(_show(a) for a in args)}); alphabets need arguments "
                f"fixed by process parameters, or an #alphabet declaration", self.scope.path, *_line_col(c.origin))
        out = []
        order = list(refs)
        for combo in itertools.product(*(sorted(refs[r]) for r in order)):
            m = dict(zip(order, (Const(v) for v in combo)))
            values = tuple(map_expr(a, m.get, simplify) for a in args)
            if not all(isinstance(v, Const) for v in values):
                raise InputError(f"event '{event}': cannot evaluate its arguments "
                                 f"({', '.join(_show(a) for a in args)})", self.scope.path,
                                 *_line_col(c.origin))
            guard = conj(c.guard, *(simplify(Binary("==", r, v)) for r, v in m.items()))
            out.append(dataclasses.replace(c, guard=guard, action=(c.action[0], c.action[1], values)))
        return out

    def value_sets(self, k: int, local_value: Optional[int]) -> dict:
        """``_value_sets`` of component ``k`` (for one instance of a family), memoised."""
        key = (k, local_value)
        if key not in self._value_sets:
            self._value_sets[key] = _value_sets(self.scope, self.comps[k], local_value)
        return self._value_sets[key]

    def instantiate(self, c: Cand) -> list[Cand]:
        """Replace the candidate's locals by each of their values (concrete instances)."""
        if not c.locals:
            return [c]
        out = []
        for values in itertools.product(*(loc.domain for loc in c.locals)):
            m = {loc.name: Const(v) for loc, v in zip(c.locals, values)}
            guard = subst(c.guard, m)
            if isinstance(guard, Const) and not guard.value:
                continue
            owners = c.owners + tuple(
                f"{self.comps[k].group}({m[self.comps[k].local.name].value})"
                for k in c.comps if self.comps[k].local is not None)
            out.append(Cand((), guard, (c.action[0], _subst_channel(c.action[1], m),
                                        tuple(subst(a, m) for a in c.action[2])),
                            subst_stmts(c.program, m), c.origin, owners,
                            c.comps, tuple(subst(a, m) for a in c.atomic_ids)))
        return out

    def joint(self, combo) -> Cand:
        first = combo[0]
        program: list = []
        for c in combo:
            program.extend(c.program)
        # A part shown like an earlier one (the same line) is listed once.
        shown: dict[str, Origin] = {}
        for c in combo:
            shown.setdefault(str(c.origin), c.origin)
        origin = Origin(tuple(loc for o in shown.values() for loc in o.locations))
        return Cand(
            tuple(l for c in combo for l in c.locals), conj(*(c.guard for c in combo)), first.action,
            tuple(program), origin, tuple(o for c in combo for o in c.owners),
            tuple(k for c in combo for k in c.comps), tuple(a for c in combo for a in c.atomic_ids))

    # -- channels ------------------------------------------------------------------
    def channels(self, cands: list[Cand], comps) -> list[Cand]:
        """Sync hand-shakes, buffered FIFO operations; plain events pass through."""
        sc = self.scope
        out = [c for c in cands if c.action[0] == "event"]
        arity: dict = {}
        for c in cands:
            if c.action[0] in ("send", "recv"):
                ch = _channel_name(c.action[1])
                n = len(c.action[2])
                if sc.capacities[ch] == 0:
                    continue  # a hand-shake pairs a send and a receive of as many values (PAT)
                if arity.setdefault(ch, n) != n:
                    raise InputError(f"channel '{ch}' is used with {n} value(s) here but {arity[ch]} elsewhere",
                                     sc.path, *_line_col(c.origin))
        self.buffers = {}
        for name in sc.channels:
            for ch, sends, recvs in self.channel_elements(name, cands):
                if not sends and not recvs:
                    continue
                cap = sc.capacities[name]
                if cap == 0:
                    for s in sends:
                        for r in recvs:
                            if len(s.action[2]) != len(r.action[2]):
                                continue
                            j = self.handshake(ch, s, r, comps)
                            if j is not None:
                                out.append(j)
                else:
                    out += self.buffered(ch, cap, arity[name], sends, recvs)
        return out

    def channel_elements(self, name: str, cands: list[Cand]):
        """``(channel, sends, recvs)`` for channel ``name``, or for each element ``name[j]``
        of a channel array: an operation on ``name[e]`` belongs to element j under the
        extra guard ``e == j`` (none when ``e`` is the constant j; dropped when another)."""
        ops = [c for c in cands if c.action[0] in ("send", "recv") and _channel_name(c.action[1]) == name]
        size = self.scope.channels[name].size
        if size is None:
            yield name, [c for c in ops if c.action[0] == "send"], [c for c in ops if c.action[0] == "recv"]
            return
        n = self.scope.constant(size, what="a channel array size")
        for j in range(n):
            sends, recvs = [], []
            for c in ops:
                index = c.action[1][1]
                if isinstance(index, Const):
                    if index.value != j:
                        continue
                    guard = c.guard
                else:
                    guard = conj(c.guard, Binary("==", index, Const(j)))
                element = dataclasses.replace(c, guard=guard, action=(c.action[0], f"{name}[{j}]", c.action[2]))
                (sends if c.action[0] == "send" else recvs).append(element)
            for c in ops:
                index = c.action[1][1]
                if isinstance(index, Const) and not 0 <= index.value < n:
                    raise InputError(f"channel {name}[{index.value}] is outside {name}[0..{n - 1}]",
                                     self.scope.path, *_line_col(c.origin))
            yield f"{name}[{j}]", sends, recvs

    def handshake(self, ch: str, s: Cand, r: Cand, comps) -> Optional[Cand]:
        same = set(s.comps) & set(r.comps)
        if same and all(comps[k].local is None for k in same):
            return None  # a process cannot hand-shake with itself
        taken = {l.name for l in s.locals} | set(self.storage.taken)
        renaming = {}
        r_locals = []
        for loc in r.locals:
            new = loc.name
            while new in taken:
                new += "_r"
            taken.add(new)
            renaming[loc.name] = Name(new)
            r_locals.append(Local(new, loc.domain))
        rr = Cand(tuple(r_locals), subst(r.guard, renaming),
                  (r.action[0], r.action[1], tuple(subst(a, renaming) for a in r.action[2])),
                  subst_stmts(r.program, renaming), r.origin, r.owners, r.comps,
                  tuple(subst(a, renaming) for a in r.atomic_ids))
        distinct = []
        for k in same:  # the same family: different instances only
            loc = comps[k].local
            distinct.append(Binary("!=", Name(loc.name), renaming[loc.name]))
        latched, temps = latch(s.action[2], lambda j: f"_sent{j}")
        program = list(latched) + list(s.program)
        program += [Assign(st, t) for st, t in zip(rr.action[2], temps)]
        program += list(rr.program)
        return Cand(s.locals + rr.locals, conj(s.guard, _received(rr.guard, s.action[2]), *distinct),
                    ("event", ch, s.action[2]),
                    tuple(program), Origin(s.origin.locations + r.origin.locations),
                    s.owners + rr.owners, s.comps + rr.comps,
                    s.atomic_ids + rr.atomic_ids)

    def buffered(self, ch: str, cap: int, n: int, sends, recvs) -> list[Cand]:
        base = ch.replace("[", "_").replace("]", "")  # element c[2] of an array: c_2_buf
        bufs = [self.storage.fresh(f"{base}_buf" if n == 1 else f"{base}_buf{j}") for j in range(n)]
        fifo = FifoBuffer(tuple(bufs), self.storage.fresh(f"{base}_count"), cap, NONE)
        self.buffers[ch] = fifo
        out = []
        for s in sends:
            out.append(dataclasses.replace(s, guard=conj(s.guard, fifo.not_full()),
                                           action=("event", ch + "!", s.action[2]),
                                           program=fifo.enqueue(s.action[2]) + s.program))
        heads = tuple(fifo.head(k) for k in range(n))
        for r in recvs:
            program = tuple(Assign(st, h) for st, h in zip(r.action[2], heads)) + fifo.dequeue()
            out.append(dataclasses.replace(r, guard=conj(_received(r.guard, heads), fifo.not_empty()),
                                           action=("event", ch + "?", heads),
                                           program=program + r.program))
        return out


def _with_pools(tree: Union[Tree, int], pools: Mapping[int, list[int]]) -> Union[Tree, int]:
    """``tree`` with each spawning component's leaf interleaved with its pools: the spawned
    processes are part of their spawner's operand of any enclosing ``||`` or hiding."""
    if isinstance(tree, int):
        return Tree("|||", (tree, *pools[tree])) if tree in pools else tree
    return dataclasses.replace(tree, children=tuple(_with_pools(ch, pools) for ch in tree.children))


def _is_placeholder(e: Expr) -> bool:
    return isinstance(e, Name) and e.name.startswith(RECEIVED)


def _received(guard: Expr, values) -> Expr:
    """A receive's guard with its placeholders ``_recv<k>`` replaced by the values received."""
    return subst(guard, {f"{RECEIVED}{k}": v for k, v in enumerate(values)})


def _channel_name(channel) -> str:
    """The declared name of a channel operand: a name, or (array name, index)."""
    return channel[0] if isinstance(channel, tuple) else channel


def _subst_channel(channel, m: dict):
    return (channel[0], subst(channel[1], m)) if isinstance(channel, tuple) else channel


def _line_col(origin: Origin) -> tuple[int, int]:
    """Where an error about a candidate points: its first process step."""
    first = origin.first()
    return first.line, first.column


def _reaches(scope: Scope, p: Proc, found, seen: Optional[set] = None) -> bool:
    """Does ``p``, or a process it may call, contain a term ``found`` holds for?"""
    seen = set() if seen is None else seen
    if found(p):
        return True
    if isinstance(p, PCall):
        if p.name in seen or p.name not in scope.processes:
            return False
        seen.add(p.name)
        return _reaches(scope, scope.processes[p.name].body, found, seen)
    if isinstance(p, PPrefix):
        return _reaches(scope, p.then, found, seen)
    if isinstance(p, (PGuard, PAtomic, PHide)):
        return _reaches(scope, p.proc, found, seen)
    if isinstance(p, PBinary):
        return _reaches(scope, p.left, found, seen) or _reaches(scope, p.right, found, seen)
    if isinstance(p, PIf):
        return _reaches(scope, p.then, found, seen) or (p.else_ is not None and _reaches(scope, p.else_, found, seen))
    if isinstance(p, PIndexed):
        return _reaches(scope, p.body, found, seen)
    return False


def _uses_atomic(scope: Scope, p: Proc) -> bool:
    return _reaches(scope, p, lambda node: isinstance(node, PAtomic))


def _is_parallel_node(p: Proc) -> bool:
    return isinstance(p, (PBinary, PIndexed)) and p.op in ("|||", "||")


def _interleaved(p: Proc) -> list[Proc]:
    """The operands of a chain of ``|||`` (associative)."""
    if isinstance(p, PBinary) and p.op == "|||":
        return _interleaved(p.left) + _interleaved(p.right)
    return [p]


# ============================================================================ the model


def build_model(scope: Scope, system: str, system_args: tuple, name: str,
                parameters: tuple[tuple[str, int], ...], max_spawned: Optional[int] = None,
                about: tuple[str, ...] = ()) -> SequentialModel:
    """Linearise process ``system`` of ``scope`` into a validated ``SequentialModel`` whose
    ``DomainFacts`` ask ``detect.transform.narrowing`` to settle the domains of variables
    without a declared range and of stored values and buffers (placeholders until then,
    holding ``NONE``) and to narrow the declared ranges of user variables.  ``max_spawned``
    is the number of slots of each pool of spawned processes (``Linearisation``).  ``about``
    gives, per ``#assert``, the process call it is about when that is not ``system``'s
    (``Assertion.about``): its condition is not translated, as it has no verdict here.

    Why one function: it assembles the model's parts in the order their numbering depends on (variables, pcs, storage, summands, processes).
    """
    from detect.ir import ModelError, validate

    lin = Linearisation(scope, system, system_args, name, max_spawned)
    comps, autos, pcs, group_locs, storage, cands, id_base = lin.run()
    variables: list[Variable] = []
    to_infer: dict[str, tuple[Span, str]] = {}
    for vname in scope.order:
        var, unranged = _user_variable(scope, vname)
        variables.append(var)
        if unranged:
            to_infer[vname] = (scope.variables[vname].decl.pos, "user")
    sizes = storage.group_sizes
    for g, pc in pcs.items():
        n = sizes[g]
        variables.append(Variable(pc, tuple(range(group_locs[g])), ((0,),) * n, n if n > 1 else None,
                                  owner=None))
    # Stored parameters and received values: initial values from the entry locations.
    init_values: dict[str, dict[int, int]] = {}
    for c, (_, _, init_stores) in zip(comps, autos):
        for value_of in (c.local.domain if c.local else (None,)):
            m = {c.local.name: Const(value_of)} if c.local else {}
            for st, val in init_stores:
                v = subst(val, m)
                if not isinstance(v, Const):
                    raise scope.error("initial process arguments must be constants", c.pos)
                slot = subst(st.index, m).value if isinstance(st, Index) else 0
                init_values.setdefault(st.array if isinstance(st, Index) else st.name, {})[slot] = v.value
    for var, size, pos, what in storage.order:
        given = init_values.get(var, {})
        inits = tuple((given.get(k, NONE),) for k in range(size or 1))
        # A parameter's dead value is written when it is reset; under a provisional range
        # (see ``Unranged``) the placeholder must already allow it.
        dead = {NONE} if what.startswith("parameter") else set()
        dom = tuple(sorted({v for (v,) in inits} | dead))
        variables.append(Variable(var, dom, inits, size))
        to_infer[var] = (pos, what)
    for ch, fifo in lin.buffers.items():
        pos = scope.channels[ch.split("[")[0]].pos
        for k, b in enumerate(fifo.fields):
            variables.append(fifo.field_variable(k, (NONE,)))
            to_infer[b] = (pos, f"buffer of channel '{ch}'")
        variables.append(fifo.length_variable())
    if lin.owner is not None:
        variables.append(lin.owner.variable(range(1, lin.n_instances + 1)))

    summands = []
    for c in cands:
        guard = c.guard
        if lin.owner is not None:
            guard = conj(guard, lin.owner.turn(c.atomic_ids))
        if isinstance(guard, Const) and not guard.value:
            continue
        summands.append(Summand(c.locals, guard, Event(c.action[1], tuple(c.action[2])), c.program,
                                c.origin, c.owners))

    terminal = _terminal(comps, autos, pcs, sizes)
    assertions = []
    for i, a in enumerate(scope.assertions):
        other = about[i] if i < len(about) else ""
        cond = scope.expr(a.condition, {}) if a.condition is not None and not other else None
        objective = scope.expr(a.objective, {}) if a.objective is not None and not other else None
        # An LTL formula is read whichever process it is about (a bad one is bad input).
        temporal = temporal_property(scope, a) if a.kind == "ltl" else None
        assertions.append(Assertion(a.kind, a.text, cond, objective, a.sense, other,
                                    None if other else temporal))
    unranged = tuple(
        # A stored process parameter (``Tick(t + 1)`` under a guard ``t < N``) is bounded by
        # reachability like a user counter, so it may take its domain from the reachable states.
        Unranged(v, None, what == "user" or what.startswith("parameter"),
                 f"variable '{v}'" if what == "user" else what, scope.path,
                 pos.line, pos.column)
        for v, (pos, what) in to_infer.items())
    facts = DomainFacts(
        "csp", unranged, frozenset(v for v in scope.variables if v not in to_infer),
        Placeholder(NONE, frozenset(v for v, (_, what) in to_infer.items() if what != "user")))
    model = SequentialModel(name, tuple(variables), tuple(summands), tuple(assertions), parameters,
                            scope.path, terminal=terminal, observable_events=True, domains=facts,
                            processes=_processes(comps, pcs, storage))
    try:
        validate(model)
    except ModelError as e:
        raise InputError(f"cannot linearise this model: {e}", scope.path) from None
    return model


def _processes(comps: list[Component], pcs: Mapping[str, str], storage: _Storage) -> tuple[Process, ...]:
    """The process instances: one per component, one per value of a family's local (named
    as the summands' owners name them); each owns its element of its group's pc array and
    of the arrays storing its parameters and received values."""
    group_arrays: dict[str, list[str]] = {}
    for (group, *_), var in storage.names.items():
        group_arrays.setdefault(group, []).append(var)
    for group, pc in pcs.items():
        group_arrays.setdefault(group, []).insert(0, pc)
    processes = []
    for c in comps:
        scalar = storage.group_sizes[c.group] == 1
        for k in range(c.count):
            slot = c.offset + k
            owned = tuple((var, 0 if scalar else slot) for var in group_arrays.get(c.group, ()))
            if c.local is None:
                processes.append(Process(c.owner, c.group, slot, None, owned))
            else:
                pid = c.lo + k
                processes.append(Process(f"{c.group}({pid})", c.group, slot, pid, owned))
    return tuple(processes)


def _user_variable(scope: Scope, vname: str) -> tuple[Variable, bool]:
    g = scope.variables[vname]
    d = g.decl
    n = g.size or 1
    dom = None
    if d.range is not None:
        lo = scope.constant(d.range[0], what="a constant range bound")
        hi = scope.constant(d.range[1], what="a constant range bound")
        if hi < lo:
            raise scope.error(f"empty range {{{lo}..{hi}}} for '{vname}': {lo} > {hi}", d.range[0].pos)
        dom = tuple(range(lo, hi + 1))
    if d.init == "*":
        if dom is None:
            raise scope.error(f"'{vname} = *' needs a declared range, e.g. var {vname} : {{0..1}} = *;", d.pos)
        inits = (dom,) * n
    elif d.init is None:
        inits = ((0,),) * n
    elif isinstance(d.init, tuple):
        values: list[int] = []
        for item in d.init:
            v = scope.constant(item.value, what="a constant initial value")
            k = 1 if item.count is None else scope.constant(item.count, what="a constant repeat count")
            if k < 0:
                raise scope.error(f"negative repeat count {k}", item.value.pos)
            values += [v] * k
        if g.size is None or len(values) != n:
            raise scope.error(f"'{vname}' has {n} element(s) but the initialiser gives {len(values)}", d.pos)
        inits = tuple((v,) for v in values)
    else:
        v = scope.constant(d.init, what="a constant initial value")
        inits = ((v,),) * n
    if dom is not None:
        bad = [v for allowed in inits for v in allowed if v not in dom]
        if bad:
            raise scope.error(f"initial value {bad[0]} of '{vname}' is outside its range "
                              f"{{{dom[0]}..{dom[-1]}}}", d.pos)
        return Variable(vname, dom, inits, g.size, hidden=d.hidden), False
    placeholder = tuple(sorted({v for allowed in inits for v in allowed}))
    return Variable(vname, placeholder, inits, g.size, hidden=d.hidden), True


def _terminal(comps, autos, pcs, sizes) -> Optional[Expr]:
    parts = []
    for c, (locs, _, _) in zip(comps, autos):
        if SKIP not in locs:
            return None
        skip_id = locs.index(SKIP)
        pc = pcs.get(c.group)
        if pc is None:
            continue  # the only location is Skip
        values = c.local.domain if c.local else (None,)
        for v in values:
            slot = subst(c.slot(), {c.local.name: Const(v)}) if c.local else c.slot()
            counter = ProgramCounter(Index(pc, slot) if sizes[c.group] > 1 else Name(pc))
            parts.append(counter.at(skip_id))
    return conj(*parts)
