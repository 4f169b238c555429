"""Murphi multisets under symmetry against CMurphi 5.4: random models of
``tests/murphi_gen.generate_multiset`` (a network that is a multiset of messages naming
scalarset processes), each through CMurphi (``-nosym``, ``-sym1``, ``-sym1 -nomultiset``, all
``-ndl``) and ``symdetect explore --ndl`` (plain, ``--reduce exact``, ``--nomultiset
--reduce exact``).  Prints a Markdown table and the number of disagreements.

    python results/multiset_sym1.py 100 160   # seeds 100..159
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RUNS = ((("-nosym",), ()), (("-sym1",), ("--reduce", "exact")),
        (("-sym1", "-nomultiset"), ("--nomultiset", "--reduce", "exact")))


def ours(path: Path, options: tuple[str, ...]) -> tuple[int, int]:
    run = subprocess.run([sys.executable, "-m", "detect.cli", "explore", str(path), "--json", "--ndl", *options],
                         capture_output=True, text=True, cwd=ROOT)
    data = json.loads(run.stdout[run.stdout.index("{"):])
    return data["states"], data.get("group_order", 1)


def main() -> None:
    from tests import cmurphi, murphi_gen

    first, last = (int(a) for a in sys.argv[1:3])
    home = cmurphi.build()
    start, disagree = time.time(), 0
    print("| seed | CMurphi -nosym | ours | CMurphi -sym1 | ours --reduce exact | CMurphi -sym1 -nomultiset | "
          "ours --nomultiset --reduce exact | group | agree |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(first, last):
            text = murphi_gen.generate_multiset(seed)
            path = Path(tmp) / f"multiset{seed}.m"
            path.write_text(text)
            exe = cmurphi.compile_model(home, text, Path(tmp) / f"cm{seed}", "m")
            cells, same, group = [], True, None
            for theirs_options, ours_options in RUNS:
                theirs = cmurphi.run_model(exe, options=theirs_options)
                mine, order = ours(path, ours_options)
                group = order if ours_options else group
                same &= theirs.error is None and theirs.states == mine
                cells += [f"{theirs.states:,}", f"{mine:,}"]
            disagree += not same
            print(f"| {seed} | " + " | ".join(cells) + f" | {group} | {'yes' if same else 'NO'} |", flush=True)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n{last - first} models, {disagree} disagreements, {time.time() - start:.0f} s; load average {load}; "
          f"{platform.machine()}, Python {platform.python_version()}.")


if __name__ == "__main__":
    main()
