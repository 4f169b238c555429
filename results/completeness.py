"""Completeness of detection (issue 13): for every model in models/ and every file of
../shared/corpus/ that analyses, the order of the detected group against the order of every
symmetry of the explored transition system, both acting on the reachable states.

Run from the repository root:  python3 results/completeness.py > results/completeness.md
"""
from __future__ import annotations

import glob
import multiprocessing
import os
import platform
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

MAX_STATES = 50_000
SECONDS = 120
PATTERNS = ("models/**/*.csp", "models/**/*.pml", "models/**/*.m", "../shared/corpus/beem/dve/*.dve",
            "../shared/corpus/beem/promela/*.pml", "../shared/corpus/spin/*.pml",
            "../shared/corpus/murphi/*.m", "../shared/corpus/pat/*.csp")


def measure(path: str, queue) -> None:
    import warnings

    warnings.simplefilter("ignore")
    from detect.cli import Failure, load_model
    from detect.checking.completeness import completeness
    from detect.symmetry.pipeline import detect

    try:
        start = time.perf_counter()
        detection = detect(load_model(path, ()), domain_states=1_000_000)
        result = completeness(detection.model, [g.permutation for g in detection.group.generators],
                              max_states=MAX_STATES)
        queue.put((detection.group.order, result, time.perf_counter() - start))
    except Failure as e:
        queue.put(("error", str(e).splitlines()[0][:110], 0.0))
    except Exception as e:  # noqa: BLE001 - a row of the table, not a crash
        queue.put(("error", f"{type(e).__name__}: {e}"[:110], 0.0))


def main() -> None:
    os.chdir(ROOT)
    files = sorted({f for p in PATTERNS for f in glob.glob(p, recursive=True)})
    print("# Completeness of symmetry detection\n")
    print(f"Measured by `results/completeness.py` on {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores; each model explored up to {MAX_STATES:,} states, {SECONDS} s.  "
          "found / true: orders of the detected group and of every symmetry of the reachable LTS, "
          "both acting on the reachable states (`symdetect analyze --completeness`).  "
          "group order: the detected group's order on all states (inert symmetries included).\n")
    print("| model | states | group order | found | true | complete | seconds | missing (one) |")
    print("|---|---|---|---|---|---|---|---|")
    complete = total = 0
    for path in files:
        queue = multiprocessing.Queue()
        proc = multiprocessing.Process(target=measure, args=(path, queue))
        proc.start()
        proc.join(SECONDS)
        if proc.is_alive():
            proc.terminate()
            print(f"| {path} | | | | | time-out | >{SECONDS} | |", flush=True)
            continue
        order, result, seconds = queue.get() if not queue.empty() else ("error", "crashed", 0.0)
        if order == "error":
            print(f"| {path} | | | | | does not analyse: {result.replace('|', '/')} | | |", flush=True)
            continue
        if not result.explored_all:
            print(f"| {path} | >{MAX_STATES:,} | {order} | | | unknown (bound) | {seconds:.1f} | |", flush=True)
            continue
        total += 1
        complete += bool(result.complete)
        print(f"| {path} | {result.states:,} | {order} | {result.found_order} | {result.true_order} | "
              f"{'yes' if result.complete else '**no**'} | {seconds:.1f} | {result.missing.replace('|', '/')} |",
              flush=True)
    print(f"\n{complete} of {total} measured models complete.")


if __name__ == "__main__":
    main()
