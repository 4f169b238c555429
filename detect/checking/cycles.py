"""Acceptance cycles: is there a reachable cycle through an accepting state?

An ``acceptance`` assertion's condition says which states accept (Promela: the never claim,
or without one a process, at an ``accept`` label).  Its verdict comes from the unreduced
reachable graph: it fails iff a strongly connected component with a cycle (more than one
state, or a self-loop) holds an accepting state -- what Spin's ``pan -a`` looks for with its
nested search, without fairness.  The graph is that of the whole model, never claim and
stutter moves included, so a system that stops with the claim cycling on its last state is
an acceptance cycle as in Spin.  Where the native explorer runs (``_native_cycle``), the
search is ``runtime.c``'s nested depth-first search over packed states (no slot budget; it
stops at the first cycle, and ``first_acceptance_cycle`` runs it before any exploration, as
pan -a stops at its first error; one that finds none has expanded every state once and
gathered what the breadth-first exploration reports, which a run that does not reduce takes
instead of exploring again: ``FirstSearch.exploration``).  Elsewhere the graph is built in Python and holds every
state, so it is bounded like ``--verify``'s (``--max-states``, the state-slot budget of
``explore.state_bound``, the time left); a check cut short makes the verdict "unknown", with
a note saying what to pass.

With a ``Quotient`` (``explore --reduce``), the search runs on the quotient graph instead:
orbit representatives of a group G of automorphisms of the transition system (checked on
every expanded representative), a representative's successors the representatives of its
real successors.  Where the accepting condition is G-invariant (checked on every valuation
of what it reads), the quotient has a cycle through an accepting state iff the model has
(Emerson and Sistla, "Symmetry and model checking", 1996; Clarke et al. 1996): a model
cycle maps onto a quotient path that runs through the orbits of its states forever, so
within one component that repeats an accepting orbit; a quotient cycle from ``r`` back to
``r`` lifts to a real path from ``r`` to ``g r``, and so on to ``g^k r = r``.  The never
claim's location is a state variable, so a group detected on the product maps the claim
onto itself.  The lasso found is lifted that way into a real lasso of the model
(``unpermuted_lasso``), which ``symdetect replay`` takes step by step.  A condition that
is not G-invariant, or undecided, and the ``pids`` strategy (whose moves are not a group),
fall back to the unreduced graph, with a note.

Weak fairness (``weak_fairness``, Spin's ``pan -a -f``/``-l -f``) counts only the cycles
along which every process able to move all along moves: pan's counter construction on the
unreduced product, with what the front end says of it (``ir.WeakFairness``) -- in C by the
nested search over (state, counter) where the native explorer runs (``_native_fair_cycle``),
else in Python (``_fair_acceptance_cycle_unreduced``); or on Emerson and Sistla's annotated
quotient (``_fair_acceptance_cycle``): the plain quotient forgets which process moved
(README, "Symmetry under fairness").
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from detect import ir
from detect.ir import SequentialModel, WeakFairness
from detect.statespace.compile import compile_model
from detect.statespace.compile import State
from detect.statespace.explore import (AssertionResult, CanonicalUndecided, Exploration, NotASymmetry,
                                      ReachableGraph, TraceStep, reachable_graph, state_bound, trace_between)
from detect.checking.verify import INTERRUPTED, MAX_STATES, SLOT_BUDGET, stop_advice, stop_reason


def cyclic_components(successors: Sequence[frozenset[int]]) -> list[list[int]]:
    """The strongly connected components of the graph that contain a cycle (Tarjan's
    algorithm, iterative; a state not expanded has no successors)."""
    n = len(successors)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, iter(successors[root] if root < len(successors) else ()))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, iter(successors[w] if w < len(successors) else ())))
                    advanced = True
                    break
                if on_stack[w]:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1 or (v < len(successors) and v in successors[v]):
                    out.append(component)
    return out


def lasso(successors: Sequence[frozenset[int]], initial: frozenset[int], component: Sequence[int],
          accepting: int) -> tuple[list[int], int]:
    """``(path, loop_from)``: a shortest path from an initial state to ``accepting`` (a state of
    the cyclic ``component``) followed by a shortest cycle from it back to itself inside the
    component; ``path[loop_from] == path[-1] == accepting``."""
    def shortest(sources, target, allowed) -> list[int]:
        parent = {s: None for s in sources}
        frontier = list(sources)
        while frontier and target not in parent:
            nxt = []
            for v in frontier:
                for w in (successors[v] if v < len(successors) else ()):
                    if w not in parent and (allowed is None or w in allowed):
                        parent[w] = v
                        nxt.append(w)
            frontier = nxt
        path = [target]
        while parent[path[-1]] is not None:
            path.append(parent[path[-1]])
        return path[::-1]

    stem = [accepting] if accepting in initial else shortest(sorted(initial), accepting, None)
    inside = set(component)
    # The cycle: a shortest path from a successor of ``accepting`` in the component back to it.
    after = sorted(w for w in successors[accepting] if w in inside)
    cycle = [accepting] if accepting in after else shortest(after, accepting, inside)
    return stem + cycle, len(stem) - 1


@dataclass(frozen=True)
class Quotient:
    """What the search on the quotient graph needs: ``model`` (the one the group acts on:
    the detection's, narrowed to the reachable domains), ``canonicalise`` (a state to its
    orbit's representative), ``generators`` (state permutations generating the group, each
    checked on every expanded representative), the group's ``order`` and whether the
    acceptance condition is invariant (``invariant(assertion index)``: True, False or None
    when undecided)."""

    model: SequentialModel
    canonicalise: Callable[[State], State]
    generators: tuple[Callable[[State], State], ...]
    order: int
    invariant: Callable[[int], Optional[bool]]
    #: per generator, the slot each state slot goes to (``weak_fairness``: which process
    #: becomes which); empty when unknown
    slot_maps: tuple[tuple[int, ...], ...] = ()
    #: what C computes ``canonicalise`` as (``reduce.Reducer.native_canonical``), for the
    #: native cycle search; None: only Python does
    native_canonical: object = None


def unpermuted_lasso(compiled, initial: Sequence[State], canonicalise: Callable[[State], State],
                     reps: Sequence[State], loop_from: int) -> tuple[tuple[TraceStep, ...], int]:
    """A real lasso of the model from a lasso ``reps`` of the quotient (representatives;
    ``reps[loop_from] == reps[-1]``): the stem lifted from a real initial state, then the
    cycle lifted again and again from where the last lift ended (a state of the same orbit)
    until a real state repeats -- at most once per element of the orbit, since each lift is a
    function of its start.  Returns ``(trace, loop_from)`` with ``trace[loop_from].state ==
    trace[-1].state``."""
    start = next(x for x in initial if canonicalise(x) == reps[0])
    trace = list(trace_between(compiled, start, reps[1:loop_from + 1], canonicalise))
    seen = {trace[-1].state: len(trace) - 1}
    cycle = reps[loop_from + 1:]
    while True:
        lifted = trace_between(compiled, trace[-1].state, cycle, canonicalise)
        trace.extend(lifted[1:])
        if any(step.event == "<no matching step>" for step in lifted):
            raise NotASymmetry(-1, reps[loop_from], trace[-1].state)
        at = seen.get(trace[-1].state)
        if at is not None:
            return tuple(trace), at
        seen[trace[-1].state] = len(trace) - 1


def acceptance_cycle(model: SequentialModel, condition, max_states: int, timeout: Optional[float] = None,
                     memory_limit: Optional[int] = None, interruptible: bool = False
                     ) -> tuple[Optional[bool], int, str, tuple[TraceStep, ...], Optional[int]]:
    """``(found, states, why, trace, loop_from)``: whether the reachable graph of ``model`` has
    a cycle through a state satisfying the compiled ``condition``, and if so a lasso to it
    (``trace``, whose cycle starts at ``loop_from``); ``found`` is None when the graph was cut
    short (more than ``max_states`` states, the slot budget, ``timeout`` seconds, a growth of
    ``memory_limit`` bytes, Ctrl-C if ``interruptible``) and ``why`` then says which, and what
    to pass."""
    found, states, why, _, trace, loop_from = _acceptance_cycle(model, condition, max_states, timeout, memory_limit,
                                                                interruptible)
    return found, states, why, trace, loop_from


def _acceptance_cycle(model: SequentialModel, condition, max_states: Optional[int], timeout: Optional[float],
                      memory_limit: Optional[int], interruptible: bool, quotient: Optional[Quotient] = None,
                      index: Optional[int] = None, explored: int = 0, engine: Optional[str] = None,
                      graph: Optional[ReachableGraph] = None
                      ) -> tuple[Optional[bool], int, str, str, tuple[TraceStep, ...], Optional[int]]:
    """``acceptance_cycle``'s answer with, fourth, the ``stop_reason`` of a graph cut short ("" if not);
    with ``quotient``, searched on its quotient graph (``model`` is then ``quotient.model``).

    ``index``: the assertion whose condition ``condition`` is; given, the native nested search
    (``_native_cycle``) looks where the ``engine`` allows (``explored``: the states the exploration
    before found, which makes ``auto`` choose it).  Else the graph is built in Python, bounded by
    ``max_states`` (default 1,000,000) and the slot budget -- unless ``graph``, the model's
    whole unreduced graph (``first_acceptance_cycle``'s probe), is given and within them:
    it is not built again."""
    if index is not None:
        native = _native_cycle(model, index, max_states, timeout, memory_limit, interruptible, quotient, explored,
                               engine)
        if native is not None:
            return native
    max_states = max_states or 1_000_000
    kind = "unreduced" if quotient is None else "reduced"
    bound = state_bound(model, max_states)
    if graph is None or quotient is not None or not graph.complete or len(graph.states) > bound.states:
        graph = reachable_graph(model, max_states=bound.states, timeout=timeout, memory_limit=memory_limit,
                                interruptible=interruptible,
                                canonicalise=quotient.canonicalise if quotient else None,
                                symmetries=quotient.generators if quotient else ())
    stopped_by = stop_reason(graph, bound)
    if stopped_by:
        advice = stop_advice(stopped_by, bound, "while looking for cycles")
        states = len(graph.states)
        if stopped_by in (MAX_STATES, SLOT_BUDGET):
            return None, states, f"more than {states:,} {kind} states; {advice}", stopped_by, (), None
        return None, states, f"stopped after {states:,} {kind} states; {advice}", stopped_by, (), None
    for component in cyclic_components(graph.successors):
        accepting = next((k for k in sorted(component) if condition(graph.states[k])), None)
        if accepting is not None:
            path, loop_from = lasso(graph.successors, graph.initial, component, accepting)
            states = [graph.states[k] for k in path]
            compiled = compile_model(model)
            if quotient is None:
                trace = trace_between(compiled, states[0], states[1:])
            else:
                trace, loop_from = unpermuted_lasso(compiled, list(compiled.initial_states()),
                                                    quotient.canonicalise, states, loop_from)
            return True, len(graph.states), "", "", trace, loop_from
    return False, len(graph.states), "", "", (), None


def _native_cycle(model: SequentialModel, index: int, max_states: Optional[int], timeout: Optional[float],
                  memory_limit: Optional[int], interruptible: bool, quotient: Optional[Quotient], explored: int,
                  engine: Optional[str] = None
                  ) -> Optional[tuple[Optional[bool], int, str, str, tuple[TraceStep, ...], Optional[int]]]:
    """``_acceptance_cycle``'s answer from the native nested depth-first search (the search
    stops at the first cycle, and holds each state once, packed: no slot budget), or None
    where it does not run: engine ``python``, ``auto`` after an exploration of at most
    ``native.AUTO_THRESHOLD`` states (the Python graph is quicker than a compiler there), a
    canonicaliser C does not compute, no compiler, an int64 overflow.  Bounded by
    ``max_states`` (None: none), ``timeout`` and ``memory_limit`` (bytes held)."""
    from detect.statespace import native

    choice = native.engine_choice(engine)
    if choice == "python" or (choice == "auto" and explored <= native.AUTO_THRESHOLD):
        return None
    if quotient is not None and quotient.native_canonical is None:
        return None
    try:
        out = native.acceptance_cycle_native(
            model, index, max_states=max_states, timeout=timeout, memory_limit=memory_limit,
            interruptible=interruptible, canonicalise=quotient.canonicalise if quotient else None,
            symmetries=quotient.generators if quotient else (),
            native_canonical=quotient.native_canonical if quotient else None)
    except (native.NativeUnavailable, CanonicalUndecided):
        # (undecided: the C canonicaliser's search ran out of branches; Python's asks nauty/bliss)
        return None
    kind = "unreduced" if quotient is None else "reduced"
    states, stopped = out["states"], out["stopped"]
    if stopped:
        what = stop_advice(stopped, None, "")  # no state bound here: "raise --max-states"
        lead = "more than" if stopped == MAX_STATES else "stopped after"
        return (None, states, f"{lead} {states:,} {kind} states (nested depth-first search, "
                f"{out['memory_bytes']:,} bytes held); {what}", stopped, (), None)
    if not out["found"]:
        return False, states, "", "", (), None
    path, loop_from = out["path"], out["loop_from"]
    compiled = compile_model(model)
    if quotient is None:
        trace = trace_between(compiled, path[0], path[1:])
    else:
        trace, loop_from = unpermuted_lasso(compiled, list(compiled.initial_states()), quotient.canonicalise,
                                            path, loop_from)
    return True, states, "", "", trace, loop_from


def fairness_of(model: SequentialModel) -> Optional[WeakFairness]:
    """The model's ``ir.WeakFairness`` facts (a Promela product with a never claim), or None."""
    facts = dict(model.annotations).get("weak_fairness")
    return facts if isinstance(facts, WeakFairness) else None


