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
from detect.symmetry.pipeline import detect  # noqa: E402
from detect.statespace.distributed import Spec  # noqa: E402
from detect.statespace.native import build  # noqa: E402
from detect.transform.load import load_model as load  # noqa: E402

from tests.test_explore import is_real_trace  # noqa: E402
from tests.test_models import MODELS, ROOT, parameters_for  # noqa: E402

pytestmark = [pytest.mark.skipif(build.compiler() is None, reason="no C compiler"),
              pytest.mark.xdist_group("ray")]  # one local Ray cluster, on one xdist worker

SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()),
              ROOT.parent / "shared")
BEEM = SHARED / "corpus" / "beem" / "dve"
#: BEEM instances of a few thousand to ~100k states (quick on 2 cores).
BEEM_INSTANCES = ("peterson.1.dve", "hanoi.1.dve", "msmie.1.dve", "phils.2.dve")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray runtime for the module (starting one takes seconds)."""
    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                 runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}})
    from detect.statespace import distributed
    # Start the four workers once (a worker is a process: about a second each).
    ray.get([a.close.remote() for a in distributed._actors(ray, 4)])
    yield
    ray.shutdown()
    from detect.statespace import distributed
    distributed._POOL.clear()


def summary(r):
    return (r.states, r.transitions, r.initial, r.faults, r.truncated,
            frozenset(r.deadlocks), frozenset(r.terminal_states), len(r.deadlock_trace), len(r.fault_trace),
            tuple((a.verdict, a.note, len(a.trace)) for a in r.assertions))


def agree(model, strategy: str, workers=(1, 2, 4)):
    """Distributed runs with each number of workers equal the single-process native run;
    returns whether they ran distributed (not in this process, with a note)."""
    detection = detect(model) if strategy != "none" else None
    one = explore_reduced(model, strategy, detection=detection, explorer="native", workers=1)
    for n in workers:
        dist = explore_reduced(model, strategy, detection=detection, explorer="native", workers=1,
                               distributed=Spec(None, n))
        assert dist.reducer.method == one.reducer.method
        native_ran = not any("distributed exploration unavailable" in x for x in dist.exploration.notes)
        assert dist.exploration.memory_measure.startswith("held per worker")  # it did run on Ray
        assert summary(dist.exploration) == summary(one.exploration), (n, strategy)
        for a in dist.exploration.assertions:
            if a.trace and a.note != "run-time error reachable":
                assert is_real_trace(model, a.trace)
        for trace in (dist.exploration.deadlock_trace, dist.exploration.fault_trace):
            if trace:
                assert is_real_trace(model, trace)
    return native_ran


@pytest.mark.parametrize("path", MODELS,
                         ids=lambda p: str(p.relative_to(ROOT / "models")))
def test_bundled_models_agree(path: Path):
    model = load(str(path), parameters_for(path))
    assert agree(model, "none")
    assert agree(model, "exact")


@pytest.mark.skipif(not BEEM.is_dir(), reason="../shared/corpus/beem is absent")
@pytest.mark.parametrize("name", BEEM_INSTANCES)
def test_beem_agree(name):
    model = load(str(BEEM / name), {})
    assert agree(model, "none")
    assert agree(model, "exact")


@pytest.mark.parametrize("strategy", ["enumerate", "local", "pids"])
def test_other_canonicalisers_agree(strategy):
    """The other canonicalisers are functions of the state alone, so every worker picks the
    same representative: the counts equal one process's (``local`` keeps several per orbit,
    the same several)."""
    assert agree(load(str(ROOT / "models" / "token_circulation.csp"), {"N": 4}), strategy, workers=(4,))
    assert agree(load(str(ROOT / "models" / "dynamic_pool.pml"), {}), strategy, workers=(4,))


def test_memory_is_spread():
    """A run each of whose four workers stays under a limit that the whole state space does
    not fit in: the single-process run stops at that limit, the distributed one completes."""
    from detect.statespace.distributed import explore_distributed
    from detect.statespace.explore import explore_state_space

    model = load(str(ROOT / "models" / "paper" / "peterson.csp"), {"N": 4})
    whole = explore_state_space(model, engine="native", workers=1)
    limit = whole.memory_bytes // 2
    alone = explore_state_space(model, engine="native", workers=1, memory_limit=limit)
    assert alone.memory_limit_reached and alone.states < whole.states
    stats = {}
    spread = explore_distributed(model, Spec(None, 4), memory_limit=limit, stats=stats)
    assert not spread.truncated and summary(spread) == summary(whole)
    assert max(stats["worker_memory"]) <= limit < whole.memory_bytes
    assert stats["routed"] > 0  # the workers did exchange successors


def test_max_states_and_timeout_stop_the_run():
    from detect.statespace.distributed import explore_distributed

    model = load(str(ROOT / "models" / "paper" / "peterson.csp"), {"N": 4})
    r = explore_distributed(model, Spec(None, 4), max_states=500)
    assert r.truncated and not r.memory_limit_reached and 0 < r.states <= 500
    r = explore_distributed(model, Spec(None, 2), timeout=0)
    assert r.truncated and not r.interrupted


def _cli(*args):
    from click.testing import CliRunner

    from detect.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_cli_distributed_matches_single_process():
    import json

    path = str(ROOT / "models" / "token_circulation.csp")
    one = _cli("explore", path, "--json", "--engine", "native", "--reduce", "exact")
    two = _cli("explore", path, "--json", "--engine", "native", "--reduce", "exact", "--distributed", "local:2")
    assert one.exit_code == two.exit_code
    a, b = json.loads(one.output), json.loads(two.output)
    for key in ("states", "transitions", "deadlocks", "faults", "assertions"):
        assert a[key] == b[key], key
    assert b["distributed"] == "local:2 (2 workers)"


def test_cli_bad_spec_is_one_line():
    r = _cli("explore", str(ROOT / "models" / "peterson.csp"), "--distributed", "local:x")
    assert r.exit_code == 2 and r.output.strip().count("\n") == 0 and "local:N" in r.output


def test_cli_without_ray_is_one_line():
    """Without Ray, --distributed says how to install it (exit 2); the rest never imports it."""
    code = ("import sys; sys.modules['ray'] = None; from detect.cli import main; "
            "sys.argv = ['symdetect'] + sys.argv[1:]; main()")
    run = subprocess.run([sys.executable, "-c", code, "explore", str(ROOT / "models" / "peterson.csp"),
                          "--distributed", "local:2"], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'symdetect[distributed]'" in lines[0]


def test_cli_trail_of_a_distributed_run_replays(tmp_path):
    """The counterexample (a deadlock reached through states of several owners) is written as
    a trail that 'symdetect replay' takes again: the same violation, as in one process."""
    import json

    path = str(ROOT / "models" / "dining_philosophers.csp")
    trail = tmp_path / "trail.json"
    one = _cli("explore", path, "--json", "--engine", "native")
    run = _cli("explore", path, "--json", "--distributed", "local:4", "--trail", str(trail))
    assert run.exit_code == one.exit_code == 1
    a, b = json.loads(one.output), json.JSONDecoder().raw_decode(run.output)[0]  # a line on the trail follows
    assert [len(x["trace"]) for x in a["assertions"]] == [len(x["trace"]) for x in b["assertions"]]
    assert _cli("replay", path, str(trail)).exit_code == 1


def test_cli_reduce_graph_is_refused_in_one_line():
    """--reduce graph's representatives are per process (the first state of an orbit met):
    refused under --distributed, exit 2, one line naming what to use instead."""
    r = _cli("explore", str(ROOT / "models" / "peterson.csp"), "--reduce", "graph", "--distributed", "local:2")
    assert r.exit_code == 2 and r.output.strip().count("\n") == 0
    assert "--reduce graph cannot run with --distributed" in r.output and "--reduce exact" in r.output


def test_cli_memory_limit_is_per_worker():
    """The report says the limit bounds each worker: in the figures and on the stop line."""
    r = _cli("explore", str(ROOT / "models" / "paper" / "peterson.csp"), "-D", "N=5", "--no-trace",
             "--distributed", "local:2", "--memory-limit", "256K")
    assert r.exit_code == 3, r.output
    stop = next(line for line in r.output.splitlines() if line.startswith("stopped early"))
    assert "memory limit reached (--memory-limit), 256.0 KiB per worker" in stop
    assert any("memory_limit" in line and "256.0 KiB per worker" in line for line in r.output.splitlines())
