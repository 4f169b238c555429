"""Benchmark: nauty (pynauty, dense) against bliss (igraph, sparse) on our coloured graphs.

Prints a markdown table (model, N, nodes, edges, seconds per engine, |Aut|) and justifies
``detect.symmetry.automorphisms.AUTO_THRESHOLD``.  Run: ``python results/bench_engines.py > results/engines.md``.
Each engine runs in a child process with a time limit, so a slow dense run cannot hang the
benchmark.
"""
from __future__ import annotations

import multiprocessing as mp
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from detect.symmetry.constraints import translate  # noqa: E402
from detect.symmetry.automorphisms import automorphisms  # noqa: E402
from detect.symmetry.graph import build_graph  # noqa: E402
from detect.transform.load import load_model as load  # noqa: E402

CASES = [
    ("token_circulation.csp", "N", [3, 6, 10, 16, 24, 32]),
    ("peterson.csp", "N", [3, 5, 7]),
    ("paper/peterson.csp", "N", [6, 9, 12]),
    ("paper/hypercube.csp", "D", [3, 4, 5]),
    ("paper/two_hop_colouring.csp", "N", [6, 9, 12]),
    ("paper/leader_complete.csp", "N", [8, 12, 15]),
]
LIMIT = 120.0


def _run(graph, engine, queue):
    import igraph  # noqa: F401  (imports are not part of the measurement)
    import pynauty  # noqa: F401

    start = time.perf_counter()
    result = automorphisms(graph, engine)
    queue.put((time.perf_counter() - start, result.order))


def timed(graph, engine):
    queue = mp.Queue()
    proc = mp.Process(target=_run, args=(graph, engine, queue))
    proc.start()
    proc.join(LIMIT)
    if proc.is_alive():
        proc.kill()
        return None, None
    return queue.get() if not queue.empty() else (None, None)


def main() -> None:
    print(f"machine: {platform.processor() or platform.machine()}, {mp.cpu_count()} cores, "
          f"Python {platform.python_version()}; limit {LIMIT:.0f} s per run\n")
    print("| model | N | nodes | edges | nauty s | bliss s | \\|Aut(graph)\\| |")
    print("|---|---|---|---|---|---|---|")
    for name, param, values in CASES:
        for n in values:
            model = load(str(ROOT / "models" / name), {param: n})
            graph = build_graph(translate(model))
            t_nauty, order_nauty = timed(graph, "nauty")
            t_bliss, order_bliss = timed(graph, "bliss")
            if order_nauty is not None and order_bliss is not None:
                assert order_nauty == order_bliss, (name, n, order_nauty, order_bliss)
            show = lambda t: "timeout" if t is None else f"{t:.3f}"
            print(f"| {name} | {n} | {graph.n} | {len(graph.edges)} | {show(t_nauty)} | {show(t_bliss)} | "
                  f"{order_bliss or order_nauty} |", flush=True)


if __name__ == "__main__":
    main()
