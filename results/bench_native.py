"""Unreduced exploration: the Python explorer, the native (C) explorer and Spin.

Run: ``python results/bench_native.py [--quick]``.  Rows: ``models/peterson_filter.pml`` N=5
(Python, native, Spin on the same file) and ``../shared/corpus/murphi/n_peterson.m`` N=5
(Python, native).  Each symdetect run is a fresh child process, so its peak RSS belongs to it:

* states, search seconds (``Exploration.seconds``; the native row's C compilation is timed
  separately, in a private cache directory, so it is a cold build), states/s;
* bytes/state: (peak RSS after exploring - RSS before exploring) / states; for the native
  row also what the explorer itself holds (packed states, parent indices, visited table);
* Spin 6: ``spin -o1 -o2 -o3 -a``, ``gcc -O2 -DSAFETY -DNOREDUCE -DNOCLAIM``,
  ``./pan -m10000000 -c0 -n``; "states, stored", pan's "elapsed time" and its "total actual
  memory usage" / states.

Prints a markdown table.  ``--quick`` uses N=4 (for a smoke test).
"""
from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PETERSON = ROOT / "models" / "peterson_filter.pml"
N_PETERSON = ROOT / ".." / "shared" / "corpus" / "murphi" / "n_peterson.m"


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child(engine: str, path: str, n: int) -> None:
    from detect.statespace.compile import compile_model
    from detect.statespace.explore import explore_state_space
    from detect.transform.load import load_model as load

    start = time.perf_counter()
    model = load(path, {"N": n})
    compiled = compile_model(model)
    parse = time.perf_counter() - start
    out = {"parse": parse}
    stats: dict = {}
    if engine == "native":
        from detect.statespace import native
        from detect.statespace.native import build

        with tempfile.TemporaryDirectory() as cache:
            os.environ["SYMDETECT_NATIVE_CACHE"] = cache
            t = time.perf_counter()
            native.load(model)
            out["compile"] = time.perf_counter() - t
            before = rss_bytes()
            result = native.explore_native(compiled, stats=stats)
    else:
        before = rss_bytes()
        result = explore_state_space(compiled, engine="python")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert not result.truncated
    out.update(states=result.states, transitions=result.transitions, seconds=result.seconds,
               rss_per_state=max(0, peak - before) / result.states,
               own_per_state=stats.get("bytes", 0) / result.states if stats else None)
    print(json.dumps(out))


def run_child(engine: str, path: Path, n: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, __file__, "--child", engine, str(path), str(n)],
                         capture_output=True, text=True, env=env, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def run_spin(path: Path, n: int) -> dict:
    text = re.sub(r"^#define\s+N\b.*$", f"#define N {n}", path.read_text(), flags=re.M)
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "m.pml").write_text(text)
        start = time.perf_counter()
        subprocess.run(["spin", "-o1", "-o2", "-o3", "-a", "m.pml"], cwd=d, check=True,
                       capture_output=True)
        subprocess.run(["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", "-DNOCLAIM", "-o", "pan", "pan.c"],
                       cwd=d, check=True, capture_output=True)
        build = time.perf_counter() - start
        out = subprocess.run(["./pan", "-m10000000", "-c0", "-n"], cwd=d, capture_output=True,
                             text=True).stdout
    states = int(re.search(r"(\d+) states, stored", out).group(1))
    transitions = int(re.search(r"(\d+) transitions", out).group(1))
    seconds = float(re.search(r"elapsed time ([\d.e+-]+) seconds", out).group(1))
    memory = float(re.search(r"([\d.]+)\s+total actual memory usage", out).group(1))
    return {"states": states, "transitions": transitions, "seconds": max(seconds, 1e-6),
            "compile": build, "rss_per_state": memory * 1024 * 1024 / states}


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    load = open("/proc/loadavg").read().split()[:3]
    return f"{os.cpu_count()} cores, {cpu}, {mem:.0f} GB; load average before the run {' '.join(load)}"


def main(quick: bool) -> None:
    n = 4 if quick else 5
    print(f"Machine: {machine()}.")
    print()
    print("| model | explorer | states | transitions | search s | states/s | bytes/state (RSS) "
          "| bytes/state (held) | build s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    rows = [
        (f"peterson_filter.pml N={n}", PETERSON, ("python", "native", "spin")),
        (f"n_peterson.m N={n}", N_PETERSON, ("python", "native")),
    ]
    for name, path, engines in rows:
        for engine in engines:
            r = run_spin(path, n) if engine == "spin" else run_child(engine, path, n)
            label = {"python": "symdetect Python", "native": "symdetect native",
                     "spin": "Spin 6 pan"}[engine]
            held = f"{r['own_per_state']:.0f}" if r.get("own_per_state") else "–"
            build = f"{r['compile']:.2f}" if "compile" in r else "–"
            print(f"| {name} | {label} | {r['states']:,} | {r['transitions']:,} | {r['seconds']:.2f} "
                  f"| {r['states'] / r['seconds']:,.0f} | {r['rss_per_state']:.0f} | {held} | {build} |",
                  flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main("--quick" in sys.argv)
