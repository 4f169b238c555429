"""Issue 15's table: the native explorer against Spin, CMurphi 5.4 and Rumur, same run.

Run: ``python results/native_bench.py [--quick]`` (``--quick``: smaller instances and no
N=7 rows, a few minutes; the full table takes ~15 minutes on an idle 2-core machine, most of
it CMurphi ``-sym1`` at N=7, which enumerates all 5,040 permutations per state).

Every tool runs as a child process, timed from outside (``os.wait4``: wall, user+system CPU,
peak RSS of that child), one after another, so the rows of a model share the machine's
state.  On a loaded machine quote the CPU columns; wall clocks then mostly measure the
scheduler.

* **Unreduced, against Spin** (peterson_filter N=5, ``sort``, ``pftp``, ``snoopy``: the corpus
  has no other Promela model of >= 500k states): Spin 6 as ``../shared/notes/peers.md`` says
  (``spin -o1 -o2 -o3 -a``; ``gcc -O2 -DSAFETY -DNOREDUCE -DNOCLAIM``; ``./pan -m10000000 -c0
  -n``; its own "elapsed time" and "total actual memory usage"); ours ``symdetect explore
  --engine native --workers 1 --json`` (its ``seconds``: the search, the C build not included;
  ``bytes_per_state``: what the explorer holds).  The C library is built by a warm-up run.
* **Unreduced, against CMurphi and Rumur** (n_peterson N=5, 6; german_small N=3, 4):
  CMurphi ``-nosym`` (its own "in X s", and its bytes/state: the hash table it allocates over
  the states it can hold); Rumur, when installed, ``--symmetry-reduction off`` single-threaded.
  n_peterson N=7 unreduced (~4e8 states) does not fit this machine and is not run.
* **Exact reduction** (n_peterson N=5, 6, 7): CMurphi ``-sym1`` (exact: one state per orbit)
  against ``symdetect explore --reduce exact --engine native --workers 1`` whole-process
  wall and CPU, parsing and symmetry detection included, the C build not (warm-up run).
* **--reduce graph** on token circulation (N=5): ours only.

CMurphi is built from ``../shared/peers/cmurphi-5.4-src.tar.gz`` into the cache
``tests/cmurphi.py`` uses; its models are compiled with ``g++ -O2``.  Missing peers are said
in a line and their rows skipped.  Prints markdown.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPUS = ROOT.parent / "shared" / "corpus"
N_PETERSON = CORPUS / "murphi" / "n_peterson.m"
GERMAN = ROOT / "models" / "murphi" / "german_small.m"
PROMELA = {
    "peterson_filter": ROOT / "models" / "peterson_filter.pml",
    "sort": CORPUS / "spin" / "sort.pml",
    "pftp": CORPUS / "spin" / "pftp.pml",
    "snoopy": CORPUS / "spin" / "snoopy.pml",
}
TOKEN = ROOT / "models" / "token_circulation.csp"


@dataclass(frozen=True)
class Run:
    """One child process: its exit code, what it printed, and the kernel's accounting."""

    code: int
    out: str
    wall: float
    cpu: float
    peak: int  # bytes


def run(cmd: list[str], cwd: Optional[Path] = None, env: Optional[dict] = None, timeout: float = 3600) -> Run:
    """``cmd`` as a child, timed from outside (wall, user+system CPU, peak RSS by ``wait4``)."""
    with tempfile.TemporaryFile(mode="w+") as out:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                child.kill()
                pid, status, usage = os.wait4(child.pid, 0)
                break
            time.sleep(0.01)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return Run(child.returncode, out.read(), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)


def ours(path: Path, defines: dict, *extra: str) -> tuple[Run, dict]:
    """``symdetect explore PATH --json`` from this tree, after a warm-up run that builds the C."""
    cmd = [sys.executable, "-m", "detect.cli", "explore", str(path), "--json", "--no-trace",
           *[a for k, v in defines.items() for a in ("-D", f"{k}={v}")], *extra]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run(cmd + ["--max-states", "30000"], env=env)  # builds (and caches) the model's library
    done = run(cmd, env=env)
    text = done.out
    return done, json.loads(text[text.index("{"):text.rindex("}") + 1])


