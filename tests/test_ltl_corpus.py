"""Spin's ``Examples/LTL`` files that take the native explorer (issue 30): mobile1 and
mobile2's ``ltl`` blocks against ``pan -a``, and the ``progress`` labels of diskhead, mobile1
and mobile2 against ``pan -l`` (``--non-progress``), unreduced and with ``--reduce exact``.
Run through the command line, as a user does (the in-process oracle ``our_ltl`` explores in
Python, too slow for mobile1's 10^5 states); ``results/ltl_corpus.md`` has the whole table.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.spin_oracle import spin_available, spin_ltl, spin_non_progress

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "spin" / "Examples" / "LTL"
pytestmark = [pytest.mark.skipif(not spin_available(), reason="spin or gcc not installed"),
              pytest.mark.skipif(not CORPUS.exists(), reason="../shared/corpus/spin/Examples/LTL not present")]


def ours(file: str, *args: str) -> bool:
    """Whether ``symdetect explore FILE ARGS`` finds the property violated (exit 1).  A model
    with ``progress`` labels checked for an ltl block exits 3 ("progress labels not checked",
    as pan -a does not check them either), so the property's own verdict lines decide holds."""
    env = dict(os.environ, SYMDETECT_MODEL_CACHE="off")
    r = subprocess.run([sys.executable, "-m", "detect.cli", "explore", str(CORPUS / file), "--no-trace", *args],
                       cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    if r.returncode == 1:
        return True
    own = re.findall(r"^assert (?:ltl .*?\((?:never claim end|acceptance cycle)\)|no non-progress cycle \(progress labels, as pan -l\)): "
                     r"(\w+)", r.stdout, re.M)
    assert r.returncode in (0, 3) and own and all(v == "holds" for v in own), r.stdout + r.stderr
    return False


def pan(file: str, run) -> bool:
    with tempfile.TemporaryDirectory() as d:
        return run((CORPUS / file).read_text(), Path(d))


SLOW = pytest.mark.slow


@pytest.mark.parametrize("file", ["diskhead.pml", "mobile2.pml", pytest.param("mobile1.pml", marks=SLOW)])
@pytest.mark.parametrize("reduce", ["none", pytest.param("exact", marks=SLOW)])
def test_progress_labels_as_pan_l(file, reduce):
    """diskhead's progress_0..2 leave no non-progress cycle; in mobile1 and mobile2 the
    handover loop can run for ever without passing ``progress:`` (pan -l: error)."""
    expected = {"diskhead.pml": False, "mobile1.pml": True, "mobile2.pml": True}[file]
    assert pan(file, spin_non_progress) is expected
    assert ours(file, "--non-progress", "--reduce", reduce) is expected


@pytest.mark.parametrize("file, reduce", [("mobile2.pml", "none"),
                                          pytest.param("mobile2.pml", "exact", marks=SLOW),
                                          pytest.param("mobile1.pml", "none", marks=SLOW),
                                          pytest.param("mobile1.pml", "exact", marks=SLOW)])
def test_mobile_ltl_as_pan_a(file, reduce):
    """The one ``ltl`` block of mobile1 and mobile2 (their only block: pan's ``-N ltl_0`` is
    the default) holds; mobile2 was refused ("channel fa used as a value"), mobile1 not
    decided within 120 CPU s."""
    assert pan(file, spin_ltl) is False
    assert ours(file, "--ltl", "ltl_0", "--reduce", reduce) is False