def _predicates(model: SequentialModel, exprs: Sequence) -> list[Callable[[State], bool]]:
    """``exprs`` compiled as state predicates of ``model`` (a read that faults: False)."""
    probe = dataclasses.replace(model, assertions=tuple(ir.Assertion("invariant", f"p{i}", e)
                                                        for i, e in enumerate(exprs)), annotations=())
    return list(compile_model(probe).conditions)


def served_by_steps(model: SequentialModel, fairness: WeakFairness, compiled=None
                    ) -> Callable[[State], tuple[bool, bool, list[tuple[object, frozenset[int]]]]]:
    """``state -> (counted, system's turn, [(step, processes served), ...])``: pan -f's
    Rule 2 on each step (a fault: target None).  Processes are numbered by their place in
    ``fairness.processes``.  On the system's turn a step serves the processes that move in it
    (a rendezvous: sender and receiver), and, where no process holds atomic control, every
    process pan finds blocked there: none of its steps enabled (a rendezvous send that no
    receiver answers is no move for pan either).  Where ``timeout`` holds, pan finds
    every process blocked before trying timeout and makes its "default move": every process
    is served -- except under ``-DNP`` (non-progress), which has no default move; a claim
    move on the system's turn (stutter, atomic hand-over) serves nobody there."""
    compiled = compiled or compile_model(model)
    index = {name: k for k, name in enumerate(fairness.processes)}
    everyone = frozenset(range(len(fairness.processes)))
    turn, counted, free, timeout = _predicates(model, (fairness.system_turn, fairness.counted,
                                                       fairness.atomic_free, fairness.timeout))
    owners = [tuple(index[o] for o in s.owners if o in index) for s in model.summands]

    def served(state: State):
        steps = [(step, owners[step.summand]) for step in compiled.steps(state)]
        if not turn(state):
            return bool(counted(state)), False, [(t, frozenset()) for t, _ in steps]
        held = not free(state)
        if held:
            blocked: frozenset[int] = frozenset()
        elif timeout(state) and not fairness.non_progress:
            blocked = everyone
        else:
            blocked = everyone - {who[0] for _, who in steps if who}
        out = []
        for t, who in steps:
            if not who and (held or fairness.non_progress):
                out.append((t, frozenset()))  # a claim move: stutter under -DNP, hand-over
            else:
                out.append((t, frozenset(who) | blocked))
        return bool(counted(state)), True, out

    return served


