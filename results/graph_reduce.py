"""`--reduce graph` (issue 15 item 2, seed 003's GROOVE-style certificate): CPU seconds of the search.

    python results/graph_reduce.py [--before TREE] [--models token:4 token:5 dining:8 peterson_pid]

For every model and every tree (``--before``, e.g. a checkout of main before this change, then
this tree) a child process loads the model and runs detection, then measures the CPU seconds
(``time.process_time``: user + system of that process) of ``explore_reduced(model, "graph",
workers=1)`` alone, and prints one markdown row: reduced states, search CPU seconds, states per
CPU second, the C canonicaliser's counters where it has them (calls, memo hits, discrete checks,
searches, certificate collisions).  Then the issue's own command is run once per tree on token
circulation N=5 (``symdetect explore ... --reduce graph --workers 1 --json --no-trace``) and its
reported search seconds (wall), states/s and search CPU seconds (``cpu_seconds``) printed with
the child's CPU seconds.  ``uptime`` comes
before and after: on a shared machine wall clocks measure the scheduler, CPU seconds less so.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = {
    "token:4": ("models/token_circulation.csp", {"N": 4}),
    "token:5": ("models/token_circulation.csp", {"N": 5}),
    "dining:8": ("models/dining_philosophers.csp", {"N": 8}),
    "peterson_pid": ("models/peterson_pid.pml", {}),
}

#: Run in the child, from the measured tree: detection outside the clock, the search inside.
CHILD = r"""
import json, sys, time
from detect.checking.reduce import explore_reduced
from detect.symmetry.pipeline import detect
from detect.transform.load import load_model
path, defines = sys.argv[1], json.loads(sys.argv[2])
model = load_model(path, defines)
detection = detect(model)
start = time.process_time()
result = explore_reduced(model, "graph", detection=detection, workers=1)
cpu = time.process_time() - start
stats = getattr(result.reducer.canonicalise, "stats", lambda: {})()
print(json.dumps({"states": result.exploration.states, "cpu": cpu, "seconds": result.exploration.seconds,
                  "nodes": detection.graph.n, "order": detection.group.order,
                  "method": result.reducer.method, "stats": stats}))
"""


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def search_cpu(tree: Path, path: str, defines: dict) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / path), json.dumps(defines)],
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(tree)), cwd=tree)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {path} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cli_run(tree: Path, n: int) -> tuple[dict, float]:
    """The issue's command from ``tree``: its ``--json`` report and the child's CPU seconds."""
    cmd = [sys.executable, "-m", "detect.cli", "explore", str(ROOT / "models" / "token_circulation.csp"),
           "-D", f"N={n}", "--reduce", "graph", "--workers", "1", "--json", "--no-trace"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(tree)), cwd=tree)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    text = done.stdout
    return json.loads(text[text.index("{"):text.rindex("}") + 1]), cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a tree to compare with (skipped if absent)")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--cli-n", type=int, default=5, help="N of the issue's command (0: skip it)")
    args = parser.parse_args()
    trees = ([("before", args.before)] if args.before else []) + [("after", ROOT)]
    print(f"`uptime` before: {uptime()}\n")
    print("| model | tree | graph nodes | \\|G\\| | states | search CPU s | states / CPU s | C calls | memo hits "
          "| discrete checks | searches | collisions |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    methods = {}
    for key in args.models:
        path, defines = MODELS[key]
        for name, tree in trees:
            r = search_cpu(tree, path, defines)
            methods[name] = r["method"]
            s = r["stats"]
            counters = " | ".join(f"{s[k]:,}" if k in s else "—"
                                  for k in ("calls", "memo_hits", "checks", "searches", "collisions"))
            print(f"| {key} | {name} | {r['nodes']:,} | {r['order']} | {r['states']:,} | {r['cpu']:.3f} "
                  f"| {r['states'] / r['cpu']:,.0f} | {counters} |", flush=True)
    for name, method in methods.items():
        print(f"\n{name}: {method}")
    if args.cli_n:
        print(f"\n`symdetect explore models/token_circulation.csp -D N={args.cli_n} --reduce graph --workers 1 "
              f"--json --no-trace`:\n")
        print("| tree | states | search s (wall, reported) | states/s (reported) | search CPU s (reported) "
              "| states / CPU s | process CPU s (start-up included) |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, tree in trees:
            data, cpu = cli_run(tree, args.cli_n)
            rate = data["states"] / data["seconds"] if data["seconds"] else float("inf")
            # cpu_seconds: the search's CPU seconds, in --json since main's a926174 ("—" before)
            search = data.get("cpu_seconds")
            cpu_cols = f"{search:.3f} | {data['states'] / search:,.0f}" if search else "— | —"
            print(f"| {name} | {data['states']:,} | {data['seconds']:.3f} | {rate:,.0f} | {cpu_cols} | {cpu:.2f} |",
                  flush=True)
    print(f"\n`uptime` after: {uptime()}")


if __name__ == "__main__":
    main()
