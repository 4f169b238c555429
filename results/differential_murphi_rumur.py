"""Random Murphi models in Rumur's syntax against Rumur 2022.08.20: how many agree.

    python results/differential_murphi_rumur.py [--first-seed S] [--seeds N] [--reduce] [--properties] [--out FILE]

Runs ``tests/murphi_gen.generate(seed, rumur=True)`` for seeds S..S+N-1 (Rumur's syntax and
operators, ``Cover`` and ``Assume`` statements, global ``Assume`` and ``Liveness``) through
Rumur (``tests/rumur_oracle.py``: no symmetry reduction, its CMurphi-like deadlock check,
``--value-type int32_t``) and ``symdetect explore --json`` (with ``--reduce``: also
``--reduce exact``, whose verdict must be the unreduced one).  ``--properties``: the models of
``murphi_gen.generate_rumur_properties`` instead (small, mostly error-free, so that the
assumptions, liveness properties and covers decide verdicts and counts).  A model *agrees* when the
verdict (error or not) is Rumur's and, without an error, the state count too; Rumur refusing
a model is counted apart.  Prints (or writes) a markdown summary with the disagreements.
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def compare(seed: int, reduce: bool, properties: bool = False) -> tuple[str, str]:
    """``(outcome, detail)`` of one seed (``rumur_oracle.compare_text``)."""
    from tests import rumur_oracle
    from tests.murphi_gen import generate, generate_rumur_properties

    text = generate_rumur_properties(seed) if properties else generate(seed, rumur=True)
    return rumur_oracle.compare_text(text, reduce)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--first-seed", type=int, default=100)
    ap.add_argument("--seeds", type=int, default=60)
    ap.add_argument("--reduce", action="store_true")
    ap.add_argument("--properties", action="store_true")
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
        outcome, detail = compare(seed, a.reduce, a.properties)
        outcomes.setdefault(outcome, []).append((seed, detail))
        print(f"seed {seed}: {outcome} {detail}", file=sys.stderr, flush=True)
    errors = sum(1 for _, d in outcomes.get("agree", []) if d.startswith("error"))
    kinds: dict[str, int] = {}
    for _, d in outcomes.get("agree", []):
        if d.startswith("error"):
            kinds[d] = kinds.get(d, 0) + 1
    lines = [("generate_rumur_properties " if a.properties else "generate(rumur=True) ")
             + f"seeds {a.first_seed}..{a.first_seed + a.seeds - 1}" + (" (and --reduce exact)" if a.reduce else "")
             + ": " + ", ".join(f"{k} {len(v)}" for k, v in sorted(outcomes.items()))
             + f" (of the agreements, {errors} with an error found by both: "
             + ", ".join(f"{k[7:-1]} {v}" for k, v in sorted(kinds.items())) + ")", ""]
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
