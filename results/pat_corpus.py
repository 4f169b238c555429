"""Third-party PAT CSP# models (issue 12) through ``symdetect analyze``.

    python results/pat_corpus.py [CORPUS_DIR] [-o results/pat_corpus.md] [--max-states N]

One row per ``CORPUS_DIR/*.csp`` (default ``../shared/corpus/pat``, files kept byte for byte
as their authors committed them; ``SOURCES.md`` there says where each comes from):

* ``analyze`` at default settings, in a fresh process: wall seconds (parsing, linearising,
  domains and detection; the machine is shared, so they are an upper bound), the group
  order, or the refusal -- a located one-line error;
* ``analyze --verify --max-states N --partial-ok``: the reachable states explored and
  whether every generator passed on them ("bounded" when the state space is larger than N).

A file is expected to refuse only for a reason listed in ``pat_corpus_refusals.json`` (the
test ``tests/test_pat_corpus.py`` checks the same list).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "pat"
#: The issue asks for at most 60 s at default settings; a run is stopped only after
#: ``RUN_TIMEOUT`` so that a slow file shows its time instead of a timeout.
TARGET = 60.0
RUN_TIMEOUT = 600.0

#: file -> (text the refusal must contain, why the file cannot be analysed); kept as data in
#: ``pat_corpus_refusals.json``, which ``tests/test_pat_corpus.py`` reads too.
REFUSALS = {name: (r["refusal"], r["why"]) for name, r in
            json.loads((REPO / "results" / "pat_corpus_refusals.json").read_text(encoding="utf-8")).items()}


@dataclass(frozen=True)
class Run:
    seconds: float
    data: Optional[dict]   # analyze --json output
    error: str             # the refusal (stderr's last line) or why the run stopped


def analyze(path: Path, extra: list[str], timeout: float) -> Run:
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONWARNINGS="ignore")
    cmd = [sys.executable, "-m", "detect.cli", "analyze", "--json", *extra, str(path)]
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=REPO)
    except subprocess.TimeoutExpired:
        return Run(time.perf_counter() - start, None, f"no answer within {timeout:.0f} s")
    seconds = time.perf_counter() - start
    try:
        return Run(seconds, json.loads(done.stdout), "")
    except json.JSONDecodeError:
        lines = [x for x in done.stderr.strip().splitlines() if x.strip()]
        message = lines[-1] if lines else f"exit {done.returncode}"
        return Run(seconds, None, message.replace(str(path.parent) + "/", ""))


def row(path: Path, max_states: int) -> dict:
    plain = analyze(path, [], RUN_TIMEOUT)
    out = {"file": path.name, "seconds": plain.seconds, "states": "", "group": "", "outcome": ""}
    expected = REFUSALS.get(path.name)
    if plain.data is None:
        ok = expected is not None and expected[0] in plain.error
        why = f" ({expected[1]})" if ok else " — NOT A DOCUMENTED REFUSAL"
        out["outcome"] = f"refused: `{plain.error.split(': ', 1)[-1]}`{why}"
        out["analysed"] = False
        return out
    out["group"] = plain.data["group_order"]
    checked = analyze(path, ["--verify", "--max-states", str(max_states), "--partial-ok"], RUN_TIMEOUT)
    if checked.data is None:
        out["outcome"] = f"analysed; --verify: {checked.error}"
    else:
        v = checked.data["verify"]
        out["states"] = f"{v['states']:,}" + ("" if v["complete"] else f" (bounded at {max_states:,})")
        verdict = "passed" if v["ok"] else "FAILED"
        out["outcome"] = f"analysed; --verify {verdict} on {'all' if v['complete'] else 'the explored'} reachable states"
    out["analysed"] = True
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", default=str(CORPUS))
    ap.add_argument("-o", "--output", default=str(REPO / "results" / "pat_corpus.md"))
    ap.add_argument("--max-states", type=int, default=200_000)
    args = ap.parse_args(argv)
    files = sorted(Path(args.corpus).glob("*.csp"))
    if not files:
        print(f"no .csp files in {args.corpus}", file=sys.stderr)
        return 2
    rows = []
    load_before = os.getloadavg()[0]
    for path in files:
        r = row(path, args.max_states)
        print(f"{r['file'][:60]:60} {r['seconds']:6.1f}s  {r['outcome'][:100]}", flush=True)
        rows.append(r)
    analysed = sum(r["analysed"] for r in rows)
    slow = [r["file"] for r in rows if r["seconds"] > TARGET]
    load_after = os.getloadavg()[0]
    lines = [
        "# Third-party PAT CSP# models (issue 12)",
        "",
        f"Printed by `python results/pat_corpus.py` on {len(files)} files of `{Path(args.corpus).name}/` "
        "(see its `SOURCES.md`). *seconds*: wall time of `symdetect analyze` at default settings in a "
        f"fresh process, on a machine shared with other jobs (load average {load_before:.1f} at the start, "
        f"{load_after:.1f} at the end, on {os.cpu_count()} cores: an upper bound). *states*: reachable states "
        f"explored by `analyze --verify --max-states {args.max_states:,} --partial-ok`.",
        "",
        f"**{analysed} of {len(files)} analyse**; the others refuse with a located error naming the "
        f"construct or the missing include. Slower than {TARGET:.0f} s: {', '.join(slow) or 'none'}.",
        "",
        "| file | states | group order | seconds | outcome |",
        "|---|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(f"| `{r['file']}` | {r['states']} | {r['group']} | {r['seconds']:.1f} | {r['outcome']} |")
    Path(args.output).write_text("\n".join(lines) + "\n")
    print(f"{analysed}/{len(files)} analysed; wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
