"""Issue 13: wherever the headline group is not trivial, ``explore --reduce exact`` stores
fewer states than an unreduced run.  The headline only counts symmetries that can act on
reachable states, so an acting symmetry moves some reachable state s to another reachable
state, and exact reduction stores one of the two.  Over every bundled model and the cheap
files of the shared corpus (models with more than ``LIMIT`` states are skipped)."""
from __future__ import annotations

import glob
import os
import warnings

import pytest

from detect.checking.reduce import explore_reduced
from detect.symmetry.pipeline import detect
from detect.transform.load import load_model

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT = 20_000
MODELS = sorted(glob.glob(os.path.join(REPO, "models", "**", "*.*"), recursive=True))
#: Corpus files with a few thousand states or fewer and a non-trivial group, or inert
#: generators only (the Mrbaixin and DPoS models).
CORPUS = [os.path.join(REPO, "..", "shared", "corpus", name) for name in (
    "beem/dve/fischer.1.dve", "beem/dve/phils.2.dve", "beem/promela/msmie.1.pml", "murphi/2_peterson.m",
    "pat/jack1e0__cs4211-project3__reader_writer.csp", "pat/binhnguyennus__cs4211-nus__main.csp",
    "pat/Mrbaixin__CSP-Project__system.csp",
)]


@pytest.mark.parametrize("path", MODELS + CORPUS, ids=lambda p: os.path.relpath(p, REPO))
def test_exact_reduction_stores_fewer_states_wherever_the_group_acts(path):
    if not os.path.exists(path):
        pytest.skip(f"{path} is not here (the shared corpus)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        detection = detect(load_model(path), domain_states=1_000_000)
    plain = explore_reduced(detection.model, "none", detection=detection, max_states=LIMIT).exploration
    if plain.truncated:
        pytest.skip(f"more than {LIMIT:,} states")
    reduced = explore_reduced(detection.model, "exact", detection=detection, max_states=LIMIT).exploration
    if detection.group.order == 1:
        assert reduced.states == plain.states
    else:
        assert reduced.states < plain.states, (detection.group.order, [g.description for g in detection.group.acting])
