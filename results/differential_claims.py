"""Differential testing of never claims against Spin: random models with claims as Spin users
write them.

    python results/differential_claims.py [-n 200] [--workers 2] [--generator timed_claimed]
        [-o results/differential_claims.md]

Runs ``-n`` random models of ``tests/promela_gen.py``'s ``spin_claimed`` (seeds 0..n-1: the
random model of ``model(seed)`` plus a process taking ``timeout`` moves inside and outside
``atomic``, maybe a process with a labelled ``goto`` that the claim names by ``Lg@Lp``, and a
never claim with polls, ``atomic`` sequences, ``assert`` and Spin's ``atomic { g ->
assert(!g) }``, polls of rendezvous channels too) through Spin and through symdetect, as ``results/differential_promela.py``
does (``tests/spin_oracle.compare``: pan's "states, stored" without ``-DNOCLAIM`` and its
error verdict against ``explore --spin-states``), and prints a markdown table.
``--generator timed_claimed``: the same models with ``timeout`` and ``d_step`` in the claim.
"""
from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "results"))

from differential_promela import _setup, machine  # noqa: E402


def _one(job: tuple) -> tuple:
    seed, generator = job
    gen, oracle = _setup(str(HERE))
    from detect.errors import InputError

    make = getattr(gen, generator)
    text = make(seed)
    start = time.perf_counter()
    order = False
    try:
        with tempfile.TemporaryDirectory(prefix="diffc") as d:
            why = oracle.compare(text, Path(d))
            if why is not None and why.startswith("states") and oracle.claim_order_artifact(
                    text, make(seed, reverse=True), Path(d)):
                why = None
                order = True
        outcome = "agree" if why is None else f"disagree: {why}"
    except InputError as e:
        outcome = f"rejected: {e}"
    except (oracle.SpinRefused, subprocess.TimeoutExpired) as e:
        outcome = f"spin refused: {' '.join(str(e).split())[:150]}"
    except Exception as e:  # a crash of ours is a finding too
        outcome = f"crash: {type(e).__name__}: {' '.join(str(e).split())[:150]}"
    claim = text.split("never {")[1]
    rendezvous = re.findall(r"chan (q\d) = \[0\]", text)
    return (seed, outcome, time.perf_counter() - start, "atomic {" in claim, order,
            any(f"{c}?[" in claim for c in rendezvous))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=200, help="random models (seeds 0..n-1)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--generator", default="spin_claimed", choices=("spin_claimed", "timed_claimed"))
    ap.add_argument("-o", "--output", type=Path, default=None, help="also write the markdown here")
    args = ap.parse_args()
    start = time.perf_counter()
    results = []
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for r in pool.imap_unordered(_one, [(seed, args.generator) for seed in range(args.n)]):
            results.append(r)
            print(f"seed {r[0]}: {r[1][:150]}", file=sys.stderr, flush=True)  # progress
    results.sort()
    took = time.perf_counter() - start
    kinds = collections.Counter(r[1].split(":")[0] for r in results)
    compared = kinds["agree"] + kinds["disagree"] + kinds["crash"]
    with_atomic = sum(1 for r in results if r[3] and r[1] == "agree")
    ordered = [r[0] for r in results if r[4]]
    polled = [r[0] for r in results if r[5] and r[1] == "agree"]
    md = [f"Machine: {machine()}. Took {took:.0f} s.", "",
          "| generator | models | compared | agree | disagree | crash | rejected by us | Spin gives no count |",
          "|---|---:|---:|---:|---:|---:|---:|---:|",
          f"| {args.generator} | {len(results)} | {compared} | {kinds['agree']} | {kinds['disagree']} | {kinds['crash']} "
          f"| {kinds['rejected']} | {kinds['spin refused']} |", "",
          f"{with_atomic} of the agreeing models have an `atomic` sequence in their claim, {len(polled)} "
          f"poll a rendezvous channel in it (pan's error \"error to poll rendezvous channel\"; seeds "
          f"{', '.join(map(str, polled)) or 'none'}). "
          f"{len(ordered)} agree in the verdict and have pan's search-order dependence under a claim "
          "(README): the same model with the claim's options reversed gives pan another count, and "
          "ours, the same for both orders, is at least each of pan's (seeds "
          f"{', '.join(map(str, ordered)) or 'none'}); they count as agreeing.", "",
          "Every model that did not agree:", ""]
    md += [f"- seed {r[0]}: {r[1][:200]}" for r in results if r[1] != "agree"] or ["- none"]
    text = "\n".join(md) + "\n"
    print(text)
    if args.output:
        args.output.write_text("# Differential testing of never claims against Spin\n\n"
                               "Printed by `python results/differential_claims.py -n "
                               f"{args.n} --workers {args.workers} --generator {args.generator}` (random models "
                               f"with claims as Spin users write them, `promela_gen.{args.generator}`; see the "
                               "script's docstring).\n\n" + text)


if __name__ == "__main__":
    main()
