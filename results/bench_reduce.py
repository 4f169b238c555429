"""Benchmark of symmetry-reduced exploration (style of seed 002, Tables II/III).

Run: ``python results/bench_reduce.py [--quick] [--timeout SECONDS]``.  Prints two markdown
tables:

1. per model and size: states and seconds without reduction and with each strategy
   (``exact``, ``enumerate``, ``local``, ``graph``); detection time separately.  A cell is
   ``—`` when the strategy refuses (``enumerate`` above its limit) or is skipped (``graph`` on
   graphs of more than ``GRAPH_NODES`` nodes), ``>T`` when it hit the time bound;
2. canonicalisation cost per state against |G|: microseconds per ``canonicalise`` call on
   random states of n interchangeable counters (group S_n, sorting fast path vs the general
   stabiliser-chain backtracking vs enumeration) and of the ``lock`` model (pid-valued data,
   general method only).

Timings are wall clock on whatever machine runs it; see ``results/reduction.md`` for a run.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from detect.symmetry.pipeline import detect  # noqa: E402
from detect.checking.reduce import ReductionError, explore_reduced, make_reducer  # noqa: E402
from detect.transform.load import load_model as load  # noqa: E402
from results.bench_explore import philosophers  # noqa: E402
from tests.test_reduce import counters, lock  # noqa: E402

GRAPH_NODES = 1_000  # one canonical labelling per state: minutes above this
STRATEGIES = ("none", "exact", "enumerate", "local", "graph")


def models(quick: bool):
    sizes = {
        "dining philosophers (IR)": [4, 6, 8] if quick else [4, 6, 8, 10, 12],
        "peterson.csp": [2, 3] if quick else [2, 3, 4],
        "token_circulation.csp": [3, 4, 5] if quick else [3, 4, 5, 6, 7],
        "counters S_n (top=2)": [4, 6, 8] if quick else [4, 6, 8, 10, 12],
        "lock (pid-valued holder)": [3, 4] if quick else [3, 4, 5, 6],
    }
    for name, ns in sizes.items():
        for n in ns:
            if name.startswith("dining"):
                yield name, n, philosophers(n)
            elif name == "peterson.csp":
                yield name, n, load(os.path.join(ROOT, "models", "peterson.csp"), {"N": n})
            elif name == "token_circulation.csp":
                yield name, n, load(os.path.join(ROOT, "models", "token_circulation.csp"), {"N": n})
            elif name.startswith("counters"):
                yield name, n, counters(n, 2)
            else:
                yield name, n, lock(n)


def table_states(quick: bool, timeout: float) -> None:
    print("| model | N | \\|G\\| | detect s | none | exact | enumerate | local | graph |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, n, model in models(quick):
        start = time.perf_counter()
        detection = detect(model)
        detect_seconds = time.perf_counter() - start
        cells = []
        for strategy in STRATEGIES:
            if strategy == "graph" and detection.graph.n > GRAPH_NODES:
                cells.append(f"— ({detection.graph.n} nodes)")
                continue
            try:
                start = time.perf_counter()
                r = explore_reduced(model, strategy, detection=detection, timeout=timeout)
                seconds = time.perf_counter() - start
            except ReductionError:
                cells.append("— (|G| too large)")
                continue
            e = r.exploration
            mark = f">{timeout:g}s" if e.truncated else f"{seconds:.2f}s"
            cells.append(f"{e.states:,} / {mark}")
        print(f"| {name} | {n} | {detection.group.order:,} | {detect_seconds:.2f} | " + " | ".join(cells) + " |",
              flush=True)


def per_state_cost(model, detection, strategy, samples, **options) -> float:
    reducer = make_reducer(model, detection.group, strategy, detection.graph, **options)
    canon = reducer.canonicalise
    for s in samples[:50]:  # warm the memoised stabiliser chain, as an exploration would
        canon(s)
    start = time.perf_counter()
    for s in samples:
        canon(s)
    return (time.perf_counter() - start) / len(samples) * 1e6


def table_cost(quick: bool) -> None:
    print()
    print("| model | \\|G\\| | exact (fast path) µs | exact (general) µs | enumerate µs | local µs | "
          "exact states/s |")
    print("|---|---|---|---|---|---|---|")
    rng = random.Random(1)
    cases = [("counters", n, counters(n, 3)) for n in ([4, 6, 8, 12] if quick else [4, 5, 6, 7, 8, 10, 12])]
    cases += [("lock", n, lock(n)) for n in ([3, 5] if quick else [3, 4, 5, 6, 8])]
    for name, n, model in cases:
        detection = detect(model)
        from detect.ir import state_slots

        slots = state_slots(model)
        samples = [tuple(rng.choice(s.domain) for s in slots) for _ in range(2000)]
        fast = per_state_cost(model, detection, "exact", samples)
        general = per_state_cost(model, detection, "exact", samples, fast_paths=False)
        try:
            enum = f"{per_state_cost(model, detection, 'enumerate', samples[:200]):,.1f}"
        except ReductionError:
            enum = "— (refused)"
        local = per_state_cost(model, detection, "local", samples)
        best = min(fast, general)
        print(f"| {name} n={n} | {detection.group.order:,} | {fast:,.1f} | {general:,.1f} | {enum} | "
              f"{local:,.1f} | {1e6 / best:,.0f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    table_states(args.quick, args.timeout)
    table_cost(args.quick)


if __name__ == "__main__":
    main()
