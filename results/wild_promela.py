"""Promela models written by other people (harvested from public GitHub repositories) through
Spin 6.5.2 and through symdetect: "states, stored", error verdicts, ltl verdicts, refusals,
crashes, the detected group and its check.

    python results/wild_promela.py [--dir /tmp/wild-pml] [--budget CPU_S] [-o results/wild_promela.md] [file ...]

The files are not in the repository (other people's code): ``--dir`` holds them, named
``<owner>_<repo>__<path with / as _>``, and its ``manifest.jsonl`` records each file's repository,
path, commit and SHA-256 prefix; ``SOURCES`` below repeats that record so that a run on a
re-harvested copy can be checked to be on the same bytes (a file whose hash differs is
reported, not compared).

Spin runs as ``tests/spin_oracle.py`` runs it (``spin -o1 -o2 -o3 -a``, gcc ``-DSAFETY
-DNOREDUCE``, ``-DNOCLAIM`` unless the file has a never claim, ``pan -m1000000 -c0 -n``),
and for each ``ltl`` block ``pan -a -N name`` (gcc without ``-DSAFETY``).  Ours is
``spin_oracle.our_counts`` (``explore --spin-states``) and ``spin_oracle.our_ltl``
(``explore --ltl name``) in a child process, then the CLI itself (``explore FILE --json``,
``analyze FILE --json``, and ``analyze --verify`` where the group is above 1) as a user runs
it, to catch tracebacks and exit codes.  Every child is bounded by ``--budget`` CPU seconds
(RLIMIT_CPU) and runs under ``nice -n 10``; pan by ``--pan-cpu``.

Outcomes: agree, DISAGREE (states / verdict / ltl), we refuse (a file Spin accepts), crash
(a traceback), time-out, Spin refuses.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "results"))

from spin_examples import WALL_FACTOR  # noqa: E402

DEFAULT_DIR = Path("/tmp/wild-pml")
#: files whose processes outnumber the bound from the pid skeleton (none so far)
MAX_PROCS: dict[str, int] = {}


def ltl_names(text: str) -> list[str]:
    """The ``ltl`` blocks' names as Spin names them (an unnamed one ``ltl_N``, N counting every block)."""
    out = []
    for k, m in enumerate(re.finditer(r"^\s*ltl\s*(\w*)\s*\{", _strip_comments(text), re.M)):
        out.append(m.group(1) or f"ltl_{k}")
    return out


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def ours(path: str, budget: float) -> dict:
    """Our counts and ltl verdicts for one file (run in a child process)."""
    import warnings

    warnings.simplefilter("ignore")
    from detect.errors import InputError
    from tests.spin_oracle import neutralise_asserts, our_counts, our_ltl

    name = Path(path).name
    text = Path(path).read_text()
    out: dict = {}
    t = time.process_time()
    try:
        c = our_counts(text, path, max_procs=MAX_PROCS.get(name))
    except InputError as e:
        return {"refused": str(e)}
    out.update(stored=c.stored, error=c.error, explore_s=time.process_time() - t)
    print(json.dumps(out), flush=True)
    if c.error:
        try:
            out["neutral"] = our_counts(neutralise_asserts(text), path, max_procs=MAX_PROCS.get(name)).stored
        except Exception:  # noqa: BLE001 - the verdict stands
            pass
        print(json.dumps(out), flush=True)
    ltl = {}
    for n in ltl_names(text):
        try:
            ltl[n] = our_ltl(text, n, file=path)
        except InputError as e:
            ltl[n] = "refused: " + str(e)[:100]
        except Exception as e:  # noqa: BLE001 - reported per formula
            ltl[n] = f"{type(e).__name__}: {e}"[:100]
        out["ltl"] = ltl
        print(json.dumps(out), flush=True)
    return out


