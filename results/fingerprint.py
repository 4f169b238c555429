"""Print what symdetect says about every bundled and corpus model, for diffing across a change.

Usage: python3 results/fingerprint.py [--jobs 2] > before.txt   (then again after; diff)

One block per model file (``models/`` and ``../shared/corpus/``): the group order, the
graph's group order and a digest of the generators (their literal cycles, as printed by
``analyze --json``), the unreduced counts of ``explore --max-states 3000`` (states,
transitions, deadlocks, faults, verdicts) and the states ``explore --reduce exact`` stores
under the same bound.  It drives the command line of the checkout it sits in (not the installed one) only, so it measures the
tool's behaviour and not its internal names; a refactoring must leave the output
byte-identical (time-outs aside, which are printed as such).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
SUFFIXES = {".csp", ".pml", ".m", ".dve", ".prm", ".pm"}
BOUND = "3000"


def model_files() -> list[Path]:
    """Every model file, bundled first, in a fixed order."""
    files = sorted(p for p in (ROOT / "models").rglob("*") if p.suffix in SUFFIXES)
    if CORPUS.is_dir():
        files += sorted(p for p in CORPUS.rglob("*") if p.suffix in SUFFIXES)
    return files


def _run(args: list[str], timeout: float) -> tuple[int | str, dict | str]:
    try:
        done = subprocess.run(
            [sys.executable, "-c", "from detect.cli import main; main()", *args, "--json"],
            capture_output=True, text=True, timeout=timeout, cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    except subprocess.TimeoutExpired:
        return "timeout", ""
    try:
        return done.returncode, json.loads(done.stdout)
    except json.JSONDecodeError:
        return done.returncode, (done.stderr.strip().splitlines() or [""])[-1]


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def fingerprint(path: Path, timeout: float) -> str:
    """The block of lines printed for one model file."""
    name = path.relative_to(ROOT.parent) if CORPUS in path.parents else path.relative_to(ROOT)
    lines = [f"== {name}"]
    code, doc = _run(["analyze", str(path)], timeout)
    if isinstance(doc, dict):
        generators = [g.get("cycles") for g in doc.get("generators", [])]
        kinds = sorted(g.get("kind", "") for g in doc.get("generators", []))
        lines.append(
            f"analyze exit {code}: order {doc.get('group_order')} graph {doc.get('graph_group_order')}"
            f" generators {len(generators)} {kinds} digest {_digest(generators)}"
        )
    else:
        lines.append(f"analyze exit {code}: {doc}")
    for reduce in ("none", "exact"):
        # One worker: where a bound truncates the run, which states it stored depends on the
        # number of workers, and the default number follows the machine's load.
        code, doc = _run(["explore", str(path), "--max-states", BOUND, "--reduce", reduce, "--workers", "1"],
                         timeout)
        if isinstance(doc, dict):
            verdicts = [(a.get("kind"), a.get("verdict")) for a in doc.get("assertions", [])]
            lines.append(
                f"explore {reduce} exit {code}: states {doc.get('states')} transitions"
                f" {doc.get('transitions')} deadlocks {doc.get('deadlocks')} faults"
                f" {doc.get('faults')} truncated {doc.get('truncated')} verdicts {verdicts}"
            )
        else:
            lines.append(f"explore {reduce} exit {code}: {doc}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0)
    options = parser.parse_args()
    with ThreadPoolExecutor(options.jobs) as pool:
        for block in pool.map(lambda p: fingerprint(p, options.timeout), model_files()):
            print(block, flush=True)


if __name__ == "__main__":
    sys.exit(main())
