"""Breadth-first explicit-state exploration of a ``SequentialModel`` (compiled, see ``compile``).

Meaning: exactly ``detect.ir.semantics`` (the tests compare state sets, transitions, faults and
deadlocks with ``semantics.reference_state_space`` on random models).  Definitions used in the results:

* a *transition* is a distinct ``(source, target)`` pair of states (labels are not counted,
  as in ``semantics.reference_state_space``);
* a *fault state* has at least one summand instance that faults; ``faults`` counts them;
  an instance that faults at a bound of ours (``detect.ir.ToolBound``) is no fault of the
  model: a state whose faulting instances all do is a *bound state* instead (``bounds``
  counts them), which makes the run undecided, not violated;
* a *deadlock* has no successor and no faulting step, and does not satisfy ``model.terminal``;
  a *terminal state* has no successor and no faulting step and does satisfy it.  A state
  whose only enabled steps fault is a fault state only: a step is enabled there (Spin's
  ``pan -A`` reports no invalid end state where an assertion fails).  With
  ``model.stutter_deadlock`` (Murphi) a state whose only successor is itself counts as
  having none.

With ``canonicalise`` every state (initial ones included) is replaced by its representative
before the visited check, so all counts are of representatives.  The explorer stores, for
each representative, only the representative it was first reached from; a counterexample is
rebuilt afterwards by re-running steps from a real initial state and choosing, at each step,
a successor with the next representative (``trace_between``).  That needs no permutation
bookkeeping and gives a real trace whenever ``canonicalise`` maps states to orbit
representatives of a sound symmetry group.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping, Optional, Sequence

from detect.statespace.compile import CompiledModel, State, compile_model
from detect.ir import Assertion, SequentialModel, ToolBound
from detect.ir.pretty import show_expr

Canonicalise = Callable[[State], State]
#: ``progress(states, transitions, seconds[, level])``: level is the BFS level being expanded.
Progress = Callable[..., None]


class Clock:
    """Reads the clock for an exploration: ``out_of_time()`` reports progress when due
    (``counts()`` gives states and transitions so far, and optionally the BFS level being
    expanded) and says whether the deadline has
    passed.  Shared by the Python and native explorers."""

    def __init__(self, start: float, deadline: Optional[float], progress: Optional[Progress],
                 counts: Callable[[], tuple[int, int]]):
        self.start, self.deadline, self.progress, self.counts = start, deadline, progress, counts
        self.next_progress = start + PROGRESS_INTERVAL

    def out_of_time(self) -> bool:
        now = time.perf_counter()
        if self.deadline is not None and now >= self.deadline:
            return True
        if self.progress is not None and now >= self.next_progress:
            self.next_progress = now + PROGRESS_INTERVAL
            # counts() may add the BFS level being expanded after states and transitions.
            states, transitions, *level = self.counts()
            self.progress(states, transitions, now - self.start, *level)
        return False


def resident_bytes() -> int:
    """The process's resident set size now (0 where ``/proc`` cannot tell it)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class ResidentGrowth:
    """Memory of the Python explorer: growth of the resident set since ``start`` (Python
    objects cannot be counted cheaply; the growth is what the run costs the machine).
    ``over()`` says whether it exceeds ``limit`` (never, without one)."""

    MEASURE = "resident set growth of the process"
    #: ``over()`` reads ``/proc`` at most this often, in seconds (a read costs ~10 µs and a
    #: canonicalising run asks after every state).
    INTERVAL = 0.01

    def __init__(self, limit: Optional[int]):
        self.limit = limit
        self.start = resident_bytes()
        self.next_read = 0.0

    def used(self) -> int:
        return max(0, resident_bytes() - self.start)

    def over(self) -> bool:
        if self.limit is None:
            return False
        now = time.perf_counter()
        if now < self.next_read:
            return False
        self.next_read = now + self.INTERVAL
        return self.used() > self.limit


@dataclass(frozen=True)
class SortedBlocks:
    """Passed with a canonicaliser that is the least image under Sym(blocks), the group
    permuting whole blocks of slots (position by position): that image is the state with the
    blocks' value tuples sorted, which the native explorer computes in C."""

    blocks: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class PermutedPids:
    """Passed with a canonicaliser that is the least image under S_m acting on m pids, which
    the native explorer computes in C: a permutation π moves pid q's block of slots
    ``blocks[q]`` onto ``blocks[π(q)]`` (position by position) and replaces every value naming
    a pid q (``pid_of[k]``: value -> pid, for each slot k) by the value naming π(q) in the
    same slot.  The key the image is least in reads ``fixed`` (the slots π never moves that
    may name pids, in key order) first, then the blocks of pids 0, 1, ..., m-1."""

    blocks: tuple[tuple[int, ...], ...]
    fixed: tuple[int, ...]
    pid_of: tuple[tuple[tuple[int, int], ...], ...]


