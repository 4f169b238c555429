"""Stop latency (issue 26, item 6): how long after its ``--timeout``, SIGINT or SIGTERM each run
ends, with its exit code and the last line it printed.  Usage (from the repository root):

    python results/stop_latency.py [SECONDS]
    python results/stop_latency.py --memory

Each run is stopped after SECONDS (default 4) and killed if still alive 20 s later; the
latency is the wall time from the deadline (or the signal) to the process's exit.  For
``--timeout`` the deadline is counted from the process's start, so its latency includes the
interpreter's start-up (~0.3-0.6 s on a loaded machine), which the program's own clock
does not see; a signal's latency is from the signal.  The
TopSPIN models are read from ../shared/corpus/topspin (skipped when absent).  With
``--memory``, runs whose detection outgrows ``--memory-limit`` instead (``memory_main``)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOPSPIN = ROOT.parent / "shared" / "corpus" / "topspin"
KILL_AFTER = 20.0


def cases() -> list[tuple[str, list[str]]]:
    tmp = Path(tempfile.mkdtemp())
    counter = tmp / "counter.pml"
    counter.write_text("init { byte i; do :: i++ od }\n")
    out = [("counter.pml explore", ["explore", str(counter)])]
    for name in ("badlytyped_email.p", "badlytyped_priority.p", "email4.p"):
        if (TOPSPIN / name).exists():
            path = str(TOPSPIN / name)
            out += [(f"{name} explore --reduce exact", ["explore", path, "--reduce", "exact"]),
                    (f"{name} analyze", ["analyze", path])]
    out.append(("token_circulation N=12 explore (python)",
                ["explore", str(ROOT / "models" / "token_circulation.csp"), "-D", "N=12", "--engine", "python"]))
    out.append(("milner N=16 explore (native)",
                ["explore", str(ROOT / "models" / "paper" / "milner.csp"), "-D", "N=16", "--engine", "native"]))
    return out


def measure(args: list[str], how: str, after: float) -> tuple[float, int, str, bool]:
    """(latency s, exit code, last line, traceback seen) of one run stopped by ``how``."""
    extra = ["--timeout", f"{after:g}"] if how == "timeout" else []
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "detect.cli", *args, *extra], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            # as at a terminal (a script's background job starts with SIGINT ignored)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    if how != "timeout":
        try:
            proc.wait(timeout=after)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGINT if how == "SIGINT" else signal.SIGTERM)
    try:
        stdout, stderr = proc.communicate(timeout=after + KILL_AFTER)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        return float("inf"), -9, "(killed)", False
    latency = time.perf_counter() - start - after  # negative: the run ended before it was stopped
    lines = [line for line in (stderr + stdout).splitlines() if line.strip()]
    return latency, proc.returncode, (lines[-1] if lines else "")[:150], "Traceback" in stderr


#: A scaled model whose detection outgrows memory (Spin's p337.pftp.ses needs #include files
#: the corpus lacks): reads and writes of a byte array through indices in 16 processes, a
#: coloured graph of 2.7 million nodes and 8 million edges (admitted by a raised
#: --graph-limit), several GB to build.
SCALED = """#define S 64
byte a[S];
active [16] proctype P() {
  byte i, j;
  do
  :: a[i] = a[j] + 1; j = a[i] % S; i = a[j] % S
  :: a[j] = a[i]; i = a[j] % S; j = a[i] / 4
  od
}
"""
MEMORY_LIMIT = 512 << 20


def rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def memory_stop(args: list[str], baseline: int) -> tuple[float, int, int, int, str]:
    """(latency s, exit code, peak resident bytes, resident bytes at the crossing, last line)
    of one run bounded by ``--memory-limit``: the latency is from the first moment (sampled
    every 5 ms) its resident set exceeds ``baseline`` plus the limit to its exit."""
    proc = subprocess.Popen([sys.executable, "-m", "detect.cli", *args, "--memory-limit", str(MEMORY_LIMIT)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    crossed, peak = None, 0
    while proc.poll() is None:
        now = rss(proc.pid)
        peak = max(peak, now)
        if crossed is None and now > baseline + MEMORY_LIMIT:
            crossed = time.perf_counter()
        time.sleep(0.005)
    ended = time.perf_counter()
    stdout, stderr = proc.communicate()
    lines = [line for line in (stderr + stdout).splitlines() if line.strip()]
    latency = ended - crossed if crossed is not None else float("nan")
    return latency, proc.returncode, peak, baseline + MEMORY_LIMIT, (lines[-1] if lines else "")[:170]


def memory_main() -> None:
    """Runs bounded by ``--memory-limit`` while detecting (the baseline: the peak resident
    set of ``linearise``, which loads the model and stops)."""
    tmp = Path(tempfile.mkdtemp())
    scaled = tmp / "scaled.pml"
    scaled.write_text(SCALED)
    proc = subprocess.Popen([sys.executable, "-m", "detect.cli", "linearise", str(scaled)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    baseline = usage.ru_maxrss * 1024
    print(f"baseline (linearise's peak resident set): {baseline / 2**20:.0f} MiB; "
          f"--memory-limit {MEMORY_LIMIT / 2**20:.0f}M\n")
    print("| run | latency (s) | exit | peak resident (MiB) | baseline + limit (MiB) | last line |\n|---|---|---|---|---|---|")
    for label, args in [("scaled.pml analyze", ["analyze", str(scaled), "--graph-limit", "50000000"]),
                        ("scaled.pml explore --reduce exact",
                         ["explore", str(scaled), "--reduce", "exact", "--graph-limit", "50000000"])]:
        latency, code, peak, bound, last = memory_stop(args, baseline)
        print(f"| {label} | {latency:.2f} | {code} | {peak / 2**20:.0f} | {bound / 2**20:.0f} | "
              f"{last.replace('|', '/')} |", flush=True)


def main() -> None:
    if sys.argv[1:] == ["--memory"]:
        memory_main()
        return
    after = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
    print(f"| run | stop | latency (s) | exit | traceback | last line |\n|---|---|---|---|---|---|")
    for label, args in cases():
        for how in ("timeout", "SIGINT", "SIGTERM"):
            latency, code, last, tb = measure(args, how, after)
            shown = f"{latency:.2f}" if latency >= 0 else f"(done {after + latency:.2f} s in all)"
            print(f"| {label} | {how} | {shown} | {code} | {'yes' if tb else 'no'} | "
                  f"{last.replace('|', '/')} |", flush=True)


if __name__ == "__main__":
    main()