def spin(path: Path, cpu: float) -> dict:
    """Spin's counts and ltl verdicts for one file, pan bounded by ``cpu`` CPU seconds."""
    from tests.spin_oracle import SpinRefused, neutralise_asserts, spin_counts, spin_ltl

    text = path.read_text()

    def run(t: str):
        return spin_counts(t, timeout=max(600, WALL_FACTOR * cpu), cpu=cpu)
    try:
        c = run(text)
    except subprocess.TimeoutExpired as e:
        return {"timeout": True, "refused": f"pan: past the {e.timeout:.0f} s wall-clock safety net"}
    except SpinRefused as e:
        return {"refused": str(e)[:160], **({"timeout": True} if "CPU s" in str(e) else {})}
    out = {"stored": c.stored, "error": c.error, "complete": c.complete}
    if c.error and c.complete:
        try:
            out["neutral"] = run(neutralise_asserts(text)).stored
        except (SpinRefused, subprocess.TimeoutExpired):
            pass
    ltl = {}
    for n in ltl_names(text):
        with tempfile.TemporaryDirectory(prefix="spin") as d:
            try:
                ltl[n] = spin_ltl(text, Path(d), n, timeout=max(600, WALL_FACTOR * cpu), cpu=cpu)
            except (SpinRefused, subprocess.TimeoutExpired) as e:
                ltl[n] = f"refused: {e}"[:100]
    if ltl:
        out["ltl"] = ltl
    return out


def _bounded(cmd: list[str], budget: float) -> tuple[int, str, str]:
    """``cmd`` under ``nice -n 10`` and RLIMIT_CPU ``budget``: (exit code, stdout, stderr);
    exit code -1 past the bound."""
    from tests.spin_oracle import cpu_limited

    try:
        r = subprocess.run(["nice", "-n", "10", *cmd], capture_output=True, text=True, cwd=HERE,
                           timeout=WALL_FACTOR * budget, preexec_fn=cpu_limited(budget))
    except subprocess.TimeoutExpired:
        return -1, "", ""
    return (r.returncode if r.returncode >= 0 or r.returncode == -1 else -1), r.stdout, r.stderr


def child(path: Path, budget: float) -> dict:
    """``ours`` in a child process, then the CLI's explore and analyze (and --verify)."""
    rc, stdout, stderr = _bounded([sys.executable, __file__, "--one", str(path), "--budget", str(budget)], budget)
    reports = [json.loads(x) for x in stdout.splitlines() if x.startswith("{")]
    if not reports:
        out = {"timeout": True} if rc == -1 else {"refused": "crash: " + (stderr.strip().splitlines() or ["?"])[-1][:150],
                                                   "crash": "Traceback" in stderr}
    else:
        out = reports[-1]
        if rc == -1:
            out["note"] = "ltl checks past the budget"
    cli = [sys.executable, "-m", "detect.cli"]
    rc, _, err = _bounded([*cli, "explore", str(path), "--json"], budget)
    out["explore_rc"] = rc
    if "Traceback" in err:
        out["crash"] = True
        out["crash_msg"] = "explore: " + err.strip().splitlines()[-1][:150]
    rc, so, err = _bounded([*cli, "analyze", str(path), "--json"], budget)
    out["analyze_rc"] = rc
    if "Traceback" in err:
        out["crash"] = True
        out["crash_msg"] = "analyze: " + err.strip().splitlines()[-1][:150]
    try:
        order = json.loads(so)["group_order"]
        out["order"] = order
    except (ValueError, KeyError):
        order = None
    if order and order > 1:
        rc, so, err = _bounded([*cli, "analyze", str(path), "--verify", "--json"], budget)
        if "Traceback" in err:
            out["crash"] = True
            out["crash_msg"] = "analyze --verify: " + err.strip().splitlines()[-1][:150]
        out["verified"] = {0: "yes", 3: "partial"}.get(rc, "time-out" if rc == -1 else f"FAILS (exit {rc})")
    return out


def verdict(s: dict, o: dict) -> str:
    if o.get("crash"):
        return "crash"
    if "refused" in o and s.get("timeout") and "value analysis bounds no domain" in o["refused"]:
        return "time-out (pan); too large for us to narrow"
    if "refused" in o:
        return "both refuse" if "refused" in s and not s.get("timeout") else "we refuse"
    if o.get("timeout"):
        return "time-out" + (" (both)" if s.get("timeout") else "")
    if s.get("timeout"):
        return "time-out (pan)"
    if "refused" in s:
        return "Spin refuses"
    if s["error"] != o["error"]:
        return "DISAGREE (verdict)" if s["complete"] else "Spin incomplete"
    if s["complete"] and s["stored"] != o["stored"]:
        if not s["error"]:
            return "DISAGREE (states)"
        if s.get("neutral") is not None and s["neutral"] != o.get("neutral"):
            return "DISAGREE (states, assertions made true)"
    for n, v in s.get("ltl", {}).items():
        w = o.get("ltl", {}).get(n)
        if isinstance(v, bool) and isinstance(w, bool) and v != w:
            return f"DISAGREE (ltl {n})"
    return "agree"


