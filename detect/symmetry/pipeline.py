"""The detection pipeline, stage by stage: model → CSP → coloured graph → Aut → state group."""
from __future__ import annotations

import dataclasses
import gc
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

from detect.symmetry.constraints import Csp, TableTooLarge, translate
from detect.symmetry.automorphisms import Automorphisms, automorphisms
from detect.symmetry.graph import ColouredGraph, build_graph, check_graph_size
from detect.symmetry.group import SymmetryGroup, symmetry_group
from detect.ir import SequentialModel, validate
from detect.transform.reachable import DomainsNotNarrowed, ReachableDomains, narrow_to_reachable


@dataclass(frozen=True)
class Detection:
    model: SequentialModel
    csp: Csp
    graph: ColouredGraph
    automorphisms: Automorphisms
    group: SymmetryGroup
    #: seconds per stage: csp, graph, automorphisms, group
    timings: tuple[tuple[str, float], ...]
    #: set when the domains were taken from the reachable states (``model`` is then the
    #: narrowed model, whose reachable transition system equals the input's)
    domains: Optional[ReachableDomains] = None


def csp_of(
    model: SequentialModel, table_limit: int = 100_000, domain_states: int = 0,
    progress: Optional[Callable[[str], None]] = None,
) -> tuple[SequentialModel, Csp, Optional[ReachableDomains]]:
    """The CSP of ``model``.  When a table would exceed ``table_limit`` and ``domain_states``
    is positive, the CSP of ``model`` with the domains of its reachable states instead (at
    most ``domain_states`` of them; see ``detect.transform.reachable``), returned with that
    model; otherwise ``TableTooLarge`` propagates."""
    try:
        return model, translate(_assumptions_as_faults(model), table_limit), None
    except TableTooLarge as too_large:
        if domain_states <= 0:
            raise
        try:
            domains = narrow_to_reachable(model, domain_states, progress)
        except DomainsNotNarrowed as why:
            raise too_large.noted(f"domains from the reachable states: {why}") from None
        try:
            return domains.model, translate(_assumptions_as_faults(domains.model), table_limit), domains
        except TableTooLarge as still:
            raise still.noted(f"the domains of the {domains.states:,} reachable states are as wide") from None


#: Most initial states an assumption is checked on one by one (``_assumptions_as_faults``).
ASSUMED_INITIAL_LIMIT = 100_000


def _assumptions_as_faults(model: SequentialModel) -> SequentialModel:
    """The model whose CSP is made when ``model`` has Rumur's assumptions: each summand's
    program ends with an ``Assert`` of them, so that a symmetry maps a step into a discarded
    state onto such a step (the CSP maps faults onto faults; the variant's faults are no
    model's faults, only the graph sees them), and its initial states are listed without
    those an assumption discards, so that the group maps the initial states that remain
    onto each other.  Without assumptions, ``model`` itself."""
    if not model.assumptions:
        return model
    from itertools import islice

    from detect.ir import Assert, build
    from detect.ir.model import initial_states as every_initial
    from detect.ir.semantics import assumed

    condition = build.conj(*(a.condition for a in model.assumptions))
    check = Assert(condition, "assumption")
    summands = tuple(dataclasses.replace(s, program=s.program + (check,)) for s in model.summands)
    states = list(islice(every_initial(model), ASSUMED_INITIAL_LIMIT + 1))
    if len(states) > ASSUMED_INITIAL_LIMIT:
        raise ValueError(f"more than {ASSUMED_INITIAL_LIMIT:,} initial states to check the assumptions on")
    kept = sorted({s for s in states if assumed(model, s)})
    variant = dataclasses.replace(model, summands=summands, assumptions=())
    if kept and len(kept) < len(states):
        per_slot = [tuple(sorted({s[k] for s in kept})) for k in range(len(kept[0]))]
        variables, k = [], 0
        for v in model.variables:
            variables.append(dataclasses.replace(v, init=tuple(per_slot[k:k + v.length])))
            k += v.length
        variant = dataclasses.replace(variant, variables=tuple(variables), initial=tuple(kept))
    return variant


@contextmanager
def _without_cyclic_gc() -> Iterator[None]:
    """The cyclic garbage collector paused (as it was before, after).

    Why: the stages build millions of small acyclic objects (constraints, tuples, node
    labels, edges), which reference counting frees; each allocation burst triggered
    collections that traversed the whole growing heap again.  On Spin's LTL/mobile1.pml
    (78,274 constraints, a graph of 745,855 nodes) that was a third of detection's CPU time
    (8.3 -> 5.6 s).  Cyclic garbage made meanwhile waits for the next collection."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def detect(
    model: SequentialModel, engine: str = "auto", table_limit: int = 100_000,
    domain_states: int = 0, progress: Optional[Callable[[str], None]] = None,
    graph_limit: Optional[int] = None,
) -> Detection:
    """Run every stage (``domain_states``: see ``csp_of``); ``progress(text)`` is told each
    stage as it starts, and how domain narrowing goes.  ``graph_limit``: ``GraphTooLarge``
    before building a coloured graph of more nodes and edges in all."""
    with _without_cyclic_gc():
        return _detect(model, engine, table_limit, domain_states, progress, graph_limit)


def _detect(model: SequentialModel, engine: str, table_limit: int, domain_states: int,
            progress: Optional[Callable[[str], None]], graph_limit: Optional[int]) -> Detection:
    def tell(text: str) -> None:
        if progress is not None:
            progress(text)

    validate(model)
    timings = []
    start = time.perf_counter()
    tell("translating to constraints")
    model, csp, domains = csp_of(model, table_limit, domain_states, progress)
    if domains is not None:
        timings.append(("domains", domains.seconds))
    timings.append(("csp", time.perf_counter() - start - (domains.seconds if domains else 0.0)))
    start = time.perf_counter()
    if graph_limit is not None:
        check_graph_size(csp, graph_limit)
    tell(f"building the coloured graph of {len(csp.variables):,} variables, {len(csp.constraints):,} constraints")
    graph = build_graph(csp)
    timings.append(("graph", time.perf_counter() - start))
    tell(f"searching the automorphisms of the coloured graph ({graph.n:,} nodes, {len(graph.edges):,} edges)")
    aut = automorphisms(graph, engine)
    timings.append(("automorphisms", aut.seconds))
    start = time.perf_counter()
    tell(f"computing the state group of {len(aut.generators):,} generators")
    group = symmetry_group(model, graph, aut)
    timings.append(("group", time.perf_counter() - start))
    return Detection(model, csp, graph, aut, group, tuple(timings), domains)