class NotProcessPermuting(Exception):
    """A generator does not map each process onto a process (its program counter onto
    another's), so the quotient cannot say who moved."""


def process_maps(model: SequentialModel, fairness: WeakFairness, slot_maps) -> list[tuple[int, ...]]:
    """Per generator (``slot_maps``), the process each of ``fairness.processes`` goes to, read
    off where its program counter's slot goes; ``NotProcessPermuting`` if one goes elsewhere.
    (Only a guess where wrong: the caller checks each generator's map of who is served.)"""
    from detect.ir.model import slot_offsets

    offsets = slot_offsets(model)
    procs = {p.name: p for p in model.processes}
    pcs = []
    for name in fairness.processes:
        # its program counter (a local that never changes may be left where it is)
        slots = procs[name].slots
        var, element = next((x for x in slots if x[0].endswith(".pc")), slots[0])
        pcs.append(offsets[var] + element)
    where = {slot: i for i, slot in enumerate(pcs)}
    out = []
    for images in slot_maps:
        perm = tuple(where.get(images[slot], -1) for slot in pcs)
        if -1 in perm or len(set(perm)) != len(perm):
            raise NotProcessPermuting()
        out.append(perm)
    return out


def _annotated_steps(model: SequentialModel, fairness: WeakFairness, graph, canon, gens, perms, compiled
                     ) -> list[tuple[bool, bool, list[tuple[int, int, tuple[int, ...]]]]]:
    """Per representative of ``graph``: ``(counted, system's turn, [(target's index, who it
    serves as a bit set, process permutation to the target's representative), ...])``;
    ``NotASymmetry`` where a generator does not map the steps, with who they serve, onto
    those of the representative's image."""
    served_of = served_by_steps(model, fairness, compiled)
    n = len(fairness.processes)
    identity = tuple(range(n))
    position = {s: k for k, s in enumerate(graph.states)}

    def bits(served) -> int:
        return sum(1 << p for p in served)

    def permute(mask: int, perm) -> int:
        return sum(1 << perm[p] for p in range(n) if mask >> p & 1)

    def to_representative(t: State):
        """A process permutation of a group element taking ``t`` to its representative."""
        target = canon(t)
        seen = {t: identity}
        frontier = [t]
        while target not in seen:
            nxt = []
            for x in frontier:
                for g, perm in zip(gens, perms):
                    y = g(x)
                    if y not in seen:
                        seen[y] = tuple(perm[seen[x][p]] for p in range(n))
                        nxt.append(y)
            if not nxt:
                raise NotASymmetry(-1, t, target)
            frontier = nxt
        return target, seen[target]

    facts = []
    for rep in graph.states:
        counted, turn, steps = served_of(rep)
        mine = sorted((step.target, bits(served)) for step, served in steps if step.target is not None)
        for k, (g, perm) in enumerate(zip(gens, perms)):
            c2, t2, steps2 = served_of(g(rep))
            theirs = sorted((step.target, bits(served)) for step, served in steps2 if step.target is not None)
            if (c2, t2) != (counted, turn) or sorted((g(t), permute(m, perm)) for t, m in mine) != theirs:
                raise NotASymmetry(k, rep, g(rep))
        out = []
        for t, mask in mine:
            target, perm = to_representative(t)
            out.append((position[target], mask, perm))
        facts.append((counted, turn, out))
    return facts


