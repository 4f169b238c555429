"""Issue 28: a family's group must not vanish as it grows.

``results/families.py`` scales TopSPIN's ``email4.p`` and ``peterson3.p`` and a resource
allocator to N processes; the table of orders for N up to 7 is ``results/families.md``.
TopSPIN's email6 and email7 gave order 1: each condition the atomic-sequence tests repeat
(``client_k.pc == 13`` three times per client, per summand) became its own auxiliary
variable, the coloured graph swapped the twins (1,914 generators on 150,000 nodes at N = 5,
13 GiB), and past N = 5 the search never finished.  Here: the twins are gone, and the small
instances have N! with every generator verified on all reachable states."""
from __future__ import annotations

import collections
import importlib.util
import math
import sys
import warnings
from pathlib import Path

import pytest

from detect.checking.verify import verify
from detect.symmetry.constraints import AUX, translate
from detect.symmetry.pipeline import detect
from detect.transform.load import load_model

ROOT = Path(__file__).resolve().parents[1]
TOPSPIN = ROOT.parent / "shared" / "corpus" / "topspin"
needs_topspin = pytest.mark.skipif(not (TOPSPIN / "email4.p").is_file(),
                                   reason=f"TopSPIN's models not available at {TOPSPIN}")


def families():
    """The benchmark script as a module (registered first: its dataclasses look themselves up)."""
    if "families" not in sys.modules:
        spec = importlib.util.spec_from_file_location("families", ROOT / "results" / "families.py")
        sys.modules["families"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["families"])
    return sys.modules["families"]


def _load(tmp_path: Path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_model(path)


def _detected_and_verified(model, max_states: int = 200_000) -> int:
    """The detected group's order, every generator verified on the reachable states: all of
    them, or (``max_states`` set lower, for a model with more) the first ``max_states``."""
    detection = detect(model)
    generators = [g.permutation for g in detection.group.generators]
    report = verify(detection.model, generators, max_states=max_states)
    assert report.ok and (report.complete or max_states < 200_000), report
    return detection.group.order


@needs_topspin
def test_scaling_gives_the_topspin_files_back():
    f = families()
    email4 = (TOPSPIN / "email4.p").read_text()
    assert f.email_text(email4, 4) == email4
    assert f.peterson_text(3) == (TOPSPIN / "peterson3.p").read_text().replace("\r\n", "\n")
    email6 = f.email_text(email4, 6)
    assert "chan link6 = [ 1 ] of { pid , pid }" in email6 and "link7" not in email6
    for line in (":: id == 6 -> link = link6", ":: receiver = 6", "run client(link6);", "initialised == 6"):
        assert line in email6
    with pytest.raises(ValueError, match="lines name clients"):
        f.email_text(email4.replace("     :: id == 4 -> link = link4\n", ""), 5)


def _twins(csp) -> int:
    """Auxiliaries defined (``t = ...``) by the same table over the same other variables, under
    the same guard, as an earlier auxiliary of the same summand: interchangeable copies of
    one value."""
    definitions = collections.Counter()
    for c in csp.constraints:
        *inputs, out = c.scope
        if csp.variables[out].role == AUX and out not in inputs \
                and c.text.startswith(csp.variables[out].name + " = "):
            definitions[(c.summand, c.fault, tuple(inputs), c.tuples, c.guard, c.gate)] += 1
    return sum(n - 1 for n in definitions.values())


@needs_topspin
def test_a_condition_read_twice_is_one_variable(tmp_path):
    """Was 1,060 twins in email3 (302 graph generators), now none."""
    email3 = families().email_text((TOPSPIN / "email4.p").read_text(), 3)
    assert _twins(translate(_load(tmp_path, "email3.p", email3))) == 0


def test_twins_in_a_small_model(tmp_path):
    """``x == 2`` tested in three guards of one atomic-sequence check: one auxiliary."""
    text = """byte x; byte y;
active [2] proctype P() {
  do
  :: atomic { x == 2 -> y = 1 }
  :: atomic { x == 2 && y == 1 -> x = 0 }
  :: x != 2 -> x = 2
  od
}"""
    model = _load(tmp_path, "twins.pml", text)
    assert _twins(translate(model)) == 0
    assert _detected_and_verified(model) == 2


@needs_topspin
@pytest.mark.parametrize("n", [2, 3])
def test_email_family_has_n_factorial(tmp_path, n):
    """email2: verified on all its states; email3 (over 200,000 states here, where atomic
    sequences' intermediate states count) on the first 20,000.  Larger N: results/families.md."""
    text = families().email_text((TOPSPIN / "email4.p").read_text(), n)
    model = _load(tmp_path, f"email{n}.p", text)
    assert _detected_and_verified(model, 200_000 if n == 2 else 20_000) == math.factorial(n)


@pytest.mark.parametrize("n", [2, 3])
def test_peterson_family_has_n_factorial(tmp_path, n):
    text = families().peterson_text(n)
    assert _detected_and_verified(_load(tmp_path, f"peterson{n}.pml", text)) == math.factorial(n)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_allocator_family_has_n_factorial(tmp_path, n):
    text = families().allocator_text(n)
    assert _detected_and_verified(_load(tmp_path, f"allocator{n}.pml", text)) == math.factorial(n)
