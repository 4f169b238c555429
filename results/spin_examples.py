"""Spin's own examples (``../shared/corpus/spin/Examples``, every subfolder) through Spin and
through symdetect: "states, stored", error verdicts, refusals, detected group and its check.

    python results/spin_examples.py [--budget CPU_S] [--pan-cpu CPU_S] [-o results/spin_examples.md] [stem ...]

Spin 6.5.2 runs as ``tests/spin_oracle.py`` runs it (``spin -o1 -o2 -o3 -a``, gcc
``-DSAFETY -DNOREDUCE``, ``-DNOCLAIM`` unless the file has a never claim, ``pan -m1000000
-c0 -n``, a larger -m where ``PAN_DEPTH`` names one): the options README_tests.txt names for its exhaustive runs (leader0, snoopy,
pftp, sort), with Spin's own optimisations off as everywhere in our comparisons (README).
Ours is ``explore --spin-states`` (``spin_oracle.our_counts``), each file in a child
process.  Both are bounded by CPU time, not wall time, so that the machine's load does not
decide the outcome: our child by ``--budget`` CPU seconds (default 60), each pan run by
``--pan-cpu`` (default 120), each through RLIMIT_CPU, with a wall-clock safety net of
``WALL_FACTOR`` times the bound.  Where a file's processes need more
than ``--max-procs``' default 8 the option is given (``MAX_PROCS``).  Where either side
reports an error the counts are compared on the model with its assertions made true, as
``spin_oracle.compare`` does (Spin goes on past a failed assertion, we stop).  Then the
group is detected (``detect`` with ``analyze``'s default ``--domain-states``) and, where its
order is above 1, checked against the
unreduced graph (``verify``, bounded by the budget).  "detection CPU s" is this process's CPU
time in ``detect``, and after a ``+`` its children's (the C compiler building narrowing's
native explorers, the forked automorphism search) where they took 0.05 s or more.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))
EXAMPLES = HERE / ".." / "shared" / "corpus" / "spin" / "Examples"
#: files whose processes outnumber --max-procs' default (recursion through run)
MAX_PROCS = {"eratosthenes.pml": 12, "calculator.pml": 12, "p108.pml": 16, "p248.pml": 16,
             # System, top, bot and the 8 processes they run, none removed (P and Q end,
             # but below live pids): 11 pids, where the default 8 would be a fault
             "mobile1.pml": 11}
#: files whose state space is beyond the budget as given: measured at a smaller size too
#: (the ``#define`` edited as results/promela_corpus.py does)
SMALLER = {"leader.pml": {"N": 3, "L": 6}, "leader_pre.pml": {"N": 3, "L": 6}, "ex_6.pml": {"MaxSeq": 1},
           "petersonN.pml": {"N": 3}, "life.pml": {"MAX": 3},
           "ltl_gen.pml": {"DEPTH_LIMIT": 2, "NUMBER_OF_NODES": 7}}
#: ``analyze``'s default --domain-states: a table too wide for the declared domains is built
#: over the reachable states' domains instead
DOMAIN_STATES = 1_000_000
#: pan's -m where the default 1,000,000 is too small for an exhaustive search
PAN_DEPTH: dict[str, int] = {}
#: the wall-clock safety net of every bounded run, as a multiple of its CPU bound
WALL_FACTOR = 10


def with_defines(text: str, defines: dict) -> str:
    import re

    for k, v in defines.items():  # cpp lets the file's #define win over -D: edit it
        text = re.sub(rf"^#define\s+{k}\b.*$", f"#define {k} {v}", text, flags=re.M)
    return text


def ours(path: str, defines: dict, budget: float) -> dict:
    """Our counts, group and check for one file (run in a child process)."""
    import warnings

    warnings.simplefilter("ignore")
    sys.path.insert(0, str(HERE))
    from detect.errors import InputError
    from tests.spin_oracle import neutralise_asserts, our_counts

    name = Path(path).name
    text = with_defines(Path(path).read_text(), defines)
    out: dict = {}
    t = time.process_time()  # CPU seconds: the machine's load does not inflate them
    try:
        c = our_counts(text, path, max_procs=MAX_PROCS.get(name))
    except InputError as e:
        return {"refused": str(e)}
    out.update(stored=c.stored, error=c.error, explore_s=time.process_time() - t)
    if c.error:
        out["neutral"] = our_counts(neutralise_asserts(text), path, max_procs=MAX_PROCS.get(name)).stored
    print(json.dumps(out), flush=True)  # the counts stand if detection runs out of time
    try:
        from detect.checking.verify import verify
        from detect.symmetry.pipeline import detect
        from detect.transform.narrowing import narrow
        from frontends.promela import parse_text

        # as pan -DNOCLAIM and ``our_counts``: no ltl block's claim
        model = narrow(parse_text(text, path, None, MAX_PROCS.get(name), ltl_name=""))
        t, c = time.process_time(), _children_cpu()
        d = detect(model, domain_states=DOMAIN_STATES)  # as ``analyze`` does by default
        out.update(order=d.group.order, detect_s=time.process_time() - t, detect_children_s=_children_cpu() - c)
        if d.group.order > 1:
            report = verify(model, [g.permutation for g in d.group.generators], timeout=budget / 2)
            out["verified"] = "yes" if report.complete and all(v.ok for v in report.verdicts) else (
                "FAILS" if any(not v.ok for v in report.verdicts) else "partial")
    except Exception as e:  # noqa: BLE001 - reported in the table, the row's counts stand
        out["detect_error"] = f"{type(e).__name__}: {e}"[:120]
    return out


def _children_cpu() -> float:
    """CPU seconds of this process's finished children: the C compiler narrowing's native
    explorations build with, the forked automorphism search (``automorphisms.in_child``)."""
    t = os.times()
    return t.children_user + t.children_system


def spin(path: Path, defines: dict, cpu: float) -> dict:
    """Spin's counts for one file, pan bounded by ``cpu`` seconds of CPU time (and a wall-clock
    safety net of ``WALL_FACTOR`` times that); ``timeout`` when pan ran past it."""
    sys.path.insert(0, str(HERE))
    from tests.spin_oracle import spin_figures

    return spin_figures(with_defines(path.read_text(), defines), cpu, max(600, WALL_FACTOR * cpu),
                        PAN_DEPTH.get(path.name, 1_000_000))


def verdict(s: dict, o: dict) -> str:
    if "refused" in o:
        return "both refuse" if "refused" in s and not s.get("timeout") else "we refuse"
    if o.get("timeout"):
        return "time-out" + (" (both)" if s.get("timeout") else "")
    if s.get("timeout"):
        return "time-out (pan)"
    if "refused" in s:
        return "Spin refuses"
    if not s["complete"]:
        return "Spin incomplete" + (" (both error)" if s["error"] and o["error"] else "")
    if s["error"] != o["error"]:
        return "DISAGREE (verdict)"
    if s["stored"] == o["stored"]:
        return "agree"
    if s["error"] and s.get("neutral") is not None and s["neutral"] == o.get("neutral"):
        return "agree (assertions made true)"
    if s["error"]:
        return "agree on the error; counts differ past it"
    return "DISAGREE (states)"


def row(rel: str, s: dict, o: dict) -> str:
    def count(d):
        if "refused" in d:
            return ""
        n = f"{d['stored']:,}" + ("" if d.get("complete", True) else " (incomplete)")
        if d.get("error"):
            n += " err" + (f" / {d['neutral']:,}" if d.get("neutral") is not None else "")
        return n

    note = o.get("refused") or s.get("refused") or o.get("detect_error") or ""
    note = note.replace("|", "\\|").replace(str(EXAMPLES.resolve()) + "/", "")
    group = f"{o['order']:,}" if "order" in o else ""
    dsecs = f"{o['detect_s']:.1f}" if "detect_s" in o else ""
    if o.get("detect_children_s", 0) >= 0.05:
        dsecs += f" + {o['detect_children_s']:.1f}"
    return (f"| {rel} | {count(s)} | {count(o) if 'timeout' not in o else 'time-out'} | {verdict(s, o)} | "
            f"{group} | {dsecs} | {o.get('verified', '')} | {note} |")


def files(stems: list[str]) -> list[tuple[Path, dict, str]]:
    """The runs asked for: a stem or path names the file and its smaller variant, a
    variant's row name (``LTL/leader.pml N=3 L=6``) that variant alone."""
    out = []
    for p in sorted(EXAMPLES.resolve().rglob("*.pml")):
        rel = str(p.relative_to(EXAMPLES.resolve()))
        runs = [({}, rel)]
        if p.name in SMALLER:
            d = SMALLER[p.name]
            runs.append((d, rel + " " + " ".join(f"{k}={v}" for k, v in d.items())))
        out += [(p, d, r) for d, r in runs if not stems or p.stem in stems or rel in stems or r in stems]
    return out


