"""Unreduced exploration throughput: ``detect.statespace.explore`` against Spin on the same Promela file.

Run: ``python results/spin_throughput.py [MODEL.pml[:N=5,...]] ...`` (default: the corpus's
``sort.pml`` and ``models/peterson_filter.pml`` with N=5).  For each model, in the same run on
the same machine:

* Spin 6 (Debian ``spin``): ``spin -o1 -o2 -o3 -a``, ``gcc -O2 -DSAFETY -DNOREDUCE -DNOCLAIM``,
  ``./pan -m10000000 -c0 -n``; states stored and pan's own "elapsed time" (search only; the
  spin and gcc steps are timed separately);
* ours: ``detect.transform.load.load_model`` + ``detect.statespace.explore.explore_state_space`` (compile included in the explore time;
  the front end is timed separately), states and states/s.

Spin stores fewer states on models with ``atomic`` (see ``results/promela_corpus.md``), so the
rates are compared per state each tool actually generates and stores.  Prints a markdown table.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from detect.statespace.explore import explore_state_space  # noqa: E402
from detect.transform.load import load_model as load  # noqa: E402

DEFAULT = [
    (ROOT / ".." / "shared" / "corpus" / "spin" / "sort.pml", {}),
    (ROOT / "models" / "peterson_filter.pml", {"N": 5}),
]


def with_defines(path: Path, defines: dict) -> str:
    text = path.read_text()
    for k, v in defines.items():  # cpp lets the file's #define win over -D: edit the file's copy
        text = re.sub(rf"^#define\s+{k}\b.*$", f"#define {k} {v}", text, flags=re.M)
    return text


def run_spin(path: Path, defines: dict) -> dict:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "m.pml").write_text(with_defines(path, defines))
        start = time.perf_counter()
        subprocess.run(["spin", "-o1", "-o2", "-o3", "-a", "m.pml"], cwd=d, check=True, capture_output=True)
        subprocess.run(["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", "-DNOCLAIM", "-o", "pan", "pan.c"], cwd=d,
                       check=True, capture_output=True)
        build = time.perf_counter() - start
        start = time.perf_counter()
        out = subprocess.run(["./pan", "-m10000000", "-c0", "-n"], cwd=d, capture_output=True, text=True).stdout
        wall = time.perf_counter() - start
    states = int(re.search(r"(\d+) states, stored", out).group(1))
    elapsed = re.search(r"elapsed time ([\d.e+-]+) seconds", out)
    search = float(elapsed.group(1)) if elapsed else wall
    return {"states": states, "build": build, "search": max(search, 1e-6), "wall": wall}


def run_ours(path: Path, defines: dict) -> dict:
    start = time.perf_counter()
    model = load(str(path), defines)
    parse = time.perf_counter() - start
    result = explore_state_space(model)
    assert not result.truncated
    return {"states": result.states, "parse": parse, "search": result.seconds}


def parse_argument(arg: str):
    path, _, rest = arg.partition(":")
    defines = {k: int(v) for k, v in (item.split("=") for item in rest.split(",") if item)}
    return Path(path), defines


def main(args: list[str]) -> None:
    cases = [parse_argument(a) for a in args] or DEFAULT
    print(f"machine: {os.cpu_count()} cores; " + _cpu())
    print()
    print("| model | Spin states | Spin build s | Spin search s | Spin states/s | ours states | "
          "ours parse s | ours explore s | ours states/s | ours / Spin |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path, defines in cases:
        spin = run_spin(path, defines)
        ours = run_ours(path, defines)
        spin_rate = spin["states"] / spin["search"]
        our_rate = ours["states"] / ours["search"]
        name = path.stem + "".join(f" {k}={v}" for k, v in defines.items())
        print(f"| {name} | {spin['states']:,} | {spin['build']:.1f} | {spin['search']:.2f} | {spin_rate:,.0f} | "
              f"{ours['states']:,} | {ours['parse']:.1f} | {ours['search']:.1f} | {our_rate:,.0f} | "
              f"1/{spin_rate / our_rate:.1f} |", flush=True)


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


if __name__ == "__main__":
    main(sys.argv[1:])
