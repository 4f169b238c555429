"""CMurphi's "rules fired" for a linearised Murphi model, to compare with CMurphi.

``symdetect explore`` counts a *transition* as a distinct ``(source, target)`` pair of
states.  CMurphi counts *rules fired*: for every state it expands, one per enabled rule
instance (a ``Rule`` under one valuation of its ``Ruleset`` parameters), whether or not the
successor is new, equal to another instance's or the state itself.  The two differ whenever
two instances lead to the same state or an instance changes nothing.

A Murphi rule instance is one event label (the rule's name and parameter values) of the
summands made from one rule (one ``origin``): the front end may split a rule into several
summands (cases of its conditions) and add witness locals (``Exists``), but the cases
exclude each other and all witnesses of one instance lead to the same successor, so
counting distinct ``(origin, label)`` pairs per state counts Murphi's firings.
"""
from __future__ import annotations

from dataclasses import dataclass

from detect.statespace.compile import compile_model
from detect.ir import SequentialModel


@dataclass(frozen=True)
class MurphiCounts:
    """``states`` reachable, ``rules_fired`` as CMurphi counts them (only meaningful when
    not ``violated``: CMurphi stops at the first error), and ``violated``: some reachable
    state has a faulting rule instance (``Error``, ``Assert``, an undefined read, a value out
    of range) or breaks an ``Invariant``."""

    states: int
    rules_fired: int
    violated: bool
    #: some reachable state has no rule instance that changes it: CMurphi's "Deadlocked
    #: state found" (an error unless ``-ndl``)
    deadlocked: bool = False


def murphi_counts(model: SequentialModel, max_states: int = 1_000_000) -> MurphiCounts:
    """Breadth-first search of ``model`` counting as CMurphi ``-nosym -ndl`` does (and
    noting the deadlocks that CMurphi without ``-ndl`` reports).
    ``RuntimeError`` past ``max_states`` states."""
    compiled = compile_model(model)
    origins = [s.origin for s in model.summands]
    conditions = [c for a, c in zip(model.assertions, compiled.conditions)
                  if a.kind == "invariant" and c is not None]
    seen = set()
    queue = []
    for x in compiled.initial_states():
        if x not in seen:
            seen.add(x)
            queue.append(x)
    fired = 0
    violated = deadlocked = False
    k = 0
    while k < len(queue):
        s = queue[k]
        k += 1
        if not violated and any(not c(s) for c in conditions):
            violated = True
        instances = set()
        moves = False
        for step in compiled.steps(s):
            if step.target is None:
                violated = True
                continue
            moves = moves or step.target != s
            instances.add((origins[step.summand], step.event))
            if step.target not in seen:
                if len(seen) >= max_states:
                    raise RuntimeError(f"more than {max_states} states")
                seen.add(step.target)
                queue.append(step.target)
        fired += len(instances)
        deadlocked = deadlocked or not moves
    return MurphiCounts(len(seen), fired, violated, deadlocked)