class _Numbering:
    """Dense numbers for keys in the order first seen: ``keys[numbering(key)] == key``."""

    def __init__(self) -> None:
        self.index: dict = {}
        self.keys: list = []

    def __call__(self, key) -> int:
        k = self.index.get(key)
        if k is None:
            k = self.index[key] = len(self.keys)
            self.keys.append(key)
        return k


def _fair_acceptance_cycle(model: SequentialModel, condition, fairness: WeakFairness, max_states: int,
                           timeout: Optional[float], memory_limit: Optional[int], interruptible: bool,
                           quotient: Optional[Quotient] = None
                           ) -> tuple[Optional[bool], int, str, str, tuple[TraceStep, ...], Optional[int]]:
    """``_fair_acceptance_cycle_unreduced``, or with ``quotient`` on its quotient graph: a node
    is ``(representative, served)`` with ``served`` the set of processes served in the
    round (-1: no round open), in the representative's own numbering; a step to a state
    ``t`` goes to ``(canonical t, pi(served))`` where ``pi`` is a group element taking ``t``
    to its representative, read as a permutation of processes (``process_maps``).  Where
    each generator maps every expanded representative's steps, with who they serve, onto
    its image's (checked: ``NotASymmetry`` otherwise), the fair paths of the product map
    onto paths of this graph and back (Emerson and Sistla's annotated quotient), so it has
    a cycle through a closed round iff the product has.  Sets, not pan's counter: the
    counter's order of processes is not symmetric; a cycle serving everyone serves everyone
    in pan's order too when taken often enough, so the verdicts are the same."""
    if quotient is None:
        return _fair_acceptance_cycle_unreduced(model, condition, fairness, max_states, timeout, memory_limit,
                                                interruptible)
    perms = process_maps(model, fairness, quotient.slot_maps)
    canon, gens = quotient.canonicalise, quotient.generators
    bound = state_bound(model, max_states)
    graph = reachable_graph(model, max_states=bound.states, timeout=timeout, memory_limit=memory_limit,
                            interruptible=interruptible, canonicalise=canon, symmetries=gens)
    stopped_by = stop_reason(graph, bound)
    if stopped_by:
        advice = stop_advice(stopped_by, bound, "while looking for cycles")
        states = len(graph.states)
        kind = "more than" if stopped_by in (MAX_STATES, SLOT_BUDGET) else "stopped after"
        return None, states, f"{kind} {states:,} reduced states; {advice}", stopped_by, (), None
    compiled = compile_model(model)
    n = len(fairness.processes)
    everyone = (1 << n) - 1
    facts = _annotated_steps(model, fairness, graph, canon, gens, perms, compiled)

    def permute(mask: int, perm) -> int:
        return sum(1 << perm[p] for p in range(n) if mask >> p & 1)

    node = _Numbering()
    keys = node.keys
    successors: list[frozenset[int]] = []

    initial = frozenset(node((k, -1)) for k in sorted(graph.initial))
    while len(successors) < len(keys):
        if len(keys) > bound.states:
            advice = stop_advice(MAX_STATES, bound, "while looking for fair cycles")
            return (None, len(graph.states), f"more than {bound.states:,} states with the fairness sets; {advice}",
                    MAX_STATES, (), None)
        k, served = keys[len(successors)]
        counted, turn, steps = facts[k]
        if counted:
            if served == -1 and condition(graph.states[k]):
                served = 0
            elif served == everyone:
                served = -1
        out = set()
        for t, mask, perm in steps:
            after = served | mask if served >= 0 and turn else served
            out.add(node((t, permute(after, perm) if after >= 0 else -1)))
        successors.append(frozenset(out))
    for component in cyclic_components(successors):
        seed = next((v for v in sorted(component) if keys[v][1] == everyone and not facts[keys[v][0]][1]), None)
        if seed is not None:
            path, loop_from = lasso(successors, initial, component, seed)
            reps = [graph.states[keys[v][0]] for v in path]
            trace, loop_from = unpermuted_lasso(compiled, list(compiled.initial_states()), canon, reps, loop_from)
            return True, len(graph.states), "", "", trace, loop_from
    return False, len(graph.states), "", "", (), None


