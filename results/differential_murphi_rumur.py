"""Random Murphi models in Rumur's syntax against Rumur 2022.08.20: how many agree.

    python results/differential_murphi_rumur.py [--first-seed S] [--seeds N] [--reduce] [--out FILE]

Runs ``tests/murphi_gen.generate(seed, rumur=True)`` for seeds S..S+N-1 (Rumur's syntax and
operators, ``Cover`` and ``Assume`` statements, global ``Assume`` and ``Liveness``) through
Rumur (``tests/rumur_oracle.py``: no symmetry reduction, its CMurphi-like deadlock check,
``--value-type int32_t``) and ``symdetect explore --json`` (with ``--reduce``: also
``--reduce exact``, whose verdict must be the unreduced one).  A model *agrees* when the
verdict (error or not) is Rumur's and, without an error, the state count too; Rumur refusing
a model is counted apart.  Prints (or writes) a markdown summary with the disagreements.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _ours(path: Path, *options: str) -> tuple[int, bool]:
    from click.testing import CliRunner

    from detect.cli import main

    run = CliRunner().invoke(main, ["explore", str(path), "--json", *options])
    if run.exit_code not in (0, 1):
        raise RuntimeError(f"exit {run.exit_code}: {run.output[-300:]}")
    data = json.loads(run.output[run.output.index("{"):])
    return data["states"], run.exit_code == 1


def compare(seed: int, reduce: bool) -> tuple[str, str]:
    """``(outcome, detail)``: agree, disagree, rumur refuses, we fail."""
    from tests import rumur_oracle
    from tests.murphi_gen import generate

    text = generate(seed, rumur=True)
    with tempfile.TemporaryDirectory(prefix="rumur-diff-") as tmp:
        path = Path(tmp) / "g.m"
        path.write_text(text)
        try:
            theirs = rumur_oracle.check(text, Path(tmp) / "rumur", value_type="int32_t")
        except rumur_oracle.Rejected as e:
            return "rumur refuses", str(e)[:120]
        try:
            states, error = _ours(path)
            if reduce:
                _, reduced_error = _ours(path, "--reduce", "exact")
                if reduced_error != error:
                    return "disagree", f"reduced verdict {reduced_error}, unreduced {error}"
        except RuntimeError as e:
            return "we fail", str(e)[:200]
    if error != (theirs.error is not None):
        return "disagree", f"Rumur {theirs}, ours error={error}"
    if theirs.error is None and states != theirs.states:
        return "disagree", f"Rumur {theirs.states} states, ours {states}"
    return "agree", "error" if error else f"{states} states"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--first-seed", type=int, default=100)
    ap.add_argument("--seeds", type=int, default=60)
    ap.add_argument("--reduce", action="store_true")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    from tests import rumur_oracle

    why = rumur_oracle.unavailable()
    if why:
        print(f"skipped: {why}")
        return 0
    started = time.time()
    outcomes: dict[str, list[tuple[int, str]]] = {}
    for seed in range(a.first_seed, a.first_seed + a.seeds):
        outcome, detail = compare(seed, a.reduce)
        outcomes.setdefault(outcome, []).append((seed, detail))
        print(f"seed {seed}: {outcome} {detail}", file=sys.stderr, flush=True)
    errors = sum(1 for _, d in outcomes.get("agree", []) if d == "error")
    lines = [f"seeds {a.first_seed}..{a.first_seed + a.seeds - 1}" + (" (and --reduce exact)" if a.reduce else "")
             + ": " + ", ".join(f"{k} {len(v)}" for k, v in sorted(outcomes.items()))
             + f" (of the agreements, {errors} with an error found by both)", ""]
    for outcome in ("disagree", "we fail", "rumur refuses"):
        for seed, detail in outcomes.get(outcome, []):
            lines.append(f"- {outcome}: seed {seed}: {detail}")
    lines += ["", f"{platform.node()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
              f"{time.time() - started:.0f} s wall"]
    text = "\n".join(lines) + "\n"
    if a.out:
        Path(a.out).write_text(text)
    print(text)
    return 1 if outcomes.get("disagree") or outcomes.get("we fail") else 0


if __name__ == "__main__":
    sys.exit(main())
