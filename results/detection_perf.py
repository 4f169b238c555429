"""CPU seconds of detection on Spin's examples that were slow or refused (issues 26 §6, 28):
loading (front end and domain narrowing), the constraints, the coloured graph and the whole
detection, per model, in a fresh process of the checkout given (default: this one), so that
a branch and ``main`` can be compared on one machine:

    python results/detection_perf.py [--repo /work/main] [--timeout 900] [--examples]

CPU time (``time.process_time``, the automorphism search's child process included through
``RUSAGE_CHILDREN``), not wall time: the machine these were taken on is shared, and wall
time there is several times the CPU time.  Loading goes through the model cache, which is
emptied first (a temporary ``XDG_CACHE_HOME``)."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO.parent / "shared" / "corpus" / "spin" / "Examples"

DSTEP = "byte y;\nactive proctype P() {\n  d_step { do :: y < 3 -> y++ :: else -> break od }\n}\n"

#: (name, path or inline text, max_procs, text before which the file is cut)
CASES = [
    ("LTL/bakery.pml (without its ltl block)", EXAMPLES / "LTL" / "bakery.pml", None, "/*\n * place the ltl"),
    ("Book_1991/p319.pml", EXAMPLES / "Book_1991" / "p319.pml", None, None),
    ("d_step loop (issue 26)", DSTEP, None, None),
    ("calculator.pml --max-procs 12", EXAMPLES / "calculator.pml", 12, None),
]

MEASURE = r"""
import json, resource, sys, time
from detect.transform.load import load_model
from detect.symmetry.pipeline import csp_of
from detect.symmetry.graph import build_graph
from detect.symmetry.automorphisms import automorphisms
from detect.symmetry.group import symmetry_group

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime

path, max_procs = sys.argv[1], (int(sys.argv[2]) if sys.argv[2] != "-" else None)
out = {}
t = cpu()
try:
    model = load_model(path, max_procs=max_procs) if max_procs else load_model(path)
    out["load"] = cpu() - t
    t = cpu()
    model, csp, _ = csp_of(model, 100_000, 1_000_000)
    out["csp"] = cpu() - t
    out["constraints"] = len(csp.constraints)
    t = cpu()
    graph = build_graph(csp)
    out["graph"] = cpu() - t
    out["nodes"] = graph.n
    t = cpu()
    aut = automorphisms(graph, "auto")
    group = symmetry_group(model, graph, aut)
    out["group"] = cpu() - t
    out["order"] = group.order
except Exception as e:
    out["error"] = f"{type(e).__name__}: {str(e)[:150]}"
print(json.dumps(out))
"""


def measure(repo: Path, source, max_procs, cut, timeout: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        if isinstance(source, Path):
            if not source.exists():
                return {"error": f"{source} absent"}
            text = source.read_text()
            name = source.name
        else:
            text, name = source, "dstep.pml"
        if isinstance(source, Path) and not cut:
            path = source  # in place: its #include files beside it
        else:
            path = Path(tmp) / name
            path.write_text(text[:text.index(cut)] if cut else text)
        env = {**os.environ, "PYTHONPATH": str(repo), "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        try:
            done = subprocess.run([sys.executable, "-c", MEASURE, str(path), str(max_procs or "-")], cwd=repo,
                                  env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"no answer within {timeout:g} s"}
        try:
            return json.loads(done.stdout.strip().splitlines()[-1])
        except (json.JSONDecodeError, IndexError):
            return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1][:150]}


def examples(repo: Path, timeout: float) -> None:
    """Every file of Spin's Examples (all folders): CPU seconds to load and to detect (the
    constraints, graph, automorphisms and group), for the files that load."""
    print("| file | load s | detection s | constraints | nodes | order | outcome |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for path in sorted(EXAMPLES.rglob("*.pml")):
        r = measure(repo, path, None, None, timeout)
        detection = sum(r.get(k, 0.0) for k in ("csp", "graph", "group"))
        cells = [f"{r['load']:.2f}" if "load" in r else "", f"{detection:.2f}" if "group" in r else ""]
        cells += [f"{r[k]:,}" if k in r else "" for k in ("constraints", "nodes", "order")]
        outcome = "detected" if "group" in r else r.get("error", "")[:110].replace("|", "/")
        print(f"| {path.relative_to(EXAMPLES)} | " + " | ".join(cells) + f" | {outcome} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", type=Path, default=REPO)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--examples", action="store_true", help="every file of Spin's Examples instead")
    args = parser.parse_args()
    print(f"checkout {args.repo}")
    if args.examples:
        examples(args.repo, args.timeout)
        return
    print("| model | load s | csp s | graph s | automorphisms + group s | constraints | nodes | order |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, source, max_procs, cut in CASES:
        r = measure(args.repo, source, max_procs, cut, args.timeout)
        cells = [f"{r[k]:.2f}" if k in r else "" for k in ("load", "csp", "graph", "group")]
        cells += [f"{r[k]:,}" if k in r else "" for k in ("constraints", "nodes", "order")]
        print(f"| {name} | " + " | ".join(cells) + " |" + (f" {r['error']}" if "error" in r else ""), flush=True)


if __name__ == "__main__":
    main()
