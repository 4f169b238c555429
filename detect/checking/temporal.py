"""LTL over events and state propositions (CSP#'s ``#assert P() |= F``), with symmetry
reduction by the subgroup that fixes each of the formula's propositions.

Semantics (PAT's, as far as its documentation says, and our choices where it does not):

* The word a run produces has one letter per configuration: the initial state, then the
  state after each step.  An event proposition holds in a letter iff the step that led to
  that configuration performed that event ("the event just performed"; ``init`` at the
  initial state); a state proposition (``#define goal x == 3;``) iff it holds in that state.
* No fairness (PAT's default).
* A terminated process takes one more step, PAT's ``terminate`` (``Skip`` -> ``Stop``);
  the initial configuration carries the event ``init``.
* A state without successors (a deadlock, or ``Stop`` after ``terminate``) ends a finite
  run, judged as PAT's algorithm for the formula judges it (``pat_mode``, read from
  PAT.Common's ``AssertionLTL``): a syntactically safe formula fails on a bad prefix only
  (a finite run is no violation by itself); a formula whose negation is syntactically
  safe fails on a finite run that is not a good prefix; any other formula is checked with
  the run repeating its last configuration, event included (Spin's stuttering; PAT asks
  whether its automaton is in an accepting state after the deadlock's letter, which
  depends on its translator's states).

How: each proposition becomes a 0/1 variable ``__ltl_<k>`` of an augmented model, written by
every step (an event proposition from the step's event and arguments, evaluated before its
program as event arguments are; a state proposition after it), so that the letter is a
function of the augmented state.  The negated formula's automaton (``buchi.translate``) is
run in product with the augmented state graph; an acceptance cycle (Tarjan's SCCs) is a
counterexample lasso.  A syntactically safe formula's own automaton is run instead, as a
subset construction over its live states: a prefix leaving none is the counterexample.

Symmetry: the group detected on the augmented model, with each literal of every
``__ltl_<k>`` given a colour of its own in the coloured graph, is exactly the subgroup of
automorphisms fixing every proposition (its stabiliser): every element maps each state to
one with the same letter, so the quotient by it is bisimilar to the state graph with
letters kept, and the verdict is the unreduced one.  Each generator is still checked on
every expanded state (a refuted one makes the check an unreduced one).
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Callable, Optional

from detect.checking.buchi import Buchi, live_states, syntactically_safe, translate
from detect.checking.cycles import cyclic_components, lasso
from detect.ir import (Assertion, Assign, Binary, Const, Expr, Name, SequentialModel, TemporalProperty, Variable,
                       state_slots)
from detect.statespace.compile import compile_model
from detect.statespace.explore import AssertionResult, Exploration, TraceStep

PREFIX = "__ltl_"


class NotChecked(Exception):
    """The property cannot be checked here (the message says why)."""


@dataclass(frozen=True)
class TemporalCheck:
    """One check: ``found`` (None: cut short), the lasso in events, product and state counts,
    and, when reduced, which group was used and why."""

    found: Optional[bool]
    trace: tuple[TraceStep, ...]
    loop_from: Optional[int]
    product_states: int
    states: int
    group_order: int
    why: str
    seconds: float
    mode: str = "stutter"


def _conj(parts: list[Expr]) -> Expr:
    out: Optional[Expr] = None
    for p in parts:
        if isinstance(p, Const):
            if not p.value:
                return Const(0)
            continue
        out = p if out is None else Binary("&&", out, p)
    return Const(1) if out is None else out


#: PAT's event of the initial configuration and of a successful termination
#: (``PAT.Common/Classes/Ultility/Constants.cs``: ``INITIAL_EVENT``, ``TERMINATION``).
INIT_EVENT = "init"
TERMINATE_EVENT = "terminate"
#: The variable that records that the system took its ``terminate`` step (PAT's ``Stop``
#: after ``Skip``'s termination); it carries ``PREFIX`` so that the stabiliser fixes it.
TERMINATED = f"{PREFIX}terminated"
#: The event of a counterexample's step where a run without successors repeats itself.
STUTTER_STEP = "(no step enabled: the run stays here)"


def _event_value(s, p) -> Expr:
    """Whether summand ``s``'s step performs ``p``'s event (name and argument values)."""
    if s.event.name != p.event or len(s.event.args) != len(p.args):
        return Const(0)
    return _conj([Binary("==", a, Const(v)) if not isinstance(a, Const) else Const(int(a.value == v))
                  for a, v in zip(s.event.args, p.args)])


def augmented(model: SequentialModel, prop: TemporalProperty) -> SequentialModel:
    """``model`` with one 0/1 variable per proposition, last in the state, that every step
    sets (module docstring), and, when the model can terminate, PAT's ``terminate`` step.

    Initial values: an event proposition is 0 in the initial state except ``init`` (PAT's
    initial configuration carries the event ``init``); a state proposition holds its value
    in each initial state -- where the initial states disagree on it, they are listed one
    by one (``SequentialModel.initial``) with the value each one gives it."""
    compiled = compile_model(dataclasses.replace(model, assertions=tuple(
        Assertion("invariant", p.text, p.condition) for p in prop.propositions if p.condition is not None)))
    states = [tuple(s) for s in compiled.initial_states()]
    rows: list[list[int]] = [[] for _ in states]
    c = 0
    for p in prop.propositions:
        if p.condition is None:
            value = int(p.event == INIT_EVENT and not p.args)
            for row in rows:
                row.append(value)
            continue
        for row, st in zip(rows, states):
            row.append(int(bool(compiled.conditions[c](st))))
        c += 1
    names = [f"{PREFIX}{k}" for k in range(len(prop.propositions))]
    taken = {v.name for v in model.variables}
    if taken & (set(names) | {TERMINATED}):
        raise NotChecked(f"the model already has a variable named {PREFIX}...")
    terminal = model.terminal if model.terminal is not None and model.terminal != Const(0) else None
    if terminal is not None:
        for row in rows:
            row.append(0)
    extra = names + ([TERMINATED] if terminal is not None else [])
    columns = list(zip(*rows)) if rows else [()] * len(extra)
    variables = model.variables + tuple(Variable(n, (0, 1), (tuple(sorted(set(col))),))
                                        for n, col in zip(extra, columns))
    initial = None
    if model.initial is not None or any(len(set(col)) > 1 for col in columns):
        initial = tuple(sorted(set(st + tuple(row) for st, row in zip(states, rows))))

    def writes(s) -> tuple[tuple, tuple]:
        before, after = [], []
        for name, p in zip(names, prop.propositions):
            if p.condition is not None:
                after.append(Assign(Name(name), Binary("!=", p.condition, Const(0))))
            else:
                before.append(Assign(Name(name), _event_value(s, p)))
        return tuple(before), tuple(after)

    summands = []
    running = Binary("==", Name(TERMINATED), Const(0))
    for s in model.summands:
        before, after = writes(s)
        # after 'terminate' nothing moves: a choice 'b -> P() [] Skip' resolved by termination
        guard = _conj([s.guard, running]) if terminal is not None else s.guard
        summands.append(dataclasses.replace(s, guard=guard, program=before + s.program + after))
    if terminal is not None:
        # PAT: a terminated process (every component at Skip) takes one more step,
        # 'terminate', into Stop, a configuration without successors (Skip's semantics)
        from detect.ir import Event, Summand

        step = Summand((), _conj([terminal, running]), Event(TERMINATE_EVENT), ())
        before, after = writes(step)
        summands.append(dataclasses.replace(step, program=before + (Assign(Name(TERMINATED), Const(1)),) + after))
    # the assertions stay, so that verdict indices agree; the explorer does not look at them here
    return dataclasses.replace(model, variables=variables, summands=tuple(summands), domains=None, initial=initial)


def _proposition_slots(model: SequentialModel, count: int) -> tuple[int, ...]:
    """The state slots of ``__ltl_0 .. __ltl_<count-1>`` in ``model`` (augmented)."""
    from detect.ir.model import slot_offsets

    offsets = slot_offsets(model)
    return tuple(offsets[f"{PREFIX}{k}"] for k in range(count))


def stabiliser(detection):
    """``(group, detection')``: the automorphisms of ``detection``'s coloured graph that fix
    each literal of the proposition variables (``PREFIX``), as a state group, and the
    detection with it (module docstring)."""
    from detect.symmetry.automorphisms import _recoloured, automorphisms
    from detect.symmetry.group import symmetry_group

    graph = detection.graph
    slots = state_slots(detection.model)
    marks: dict[int, int] = {}
    for k, slot in enumerate(slots):
        if slot.variable.startswith(PREFIX):
            for value, node in graph.pre_literal[k].items():
                marks[node] = len(marks)
    colour = _recoloured(graph, marks)
    # colour keys: one per new colour, in the order of the new colours (sorted pairs)
    pairs = sorted({(graph.colour[v], marks.get(v, -1)) for v in range(graph.n)})
    keys = tuple(f"{graph.colour_keys[c]}#{m}" if m >= 0 else graph.colour_keys[c] for c, m in pairs)
    marked = dataclasses.replace(graph, colour=tuple(colour), colour_keys=keys)
    aut = automorphisms(marked)
    group = symmetry_group(detection.model, marked, aut)
    return group, dataclasses.replace(detection, graph=marked, automorphisms=aut, group=group)


def check_temporal(model: SequentialModel, prop: TemporalProperty, reduce: bool = False, *,
                   detection=None, whole=None, max_states: int = 1_000_000, timeout: Optional[float] = None,
                   engine: str = "auto", table_limit: int = 100_000) -> TemporalCheck:
    """Whether ``model`` has a run violating ``prop`` (``found``), by the product of its
    augmented state graph with the automaton of the negated formula, reduced by the
    propositions' stabiliser when ``reduce`` (``detection``: of the augmented model, else
    computed; ``whole``: the model's own group, for the explanation only)."""
    start = time.perf_counter()
    mode = pat_mode(prop.formula)
    aut = translate(prop.formula if mode == SAFETY else ("!", prop.formula))
    aug = augmented(model, prop)
    count = len(prop.propositions)
    canon = None
    checks: tuple = ()
    why = "no reduction"
    order = 1
    explored = aug
    if reduce:
        from detect.checking.reduce import make_reducer
        from detect.symmetry.pipeline import detect

        if detection is None:
            detection = detect(aug, engine=engine, table_limit=table_limit)
        group, _ = stabiliser(detection)
        explored = detection.model
        order = group.order
        why = explain(prop, whole if whole is not None else detection.group, group)
        if group.order > 1:
            reducer = make_reducer(explored, group, "exact")
            canon = reducer.canonicalise
            checks = tuple(g.permutation.apply for g in group.acting)
    compiled = compile_model(explored)
    result = _search(compiled, aut, count, canon, checks, max_states, timeout, mode)
    if result is _REFUTED:
        why += "; a generator was refuted on an expanded state: checked without reduction"
        canon, order = None, 1
        result = _search(compiled, aut, count, None, (), max_states, timeout, mode)
    found, nodes, states, path, loop_from = result
    trace: tuple[TraceStep, ...] = ()
    if found and canon is not None:
        # the quotient's lasso closes up to a symmetry: the real one from the unreduced product
        again = _search(compiled, aut, count, None, (), max_states, timeout, mode)
        if again[0]:
            _, nodes_plain, _, path, loop_from = again
            trace = _trace(compiled, path, count)
    elif found:
        trace = _trace(compiled, path, count)
    return TemporalCheck(found, trace, loop_from, len(nodes) if nodes is not None else 0, states, order, why,
                         time.perf_counter() - start, mode)


def explain(prop: TemporalProperty, whole, kept) -> str:
    """Which group reduces the check, and why (the propositions it must fix)."""
    named = ", ".join(p.text for p in prop.propositions) or "none"
    moves = "; ".join(g.description for g in kept.acting) or "identity only"
    if kept.order == whole.order:
        return (f"every symmetry of the model (order {whole.order:,}) fixes each proposition ({named}): "
                f"reduction uses the whole group ({moves})")
    all_moves = "; ".join(g.description for g in whole.acting) or "identity only"
    return (f"the model's group has order {whole.order:,} ({all_moves}); the formula's propositions ({named}) "
            f"are each fixed only by a subgroup of order {kept.order:,}, so reduction uses that subgroup ({moves})")


_REFUTED = object()

#: How a run that reaches a state without successors is judged (``pat_mode``).
STUTTER, SAFETY, CO_SAFETY = "stutter", "safety", "co-safety"


def pat_mode(formula: tuple) -> str:
    """Which of PAT's three LTL algorithms checks ``formula``, by the test PAT applies first
    (``AssertionLTL.SeteBAs``/``UIInitialize``, ``LivenessChecking``): ``SAFETY`` when the
    formula is syntactically safe (``AssertionLTLSafety``: a counterexample is a bad prefix;
    a deadlocked run is just a finite run), else ``CO_SAFETY`` when its negation is
    (``RunVerificationNegate``: a deadlock reached while the negation's automaton can still
    go on is a counterexample), else ``STUTTER`` (PAT's ``TarjanModelChecking`` reports a
    deadlock whose product state is accepting; we repeat the deadlock's letter, Spin's
    convention, which agrees with it where its automaton's accepting states are the
    obligation-free ones)."""
    if syntactically_safe(formula):
        return SAFETY
    if syntactically_safe(("!", formula)):
        return CO_SAFETY
    return STUTTER


def _search(compiled, aut: Buchi, count: int, canon: Optional[Callable], checks: tuple, max_states: int,
            timeout: Optional[float], mode: str = STUTTER):
    """``(found, nodes, system states, path of system states, loop_from)`` or ``_REFUTED``;
    ``aut`` is the negation's automaton, the formula's own in ``SAFETY`` mode (run as a
    subset construction over its live states: a prefix leaving none is a bad prefix, a
    counterexample with ``loop_from`` None).  ``mode``: how a deadlock ends a run (``pat_mode``)."""
    deadline = None if timeout is None else time.perf_counter() + timeout
    slots = _proposition_slots(compiled.model, count)
    canon = canon or (lambda s: s)
    succ_cache: dict = {}
    live = live_states(aut) if mode != STUTTER else frozenset()

    def system_successors(s):
        out = succ_cache.get(s)
        if out is None:
            targets = [t for t in compiled.successors(s) if t is not None]
            for g in checks:
                image = {g(t) for t in targets}
                if {t for t in compiled.successors(g(s)) if t is not None} != image:
                    raise _Refuted()
            out = sorted({canon(t) for t in targets})
            succ_cache[s] = out
        return out

    def advance(q, letter) -> list:
        """The automaton nodes after reading ``letter`` from ``q``."""
        if mode == SAFETY:
            nxt = frozenset(q2 for q1 in q for q2 in aut.moves(q1, letter) if q2 in live)
            return [nxt]
        return aut.moves(q, letter)

    index: dict = {}
    nodes: list = []
    parent: list = []  # the node each was first reached from: finite counterexamples
    successors: list = []
    initial = set()

    start_q = frozenset({aut.initial}) if mode == SAFETY else aut.initial
    try:
        for s0 in compiled.initial_states():
            node = (canon(tuple(s0)), start_q)
            if node not in index:
                index[node] = len(nodes)
                nodes.append(node)
                parent.append(None)
            initial.add(index[node])
        while len(successors) < len(nodes):
            if len(nodes) > max_states or (deadline is not None and len(successors) % 1024 == 0
                                           and time.perf_counter() > deadline):
                return None, nodes, len(succ_cache), [], None
            here = len(successors)
            s, q = nodes[here]
            letter = frozenset(k for k, at in enumerate(slots) if s[at])
            moves = advance(q, letter)
            if mode == SAFETY and not moves[0]:
                return True, nodes, len(succ_cache), _path(nodes, parent, here), None  # a bad prefix
            targets = system_successors(s) if moves else []
            if moves and not targets:
                if mode == STUTTER:
                    targets = [s]  # the run stays here, repeating its last letter
                elif mode == CO_SAFETY and any(q2 in live for q2 in moves):
                    return True, nodes, len(succ_cache), _path(nodes, parent, here), None  # no good prefix
            out = set()
            for t in targets:
                for q2 in moves:
                    node = (t, q2)
                    k = index.get(node)
                    if k is None:
                        k = index[node] = len(nodes)
                        nodes.append(node)
                        parent.append(here)
                    out.add(k)
            successors.append(frozenset(out))
    except _Refuted:
        return _REFUTED
    if mode == SAFETY:
        return False, nodes, len(succ_cache), [], None
    return _accepting_lasso(aut, nodes, successors, frozenset(initial), len(succ_cache))


def _accepting_lasso(aut: Buchi, nodes: list, successors: list, initial: frozenset, states: int):
    """``_search``'s answer from the product graph: an acceptance cycle's lasso, if any."""
    for component in cyclic_components(successors):
        acc = next((k for k in sorted(component) if nodes[k][1] in aut.accepting), None)
        if acc is not None:
            path, loop_from = lasso(successors, initial, component, acc)
            return True, nodes, states, [nodes[k][0] for k in path], loop_from
    return False, nodes, states, [], None


def _path(nodes: list, parent: list, k: int) -> list:
    """The system states from an initial node to node ``k`` along ``parent``."""
    out = []
    while k is not None:
        out.append(nodes[k][0])
        k = parent[k]
    return out[::-1]


class _Refuted(Exception):
    pass


def _trace(compiled, states: list, count: int) -> tuple[TraceStep, ...]:
    """The lasso's states as a trace in events (the variables ``augmented`` added dropped): a
    step between equal states where none is enabled is the stutter of a deadlock."""
    from detect.ir.model import slot_offsets

    added = [at for name, at in slot_offsets(compiled.model).items() if name.startswith(PREFIX)]
    keep = min(added) if added else None

    terminate = len(compiled.model.summands) - 1 if TERMINATED in slot_offsets(compiled.model) else None

    def strip(s):
        return tuple(s[:keep]) if keep is not None else tuple(s)

    trace = [TraceStep(None, strip(states[0]))]
    current = states[0]
    for nxt in states[1:]:
        for step in compiled.steps(current):
            if step.target is not None and tuple(step.target) == tuple(nxt):
                if step.event == TERMINATE_EVENT and step.summand == terminate:
                    # the model has no such summand: a step of its own kind, as the stutter
                    trace.append(TraceStep(TERMINATE_EVENT, strip(step.target)))
                else:
                    trace.append(TraceStep(step.event, strip(step.target), step.summand, tuple(step.binding)))
                break
        else:
            trace.append(TraceStep(STUTTER_STEP, strip(nxt)))
        current = nxt
    return tuple(trace)


def check_temporal_assertions(model: SequentialModel, result: Exploration, reduce: bool = False, *,
                              detection_of: Optional[Callable] = None, whole=None,
                              max_states: Optional[int] = None, timeout: Optional[float] = None
                              ) -> tuple[Exploration, list[str]]:
    """``result`` with its ``ltl`` assertions decided, and one line per assertion saying
    which group reduced it (``detection_of(augmented model)`` detects, when ``reduce``)."""
    verdicts = list(result.assertions)
    lines = []
    for i, a in enumerate(model.assertions):
        if a.kind != "ltl" or a.temporal is None or a.about or verdicts[i].verdict != "not checked":
            continue
        try:
            detection, reduce_this, refusal = None, reduce, ""
            if reduce and detection_of is not None:
                from detect.symmetry.constraints import TableTooLarge
                from detect.symmetry.graph import GraphTooLarge

                try:
                    detection = detection_of(augmented(model, a.temporal))
                except (TableTooLarge, GraphTooLarge) as e:
                    # no group for the model with the propositions: checked without reduction
                    reduce_this, refusal = False, f"; not reduced: {e}"
            check = check_temporal(model, a.temporal, reduce_this, detection=detection, whole=whole,
                                   max_states=max_states or 1_000_000, timeout=timeout)
            check = dataclasses.replace(check, why=check.why + refusal)
        except NotChecked as e:
            verdicts[i] = AssertionResult(a, "not checked", (), f"not checked: {e}")
            continue
        where = (f"{check.product_states:,} product states, {check.states:,} "
                 f"{'representative' if reduce_this and check.group_order > 1 else 'system'} states")
        if reduce_this:
            where += f"; reduced by the subgroup of order {check.group_order:,} fixing each proposition"
        if check.found is None:
            verdicts[i] = AssertionResult(a, "unknown", (), f"LTL check cut short after {where}; "
                                          "raise --max-states or --timeout")
        elif check.found:
            how = (f"an acceptance cycle among {where}" if check.loop_from is not None else
                   f"a prefix no continuation satisfies, PAT's safety check, among {where}" if check.mode == SAFETY
                   else f"a deadlock before the formula is settled, PAT's check of a formula whose negation is "
                        f"safe, among {where}")
            verdicts[i] = AssertionResult(a, "fails", check.trace, f"a run violates the formula ({how})",
                                          loop_from=check.loop_from)
        else:
            verdicts[i] = AssertionResult(a, "holds", (), f"no run violates the formula ({where})")
        if reduce:
            lines.append(f"{a.text}: {check.why}")
    return dataclasses.replace(result, assertions=tuple(verdicts)), lines
