"""How many of a model's symmetries detection found: the detected group against every
symmetry of the explored transition system (issue 13).

The *true* group is computed independently of the constraint graph, on the reachable LTS
itself.  Its coloured graph has a node per slot (coloured by its domain's size), per literal
(slot, value) some reachable state holds, per reachable state and two per transition.  A state node is joined to the literals it holds and coloured
by whether it is initial, has a faulting step, and is a valid end state or a deadlock.  A
transition s -> t is the path s - e - e' - t, with e and e' in colours of their own, so
direction counts.  An automorphism maps slot nodes to slot nodes and literals to literals
of the image slot, so it induces a literal permutation σ acting on states.  It maps each
state node to the node of σ(s), which must be reachable, and transitions, initial states,
faults and end states to their own kind, and literals onto literals with the same marks
(``SequentialModel.marks``).  Values no reachable state holds are left out (they
would only add inert permutations); σ maps them in order onto the image slot's.  So the literal permutations of Aut are exactly
the symmetries of the reachable LTS (the same notion ``detect.checking.verify`` checks).

The exploration holds every state and the graph has a node per state and transition, so the
measurement is bounded: by ``max_states`` and the memory budget (``explore.state_bound``),
by a time-out for the exploration, and by a limit on the graph's nodes and edges, checked
before building it (``lts_graph_size``).  A measurement cut short says which
(``Completeness.stopped_by``) and reports no orders.

Both groups are compared by their action on the reachable states
(``verify.reachable_action_order``).  Literal moves that fix every reachable state, such as
values never held, count in neither.  Detected generators are symmetries (``--verify``
checks that), so the found group acts as a subgroup, and equal orders mean equal groups.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from detect.statespace.compile import compile_model
from detect.symmetry.automorphisms import automorphisms
from detect.statespace.explore import ReachableGraph, StateBound, reachable_graph, state_bound
from detect.symmetry.graph import ColouredGraph
from detect.ir import SequentialModel, literal_marks, state_slots
from detect.symmetry.perm import StatePermutation
from detect.checking.verify import (
    INTERRUPTED, MEMORY_LIMIT, TIMEOUT, reachable_action_order, stop_advice, stop_reason,
)

#: ``Completeness.stopped_by`` when the graph of the transition system exceeds the limit.
GRAPH_LIMIT = "graph-limit"


@dataclass(frozen=True)
class Completeness:
    """``found_order`` and ``true_order`` act on the ``states`` reachable states; both are
    None when the measurement stopped early (``stopped_by``: ``verify.MAX_STATES``,
    ``verify.SLOT_BUDGET``, ``verify.TIMEOUT`` or ``GRAPH_LIMIT``; ``explored_all`` is false
    unless the exploration itself was complete).  ``missing`` describes one true symmetry
    outside the found group ("" when complete).  ``graph_size``: nodes and edges of the
    transition system's graph (0 unless the exploration was complete)."""

    states: int
    explored_all: bool
    found_order: Optional[int]
    true_order: Optional[int]
    missing: str
    seconds: float
    stopped_by: str = ""
    bound: Optional[StateBound] = None
    graph_size: int = 0

    @property
    def complete(self) -> Optional[bool]:
        return None if self.true_order is None else self.found_order == self.true_order

    def advice(self, graph_limit: Optional[int] = None) -> str:
        """Why the measurement stopped and what to pass ("" when it did not stop)."""
        if self.stopped_by == GRAPH_LIMIT:
            return (f"the graph of the transition system would have {self.graph_size:,} nodes and edges, more "
                    f"than --graph-limit {graph_limit:,}; raise --graph-limit")
        if not self.stopped_by:
            return ""
        advice = stop_advice(self.stopped_by, self.bound, "while measuring completeness")
        if self.stopped_by in (TIMEOUT, MEMORY_LIMIT, INTERRUPTED):
            return f"stopped after {self.states:,} states; {advice}"
        return f"more than {self.states:,} reachable states; {advice}"


def lts_graph_size(graph: ReachableGraph) -> int:
    """Nodes and edges, in all, of ``lts_graph(model, graph)``, counted without building it."""
    if not graph.states:
        return 0
    slots = len(graph.states[0])
    literals = sum(len({s[k] for s in graph.states}) for k in range(slots))
    transitions = sum(len(t) for t in graph.successors)
    nodes = slots + literals + len(graph.states) + 2 * transitions
    edges = literals + len(graph.states) * slots + 3 * transitions
    return nodes + edges


