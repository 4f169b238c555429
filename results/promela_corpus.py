"""Promela corpus: Spin's stored states vs ours, detected group order and detection seconds.

Run from the repo root: ``python results/promela_corpus.py [stem ...] > results/promela_corpus.md``
(the markdown notes under the table are in ``NOTES`` below).  Spin is run without partial-order
reduction and without the never claim of the file's ltl formulas (``-DSAFETY -DNOREDUCE
-DNOCLAIM``, ``pan -c0 -n``), once with plain ``-o3`` and once with ``-o1 -o2 -o3``.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from detect.symmetry.constraints import TableTooLarge
from detect.statespace.explore import reachable_graph
from detect.symmetry.pipeline import detect
from detect.checking.spin_counts import spin_state_count
from detect.transform.load import narrowed
from frontends import promela

load = narrowed(promela.load)

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / ".." / "shared" / "corpus"
MODELS = [(p, {}) for p in sorted((CORPUS / "beem" / "promela").glob("*.pml")) + sorted((CORPUS / "spin").glob("*.pml"))]
MODELS += [(ROOT / "models" / "peterson_filter.pml", {"N": n}) for n in (3, 4)]
MODELS += [(ROOT / "models" / "rendezvous_clients.pml", {"N": n}) for n in (3, 6)]
DETECT_ONLY = [(ROOT / "models" / "peterson_filter.pml", {"N": n}) for n in (6, 9, 12)]


def with_defines(path: Path, defines: dict) -> str:
    text = path.read_text()
    for k, v in defines.items():  # cpp lets the file's #define win over -D: edit it
        text = re.sub(rf"^#define\s+{k}\b.*$", f"#define {k} {v}", text, flags=re.M)
    return text


def spin(path: Path, defines: dict, opts: list[str]) -> int:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "m.pml").write_text(with_defines(path, defines))
        subprocess.run(["spin", *opts, "-a", "m.pml"], cwd=d, check=True, capture_output=True)
        subprocess.run(["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", "-DNOCLAIM", "-o", "pan", "pan.c"], cwd=d, check=True)
        out = subprocess.run(["./pan", "-m10000000", "-c0", "-n"], cwd=d, capture_output=True, text=True).stdout
        return int(re.search(r"(\d+) states, stored", out).group(1))


def detection(model) -> tuple[str, str]:
    try:
        d = detect(model)
    except TableTooLarge as e:
        return "—", f"table too large ({e})"
    return f"{d.group.order:,}", f"{sum(t for _, t in d.timings):.1f}"


def name(path: Path, defines: dict) -> str:
    return path.stem + "".join(f" {k}={v}" for k, v in defines.items())


def main(stems: list[str]) -> None:
    print("| model | Spin -o3 | Spin -o1 -o2 -o3 | ours (Spin's count) | ours (all states) | explore s | group order | detection s |")
    print("|---|---|---|---|---|---|---|---|")
    for path, defines in MODELS:
        if stems and path.stem not in stems:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = load(path, defines)
        t = time.perf_counter()
        graph = reachable_graph(model, max_states=5_000_000)
        secs = time.perf_counter() - t
        order, dsecs = detection(model)
        print(f"| {name(path, defines)} | {spin(path, defines, ['-o3']):,} | {spin(path, defines, ['-o1', '-o2', '-o3']):,} | "
              f"{spin_state_count(model, graph.states):,} | {len(graph.states):,} | {secs:.1f} | {order} | {dsecs} |",
              flush=True)
    for path, defines in DETECT_ONLY:
        if stems and path.stem not in stems:
            continue
        order, dsecs = detection(load(path, defines))
        print(f"| {name(path, defines)} | | | | | | {order} | {dsecs} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
