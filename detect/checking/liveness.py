"""Rumur's ``Liveness`` properties and ``Cover`` statements, decided on the whole reachable
graph after the exploration.

A ``liveness`` assertion (``detect.ir.Assertion``) holds when from every reachable state some
state satisfying its condition is reachable (CTL's AG EF p), which is what Rumur's verifier
checks: each stored state where p holds is marked, marks flow to predecessors until nothing
changes, and an unmarked state is the violation ("liveness property ... violated").  The
steps an assumption discards lead nowhere here too (``CompiledModel.successors`` leaves
them out).

A ``cover`` assertion (a ``Cover`` statement, ``detect.ir.CoverProbe``) holds when a step
from some reachable state runs the statement with its condition true.

The graph is the unreduced one, so the verdict does not depend on the symmetry reduction
of the run it completes (a reduced run gives the same verdict: the group does not enter).
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from detect.ir import SequentialModel
from detect.statespace.compile import compile_model
from detect.statespace.explore import AssertionResult, Exploration, reachable_graph, state_bound, trace_between

#: Most states the graph may hold when the run gives no ``max_states``.
DEFAULT_STATES = 1_000_000


def has_liveness(model: SequentialModel) -> bool:
    """Whether ``model`` has a property decided here: ``liveness``, or a ``cover`` statement."""
    return any(a.kind == "liveness" and a.condition is not None or a.kind == "cover" and a.probe is not None
               for a in model.assertions)


def decide_liveness(model: SequentialModel, result: Exploration, max_states: Optional[int] = None,
                    timeout: Optional[float] = None) -> Exploration:
    """``result`` with the verdicts of ``model``'s ``liveness`` assertions (the others as they
    were): "holds", "fails" with a trace to a state from which the condition is unreachable,
    or "unknown" when the graph could not be explored whole."""
    indices = [i for i, a in enumerate(model.assertions)
               if a.kind == "liveness" and a.condition is not None or a.kind == "cover" and a.probe is not None]
    if not indices:
        return result
    compiled = compile_model(model)
    bound = state_bound(model, max_states or DEFAULT_STATES).states
    graph = reachable_graph(compiled, max_states=bound, timeout=timeout, interruptible=True)
    verdicts = list(result.assertions)
    if not graph.complete:
        for i in indices:
            verdicts[i] = AssertionResult(model.assertions[i], "unknown", (), "the reachable graph was not explored whole")
        return dataclasses.replace(result, assertions=tuple(verdicts))
    n = len(graph.states)
    predecessors: list[list[int]] = [[] for _ in range(n)]
    for k, targets in enumerate(graph.successors):
        for t in targets:
            predecessors[t].append(k)
    parent = _bfs_parents(graph, n)
    for i in indices:
        if model.assertions[i].kind == "cover":
            verdicts[i] = _cover(model, model.assertions[i], graph, parent, compiled)
            continue
        cond = compiled.conditions[i]
        live = [False] * n
        stack = [k for k, s in enumerate(graph.states) if cond(s)]
        for k in stack:
            live[k] = True
        while stack:
            for p in predecessors[stack.pop()]:
                if not live[p]:
                    live[p] = True
                    stack.append(p)
        dead = next((k for k in parent if not live[k]), None)  # (parent: in BFS order)
        a = model.assertions[i]
        if dead is None:
            verdicts[i] = AssertionResult(a, "holds")
            continue
        path = [dead]
        while parent[path[-1]] is not None:
            path.append(parent[path[-1]])
        path.reverse()
        trace = trace_between(compiled, graph.states[path[0]], [graph.states[k] for k in path[1:]])
        verdicts[i] = AssertionResult(a, "fails", trace, "liveness property violated: from the last state of the "
                                      "trace no state satisfying it is reachable")
    return dataclasses.replace(result, assertions=tuple(verdicts))


def _bfs_parents(graph, n: int) -> dict[int, Optional[int]]:
    """Each state's BFS parent from the initial states (None for those), in BFS order."""
    parent: dict[int, Optional[int]] = {k: None for k in sorted(graph.initial)}
    queue = list(parent)
    for k in queue:
        for t in sorted(graph.successors[k]):
            if t not in parent:
                parent[t] = k
                queue.append(t)
    return parent


def _cover(model: SequentialModel, a, graph, parent, compiled) -> AssertionResult:
    """A ``Cover`` statement's verdict: "holds" with a trace to a state where a step runs it
    with its condition true (a step of its probe faults with the probe's mark), "fails"
    (Rumur: "cover ... not hit") when no reachable state has one."""
    probe = a.probe
    if probe.at_start:
        return AssertionResult(a, "holds", (), "hit by a start state")
    if probe.summands:
        steps = compile_model(dataclasses.replace(model, summands=probe.summands, assertions=(),
                                                  assumptions=())).steps
        for k in parent:  # BFS order: the shortest witness
            state = graph.states[k]
            if any(st.target is None and probe.mark in (st.fault or "") for st in steps(state)):
                path = [k]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                path.reverse()
                trace = trace_between(compiled, graph.states[path[0]], [graph.states[j] for j in path[1:]])
                return AssertionResult(a, "holds", trace, "hit by a step from the last state of the trace")
    return AssertionResult(a, "fails", (), "not hit")
