"""Issue 15's table: the native explorer against Spin, CMurphi 5.4 and Rumur, same run.

Run: ``python results/native_bench.py [--quick] [--only TEXT]`` (``--quick``: smaller
instances and no N=7 rows, a few minutes; ``--only``: just the rows whose model label
contains TEXT, e.g. ``BEEM`` or ``german``; the full table takes ~20 minutes on an idle 2-core
machine, most of it CMurphi ``-sym1`` at N=7, which enumerates all 5,040 permutations per
state, and Rumur at n_peterson N=6, ~4 minutes).

Every tool runs as a child process, timed from outside (``os.wait4``: wall, user+system CPU,
peak RSS of that child), one after another, so the rows of a model share the machine's
state.  On a loaded machine quote the CPU columns; wall clocks then mostly measure the
scheduler.

* **Unreduced, against Spin** (peterson_filter N=5, ``sort``, ``pftp``, ``snoopy``, and three
  BEEM models scaled past 500k states, see below): Spin 6 as ``../shared/notes/peers.md`` says
  (``spin -o1 -o2 -o3 -a``; ``gcc -O2 -DSAFETY -DNOREDUCE -DNOCLAIM``; ``./pan -m10000000 -c0
  -n``; its own "elapsed time" and "total actual memory usage", which includes the depth-first
  stack ``-m`` reserves); ours ``symdetect explore --engine native --workers 1 --json`` (its
  ``seconds``: the search, the C build not included; ``bytes_per_state``: what the explorer
  holds).  The C library is built by a warm-up run.
* **BEEM instances.** The corpus's BEEM Promela files (``../shared/corpus/beem/promela``) are
  small (<= 12,498 states) and have no ``#define``: their size is written out (one ``active
  proctype`` per process, array bounds, an init stacking the disks).  Three are scaled by
  their size alone: ``hanoi.1.pml`` from 8 to 12 disks (the pegs' bounds ``a[9]`` .. ``c[9]``
  and ``a_act=9`` at the top, and the init's stack ``a[k+1] = 8-k``); ``peterson.1.pml`` from
  3 to 4 processes and ``phils.1.pml`` from 4 to 12 philosophers (array bounds at the top,
  and the proctypes regenerated from BEEM's one template: every integer literal that differs
  between the processes is the process index plus an offset mod N, every one equal to N is
  N; ``replicate`` refuses a file where that does not hold).  Each scaling gives the file back
  byte for byte at its own size.  Of the others, bakery.1.pml scales the same way but jumps
  from 139,469 states (N=3) to 14,574,682 (N=4); phils.2.pml stays small (3,297 states at 8
  philosophers: at most 3 are inside); fischer.1.pml and msmie.1.pml spell their process
  count out in init, the timer process and every buffer test, so no size parameter scales them.
* **Unreduced, against CMurphi and Rumur** (n_peterson N=5, 6; german_small N=3, 4):
  CMurphi ``-nosym`` (its own "in X s", CPU seconds by ``times()``, and its bytes/state: the
  hash table it allocates over the states it can hold), against ours' CPU seconds of the
  search (``cpu_seconds``); Rumur, when installed, ``--symmetry-reduction off
  --deadlock-detection off`` single-threaded (see ``rumur``: the model files need no edit;
  states/s over its CPU seconds, as it reports whole seconds; bytes/state held at the end).
  n_peterson N=7 unreduced (~4e8 states) does not fit this machine and is not run.
* **Exact reduction** (n_peterson N=5, 6, 7): CMurphi ``-sym1`` (exact: one state per orbit)
  against ``symdetect explore --reduce exact --engine native --workers 1`` whole-process
  wall and CPU, symmetry detection included, the C build not (warm-up run, which also leaves
  the caches an installed tool keeps: bytecode, the linearised model, lark's parser, cffi's
  module); a third row with the model cache off parses again.  CMurphi gets a table of
  ``SYM1_MB``; ``table_rows`` shows its N=5 time by table size.
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
from typing import Callable, Optional

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


def ours(path: Path, defines: dict, *extra: str, env_extra: Optional[dict] = None) -> tuple[Run, dict]:
    """``symdetect explore PATH --json`` from this tree, after a warm-up run that builds the C;
    a run under ``SHORT`` seconds is repeated (``median_run``)."""
    cmd = [sys.executable, "-m", "detect.cli", "explore", str(path), "--json", "--no-trace",
           *[a for k, v in defines.items() for a in ("-D", f"{k}={v}")], *extra]
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env_extra or {}))
    # As installed: bytecode compiled once (pip does it), not each module recompiled from
    # source by every run (~0.1 s) when the calling environment sets PYTHONDONTWRITEBYTECODE.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # Builds (and caches) the model's library, its linearised model, lark's parser, cffi's
    # module and the bytecode.
    run(cmd + ["--max-states", "30000"], env=env)
    done = median_run(lambda: run(cmd, env=env))
    text = done.out
    return done, json.loads(text[text.index("{"):text.rindex("}") + 1])


#: Runs shorter than this (seconds of wall) are measured ``REPEATS`` times and the median
#: taken: start-up dominates them, and one run varies by ~0.03 s with the machine's state.
SHORT, REPEATS = 2.0, 5


def median_run(once: Callable[[], Run]) -> Run:
    """``once()``; when it took under ``SHORT`` s, the run of median wall of ``REPEATS``."""
    first = once()
    if first.wall >= SHORT:
        return first
    runs = sorted([first] + [once() for _ in range(REPEATS - 1)], key=lambda r: r.wall)
    return runs[len(runs) // 2]


def with_define(path: Path, defines: dict) -> str:
    """The Promela text with each ``#define NAME value`` replaced (cpp lets the file win over -D)."""
    text = path.read_text()
    for k, v in defines.items():
        text = re.sub(rf"^#define\s+{k}\b.*$", f"#define {k} {v}", text, flags=re.M)
    return text


