"""Soundness checker: is each detected generator really a symmetry of the model's LTS?

A state permutation σ is a symmetry of the reachable LTS when (seed 002; pitfalls notes)

1. σ maps the set of initial states onto itself;
2. every reachable transition s → s' has an image σ(s) → σ(s') that is a transition of the
   model (and, so that σ⁻¹ is one too, σ(s) has no more successors than s);
3. σ maps fault states (a summand instance faults there) to fault states and non-fault
   states to non-fault states, and a state with a fault of the model to one with a fault of
   the model (not to one whose steps are only cut at a bound of ours, ``ToolBound``);
4. σ maps dead-end states satisfying ``model.terminal`` to such states and deadlocks to
   deadlocks (else deadlock verdicts would change under reduction);
5. σ maps every literal a reachable state holds to one with the same marks
   (``SequentialModel.marks``: Promela's end, accept and progress labels of a location),
   so that the properties the marks define (valid end states, acceptance and progress
   cycles) are preserved.

Each is checked on the unreduced reachable graph (``explore.reachable_graph``), states in
breadth-first order.  The graph holds every state, so it is bounded by ``max_states`` and by
the memory budget of ``explore.state_bound``, and the whole check by an optional time-out
(and Ctrl-C, when asked); a check cut short is reported as such (``VerifyReport.stopped_by``),
never as verified.  Successors of an image that was not explored are computed directly
with the compiled model.  No separate "σ(s) is reachable" test is needed: states are checked
in BFS order from initial states whose images are initial, so the first image outside the
reachable set is always the end of a transition that check 2 reports first.  Event labels
are not compared: a ``StatePermutation`` says nothing about how process ids inside labels
are renamed.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from detect.statespace.compile import CompiledModel, State, compile_model
from detect.statespace.explore import ReachableGraph, StateBound, counts_text, reachable_graph, state_bound
from detect.ir import SequentialModel, literal_label, literal_marks, state_slots
from detect.symmetry.group import group_order
from detect.symmetry.perm import StatePermutation


@dataclass(frozen=True)
class GeneratorVerdict:
    """Result for one generator: ``ok``, or the first counterexample found.

    ``kind`` is ``""`` when ok, else one of ``"malformed"``, ``"initial"``, ``"transition"``,
    ``"extra transition"``, ``"fault"``, ``"terminal"``, ``"labels"``.
    ``state``/``image`` are the state and σ(state) of the counterexample; ``missing`` is the
    transition of σ(state) that should exist but does not (or, for ``"extra transition"``,
    the one of σ(state) that has no preimage).  ``checked``: the states whose transitions
    were checked, in breadth-first order (fewer than the graph's expanded states when the
    time-out or an interrupt stopped the check of this generator).
    """

    generator: int
    ok: bool
    kind: str = ""
    message: str = ""
    state: Optional[State] = None
    image: Optional[State] = None
    missing: Optional[tuple[State, State]] = None
    checked: int = 0


#: Why a check stopped early (``VerifyReport.stopped_by``): the state bound, the memory
#: budget of ``explore.state_bound`` (states of many slots), the time-out, or the memory limit.
MAX_STATES, SLOT_BUDGET, TIMEOUT, MEMORY_LIMIT = "max-states", "slot-budget", "timeout", "memory-limit"
#: ... or Ctrl-C / SIGTERM (only where the caller asked for it: ``interruptible``).
INTERRUPTED = "interrupted"


def stop_reason(graph: ReachableGraph, bound) -> str:
    """Why the exploration ``graph`` (bounded by ``bound``, an ``explore.StateBound``) is
    incomplete: ``MAX_STATES``, ``SLOT_BUDGET``, ``TIMEOUT``, ``MEMORY_LIMIT`` or
    ``INTERRUPTED``; "" when it is complete."""
    if graph.complete:
        return ""
    if graph.timed_out:
        return TIMEOUT
    if graph.memory_limited:
        return MEMORY_LIMIT
    if graph.interrupted:
        return INTERRUPTED
    return SLOT_BUDGET if bound.by_slots else MAX_STATES


#: How the text reports say what stopped a run (one wording for every command).
STOP_WORDS = {MAX_STATES: "state bound reached (--max-states)",
              SLOT_BUDGET: "state-slot budget reached",
              TIMEOUT: "time-out reached",
              MEMORY_LIMIT: "memory limit reached (--memory-limit)",
              INTERRUPTED: "interrupted",
              "graph-limit": "graph limit reached (--graph-limit)",
              "first-cycle": "the first acceptance cycle found (pan -a stops at its first error too)"}


def stop_words(stopped_by: str, timeout: Optional[float] = None) -> str:
    """``stopped_by`` (a ``stop_reason``, or "graph-limit") in words: "time-out of 5 s
    reached" when the ``timeout`` is given."""
    if stopped_by == TIMEOUT and timeout is not None:
        return f"time-out of {timeout:g} s reached"
    return STOP_WORDS.get(stopped_by, stopped_by.replace("-", " ") + " reached")


