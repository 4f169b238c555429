"""Exploration distributed on Ray (``explore --distributed``) against the single-process native
explorer, and a model of how it scales to 64 machines from the measured per-round costs.

Run: ``python results/bench_distributed.py [--quick]`` (needs ``pip install 'symdetect[distributed]'``).
Rows: ``models/paper/peterson.csp`` N=6 (1,284,355 states) unreduced and with ``--reduce exact``
(the C pid canonicaliser), N=5 with ``--quick``, and ``models/token_circulation.csp`` N=6
with ``--reduce exact`` (the stabiliser-chain least image, in Python: ``--python-canonical``
runs only this row); single process (one thread), then 1, 2 and 4
Ray workers on a local Ray runtime (``ray.init(num_cpus=2)``, the workers started beforehand).
Every run is printed:

* search s: wall-clock seconds of the exploration (after the workers hold the model);
* states/s: states / search s;
* bytes/state: what the explorer holds (packed states, parents, tables, routing boxes),
  summed over the workers, / states; max worker MB: the largest worker's share;
* net B/state: bytes of the records (packed state + 4-byte parent id) the workers sent each
  other through Ray's object store, / states;
* rounds: the synchronisations (one Ray call per worker each);
* crit s: the slowest worker's CPU seconds enumerating the initial states plus, over rounds,
  the slowest worker's CPU seconds in its step (what the run would take with a core per
  worker and a free driver: CPU, because on this oversubscribed machine a worker's wall clock
  also counts the others' turns); work s: the same summed over all workers (single process:
  its CPU seconds).

Then the per-round costs are fitted (see ``scaling``): per state expanded, per record routed,
per round and per worker per round (the driver's calls), and the model's estimate for M
machines with one worker each.  The machine is shared (2 cores, several engineers): the load
average is printed; crit s and work s are less sensitive to it than the wall clock.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PETERSON = ROOT / "models" / "paper" / "peterson.csp"
TOKEN = ROOT / "models" / "token_circulation.csp"
#: Assumed for the model: 10 Gbit/s per machine (1.25 GB/s), no faster than Ray's object
#: transfer of large objects between nodes.
BANDWIDTH = 1.25e9


def load_average() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def run_single(model, strategy, detection):
    from detect.checking.reduce import explore_reduced

    r = explore_reduced(model, strategy, detection=detection, explorer="native", workers=1).exploration
    return r


def run_distributed(model, strategy, detection, n):
    """The exploration and the distributed explorer's stats (through the same calls the
    CLI makes, with ``stats`` caught on the way)."""
    from detect.checking.reduce import explore_reduced
    from detect.statespace import distributed

    caught = {}
    real = distributed.explore_distributed

    def with_stats(*a, **kw):
        kw["stats"] = caught
        return real(*a, **kw)

    distributed.explore_distributed = with_stats
    try:
        r = explore_reduced(model, strategy, detection=detection, explorer="native", workers=1,
                            distributed=distributed.Spec(None, n)).exploration
    finally:
        distributed.explore_distributed = real
    assert r.memory_measure.startswith("held per worker"), r.notes
    return r, caught


def scaling(rows, states: int, transitions: int, single_cpu: float) -> list[str]:
    """Per-state, per-record and per-round costs measured on the runs with 1, 2 and 4 workers,
    and the time they give for M machines (one worker each, a core each).

    Measured inside the workers: ``e``, the C expansion per state (a worker's step less its
    inserting of what was routed to it, over the states); ``r``, inserting one routed record at
    its owner.  Fitted on the rounds (non-negative least squares): the rest of a round's wall
    clock (the driver's calls, Ray's serialising the boxes into the object store and handing
    them over, the barrier) as ``a + b * workers + k * records routed per worker``."""
    import numpy as np
    from scipy.optimize import nnls

    expand_s = sum(w - rcv for (n, s, st) in rows for (_, w, rcv, *_) in st["step_seconds"])
    e = expand_s / sum(s for (n, s, st) in rows)
    routed = sum(st["routed"] for (n, s, st) in rows)
    r = sum(rcv for (n, s, st) in rows for (_, _, rcv, *_) in st["step_seconds"]) / max(1, routed)
    B = np.array([[1.0, n, sent / n] for (n, s, st) in rows for (_, _, _, sent, *_) in st["step_seconds"]])
    z = np.array([rw - sw for (n, s, st) in rows for rw, (sw, *_) in zip(st["round_seconds"], st["step_seconds"])])
    (a, b, k), _ = nnls(B, z)
    # The same two in CPU seconds of the workers' threads: what a core per worker would take
    # (on an oversubscribed machine a worker's wall clock also counts the others' turns).
    e_cpu = sum(c - rc for (n, s, st) in rows for (*_, c, rc) in st["step_seconds"]) / sum(s for (n, s, st) in rows)
    r_cpu = sum(rc for (n, s, st) in rows for (*_, rc) in st["step_seconds"]) / max(1, routed)
    record = rows[0][2]["record_bytes"]
    levels = rows[0][2]["levels"]
    out = [f"measured: expand {e * 1e9:,.0f} ns/state in a worker, wall clock ({e_cpu * 1e9:,.0f} CPU; "
           f"{single_cpu / states * 1e9:,.0f} CPU in one process), insert a routed record {r * 1e9:,.0f} ns "
           f"({r_cpu * 1e9:,.0f} CPU); fitted per round, wall clock: {a * 1e3:.2f} ms + "
           f"{b * 1e3:.2f} ms per worker + {k * 1e9:,.0f} ns per record routed per worker (serialising into "
           f"the object store and handing over); record {record} bytes; {transitions / states:.2f} "
           f"transitions/state; {levels} levels"]
    for title, ee, rr in (("wall-clock costs, as measured on this machine", e, r),
                          ("expansion and insertion at their CPU cost (a core per worker); the fitted "
                           "serialising and round costs as measured", e_cpu, r_cpu)):
        out += ["", f"Model ({title}): 10^10 states with this model's transitions/state and record size, "
                f"10x its depth ({levels * 10} rounds), 10 Gbit/s per machine:", ""]
        out += model_table(ee, rr, k, a, b, record, transitions / states, levels * 10)
    return out


def model_table(e: float, r: float, k: float, a: float, b: float, record: int, per_state: float,
                rounds_big: int) -> list[str]:
    """Seconds per cost for 10^10 states on M machines, one worker each."""
    out = ["| machines | expand s | insert s | serialise s | network s | round overhead s | total s | states/s | dominant |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    big = 10 ** 10
    for m in (1, 2, 4, 8, 16, 32, 64):
        sent = big * per_state * (1 - 1 / m)  # successors owned elsewhere (duplicates included)
        t_exp = big * e / m
        t_ins = sent * r / m
        t_ser = sent * k / m
        t_net = sent * record / m / BANDWIDTH
        t_round = rounds_big * (a + b * m)
        total = t_exp + t_ins + t_ser + t_net + t_round
        dominant = max((("expand", t_exp), ("insert", t_ins), ("serialise", t_ser), ("network", t_net),
                        ("rounds", t_round)), key=lambda x: x[1])[0]
        out.append(f"| {m} | {t_exp:,.0f} | {t_ins:,.0f} | {t_ser:,.0f} | {t_net:,.0f} | {t_round:,.1f} | "
                   f"{total:,.0f} | {big / total:,.0f} | {dominant} |")
    return out


def main(quick: bool) -> None:
    import ray

    from detect.bench import machine
    from detect.statespace import distributed
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    n_param = 5 if quick else 6
    print(f"# explore --distributed (Ray {ray.__version__})\n")
    print(f"machine: {machine()}; load average {load_average()}\n")
    t = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
             runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}})
    ray.get([a.close.remote() for a in distributed._actors(ray, 4)])
    print(f"Ray start and 4 workers: {time.perf_counter() - t:.1f} s\n")
    only_python = "--python-canonical" in sys.argv[1:]
    runs = [] if only_python else [(PETERSON, n_param, "none"), (PETERSON, n_param, "exact")]
    # The stabiliser-chain least image runs in Python (~0.5 ms a state): called from C in
    # each worker, it is the work distribution shares out.
    runs.append((TOKEN, 5 if quick else 6, "exact"))
    for path, n_param, strategy in runs:
        model = load_model(str(path), {"N": n_param})
        detection = detect(model) if strategy != "none" else None
        print(f"## {path.name} N={n_param}, --reduce {strategy}  (load average {load_average()})\n")
        print("| run | states | transitions | search s | states/s | bytes/state | max worker MB | net B/state "
              "| rounds | crit s | work s |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        run_single(model, strategy, detection)  # warm: the library is built and cached
        one = run_single(model, strategy, detection)
        print(f"| single process | {one.states:,} | {one.transitions:,} | {one.seconds:.2f} | "
              f"{one.states_per_second:,.0f} | {one.bytes_per_state:.1f} | {one.memory_bytes / 2**20:.1f} | 0 | "
              f"- | {one.cpu_seconds:.2f} | {one.cpu_seconds:.2f} |")
        rows = []
        for n in (1, 2, 4):
            r, st = run_distributed(model, strategy, detection, n)
            assert (r.states, r.transitions) == (one.states, one.transitions)
            crit = st["start_seconds"][2] + sum(x[4] for x in st["step_seconds"])
            work = st["start_seconds"][3] + sum(x[5] for x in st["step_seconds"])
            print(f"| {n} Ray worker{'s' if n > 1 else ''} | {r.states:,} | {r.transitions:,} | {r.seconds:.2f} | "
                  f"{r.states_per_second:,.0f} | {r.bytes_per_state:.1f} | {max(st['worker_memory']) / 2**20:.1f} | "
                  f"{st['routed'] * st['record_bytes'] / r.states:.1f} | {st['rounds']} | {crit:.2f} | {work:.2f} |")
            rows.append((n, r.states, st))
        print()
        if strategy == "none" and path == PETERSON:
            print("\n".join(scaling(rows, one.states, one.transitions, one.cpu_seconds)))
            print()
    ray.shutdown()


if __name__ == "__main__":
    main("--quick" in sys.argv[1:])