def spin(text: str) -> Optional[dict]:
    """Spin's states, its own search seconds and memory for the Promela ``text``."""
    if shutil.which("spin") is None or shutil.which("gcc") is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "m.pml").write_text(text)
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


BEEM = CORPUS / "beem" / "promela"
NUMBER = re.compile(r"\d+")


def replicate(text: str, n0: int, n: int) -> str:
    """A BEEM Promela file of ``n0`` processes (declarations, then ``active proctype X_0`` ..
    ``X_{n0-1}``) scaled to ``n``: BEEM generates each process from one template, so the
    proctypes must share their text but for integer literals, each of which is, across the
    processes, either a constant (one equal to ``n0`` is the process count and becomes ``n``)
    or the process's index plus a fixed offset modulo ``n0`` (``fork[(i+1)%N]``); array bounds
    ``[n0]`` in the declarations become ``[n]``.  Anything else raises ValueError.  At ``n0`` the
    result is the file itself (checked by ``beem_instances``)."""
    parts = re.split(r"(?=^active proctype )", text, flags=re.M)
    header, blocks = parts[0], parts[1:]
    if len(blocks) != n0:
        raise ValueError(f"{len(blocks)} proctypes, not {n0}")
    skeleton = NUMBER.split(blocks[0])
    if any(NUMBER.split(b) != skeleton for b in blocks):
        raise ValueError("the proctypes differ in more than their integer literals")
    columns = list(zip(*([int(x) for x in NUMBER.findall(b)] for b in blocks)))

    def literal(values: tuple, k: int) -> int:
        if len(set(values)) == 1:
            return n if values[0] == n0 else values[0]
        if any(v != (i + values[0]) % n0 for i, v in enumerate(values)):
            raise ValueError(f"a literal is neither constant nor an index across the proctypes: {values}")
        return (k + values[0]) % n

    def process(k: int) -> str:
        return skeleton[0] + "".join(f"{literal(values, k)}{piece}" for values, piece in zip(columns, skeleton[1:]))

    return header.replace(f"[{n0}]", f"[{n}]") + "".join(process(k) for k in range(n))