def lts_graph(model: SequentialModel, graph) -> tuple[ColouredGraph, list[int], list[dict]]:
    """The coloured graph of the reachable LTS (module docstring), with the slot nodes and,
    per slot, its value -> literal node map."""
    compiled = compile_model(model)
    slots = state_slots(model)
    keys: list[str] = []
    edges: set[tuple[int, int]] = set()

    def node(key: str) -> int:
        keys.append(key)
        return len(keys) - 1

    slot_node = [node(f"0 slot |D|={len(slot.domain)}") for slot in slots]
    held = [sorted({s[k] for s in graph.states}) for k in range(len(slots))]
    # A literal's marks (Promela's end/accept/progress labels) are in its colour, as in the
    # detection graph: the symmetries counted are those ``--verify`` accepts.
    marks = literal_marks(model)
    literal = []
    for k in range(len(slots)):
        literal.append({v: node("1 literal" + (f" marks={marks[k, v]}" if (k, v) in marks else "")) for v in held[k]})
        for lit in literal[k].values():
            edges.add((slot_node[k], lit))
    state_node = []
    for i, s in enumerate(graph.states):
        expanded = i < graph.expanded
        end = ""
        if expanded and not graph.successors[i]:
            end = "end" if compiled.terminal(s) else "deadlock"
        key = f"2 state init={i in graph.initial} fault={i in graph.faults} {end}"
        v = node(key)
        state_node.append(v)
        for k, value in enumerate(s):
            edges.add((literal[k][value], v))
    for i, targets in enumerate(graph.successors):
        for j in targets:
            e, e2 = node("3 step out"), node("4 step in")
            edges.add((state_node[i], e))
            edges.add((e, e2))
            edges.add((e2, state_node[j]) if e2 < state_node[j] else (state_node[j], e2))
    colour_keys = tuple(sorted(set(keys)))
    index = {key: c for c, key in enumerate(colour_keys)}
    ordered = tuple(sorted((min(u, v), max(u, v)) for u, v in edges))
    coloured = ColouredGraph(
        n=len(keys), edges=ordered, colour=tuple(index[k] for k in keys), colour_keys=colour_keys,
        kind=tuple(k.split()[1] for k in keys), label=tuple("" for _ in keys), pre_literal=tuple(literal),
    )
    return coloured, slot_node, literal


def true_symmetries(model: SequentialModel, graph, engine: str = "auto") -> list[StatePermutation]:
    """Generators of every symmetry of the reachable LTS ``graph`` (a complete
    ``explore.ReachableGraph``), as state permutations."""
    coloured, slot_node, literal = lts_graph(model, graph)
    slot_of = {v: k for k, v in enumerate(slot_node)}
    value_of = {lit: (k, value) for k, lits in enumerate(literal) for value, lit in lits.items()}
    out = []
    slots = state_slots(model)
    for g in automorphisms(coloured, engine).generators:
        target = tuple(slot_of[g[slot_node[k]]] for k in range(len(slot_node)))
        values = []
        for k, lits in enumerate(literal):
            mapping = {value: value_of[g[lit]][1] for value, lit in lits.items()}
            # Values never held map in order onto the image slot's values never held.
            rest = [v for v in slots[target[k]].domain if v not in set(mapping.values())]
            mapping.update(zip([v for v in slots[k].domain if v not in mapping], rest))
            values.append(mapping)
        sigma = StatePermutation(target, tuple(values))
        if not sigma.is_identity():
            out.append(sigma)
    return out


def completeness(model: SequentialModel, found: Sequence[StatePermutation], max_states: int = 100_000,
                 engine: str = "auto", graph_limit: Optional[int] = None, timeout: Optional[float] = None,
                 progress: Optional[Callable[[str], None]] = None, interruptible: bool = False) -> Completeness:
    """Compare the detected generators ``found`` (symmetries of ``model``) with every
    symmetry of its reachable LTS, explored up to ``max_states`` states (fewer for states of
    many slots: ``explore.state_bound``) for at most ``timeout`` seconds, if its graph has at
    most ``graph_limit`` nodes and edges.  ``progress(text)`` is told what is being done.  With
    ``interruptible``, Ctrl-C during the exploration stops it and the result says so."""
    start = time.perf_counter()

    def tell(text: str) -> None:
        if progress is not None:
            progress("completeness: " + text)

    def exploring(states: int, transitions: int, seconds: float, *level: int) -> None:
        # (The explorer may add the BFS level it is expanding: ``Clock.out_of_time``.)
        tell(f"exploring, {states:,} states, {transitions:,} transitions")

    bound = state_bound(model, max_states)
    tell("exploring")
    graph = reachable_graph(model, bound.states, exploring, timeout, interruptible=interruptible)
    if not graph.complete:
        return Completeness(len(graph.states), False, None, None, "", time.perf_counter() - start,
                            stop_reason(graph, bound), bound)
    size = lts_graph_size(graph)
    if graph_limit is not None and size > graph_limit:
        return Completeness(len(graph.states), True, None, None, "", time.perf_counter() - start,
                            GRAPH_LIMIT, bound, size)
    states = graph.states
    tell(f"every symmetry of the transition system's graph ({len(states):,} states, {size:,} nodes and edges)")
    true = true_symmetries(model, graph, engine)
    found_order = reachable_action_order(states, list(found))
    true_order = reachable_action_order(states, true)
    missing = ""
    if found_order < true_order:
        from detect.symmetry.group import classify

        slots = state_slots(model)
        for sigma in true:
            if reachable_action_order(states, list(found) + [sigma]) > found_order:
                missing = classify(sigma, model, slots)[1]
                break
    return Completeness(len(states), True, found_order, true_order, missing, time.perf_counter() - start,
                        bound=bound, graph_size=size)