def stop_advice(stopped_by: str, bound, activity: str) -> str:
    """What to pass when an exploration stopped by ``stopped_by`` (``stop_reason``) while
    ``activity`` ("while verifying") should complete."""
    if stopped_by == TIMEOUT:
        return "raise --timeout"
    if stopped_by == MEMORY_LIMIT:
        return "raise --memory-limit"
    if stopped_by == INTERRUPTED:
        return "interrupted"
    if bound is None:
        return "raise --max-states"
    return bound.advice("--max-states", activity)


@dataclass(frozen=True)
class VerifyReport:
    """Per-generator verdicts; when ``complete`` is false they are partial (no failure seen
    among the ``checked`` states, cut off as ``stopped_by`` says)."""

    verdicts: tuple[GeneratorVerdict, ...]
    states: int
    complete: bool
    #: states whose successors were checked (all ``states`` when ``complete``)
    checked: int = 0
    #: Order of the group's action on the reachable states (``reachable_action_order``);
    #: smaller than the group order when some symmetries only permute values no reachable
    #: state holds, or exchange variables whose values are tied (constants).  None unless
    #: ``complete`` and ``ok``.
    reachable_order: Optional[int] = None
    #: Generators that fix every reachable state (inert: they permute values no reachable
    #: state holds, or variables whose values always agree); set with ``reachable_order``.
    inert: tuple[int, ...] = ()
    #: why the check is not complete ("" when it is): a ``stop_reason``
    stopped_by: str = ""
    #: the state bound the exploration had (``explore.StateBound``), for the advice
    bound: Optional[StateBound] = None

    @property
    def ok(self) -> bool:
        return all(v.ok for v in self.verdicts)

    def advice(self) -> str:
        """What to pass for a complete check ("" when it is complete)."""
        return "" if self.complete else stop_advice(self.stopped_by, self.bound, "while verifying")

    def summary(self) -> str:
        lines = []
        scope = (f"{self.states} reachable states" if self.complete else
                 f"{self.checked:,} of at least {self.states:,} reachable states (truncated: not a proof)")
        for v in self.verdicts:
            if not v.ok:
                lines.append(f"generator {v.generator}: NOT a symmetry ({v.kind}): {v.message}")
            elif self.complete:
                lines.append(f"generator {v.generator}: ok")
            else:
                lines.append(f"generator {v.generator}: no counterexample on {v.checked:,} states")
        lines.append(f"checked on {scope}")
        return "\n".join(lines)

    def action_note(self, group_order: int) -> str:
        """How the group acts on the reachable states, when that differs from its order."""
        if self.reachable_order is None or self.reachable_order == group_order:
            return ""
        return (f"on the {self.states:,} reachable states the group acts as a group of order "
                f"{self.reachable_order}: the rest fixes every reachable state (it permutes values "
                "no reachable state holds, or variables whose values always agree, such as constants)")


def check_permutation_is_bijection(model: SequentialModel, sigma: StatePermutation
                                   ) -> tuple[str, ...]:
    """Problems that stop ``sigma`` from being a bijection of ``model``'s state space.

    Empty when ``target`` permutes the slots and every ``values[k]`` maps slot ``k``'s domain
    one-to-one onto the domain of slot ``target[k]`` (the ``StatePermutation`` invariant).
    """
    slots = state_slots(model)
    n = len(slots)
    problems = []
    if len(sigma.target) != n or sorted(sigma.target) != list(range(n)):
        problems.append(f"target {sigma.target} is not a permutation of the {n} slots")
        return tuple(problems)
    if len(sigma.values) != n:
        return (f"{len(sigma.values)} value maps for {n} slots",)
    for k, (slot, mapping) in enumerate(zip(slots, sigma.values)):
        image_slot = slots[sigma.target[k]]
        if set(mapping) != set(slot.domain):
            problems.append(f"value map of {slot.label} is defined on {sorted(mapping)}, "
                            f"not on its domain {list(slot.domain)}")
        elif sorted(mapping.values()) != list(image_slot.domain):
            problems.append(f"value map of {slot.label} does not map onto the domain "
                            f"{list(image_slot.domain)} of {image_slot.label}")
    return tuple(problems)


