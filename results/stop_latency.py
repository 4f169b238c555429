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

import json
import os
import resource
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


IN_PROCESS = r"""
import json, sys, threading, time, warnings
warnings.simplefilter("ignore")
from detect.cli import MemoryLimitReached, Run
from detect.statespace.explore import resident_bytes
from detect.symmetry.pipeline import detect
from detect.transform.load import load_model

limit = int(sys.argv[2])
model = load_model(sys.argv[1])
run = Run(sys.argv[1], None)
start = resident_bytes()
crossed, peak, done = [], [0], threading.Event()

def watch():  # the same measure as Run.memory_bound's, read every millisecond
    while not done.wait(0.001):
        grown = resident_bytes() - start
        peak[0] = max(peak[0], grown)
        if not crossed and grown > limit:
            crossed.append(time.perf_counter())

threading.Thread(target=watch, daemon=True).start()
began = time.perf_counter()
try:
    with run.memory_bound(limit):
        detect(model, graph_limit=None)
    stopped = time.perf_counter()
    outcome = "completed"
except MemoryLimitReached:
    stopped = time.perf_counter()
    run.disarm()  # first, as the command does: the alarm repeats until then
    outcome = "MemoryLimitReached"
done.set()
run.disarm()
print(json.dumps({"outcome": outcome, "latency": stopped - crossed[0] if crossed else None,
                  "seconds": stopped - began, "peak": peak[0]}))
"""


def memory_main() -> None:
    """Detection outgrowing ``--memory-limit``: in a process of its own, the time from the
    resident set's growth first passing the limit (read every millisecond, the measure
    ``Run.memory_bound`` reads every 20 ms) to ``MemoryLimitReached`` stopping detection;
    then the commands themselves: exit code, last line and peak resident set."""
    tmp = Path(tempfile.mkdtemp())
    scaled = tmp / "scaled.pml"
    scaled.write_text(SCALED)
    limit_text = f"{MEMORY_LIMIT >> 20}M"
    done = subprocess.run([sys.executable, "-c", IN_PROCESS, str(scaled), str(MEMORY_LIMIT)], cwd=ROOT,
                          capture_output=True, text=True)
    r = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"In process (detection of scaled.pml, --graph-limit lifted, limit {limit_text}): {r['outcome']} "
          f"{r['seconds']:.2f} s after detection began, {r['latency']:.3f} s after the growth passed the limit; "
          f"peak growth {r['peak'] / 2**20:.0f} MiB\n")
    print("| run | exit | wall (s) | peak resident (MiB) | last line |\n|---|---|---|---|---|")
    for label, args in [("scaled.pml analyze", ["analyze", str(scaled), "--graph-limit", "50000000"]),
                        ("scaled.pml explore --reduce exact",
                         ["explore", str(scaled), "--reduce", "exact", "--graph-limit", "50000000"])]:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "detect.cli", *args, "--memory-limit", limit_text],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stdout, stderr = proc.communicate()
        wall = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # the largest child so far
        lines = [line for line in (stderr + stdout).splitlines() if line.strip()]
        last = (lines[-1] if lines else "").replace(str(tmp) + "/", "")
        print(f"| {label} | {proc.returncode} | {wall:.1f} | {peak / 2**20:.0f} | {last.replace('|', '/')} |",
              flush=True)


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
