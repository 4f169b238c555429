"""The native explorer with 1 and 2 workers (``explore --workers``), same run, alternating.

Run: ``python results/bench_workers.py [--quick] [--repeat R]``.  Rows:
``models/peterson_filter.pml`` N=5 and ``../shared/corpus/murphi/n_peterson.m`` N=5 (N=4 with
``--quick``), unreduced.  For each model the runs alternate 1, 2, 1, 2, ... workers (``R`` of
each, in one process, the library compiled beforehand) so that both see the same machine
load; every run is printed:

* search s: wall-clock seconds of the exploration (``Exploration.seconds``);
* CPU s: the workers' CPU seconds in the search (all threads);
* critical CPU s: of those, the ones along the critical path (a parallel round costs its
  slowest worker, a round on one thread the sum); "speed-up with a core each" is
  (critical CPU of the 1-worker runs, averaged) / (critical CPU of this run): what the
  workers give when each has a core to itself, however loaded the shared machine is;
* bytes/state: what the explorer holds (states, parents, tables, routing boxes) / states.

The load average is printed before each model: on a machine shared with other work the wall
clock of the 2-worker runs depends on it (a worker waiting for the others sleeps, and waking
needs a free core).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PETERSON = ROOT / "models" / "peterson_filter.pml"
N_PETERSON = ROOT / ".." / "shared" / "corpus" / "murphi" / "n_peterson.m"


def load_average() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def main(quick: bool, repeat: int) -> None:
    from detect.bench import machine
    from detect.statespace import native
    from detect.statespace.compile import compile_model
    from detect.transform.load import load_model as load

    n = 4 if quick else 5
    print(f"Machine: {machine()}.  Each row is one run; the runs alternate 1 and 2 workers.")
    print()
    print("| model | workers | states | transitions | search s | states/s | CPU s | critical CPU s "
          "| speed-up with a core each | bytes/state |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, path in ((f"peterson_filter.pml N={n}", PETERSON), (f"n_peterson.m N={n}", N_PETERSON)):
        if not path.exists():
            print(f"| {name} | – | missing: {path} | | | | | | | |")
            continue
        compiled = compile_model(load(str(path), {"N": n}))
        native.load(compiled.model)
        print(f"| {name}: load average {load_average()} | | | | | | | | | |", flush=True)
        rows = []
        for _ in range(repeat):
            for workers in (1, 2):
                stats: dict = {}
                result = native.explore_native(compiled, workers=workers, stats=stats)
                assert not result.truncated
                rows.append((workers, result, stats))
        single = [s["cpu_critical"] for w, _, s in rows if w == 1]
        base = sum(single) / len(single)
        for workers, r, s in rows:
            print(f"| {name} | {workers} | {r.states:,} | {r.transitions:,} | {r.seconds:.2f} "
                  f"| {r.states / r.seconds:,.0f} | {s['cpu']:.2f} | {s['cpu_critical']:.2f} "
                  f"| {base / s['cpu_critical']:.2f} | {s['bytes'] / r.states:.0f} |", flush=True)
        print(f"| {name}: load average after {load_average()} | | | | | | | | | |", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 3
    main("--quick" in args, repeat)