@dataclass(frozen=True)
class EnumeratedElements:
    """Passed with a canonicaliser that is the least image over every element of the group in
    the slot order ``order`` (``--reduce enumerate``), which the native explorer computes in C
    (``canon_elements``): ``elements`` and ``maps`` in the gather form of
    ``detect.statespace.native.canon.CanonTables``."""

    elements: tuple[tuple[tuple[int, int], ...], ...]
    maps: tuple[tuple[int, tuple[int, ...]], ...]
    order: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class ExternalCanonical:
    """Passed with a canonicaliser implemented by a C function ``int f(void *context, int64_t
    *state)`` (at address ``function``) that replaces the slot values by the representative in
    place and returns 0, or nonzero when it cannot (-1: undecided, ``CanonicalUndecided``; -2
    out of memory; -4 the explorer's memory budget is spent); ``owner`` keeps ``context`` alive
    and is the Python canonicaliser calling the same function, so both see one table of
    representatives.  ``attach`` (address, 0 for none) of ``void attach(void *context, void
    *account, void *budget)`` lets the native explorer count the canonicaliser's memory in its
    ``--memory-limit`` and ``bytes`` (see ``nx_account`` in ``runtime.c``)."""

    function: int
    context: int
    owner: object
    attach: int = 0


class CanonicalUndecided(Exception):
    """A canonicaliser could not decide which orbit a state is in (a search budget ran out)."""


#: What a reducer may hand the native explorer instead of a Python canonicaliser.
NativeCanonical = SortedBlocks | PermutedPids | EnumeratedElements | ExternalCanonical


@dataclass(frozen=True)
class PointSymmetry:
    """A state permutation: ``images`` permutes the model's literal points
    (``detect.ir.points.LiteralPoints``), ``apply`` is the same map compiled for states (the
    native explorer reads the images, the Python one calls ``apply``)."""

    images: tuple[int, ...]
    apply: Callable[[State], State]

    def __call__(self, state: State) -> State:
        return self.apply(state)


@dataclass(frozen=True)
class LocalSymmetry:
    """A state permutation ``apply`` that a canonicaliser uses only on the states where
    ``applies`` holds (seed 001's pid abstraction swaps two anonymous processes only while
    both are present); the explorer checks it on exactly those states."""

    applies: Callable[[State], bool]
    apply: Callable[[State], State]
    #: what it is, for the report of a refuted one
    name: str = ""

    def __call__(self, state: State) -> State:
        return self.apply(state)


class NotASymmetry(Exception):
    """A generator checked during exploration (``explore_state_space(symmetries=...)``) does not map the
    successors and faults of an expanded state onto those of its image."""

    def __init__(self, generator: int, state: State, image: State):
        super().__init__(f"generator {generator} does not map the steps of state {state} onto "
                         f"those of its image {image}")
        self.generator, self.state, self.image = generator, state, image

#: Seconds between ``progress`` calls (and between timeout checks).
PROGRESS_INTERVAL = 0.5


def counts_text(states: int, transitions: int, seconds: float, level: Optional[int] = None) -> str:
    """How an exploration goes, as every progress display words it (the BFS level being
    expanded, Spin's and CMurphi's "depth", where the explorer tells it)."""
    rate = states / seconds if seconds > 0 else 0.0
    text = f"{states:,} states, {rate:,.0f} states/s, {transitions:,} transitions"
    return text if level is None else f"{text}, BFS level {level:,}"
#: Expansions between clock readings; reading the clock per state would cost ~5%.
_CLOCK_EVERY = 512
_MAX_FAULT_REPORTS = 10


@dataclass(frozen=True)
class FaultReport:
    """One faulting summand instance: in ``state``, summand ``origin`` failed with ``message``
    (``bound``: the bound of ours it reached, when that is what cut it)."""

    state: State
    origin: str
    message: str
    bound: Optional[ToolBound] = None


@dataclass(frozen=True)
class TraceStep:
    """One entry of a trace: ``event`` is the label that led to ``state`` (``None`` first).

    ``summand`` and ``binding`` name the transition taken (``detect.ir.semantics.Step``'s), so
    that a counterexample can say which process moved where, and ``replay`` can take the
    same step again; None for the first entry.  A trace that ends in a run-time fault ends
    with the faulting step: ``fault`` is its message and ``state`` the state it failed in.
    """

    event: Optional[str]
    state: State
    summand: Optional[int] = None
    binding: tuple[int, ...] = ()
    fault: Optional[str] = None


@dataclass(frozen=True)
class AssertionResult:
    """Verdict ``"holds"``, ``"fails"``, ``"unknown"`` (exploration truncated) or ``"not checked"``.

    ``trace`` is a counterexample for a failed ``deadlockfree``/``invariant`` and a witness for
    a ``reaches`` that holds; empty otherwise.
    """

    assertion: Assertion
    verdict: str
    trace: tuple[TraceStep, ...] = ()
    note: str = ""
    #: For a lasso (an acceptance cycle): the index in ``trace`` where the cycle starts; the
    #: trace's last state equals that entry's state.
    loop_from: Optional[int] = None
    #: For a ``reaches ... with min(e)`` / ``max(e)`` that holds: the least / greatest value of
    #: ``e`` over the reachable states where the condition holds (the trace reaches one).
    value: Optional[int] = None
    #: why an "unknown" verdict's own check stopped (a ``checking.verify.stop_reason``), if it did
    stopped_by: str = ""


