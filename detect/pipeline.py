"""The detection pipeline, stage by stage: model → CSP → coloured graph → Aut → state group."""
from __future__ import annotations

import time
from dataclasses import dataclass

from .csp import Csp, translate
from .engine import Automorphisms, automorphisms
from .graph import ColouredGraph, build_graph
from .group import SymmetryGroup, symmetry_group
from .ir import SequentialModel, validate


@dataclass(frozen=True)
class Detection:
    model: SequentialModel
    csp: Csp
    graph: ColouredGraph
    automorphisms: Automorphisms
    group: SymmetryGroup
    #: seconds per stage: csp, graph, automorphisms, group
    timings: tuple[tuple[str, float], ...]


def detect(
    model: SequentialModel, engine: str = "auto", table_limit: int = 100_000
) -> Detection:
    validate(model)
    timings = []
    start = time.perf_counter()
    csp = translate(model, table_limit)
    timings.append(("csp", time.perf_counter() - start))
    start = time.perf_counter()
    graph = build_graph(csp)
    timings.append(("graph", time.perf_counter() - start))
    aut = automorphisms(graph, engine)
    timings.append(("automorphisms", aut.seconds))
    start = time.perf_counter()
    group = symmetry_group(model, graph, aut.generators)
    timings.append(("group", time.perf_counter() - start))
    return Detection(model, csp, graph, aut, group, tuple(timings))
