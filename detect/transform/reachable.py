"""Domains taken from the reachable states, for models whose static analysis is too coarse.

``detect.transform.domains`` bounds every variable by a sound value analysis, but it is
non-relational: in BEEM's gear.1 ``toGear = toGear + dir`` is bounded only because
``currentGear`` is (``toGear - currentGear`` stays in -1..1), so the static domain of
``toGear`` is the whole DVE ``int`` and its constraint tables cannot be written.  When the
state space is small enough to explore, the exact domains are known instead:

1. explore ``model`` (at most ``max_states`` states);
2. give every variable the values its elements hold in some reachable state (V);
3. explore the narrowed model and require the same numbers of states, transitions and fault
   states.

Why step 3 proves the two reachable transition systems equal: narrowing only shrinks domains,
and a write outside its domain is a fault, so every fault-free run of the narrowed model is a
run of ``model``, the narrowed model's reachable states and transitions are subsets of
``model``'s, and its fault states are a superset among the states both reach.  A write that
faults only after narrowing (a value outside V, overwritten later in the same step) removes
a transition or adds a fault state, unless another summand instance makes the same
(source, target) pair from a state that faults anyway; then the unlabelled transition systems,
which are what symmetries act on (``detect.checking.verify``), are still equal.  Equal counts of
subsets mean equal sets.  The initial states are the same because every initial value is
reachable.

Symmetries of the narrowed model are therefore symmetries of ``model``'s reachable
transition system, and the narrowed model is the one to verify and explore with.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Callable, Optional

from detect.statespace.explore import ReachableGraph, counts_text, reachable_graph, state_bound
from detect.ir import SequentialModel, slot_offsets


@dataclass(frozen=True)
class ReachableDomains:
    """``model`` with the domains of ``original`` narrowed to their reachable values.

    ``narrowed`` lists ``(variable, declared size, reachable values)`` for each variable
    whose domain shrank; ``states``/``transitions`` are the (equal) counts of both runs.
    """

    original: SequentialModel
    model: SequentialModel
    states: int
    transitions: int
    narrowed: tuple[tuple[str, int, tuple[int, ...]], ...]
    #: time of both explorations
    seconds: float = 0.0
    #: reachable states with a faulting step (equal in both models)
    faults: int = 0

    def summary(self) -> str:
        parts = []
        for name, before, values in self.narrowed:
            shown = (f"{values[0]}..{values[-1]}" if values == tuple(range(values[0], values[-1] + 1))
                     else "{" + ", ".join(map(str, values)) + "}")
            parts.append(f"{name} {shown} ({len(values)} of {before} values)")
        return (f"domains taken from the {self.states:,} reachable states: " + "; ".join(parts)
                if parts else f"domains already exact on the {self.states:,} reachable states")


#: What ``StateBound.advice`` says is being done when the memory budget bounds narrowing.
NARROWING = "while narrowing"


class DomainsNotNarrowed(Exception):
    """The reachable states were too many, or narrowing changed the transition system."""


def narrow_to_reachable(model: SequentialModel, max_states: int,
                        progress: Optional[Callable[[str], None]] = None) -> ReachableDomains:
    """See the module docstring; raises ``DomainsNotNarrowed`` with the reason.
    ``progress(text)`` is told how the explorations go."""
    start = time.perf_counter()

    def telling(what: str):
        if progress is None:
            return None
        return lambda states, transitions, seconds: progress(
            f"domains: {what}, {counts_text(states, transitions, seconds)}")

    bound = state_bound(model, max_states)
    max_states = bound.states
    first = reachable_graph(model, max_states=max_states, progress=telling("exploring"))
    if not first.complete:
        raise DomainsNotNarrowed(f"the model has more than {max_states:,} reachable states; "
                                 f"{bound.advice('--domain-states', NARROWING)}")
    smaller, narrowed = restrict_to_states(model, first)
    second = reachable_graph(smaller, max_states=max_states, progress=telling("re-exploring narrowed"))
    before, after = counts(first), counts(second)
    if before != after:
        raise DomainsNotNarrowed(
            "the reachable values do not cover the values written during steps "
            "(states, transitions, fault states: {} after narrowing, {} before)".format(after, before))
    return ReachableDomains(model, smaller, before[0], before[1], narrowed,
                            time.perf_counter() - start, before[2])


def restrict_to_states(model: SequentialModel, graph: ReachableGraph, names: Optional[frozenset] = None
                       ) -> tuple[SequentialModel, tuple[tuple[str, int, tuple[int, ...]], ...]]:
    """``model`` with the domain of each variable in ``names`` (default: all) cut to the values
    its elements hold in ``graph``'s states, and the ``narrowed`` list of ``ReachableDomains``.
    Only step 2 of the module docstring: the caller proves the result equal (step 3)."""
    offsets = slot_offsets(model)
    variables, narrowed = [], []
    for v in model.variables:
        if names is None or v.name in names:
            base = offsets[v.name]
            values = {state[base + k] for state in graph.states for k in range(v.length)}
            kept = tuple(x for x in v.domain if x in values)
            if len(kept) < len(v.domain):
                narrowed.append((v.name, len(v.domain), kept))
                v = dataclasses.replace(v, domain=kept)
        variables.append(v)
    return dataclasses.replace(model, variables=tuple(variables)), tuple(narrowed)


def counts(graph: ReachableGraph) -> tuple[int, int, int]:
    """States, transitions and fault states: equal counts prove step 3 of the module docstring."""
    return len(graph.states), sum(len(s) for s in graph.successors), len(graph.faults)
