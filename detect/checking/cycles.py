"""Acceptance cycles: is there a reachable cycle through an accepting state?

An ``acceptance`` assertion's condition says which states accept (Promela: the never claim,
or without one a process, at an ``accept`` label).  Its verdict comes from the unreduced
reachable graph: it fails iff a strongly connected component with a cycle (more than one
state, or a self-loop) holds an accepting state -- what Spin's ``pan -a`` looks for with its
nested search, without fairness.  The graph is that of the whole model, never claim and
stutter moves included, so a system that stops with the claim cycling on its last state is
an acceptance cycle as in Spin.  The graph holds every state, so it is bounded like
``--verify``'s (``--max-states``, the state-slot budget of ``explore.state_bound``, the time
left); a check cut short makes the verdict "unknown", with a note saying what to pass.
"""
from __future__ import annotations

import dataclasses
from typing import Optional, Sequence

from detect.ir import SequentialModel
from detect.statespace.compile import compile_model
from detect.statespace.explore import (AssertionResult, Exploration, TraceStep, reachable_graph, state_bound,
                                      trace_between)
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


def _acceptance_cycle(model: SequentialModel, condition, max_states: int, timeout: Optional[float],
                      memory_limit: Optional[int], interruptible: bool
                      ) -> tuple[Optional[bool], int, str, str, tuple[TraceStep, ...], Optional[int]]:
    """``acceptance_cycle``'s answer with, fourth, the ``stop_reason`` of a graph cut short ("" if not)."""
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
    for component in cyclic_components(graph.successors):
        accepting = next((k for k in sorted(component) if condition(graph.states[k])), None)
        if accepting is not None:
            path, loop_from = lasso(graph.successors, graph.initial, component, accepting)
            states = [graph.states[k] for k in path]
            trace = trace_between(compile_model(model), states[0], states[1:])
            return True, len(graph.states), "", "", trace, loop_from
    return False, len(graph.states), "", "", (), None


def check_acceptance(model: SequentialModel, result: Exploration, max_states: int | None,
                     timeout: Optional[float] = None, memory_limit: Optional[int] = None,
                     interruptible: bool = False) -> Exploration:
    """``result`` with its ``acceptance`` verdicts decided (see the module docstring), looking
    at most ``max_states`` (default 1,000,000) unreduced states, ``timeout`` seconds and
    ``memory_limit`` bytes of resident-set growth; with ``interruptible``, Ctrl-C stops the
    check, and an interrupted ``result`` is not checked at all (the user asked to stop)."""
    kinds = [a.kind for a in model.assertions]
    if "acceptance" not in kinds:
        return result
    compiled = compile_model(model)
    verdicts = list(result.assertions)
    for i, (a, cond) in enumerate(zip(model.assertions, compiled.conditions)):
        if a.kind != "acceptance" or cond is None or verdicts[i].verdict != "not checked":
            continue
        if interruptible and result.interrupted:
            verdicts[i] = AssertionResult(a, "unknown", (), "acceptance cycles not checked: interrupted",
                                          stopped_by=INTERRUPTED)
            continue
        cycle, states, why, stopped_by, trace, loop_from = _acceptance_cycle(
            model, cond, max_states or 1_000_000, timeout, memory_limit, interruptible)
        if cycle is None:
            verdicts[i] = AssertionResult(a, "unknown", (), f"acceptance cycles not checked: {why}",
                                          stopped_by=stopped_by)
        else:
            verdicts[i] = AssertionResult(a, "fails" if cycle else "holds", trace,
                                          f"{'a' if cycle else 'no'} cycle through an accepting state "
                                          f"among {states:,} unreduced states", loop_from=loop_from)
    return dataclasses.replace(result, assertions=tuple(verdicts))