def compile_permutation(sigma: StatePermutation) -> Callable[[State], State]:
    """A fast ``sigma.apply`` for tuples: one generated tuple expression, no loop."""
    source_of = [0] * len(sigma.target)
    for k, t in enumerate(sigma.target):
        source_of[t] = k
    namespace = {f"m{k}": dict(m) for k, m in enumerate(sigma.values)}
    body = ", ".join(f"m{k}[s[{k}]]" for k in source_of)
    exec(f"def apply(s):\n    return ({body},)\n", namespace)
    return namespace["apply"]


def verify(model: SequentialModel, generators: Sequence[StatePermutation],
           max_states: int = 200_000, progress: Optional[Callable[[str], None]] = None,
           timeout: Optional[float] = None, interruptible: bool = False) -> VerifyReport:
    """Check every generator against the unreduced reachable graph (see module docstring),
    exploring at most ``max_states`` states (fewer for states of many slots:
    ``explore.state_bound``) and stopping after ``timeout`` seconds in all.  With
    ``interruptible``, Ctrl-C stops the check and the report says what it covered.
    ``progress(text)`` is told what is being done, every half second or so."""
    start = time.perf_counter()
    deadline = None if timeout is None else start + timeout
    compiled = compile_model(model)

    def exploring(states: int, transitions: int, seconds: float, level: Optional[int] = None) -> None:
        progress(f"verify: exploring, {counts_text(states, transitions, seconds, level)}")

    bound = state_bound(model, max_states)
    graph = reachable_graph(compiled, bound.states, exploring if progress is not None else None, timeout,
                            interruptible=interruptible)
    checker = _Checker(compiled, graph, progress, deadline, interruptible, stopped=stop_reason(graph, bound))
    verdicts = tuple(checker.check(i, sigma) for i, sigma in enumerate(generators))
    checked = min((v.checked for v in verdicts if v.ok), default=graph.expanded)
    complete = graph.complete and checked == graph.expanded
    stopped_by = checker.stopped if not complete else ""
    order = None
    inert: tuple[int, ...] = ()
    if complete and all(v.ok for v in verdicts):
        order = reachable_action_order(graph.states, generators)
        inert = tuple(i for i, sigma in enumerate(generators)
                      if all(apply(s) == s for apply in (compile_permutation(sigma),) for s in graph.states))
    return VerifyReport(verdicts, len(graph.states), complete, checked=checked, reachable_order=order,
                        inert=inert, stopped_by=stopped_by, bound=bound)


def reachable_action_order(states: Sequence[State], generators: Sequence[StatePermutation]) -> int:
    """Order of the group generated by ``generators`` (symmetries of the reachable LTS whose
    reachable states are ``states``) acting on those states.

    Points: slots are *tied* when, over the reachable states, each one's value determines the
    other's (the same partition of the states; all constant slots are tied to each other).
    A point is a tie class with one joint value (the literals of its slots in some state).
    A symmetry maps tie classes onto tie classes, so it acts on these points; it fixes every
    point iff it fixes every reachable state (if it moved a slot k onto another slot t while
    fixing all states, then s[t] would be a function of s[k] on every state: k and t are tied,
    hence in one point).  So this action is faithful on the states and its order is exact.
    """
    if not states or not generators:
        return 1
    import hashlib

    import numpy as np

    try:
        table = np.asarray(states, dtype=np.int32)  # half the memory of int64 (10^6 states)
    except OverflowError:
        table = np.asarray(states, dtype=np.int64)
    point_of: dict[tuple[int, int], int] = {}  # literal (slot, value) -> point
    representative: list[tuple[int, int]] = []  # point -> one literal of it
    classes: dict[bytes, int] = {}
    for k in range(table.shape[1]):
        values, first, inverse = np.unique(table[:, k], return_index=True, return_inverse=True)
        rank = np.empty(len(values), dtype=np.int64)
        rank[np.argsort(first)] = np.arange(len(values))
        key = hashlib.sha256(rank[inverse.ravel()].tobytes()).digest()
        if key not in classes:
            classes[key] = len(representative)
            representative.extend((k, int(values[i])) for i in np.argsort(first))
        base = classes[key]
        for i, v in enumerate(values):
            point_of[(k, int(v))] = base + int(rank[i])
    images = []
    for sigma in generators:
        images.append([point_of[(sigma.target[k], sigma.values[k][v])] for k, v in representative])
    return group_order(images)