@dataclass(frozen=True)
class Exploration:
    """What one exploration found; counts are of representatives when canonicalising."""

    states: int
    transitions: int
    initial: int
    deadlocks: tuple[State, ...]
    terminal_states: tuple[State, ...]
    faults: int
    first_faults: tuple[FaultReport, ...]
    truncated: bool
    interrupted: bool
    #: Wall-clock seconds of the search (traces and verdicts not included).
    seconds: float
    assertions: tuple[AssertionResult, ...]
    #: Shortest trace to the first deadlock / first fault state found (empty if none).
    deadlock_trace: tuple[TraceStep, ...] = ()
    fault_trace: tuple[TraceStep, ...] = ()
    #: Memory the run took, in bytes, counted as ``memory_measure`` says.
    memory_bytes: int = 0
    memory_measure: str = ""
    #: The run stopped because it would have exceeded ``explore``'s ``memory_limit``
    #: (``truncated`` is then set too).
    memory_limit_reached: bool = False
    #: CPU seconds (user + system, all of this process's threads) over the same span as
    #: ``seconds``: on a shared machine the wall clock also measures the scheduler.
    cpu_seconds: float = 0.0
    #: How the run was made, when not as asked (the native explorer could not run, ...).
    notes: tuple[str, ...] = ()
    #: The run stopped at its own time-out (``truncated`` is then set too).
    timed_out: bool = False
    #: Depth reached: the most steps from an initial state to a stored state (the last BFS
    #: level; states are stored level by level, so it is the last stored state's distance),
    #: or, with ``depth_first``, the nested search's deepest stack.
    depth: int = 0
    #: The run is the nested search that found an acceptance cycle first (``checking.cycles.
    #: first_acceptance_cycle``): no breadth-first exploration was made (``truncated`` is set).
    first_cycle: bool = False
    #: Bound states (module docstring): a step there was cut at a bound of ours, so the run
    #: is undecided past it; ``first_bounds`` reports the first of those steps.
    bounds: int = 0
    first_bounds: tuple[FaultReport, ...] = ()

    @property
    def bounds_reached(self) -> tuple[ToolBound, ...]:
        """The bounds of ours the reported bound steps reached, each once, in order."""
        return tuple(dict.fromkeys(f.bound for f in self.first_bounds if f.bound is not None))
    #: The figures and verdicts are those of the nested depth-first search that looked for
    #: acceptance cycles first and found none (``checking.cycles.first_acceptance_cycle``):
    #: it expanded every reachable state once, as the breadth-first exploration would, so
    #: none was made.  ``depth`` is then its deepest stack (pan's "depth reached"), not the
    #: last breadth-first level, and traces are depth-first paths, not shortest ones.
    depth_first: bool = False

    @property
    def stopped_by(self) -> str:
        """What stopped the run early: "" (nothing: complete), "memory-limit", "timeout",
        "interrupted" (Ctrl-C, SIGTERM, or an alarm) or "max-states" (the names of
        ``checking.verify.stop_reason``)."""
        if not self.truncated:
            return ""
        if self.first_cycle:
            return "first-cycle"
        if self.memory_limit_reached:
            return "memory-limit"
        if self.timed_out:
            return "timeout"
        return "interrupted" if self.interrupted else "max-states"

    @property
    def states_per_second(self) -> float:
        return self.states / self.seconds if self.seconds > 0 else float("inf")

    @property
    def bytes_per_state(self) -> float:
        return self.memory_bytes / self.states if self.states else 0.0


@dataclass(frozen=True)
class ReachableGraph:
    """The reachable state graph (unreduced).

    ``states[:expanded]`` have complete successor sets ``successors[i]`` (indices into
    ``states``); states after them were discovered but not expanded because the exploration
    hit ``max_states`` (or its deadline, memory limit or an interrupt: ``timed_out``,
    ``memory_limited``, ``interrupted``), so ``complete`` is ``expanded == len(states)``, unless
    the initial states alone exceeded ``max_states`` or the listing was cut short
    (``initial_complete`` false: not all were listed).
    """

    states: tuple[State, ...]
    successors: tuple[frozenset[int], ...]
    initial: frozenset[int]
    faults: frozenset[int]
    expanded: int
    initial_complete: bool = True
    #: the exploration stopped at its deadline, not at ``max_states``
    timed_out: bool = False
    #: the exploration stopped at its memory limit (resident-set growth), not at ``max_states``
    memory_limited: bool = False
    #: Ctrl-C stopped the exploration (``reachable_graph(interruptible=True)``)
    interrupted: bool = False
    #: state -> its index, as the exploration built it (``index()``); not to be modified
    positions: Optional[Mapping[State, int]] = field(default=None, compare=False, repr=False)

    @property
    def complete(self) -> bool:
        return self.initial_complete and self.expanded == len(self.states)

    def index(self) -> Mapping[State, int]:
        """State -> its index in ``states`` (the exploration's own table when it kept one:
        a second one costs seconds and as much memory for a million states)."""
        if self.positions is not None:
            return self.positions
        return {s: i for i, s in enumerate(self.states)}


@dataclass(frozen=True)
class Survey:
    """What an unreduced exploration found, without the states themselves: ``states``,
    ``transitions`` and fault states (``faults``) counted as ``ReachableGraph`` counts them,
    whether every reachable state was expanded (``complete``), and per slot the values it holds
    in some explored state (``slot_values``)."""

    states: int
    transitions: int
    faults: int
    complete: bool
    slot_values: tuple[frozenset[int], ...]

    @staticmethod
    def of(graph: "ReachableGraph") -> "Survey":
        # the values of each slot over all states, one slot at a time (a column), at C speed:
        # per variable and state in Python it was most of a 250,000-state model's detection
        columns = tuple(frozenset(c) for c in zip(*graph.states)) if graph.states else ()
        return Survey(len(graph.states), sum(len(s) for s in graph.successors), len(graph.faults),
                      graph.complete, columns)