def _fair_moves(model: SequentialModel, condition, fairness: WeakFairness, compiled=None
                ) -> Callable[[State, int], list[tuple[State, int, object]]]:
    """``(state, j) -> [(target, counter after, step), ...]``: pan -f's Rules 1-3 on each
    step of ``state`` with fairness counter ``j`` (-1: no round open, else the processes
    served so far in the order ``fairness.processes`` is read backwards; faulting steps
    left out).  Shared by the Python search and the native search's lasso (``runtime.c``'s
    ``ndfs_fair_successors`` is the same rules in C)."""
    served_of = served_by_steps(model, fairness, compiled)
    n = len(fairness.processes)
    order = list(reversed(range(n)))

    def moves(state: State, j: int) -> list[tuple[State, int, object]]:
        counted, turn, steps = served_of(state)
        if counted:
            if j == -1 and condition(state):
                j = 0
            elif j == n:
                j = -1
        out = []
        for step, served in steps:
            if step.target is None:
                continue
            jj = j
            if jj >= 0 and turn:
                while jj < n and order[jj] in served:
                    jj += 1
            out.append((step.target, jj, step))
        return out

    return moves


def _fair_acceptance_cycle_unreduced(model: SequentialModel, condition, fairness: WeakFairness, max_states: int,
                                     timeout: Optional[float], memory_limit: Optional[int], interruptible: bool
                                     ) -> tuple[Optional[bool], int, str, str, tuple[TraceStep, ...], Optional[int]]:
    """``_acceptance_cycle`` under weak fairness, as ``pan -a -f`` (and ``-l -f``): the
    unreduced product unfolded with pan's fairness counter (Choueka's flag construction).
    A node is ``(state, j)``: ``j`` -1 when no round is open, else the number of processes
    served so far in the order ``fairness.processes`` is read backwards (pan serves the
    highest process number first).  Where pan counts (``fairness.counted``): a round opens
    at an accepting state (Rule 1, ``j`` = 0) and closes once everyone is served (Rule 3);
    each step then serves the processes ``served_by_steps`` says, the awaited one first
    (Rule 2).  A fair acceptance cycle is a cycle through a node with every process served
    where the claim is to move (pan's seed, ``checkcycles``): a cyclic strongly connected
    component of the unfolded graph holding one.  The lasso takes, from each state, a step
    that serves what the cycle needs (another process's step to the same state may not).
    The native explorer's nested search (``_native_fair_cycle``) is the same construction."""
    bound = state_bound(model, max_states)
    graph = reachable_graph(model, max_states=bound.states, timeout=timeout, memory_limit=memory_limit,
                            interruptible=interruptible)
    stopped_by = stop_reason(graph, bound)
    if stopped_by:
        advice = stop_advice(stopped_by, bound, "while looking for cycles")
        states = len(graph.states)
        if stopped_by in (MAX_STATES, SLOT_BUDGET):
            return None, states, f"more than {states:,} unreduced states; {advice}", stopped_by, (), None
        return None, states, f"stopped after {states:,} unreduced states; {advice}", stopped_by, (), None
    compiled = compile_model(model)
    all_moves = _fair_moves(model, condition, fairness, compiled)
    n = len(fairness.processes)
    position = {s: k for k, s in enumerate(graph.states)}
    turns = _predicates(model, (fairness.system_turn,))[0]
    node = _Numbering()
    keys = node.keys
    successors: list[frozenset[int]] = []

    def moves(k: int, j: int):
        """``(target's index, counter after, step)`` for each step from node ``(k, j)``."""
        return [(position[t], jj, step) for t, jj, step in all_moves(graph.states[k], j)]

    initial = frozenset(node((k, -1)) for k in sorted(graph.initial))
    while len(successors) < len(keys):
        if len(keys) > bound.states:
            advice = stop_advice(MAX_STATES, bound, "while looking for fair cycles")
            return (None, len(graph.states), f"more than {bound.states:,} states with the fairness counter; {advice}",
                    MAX_STATES, (), None)
        k, j = keys[len(successors)]
        successors.append(frozenset(node((t, jj)) for t, jj, _ in moves(k, j)))
    for component in cyclic_components(successors):
        seed = next((v for v in sorted(component) if keys[v][1] == n and not turns(graph.states[keys[v][0]])),
                    None)
        if seed is not None:
            path, loop_from = lasso(successors, initial, component, seed)
            trace = [TraceStep(None, graph.states[keys[path[0]][0]])]
            for u, v in zip(path, path[1:]):
                step = next(step for t, jj, step in moves(*keys[u]) if (t, jj) == keys[v])
                trace.append(TraceStep(step.event, step.target, step.summand, tuple(step.binding)))
            return True, len(graph.states), "", "", tuple(trace), loop_from
    return False, len(graph.states), "", "", (), None