def hanoi(text: str, disks: int) -> str:
    """BEEM's hanoi.1.pml with ``disks`` disks: the pegs' array bounds and ``a_act`` (disks + 1)
    at the top, and the init's ``d_step`` that stacks the disks on peg a (``a[k+1] = D-k``)."""
    declared = re.search(r"^byte a_act=(\d+);", text, flags=re.M)
    if declared is None:
        raise ValueError("no 'byte a_act=' declaration: not hanoi.1.pml")
    d0 = int(declared.group(1)) - 1

    def stack(d: int) -> str:
        return " ".join(["a[0] =100;", *(f"a[{k + 1}] ={d}-{k};" for k in range(d)),
                         *(f"{peg}[{k}] ={100 if k == 0 else 0};" for peg in "bc" for k in range(d + 1))])

    if stack(d0) not in text:
        raise ValueError("hanoi.1.pml's init is not the stack of disks expected")
    text = re.sub(rf"^byte ([abc])\[{d0 + 1}\];", rf"byte \1[{disks + 1}];", text.replace(stack(d0), stack(disks)),
                  flags=re.M)
    return text.replace(f"byte a_act={d0 + 1};", f"byte a_act={disks + 1};")


def beem_instances(quick: bool) -> list[tuple[str, str]]:
    """(label, Promela text) of the larger BEEM instances: the corpus files (<= 12,498 states)
    with only their size changed, each scaling checked to give the file back at its own size.
    Full: hanoi 12 disks (531,443 states), peterson 4 processes (1,119,560), phils 12
    philosophers (531,440); quick: 10 disks, 3 processes (the file), 10 philosophers."""
    sizes = ((10, 3, 10) if quick else (12, 4, 12))
    scalings = [("hanoi.1.pml", "disks", 8, sizes[0], hanoi),
                ("peterson.1.pml", "N", 3, sizes[1], lambda t, n: replicate(t, 3, n)),
                ("phils.1.pml", "N", 4, sizes[2], lambda t, n: replicate(t, 4, n))]
    found = []
    for name, what, own, size, scale in scalings:
        text = (BEEM / name).read_text()
        if scale(text, own) != text:
            raise ValueError(f"scaling {name} to its own size does not give the file back")
        found.append((f"BEEM {name} {what}={size} (file: {own})", scale(text, size)))
    return found


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
    done = median_run(lambda: run([str(exe), flag, "-ndl", f"-m{memory_mb}", "-pn"], cwd=workdir))
    found = re.search(r"(\d+) states, (\d+) rules fired in ([\d.]+)s", done.out)
    if found is None:
        raise RuntimeError(f"unexpected CMurphi output:\n{done.out[-2000:]}")
    table = re.search(r"hash table and state queue is\s+(\d+) Mbytes", done.out)
    capacity = re.search(r"maximum size of\s+the state space is (\d+) states", done.out)
    per_state = int(table.group(1)) * 1e6 / int(capacity.group(1)) if table and capacity else None
    return {"states": int(found.group(1)), "seconds": max(float(found.group(3)), 0.01), "wall": done.wall,
            "cpu": done.cpu, "bytes_per_state": per_state}


RUMUR_SLOT_BYTES = 8  # its seen set's slot_t is a uintptr_t on x86-64 (a compressed state pointer)


def rumur(path: Path, constants: dict, workdir: Path) -> Optional[dict]:
    """Rumur (Debian ``rumur``) without symmetry reduction or deadlock detection (as CMurphi
    ``-ndl``), one thread: its states, the child's wall and CPU, and the bytes it holds at the
    end per state (see ``rumur_held``); None if not installed.

    The model text is the file with its constants set (``with_constants``), nothing else:
    n_peterson.m and german_small.m are in Rumur's dialect as they stand.  The verifier is
    generated with ``--trace memory_usage``, which only counts the state structures it keeps
    (a counter, no output until the end) so that it can report their bytes."""
    from tests.cmurphi import with_constants

    if shutil.which("rumur") is None:
        return None
    name = f"rumur_{path.stem}_{'_'.join(f'{k}{v}' for k, v in constants.items())}"
    (workdir / f"{name}.m").write_text(with_constants(path.read_text(), constants))
    subprocess.run(["rumur", "--symmetry-reduction", "off", "--deadlock-detection", "off", "--threads", "1",
                    "--trace", "memory_usage", f"{name}.m", "-o", f"{name}.c"],
                   cwd=workdir, check=True, capture_output=True)
    subprocess.run(["cc", "-O3", "-o", name, f"{name}.c", "-lpthread"], cwd=workdir, check=True, capture_output=True)
    done = run([f"./{name}"], cwd=workdir)
    # The summary: "628868 states, 3144340 rules fired in 9s." (whole seconds: too coarse to time
    # with, so the child's CPU seconds are used); progress lines say "states explored in".
    found = re.search(r"^\s*(\d+) states, (\d+) rules fired in (\d+)s\.", done.out, flags=re.M)
    if found is None or "No error found." not in done.out:
        raise RuntimeError(f"unexpected Rumur output:\n{done.out[-2000:]}")
    states = int(found.group(1))
    return {"states": states, "wall": done.wall, "cpu": max(done.cpu, 0.01),
            "bytes_per_state": rumur_held(done.out, states) / states, "rss_per_state": done.peak / states}