def with_define(path: Path, defines: dict) -> str:
    """The Promela text with each ``#define NAME value`` replaced (cpp lets the file win over -D)."""
    text = path.read_text()
    for k, v in defines.items():
        text = re.sub(rf"^#define\s+{k}\b.*$", f"#define {k} {v}", text, flags=re.M)
    return text


def spin(path: Path, defines: dict) -> Optional[dict]:
    if shutil.which("spin") is None or shutil.which("gcc") is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "m.pml").write_text(with_define(path, defines))
        subprocess.run(["spin", "-o1", "-o2", "-o3", "-a", "m.pml"], cwd=d, check=True, capture_output=True)
        subprocess.run(["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", "-DNOCLAIM", "-o", "pan", "pan.c"],
                       cwd=d, check=True, capture_output=True)
        done = run(["./pan", "-m10000000", "-c0", "-n"], cwd=Path(d))
    out = done.out
    states = int(re.search(r"(\d+) states, stored", out).group(1))
    seconds = float(re.search(r"elapsed time ([\d.e+-]+) seconds", out).group(1))
    memory = float(re.search(r"([\d.]+)\s+total actual memory usage", out).group(1))
    return {"states": states, "seconds": max(seconds, 1e-6), "cpu": done.cpu,
            "bytes_per_state": memory * 2**20 / states}


def cmurphi_home() -> Optional[Path]:
    from tests.cmurphi import build, unavailable

    return None if unavailable() else build()


def cmurphi(home: Path, path: Path, constants: dict, flag: str, memory_mb: int, workdir: Path) -> dict:
    """CMurphi's states, its own search seconds, bytes/state (table it allocates / states it
    can hold) and the child's wall and CPU, for ``-nosym`` or ``-sym1``."""
    from tests.cmurphi import compile_model, with_constants

    name = f"{path.stem}_{'_'.join(f'{k}{v}' for k, v in constants.items())}"
    exe = workdir / name
    if not exe.exists():
        compile_model(home, with_constants(path.read_text(), constants), workdir, name, "-O2")
    done = run([str(exe), flag, "-ndl", f"-m{memory_mb}", "-pn"], cwd=workdir)
    found = re.search(r"(\d+) states, (\d+) rules fired in ([\d.]+)s", done.out)
    if found is None:
        raise RuntimeError(f"unexpected CMurphi output:\n{done.out[-2000:]}")
    table = re.search(r"hash table and state queue is\s+(\d+) Mbytes", done.out)
    capacity = re.search(r"maximum size of\s+the state space is (\d+) states", done.out)
    per_state = int(table.group(1)) * 1e6 / int(capacity.group(1)) if table and capacity else None
    return {"states": int(found.group(1)), "seconds": max(float(found.group(3)), 0.01), "wall": done.wall,
            "cpu": done.cpu, "bytes_per_state": per_state}


def rumur(path: Path, constants: dict, workdir: Path) -> Optional[dict]:
    """Rumur (Debian ``rumur``) without symmetry reduction, one thread; None if not installed."""
    from tests.cmurphi import with_constants

    if shutil.which("rumur") is None:
        return None
    name = f"rumur_{path.stem}_{'_'.join(f'{k}{v}' for k, v in constants.items())}"
    (workdir / f"{name}.m").write_text(with_constants(path.read_text(), constants))
    subprocess.run(["rumur", "--symmetry-reduction", "off", "--threads", "1", f"{name}.m", "-o", f"{name}.c"],
                   cwd=workdir, check=True, capture_output=True)
    subprocess.run(["cc", "-O3", "-o", name, f"{name}.c", "-lpthread"], cwd=workdir, check=True, capture_output=True)
    done = run([f"./{name}"], cwd=workdir)
    found = re.search(r"(\d+) states, \d+ rules fired", done.out)  # the summary, not a progress line
    if found is None:
        raise RuntimeError(f"unexpected Rumur output:\n{done.out[-2000:]}")
    return {"states": int(found.group(1)), "seconds": done.wall, "cpu": done.cpu,
            "bytes_per_state": done.peak / int(found.group(1))}