def row(name: str, s: dict, o: dict) -> str:
    def count(d):
        if "refused" in d or "stored" not in d:
            return ""
        n = f"{d['stored']:,}" + ("" if d.get("complete", True) else " (incomplete)")
        if d.get("error"):
            n += " err" + (f" / {d['neutral']:,}" if d.get("neutral") is not None else "")
        return n

    def ltl(d):
        return " ".join(f"{k}:{'E' if v is True else '-' if v is False else '?'}" for k, v in d.get("ltl", {}).items())

    note = o.get("crash_msg") or o.get("refused") or s.get("refused") or o.get("note") or ""
    note = note.replace("|", "\\|").replace(str(DEFAULT_DIR) + "/", "")
    group = f"{o['order']:,}" if "order" in o else ""
    return (f"| {name} | {count(s)} | {count(o) if 'timeout' not in o else 'time-out'} | {ltl(s)} | {ltl(o)} | "
            f"{verdict(s, o)} | {group} | {o.get('verified', '')} | {note} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--budget", type=float, default=60, help="CPU seconds for each of our runs")
    ap.add_argument("--pan-cpu", type=float, default=60, help="CPU seconds for each pan run")
    ap.add_argument("-o", "--output")
    ap.add_argument("--cache", type=Path, help="a folder keeping each file's results (by its SHA-256 prefix)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    if args.one:
        print(json.dumps(ours(args.one, args.budget)))
        return
    manifest = {}
    if (args.dir / "manifest.jsonl").exists():
        for line in (args.dir / "manifest.jsonl").read_text().splitlines():
            e = json.loads(line)
            manifest[e["file"]] = e
    paths = sorted(p for p in args.dir.glob("*") if p.name in manifest)
    if args.files:
        paths = [p for p in paths if p.name in args.files or any(f in p.name for f in args.files)]
    lines = ["| file | Spin stored | ours stored | Spin ltl (E: error) | our ltl | outcome | group | verified | note |",
             "|---|---|---|---|---|---|---|---|---|"]
    tally: dict[str, int] = {}
    start = time.perf_counter()
    for path in paths:
        e = manifest[path.name]
        if hashlib.sha256(path.read_bytes()).hexdigest()[:12] != e["sha256"]:
            lines.append(f"| {path.name} | | | | | not the recorded bytes | | | |")
            continue
        cached = args.cache / (path.name + ".json") if args.cache else None
        if cached is not None and cached.exists() and json.loads(cached.read_text()).get("sha256") == e["sha256"]:
            s, o = (json.loads(cached.read_text())[k] for k in ("spin", "ours"))
        else:
            s = spin(path, args.pan_cpu)
            o = child(path, args.budget)
            if cached is not None:
                cached.write_text(json.dumps({"sha256": e["sha256"], "spin": s, "ours": o}))
        outcome = verdict(s, o)
        key = outcome.split(" (")[0] if outcome.startswith("DISAGREE") else outcome
        tally[key] = tally.get(key, 0) + 1
        lines.append(row(path.name, s, o))
        print(lines[-1], file=sys.stderr, flush=True)
    total = sum(tally.values())
    summary = [f"{total} files ({time.perf_counter() - start:.0f} s wall; each of our runs bounded by "
               f"{args.budget:.0f} CPU s, each pan run by {args.pan_cpu:.0f} CPU s):"] + [
        f"- {k}: {v}" for k, v in sorted(tally.items(), key=lambda kv: -kv[1])]
    sources = ["", "Sources (repository, path, commit, SHA-256 prefix):", ""] + [
        f"- {manifest[p.name]['repo']} `{manifest[p.name]['path']}` @ {manifest[p.name]['commit'][:12]} "
        f"sha256 {manifest[p.name]['sha256']}" for p in paths]
    text = "\n".join(lines + [""] + summary + sources) + "\n"
    if args.output:
        Path(args.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
