"""The BEEM DVE instances under one million states explored on Ray (``explore --distributed``)
against the single-process native explorer, and memory spread over four workers.

    python results/distributed_beem.py [-o results/distributed_beem.md]

Needs ``pip install 'symdetect[distributed]'`` and ``../shared/corpus/beem`` (the corpus
instances; the larger published instances are regenerated from BEEM's templates by
``results/dve_scaled.py``, whose published counts are the oracle there).

Sweep: every instance with fewer than 1,000,000 published states, ``--reduce none`` and
``--reduce exact``, single process (native explorer, one thread) and 1, 2, 4 Ray workers on
one local Ray runtime started once.  A distributed run *agrees* when its states,
transitions, initial states, faults, truncation, deadlock states, valid end states, every
assertion's verdict and note, and the length of every counterexample equal the single
process's, and each counterexample it prints is a run of the model (checked step by step
against ``detect.semantics``).  The script stops on the first disagreement.

Memory: BEEM ``peterson.4`` (1,119,560 states) unreduced through the command line, once in
one process under ``--memory-limit LIMIT`` (it stops) and once with ``--distributed local:4``
under the same limit per worker (it completes, with every worker's share printed).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

CORPUS = REPO.parent / "shared" / "corpus" / "beem" / "dve"
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus/beem/dve")
WORKERS = (1, 2, 4)
STRATEGIES = ("none", "exact")
#: Per worker; BEEM peterson.4 needs 20.8 MB in one process (2.6 times this).
MEMORY_LIMIT = "8M"


def instances(tmp: Path) -> list[tuple[str, Path, int]]:
    """(name, .dve file, published states) for every instance under a million states."""
    from results.dve_corpus import PUBLISHED
    from results.dve_scaled import INSTANCES

    out = {p.name.removesuffix(".dve"): (p, PUBLISHED.get(p.name.removesuffix(".dve")))
           for p in sorted(CORPUS.glob("*.dve"))}
    for name, _, text, _, published in INSTANCES:
        if name not in out and published < 1_000_000:
            path = tmp / f"{name}.dve"
            path.write_text(text())
            out[name] = (path, published)
    return [(name, path, published) for name, (path, published) in sorted(out.items())
            if published is None or published < 1_000_000]


def summary(r) -> tuple:
    """What must be equal (counterexamples by length: a shortest path, any of equal length)."""
    return (r.states, r.transitions, r.initial, r.faults, r.truncated,
            frozenset(r.deadlocks), frozenset(r.terminal_states), len(r.deadlock_trace), len(r.fault_trace),
            tuple((a.verdict, a.note, len(a.trace)) for a in r.assertions))


def real_traces(model, r) -> int:
    """The counterexamples of ``r`` checked step by step; returns how many there were."""
    from tests.test_explore import is_real_trace

    traces = [t for t in (r.deadlock_trace, r.fault_trace) if t]
    traces += [a.trace for a in r.assertions if a.trace and a.note != "run-time error reachable"]
    for t in traces:
        assert is_real_trace(model, t), "a counterexample that is not a run"
    return len(traces)


def verdicts(r) -> str:
    """The assertions' verdicts (BEEM's DVE instances have none) and the deadlocks."""
    failed = sum(a.verdict == "fails" for a in r.assertions)
    held = sum(a.verdict == "holds" for a in r.assertions)
    dead = len(r.deadlocks)
    return (f"{held} hold, {failed} fail; " if r.assertions else "") + f"{dead:,} deadlock{'s' * (dead != 1)}"


def sweep(lines: list[str], tmp: Path) -> None:
    from detect.checking.reduce import explore_reduced
    from detect.statespace.distributed import Spec
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    lines += ["| instance | BEEM states | reduce | states (one process) | transitions | verdicts | "
              "cex | 1 worker | 2 workers | 4 workers | agree | s (one, 1w, 2w, 4w) |",
              "|---|---:|---|---:|---:|---|---:|---:|---:|---:|---|---|"]
    checked = 0
    for name, path, published in instances(tmp):
        model = load_model(str(path), {})
        for strategy in STRATEGIES:
            # As the command line: domains from the reachable states where a table is too large.
            detection = detect(model, domain_states=1_000_000) if strategy != "none" else None
            explored = detection.model if detection is not None else model  # what traces are runs of
            one = explore_reduced(model, strategy, detection=detection, explorer="native", workers=1)
            if strategy == "none" and published is not None:
                assert one.exploration.states == published, (name, one.exploration.states, published)
            cex = real_traces(explored, one.exploration)
            counts, seconds = [], [one.exploration.seconds]
            for n in WORKERS:
                dist = explore_reduced(model, strategy, detection=detection, explorer="native", workers=1,
                                       distributed=Spec(None, n))
                r = dist.exploration
                assert r.memory_measure.startswith("held per worker"), (name, r.notes)  # it ran on Ray
                assert dist.reducer.method == one.reducer.method
                assert summary(r) == summary(one.exploration), (name, strategy, n)
                real_traces(explored, r)
                counts.append(f"{r.states:,}")
                seconds.append(r.seconds)
                checked += 1
            e = one.exploration
            lines.append(f"| {name} | {published:,} | {strategy} | {e.states:,} | {e.transitions:,} | "
                         f"{verdicts(e)} | {cex} | {' | '.join(counts)} | yes | "
                         f"{', '.join(f'{s:.2f}' for s in seconds)} |")
            print(lines[-1], flush=True)
    lines += ["", f"{checked} distributed runs, every one equal to the single process."]


def cli(*args: str) -> tuple[int, str, str]:
    import os

    run = subprocess.run([sys.executable, "-m", "detect.cli", "explore", *args], capture_output=True, text=True,
                         cwd=REPO, timeout=900, env={**os.environ, "COLUMNS": "160"})
    return run.returncode, run.stdout, run.stderr


def memory(lines: list[str], tmp: Path) -> None:
    """peterson.4 unreduced: one process under MEMORY_LIMIT stops, four workers each under it do not."""
    from results.dve_scaled import peterson_text

    path = tmp / "peterson.4.dve"
    path.write_text(peterson_text(4))
    code, whole, _ = cli(str(path), "--engine", "native", "--workers", "1", "--json")
    whole = json.loads(whole)
    code1, text1, _ = cli(str(path), "--engine", "native", "--workers", "1", "--memory-limit", MEMORY_LIMIT,
                          "--no-trace")
    code4, text4, _ = cli(str(path), "--distributed", "local:4", "--memory-limit", MEMORY_LIMIT, "--no-trace")
    code4j, json4, _ = cli(str(path), "--distributed", "local:4", "--memory-limit", MEMORY_LIMIT, "--json")
    spread = json.loads(json4)
    # The workers' shares: the same run through the API, for the per-worker bytes.
    from detect.statespace.distributed import Spec, explore_distributed
    from detect.transform.load import load_model

    stats: dict = {}
    limit = 8 << 20
    r = explore_distributed(load_model(str(path), {}), Spec(None, 4), memory_limit=limit, stats=stats)
    assert not r.truncated and r.states == whole["states"] == 1_119_560
    assert code1 == 3 and code4 == code4j == code == 0
    assert (spread["states"], spread["transitions"]) == (whole["states"], whole["transitions"])
    assert not spread["memory_limit_reached"] and max(stats["worker_memory"]) <= limit < whole["bytes"]

    def shown(text: str, keys: tuple[str, ...]) -> list[str]:
        return [line for line in text.splitlines() if any(k in line for k in keys)]

    keep = ("distributed", "memory_limit", "│ states ", "transitions", "memory ", "stopped early")
    lines += ["", "## Memory spread: BEEM peterson.4 unreduced (1,119,560 states)", "",
              f"One process holds {whole['bytes'] / 2**20:.1f} MiB ({whole['bytes_per_state']} bytes/state). "
              f"Under `--memory-limit {MEMORY_LIMIT}` it stops (exit {code1}); with `--distributed local:4` each "
              f"worker stays under {MEMORY_LIMIT} and the run completes (exit {code4}) with the same "
              f"{spread['states']:,} states and {spread['transitions']:,} transitions, "
              f"{spread['bytes'] / 2**20:.1f} MiB in all; the workers hold "
              + ", ".join(f"{b / 2**20:.1f}" for b in stats["worker_memory"]) + " MiB.", "",
              "```", f"$ symdetect explore peterson.4.dve --engine native --workers 1 --memory-limit {MEMORY_LIMIT}",
              *shown(text1, keep), f"(exit {code1})", "",
              f"$ symdetect explore peterson.4.dve --distributed local:4 --memory-limit {MEMORY_LIMIT}",
              *shown(text4, keep), f"(exit {code4})", "```"]


def main() -> None:
    import ray

    from detect.bench import machine
    from detect.statespace import distributed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=str(REPO / "results" / "distributed_beem.md"))
    args = parser.parse_args()
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    lines = ["# BEEM DVE under one million states: distributed (Ray) against one process", "",
             f"Generated by `python results/distributed_beem.py` (its docstring says what *agree* checks). "
             f"Ray {ray.__version__}; machine: {machine()}; load average {load} at the start.", "",
             "*states (one process)*: the single-process native explorer; *1/2/4 workers*: the states "
             "each distributed run stored; *cex*: counterexamples (deadlock, fault, assertion traces) "
             "the single process printed, each compared by length and checked as a run; *s*: search "
             "seconds (wall clock on a shared 2-core machine: the Ray runs' include one Ray call per "
             "worker per BFS level).", ""]
    t0 = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
             runtime_env={"env_vars": {"PYTHONPATH": str(REPO)}})
    with tempfile.TemporaryDirectory() as tmp:
        sweep(lines, Path(tmp))
        ray.shutdown()
        distributed._POOL.clear()  # the actors went with the runtime
        memory(lines, Path(tmp))
    lines += ["", f"Whole script: {time.perf_counter() - t0:.0f} s."]
    Path(args.output).write_text("\n".join(lines) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