def attempt(peer: str, measure, *args) -> Optional[dict]:
    """``measure(*args)``, or None after printing why the peer failed (the table goes on)."""
    try:
        return measure(*args)
    except (RuntimeError, OSError, subprocess.CalledProcessError, AttributeError) as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        print(f"\n{peer} failed ({first}): its cells of the next row are empty.\n", flush=True)
        return None


def rate(states: int, seconds: float) -> str:
    return f"{states / seconds:,.0f}"


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "–"


def machine() -> str:
    cpu = "unknown CPU"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores, {cpu}, {mem:.0f} GB"


def load() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def spin_rows(quick: bool) -> None:
    print("### Unreduced: Spin pan against the native explorer (1 worker)\n")
    if shutil.which("spin") is None:
        print("Spin is not installed (Debian `spin`): rows skipped.\n")
        return
    print("| model | states | Spin search s | Spin states/s | Spin bytes/state | ours search s | ours states/s "
          "| ours CPU s (process) | ours bytes/state | states/s ours/Spin | bytes/state ours/Spin |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    cases = [("peterson_filter", {"N": 4 if quick else 5})]
    cases += [] if quick else [("sort", {}), ("pftp", {}), ("snoopy", {})]
    for name, defines in cases:
        path = PROMELA[name]
        if not path.exists():
            print(f"| {name} | not available at {path} |")
            continue
        theirs = attempt("Spin", spin, path, defines)
        if theirs is None:
            continue
        mine, data = ours(path, defines, "--engine", "native", "--workers", "1")
        label = name + "".join(f" {k}={v}" for k, v in defines.items())
        states = f"{data['states']:,}" + ("" if data["states"] == theirs["states"] else f" (Spin {theirs['states']:,})")
        print(f"| {label} | {states} | {theirs['seconds']:.2f} | {rate(theirs['states'], theirs['seconds'])} "
              f"| {theirs['bytes_per_state']:.0f} | {data['seconds']:.2f} | {rate(data['states'], data['seconds'])} "
              f"| {mine.cpu:.2f} | {data['bytes_per_state']:.0f} "
              f"| {ratio(data['states'] / data['seconds'], theirs['states'] / theirs['seconds'])} "
              f"| {ratio(data['bytes_per_state'], theirs['bytes_per_state'])} |", flush=True)
    print()


def murphi_rows(quick: bool, home: Optional[Path], workdir: Path) -> None:
    print("### Unreduced: CMurphi `-nosym` and Rumur against the native explorer (1 worker)\n")
    if home is None:
        print("CMurphi cannot be built here (no source tarball or compiler): its rows are skipped.\n")
    if shutil.which("rumur") is None:
        print("Rumur is not installed (`apt list --installed | grep -i rumur` is empty; Debian package "
              "`rumur`): its columns are skipped.\n")
    print("| model | states | CMurphi search s | CMurphi states/s | CMurphi bytes/state | Rumur s | Rumur states/s "
          "| ours search s | ours states/s | ours bytes/state | states/s ours/CMurphi | bytes/state ours/CMurphi |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    cases = [(N_PETERSON, {"N": n}) for n in ((4, 5) if quick else (5, 6))]
    cases += [(GERMAN, {"N": n}) for n in ((3,) if quick else (3, 4))]
    for path, defines in cases:
        if not path.exists():
            print(f"| {path.name} | not available at {path} |")
            continue
        label = f"{path.name} " + " ".join(f"{k}={v}" for k, v in defines.items())
        mine, data = ours(path, defines, "--engine", "native", "--workers", "1")
        cm = attempt("CMurphi", cmurphi, home, path, defines, "-nosym", 256 if quick else 2048, workdir) if home else None
        ru = attempt("Rumur", rumur, path, defines, workdir)
        ours_rate = data["states"] / data["seconds"]
        cells = [label, f"{data['states']:,}"]
        cells += ([f"{cm['seconds']:.2f}", rate(cm["states"], cm["seconds"]), f"{cm['bytes_per_state']:.0f}"]
                  if cm else ["–"] * 3)
        cells += [f"{ru['seconds']:.2f}", rate(ru["states"], ru["seconds"])] if ru else ["–", "–"]
        cells += [f"{data['seconds']:.2f}", f"{ours_rate:,.0f}", f"{data['bytes_per_state']:.0f}"]
        cells += ([ratio(ours_rate, cm["states"] / cm["seconds"]), ratio(data["bytes_per_state"], cm["bytes_per_state"])]
                  if cm else ["–", "–"])
        if cm and cm["states"] != data["states"]:
            cells[1] += f" (CMurphi {cm['states']:,})"
        print("| " + " | ".join(cells) + " |", flush=True)
    print()


def exact_rows(quick: bool, home: Optional[Path], workdir: Path) -> None:
    print("### Exact reduction: CMurphi `-sym1` against `--reduce exact` (whole process, detection included)\n")
    print("Ours twice: as by default (every generator checked on every expanded state: the "
          "successors of its image computed too) and with `--trust-symmetry` (no check, as CMurphi).\n")
    print("| model | ours | states | CMurphi search s | CMurphi wall s | CMurphi CPU s | ours search s "
          "| ours states/s (search) | ours wall s | ours CPU s | wall ours/CMurphi | CPU ours/CMurphi | method |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    if not N_PETERSON.exists():
        print(f"| n_peterson.m | not available at {N_PETERSON} |\n")
        return
    for n in ((4, 5) if quick else (5, 6, 7)):
        cm = attempt("CMurphi", cmurphi, home, N_PETERSON, {"N": n}, "-sym1", 256, workdir) if home else None
        for variant, extra in (("checked", ()), ("trusted", ("--trust-symmetry",))):
            mine, data = ours(N_PETERSON, {"N": n}, "--reduce", "exact", "--engine", "native", "--workers", "1", *extra)
            cells = [f"n_peterson.m N={n}", variant, f"{data['states']:,}"]
            if cm and cm["states"] != data["states"]:
                cells[2] += f" (CMurphi {cm['states']:,})"
            cells += [f"{cm['seconds']:.2f}", f"{cm['wall']:.2f}", f"{cm['cpu']:.2f}"] if cm else ["–"] * 3
            cells += [f"{data['seconds']:.2f}", rate(data["states"], data["seconds"]), f"{mine.wall:.2f}",
                      f"{mine.cpu:.2f}"]
            cells += [ratio(mine.wall, cm["wall"]), ratio(mine.cpu, cm["cpu"])] if cm else ["–", "–"]
            cells.append(data["method"])
            print("| " + " | ".join(cells) + " |", flush=True)
    print()


def graph_rows(quick: bool) -> None:
    print("### `--reduce graph` (ours only)\n")
    print("| model | states | search s | states/s | wall s | CPU s | method |")
    print("|---|---:|---:|---:|---:|---:|---|")
    n = 4 if quick else 5
    mine, data = ours(TOKEN, {"N": n}, "--reduce", "graph", "--workers", "1")
    print(f"| token_circulation.csp N={n} | {data['states']:,} | {data['seconds']:.2f} "
          f"| {rate(data['states'], data['seconds'])} | {mine.wall:.2f} | {mine.cpu:.2f} | {data['method']} |")
    print()


def main(quick: bool) -> None:
    from detect.statespace.native.build import compiler

    if compiler() is None:
        print("No C compiler: the native explorer cannot run; nothing to measure.")
        return
    print(f"Machine: {machine()}; load average before the run {load()}.\n")
    home = cmurphi_home()
    with tempfile.TemporaryDirectory(prefix="native-bench-") as tmp:
        workdir = Path(tmp)
        spin_rows(quick)
        murphi_rows(quick, home, workdir)
        exact_rows(quick, home, workdir)
        graph_rows(quick)
    print(f"Load average after the run {load()}.")


if __name__ == "__main__":
    main("--quick" in sys.argv)
