"""Every ``ltl`` block of Spin's ``Examples/LTL`` (issue 30): Spin's verdict beside ours.

``python results/ltl_corpus.py [OUT.md [FILE.pml ...]]`` runs, for each block of each file of
``../shared/corpus/spin/Examples/LTL`` (after Spin's preprocessing of the file), ``pan -a``
(compiled without ``-DSAFETY``, ``-DNOREDUCE``; no fairness) on the file with only that block
(Spin 6.5.2 refuses a whole file where one block has ``X``), and ``symdetect explore --ltl
NAME`` unreduced and with ``--reduce exact`` (acceptance cycles on the quotient by the
formula's stabiliser).  Where Spin's translator refuses the formula (``X``), pan's
column is pan on the claim our tableau writes for it, as the model's never claim.  Our runs are bounded (``--timeout``); a model our front end refuses
is listed with the located line it prints.  Writes the table to OUT.md (default: stdout);
with FILEs, only those files of the directory (``FILE:NAME``: only that block of it).
With ``--cpu S``: pan and each of our runs bounded by S CPU seconds (RLIMIT_CPU) instead
of the wall-clock ``--timeout``, so the bound does not depend on the machine's load; our
column says "not decided (S CPU s)" where the bound stopped it, and the note the CPU
seconds each of our runs used.
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
from frontends.promela.ltl import blocks, spin_translation, tableau_claim  # noqa: E402
from frontends.promela.preprocess import preprocess  # noqa: E402
from tests.spin_oracle import SpinRefused, cpu_limited, spin_acceptance, spin_ltl  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "spin" / "Examples" / "LTL"
TIMEOUT = 150
VERDICT = {0: "holds", 1: "violated", 3: "not decided (bound)"}
#: ``--cpu``: the CPU-second bound of pan and of each of our runs (None: wall-clock TIMEOUT)
CPU: float | None = None


def only(text: str, name: str) -> str:
    """The preprocessed ``text`` with every ``ltl`` block but ``name`` blanked (lines kept)."""
    for b in reversed([b for b in blocks(text) if b.name != name]):
        text = text[:b.start] + "\n" * text.count("\n", b.start, b.end) + text[b.end:]
    return text


def ours(path: Path, name: str, reduce: str) -> tuple[str, str, float]:
    env = dict(os.environ, SYMDETECT_MODEL_CACHE="off")
    start, used = time.time(), os.times()
    wall = TIMEOUT if CPU is None else 20 * CPU  # with --cpu, the wall clock only guards a stuck run
    try:
        r = subprocess.run([sys.executable, "-m", "detect.cli", "explore", str(path), "--ltl", name, "--no-trace",
                            "--reduce", reduce, "--timeout", str(wall)], cwd=ROOT, capture_output=True,
                           text=True, timeout=wall + 60, env=env, preexec_fn=cpu_limited(CPU))
    except subprocess.TimeoutExpired:
        return "not decided (time)", "", time.time() - start
    after = os.times()
    seconds = time.time() - start if CPU is None else \
        after.children_user + after.children_system - used.children_user - used.children_system
    if CPU is not None and r.returncode < 0:
        return f"not decided ({CPU:.0f} CPU s)", "", seconds
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


def pan_on_tableau_claim(text: str, block, workdir: Path) -> str:
    """pan -a's verdict with our tableau's claim for ``block`` (Spin's translator refuses
    ``X``) as the model's never claim: the product we check, checked by pan."""
    try:
        printed = spin_translation(text)[1]
    except RuntimeError as e:
        printed = e.args[1]
    block = next(b for b in blocks(text) if b.name == block.name)  # its place in ``text``
    claimed = text[:block.start] + f"never {{ {tableau_claim(printed[block.name])} }}" + text[block.end:]
    try:
        return "violated" if spin_acceptance(claimed, workdir, timeout=TIMEOUT) else "holds"
    except (SpinRefused, subprocess.TimeoutExpired) as e:
        return f"refused ({str(e)[:60]})"


def main(out: str | None, files: list[str]) -> None:
    rows = ["| file | ltl | formula | pan -a | ours | ours reduced (states) | note |",
            "|---|---|---|---|---|---|---|"]
    for path in sorted(CORPUS.glob("*.pml")):
        if files and path.name not in files and not any(f.startswith(path.name + ":") for f in files):
            continue
        text = preprocess(path.read_text(), str(path), {}).text
        found = blocks(text)
        if not found:
            rows.append(f"| {path.name} | (none) | | | | | no ltl block |")
        for b in found:
            if files and path.name not in files and f"{path.name}:{b.name}" not in files:
                continue
            single = only(text, b.name)
            with tempfile.TemporaryDirectory() as d:
                try:
                    spin = "violated" if spin_ltl(single, Path(d), None if b.name.startswith("ltl_") else b.name,
                                                  timeout=TIMEOUT if CPU is None else 20 * CPU, cpu=CPU) \
                        else "holds"
                except (SpinRefused, subprocess.TimeoutExpired) as e:
                    spin = f"refused ({str(e)[:80]})"
                    if re.search(r"\bX\b", b.formula):
                        # Spin's translator refuses X: pan on the claim our tableau writes
                        spin = f"refused (X); on our claim: {pan_on_tableau_claim(single, b, Path(d))}"
                tmp = Path(d) / path.name
                tmp.write_text(single)
                plain, note, used = ours(tmp, b.name, "none")
                note = note if plain == "refused" else ""
                reduced, states, used_reduced = ours(tmp, b.name, "exact") if plain != "refused" else ("refused", "", 0)
                if CPU is not None and plain != "refused":
                    note = f"ours {used:.0f} CPU s, reduced {used_reduced:.0f} CPU s"
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
    args = sys.argv[1:]
    if "--cpu" in args:
        at = args.index("--cpu")
        CPU = float(args[at + 1])
        del args[at:at + 2]
    main(args[0] if args else None, args[1:])