def child(path: Path, defines: dict, budget: float) -> dict:
    """``ours`` in a child process bounded by ``budget`` seconds of CPU time (RLIMIT_CPU),
    with a wall-clock safety net of ``WALL_FACTOR`` times that: its last report (the
    counts, then counts and group), or ``timeout``."""
    from tests.spin_oracle import cpu_limited

    timed_out = False
    try:
        r = subprocess.run([sys.executable, __file__, "--one", str(path), "--defines", json.dumps(defines),
                            "--budget", str(budget)], capture_output=True, text=True,
                           timeout=WALL_FACTOR * budget, cwd=HERE, preexec_fn=cpu_limited(budget))
        stdout, stderr = r.stdout, r.stderr
        timed_out = r.returncode < 0  # SIGXCPU or SIGKILL: past the CPU bound
    except subprocess.TimeoutExpired as e:
        timed_out = True
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        stderr = ""
    reports = [json.loads(x) for x in stdout.splitlines() if x.startswith("{")]
    if not reports:
        if timed_out:
            return {"timeout": True}
        return {"refused": "crash: " + (stderr.strip().splitlines() or ["?"])[-1][:150]}
    out = reports[-1]
    if timed_out and "order" not in out and "refused" not in out:
        out["detect_error"] = f"detection or its check past the {budget:.0f} CPU s budget"
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=60, help="CPU seconds for each of our runs")
    ap.add_argument("--pan-cpu", type=float, default=120, help="CPU seconds for each pan run")
    ap.add_argument("-o", "--output")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--defines", default="{}", help=argparse.SUPPRESS)
    ap.add_argument("stems", nargs="*")
    args = ap.parse_args()
    if args.one:
        print(json.dumps(ours(args.one, json.loads(args.defines), args.budget)))
        return
    lines = ["| file | Spin stored | ours stored | outcome | group order | detection CPU s | verified | note |",
             "|---|---|---|---|---|---|---|---|"]
    tally: dict[str, int] = {}
    start = time.perf_counter()
    for path, defines, rel in files(args.stems):
        s = spin(path, defines, args.pan_cpu)
        o = child(path, defines, args.budget)
        line = row(rel, s, o)
        outcome = verdict(s, o)
        tally[outcome] = tally.get(outcome, 0) + 1
        lines.append(line)
        print(line, file=sys.stderr, flush=True)
    total = sum(tally.values())
    summary = [f"{total} runs ({time.perf_counter() - start:.0f} s wall; each of our runs bounded by "
               f"{args.budget:.0f} CPU s, each pan run by {args.pan_cpu:.0f} CPU s, both with a wall-clock "
               f"safety net of {WALL_FACTOR}x; load average at the end {os.getloadavg()[0]:.1f}):"] + [
        f"- {k}: {v}" for k, v in sorted(tally.items(), key=lambda kv: -kv[1])]
    text = "\n".join(lines + [""] + summary) + "\n"
    if args.output:
        Path(args.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
