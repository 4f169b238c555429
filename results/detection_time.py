"""Detection time against coloured-graph size (issue 14, item 3: a model whose graph has fewer
than 10^5 nodes is detected in under 10 s; the Peterson ``_pid`` family in under 5 s at 12 users).

Runs ``symdetect analyze --json`` (of the checkout this script sits in) in a fresh process on
every model in ``models/`` and every file of ``../shared/corpus`` that the front ends read,
plus ``models/peterson_pid.pml`` at N = 6, 9, 12, and prints one row per model: graph nodes and
edges, detection seconds (the sum of the stages ``analyze`` times, front end included) and the
process's wall seconds.  Models whose analysis refuses or fails are listed as such.

    python results/detection_time.py [--jobs 2] [--timeout 120] [--output results/detection_time.md]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fingerprint import model_files  # the same model list as the fingerprint (this folder)

REPO = Path(__file__).resolve().parents[1]
LIMIT_NODES, LIMIT_SECONDS = 100_000, 10.0


def _inputs() -> list[tuple[str, list[str]]]:
    runs = [(str(p), []) for p in model_files()]
    runs += [(str(REPO / "models" / "peterson_pid.pml"), ["-D", f"N={n}"]) for n in (6, 9, 12)]
    return runs


def _measure(run: tuple[str, list[str]], timeout: float) -> dict:
    path, extra = run
    command = [sys.executable, "-m", "detect.cli", "analyze", path, "--json", *extra]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=REPO,
                              env={**os.environ, "PYTHONPATH": str(REPO)})
    except subprocess.TimeoutExpired:
        return {"run": run, "outcome": f"no answer within {timeout:g} s"}
    wall = time.perf_counter() - start
    try:
        data = json.loads(done.stdout)
    except json.JSONDecodeError:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"run": run, "outcome": f"exit {done.returncode}: {last[:120]}", "wall": wall}
    return {"run": run, "outcome": "analysed", "wall": wall, "nodes": data["graph"]["nodes"],
            "edges": data["graph"]["edges"], "seconds": sum(data["timings"].values())}


def _name(run: tuple[str, list[str]]) -> str:
    path, extra = run
    shown = os.path.relpath(path, REPO)
    return f"{shown} {' '.join(extra)}".strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--output", type=Path, help="also write the table as Markdown here")
    args = parser.parse_args()
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda r: _measure(r, args.timeout), _inputs()))
    load = os.getloadavg()
    lines = [f"# Detection time against graph size (issue 14, item 3)", "",
             f"Printed by `python results/detection_time.py --jobs {args.jobs}`; {os.cpu_count()} cores, "
             f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}.  *detection s*: the stages "
             "`analyze` times (front end, CSP, graph, automorphisms, group); *wall s*: the whole process.", ""]
    analysed = [r for r in rows if r["outcome"] == "analysed"]
    over = [r for r in analysed if r["nodes"] < LIMIT_NODES and r["seconds"] >= LIMIT_SECONDS]
    lines.append(f"{len(analysed)} of {len(rows)} analysed; graphs under {LIMIT_NODES:,} nodes detected in "
                 f"{LIMIT_SECONDS:g} s or more: {len(over)}"
                 + (" (" + ", ".join(_name(r['run']) for r in over) + ")" if over else "") + ".")
    lines += ["", "| model | nodes | edges | detection s | wall s | outcome |", "|---|---:|---:|---:|---:|---|"]
    for r in sorted(rows, key=lambda r: -(r.get("nodes") or 0)):
        lines.append(f"| `{_name(r['run'])}` | {r.get('nodes', ''):,} | {r.get('edges', ''):,} | "
                     f"{r['seconds']:.2f} | {r['wall']:.2f} | analysed |" if r["outcome"] == "analysed" else
                     f"| `{_name(r['run'])}` |  |  |  | {r.get('wall', 0):.2f} | {r['outcome']} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