def _native_fair_cycle(model: SequentialModel, condition, fairness: WeakFairness, index: int,
                       max_states: Optional[int], timeout: Optional[float], memory_limit: Optional[int],
                       interruptible: bool, explored: int, engine: Optional[str]
                       ) -> Optional[tuple[Optional[bool], int, str, str, tuple[TraceStep, ...], Optional[int]]]:
    """``_fair_acceptance_cycle_unreduced``'s answer from the native nested search over the
    states with pan's fairness counter (``runtime.c``, ``nx_ndfs_new_fair``: packed states, a
    colour byte per (state, counter), no slot budget, stopping at the first fair cycle), or
    None where it does not run (as ``_native_cycle``: engine ``python``, ``auto`` after a
    small exploration, no compiler, facts C cannot read).  The lasso's steps are chosen,
    as in Python, among those that take the counter where the search went."""
    from detect.statespace import native

    choice = native.engine_choice(engine)
    if choice == "python" or (choice == "auto" and explored <= native.AUTO_THRESHOLD):
        return None
    try:
        out = native.acceptance_cycle_native(model, index, max_states=max_states, timeout=timeout,
                                             memory_limit=memory_limit, interruptible=interruptible, fair=True)
    except native.NativeUnavailable:
        return None
    states, stopped = out["states"], out["stopped"]
    if stopped:
        what = stop_advice(stopped, None, "")
        lead = "more than" if stopped == MAX_STATES else "stopped after"
        return (None, states, f"{lead} {states:,} unreduced states (nested depth-first search with the fairness "
                f"counter, {out['memory_bytes']:,} bytes held); {what}", stopped, (), None)
    if not out["found"]:
        return False, states, "", "", (), None
    moves = _fair_moves(model, condition, fairness)
    path, counters = out["path"], out["counters"]
    trace = [TraceStep(None, path[0])]
    for (s, j), (t, jj) in zip(zip(path, counters), zip(path[1:], counters[1:])):
        step = next(step for u, k, step in moves(s, j) if (u, k) == (t, jj))
        trace.append(TraceStep(step.event, step.target, step.summand, tuple(step.binding)))
    return True, states, "", "", tuple(trace), out["loop_from"]


def _fair_verdict(model: SequentialModel, i: int, cond, facts: WeakFairness, quotient: Optional[Quotient],
                  notes: list, max_states: Optional[int], timeout: Optional[float], memory_limit: Optional[int],
                  interruptible: bool, explored: int = 0, engine: Optional[str] = None) -> AssertionResult:
    """The verdict of acceptance assertion ``i`` (condition ``cond``) under weak fairness, on
    the annotated quotient where ``quotient`` allows, else unreduced (a note in ``notes``):
    there by the native nested search where the engine allows (``_native_fair_cycle``:
    ``max_states`` None is no bound), else in Python (``max_states`` default 1,000,000)."""
    a = model.assertions[i]
    use, why_not = quotient, ""
    if quotient is not None and not quotient.invariant(i):
        use, why_not = None, "the accepting states are not (known to be) invariant under the symmetry group"
    elif quotient is not None and (not quotient.slot_maps or fairness_of(quotient.model) is None):
        use, why_not = None, "the group's action on processes is not known"
    bound = max_states or 1_000_000
    try:
        where = (model, cond, facts) if use is None else (
            use.model, compile_model(use.model).conditions[i], fairness_of(use.model))
        native = None if use is not None else _native_fair_cycle(
            model, cond, facts, i, max_states, timeout, memory_limit, interruptible, explored, engine)
        cycle, states, why, stopped_by, trace, loop_from = native or _fair_acceptance_cycle(
            *where, bound, timeout, memory_limit, interruptible, use)
    except (NotASymmetry, NotProcessPermuting, ir.ModelError) as e:
        # (ModelError: the detection's model lost a variable the fairness facts read)
        use, why_not = None, ("the group does not permute whole processes"
                              if isinstance(e, NotProcessPermuting) else
                              "a generator does not map who moves where onto itself"
                              if isinstance(e, NotASymmetry) else
                              "the reduced model lacks what fairness reads")
        cycle, states, why, stopped_by, trace, loop_from = _native_fair_cycle(
            model, cond, facts, i, max_states, timeout, memory_limit, interruptible, explored, engine
        ) or _fair_acceptance_cycle(model, cond, facts, bound, timeout, memory_limit, interruptible)
    if use is not None and cycle is None and stopped_by in (MAX_STATES, SLOT_BUDGET) and max_states is None:
        # the annotated quotient is built in Python, within the default budget: past it, the
        # unreduced product by the nested search in C (packed states, no slot budget)
        native = _native_fair_cycle(model, cond, facts, i, None, timeout, memory_limit, interruptible,
                                    max(states, explored), engine)
        if native is not None:
            use, why_not = None, f"the annotated quotient passed {states:,} states"
            cycle, states, why, stopped_by, trace, loop_from = native
    if why_not:
        notes.append(f"assert {a.text}: under weak fairness, {why_not}; fair cycles looked for without "
                     "reduction")
    among = (f"among {states:,} unreduced states" if use is None else
             f"among {states:,} states of the quotient by the symmetry group (order {use.order:,})")
    if cycle is None:
        return AssertionResult(a, "unknown", (), f"acceptance cycles not checked: {why}", stopped_by=stopped_by)
    return AssertionResult(a, "fails" if cycle else "holds", trace, f"{'a' if cycle else 'no'} weakly fair cycle "
                           f"(as pan -f) through an accepting state {among}", loop_from=loop_from)


