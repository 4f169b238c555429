"""`--reduce graph` before and after the colour-refinement certificate (issue 15 item 2).

    python results/graph_reduce.py [--before TREE] [--n 4 5] [--before-limit-n 4]

Runs ``symdetect explore models/token_circulation.csp -D N=n --reduce graph --json`` from
``--before`` (a checkout without the certificate, e.g. main before the merge) and from this tree,
and prints one markdown row per run: reduced states, search seconds (wall), states/s, process
CPU seconds.  ``uptime`` is printed before and after: on a shared machine the wall clocks
mostly measure the scheduler, the CPU column less so.
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
TOKEN = ROOT / "models" / "token_circulation.csp"


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def explore(tree: Path, n: int) -> tuple[dict, float, float]:
    """The ``--json`` report, wall seconds and CPU seconds of one run from ``tree``."""
    cmd = [sys.executable, "-m", "detect.cli", "explore", str(TOKEN), "-D", f"N={n}", "--reduce", "graph",
           "--workers", "1", "--json", "--no-trace"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(tree)),
                          cwd=tree)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    text = done.stdout
    return json.loads(text[text.index("{"):text.rindex("}") + 1]), wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a tree without the certificate (skipped if absent)")
    parser.add_argument("--n", type=int, nargs="+", default=[4, 5])
    parser.add_argument("--before-limit-n", type=int, default=4,
                        help="largest N run from --before (one canonical labelling per state is slow)")
    args = parser.parse_args()
    print(f"`uptime` before: {uptime()}\n")
    print("| tree | N | states | search s | states/s | wall s | CPU s | method |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    runs = [("before", args.before)] if args.before else []
    runs.append(("after", ROOT))
    for n in args.n:
        for name, tree in runs:
            if name == "before" and n > args.before_limit_n:
                continue
            data, wall, cpu = explore(tree, n)
            rate = data["states"] / data["seconds"] if data["seconds"] else float("inf")
            print(f"| {name} | {n} | {data['states']:,} | {data['seconds']:.2f} | {rate:,.0f} | {wall:.2f} "
                  f"| {cpu:.2f} | {data['method']} |", flush=True)
    print(f"\n`uptime` after: {uptime()}")


if __name__ == "__main__":
    main()