# ------------------------------------------------------------------------ exploration


def explore_state_space(
    model: SequentialModel | CompiledModel,
    *,
    max_states: int | None = None,
    timeout: float | None = None,
    canonicalise: Canonicalise | None = None,
    progress: Progress | None = None,
    symmetries: tuple[Callable[[State], State], ...] = (),
    engine: str | None = None,
    memory_limit: int | None = None,
    native_canonical: NativeCanonical | None = None,
    workers: int | None = None,
    distributed=None,
    settle: Callable[[State], State] | None = None,
) -> Exploration:
    """Explore the reachable states breadth first (see the module docstring).

    Stops early (``truncated``) after ``max_states`` states or ``timeout`` seconds, or
    (``memory_limit_reached`` too) once it would hold more than ``memory_limit`` bytes; Ctrl-C
    also stops it and returns the partial result with ``interrupted`` set.  This Python
    explorer measures its memory as the growth of the resident set (read with the clock, so
    it may overshoot the limit by what 512 expansions allocate); the native one counts what
    it allocates and stops before it would exceed the limit.

    ``symmetries`` (state permutations, the generators ``canonicalise`` reduces by) are
    checked on every expanded state s (a ``LocalSymmetry`` on those where it applies): the
    steps of σ(s) must be σ applied to the steps of s, faults included; else
    ``NotASymmetry`` is raised.  Detection proves this, but a reduced
    run that trusted a wrong generator would hide errors, so it is checked where it is used.
    With ``settle`` (a canonical form under permutations of Murphi multiset places,
    ``detect.checking.multisets``) the steps are compared settled: σ must be a symmetry up
    to those permutations.  Only this Python explorer takes ``settle``.

    ``engine`` (``auto``, ``native``, ``python``; see ``detect.statespace.native``) picks the explorer of
    an unreduced run, and of a run reduced by a canonicaliser the native explorer also has in C
    (``native_canonical`` says which: sorting blocks of slots, ``SortedBlocks``, or the least image
    under permutations of pids, ``PermutedPids``; the native explorer then needs ``symmetries``
    as ``PointSymmetry``); other canonicalised runs use this Python one.
    ``workers`` threads share a native run (default: one per idle core, see
    ``detect.statespace.native.default_workers``); the result does not depend on it.
    ``distributed`` (a ``detect.statespace.distributed.Spec``) runs it on Ray partitions instead,
    with the same result; what they cannot run (a canonicaliser only Python has, min/max
    objectives) runs here, with a note.

    A ``reaches ... with min(e)``/``max(e)`` assertion is checked by this Python explorer (the
    native one settles a ``reaches`` at its first witness).

    Why one function: this is the Python explorer's inner loop; per-state work stays inline (local variables, no calls) because it runs millions of times.
    """
    bare = model.model if isinstance(model, CompiledModel) else model
    if bare.assumptions:
        # Rumur's global assumptions are checked by this explorer only (the native and
        # distributed ones have no filter for discarded states).
        engine, distributed = "python", None
    if distributed is not None:
        from detect.statespace.distributed import explore_distributed
        from detect.statespace.native import NativeUnavailable

        try:
            return explore_distributed(model, distributed, max_states=max_states, timeout=timeout,
                                       progress=progress, canonicalise=canonicalise, symmetries=symmetries,
                                       memory_limit=memory_limit, native_canonical=native_canonical)
        except NativeUnavailable as e:
            result = explore_state_space(model, max_states=max_states, timeout=timeout, canonicalise=canonicalise,
                                         progress=progress, symmetries=symmetries, engine=engine,
                                         memory_limit=memory_limit, native_canonical=native_canonical,
                                         workers=workers)
            note = f"distributed exploration unavailable ({e}); explored in this process"
            return replace(result, notes=result.notes + (note,))
    assertions = (model.model if isinstance(model, CompiledModel) else model).assertions
    if any(a.objective is not None for a in assertions):
        engine = "python"
    if settle is not None:
        engine = "python"
    if engine != "python" and (canonicalise is None and not symmetries or native_canonical is not None):
        from detect.statespace.native import dispatch

        return dispatch(model, max_states=max_states, timeout=timeout, progress=progress,
                        engine=engine, canonicalise=canonicalise, symmetries=symmetries,
                        memory_limit=memory_limit, native_canonical=native_canonical, workers=workers)
    compiled = model if isinstance(model, CompiledModel) else compile_model(model)
    start, cpu_start = time.perf_counter(), time.process_time()
    canon = canonicalise
    # A ``LocalSymmetry`` is checked only where it applies; the others everywhere.
    checked = [(i, sigma, getattr(sigma, "applies", None)) for i, sigma in enumerate(symmetries)]
    successors_of = compiled.successors
    is_terminal = compiled.terminal
    stutter = compiled.model.stutter_deadlock
    assumes = bool(compiled.model.assumptions)
    limit = max_states if max_states is not None else -1
    deadline = start + timeout if timeout is not None else None

    # parent[r] = representative r was first reached from (None for initial states).
    parent: dict[State, Optional[State]] = {}
    queue: list[State] = []
    initial_real: dict[State, State] = {}  # representative -> a real initial state
    deadlocks: list[State] = []
    terminals: list[State] = []
    fault_states: list[State] = []
    pending = _PendingConditions(compiled)
    transitions = 0
    truncated = interrupted = memory_limited = timed_out = False
    expanded = 0
    memory = ResidentGrowth(memory_limit)
    # Canonicalising is costly enough that reading the clock after every expansion is
    # free by comparison, and a timeout must not wait for 512 canonical labellings.
    clock_every = 1 if canon is not None else _CLOCK_EVERY
    # The BFS level being expanded: queue[:level_end] holds the levels up to it.
    level, level_end = -1, 0
    out_of_time = Clock(start, deadline, progress, lambda: (len(parent), transitions, max(level, 0))).out_of_time

    def must_stop() -> bool:
        """Read the memory and the clock: set the flags and say whether to stop."""
        nonlocal truncated, memory_limited
        nonlocal timed_out
        if memory.over():
            truncated = memory_limited = True
        elif out_of_time():
            truncated = timed_out = True
        return truncated

    try:
        # A model can have millions of initial states (every colouring of a ring): the bounds
        # and the clock apply while they are enumerated too.
        for n, x in enumerate(compiled.initial_states(), 1):
            r = canon(x) if canon is not None else x
            if r not in parent:
                if len(parent) == limit:
                    truncated = True
                    break
                parent[r] = None
                initial_real[r] = x
                queue.append(r)
            if n % clock_every == 0 and must_stop():
                break
        next_clock = clock_every
        while expanded < len(queue) and not truncated:
            if expanded == level_end:
                level, level_end = level + 1, len(queue)
            s = queue[expanded]
            expanded += 1
            if pending.active:
                pending.check(s)
            targets = set(successors_of(s))
            for i, sigma, applies in checked:
                if applies is not None and not applies(s):
                    continue
                image = sigma(s)
                if settle is None:
                    if set(successors_of(image)) != {None if t is None else sigma(t) for t in targets}:
                        raise NotASymmetry(i, s, image)
                elif ({None if t is None else settle(t) for t in successors_of(image)}
                      != {None if t is None else settle(sigma(t)) for t in targets}):
                    raise NotASymmetry(i, s, image)
            faulty = None in targets
            if faulty:
                targets.discard(None)
                fault_states.append(s)
            # Decided on the real successors, before canonicalising (as CMurphi does).
            stuck = not targets or (stutter and targets == {s})
            if canon is not None:
                targets = {canon(t) for t in targets}
            transitions += len(targets)
            if stuck and not faulty and not (assumes and compiled.discarded_move(s)):
                (terminals if is_terminal(s) else deadlocks).append(s)
            # Set difference against the dict runs in C: ~20% faster than a Python loop.
            new = targets.difference(parent)
            if new:
                if limit >= 0 and len(parent) + len(new) > limit:
                    new = list(new)[:limit - len(parent)]
                    truncated = True
                for t in new:
                    parent[t] = s
                queue.extend(new)
            if expanded == next_clock:
                next_clock += clock_every
                if must_stop():
                    break
    except KeyboardInterrupt:
        truncated = interrupted = True
    # States discovered but never expanded still count as reached (and are checked for the
    # reachability/invariant conditions), but not for deadlocks or transitions.
    for s in queue[expanded:]:
        if pending.active:
            pending.check(s)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    if progress is not None:
        progress(len(parent), transitions, seconds, max(level, 0))

    depth = 0
    if queue:
        at = parent[queue[-1]]
        while at is not None:
            depth += 1
            at = parent[at]
    fault_states, bound_states = split_faults(compiled, fault_states)
    return finished(compiled, _Tracer(compiled, parent, initial_real, canon), pending,
                    states=len(parent), transitions=transitions, initial=len(initial_real),
                    deadlocks=deadlocks, terminals=terminals, fault_states=fault_states,
                    faults=len(fault_states), truncated=truncated, interrupted=interrupted,
                    bound_states=bound_states, bounds=len(bound_states),
                    seconds=seconds, memory_bytes=memory.used(), memory_measure=memory.MEASURE,
                    memory_limit_reached=memory_limited, cpu_seconds=cpu_seconds, timed_out=timed_out,
                    depth=depth)