def rumur_held(out: str, states: int) -> int:
    """Bytes Rumur holds at the end, counted as ours is (states and visited table; its queue is
    empty then): the state structures its ``--trace memory_usage`` summary reports, plus its
    seen set's slots, whose initial number it prints and which doubles when an insert finds it
    75% full (``set_insert``: ``seen_count * 100 / size >= 75``)."""
    structures = re.search(r"allocated (\d+) state structure\(s\), totaling (\d+) bytes", out)
    initial = re.search(r"size of the hash table is (\d+) slots", out)
    if structures is None or initial is None or int(structures.group(1)) != states:
        raise RuntimeError(f"Rumur did not report its memory as expected:\n{out[:2000]}")
    slots = int(initial.group(1))
    while (states - 1) * 100 // slots >= 75:
        slots *= 2
    return int(structures.group(2)) + slots * RUMUR_SLOT_BYTES


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


def spin_rows(quick: bool, workdir: Path, only: str = "") -> None:
    print("### Unreduced: Spin pan against the native explorer (1 worker)\n")
    if shutil.which("spin") is None:
        print("Spin is not installed (Debian `spin`): rows skipped.\n")
        return
    print("Spin's own search time is wall-clock (\"elapsed time\"), so ours here is too (`seconds`); "
          "ours' CPU seconds of the search (`cpu_seconds`) are beside it.\n")
    print("| model | states | Spin search s | Spin states/s | Spin bytes/state | ours search s | ours states/s "
          "| ours search CPU s | ours bytes/state | states/s ours/Spin | bytes/state ours/Spin |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    cases = [("peterson_filter", {"N": 4 if quick else 5})]
    cases += [] if quick else [("sort", {}), ("pftp", {}), ("snoopy", {})]
    for name, defines in cases:
        path = PROMELA[name]
        if not path.exists():
            print(f"| {name} | not available at {path} |")
            continue
        label = name + "".join(f" {k}={v}" for k, v in defines.items())
        if only not in label:
            continue
        spin_row(label, with_define(path, defines), path, defines)
    if not BEEM.is_dir():
        print(f"| BEEM | not available at {BEEM} |")
    else:
        for label, text in beem_instances(quick):
            if only not in label:
                continue
            path = workdir / f"{re.sub(r'[^A-Za-z0-9]+', '_', label)}.pml"
            path.write_text(text)
            spin_row(label, text, path, {})
    print()


def spin_row(label: str, text: str, path: Path, defines: dict) -> None:
    """One row: Spin on ``text``, ours on ``path`` with ``defines`` (the same model)."""
    theirs = attempt("Spin", spin, text)
    if theirs is None:
        return
    _, data = ours(path, defines, "--engine", "native", "--workers", "1")
    states = f"{data['states']:,}" + ("" if data["states"] == theirs["states"] else f" (Spin {theirs['states']:,})")
    print(f"| {label} | {states} | {theirs['seconds']:.2f} | {rate(theirs['states'], theirs['seconds'])} "
          f"| {theirs['bytes_per_state']:.0f} | {data['seconds']:.2f} | {rate(data['states'], data['seconds'])} "
          f"| {data['cpu_seconds']:.2f} | {data['bytes_per_state']:.0f} "
          f"| {ratio(data['states'] / data['seconds'], theirs['states'] / theirs['seconds'])} "
          f"| {ratio(data['bytes_per_state'], theirs['bytes_per_state'])} |", flush=True)


def murphi_rows(quick: bool, home: Optional[Path], workdir: Path, only: str = "") -> None:
    print("### Unreduced: CMurphi `-nosym` and Rumur against the native explorer (1 worker)\n")
    if home is None:
        print("CMurphi cannot be built here (no source tarball or compiler): its rows are skipped.\n")
    print("CMurphi's own time (\"in X s\") is CPU seconds since it started (`times()`: user+system), "
          "so ours here is the CPU seconds of the search (`cpu_seconds`), and Rumur's the child's.\n")
    if shutil.which("rumur") is None:
        print("Rumur is not installed (`apt list --installed | grep -i rumur` is empty; Debian package "
              "`rumur`): its columns are skipped.\n")
    else:
        print("Rumur: `--symmetry-reduction off --deadlock-detection off --threads 1`, the model files "
              "unedited but for N. Its own time is in whole seconds, so its states/s are over the "
              "child's CPU seconds (user+system, whole process). Its bytes/state are what it holds at "
              "the end, as ours: the state structures it reports (`--trace memory_usage`) plus its "
              "seen set (8-byte slots, the initial number it prints doubled at 75% occupancy as it "
              "does); its peak RSS per state is in the last column.\n")
    print("| model | states | CMurphi search s | CMurphi states/s | CMurphi bytes/state | Rumur CPU s | Rumur states/s "
          "| Rumur bytes/state | ours search CPU s | ours states/s | ours bytes/state | states/s ours/CMurphi "
          "| bytes/state ours/CMurphi | states/s ours/Rumur | bytes/state ours/Rumur | Rumur peak RSS/state |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    cases = [(N_PETERSON, {"N": n}) for n in ((4, 5) if quick else (5, 6))]
    cases += [(GERMAN, {"N": n}) for n in ((3,) if quick else (3, 4))]
    for path, defines in cases:
        if not path.exists():
            print(f"| {path.name} | not available at {path} |")
            continue
        label = f"{path.name} " + " ".join(f"{k}={v}" for k, v in defines.items())
        if only not in label:
            continue
        _, data = ours(path, defines, "--engine", "native", "--workers", "1")
        cm = attempt("CMurphi", cmurphi, home, path, defines, "-nosym", 256 if quick else 2048, workdir) if home else None
        ru = attempt("Rumur", rumur, path, defines, workdir)
        ours_rate = data["states"] / max(data["cpu_seconds"], 1e-3)
        cells = [label, f"{data['states']:,}"]
        cells += ([f"{cm['seconds']:.2f}", rate(cm["states"], cm["seconds"]), f"{cm['bytes_per_state']:.0f}"]
                  if cm else ["–"] * 3)
        cells += ([f"{ru['cpu']:.2f}", rate(ru["states"], ru["cpu"]), f"{ru['bytes_per_state']:.0f}"]
                  if ru else ["–"] * 3)
        cells += [f"{data['cpu_seconds']:.2f}", f"{ours_rate:,.0f}", f"{data['bytes_per_state']:.0f}"]
        cells += ([ratio(ours_rate, cm["states"] / cm["seconds"]), ratio(data["bytes_per_state"], cm["bytes_per_state"])]
                  if cm else ["–", "–"])
        cells += ([ratio(ours_rate, ru["states"] / ru["cpu"]), ratio(data["bytes_per_state"], ru["bytes_per_state"]),
                   f"{ru['rss_per_state']:.0f}"] if ru else ["–"] * 3)
        for peer, theirs in (("CMurphi", cm), ("Rumur", ru)):
            if theirs and theirs["states"] != data["states"]:
                cells[1] += f" ({peer} {theirs['states']:,})"
        print("| " + " | ".join(cells) + " |", flush=True)
    print()


#: CMurphi ``-sym1``'s table: room for ~1 M states, 6 times n_peterson N=7's 163,298.  Its time
#: grows with the table it clears (``table_rows``: N=5 takes 0.26 s wall with ``-m256``, 0.10 s
#: with ``-m16``), so a table far larger than the run needs would flatter us at N=5.
SYM1_MB = 32

#: The ``exact`` rows: (label, extra arguments, extra environment).
VARIANTS = (("checked", (), None), ("trusted", ("--trust-symmetry",), None),
            ("checked, model cache off", (), {"SYMDETECT_MODEL_CACHE": "off"}))


def exact_rows(quick: bool, home: Optional[Path], workdir: Path, only: str = "") -> None:
    print("### Exact reduction: CMurphi `-sym1` against `--reduce exact` (whole process, detection included)\n")
    print("Ours three times: as by default (every generator checked on every expanded state: the "
          "successors of its image computed too); with `--trust-symmetry` (no check, as CMurphi); "
          "and as by default with the model cache off (`SYMDETECT_MODEL_CACHE=off`: the file parsed "
          "and linearised again, as a first run; CMurphi's times are of its compiled executable, "
          "without `mu` and the C++ compiler). A run under 2 s is the median of 5, for both.\n")
    print("| model | ours | states | CMurphi search s | CMurphi wall s | CMurphi CPU s | ours search s "
          "| ours states/s (search) | ours wall s | ours CPU s | wall ours/CMurphi | CPU ours/CMurphi | method |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    if not N_PETERSON.exists():
        print(f"| n_peterson.m | not available at {N_PETERSON} |\n")
        return
    for n in ((4, 5) if quick else (5, 6, 7)):
        if only not in f"n_peterson.m N={n}":
            continue
        cm = attempt("CMurphi", cmurphi, home, N_PETERSON, {"N": n}, "-sym1", SYM1_MB, workdir) if home else None
        for variant, extra, env_extra in VARIANTS:
            mine, data = ours(N_PETERSON, {"N": n}, "--reduce", "exact", "--engine", "native", "--workers", "1",
                              *extra, env_extra=env_extra)
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


def graph_rows(quick: bool, only: str = "") -> None:
    n = 4 if quick else 5
    if only not in f"token_circulation.csp N={n}":
        return
    print("### `--reduce graph` (ours only)\n")
    print("| model | states | search s | states/s | wall s | CPU s | method |")
    print("|---|---:|---:|---:|---:|---:|---|")
    mine, data = ours(TOKEN, {"N": n}, "--reduce", "graph", "--workers", "1")
    print(f"| token_circulation.csp N={n} | {data['states']:,} | {data['seconds']:.2f} "
          f"| {rate(data['states'], data['seconds'])} | {mine.wall:.2f} | {mine.cpu:.2f} | {data['method']} |")
    print()


def table_rows(home: Optional[Path], workdir: Path, only: str = "") -> None:
    """CMurphi ``-sym1`` at N=5 with tables of 4 to 256 MB: why the exact rows use ``SYM1_MB``."""
    if home is None or not N_PETERSON.exists() or only not in "CMurphi -sym1 table sizes":
        return
    print("### CMurphi `-sym1` on n_peterson.m N=5 by the size of its table (`-m`)\n")
    print("| -m (MB) | states | search s | wall s | CPU s |")
    print("|---:|---:|---:|---:|---:|")
    for mb in (4, 16, SYM1_MB, 64, 256):
        cm = attempt("CMurphi", cmurphi, home, N_PETERSON, {"N": 5}, "-sym1", mb, workdir)
        if cm:
            print(f"| {mb} | {cm['states']:,} | {cm['seconds']:.2f} | {cm['wall']:.2f} | {cm['cpu']:.2f} |", flush=True)
    print()


def main(quick: bool, only: str = "") -> None:
    from detect.statespace.native.build import compiler

    if compiler() is None:
        print("No C compiler: the native explorer cannot run; nothing to measure.")
        return
    print(f"Machine: {machine()}; load average before the run {load()}.\n")
    home = cmurphi_home()
    with tempfile.TemporaryDirectory(prefix="native-bench-") as tmp:
        workdir = Path(tmp)
        spin_rows(quick, workdir, only)
        murphi_rows(quick, home, workdir, only)
        exact_rows(quick, home, workdir, only)
        table_rows(home, workdir, only)
        graph_rows(quick, only)
    print(f"Load average after the run {load()}.")


if __name__ == "__main__":
    args = sys.argv[1:]
    main("--quick" in args, args[args.index("--only") + 1] if "--only" in args[:-1] else "")
