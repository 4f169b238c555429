"""``results/native_bench.py`` scales BEEM Promela files by their size alone: the scaled files
give the original back at its own size, have the state counts the puzzles dictate, and a file
whose processes are not one template is refused."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from detect.statespace.explore import explore_state_space
from detect.transform.load import load_model

ROOT = Path(__file__).resolve().parents[1]
BEEM = ROOT.parent / "shared" / "corpus" / "beem" / "promela"

pytestmark = pytest.mark.skipif(not BEEM.is_dir(), reason=f"shared corpus not available at {BEEM}")


def bench():
    """The benchmark script as a module (registered first: its dataclasses look themselves up)."""
    if "native_bench" not in sys.modules:
        spec = importlib.util.spec_from_file_location("native_bench", ROOT / "results" / "native_bench.py")
        sys.modules["native_bench"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["native_bench"])
    return sys.modules["native_bench"]


def states(text: str, tmp_path: Path) -> int:
    path = tmp_path / "scaled.pml"
    path.write_text(text)
    return explore_state_space(load_model(str(path)), engine="python").states


def test_each_scaling_gives_the_file_back_at_its_own_size():
    nb = bench()
    for name, n0 in (("peterson.1.pml", 3), ("phils.1.pml", 4), ("phils.2.pml", 5), ("bakery.1.pml", 2)):
        text = (BEEM / name).read_text()
        assert nb.replicate(text, n0, n0) == text, name
    text = (BEEM / "hanoi.1.pml").read_text()
    assert nb.hanoi(text, 8) == text


def test_scaled_puzzles_have_the_counts_their_size_dictates(tmp_path):
    nb = bench()
    # Spin counts 3^N - 1 states at 4 (the file), 10 and 12 philosophers; D disks can lie on
    # 3 pegs in 3^D ways, all reachable, and the init adds two states.
    for n in (2, 5, 6):
        assert states(nb.replicate((BEEM / "phils.1.pml").read_text(), 4, n), tmp_path) == 3 ** n - 1
    for d in (3, 5):
        assert states(nb.hanoi((BEEM / "hanoi.1.pml").read_text(), d), tmp_path) == 3 ** d + 2


def test_processes_that_are_not_one_template_are_refused():
    nb = bench()
    text = (BEEM / "phils.1.pml").read_text()
    with pytest.raises(ValueError, match="more than their integer literals"):
        nb.replicate(text.replace("goto finish;", "goto eat;", 1), 4, 5)
    with pytest.raises(ValueError, match="neither constant nor an index"):
        nb.replicate(text.replace("fork[3]==0", "fork[1]==0", 1), 4, 5)
    with pytest.raises(ValueError, match="proctypes, not"):
        nb.replicate(text, 3, 5)
    with pytest.raises(ValueError, match="not hanoi"):
        nb.hanoi(text, 5)
    hanoi = (BEEM / "hanoi.1.pml").read_text()
    with pytest.raises(ValueError, match="stack of disks"):
        nb.hanoi(hanoi.replace("a[1] =8-0;", "a[1] =7-0;"), 5)
