"""Rumur's own test suite (GitHub ``Smattr/rumur``, ``tests/``) through Rumur, CMurphi and us.

    python results/rumur_suite.py [--tests DIR] [--cpu S] [--timeout S] [--only SUBSTR] [--out FILE] [FILE ...]

An independent Murphi test suite: every ``.m`` file under ``--tests`` (default
``$RUMUR_TESTS``, else ``/tmp/rumur-tests``; the files are not in this repository, see
``results/rumur_suite.md`` for where they were read) is run through

* Rumur (Debian ``rumur``, ``--symmetry-reduction off --threads 1``; of the file's own
  ``-- rumur_flags:`` those that change what is checked are kept: ``--deadlock-detection
  off`` and ``--value-type``; ``--deadlock-detection stuck`` runs as CMurphi's check, and
  ``--bound`` is dropped, as we have neither),
* CMurphi 5.4 (built by ``tests/cmurphi.py``; ``-nosym``, its deadlock check on unless the file
  turns Rumur's off),
* us: ``symdetect explore FILE --json`` (``--ndl`` where the file turns deadlocks off),

each child bounded by ``--cpu`` CPU seconds (RLIMIT_CPU) and ``--timeout`` wall seconds.  The
oracle of a file is CMurphi where ``mu`` accepts it (CMurphi's language), else Rumur (its
extensions: ``assume``, ``cover``, ``liveness``, bitwise operators, ...).  Each file is one of

* ``agree``: the oracle's verdict (error or not) is ours and, without an error, its state
  count is ours (an error stops each tool at a different state, so counts are not compared);
  both refusing the file is agreement too (``both refuse``);
* ``disagree``: a different verdict or count (a wrong answer);
* ``we refuse``: an oracle runs it, we give our one-line message;
* ``peer refuses``: every peer refuses a file we run (the file's header says whether Rumur
  is meant to refuse it: ``-- rumur_exit_code: 1``);
* ``time-out``: a tool ran out of CPU or wall time.

Peer results are cached (``~/.cache/symdetect-peers/rumur-suite``, keyed by the file's text and
the options) so a rerun after a change to us runs only us.  Skipped with the reason when the
folder or ``rumur`` is absent.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HEADER = re.compile(r"^--\s*(rumur_flags|rumur_exit_code|checker_exit_code|skip_reason|checker_output)\s*:\s*(.*)$")


@dataclass(frozen=True)
class Header:
    """The test's ``-- key: value`` lines (Rumur's test harness reads them as Python)."""

    flags: tuple[str, ...] = ()
    flags_text: str = ""
    rumur_exit: Optional[int] = None
    checker_exit: Optional[int] = None
    skip: str = ""


def header(text: str) -> Header:
    fields: dict[str, str] = {}
    for line in text.splitlines():
        m = HEADER.match(line.strip())
        if m:
            fields[m.group(1)] = m.group(2).strip()
    flags: tuple[str, ...] = ()
    try:  # a literal list; expressions (``CONFIG['SMT_ARGS']``, ``smt_args()``) are dropped
        value = ast.literal_eval(fields.get("rumur_flags", "[]"))
        if isinstance(value, list):
            flags = tuple(str(v) for v in value)
    except (ValueError, SyntaxError):
        pass

    def num(key):
        try:
            return int(fields[key])
        except (KeyError, ValueError):
            return None
    return Header(flags, fields.get("rumur_flags", ""), num("rumur_exit_code"), num("checker_exit_code"),
                  fields.get("skip_reason", ""))


def _flag(flags: tuple[str, ...], name: str) -> Optional[str]:
    """The value of ``--name V`` or ``--name=V`` in ``flags``."""
    for i, f in enumerate(flags):
        if f == name and i + 1 < len(flags):
            return flags[i + 1]
        if f.startswith(name + "="):
            return f.split("=", 1)[1]
    return None


def deadlock_mode(h: Header) -> str:
    """The deadlock check every tool runs: off where the file turns Rumur's off, else
    CMurphi's (Rumur's "stuttering"; its "stuck" mode, which we lack, becomes that too)."""
    return "off" if _flag(h.flags, "--deadlock-detection") == "off" else "stuttering"


@dataclass(frozen=True)
class Run:
    """One tool on one file: ``status`` is ``ok`` (``states`` and ``error`` valid), ``refused``
    or ``timeout`` (``message`` says why)."""

    status: str
    states: Optional[int] = None
    error: Optional[str] = None
    message: str = ""

    def as_dict(self) -> dict:
        return {"status": self.status, "states": self.states, "error": self.error, "message": self.message}


def _limit(cpu: int):
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        os.nice(10)
    return limit


def _child(args, cwd, cpu, timeout, **kw):
    try:
        return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=_limit(cpu), **kw)
    except subprocess.TimeoutExpired:
        return None


_STATES = re.compile(r"(\d+) states, (\d+) rules fired")


def rumur(path: Path, h: Header, work: Path, cpu: int, timeout: float) -> Run:
    args = ["rumur", "--symmetry-reduction", "off", "--threads", "1", "--deadlock-detection", deadlock_mode(h)]
    if _flag(h.flags, "--value-type"):
        args += ["--value-type", _flag(h.flags, "--value-type")]
    gen = _child([*args, "--output", "m.c", str(path)], work, cpu, timeout)
    if gen is None:
        return Run("timeout", message="rumur: wall time")
    if gen.returncode != 0:
        lines = [ln for ln in gen.stderr.splitlines() if ln.strip()]
        return Run("refused", message=(lines[0] if lines else f"exit {gen.returncode}")[:160])
    cc = _child(["gcc", "-std=c11", "-O1", "-mcx16", "-o", "m", "m.c", "-lpthread", "-latomic"], work, cpu, timeout)
    if cc is None or cc.returncode != 0:
        return Run("refused", message="gcc cannot compile rumur's verifier")
    run = _child(["./m"], work, cpu, timeout)
    if run is None or run.returncode < 0:
        return Run("timeout", message="rumur's verifier: CPU or wall time")
    out = run.stdout + run.stderr
    m = _STATES.search(out)
    if m is None:
        return Run("refused", message=f"rumur's verifier printed no counts (exit {run.returncode})")
    error = None
    if run.returncode != 0:
        e = re.search(r"The following is the error trace for the error:\s*\n\s*\n?\s*(.+)", out)
        e = e or re.search(r"^\s*(.*(?:failed|violated|not hit|deadlock|Deadlock).*)$", out, re.M)
        error = e.group(1).strip() if e else "error"
    return Run("ok", int(m.group(1)), error)


def cmurphi(home: Path, path: Path, h: Header, work: Path, cpu: int, timeout: float) -> Run:
    from tests import cmurphi as cm

    try:
        exe = cm.compile_model(home, path.read_text(), work, "m")
    except cm.Rejected as e:
        return Run("refused", message=("mu: " + (str(e).splitlines() or ["rejected"])[0])[:160])
    except cm.Uncompilable as e:
        return Run("refused", message=f"g++ rejects mu's code: {str(e)[:120]}")
    try:
        r = cm.run_model(exe, memory_mb=256, timeout=timeout, deadlock=deadlock_mode(h) != "off", cpu=cpu)
    except (subprocess.TimeoutExpired, RuntimeError):
        return Run("timeout", message="CMurphi: CPU or wall time")
    return Run("ok", r.states, r.error)


def ours(path: Path, h: Header, cpu: int, timeout: float) -> Run:
    args = [sys.executable, "-m", "detect.cli", "explore", str(path), "--json", "--timeout", str(timeout)]
    if deadlock_mode(h) == "off":
        args.append("--ndl")
    run = _child(args, ROOT, cpu, timeout + 30)
    if run is None or run.returncode in (-24, -9, 3):
        return Run("timeout", message="CPU or wall time")
    if run.returncode not in (0, 1) or "{" not in run.stdout:
        lines = [ln for ln in run.stderr.strip().splitlines() if not ln.startswith("symdetect: warning")]
        return Run("refused", message=(lines[-1] if lines else f"exit {run.returncode}")[:200])
    data = json.loads(run.stdout[run.stdout.index("{"):])
    error = None
    if run.returncode == 1:
        failed = [a["text"] for a in data.get("assertions", []) if a.get("verdict") == "fails"]
        faults = data.get("first_faults") or []
        error = (failed or [str(f) for f in faults] or ["error"])[0]
    return Run("ok", data["states"], error)


def _cached(key: str, compute) -> Run:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "symdetect-peers" / "rumur-suite"
    cache.mkdir(parents=True, exist_ok=True)
    f = cache / f"{key}.json"
    if f.exists():
        return Run(**json.loads(f.read_text()))
    r = compute()
    if r.status != "timeout":
        f.write_text(json.dumps(r.as_dict()))
    return r


@dataclass
class Row:
    name: str
    header: Header
    rumur: Run
    cmurphi: Run
    ours: Run
    outcome: str = ""
    note: str = ""


def classify(row: Row) -> None:
    """Set ``row.outcome`` and ``row.note`` (see the module docstring)."""
    peers = [p for p in (row.cmurphi, row.rumur) if p.status == "ok"]
    oracle = peers[0] if peers else None
    who = "CMurphi" if oracle is row.cmurphi else "Rumur"
    if row.ours.status == "timeout" or (oracle is None and "timeout" in (row.cmurphi.status, row.rumur.status)):
        row.outcome = "time-out"
        return
    if oracle is None:
        if row.ours.status == "refused":
            row.outcome, row.note = "both refuse", row.ours.message
        else:
            row.outcome = "peer refuses"
            row.note = f"Rumur: {row.rumur.message}; CMurphi: {row.cmurphi.message}"
        return
    if row.ours.status == "refused":
        row.outcome, row.note = "we refuse", row.ours.message
        return
    o = row.ours
    if (o.error is None) != (oracle.error is None):
        row.outcome = "disagree"
        row.note = (f"{who} finds {oracle.error!r}, we find none" if oracle.error
                    else f"we find {o.error!r}, {who} none ({oracle.states} states)")
    elif o.error is None and o.states != oracle.states:
        row.outcome, row.note = "disagree", f"{who} {oracle.states} states, we {o.states}"
    else:
        row.outcome = "agree"
    if len(peers) == 2 and ((peers[0].error is None) != (peers[1].error is None)
                            or (peers[0].error is None and peers[0].states != peers[1].states)):
        row.note = (row.note + "; " if row.note else "") + "CMurphi and Rumur differ"


def _cell(r: Run) -> str:
    if r.status == "ok":
        return f"{r.states:,}" + (" error" if r.error else "")
    return r.status


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests", default=os.environ.get("RUMUR_TESTS", "/tmp/rumur-tests"))
    ap.add_argument("--cpu", type=int, default=60)
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="")
    ap.add_argument("--no-cmurphi", action="store_true")
    ap.add_argument("files", nargs="*", help="only these files (paths relative to --tests)")
    a = ap.parse_args()
    tests = Path(a.tests)
    if not tests.is_dir():
        print(f"skipped: no Rumur test folder at {tests} (set $RUMUR_TESTS)")
        return 0
    if shutil.which("rumur") is None:
        print("skipped: rumur is not installed (apt-get install rumur)")
        return 0
    from tests import cmurphi as cm

    home = None if a.no_cmurphi or cm.unavailable() else cm.build()
    files = sorted(p for p in tests.rglob("*.m") if "disabled" not in p.parts and a.only in str(p)
                   and (not a.files or str(p.relative_to(tests)) in a.files))
    rows: list[Row] = []
    started = time.time()
    for path in files:
        name = str(path.relative_to(tests))
        text = path.read_text()
        h = header(text)
        key = hashlib.sha256((text + "\0" + deadlock_mode(h) + "\0" + (_flag(h.flags, "--value-type") or "")).encode()).hexdigest()[:24]
        with tempfile.TemporaryDirectory(prefix="rumur-suite-") as tmp:
            r = _cached("rumur-" + key, lambda: rumur(path, h, Path(tmp), a.cpu, a.timeout))
            c = (Run("refused", message="CMurphi not available") if home is None else
                 _cached("cmurphi-" + key, lambda: cmurphi(home, path, h, Path(tmp) / "cm", a.cpu, a.timeout)))
        o = ours(path, h, a.cpu, a.timeout)
        row = Row(name, h, r, c, o)
        classify(row)
        rows.append(row)
        print(f"{name}: {row.outcome} {row.note}", file=sys.stderr, flush=True)
    summary: dict[str, int] = {}
    for row in rows:
        summary[row.outcome] = summary.get(row.outcome, 0) + 1
    lines = [f"{len(rows)} files; " + ", ".join(f"{k} {v}" for k, v in sorted(summary.items())),
             "",
             "| file | expected (header) | Rumur | CMurphi | ours | outcome | note |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        exp = []
        if row.header.rumur_exit is not None:
            exp.append(f"rumur exit {row.header.rumur_exit}")
        if row.header.checker_exit is not None:
            exp.append(f"checker exit {row.header.checker_exit}")
        if row.header.flags:
            exp.append(" ".join(row.header.flags))
        elif row.header.flags_text:
            exp.append("flags: " + row.header.flags_text[:40])
        note = row.note.replace("|", "\\|")
        lines.append(f"| {row.name} | {'; '.join(exp)} | {_cell(row.rumur)} | {_cell(row.cmurphi)} | "
                     f"{_cell(row.ours)} | {row.outcome} | {note} |")
    lines += ["", f"{platform.node()}, {platform.machine()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
              f"{time.time() - started:.0f} s wall; `python results/rumur_suite.py --cpu {a.cpu} --timeout {a.timeout:g}`",
              "", "Files (the first 16 hex digits of each file's SHA-256, to check a copy against):", ""]
    lines += [f"- `{p.relative_to(tests)}` {hashlib.sha256(p.read_bytes()).hexdigest()[:16]}" for p in files]
    text = "\n".join(lines) + "\n"
    if a.out:
        Path(a.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
