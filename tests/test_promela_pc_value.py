"""``pc_value(pid)`` is refused with a located line (issue 28), and the reason holds: its
value is Spin's state number of the process, and which states a process passes through
depends on Spin's statement merging (on by default, off with ``-o3``, the semantics our
counts follow), so no one value is Spin's."""
from __future__ import annotations

import subprocess

import pytest

from detect.errors import InputError
from frontends.promela import parse_text
from tests.spin_oracle import spin_available

#: pc_value(0) reads 2 only where A stops between ``i < 2`` and ``i++``: never with merging
MODEL = """byte n;
active proctype A() { byte i; do :: i < 2 -> i++; n++ :: else -> break od; n = 5 }
active proctype B() { do :: assert(pc_value(0) != 2) :: n == 5 -> break od }
"""


def test_pc_value_is_refused_with_a_located_line():
    with pytest.raises(InputError) as e:
        parse_text(MODEL, "m.pml")
    assert (e.value.line, e.value.column) == (3, 36)
    assert "unsupported construct 'pc_value'" in e.value.message and "merging" in e.value.message


def _errors(options: list[str], tmp_path) -> int:
    (tmp_path / "m.pml").write_text(MODEL)
    for f in ("pan.c", "pan"):
        (tmp_path / f).unlink(missing_ok=True)
    subprocess.run(["spin", *options, "-a", "m.pml"], cwd=tmp_path, check=True, capture_output=True)
    subprocess.run(["gcc", "-O0", "-w", "-DSAFETY", "-DNOREDUCE", "-DNOCLAIM", "-o", "pan", "pan.c"], cwd=tmp_path,
                   check=True, capture_output=True)
    out = subprocess.run(["./pan", "-c0", "-n"], cwd=tmp_path, capture_output=True, text=True).stdout
    return int(out.split("errors:")[1].split()[0])


@pytest.mark.skipif(not spin_available(), reason="spin or gcc not installed")
def test_spins_pc_value_depends_on_statement_merging(tmp_path):
    """Spin 6.5.2: no error with ``spin -a`` (merged: A never rests at state 2), two with
    ``spin -o1 -o2 -o3 -a``."""
    assert _errors([], tmp_path) == 0
    assert _errors(["-o1", "-o2", "-o3"], tmp_path) == 2
