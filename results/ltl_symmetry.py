"""LTL checks with symmetry reduction by the group that keeps the formula (issue 30).

``python results/ltl_symmetry.py`` runs ``models/token_pool_ltl.pml`` with N = 3, 4, 5
clients: for each formula, ``symdetect explore --ltl NAME --reduce exact`` (the group and
why, the reduced states, the states of the quotient its acceptance cycles were looked for
on, seconds) beside ``--reduce none`` (the unreduced product graph's states) and ``pan -a -N
NAME`` (states stored, no partial-order reduction), with the three verdicts.  Prints a
Markdown table.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "models" / "token_pool_ltl.pml"


def ours(path: Path, name: str, reduce: str) -> tuple[dict, int, float]:
    start = time.time()
    r = subprocess.run([sys.executable, "-m", "detect.cli", "explore", str(path), "--ltl", name, "--reduce", reduce,
                        "--json", "--engine", "python"], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, SYMDETECT_MODEL_CACHE="off"))
    return json.loads(r.stdout), r.returncode, time.time() - start


def cycle_states(report: dict) -> str:
    """The states the acceptance check looked at, from its verdict's note."""
    for a in report.get("assertions", []):
        m = re.search(r"among ([\d,]+) (unreduced states|states of the quotient)", str(a.get("note", "")))
        if m:
            return m.group(1)
    return "?"


def pan(path: Path, name: str, work: Path) -> tuple[int, bool, float]:
    start = time.time()
    subprocess.run(["spin", "-o1", "-o2", "-o3", "-a", str(path)], cwd=work, capture_output=True, check=True)
    subprocess.run(["gcc", "-O2", "-w", "-DNOREDUCE", "-o", "pan", "pan.c"], cwd=work, check=True)
    out = subprocess.run(["./pan", "-a", f"-N{name}", "-m1000000"], cwd=work, capture_output=True, text=True).stdout
    stored = int(re.search(r"(\d+) states, stored", out).group(1))
    return stored, int(re.search(r"errors: (\d+)", out).group(1)) > 0, time.time() - start


def main() -> None:
    print("| N | formula | group used (of the model's) | reduced states | acceptance cycles: quotient / unreduced "
          "states | unreduced states | pan -a stored | verdict (reduced / unreduced / pan) "
          "| s reduced / unreduced / pan |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in (3, 4, 5):
        with tempfile.TemporaryDirectory() as d:
            work = Path(d)
            path = work / f"token_pool_{n}.pml"
            path.write_text(MODEL.read_text().replace("active [3] proctype client", f"active [{n}] proctype client"))
            for name in ("bounded", "busy", "served", "exclusive"):
                red, rc_red, t_red = ours(path, name, "exact")
                full, rc_full, t_full = ours(path, name, "none")
                stored, error, t_pan = pan(path, name, work)
                why = red.get("ltl symmetry", "")
                whole = re.search(r"order ([\d,]+)", why).group(1)
                verdicts = " / ".join("violated" if v else "holds" for v in (rc_red == 1, rc_full == 1, error))
                print(f"| {n} | {name} | {red['group_order']} of {whole} | {red['states']:,} | "
                      f"{cycle_states(red)} / {cycle_states(full)} | {full['states']:,} "
                      f"| {stored:,} | {verdicts} | {t_red:.1f} / {t_full:.1f} / {t_pan:.1f} |", flush=True)


if __name__ == "__main__":
    main()
