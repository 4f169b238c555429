"""Promela corpus: Spin's stored states (-o3 and -o1 -o2 -o3, no POR) vs ours, with seconds.

Run from the repo root: ``python results/promela_corpus.py > results/promela_corpus.md``.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from detect.explore import reachable_graph
from frontends.promela import load, spin_state_count

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"
MODELS = sorted((CORPUS / "beem" / "promela").glob("*.pml")) + sorted((CORPUS / "spin").glob("*.pml"))


def spin(path: Path, opts: list[str]) -> int:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "m.pml").write_text(path.read_text())
        subprocess.run(["spin", *opts, "-a", "m.pml"], cwd=d, check=True, capture_output=True)
        subprocess.run(["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", "-o", "pan", "pan.c"], cwd=d, check=True)
        out = subprocess.run(["./pan", "-m10000000", "-c0", "-n"], cwd=d, capture_output=True, text=True).stdout
        return int(re.search(r"(\d+) states, stored", out).group(1))


def main(names: list[str]) -> None:
    print("| model | Spin -o3 | Spin -o1 -o2 -o3 | ours (stored) | ours (incl. mid-atomic) | seconds |")
    print("|---|---|---|---|---|---|")
    for path in MODELS:
        if names and path.stem not in names:
            continue
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = load(path)
        graph = reachable_graph(model, max_states=5_000_000)
        secs = time.perf_counter() - t
        print(f"| {path.stem} | {spin(path, ['-o3'])} | {spin(path, ['-o1', '-o2', '-o3'])} | "
              f"{spin_state_count(model, graph.states)} | {len(graph.states)} | {secs:.1f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
