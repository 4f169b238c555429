"""Which Promela files of the shared corpus our front end refuses, and with what message
(issue 28): every ``.pml`` under ``../shared/corpus/spin`` (Spin's ``Examples/`` and the
others), ``../shared/corpus/beem/promela`` and TopSPIN's ``.p`` files in
``../shared/corpus/topspin``, each loaded (parsed and lowered, no exploration) in a child
process bounded by ``--cpu`` CPU seconds.

    python results/promela_refusals.py [--cpu 60] [-o results/promela_refusals.md]
"""
from __future__ import annotations

import argparse
import collections
import resource
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
CORPUS = HERE.parent / "shared" / "corpus"
_LOAD = ("import sys, warnings; warnings.simplefilter('ignore')\n"
         "from frontends.promela import parse_text\nfrom detect.errors import InputError\n"
         "try:\n    parse_text(open(sys.argv[1]).read(), sys.argv[1]); print('loads')\n"
         "except InputError as e:\n    print('refused:', e)\n")


def files() -> list[Path]:
    return (sorted((CORPUS / "spin").rglob("*.pml")) + sorted((CORPUS / "beem" / "promela").glob("*.pml"))
            + sorted((CORPUS / "topspin").glob("*.p")))


def load(path: Path, cpu: int) -> str:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))

    r = subprocess.run([sys.executable, "-c", _LOAD, str(path)], capture_output=True, text=True,
                       preexec_fn=limit, cwd=HERE)
    if r.returncode < 0:
        return f"past {cpu} CPU s"
    return r.stdout.strip() or "crash: " + (r.stderr.strip().splitlines() or ["?"])[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cpu", type=int, default=60)
    ap.add_argument("-o", "--output", type=Path, default=None)
    args = ap.parse_args()
    if not CORPUS.exists():
        sys.exit(f"{CORPUS} is absent")
    rows = [(p.relative_to(CORPUS), load(p, args.cpu)) for p in files()]
    kinds = collections.Counter(o.split(":")[0] for _, o in rows)
    md = [f"{len(rows)} files: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + ".", "",
          "| file | outcome |", "|---|---|"]
    md += [f"| {f} | {o.replace('|', '/').replace(str(CORPUS) + '/', '')} |" for f, o in rows if o != "loads"]
    text = "\n".join(md) + "\n"
    print(text)
    if args.output:
        args.output.write_text("# Promela files of the corpus our front end refuses\n\nPrinted by "
                               f"`python results/promela_refusals.py --cpu {args.cpu}` (see its docstring); "
                               "files that load are not listed.\n\n" + text)


if __name__ == "__main__":
    main()