def finished(compiled: CompiledModel, tracer, pending, *, states: int, transitions: int, initial: int,
             deadlocks, terminals, fault_states, faults: int, truncated: bool, interrupted: bool,
             seconds: float, memory_bytes: int = 0, memory_measure: str = "",
             memory_limit_reached: bool = False, cpu_seconds: float = 0.0,
             timed_out: bool = False, depth: int = 0, bound_states=(), bounds: int = 0) -> Exploration:
    """The ``Exploration`` of a finished run, with its traces and verdicts (``tracer``
    rebuilds traces, ``pending`` holds the decided conditions); shared by the Python and
    native explorers.  ``fault_states`` are (the first) states with a fault of the model,
    ``bound_states`` (the first) bound states; ``faults`` and ``bounds`` count them all."""
    return Exploration(
        states=states,
        transitions=transitions,
        initial=initial,
        deadlocks=tuple(deadlocks),
        terminal_states=tuple(terminals),
        faults=faults,
        first_faults=_fault_reports(compiled, fault_states, False),
        truncated=truncated,
        interrupted=interrupted,
        seconds=seconds,
        assertions=_verdicts(compiled, pending, tracer, deadlocks, fault_states, truncated,
                             _fault_reports(compiled, bound_states[:1], True)),
        deadlock_trace=tracer.trace(deadlocks[0]) if deadlocks else (),
        fault_trace=tracer.fault_trace(fault_states[0]) if fault_states else (),
        memory_bytes=memory_bytes,
        memory_measure=memory_measure,
        memory_limit_reached=memory_limit_reached,
        cpu_seconds=cpu_seconds,
        timed_out=timed_out,
        depth=depth,
        bounds=bounds,
        first_bounds=_fault_reports(compiled, bound_states, True),
    )


