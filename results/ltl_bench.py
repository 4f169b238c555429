"""Peterson's filter lock for N=5 under LTL (issue 30): our reduced check against pan -a.

``python results/ltl_bench.py [N]`` writes ``models/peterson_filter.pml`` with ``N`` (default 5)
and two formulas -- ``safe`` ``[] (incs <= 1)`` and ``leave`` ``[] (incs == 1 -> <> (incs ==
0))``, both symmetric under every permutation of the users -- to a scratch directory, then,
one after the other on the same machine, for each formula:

* ``pan -a -N name`` (``spin -a``; ``gcc -O2 -DNOREDUCE``: no partial-order reduction, no
  symmetry; no fairness), its "states, stored" and verdict;
* ``symdetect explore --ltl name --reduce exact`` (the group detected on the product with the
  formula's claim, S_N; acceptance cycles on the quotient by it), its states (reduced), the
  quotient's states and verdict;

each under ``/usr/bin/time`` (user+system CPU seconds and wall seconds of the whole process:
pan's compile is timed apart).  Prints a Markdown table.
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORMULAS = {"safe": "[] (incs <= 1)", "leave": "[] (incs == 1 -> <> (incs == 0))"}


def timed(cmd: list[str], cwd: Path, env=None) -> tuple[str, float, float, int]:
    """``(output, cpu seconds, wall seconds, exit code)`` of ``cmd`` under /usr/bin/time."""
    r = subprocess.run(["/usr/bin/time", "-f", "TIME %U %S %e %M", *cmd], cwd=cwd, capture_output=True, text=True,
                       env=env, timeout=7200)
    m = re.search(r"TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)", r.stderr)
    return r.stdout + r.stderr, float(m.group(1)) + float(m.group(2)), float(m.group(3)), r.returncode


def main(n: int) -> None:
    text = (ROOT / "models" / "peterson_filter.pml").read_text().replace("#define N 3", f"#define N {n}")
    text += "".join(f"ltl {k} {{ {f} }}\n" for k, f in FORMULAS.items())
    env = dict(os.environ, SYMDETECT_MODEL_CACHE="off")
    rows = [f"| formula | tool | states | verdict | CPU s | wall s |", "|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        (work / "pf.pml").write_text(text)
        subprocess.run(["spin", "-a", "pf.pml"], cwd=work, check=True, capture_output=True)
        out, cpu, wall, _ = timed(["gcc", "-O2", "-w", "-DNOREDUCE", "-DMEMLIM=8192", "-o", "pan", "pan.c"], work)
        rows.append(f"| (compile pan.c) | gcc -O2 | | | {cpu:.2f} | {wall:.1f} |")
        for name, formula in FORMULAS.items():
            out, cpu, wall, _ = timed(["./pan", "-a", "-m10000000", f"-N{name}"], work)
            stored = re.search(r"(\d+) states, stored", out).group(1)
            errors = int(re.search(r"errors: (\d+)", out).group(1))
            rows.append(f"| `{formula}` | pan -a (unreduced) | {int(stored):,} stored | "
                        f"{'violated' if errors else 'holds'} | {cpu:.2f} | {wall:.1f} |")
            print(rows[-1], flush=True)
            out, cpu, wall, code = timed([sys.executable, "-m", "detect.cli", "explore", str(work / "pf.pml"),
                                          "--ltl", name, "--reduce", "exact", "--no-trace", "--max-states",
                                          "5000000"], ROOT, env)
            states = re.search(r"│ states\s+│\s+([\d,]+)", out).group(1)
            quotient = re.search(r"among ([\d,]+) states of the quotient by the symmetry group \(order ([\d,]+)\)", out)
            spin_like = re.search(r"│ group_order\s+│\s+([\d,]+)", out).group(1)
            verdict = {0: "holds", 1: "violated"}.get(code, f"exit {code}")
            rows.append(f"| `{formula}` | symdetect --reduce exact (group order {spin_like}) | {states} "
                        f"(quotient for cycles: {quotient.group(1) if quotient else '?'}) | {verdict} | "
                        f"{cpu:.2f} | {wall:.1f} |")
            print(rows[-1], flush=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
