"""The LTL assertions of the third-party PAT CSP# corpus (issue 30): how many are checked.

    python results/pat_corpus_ltl.py [CORPUS_DIR] [-o results/pat_corpus_ltl.md] [--max-states N]

For each ``CORPUS_DIR/*.csp`` (default ``../shared/corpus/pat``) with a ``#assert ... |= ...``:
``symdetect explore --json --max-states N --timeout 300`` in a fresh process, and the verdict
of each LTL assertion (``holds``, ``fails``, ``unknown`` when a bound stopped it, ``not
checked``), or the file's refusal (the located one-line error).  Before issue 30 every one of
them was "not checked".
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's detect/frontends, not the installed ones
CORPUS = REPO.parent / "shared" / "corpus" / "pat"


def algorithm(text: str) -> str:
    """Which of PAT's LTL algorithms checks the assertion's formula, as we judge a deadlock
    for it (``detect.checking.temporal.pat_mode``): safety, co-safety or stutter."""
    from detect.checking.temporal import pat_mode
    from detect.errors import InputError
    from detect.ir import Proposition
    from frontends.csp.ltl import parse_formula

    def error(message, offset):
        return InputError(message)

    formula = text.split("|=", 1)[1].strip().rstrip(";")
    return pat_mode(parse_formula(formula, error, lambda atom, at: Proposition(atom, event=atom)).formula)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", nargs="?", default=str(CORPUS))
    ap.add_argument("-o", "--output", default=None)
    ap.add_argument("--max-states", type=int, default=3_000_000)
    args = ap.parse_args()
    rows = []
    totals = {"asserts": 0, "holds": 0, "fails": 0, "unknown": 0, "not checked": 0, "refused": 0}
    for path in sorted(Path(args.corpus).glob("*.csp")):
        text = path.read_text(encoding="utf-8", errors="replace")
        asserts = [m.group(0) for m in re.finditer(r"^\s*#assert[^;\n]*\|=[^;]*;", text, re.M)]
        if not asserts:
            continue
        start = time.time()
        env = dict(os.environ, SYMDETECT_MODEL_CACHE="off")
        run = subprocess.run([sys.executable, "-m", "detect.cli", "explore", str(path), "--json", "--no-trace",
                              "--max-states", str(args.max_states), "--timeout", "300"],
                             cwd=REPO, capture_output=True, text=True, env=env, timeout=900)
        seconds = time.time() - start
        totals["asserts"] += len(asserts)
        try:
            data = json.loads(run.stdout)
        except json.JSONDecodeError:
            error = (run.stderr.strip().splitlines() or ["no output"])[-1].replace(str(path.parent) + "/", "")
            totals["refused"] += len(asserts)
            rows.append(f"| `{path.name}` | {len(asserts)} | refused | {seconds:.1f} | `{error[:200]}` |")
            continue
        verdicts = {}
        for a in data["assertions"]:
            if a.get("kind") == "ltl":
                verdicts[a["text"]] = a["verdict"]
        # assertions about other processes are explored too: their verdicts are under "others"
        for other in (data.get("others") or {}).values():
            for a in other.get("assertions", []):
                if a.get("kind") == "ltl":
                    verdicts[a["text"]] = a["verdict"]
        counts: dict = {}
        for v in verdicts.values():
            counts[v] = counts.get(v, 0) + 1
            totals[v] = totals.get(v, 0) + 1
        shown = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
        detail = "; ".join(f"`{t.split('|=')[0].replace('#assert', '').strip()} |= "
                           f"{t.split('|=')[1].strip().rstrip(';')}` {v} ({algorithm(t)})" for t, v in verdicts.items())
        rows.append(f"| `{path.name}` | {len(asserts)} | {shown} | {seconds:.1f} | {detail} |")
    checked = totals["holds"] + totals["fails"]
    text = f"""# LTL assertions of the third-party PAT corpus (issue 30)

`python results/pat_corpus_ltl.py` on `{Path(args.corpus).name}/` (`explore --max-states {args.max_states:,}
--timeout 300`, shared 2-core machine).  **{checked} of {totals['asserts']} LTL assertions checked**
({totals['holds']} hold, {totals['fails']} fail); {totals['unknown']} unknown (a bound stopped the check),
{totals['not checked']} not checked, {totals['refused']} in files refused before any check (the refusals of
`results/pat_corpus.md`).  Before issue 30 all {totals['asserts']} were "not checked".

Each formula is followed by the PAT algorithm that decides how a deadlocked run counts
(README, "Deadlocks in LTL"): *safety* (syntactically safe: only a bad prefix fails it),
*co-safety* (its negation is: a deadlock before a good prefix fails it), *stutter* (the
deadlock's letter repeats).  The 4 refusals are PAT's too or a missing file: `p3.csp`'s
`Exchange() =` has no body (PAT's grammar needs a process after `=`), and `main.csp`
includes `rook.csp`, which is not in the corpus.  `Bandov`'s check needs a large bound: it
finds its bad prefix among about 2.7 million product states (at `--max-states 200,000` it
stopped "unknown").

| file | LTL asserts | verdicts | seconds | formulas |
|---|---:|---|---:|---|
""" + "\n".join(rows) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