def split_faults(compiled: CompiledModel, fault_states: Sequence[State]) -> tuple[list[State], list[State]]:
    """``fault_states`` split, in order, into those with a fault of the model and the bound
    states (every faulting instance cut at a bound of ours).  The explorers' successor lists
    say only "faults" (``None``): each state is replayed once, so only fault states pay."""
    real: list[State] = []
    cut: list[State] = []
    for s in fault_states:
        if any(step.target is None and step.bound is None for step in compiled.steps(s)):
            real.append(s)
        else:
            cut.append(s)
    return real, cut


class _PendingConditions:
    """The ``reaches``/``invariant`` conditions still undecided, and where each was decided.

    A ``reaches`` with an objective (``with min(e)``/``max(e)``) is never settled early: every
    state where its condition holds is compared, ``best`` keeps the least / greatest value of
    ``e`` and ``decided`` a state that has it (the first found).  A state where evaluating
    ``e`` faults is not counted."""

    def __init__(self, compiled: CompiledModel):
        self.decided: dict[int, State] = {}  # assertion index -> witness / violating state
        self.best: dict[int, int] = {}       # assertion index -> best objective value so far
        model = compiled.model
        self.objectives = {i: _objective(model, a.objective) for i, a in enumerate(model.assertions)
                           if a.kind == "reaches" and a.objective is not None}
        self.todo: list[tuple[int, str, Callable[[State], bool]]] = [
            (i, a.kind, cond)
            for i, (a, cond) in enumerate(zip(model.assertions, compiled.conditions))
            if cond is not None and a.kind in ("reaches", "invariant")
        ]
        self.sense = {i: model.assertions[i].sense for i in self.objectives}

    @property
    def active(self) -> bool:
        return bool(self.todo)

    def check(self, state: State) -> None:
        for entry in list(self.todo):
            i, kind, cond = entry
            if cond(state) == (kind == "reaches"):
                if i in self.objectives:
                    value = self.objectives[i](state)
                    if value is not None and (i not in self.best or (
                            value < self.best[i] if self.sense[i] == "min" else value > self.best[i])):
                        self.best[i] = value
                        self.decided[i] = state
                    self.decided.setdefault(i, state)  # reached, even where e faults
                    continue
                self.decided[i] = state
                self.todo.remove(entry)


def _objective(model, e) -> Callable[[State], Optional[int]]:
    """``e``'s value in a state (``None`` where evaluating it faults), by the reference
    interpreter: it runs only on the states where the condition holds."""
    from detect.ir import slot_offsets
    from detect.ir.semantics import Env, Fault, evaluate

    offsets = slot_offsets(model)

    def value(state: State) -> Optional[int]:
        try:
            return evaluate(e, Env(model, offsets, list(state), {}))
        except Fault:
            return None

    return value


def _fault_reports(compiled: CompiledModel, fault_states: Sequence[State], bound: bool) -> tuple[FaultReport, ...]:
    """The faulting instances of ``fault_states``: the model's faults, or (``bound``) the
    steps cut at a bound of ours; at most ``_MAX_FAULT_REPORTS``."""
    reports: list[FaultReport] = []
    summands = compiled.model.summands
    for s in fault_states:
        for step in compiled.steps(s):
            if step.target is None and (step.bound is not None) == bound:
                origin = summands[step.summand].where(step.summand)
                reports.append(FaultReport(s, origin, step.fault or "", step.bound))
                if len(reports) == _MAX_FAULT_REPORTS:
                    return tuple(reports)
    return tuple(reports)


