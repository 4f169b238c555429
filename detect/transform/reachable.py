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

A step may write a value no state holds and overwrite it later in the same step (CSP#'s
``speed = speed + 30; if (speed > 200) speed = 200;``): with V alone that write faults, and
the narrowed model loses transitions.  So when the counts differ, the values that the steps
from the narrowed model's fault states write, taken in the original model, are added to V
where the original domain has them, and step 3 is repeated (``exact_restriction``) until the
counts agree or no value is missing.  (Each value added is written from a reachable state,
so V stays within what the original model's steps write.)

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
from typing import Callable, Mapping, Optional, Union

from detect.statespace.explore import (Progress, ReachableGraph, Survey, counts_text, reachable_graph,
                                      state_bound)
from detect.ir import SequentialModel, slot_offsets
from detect.ir.semantics import steps


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
        return lambda states, transitions, seconds, level=None: progress(
            f"domains: {what}, {counts_text(states, transitions, seconds, level)}")

    bound = state_bound(model, max_states)
    max_states = bound.states
    first = explored(model, max_states, telling("exploring"))
    if not first.complete:
        raise DomainsNotNarrowed(f"the model has more than {max_states:,} reachable states; "
                                 f"{bound.advice('--domain-states', NARROWING)}")
    smaller, narrowed, second = exact_restriction(model, first, max_states,
                                                  progress=telling("re-exploring narrowed"))
    before, after = counts(first), counts(second)
    if before != after:
        raise DomainsNotNarrowed(
            "the reachable values do not cover the values written during steps "
            "(states, transitions, fault states: {} after narrowing, {} before)".format(after, before))
    return ReachableDomains(model, smaller, before[0], before[1], narrowed,
                            time.perf_counter() - start, before[2])


#: Explored = what narrowing needs of one exploration: the reachable graph (Python), or only
#: its counts and slot values (``Survey``, native)
Explored = Union[ReachableGraph, Survey]


def explored(model: SequentialModel, max_states: int, progress: Optional[Progress] = None,
             native: Optional[bool] = None) -> Explored:
    """``model``'s exploration, bounded by ``max_states``: its reachable graph when Python
    explores it, its ``Survey`` when native code does.  As the explorer's ``auto`` engine
    (``detect.statespace.native``): Python takes models of up to ``AUTO_THRESHOLD`` states,
    native code larger ones (Python again where it cannot run).  ``native`` False: Python only;
    True: native code first, whatever the size.  Both give the same counts and slot values
    (``tests/test_reachable_domains.py``)."""
    from detect.statespace.native import AUTO_THRESHOLD, NativeUnavailable, engine_choice, native_survey

    choice = engine_choice() if native is None else ("native" if native else "python")
    if choice == "python":
        return reachable_graph(model, max_states=max_states, progress=progress)
    if choice == "auto" and max_states <= AUTO_THRESHOLD:
        return reachable_graph(model, max_states=max_states, progress=progress)
    if choice == "auto":
        small = reachable_graph(model, max_states=AUTO_THRESHOLD, progress=progress)
        if small.complete:
            return small
    try:
        return native_survey(model, max_states, progress)
    except NativeUnavailable:
        return reachable_graph(model, max_states=max_states, progress=progress)


def exact_restriction(model: SequentialModel, first: Explored, max_states: int,
                      names: Optional[frozenset] = None, progress: Optional[Progress] = None
                      ) -> tuple[SequentialModel, tuple[tuple[str, int, tuple[int, ...]], ...], Explored]:
    """Steps 2 and 3 of the module docstring for ``model``, whose exploration is ``first``:
    ``(smaller, narrowed, second)``, ``smaller`` being ``model`` with the domains of ``names``
    (default: all) cut to the values the states hold and the values steps write on the way
    (found where a cut makes a step fault), ``second`` its exploration (a ``Survey`` when
    ``first`` is one and native code could run).  The caller compares ``counts(first)`` with
    ``counts(second)``: only equal counts prove the two transition systems equal; they differ
    here only when no written value explains it."""
    written: dict[str, set[int]] = {}
    while True:
        smaller, narrowed = restrict_to_states(model, first, names, written)
        second = (explored(smaller, max_states, progress, native=True) if isinstance(first, Survey)
                  else reachable_graph(smaller, max_states=max_states, progress=progress))
        if counts(second) == counts(first):
            return smaller, narrowed, second
        if isinstance(second, Survey):  # its fault states are needed: the graph, from Python
            second = reachable_graph(smaller, max_states=max_states, progress=progress)
        missing = _written_outside(smaller, model, second)
        if all(values <= written.get(name, set()) for name, values in missing.items()):
            return smaller, narrowed, second
        for name, values in missing.items():
            written.setdefault(name, set()).update(values)


def _written_outside(smaller: SequentialModel, model: SequentialModel, graph: ReachableGraph
                     ) -> dict[str, set[int]]:
    """Per variable, the values that steps from the fault states of ``graph`` (explored in
    ``smaller``) write outside ``smaller``'s domain but inside ``model``'s: the writes the cut
    broke.  The steps are taken in ``model``, recording every write, so a step that writes
    several such values in a row (a loop counting up, then reset) shows them all at once."""
    written: dict[str, set[int]] = {}
    for k in graph.faults:
        for _ in steps(model, graph.states[k], written):
            pass
    wide = {v.name: set(v.domain) for v in model.variables}
    narrow = {v.name: set(v.domain) for v in smaller.variables}
    found = {name: (values & wide[name]) - narrow[name] for name, values in written.items()}
    return {name: values for name, values in found.items() if values}


def restrict_to_states(model: SequentialModel, graph: Explored, names: Optional[frozenset] = None,
                       written: Optional[Mapping[str, set[int]]] = None
                       ) -> tuple[SequentialModel, tuple[tuple[str, int, tuple[int, ...]], ...]]:
    """``model`` with the domain of each variable in ``names`` (default: all) cut to the values
    its elements hold in ``graph``'s states, and to ``written[name]``, and the ``narrowed`` list
    of ``ReachableDomains``.  Only step 2 of the module docstring: the caller proves the result
    equal (step 3)."""
    offsets = slot_offsets(model)
    columns = (graph if isinstance(graph, Survey) else Survey.of(graph)).slot_values
    variables, narrowed = [], []
    for v in model.variables:
        if names is None or v.name in names:
            base = offsets[v.name]
            values = set()
            for k in range(v.length):
                values.update(columns[base + k] if columns else ())
            values |= (written or {}).get(v.name, set())
            kept = tuple(x for x in v.domain if x in values)
            if len(kept) < len(v.domain):
                narrowed.append((v.name, len(v.domain), kept))
                v = dataclasses.replace(v, domain=kept)
        variables.append(v)
    return dataclasses.replace(model, variables=tuple(variables)), tuple(narrowed)


def counts(graph: Explored) -> tuple[int, int, int]:
    """States, transitions and fault states: equal counts prove step 3 of the module docstring."""
    if isinstance(graph, Survey):
        return graph.states, graph.transitions, graph.faults
    return len(graph.states), sum(len(s) for s in graph.successors), len(graph.faults)
