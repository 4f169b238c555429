"""Rumur (Debian ``rumur``) as an oracle for the Murphi it reads beyond CMurphi's language.

``check(text, workdir)`` generates Rumur's verifier (no symmetry reduction, one thread, its
CMurphi-like deadlock check unless ``deadlock`` says otherwise), compiles it with gcc and
runs it: ``Result(states, error)``, ``error`` being Rumur's message or ``None``.  Without an
error ``states`` is the whole state space; with one it is where Rumur stopped.
``unavailable()`` says why it cannot run here (tests skip with that reason).
"""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


def unavailable() -> Optional[str]:
    for tool in ("rumur", "gcc"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install rumur gcc)"
    return None


class Rejected(Exception):
    """Rumur refused the model (its first message line)."""


@dataclass(frozen=True)
class Result:
    states: int
    error: Optional[str]


def check(text: str, workdir: Path, deadlock: str = "stuttering", timeout: float = 300,
          value_type: str = "auto") -> Result:
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "m.m").write_text(text)
    gen = subprocess.run(["rumur", "--symmetry-reduction", "off", "--threads", "1", "--deadlock-detection",
                          deadlock, "--value-type", value_type, "--output", "m.c", "m.m"], cwd=workdir, capture_output=True, text=True,
                         timeout=timeout)
    if gen.returncode != 0:
        raise Rejected((gen.stderr.strip().splitlines() or ["rejected"])[0])
    subprocess.run(["gcc", "-std=c11", "-O1", "-mcx16", "-o", "m", "m.c", "-lpthread", "-latomic"], cwd=workdir,
                   check=True, capture_output=True, timeout=timeout)
    run = subprocess.run(["./m"], cwd=workdir, capture_output=True, text=True, timeout=timeout)
    out = run.stdout + run.stderr
    states = int(re.search(r"(\d+) states, \d+ rules fired", out).group(1))
    if run.returncode == 0:
        return Result(states, None)
    m = re.search(r"The following is the error trace for the error:\s*\n\s*\n?\s*(.+)", out)
    m = m or re.search(r"^\s*(.*(?:not hit|failed|violated).*)$", out, re.M)
    return Result(states, m.group(1).strip() if m else "error")


def _ours(path: Path, *options: str) -> tuple[int, bool]:
    """``symdetect explore --json`` on ``path``: (states, error found)."""
    import json

    from click.testing import CliRunner

    from detect.cli import main

    run = CliRunner().invoke(main, ["explore", str(path), "--json", *options])
    if run.exit_code not in (0, 1):
        raise RuntimeError(f"exit {run.exit_code}: {run.output[-300:]}")
    data = json.loads(run.output[run.output.index("{"):])
    return data["states"], run.exit_code == 1


def compare_text(text: str, reduce: bool = False) -> tuple[str, str]:
    """Model ``text`` through Rumur (``--value-type int32_t``) and ``explore`` (with
    ``reduce`` also ``--reduce exact``, whose verdict must be the unreduced one):
    ``(outcome, detail)``, outcome "agree" (the verdict, and without an error the count),
    "disagree", "rumur refuses" or "we fail"."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="rumur-diff-") as tmp:
        path = Path(tmp) / "g.m"
        path.write_text(text)
        try:
            theirs = check(text, Path(tmp) / "rumur", value_type="int32_t")
        except Rejected as e:
            return "rumur refuses", str(e)[:120]
        try:
            states, error = _ours(path)
            if reduce:
                _, reduced_error = _ours(path, "--reduce", "exact")
                if reduced_error != error:
                    return "disagree", f"reduced verdict {reduced_error}, unreduced {error}"
        except RuntimeError as e:
            return "we fail", str(e)[:200]
    if error != (theirs.error is not None):
        return "disagree", f"Rumur {theirs}, ours error={error}"
    if theirs.error is None and states != theirs.states:
        return "disagree", f"Rumur {theirs.states} states, ours {states}"
    return "agree", f"error ({_kind(theirs.error)})" if error else f"{states} states"


def _kind(message: str) -> str:
    """What Rumur's error is about, numbers and names blurred."""
    for word in ("liveness", "cover", "deadlock", "undefined", "invariant", "assertion", "range"):
        if word in message.lower():
            return word
    return "other"
