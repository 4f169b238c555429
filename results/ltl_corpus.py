"""Every ``ltl`` block of Spin's ``Examples/LTL`` (issue 30): Spin's verdict beside ours.

``python results/ltl_corpus.py [OUT.md [FILE.pml ...]]`` runs, for each block of each file of
``../shared/corpus/spin/Examples/LTL`` (after Spin's preprocessing of the file), ``pan -a``
(compiled without ``-DSAFETY``, ``-DNOREDUCE``; no fairness) on the file with only that block
(Spin 6.5.2 refuses a whole file where one block has ``X``), and ``symdetect explore --ltl
NAME`` unreduced and with ``--reduce exact`` (acceptance cycles on the quotient by the
formula's stabiliser).  Our runs are bounded (``--timeout``); a model our front end refuses
is listed with the located line it prints.  Writes the table to OUT.md (default: stdout);
with FILEs, only those files of the directory.
"""
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from frontends.promela.ltl import blocks  # noqa: E402
from frontends.promela.preprocess import preprocess  # noqa: E402
from tests.spin_oracle import SpinRefused, spin_ltl  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "spin" / "Examples" / "LTL"
TIMEOUT = 150
VERDICT = {0: "holds", 1: "violated", 3: "not decided (bound)"}


def only(text: str, name: str) -> str:
    """The preprocessed ``text`` with every ``ltl`` block but ``name`` blanked (lines kept)."""
    for b in reversed([b for b in blocks(text) if b.name != name]):
        text = text[:b.start] + "\n" * text.count("\n", b.start, b.end) + text[b.end:]
    return text


def ours(path: Path, name: str, reduce: str) -> tuple[str, str, float]:
    env = dict(os.environ, SYMDETECT_MODEL_CACHE="off")
    start = time.time()
    try:
        r = subprocess.run([sys.executable, "-m", "detect.cli", "explore", str(path), "--ltl", name, "--no-trace",
                            "--reduce", reduce, "--timeout", str(TIMEOUT)], cwd=ROOT, capture_output=True,
                           text=True, timeout=TIMEOUT + 60, env=env)
    except subprocess.TimeoutExpired:
        return "not decided (time)", "", time.time() - start
    seconds = time.time() - start
    if r.returncode == 2:
        return "refused", " ".join(r.stderr.strip().splitlines()[-1:])[:160], seconds
    states = re.search(r"│ states\s+│\s+([\d,]+)", r.stdout)
    # the formula's own verdicts (its claim's end, its acceptance cycles): a model with
    # progress labels exits 3 for those ("not checked") whatever the formula's verdict
    mine = re.findall(r"^assert ltl .*?\((?:never claim end|acceptance cycle)\): (\w+)", r.stdout, re.M)
    if r.returncode == 1:
        verdict = "violated"
    elif mine and all(v == "holds" for v in mine):
        verdict = "holds"
    else:
        verdict = VERDICT.get(r.returncode, f"exit {r.returncode}")
    return verdict, states.group(1) if states else "", seconds


def main(out: str | None, files: list[str]) -> None:
    rows = ["| file | ltl | formula | pan -a | ours | ours reduced (states) | note |",
            "|---|---|---|---|---|---|---|"]
    for path in sorted(CORPUS.glob("*.pml")):
        if files and path.name not in files:
            continue
        text = preprocess(path.read_text(), str(path), {}).text
        found = blocks(text)
        if not found:
            rows.append(f"| {path.name} | (none) | | | | | no ltl block |")
        for b in found:
            single = only(text, b.name)
            with tempfile.TemporaryDirectory() as d:
                try:
                    spin = "violated" if spin_ltl(single, Path(d), None if b.name.startswith("ltl_") else b.name,
                                                  timeout=TIMEOUT) else "holds"
                except (SpinRefused, subprocess.TimeoutExpired) as e:
                    spin = f"refused ({str(e)[:80]})"
                tmp = Path(d) / path.name
                tmp.write_text(single)
                plain, note, _ = ours(tmp, b.name, "none")
                note = note if plain == "refused" else ""
                reduced, states, _ = ours(tmp, b.name, "exact") if plain != "refused" else ("refused", "", 0)
                states = states if reduced != "refused" else ""
            formula = b.formula.replace("|", "\\|")
            note = note.replace(str(tmp), path.name).replace("|", "\\|")
            rows.append(f"| {path.name} | {b.name} | `{formula}` | {spin} | {plain} | {reduced}"
                        f"{f' ({states})' if states else ''} | {note} |")
            print(rows[-1], flush=True)
    table = "\n".join(rows) + "\n"
    if out:
        Path(out).write_text(table)
    else:
        print(table)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None, sys.argv[2:])