def _verdicts(compiled, pending, tracer, deadlocks, fault_states, truncated, cut=()):
    """Each assertion's verdict; ``cut``: a report of a step cut at a bound of ours (none:
    no such step), which leaves undecided what only a complete run decides."""
    results = []
    if cut and not truncated:
        truncated, why = True, f"a bound of ours was reached ({cut[0].bound})"
    else:
        why = "exploration truncated"
    for i, a in enumerate(compiled.model.assertions):
        if a.about:
            # another process's property: this state space says nothing about it
            results.append(AssertionResult(a, "not checked", (), f"about {a.about}, not the process explored: "
                                                                 f"explore it with --process '{a.about}'"))
        elif a.kind == "deadlockfree":
            if deadlocks:
                # CMurphi's wording where deadlocks are CMurphi's (``stutter_deadlock``).
                why = "deadlocked state found" if compiled.model.stutter_deadlock else "deadlock reachable"
                results.append(AssertionResult(a, "fails", tracer.trace(deadlocks[0]), why))
            elif fault_states:
                results.append(AssertionResult(a, "fails", tracer.fault_trace(fault_states[0]),
                                               "run-time error reachable"))
            elif truncated:
                results.append(AssertionResult(a, "unknown", (), why))
            else:
                results.append(AssertionResult(a, "holds"))
        elif a.kind in ("reaches", "invariant") and a.condition is not None:
            found = pending.decided.get(i)
            if found is not None and i in pending.best:
                # PAT's "reaches cond with min(e)": the best value where cond holds; on a
                # truncated exploration only a bound on it (a better one may be unexplored).
                best = pending.best[i]
                note = f"{a.sense}({show_expr(a.objective)}) = {best}"
                if truncated:
                    note += (" among the states explored (exploration truncated: the "
                             f"{'minimum' if a.sense == 'min' else 'maximum'} may be "
                             f"{'lower' if a.sense == 'min' else 'higher'})")
                results.append(AssertionResult(a, "holds", tracer.trace(found), note, value=best))
            elif found is not None:
                verdict = "holds" if a.kind == "reaches" else "fails"
                note = (f"{a.sense}({show_expr(a.objective)}): evaluating it faults in every state reached "
                        f"where the condition holds" if a.objective is not None and a.kind == "reaches" else "")
                results.append(AssertionResult(a, verdict, tracer.trace(found), note))
            elif truncated:
                results.append(AssertionResult(a, "unknown", (), why))
            else:
                results.append(AssertionResult(a, "fails" if a.kind == "reaches" else "holds"))
        else:
            results.append(AssertionResult(a, "not checked"))
    return tuple(results)


# ------------------------------------------------------------------------ traces


class _Tracer:
    """Rebuilds real traces from the parent pointers of a (possibly reduced) exploration."""

    def __init__(self, compiled: CompiledModel, parent: Mapping[State, Optional[State]],
                 initial_real: Mapping[State, State], canon: Canonicalise | None):
        self.compiled = compiled
        self.parent = parent
        self.initial_real = initial_real
        self.canon = canon

    def representatives(self, state: State) -> list[State]:
        path = [state]
        while (p := self.parent.get(path[-1])) is not None:
            path.append(p)
        path.reverse()
        return path

    def trace(self, state: State) -> tuple[TraceStep, ...]:
        path = self.representatives(state)
        start = self.initial_real.get(path[0], path[0])
        return trace_between(self.compiled, start, path[1:], self.canon)

    def fault_trace(self, state: State) -> tuple[TraceStep, ...]:
        """Trace to ``state`` followed by the first faulting step (its message as event)."""
        return with_fault_step(self.compiled, self.trace(state))


def with_fault_step(compiled: CompiledModel, trace: tuple[TraceStep, ...]) -> tuple[TraceStep, ...]:
    """``trace`` followed by the first step of its last state that faults (its message in the
    event and in ``fault``); ``trace`` itself when none does."""
    # the model's own fault first: a step cut at a bound of ours is no violation
    faulting = sorted((step for step in compiled.steps(trace[-1].state) if step.target is None),
                      key=lambda step: step.bound is not None)
    for step in faulting[:1]:
        return trace + (TraceStep(f"{step.event}: {step.fault}", trace[-1].state, step.summand,
                                  tuple(step.binding), step.fault or "fault"),)
    return trace


def trace_between(compiled: CompiledModel, start: State, representatives: Iterable[State],
                  canonicalise: Canonicalise | None = None) -> tuple[TraceStep, ...]:
    """A real trace from ``start`` whose i-th successor has representative ``representatives[i]``.

    Without ``canonicalise`` the representatives are the states themselves.  If some step has
    no matching successor (the canonicaliser was not a symmetry), the trace continues with the
    representative itself and the event is marked ``"<no matching step>"``, so the caller
    still sees where it breaks.
    """
    canon = canonicalise or (lambda s: s)
    trace = [TraceStep(None, start)]
    current = start
    for rep in representatives:
        for step in compiled.steps(current):
            if step.target is not None and canon(step.target) == rep:
                trace.append(TraceStep(step.event, step.target, step.summand, tuple(step.binding)))
                current = step.target
                break
        else:
            trace.append(TraceStep("<no matching step>", rep))
            current = rep
    return tuple(trace)


# ------------------------------------------------------------------------ whole graph


