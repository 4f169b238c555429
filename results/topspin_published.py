"""TopSPIN's published reduced counts (exact strategy) against ``symdetect spin``'s verifier
and our explorer, on the three models of TopSPIN's suite the issue names.

The models are not in this repository (../shared/corpus/topspin/SOURCES.md keeps the rest of
TopSPIN's suite aside); give the directory holding copies of them, from the public
``afd/symmetrytools`` repository (TestModels/SymmReducerTests/mutex/enumerate_stabchain/mutex5.p,
.../threetiered/fast_noswaps/2s3cs.p, .../misc/pid_indexed_arrays/transpositions/reordered_byte.p):

    python results/topspin_published.py DIR [--output results/topspin_published.md]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "results"))

from sympan_corpus import NO_OPT, run_pan  # noqa: E402

from detect.checking.reduce import explore_reduced  # noqa: E402
from detect.checking.spin_counts import spin_stored_count  # noqa: E402
from detect.export.spin import spin_symmetry, write_verifier  # noqa: E402
from detect.symmetry.pipeline import detect  # noqa: E402
from detect.transform.load import load_model  # noqa: E402

#: TopSPIN's published reduced state counts (exact strategy)
PUBLISHED = {"mutex5.p": 12, "2s3cs.p": 2656, "reordered_byte.p": 117}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("--output", default=None)
    args = parser.parse_args()
    lines = ["| model | TopSPIN (published) | group | our explorer (`--reduce exact`) | ours, Spin's states up to "
             "symmetry | sympan stored | pan stored (unreduced) | sympan s | pan s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, published in PUBLISHED.items():
        path = Path(args.directory) / name
        if not path.exists():
            lines.append(f"| {name} | {published:,} | not found in {args.directory} | | | | | | |")
            continue
        seq = load_model(path, domain_states=1_000_000)
        detection = detect(seq, domain_states=1_000_000)
        explored = explore_reduced(seq, "exact", detection=detection).exploration
        ours = spin_stored_count(detection.model, group=detection.group).reduced
        sym = spin_symmetry(detection.model, detection.group, path.read_text())
        with tempfile.TemporaryDirectory() as tmp:
            write_verifier(str(path), (), tmp, sym, NO_OPT)
            sympan = run_pan(Path(tmp), "sympan.c", ("-DSAFETY", "-DNOREDUCE"))
            pan = run_pan(Path(tmp), "pan.c", ("-DSAFETY", "-DNOREDUCE"))
        lines.append(f"| {name} | {published:,} | {detection.group.order:,} | {explored.states:,} | {ours:,} | "
                     f"{sympan.stored:,} | {pan.stored:,} | {sympan.seconds:.2f} | {pan.seconds:.2f} |")
        print(lines[-1], flush=True)
    text = ("# TopSPIN's published reduced counts (`results/topspin_published.py`)\n\n"
            "Spin 6.5.2 run with `-o1 -o2 -o3` (no statement merging: each statement a step, as TopSPIN's "
            "counts and ours), `gcc -O2 -DSAFETY -DNOREDUCE`, `./pan -m10000000 -c0 -n`.\n\n" + "\n".join(lines) + "\n")
    print(text)
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