def check_acceptance(model: SequentialModel, result: Exploration, max_states: int | None,
                     timeout: Optional[float] = None, memory_limit: Optional[int] = None,
                     interruptible: bool = False, quotient: Optional[Quotient] = None,
                     weak_fairness: bool = False, engine: Optional[str] = None,
                     graph: Optional[ReachableGraph] = None) -> Exploration:
    """``result`` with its ``acceptance`` verdicts decided (see the module docstring), looking
    at most ``max_states`` (default 1,000,000) states, ``timeout`` seconds and
    ``memory_limit`` bytes of resident-set growth; with ``interruptible``, Ctrl-C stops the
    check, and an interrupted ``result`` is not checked at all (the user asked to stop).
    With ``quotient``, on the quotient graph where that is sound (module docstring); a
    generator refuted there sends the check to the unreduced graph, with a note.  ``engine``:
    ``native.engine_choice``'s (None: the environment's), for the native search.  ``graph``:
    ``model``'s whole unreduced graph where one was built already (``first_acceptance_cycle``'s
    probe), searched instead of building it again."""
    kinds = [a.kind for a in model.assertions]
    if "acceptance" not in kinds:
        return result
    compiled = compile_model(model)
    verdicts = list(result.assertions)
    notes = list(result.notes)
    for i, (a, cond) in enumerate(zip(model.assertions, compiled.conditions)):
        if a.kind != "acceptance" or cond is None or verdicts[i].verdict != "not checked":
            continue
        if interruptible and result.interrupted:
            verdicts[i] = AssertionResult(a, "unknown", (), "acceptance cycles not checked: interrupted",
                                          stopped_by=INTERRUPTED)
            continue
        facts = fairness_of(model) if weak_fairness else None
        if facts is not None:
            verdicts[i] = _fair_verdict(model, i, cond, facts, quotient, notes, max_states, timeout,
                                        memory_limit, interruptible, result.states, engine)
            continue
        use, why_not = quotient, ""
        if quotient is not None:
            invariant = quotient.invariant(i)
            if not invariant:
                use = None
                why_not = ("the accepting states are not invariant under the symmetry group" if invariant is False
                           else "could not check that the accepting states are invariant under the symmetry group")
        where, where_cond = (model, cond) if use is None else (use.model, compile_model(use.model).conditions[i])
        try:
            cycle, states, why, stopped_by, trace, loop_from = _acceptance_cycle(
                where, where_cond, max_states, timeout, memory_limit, interruptible, use, i, result.states, engine,
                graph)
        except NotASymmetry as wrong:
            use, why_not = None, (f"generator {wrong.generator} is not a symmetry of this model (it does not map the "
                                  "steps of a reachable state onto those of its image). This is a bug in symmetry "
                                  "detection; please report it")
            cycle, states, why, stopped_by, trace, loop_from = _acceptance_cycle(
                model, cond, max_states, timeout, memory_limit, interruptible, None, i, result.states, engine,
                graph)
        if why_not:
            notes.append(f"assert {a.text}: {why_not}; acceptance cycles looked for without reduction")
        among = (f"among {states:,} unreduced states" if use is None else
                 f"among {states:,} states of the quotient by the symmetry group (order {use.order:,})")
        if cycle is None:
            verdicts[i] = AssertionResult(a, "unknown", (), f"acceptance cycles not checked: {why}",
                                          stopped_by=stopped_by)
        elif not cycle and result.bounds:
            # the search did not go past the steps cut at a bound of ours: a cycle may lie there
            verdicts[i] = AssertionResult(a, "unknown", (), f"no cycle through an accepting state {among}, but "
                                          f"a bound of ours was reached ({result.bounds_reached[0]})")
        else:
            verdicts[i] = AssertionResult(a, "fails" if cycle else "holds", trace,
                                          f"{'a' if cycle else 'no'} cycle through an accepting state {among}"
                                          + (" (the lasso un-permuted into a real one)" if cycle and use else ""),
                                          loop_from=loop_from)
    return dataclasses.replace(result, assertions=tuple(verdicts), notes=tuple(dict.fromkeys(notes)))


