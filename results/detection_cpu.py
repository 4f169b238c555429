"""Detection's CPU seconds on given rows of ``results/spin_examples.md``, measured as that
script measures them (the file loaded with ``parse_text`` and ``narrow``, its ltl claim
left out, ``detect`` with ``--domain-states`` 1,000,000) in a fresh process of the checkout
given (default: this one), so that a branch and its base can be compared on one machine:

    python results/detection_cpu.py [--repo BASE] [--runs N] ROW ...

ROW is a file under Spin's Examples (``dtp.pml``) or a row name with its defines
(``"LTL/leader.pml N=3 L=6"``).  Prints per row the CPU seconds of the process in
``detect`` and of its children (the C compiler, the forked automorphism search), each run
with an empty native-library cache (a temporary ``SYMDETECT_NATIVE_CACHE``: the compiler's
time is counted as on a first run), the lowest of ``--runs`` runs, and the group order."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

MEASURE = r"""
import json, os, sys, time, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, os.getcwd())
from pathlib import Path
from detect.symmetry.pipeline import detect
from detect.transform.narrowing import narrow
from frontends.promela import parse_text
path, defines, max_procs = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
import re
text = Path(path).read_text()
for k, v in defines.items():
    text = re.sub(rf"^#define\s+{k}\b.*$", f"#define {k} {v}", text, flags=re.M)
model = narrow(parse_text(text, path, None, max_procs, ltl_name=""))
def children():
    t = os.times()
    return t.children_user + t.children_system
t, c = time.process_time(), children()
d = detect(model, domain_states=1_000_000)
print(json.dumps({"cpu": time.process_time() - t, "children": children() - c, "order": d.group.order}))
"""


def measure(repo: Path, path: Path, defines: dict, max_procs) -> dict:
    with tempfile.TemporaryDirectory(prefix="detection-cpu-") as cache:
        env = dict(os.environ, SYMDETECT_NATIVE_CACHE=cache)
        r = subprocess.run([sys.executable, "-c", MEASURE, str(path), json.dumps(defines), json.dumps(max_procs)],
                           cwd=repo, env=env, capture_output=True, text=True)
    lines = [x for x in r.stdout.splitlines() if x.startswith("{")]
    return json.loads(lines[-1]) if lines else {"error": (r.stderr.strip().splitlines() or ["?"])[-1]}


def main() -> None:
    sys.path.insert(0, str(HERE / "results"))
    from spin_examples import EXAMPLES, MAX_PROCS

    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", type=Path, default=HERE)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("rows", nargs="+")
    args = ap.parse_args()
    for row in args.rows:
        rel, *pairs = row.split()
        defines = dict(p.split("=", 1) for p in pairs)
        path = EXAMPLES.resolve() / rel
        runs = [measure(args.repo.resolve(), path, defines, MAX_PROCS.get(path.name)) for _ in range(args.runs)]
        ok = [r for r in runs if "cpu" in r]
        best = min(ok, key=lambda r: r["cpu"] + r["children"]) if ok else runs[-1]
        print(f"| {row} | " + (f"{best['cpu']:.1f} | {best['children']:.1f} | {best['order']} |" if ok
                              else f" | | {best['error'][:100]} |"), flush=True)


if __name__ == "__main__":
    main()