def reachable_graph(model: SequentialModel | CompiledModel, max_states: int = 1_000_000,
                    progress: Progress | None = None, timeout: Optional[float] = None,
                    memory_limit: Optional[int] = None, interruptible: bool = False, canonicalise: Canonicalise | None = None,
                    symmetries: Sequence[Callable[[State], State]] = ()) -> ReachableGraph:
    """The reachable graph, or with ``canonicalise`` its quotient (representatives; each
    ``symmetries`` generator checked on every one, ``NotASymmetry``).  Stops expanding once ``max_states`` states are known,
    after ``timeout`` seconds (``timed_out``), or once the resident set has grown by more than
    ``memory_limit`` bytes (``memory_limited``).  With ``interruptible``, Ctrl-C (any
    ``KeyboardInterrupt``) also stops it and the graph explored so far is returned
    (``interrupted``); without, the interrupt propagates.  ``progress(states, transitions,
    seconds, level)`` is called every ``PROGRESS_INTERVAL`` or so.  Callers bound ``max_states`` by
    memory with ``state_bound``.

    Why one function: listing, expansion and the repair after an interrupt share the growing tables."""
    compiled = model if isinstance(model, CompiledModel) else compile_model(model)
    start = time.perf_counter()
    transitions = 0
    index: dict[State, int] = {}
    states: list[State] = []
    successors: list[frozenset[int]] = []
    faults: list[int] = []
    level, level_end = -1, 0  # the BFS level being expanded; states[:level_end] hold it and those before
    clock = Clock(start, None if timeout is None else start + timeout, progress,
                  lambda: (len(states), transitions, max(level, 0)))
    memory = ResidentGrowth(memory_limit)
    initial_complete, timed_out, memory_limited, interrupted = True, False, False, False
    listing = True
    try:
        # A parameter can make the initial states astronomically many (2^3000 colourings of a
        # ring): the bound applies while they are listed.
        for x in compiled.initial_states():
            if len(states) >= max_states or (len(states) % _CLOCK_EVERY == _CLOCK_EVERY - 1
                                             and clock.out_of_time()):
                initial_complete, timed_out = False, len(states) < max_states
                break
            x = canonicalise(x) if canonicalise is not None else x
            if x not in index:
                states.append(x)  # (before indexing it: see the repair below)
                index[x] = len(states) - 1
        initial_count = len(states)
        listing = False
        while len(successors) < len(states) and len(states) < max_states and initial_complete:
            expanding = len(successors)
            level, level_end = (level + 1, len(states)) if expanding == level_end else (level, level_end)
            targets = set(compiled.successors(states[expanding]))
            _check_symmetries(compiled, symmetries, states[expanding], targets)
            faulty = None in targets
            if faulty:
                targets.discard(None)
            if canonicalise is not None:
                targets = {canonicalise(t) for t in targets}
            ids = []
            for t in targets:
                k = index.get(t)
                if k is None:
                    states.append(t)
                    k = index[t] = len(states) - 1
                ids.append(k)
            if faulty:
                faults.append(expanding)
            successors.append(frozenset(ids))  # the state is expanded: one atomic step
            transitions += len(ids)
            if len(successors) % _CLOCK_EVERY == 0:
                out_of_time = clock.out_of_time()
                over = not out_of_time and memory.over()
                if out_of_time or over:
                    timed_out = out_of_time and len(successors) < len(states)
                    memory_limited = over and len(successors) < len(states)
                    break
    except KeyboardInterrupt:
        if not interruptible:
            raise
        # The interrupt can fall between appending a state and indexing it (drop the state:
        # no successor set names it yet), or between recording a fault and the successor set
        # of its state (drop the fault: that state is not expanded).
        del states[len(index):]
        faults = [f for f in faults if f < len(successors)]
        if listing:
            initial_complete, initial_count = False, len(states)
        stopped = not (initial_complete and len(successors) == len(states))
        # (an alarm set for the deadline stops a step that outlasts it: that is the time-out)
        if clock.deadline is not None and time.perf_counter() >= clock.deadline:
            timed_out = stopped
        else:
            interrupted = stopped
    return ReachableGraph(tuple(states), tuple(successors), frozenset(range(initial_count)), frozenset(faults),
                          len(successors), initial_complete, timed_out, memory_limited, interrupted=interrupted,
                          positions=index)


def _check_symmetries(compiled: CompiledModel, symmetries, state: State, targets: set) -> None:
    """Raise ``NotASymmetry`` unless each of ``symmetries`` maps ``targets`` (the successors of
    ``state``, None for a fault) onto the successors of its image of ``state``."""
    for i, sigma in enumerate(symmetries):
        image = sigma(state)
        if set(compiled.successors(image)) != {None if t is None else sigma(t) for t in targets}:
            raise NotASymmetry(i, state, image)


#: Most state slots (states × slots per state) an exploration that keeps every state as a
#: Python tuple (``reachable_graph``) may hold: about 1 GB of tuples.  A million states of a
#: ring of 1,000 processes (3,000 slots each) would take 24 GB before a state bound applied.
SLOT_BUDGET = 40_000_000


@dataclass(frozen=True)
class StateBound:
    """How many states an exploration holding them all may keep: ``states`` is the caller's
    bound, or fewer (``by_slots``) where that many states of ``slots`` slots each would exceed
    ``budget`` (``SLOT_BUDGET``) state slots."""

    states: int
    slots: int
    by_slots: bool
    budget: int

    def advice(self, option: str, activity: str) -> str:
        """What to change when the bound is reached: raise ``option``, or, when the memory
        budget set the bound, lower the parameters (``activity``: "while narrowing")."""
        if not self.by_slots:
            return f"raise {option}"
        return (f"at most {self.budget:,} state slots are held {activity} ({self.slots:,} per state): "
                "lower the parameters")


def state_bound(model: SequentialModel, max_states: int) -> StateBound:
    """``max_states``, or fewer where its states would exceed ``SLOT_BUDGET`` state slots."""
    slots = max(1, sum(v.length for v in model.variables))
    budget = SLOT_BUDGET
    if max_states * slots <= budget:
        return StateBound(max_states, slots, False, budget)
    return StateBound(max(1, budget // slots), slots, True, budget)
