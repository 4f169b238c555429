"""The table of issue 16 ("never a traceback, never an overstated verdict"), rerun as the issue
wrote each row: every command in a fresh process of the checkout this script sits in, from a
scratch directory outside the repository (so ``bench`` finds nothing by the working
directory), with its exit code, the first line of what it printed, its CPU seconds
(user + sys of the child, ``os.wait4``) and peak resident set, and whether the outcome is the
one the README promises.

    python results/issue16_rows.py [--output results/issue16_rows.md]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parents[1]
TOKEN = str(REPO / "models" / "token_circulation.csp")
COUNTERS = """\
#define N 3000;
var lo[2]; var hi[2];
P(i) = [hi[i] - lo[i] == 0 && lo[i] < N] up.i{hi[i] = hi[i] + 1;} -> P(i)
    [] [hi[i] - lo[i] == 1] catch.i{lo[i] = lo[i] + 1;} -> P(i);
Sys() = ||| i:{0..1} @ P(i);
"""


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str
    cpu: float
    rss_mb: float
    wall: float = 0.0


def measured(args: list[str], cwd: str, stdout_file: Optional[str] = None,
             signal_after: Optional[float] = None) -> Outcome:
    """``symdetect ARGS`` in a fresh process (``signal_after`` seconds later it gets SIGTERM),
    reaped with ``os.wait4`` for its own CPU time and peak resident set."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err, \
            (open(stdout_file, "w+") if stdout_file else tempfile.TemporaryFile("w+")) as out:
        proc = subprocess.Popen([sys.executable, "-m", "detect.cli", *args], cwd=cwd, env=env, stdout=out,
                                stderr=err, text=True)
        if signal_after is not None:
            time.sleep(signal_after)
            proc.send_signal(signal.SIGTERM)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Outcome(proc.returncode, out.read(), err.read(), usage.ru_utime + usage.ru_stime,
                       usage.ru_maxrss / 1024, time.perf_counter() - start)


def shown_line(o: Outcome, key: str) -> str:
    """The first line of standard error, else the first of standard output containing ``key``."""
    for line in (o.stderr + "\n" + o.stdout).splitlines():
        if line.strip() and (line.startswith("symdetect:") or key in line):
            return line.strip()[:160]
    return ""


def digest(paths: list[Path]) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in paths)).hexdigest()[:12]


def rows(scratch: str) -> list[tuple[str, str, Outcome, bool, str]]:
    """(row of the issue, command as run, outcome, as the README promises, the line to show)."""
    s = Path(scratch)
    (s / "cond.pml").write_text("byte x; active proctype P() { x = (x > 0 -> 1 : 2) }\n")
    (s / "shift.pml").write_text("byte x; active proctype P() { x = 1 << 300 }\n")
    (s / "counters.csp").write_text(COUNTERS)
    (s / "deep.csp").write_text("var x : {0..3} = 0;\nP() = [x < 3] a{x = (x" + " + 1" * 3000 + ") % 4;} -> P();\n")
    out = []

    def row(issue_row: str, args: list[str], ok: Callable[[Outcome], bool], key: str = "", **kwargs) -> None:
        outcome = measured(args, scratch, **kwargs)
        traceback_free = "Traceback" not in outcome.stderr
        out.append((issue_row, "symdetect " + " ".join(a if len(a) < 40 else "…/" + Path(a).name for a in args),
                    outcome, traceback_free and ok(outcome), shown_line(outcome, key)))

    row("Promela conditional expression", ["analyze", "cond.pml"], lambda o: o.code == 0, "group order")
    row("Promela `1 << 300`", ["explore", "shift.pml"],
        lambda o: o.code == 1 and "shift by 300" in o.stdout, "fault at")
    row("`analyze --verify --max-states 100`, more states", ["analyze", TOKEN, "-D", "N=4", "--verify",
                                                             "--max-states", "100"],
        lambda o: o.code == 3 and "not a proof" in o.stdout and "verified" not in o.stdout, "verify:")
    row("`bench table2 --quick` outside the repository", ["bench", "table2", "--quick"],
        lambda o: o.code == 0 and sorted(p.name for p in s.iterdir()) == ["cond.pml", "counters.csp", "deep.csp",
                                                                          "shift.pml"], "│ Dining")
    row("CSP# front end gives up (nesting)", ["analyze", "deep.csp"],
        lambda o: o.code == 2 and o.stderr.count("\n") == 1 and ": )" not in o.stderr)
    row("CSP# model needing reachable-domain narrowing", ["analyze", "counters.csp"],
        lambda o: o.code == 2 and "raise --domain-states" in o.stderr)
    row("… the same with `--timeout 5`", ["analyze", "counters.csp", "--timeout", "5"],
        lambda o: o.code == 3 and "raise --timeout" in o.stderr)
    row("`analyze token_circulation.csp -D N=1000`", ["analyze", TOKEN, "-D", "N=1000"],
        lambda o: o.code == 2 and "state slots" in o.stderr)
    # The signal must come during the exploration, not while the model loads: time the loading.
    loading = measured(["explore", TOKEN, "-D", "N=14", "--max-states", "1", "--engine", "python"], scratch)
    report = str(s / "report.json")

    def interrupted_json(o: Outcome) -> bool:
        try:
            data = json.loads(o.stdout)
        except ValueError:
            return False
        return o.code == 3 and data["interrupted"] and data["states"] > 0

    row("SIGTERM during `explore --json > file`", ["explore", TOKEN, "-D", "N=14", "--json", "--engine", "python"],
        interrupted_json, '"interrupted"', stdout_file=report, signal_after=1.5 * loading.wall + 1.0)
    row("`explore --timeout` reached", ["explore", TOKEN, "-D", "N=10", "--timeout", "3", "--engine", "python"],
        lambda o: o.code == 3, "incomplete")
    row("`explore --max-states` reached", ["explore", TOKEN, "-D", "N=10", "--max-states", "10"],
        lambda o: o.code == 3, "incomplete")
    # Run where the committed tables are, so that a write by the working directory would hit them.
    committed = [REPO / "results" / "table1.md", REPO / "results" / "table1.csv"]
    before = digest(committed)
    outcome = measured(["bench", "table1", "--quick"], str(REPO / "results"))
    out.append(("`bench table1 --quick` (run in results/)", "symdetect bench table1 --quick", outcome,
                outcome.code == 0 and digest(committed) == before and "Traceback" not in outcome.stderr,
                f"results/table1.md and .csv {'unchanged' if digest(committed) == before else 'CHANGED'}"))
    return out


def table(results) -> str:
    lines = ["| issue row | command | exit | what it says | CPU s | peak RSS MB | as promised |",
             "|---|---|---|---|---|---|---|"]
    for issue_row, command, o, ok, line in results:
        shown = line.replace("|", "\\|")
        lines.append(f"| {issue_row} | `{command}` | {o.code} | {shown} | {o.cpu:.1f} | {o.rss_mb:.0f} | "
                     f"{'yes' if ok else '**no**'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=None, help="also write the table to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        results = rows(scratch)
    text = (f"Issue 16's table rerun ({time.strftime('%Y-%m-%d %H:%M')}, load average "
            f"{os.getloadavg()[0]:.1f})\n\n" + table(results))
    print(text)
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