@dataclass(frozen=True)
class FirstSearch:
    """What ``first_acceptance_cycle`` leaves for the rest of the run: ``found`` (the first
    acceptance cycle: ``(assertion index, its "fails" verdict with the lasso, the search's
    figures)``, or None), ``holds`` (the acceptance assertions whose whole search found no
    cycle, their "holds" verdicts), ``graph`` (``auto``'s probe where it holds the whole
    unreduced graph: ``check_acceptance`` searches it instead of building it again) and
    ``large`` (the probe showed a model past ``native.AUTO_THRESHOLD`` states: an unreduced
    exploration may go to the native explorer at once instead of exploring that prefix in
    Python a second time).  ``exploration``: the unreduced model's ``Exploration`` as the
    nested search that found no cycle gathered it (``Exploration.depth_first``): an unreduced
    run need not explore again."""

    found: Optional[tuple[int, AssertionResult, dict]] = None
    holds: dict = dataclasses.field(default_factory=dict)
    graph: Optional[ReachableGraph] = None
    large: bool = False
    exploration: Optional[Exploration] = None


def first_acceptance_cycle(model: SequentialModel, max_states: Optional[int], timeout: Optional[float] = None,
                           memory_limit: Optional[int] = None, interruptible: bool = False,
                           engine: Optional[str] = None) -> FirstSearch:
    """The native nested search on the unreduced ``model`` before any breadth-first
    exploration, as ``pan -a`` looks (``FirstSearch``).  Nothing is decided where the search
    stops (bounds) or does not run: engine ``python``, a model ``auto`` finds small -- its
    reachable graph within ``native.AUTO_THRESHOLD`` states, which is kept for
    ``check_acceptance`` --, no compiler.  Unreduced: a cycle of the model is a violation,
    and none is none, whatever group a reduced run uses.  Each search also gathers what the
    breadth-first exploration reports (``acceptance_cycle_native``'s ``gather``): the first
    that ends without a cycle gives ``FirstSearch.exploration``."""
    from detect.statespace import native

    indices = [i for i, a in enumerate(model.assertions) if a.kind == "acceptance" and a.condition is not None]
    choice = native.engine_choice(engine)
    holds: dict[int, AssertionResult] = {}
    if not indices or choice == "python":
        return FirstSearch()
    large = False
    if choice == "auto":
        probe = reachable_graph(model, max_states=native.AUTO_THRESHOLD, timeout=timeout)
        if probe.complete:
            return FirstSearch(graph=probe)
        large = not (probe.timed_out or probe.memory_limited or probe.interrupted)
    start = time.perf_counter()
    exploration = None
    for i in indices:
        remaining = None if timeout is None else max(0.0, timeout - (time.perf_counter() - start))
        try:
            out = native.acceptance_cycle_native(model, i, max_states=max_states, timeout=remaining,
                                                 memory_limit=memory_limit, interruptible=interruptible,
                                                 gather=exploration is None)
        except native.NativeUnavailable:
            return FirstSearch(holds=holds, exploration=exploration)
        exploration = exploration or out["exploration"]
        if out["found"]:
            compiled = compile_model(model)
            trace = trace_between(compiled, out["path"][0], out["path"][1:])
            out["seconds"] = time.perf_counter() - start
            verdict = AssertionResult(model.assertions[i], "fails", trace,
                                      f"a cycle through an accepting state, the first one the nested depth-first "
                                      f"search found, after {out['states']:,} unreduced states",
                                      loop_from=out["loop_from"])
            return FirstSearch((i, verdict, out), holds, large=large)
        if out["found"] is False:
            holds[i] = AssertionResult(model.assertions[i], "holds", (),
                                       f"no cycle through an accepting state among {out['states']:,} unreduced "
                                       f"states (nested depth-first search, before the exploration)")
    return FirstSearch(holds=holds, large=large, exploration=exploration)


def searched_exploration(searched: FirstSearch) -> Exploration:
    """``searched.exploration`` (there must be one) with ``searched.holds``'s verdicts, whose
    notes say that the nested search also made the exploration."""
    made = "nested depth-first search, which also gave the figures and the other verdicts"
    holds = {k: dataclasses.replace(v, note=v.note.replace("nested depth-first search, before the exploration", made))
             for k, v in searched.holds.items()}
    return with_verdicts(searched.exploration, holds)


def with_verdicts(result: Exploration, verdicts: dict[int, AssertionResult]) -> Exploration:
    """``result`` with the assertions ``verdicts`` names decided so (``first_acceptance_cycle``'s);
    a "holds" is "unknown" where ``result`` reached a bound of ours (a cycle may lie past the
    steps cut there, as ``check_acceptance`` says)."""
    if result.bounds:
        verdicts = {k: v if v.verdict != "holds" else dataclasses.replace(
            v, verdict="unknown", note=f"{v.note}, but a bound of ours was reached ({result.bounds_reached[0]})")
            for k, v in verdicts.items()}
    return dataclasses.replace(result, assertions=tuple(verdicts.get(k, a) for k, a in enumerate(result.assertions)))


def stopped_at_cycle(result: Exploration, index: int, verdict: AssertionResult, figures: dict) -> Exploration:
    """``result`` (an exploration of no states: the run made none) as the nested search that
    found ``verdict`` (``first_acceptance_cycle``) leaves it: its states, transitions and
    time, the verdict of assertion ``index``, the others unknown -- the run stopped there."""
    from detect.statespace import native

    assertions = tuple(verdict if k == index else
                       a if a.verdict in ("fails", "not checked") else
                       AssertionResult(a.assertion, "unknown", (), "not checked: the run stopped at the first "
                                       "acceptance cycle, as pan -a stops at its first error")
                       for k, a in enumerate(result.assertions))
    return dataclasses.replace(result, states=figures["states"], transitions=figures["transitions"],
                               seconds=figures["seconds"], memory_bytes=figures["memory_bytes"],
                               memory_measure=native.NDFS_MEMORY_MEASURE,
                               deadlocks=(), terminal_states=(), truncated=True, first_cycle=True,
                               assertions=assertions)
