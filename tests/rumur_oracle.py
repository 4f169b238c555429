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
