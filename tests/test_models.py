"""Every bundled model: its detected generators are verified against its explored LTS.

Models are found by globbing ``models/`` (subfolders included), so a new model is covered
the moment it is added.  Each model's header may carry a line ``// test: -D N=2`` (or
``/* test: ... */``, ``# test:``) giving small parameters for this test; otherwise its
defaults are used.  A model whose state space exceeds ``MAX_STATES`` fails the test: give it
a smaller test configuration instead.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from detect.symmetry.pipeline import detect
from detect.checking.verify import verify
from frontends import SUFFIXES
from detect.transform.load import load_model as load

ROOT = Path(__file__).resolve().parent.parent
MODELS = sorted(p for p in (ROOT / "models").rglob("*") if p.suffix in SUFFIXES)
MAX_STATES = 300_000

#: group orders we know independently (the paper, or a count by hand) for default parameters
EXPECTED_ORDER = {
    "token_circulation.csp": 6,  # seed 002 §III-C: 3 rotations × label swap
    "no_symmetry.csp": 1,
}


def parameters_for(path: Path) -> dict[str, int]:
    text = path.read_text(errors="replace")
    match = re.search(r"test:\s*((?:-D\s*\w+=-?\d+\s*)+)", text)
    if not match:
        return {}
    return {k: int(v) for k, v in re.findall(r"-D\s*(\w+)=(-?\d+)", match.group(1))}


def test_models_exist():
    assert len(MODELS) >= 6


@pytest.mark.parametrize("path", MODELS, ids=lambda p: str(p.relative_to(ROOT / "models")))
def test_every_generator_is_a_symmetry_of_the_explored_lts(path: Path):
    model = load(str(path), parameters_for(path))
    detection = detect(model)
    generators = [g.permutation for g in detection.group.generators]
    report = verify(model, generators, max_states=MAX_STATES)
    assert report.complete, f"{path.name}: more than {MAX_STATES} states; add a '// test: -D ...' line"
    assert report.ok, report.summary()
    expected = EXPECTED_ORDER.get(path.name)
    if expected is not None and not parameters_for(path):
        assert detection.group.order == expected


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_token_circulation_group_is_rotations_times_label_swap(n):
    model = load(str(ROOT / "models" / "token_circulation.csp"), {"N": n})
    detection = detect(model)
    if n == 2:
        # Two agents: each is the other's successor, and the true group of the 64 states
        # has order 8 (``analyze --completeness``: 8 of 8), more than rotations and label swap.
        from detect.checking.completeness import completeness

        result = completeness(model, [g.permutation for g in detection.group.generators])
        assert (detection.group.order, result.true_order) == (8, 8)
    else:
        assert detection.group.order == 2 * n
    kinds = {g.kind for g in detection.group.generators}
    assert "process" in kinds and "data" in kinds
    if n <= 4:
        assert verify(model, [g.permutation for g in detection.group.generators]).ok
