"""Spin with and without our symmetry, same machine, same run: plain ``pan`` against the
``sympan`` that ``symdetect spin`` writes, both ``gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM=...``
(Spin run with ``-o1 -o2 -o3``), on Peterson's filter with ``_pid``-indexed arrays
(``models/peterson_pid.pml``, N = 4..7) and BEEM's Promela ``msmie.1``.  A run past the time
limit is stopped with SIGINT (pan then prints its counts so far); one past the memory bound
stops itself (``-DMEMLIM``): both are marked partial.

    python results/sympan_bench.py [--n 4 5 6 7] [--timeout 900] [--memlim 2048] [--output results/sympan_bench.md]
"""
from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEEM = ROOT.parent / "shared" / "corpus" / "beem" / "promela" / "msmie.1.pml"
NO_OPT = ("--spin-option=-o1", "--spin-option=-o2", "--spin-option=-o3")


@dataclass(frozen=True)
class Run:
    stored: int
    seconds: float
    memory_mb: float      # pan's "total actual memory usage"
    partial: str          # "" when complete, else why it stopped


def run_pan(exe: Path, timeout: float) -> Run:
    start = time.perf_counter()
    proc = subprocess.Popen([str(exe), "-m3000000", "-c0", "-n"], cwd=exe.parent, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    partial = ""
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)  # pan prints its counts on an interrupt
        out, _ = proc.communicate()
        partial = f"stopped at {timeout:.0f} s"
    seconds = time.perf_counter() - start
    if "MEMLIM" in out or "out of memory" in out:
        partial = "memory bound reached"
    if "Search not completed" in out and not partial:
        partial = "search not completed"
    stored = re.search(r"(\d+) states, stored", out)
    memory = re.search(r"([\d.]+)\s+total actual memory usage", out)
    return Run(int(stored.group(1)) if stored else 0, seconds, float(memory.group(1)) if memory else 0.0, partial)


def build(out: Path, source: str, memlim: int) -> Path:
    exe = out / Path(source).stem
    subprocess.run(["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", f"-DMEMLIM={memlim}", "-o", str(exe), source], cwd=out,
                   check=True, capture_output=True, timeout=600)
    return exe


def measure(model: Path, defines: tuple[str, ...], timeout: float, memlim: int) -> tuple[str, Run, Run]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        args = [sys.executable, "-m", "detect.cli", "spin", str(model), "-o", str(out), *NO_OPT]
        for d in defines:
            args += ["-D", d]
        made = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=3600)
        if made.returncode != 0:
            raise SystemExit(made.stderr)
        group = re.search(r"group of order ([\d,]+)", made.stdout).group(1)
        sympan = run_pan(build(out, "sympan.c", memlim), timeout)
        pan = run_pan(build(out, "pan.c", memlim), timeout)
    return group, sympan, pan


def cell(r: Run) -> str:
    flag = f" ({r.partial})" if r.partial else ""
    return f"{r.stored:,}{flag} | {r.seconds:.1f} | {r.memory_mb:,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="*", default=[4, 5, 6, 7])
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--memlim", type=int, default=2048)
    parser.add_argument("--output", default=None)
    args = parser.parse_args()
    cases = [(f"peterson_pid N={n}", ROOT / "models" / "peterson_pid.pml", (f"N={n}",)) for n in args.n]
    if BEEM.exists():
        cases.append(("BEEM msmie.1", BEEM, ()))
    lines = ["| model | group | sympan: states stored | s | MB | pan: states stored | s | MB | ratio |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, model, defines in cases:
        group, sympan, pan = measure(model, defines, args.timeout, args.memlim)
        ratio = f"{pan.stored / sympan.stored:,.1f}" if sympan.stored and not (pan.partial or sympan.partial) else ""
        lines.append(f"| {name} | {group} | {cell(sympan)} | {cell(pan)} | {ratio} |")
        print(lines[-1], flush=True)
    text = ("# Spin with and without our symmetry (`results/sympan_bench.py`)\n\n"
            f"Same machine, same run (2 cores shared with other jobs: seconds are wall-clock). "
            f"`gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM={args.memlim}`, `./pan -m3000000 -c0 -n` (the depth bound's "
            f"stack is part of the memory: about 170 MB in every run), Spin run with `-o1 -o2 -o3`; time "
            f"limit {args.timeout:.0f} s. MB: pan's \"total actual memory usage\".\n\n" + "\n".join(lines) + "\n")
    print(text)
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
