"""Differential testing of the Murphi front end against CMurphi 5.4: how many models agree.

    python results/differential_murphi.py [--seeds N] [--first-seed S] [--jobs J] [--sym1] [--frontend DIR] [--label TEXT]

Runs N random models of ``tests/murphi_gen.py`` (seeds 0..N-1) and every ``.m`` file of
``models/`` and ``../shared/corpus/murphi`` (n_peterson at N=3, german_small at N=2) through
``symdetect explore --json`` and CMurphi ``-nosym -ndl`` (``tests/cmurphi.py``, which builds
CMurphi into a cache), and prints a markdown table: models compared, agreeing, disagreeing,
not comparable (CMurphi's generated C++ does not compile), and the disagreements grouped by
cause (numbers, names and positions blurred).  ``--frontend DIR`` takes ``detect`` and
``frontends`` from another checkout (e.g. an older commit) while the generator and the
CMurphi harness stay this tree's, so the same models are compared.  ``--sym1`` also runs each
random model through ``explore --reduce exact`` and CMurphi ``-sym1`` (``compare_sym1``: equal
verdicts, and equal states or fewer with ``analyze --verify`` passing).
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setup(frontend: str) -> None:
    sys.path.insert(0, str(ROOT))
    if frontend:
        sys.path.insert(0, frontend)
        for name in [m for m in sys.modules if m.split(".")[0] in ("detect", "frontends")]:
            del sys.modules[name]


def _one(job):
    frontend, kind, item, workdir = job
    _setup(frontend)
    from tests import cmurphi, murphi_gen

    home = cmurphi.build()
    work = Path(workdir)
    if kind == "both":  # -nosym, then --reduce exact against -sym1 (compiled once)
        return [_one((frontend, "random", item, workdir)), _one((frontend, "sym1", item, workdir))]
    if kind == "sym1":  # the same random model, --reduce exact against -sym1
        path = work / f"random{item}.m"
        path.write_text(murphi_gen.generate(item))
        try:
            c = cmurphi.compare_sym1(home, path, work / f"cm-{path.stem}")
        except Exception as e:  # noqa: BLE001
            return kind, str(item), True, f"crash: {type(e).__name__}: {e}"
        if c.disagreement is None and c.ours is not None and not isinstance(c.theirs, str) \
                and c.ours[0] < c.theirs.states:
            return kind, str(item), c.compared, None, f"larger group than declared, --verify passes: " \
                f"CMurphi -sym1 {c.theirs.states}, ours {c.ours[0]}"
        return kind, str(item), c.compared, c.disagreement, c.note
    if kind == "random":
        path = work / f"random{item}.m"
        path.write_text(murphi_gen.generate(item))
        defines = None
    else:
        path = Path(item)
        defines = {"n_peterson.m": {"N": 3}, "german_small.m": {"N": 2}}.get(path.name)
    try:
        c = cmurphi.compare(home, path, work / f"cm-{path.stem}", defines)
    except Exception as e:  # a crash of ours is a disagreement too
        return kind, str(item) if kind == "random" else path.name, True, f"crash: {type(e).__name__}: {e}"
    return kind, str(item) if kind == "random" else path.name, c.compared, c.disagreement


def cause(text: str) -> str:
    text = re.sub(r"symdetect: \S+?:\d+:\d+: ", "", text)
    text = re.sub(r"\(\d+ states\)", "", text)
    text = re.sub(r"'[^']*'", "'…'", text)
    text = re.sub(r"-?\d+", "N", text)
    return text.strip()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--frontend", default="")
    ap.add_argument("--label", default="this tree")
    ap.add_argument("--sym1", action="store_true",
                    help="also compare each random model's explore --reduce exact with CMurphi -sym1 "
                         "(tests/cmurphi.py compare_sym1)")
    ap.add_argument("--first-seed", type=int, default=0)
    args = ap.parse_args()
    _setup(args.frontend)
    from tests import cmurphi

    reason = cmurphi.unavailable()
    if reason:
        sys.exit(f"cannot run: {reason}")
    cmurphi.build()
    corpus = sorted((ROOT / "models").rglob("*.m"))
    shared = ROOT.parent / "shared" / "corpus" / "murphi"
    corpus += sorted(shared.glob("*.m")) if shared.exists() else []
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        seeds = range(args.first_seed, args.first_seed + args.seeds)
        jobs = [(args.frontend, "both" if args.sym1 else "random", s, tmp) for s in seeds]
        jobs += [(args.frontend, "file", str(p), tmp) for p in corpus]
        with ProcessPoolExecutor(args.jobs) as pool:
            results = []
            for r in pool.map(_one, jobs):
                results += r if isinstance(r, list) else [r]
    seconds = time.time() - start
    print(f"### Front end: {args.label}\n")
    print("| models | compared | agree | disagree | not comparable (CMurphi's C++ fails) |")
    print("|---|---|---|---|---|")
    span = f"seeds {args.first_seed}..{args.first_seed + args.seeds - 1}"
    for kind, label in (("random", f"random ({span})"), ("sym1", f"random, --reduce exact vs -sym1 ({span})"),
                        ("file", "corpus + models/")):
        if kind == "sym1" and not args.sym1:
            continue
        rows = [r for r in results if r[0] == kind]
        compared = [r for r in rows if r[2]]
        bad = [r for r in compared if r[3]]
        noted = [r for r in compared if not r[3] and len(r) > 4 and r[4]]
        print(f"| {label} | {len(compared)} | {len(compared) - len(bad)}"
              + (f" ({len(noted)} with a reason below)" if noted else "")
              + f" | {len(bad)} | {len(rows) - len(compared)} |")
    causes = Counter(cause(r[3]) for r in results if r[2] and r[3])
    if causes:
        print("\n| disagreements | cause |")
        print("|---|---|")
        for text, n in causes.most_common():
            print(f"| {n} | {text.replace('|', '/')} |")
    notes = Counter(re.sub(r"\d+", "N", r[4].split(":")[0]) for r in results if len(r) > 4 and r[4] and not r[3])
    if notes:
        print("\n| agreements with a reason | reason |")
        print("|---|---|")
        for text, n in notes.most_common():
            print(f"| {n} | {text} |")
        for r in results:
            if len(r) > 4 and r[4] and not r[3]:
                print(f"- seed {r[1]}: {r[4]}")
    named = [f"seed {r[1]}" + (" (-sym1)" if r[0] == "sym1" else "") if r[0] != "file" else str(r[1])
             for r in results if r[2] and r[3]]
    if named:
        print("\nDisagreeing: " + ", ".join(named))
    files = [r for r in results if r[0] == "file"]
    print("\nFiles: " + ", ".join(f"{r[1]} {'agrees' if not r[3] else 'DISAGREES (' + r[3] + ')'}" for r in files))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n{len(results)} models in {seconds:.0f} s with {args.jobs} jobs; load average {load}; "
          f"{platform.machine()}, Python {platform.python_version()}.")


if __name__ == "__main__":
    main()
