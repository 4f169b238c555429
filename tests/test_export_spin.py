"""``symdetect spin`` (issue 31, first case): a Spin verifier storing states up to the
detected full symmetry of one proctype's processes.  The oracle is Spin itself: the
generated ``sympan`` run with ``-DSAFETY -DNOREDUCE`` stores exactly the orbits of the
states plain ``pan`` stores (``reduced_spin_stored``, from our reachable states), fewer than
``pan``; a seeded assertion violation is still found; other models are refused in a line."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from detect.export.spin import SpinExportError, check_source, process_symmetry, reduced_spin_stored
from detect.symmetry.pipeline import detect
from frontends.promela import load

ROOT = Path(__file__).resolve().parents[1]
NO_OPT = ("--spin-option=-o1", "--spin-option=-o2", "--spin-option=-o3")

pytestmark = pytest.mark.skipif(shutil.which("spin") is None or shutil.which("gcc") is None,
                                reason="spin and gcc are needed")

MUTEX = """byte cnt;
bool lock;
active [3] proctype user()
{
	byte k;
	do
	:: atomic { !lock -> lock = true }; cnt++; k = cnt; assert(cnt == 1); cnt--; lock = false
	:: k < 2 -> k++
	od
}
"""

COUNTER = """byte x;
active [4] proctype p()
{
	byte i;
	do
	:: i < 2 -> i++; x++
	:: i == 2 -> i = 0; x = x - 2
	od
}
"""

BROKEN = MUTEX.replace("atomic { !lock -> lock = true }", "!lock")  # both can pass: cnt == 2


def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "detect.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def _stored(out_dir: Path, source: str) -> tuple[int, int]:
    """(states stored, errors) of ``source`` (pan.c or sympan.c) built -DSAFETY -DNOREDUCE."""
    exe = out_dir / (Path(source).stem + "_bin")
    subprocess.run(["gcc", "-O1", "-DSAFETY", "-DNOREDUCE", "-o", str(exe), source], cwd=out_dir, check=True,
                   capture_output=True, timeout=300)
    run = subprocess.run([str(exe), "-m100000"], cwd=out_dir, capture_output=True, text=True, timeout=300)
    stored = int(re.search(r"(\d+) states, stored", run.stdout).group(1))
    errors = int(re.search(r"errors: (\d+)", run.stdout).group(1))
    return stored, errors


@pytest.mark.parametrize("name,text,expected", [("mutex", MUTEX, (170, 800)), ("counter", COUNTER, None)])
def test_sympan_stores_one_state_per_orbit(tmp_path, name, text, expected):
    model = tmp_path / f"{name}.pml"
    model.write_text(text)
    out = tmp_path / "out"
    run = _cli("spin", str(model), "-o", str(out), *NO_OPT)
    assert run.returncode == 0, run.stderr
    assert "gcc -O2 -DSAFETY -DNOREDUCE -o sympan sympan.c" in run.stdout
    seq = load(model)
    detection = detect(seq)
    ours = reduced_spin_stored(detection.model, process_symmetry(detection.model, detection.group, text))
    reduced, errors = _stored(out, "sympan.c")
    plain, _ = _stored(out, "pan.c")
    assert errors == 0
    assert reduced == ours < plain
    if expected is not None:
        assert (reduced, plain) == expected


def test_sympan_finds_a_seeded_violation(tmp_path):
    model = tmp_path / "broken.pml"
    model.write_text(BROKEN)
    out = tmp_path / "out"
    assert _cli("spin", str(model), "-o", str(out), *NO_OPT).returncode == 0
    assert _stored(out, "sympan.c")[1] == 1


@pytest.mark.parametrize("text,why", [
    ("chan c = [1] of { byte };\nactive [2] proctype p() { c!1 }", "it has channels"),
    ("byte x[2];\nactive [2] proctype p() { x[_pid] = 1 }", "it reads _pid"),
    ("byte x;\nactive [2] proctype p() { x = 1 }\nnever { do :: x == 1 -> break :: else od }", "never claim"),
    ("byte x;\nactive proctype p() { x = 1 }", "no symmetry detected"),
])
def test_unsupported_models_are_refused_in_one_line(tmp_path, text, why):
    model = tmp_path / "m.pml"
    model.write_text(text)
    run = _cli("spin", str(model), "-o", str(tmp_path / "out"))
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1 and why in run.stderr, run.stderr
    assert not (tmp_path / "out" / "sympan.c").exists()


def test_models_directory_is_refused_or_exact(tmp_path):
    """Every Promela model in models/: refused in one line, or sympan's count is exact."""
    for model in sorted((ROOT / "models").glob("*.pml")):
        text = model.read_text()
        try:
            check_source(text)
            detection = detect(load(model))
            ours = reduced_spin_stored(detection.model, process_symmetry(detection.model, detection.group, text))
        except SpinExportError as why:
            assert "\n" not in str(why)
            continue
        run = _cli("spin", str(model), "-o", str(tmp_path / model.stem), *NO_OPT)
        assert run.returncode == 0, run.stderr
        assert _stored(tmp_path / model.stem, "sympan.c")[0] == ours
