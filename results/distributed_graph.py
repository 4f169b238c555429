"""Why ``--reduce graph`` is refused under ``--distributed``: measured.

    python results/distributed_graph.py

The graph strategy's representative of an orbit is the *first* state of the orbit its table
meets (``NativeGraphCanonicaliser``), not a function of the orbit alone.  Distributed as the
other canonicalisers are (a successor canonicalised by the worker that generated it, then
sent to the owner of the representative's hash), each worker would hold its own table, and
an orbit met first by two workers gets two representatives, owned by two workers, stored
twice.  This script measures that, and the cost of the one fix that keeps the design (a pure
canonical form per state):

1. *duplicates*: a level-synchronous BFS with P partitions exactly as the distributed
   explorer routes (each state owned by ``hash(representative) % P``; its successors
   canonicalised by its owner's own graph canonicaliser), states stored against the single
   table's count, for P = 1, 2, 4;
2. *cost*: microseconds per call of the C table canonicaliser over the successors of the
   reachable states, against nauty's canonical form of the same marked graphs (the pure
   function a distributed graph reduction would have to call on every successor).
"""
from __future__ import annotations

import sys
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

MODELS = [("paper/peterson.csp", {"N": 4}), ("token_circulation.csp", {"N": 4}),
          ("dining_philosophers.csp", {})]


def owner(state: tuple, parts: int) -> int:
    return zlib.crc32(repr(state).encode()) % parts


def partitioned_bfs(model, graph, parts: int) -> int:
    """States stored by a level-synchronous BFS whose P partitions each canonicalise with
    their own graph canonicaliser (as they would on Ray)."""
    from detect.checking.reduce import graph_reducer
    from detect.ir import semantics

    canon = [graph_reducer(graph, 1, ()).canonicalise for _ in range(parts)]
    seen = set()
    level = []
    for s in semantics.initial_states(model):
        rep = canon[owner(s, parts)](s)  # the initial states: canonicalised where enumerated
        if rep not in seen:
            seen.add(rep)
            level.append(rep)
    while level:
        nxt = []
        for s in level:
            mine = canon[owner(s, parts)]
            for step in semantics.steps(model, s):
                rep = mine(step.target)
                if rep not in seen:
                    seen.add(rep)
                    nxt.append(rep)
        level = nxt
    return len(seen)


def costs(model, graph) -> tuple[int, float, float]:
    """Successors of the first 2,000 reachable representatives: C table µs/call, nauty µs/call."""
    from detect.checking.reduce import graph_reducer, marked_canonical_form, state_marks
    from detect.ir import semantics

    canon = graph_reducer(graph, 1, ()).canonicalise
    states, frontier, seen = [], list(semantics.initial_states(model)), set()
    while frontier and len(states) < 20_000:
        s = frontier.pop(0)
        for step in semantics.steps(model, s):
            states.append(step.target)
            rep = canon(step.target)
            if rep not in seen:
                seen.add(rep)
                frontier.append(rep)
    canon = graph_reducer(graph, 1, ()).canonicalise  # a fresh table, timed
    t = time.perf_counter()
    for s in states:
        canon(s)
    table = (time.perf_counter() - t) / len(states)
    marks, form = state_marks(graph), marked_canonical_form(graph, "nauty")
    sample = states[:2000]
    t = time.perf_counter()
    for s in sample:
        form(marks(s))
    nauty = (time.perf_counter() - t) / len(sample)
    return len(states), table * 1e6, nauty * 1e6


def main() -> None:
    from detect.checking.reduce import explore_reduced
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    load = " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"load average {load}\n")
    print("| model | orbits (one table) | P=1 | P=2 | P=4 | graph nodes | successors timed | C table µs/call "
          "| nauty form µs/call | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, params in MODELS:
        model = load_model(str(REPO / "models" / name), params)
        detection = detect(model)
        graph = detection.graph
        one = explore_reduced(detection.model, "graph", detection=detection, explorer="native", workers=1)
        counts = [partitioned_bfs(detection.model, graph, p) for p in (1, 2, 4)]
        assert counts[0] == one.exploration.states
        n, table, nauty = costs(detection.model, graph)
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        print(f"| {name}{' ' + shown if shown else ''} | {one.exploration.states:,} | "
              + " | ".join(f"{c:,}" for c in counts)
              + f" | {graph.n} | {n:,} | {table:.1f} | {nauty:.1f} | {nauty / table:.0f}x |", flush=True)


if __name__ == "__main__":
    main()