#: The checker reads the clock every ``_TELL_EVERY`` states and reports progress at most
#: every ``_TELL_SECONDS``.
_TELL_EVERY, _TELL_SECONDS = 4096, 0.5


class _Checker:
    """The reachable graph plus lookups shared by all generators."""

    def __init__(self, compiled: CompiledModel, graph: ReachableGraph,
                 progress: Optional[Callable[[str], None]] = None, deadline: Optional[float] = None,
                 interruptible: bool = False, stopped: str = ""):
        self.progress, self.deadline, self.interruptible = progress, deadline, interruptible
        #: why checking stopped ("" while it goes on; ``stop_reason`` of the exploration),
        #: and the state the current generator's check has reached
        self.stopped, self.at = stopped, 0
        self.compiled = compiled
        self.model = compiled.model
        self.graph = graph
        self.index = graph.index()
        self.slots = state_slots(self.model)
        self.marks = literal_marks(self.model)

    # -- successor information for any state, explored or not
    def successors(self, state: State) -> tuple[frozenset[State], int]:
        """(successor states, its fault kind: ``fault_kind``)."""
        k = self.index.get(state)
        if k is not None and k < self.graph.expanded:
            states = self.graph.states
            return (frozenset(states[j] for j in self.graph.successors[k]),
                    self.fault_kind(state) if k in self.graph.faults else 0)
        raw = self.compiled.successors(state)
        return frozenset(t for t in raw if t is not None), self.fault_kind(state) if None in raw else 0

    def fault_kind(self, state: State) -> int:
        """Of a state with a faulting instance: 1 when one is a fault of the model, 2 when
        all are cut at a bound of ours (the verdicts differ: violated, not decided).  Only
        fault states are replayed for it."""
        return 1 if any(step.target is None and step.bound is None for step in self.compiled.steps(state)) else 2

    def show(self, state: State) -> str:
        return "(" + ", ".join(literal_label(slot, v) for slot, v in zip(self.slots, state)) + ")"

    def label(self, source: State, target: State) -> str:
        for step in self.compiled.steps(source):
            if step.target == target:
                return step.event
        return "?"

    def check(self, g: int, sigma: StatePermutation) -> GeneratorVerdict:
        problems = check_permutation_is_bijection(self.model, sigma)
        if problems:
            return GeneratorVerdict(g, False, "malformed", "; ".join(problems))
        apply = compile_permutation(sigma)
        failed = self._initial(g, sigma, apply)
        if failed is not None:
            return failed
        if self.stopped in (TIMEOUT, INTERRUPTED):
            return GeneratorVerdict(g, True, checked=0)
        try:
            failed, checked = self._transitions(g, apply, self._relabelled(sigma))
        except KeyboardInterrupt:
            if not self.interruptible:
                raise
            past = self.deadline is not None and time.perf_counter() >= self.deadline
            self.stopped = TIMEOUT if past else INTERRUPTED
            return GeneratorVerdict(g, True, checked=self.at)
        return failed or GeneratorVerdict(g, True, checked=checked)

    def _initial(self, g, sigma, apply) -> Optional[GeneratorVerdict]:
        # The initial set is a product of per-slot sets, so σ preserves it iff each slot's
        # allowed values map into (hence, by counting, onto) those of the slot it goes to.
        per_slot = [allowed for v in self.model.variables for allowed in v.init]
        if self.model.initial is not None:
            # Listed initial states: σ preserves the set iff it maps each into the set.
            listed = set(self.model.initial)
            for state in self.model.initial:
                image = apply(state)
                if tuple(image) not in listed:
                    return GeneratorVerdict(
                        g, False, "initial",
                        f"initial state {self.show(state)} is mapped to {self.show(image)}, "
                        "which is not initial", state, image)
            return None
        for k, allowed in enumerate(per_slot):
            wanted = set(per_slot[sigma.target[k]])
            for value in allowed:
                if sigma.values[k][value] not in wanted:
                    state = tuple(a[0] for a in per_slot)
                    state = state[:k] + (value,) + state[k + 1:]
                    image = apply(state)
                    return GeneratorVerdict(
                        g, False, "initial",
                        f"initial state {self.show(state)} is mapped to {self.show(image)}, "
                        f"which is not initial ({self.slots[sigma.target[k]].label} may not "
                        f"start at {sigma.values[k][value]})",
                        state, image)
        return None

    def _relabelled(self, sigma: StatePermutation) -> dict[int, dict[int, tuple[int, int]]]:
        """Slot -> value -> the literal ``(slot, value)`` σ maps it onto, for the literals
        whose image has other marks."""
        marks = self.marks
        marked = {k for k, _ in marks}
        slots = marked | {k for k, t in enumerate(sigma.target) if t in marked}
        out = {}
        for k in sorted(slots):
            t = sigma.target[k]
            bad = {v: (t, sigma.values[k][v]) for v in self.slots[k].domain
                   if marks.get((k, v), "") != marks.get((t, sigma.values[k][v]), "")}
            if bad:
                out[k] = bad
        return out

    def _transitions(self, g, apply, relabelled: dict[int, dict[int, tuple[int, int]]]
                     ) -> tuple[Optional[GeneratorVerdict], int]:
        """(the first counterexample or None, the states checked: all expanded ones unless
        the deadline passed first).  ``relabelled``: the literals σ maps onto literals with
        other marks (``_relabelled``), which no checked state may hold."""
        marks = self.marks
        graph, states, show = self.graph, self.graph.states, self.show
        terminal = self.compiled.terminal
        tell, next_tell = self.progress, time.perf_counter() + _TELL_SECONDS
        for k in range(graph.expanded):
            self.at = k
            if k % _TELL_EVERY == 0 and (tell is not None or self.deadline is not None):
                now = time.perf_counter()
                if self.deadline is not None and now >= self.deadline:
                    self.stopped = TIMEOUT
                    return None, k
                if tell is not None and now >= next_tell:
                    next_tell = now + _TELL_SECONDS
                    tell(f"verify: generator {g}, {k:,} of {graph.expanded:,} states checked")
            s = states[k]
            image = apply(s)
            for slot, bad in relabelled.items():
                if s[slot] in bad:
                    t, w = bad[s[slot]]
                    return GeneratorVerdict(
                        g, False, "labels",
                        f"{show(s)} is mapped to {show(image)}, but the location "
                        f"{literal_label(self.slots[slot], s[slot])} ({marks.get((slot, s[slot])) or 'no label'}) "
                        f"is mapped to {literal_label(self.slots[t], w)} ({marks.get((t, w)) or 'no label'})",
                        s, image), k
            image_successors, image_faults = self.successors(image)
            for j in graph.successors[k]:
                t = states[j]
                image_t = apply(t)
                if image_t not in image_successors:
                    return GeneratorVerdict(
                        g, False, "transition",
                        f"{show(s)} --{self.label(s, t)}--> {show(t)}, but its image "
                        f"{show(image)} has no transition to {show(image_t)}",
                        s, image, (image, image_t)), k
            if len(image_successors) != len(graph.successors[k]):
                mapped = {apply(states[j]) for j in graph.successors[k]}
                extra = min(image_successors - mapped)
                return GeneratorVerdict(
                    g, False, "extra transition",
                    f"the image {show(image)} of {show(s)} has a transition "
                    f"--{self.label(image, extra)}--> {show(extra)} that no transition of "
                    f"{show(s)} maps to", s, image, (image, extra)), k
            own = self.fault_kind(s) if k in graph.faults else 0
            if image_faults != own:
                if image_faults and own:
                    has = image if image_faults == 1 else s
                    why = f"only {show(has)} has a fault of the model (the other's steps are cut at a bound of ours)"
                else:
                    has = image if image_faults else s
                    why = f"only {show(has)} has a faulting step"
                return GeneratorVerdict(g, False, "fault", f"{show(s)} is mapped to {show(image)}, but {why}",
                                        s, image), k
            if not graph.successors[k] and terminal(s) != terminal(image):
                return GeneratorVerdict(
                    g, False, "terminal",
                    f"dead end {show(s)} ({'valid end' if terminal(s) else 'deadlock'}) is "
                    f"mapped to {show(image)} ({'valid end' if terminal(image) else 'deadlock'})",
                    s, image), k
        return None, graph.expanded
