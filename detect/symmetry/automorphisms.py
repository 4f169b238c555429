"""Automorphism engines behind one interface: generators and order of Aut(coloured graph).

``pynauty`` wraps dense nauty (n²/8 bytes; slow beyond ~10,000 nodes); ``bliss`` (through
igraph) is sparse and handles 10^5–10^6 nodes.  ``auto`` picks by size; the threshold was
measured with ``results/bench_engines.py`` (see ``results/engines.md``).
"""
from __future__ import annotations

import collections
import time
from dataclasses import dataclass
from typing import Mapping, Sequence

from detect.symmetry.graph import ColouredGraph

ENGINES = ("auto", "nauty", "bliss")
#: Above this many nodes ``auto`` uses bliss (see results/engines.md for the measurement).
AUTO_THRESHOLD = 2_500


@dataclass(frozen=True)
class Automorphisms:
    """Generators (node images: ``g[v]`` is the image of node v) and the group order."""

    generators: tuple[tuple[int, ...], ...]
    order: int
    engine: str
    seconds: float


def automorphisms(graph: ColouredGraph, engine: str = "auto") -> Automorphisms:
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if engine == "auto":
        engine = "nauty" if graph.n <= AUTO_THRESHOLD else "bliss"
    start = time.perf_counter()
    if engine == "nauty":
        gens, order = _nauty(graph)
    else:
        gens, order = _bliss(graph)
    return Automorphisms(tuple(tuple(g) for g in gens), order, engine, time.perf_counter() - start)


def stabiliser_orders(graph: ColouredGraph, markings: Sequence[Mapping[int, int]],
                      engine: str = "auto") -> list[int]:
    """For each of ``markings``, the order of the automorphisms of ``graph`` that map each
    node it marks (marks are non-negative) to a node with the same mark: the graph
    recoloured by (colour, mark).  With literal nodes marked by the class they belong to,
    and classes that every automorphism permutes, this is the kernel of the action on the
    classes, and |Aut| divided by it is the order of that action.  The engine's graph is
    built once for all of them."""
    if engine == "auto":
        engine = "nauty" if graph.n <= AUTO_THRESHOLD else "bliss"
    engine_graph = None
    orders = []
    for marks in markings:
        colour = _recoloured(graph, marks)
        if engine == "nauty":
            orders.append(_nauty(graph, colour)[1])
            continue
        if engine_graph is None:
            engine_graph = _igraph(graph)
        orders.append(int(engine_graph.count_automorphisms(sh="fl", color=colour)))
    return orders


def _recoloured(graph: ColouredGraph, marks: Mapping[int, int]) -> list[int]:
    """Colours numbering the pairs (colour, mark, -1 for none) present, in sorted order."""
    sizes = collections.Counter(graph.colour)
    marked = collections.Counter(graph.colour[v] for v in marks)
    keys = {(c, -1) for c, size in sizes.items() if marked[c] < size}
    keys |= {(graph.colour[v], m) for v, m in marks.items()}
    index = {key: i for i, key in enumerate(sorted(keys))}
    plain = {c: index.get((c, -1), -1) for c in sizes}
    colour = list(map(plain.__getitem__, graph.colour))
    for v, m in marks.items():
        colour[v] = index[(graph.colour[v], m)]
    return colour


def _nauty(graph: ColouredGraph, colour=None):
    """(generators, order) by nauty; ``colour``: node colours replacing the graph's."""
    import pynauty

    adjacency: dict[int, list[int]] = {v: [] for v in range(graph.n)}
    for u, v in graph.edges:
        adjacency[u].append(v)
    if colour is None:
        classes = [set(c) for c in graph.colour_classes()]
    else:
        classes = [set() for _ in range(max(colour) + 1)]
        for v, c in enumerate(colour):
            classes[c].add(v)
    g = pynauty.Graph(graph.n, directed=False, adjacency_dict=adjacency, vertex_coloring=classes)
    gens, mantissa, exponent, _orbits, _norbits = pynauty.autgrp(g)
    return gens, _order(mantissa, exponent)


def _order(mantissa: float, exponent: int) -> int:
    """nauty reports |Aut| as mantissa·10^exponent in floating point; round to an int."""
    if exponent < 15:
        return int(round(mantissa * 10 ** exponent))
    # 10**exponent overflows a float beyond 10^308: scale the mantissa instead.
    return int(round(mantissa * 10 ** 15)) * 10 ** (exponent - 15)


def _igraph(graph: ColouredGraph):
    """``graph``'s edges as igraph's C-level graph (bliss's interface)."""
    # ``GraphBase``, not ``Graph``: the same C graph, but ``Graph.__init__`` imports numpy
    # (~0.15 s, to recognise array arguments), which a detection otherwise never needs.
    return _igraph_core().GraphBase(graph.n, list(graph.edges), False)


def _igraph_core():
    """igraph's C extension module ``igraph._igraph``, without running ``igraph/__init__``.

    Why: the package's ``__init__`` imports its drawing, clustering and table-printing
    modules (texttable, wcwidth, regex): ~40 ms, a sixth of a whole small ``explore``,
    for a module that only needs ``GraphBase``.  The extension is registered under its own
    name, so a later ``import igraph`` (``from igraph._igraph import *``) reuses it rather
    than loading a second copy (the package then lacks the attribute ``igraph._igraph``,
    which only its ``split_join_distance`` reads).  Anything unexpected falls back to the
    plain import."""
    import sys

    core = sys.modules.get("igraph._igraph")
    if core is not None:
        return core
    if "igraph" not in sys.modules:
        import importlib.machinery
        import importlib.util

        try:
            package = importlib.util.find_spec("igraph")
            folder = package.submodule_search_locations[0] if package else None
            spec = importlib.machinery.PathFinder.find_spec("_igraph", [folder]) if folder else None
            if spec is not None and isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
                spec = importlib.util.spec_from_file_location(
                    "igraph._igraph", spec.origin,
                    loader=importlib.machinery.ExtensionFileLoader("igraph._igraph", spec.origin))
                core = importlib.util.module_from_spec(spec)
                sys.modules["igraph._igraph"] = core
                spec.loader.exec_module(core)
                return core
        except (ImportError, OSError, AttributeError):
            sys.modules.pop("igraph._igraph", None)
    import igraph  # noqa: F401  (loads igraph._igraph)

    return sys.modules["igraph._igraph"]


def _bliss(graph: ColouredGraph):
    g = _igraph(graph)
    colours = list(graph.colour)
    try:
        gens = g.automorphism_group(sh="fl", color=colours)
        order = g.count_automorphisms(sh="fl", color=colours)
    except SystemError as e:
        # igraph runs Python's signal handlers during the search; an interrupt (Ctrl-C,
        # SIGTERM, the --timeout alarm, a caller's own BaseException) raised there comes
        # back wrapped in a SystemError.
        if isinstance(e.__cause__, BaseException) and not isinstance(e.__cause__, Exception):
            raise e.__cause__ from None
        raise
    return gens, int(order)
