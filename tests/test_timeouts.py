"""Bounded work before exploration (issue 16): ``--timeout`` covers every stage of a run, and
``--graph-limit`` refuses a coloured graph too large, before building it.

Domain narrowing, the coloured graph, the automorphism search and the state group stop
within the time-out with exit code 3 and one line naming the stage; an interrupt there says
the same; a timer the caller had set is restored afterwards.
"""
from __future__ import annotations

import re
import signal
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import detect.checking.reduce  # noqa: F401  (imported before the clock starts, as a warm run has it)
from detect.cli import main

ROOT = Path(__file__).resolve().parent.parent

#: Two counter pairs bounded only relationally (``hi - lo`` stays 0..1): the value analysis
#: cannot bound them, so loading takes their domains from the reachable states, which
#: number about (2·3000)² -- far more than a short time-out lets narrowing explore.
COUNTERS = """\
#define N 3000;
var lo[2]; var hi[2];
P(i) = [hi[i] - lo[i] == 0 && lo[i] < N] up.i{hi[i] = hi[i] + 1;} -> P(i)
    [] [hi[i] - lo[i] == 1] catch.i{lo[i] = lo[i] + 1;} -> P(i);
Sys() = ||| i:{0..1} @ P(i);
"""
SLACK = 3.0  # seconds past the time-out allowed to a loaded machine


def _run(args):
    start = time.perf_counter()
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    return result, time.perf_counter() - start


def _one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


@pytest.mark.parametrize("command", [["analyze"], ["analyze", "--verify"], ["explore", "--reduce", "exact"],
                                     ["explore"]])
def test_domain_narrowing_stops_at_the_time_out(tmp_path, command):
    path = tmp_path / "counters.csp"
    path.write_text(COUNTERS)
    result, seconds = _run([*command, str(path), "--timeout", "1.5"])
    assert result.exit_code == 3, result.output
    assert seconds < 1.5 + SLACK
    line = _one_line(result)
    # Past the first half second the line also says how far narrowing's exploration got.
    assert re.fullmatch(re.escape(f"symdetect: {path}: time-out of 1.5 s reached while loading the model (front end "
                                  "and domain narrowing)")
                        + r"( \(domain narrowing: exploring, [\d,]+ states, [\d,]+ states/s, [\d,]+ transitions(, BFS level [\d,]+)?\))?"
                        + re.escape("; the run is incomplete: raise --timeout"), line), line


def test_an_interrupt_during_narrowing_names_the_stage(tmp_path, monkeypatch):
    from detect.transform import narrowing

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(narrowing, "reachable_graph", interrupted)
    path = tmp_path / "counters.csp"
    path.write_text(COUNTERS)
    result, _ = _run(["analyze", str(path)])
    assert result.exit_code == 3
    assert _one_line(result) == (f"symdetect: {path}: interrupted while loading the model (front end and "
                                 "domain narrowing); the run is incomplete")


@pytest.mark.parametrize("stage, module, text", [
    ("build_graph", "pipeline", "building the coloured graph"),
    ("automorphisms", "pipeline", "searching the automorphisms"),
    ("symmetry_group", "pipeline", "computing the state group"),
])
def test_every_detection_stage_is_under_the_time_out(monkeypatch, stage, module, text):
    """A stage that would run for a minute stops at the time-out (``analyze`` and ``explore
    --reduce``), naming the stage and what it works on."""
    from detect.symmetry import pipeline

    real = getattr(pipeline, stage)

    def slow(*args, **kwargs):
        time.sleep(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, stage, slow)
    model = str(ROOT / "models" / "peterson.csp")
    commands = [["analyze"]] + ([["explore", "--reduce", "exact"]] if stage == "build_graph" else [])
    for command in commands:
        # 5 s: loading must finish first, on a machine that may be loaded
        result, seconds = _run([*command, model, "--timeout", "5"])
        assert result.exit_code == 3, result.output
        assert seconds < 5 + SLACK
        line = _one_line(result)
        assert line.startswith(f"symdetect: {model}: time-out of 5 s reached while detecting symmetries ({text}")
        assert line.endswith("the run is incomplete: raise --timeout")


def test_a_complete_run_within_the_time_out_is_unchanged():
    model = str(ROOT / "models" / "peterson.csp")
    bounded, _ = _run(["analyze", model, "--json", "--timeout", "600"])
    free, _ = _run(["analyze", model, "--json"])
    assert bounded.exit_code == free.exit_code == 0
    import json

    a, b = json.loads(bounded.stdout), json.loads(free.stdout)
    assert (a["group_order"], a["generators"]) == (b["group_order"], b["generators"])


def test_the_callers_timer_is_restored():
    """The fuzz tests guard each program with their own ``ITIMER_REAL``: a run with
    ``--timeout`` must give it back, less the time it spent."""
    fired = []

    def handler(signum, frame):
        fired.append(True)

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 300)
        result, seconds = _run(["analyze", str(ROOT / "models" / "peterson.csp"), "--timeout", "60"])
        assert result.exit_code == 0
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 300 - seconds - 1 <= left <= 300 - seconds + 0.5
        assert signal.getsignal(signal.SIGALRM) is handler and not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_an_interrupt_inside_bliss_is_an_interrupt_not_a_system_error(monkeypatch):
    """igraph runs signal handlers during the search and wraps what they raise in a
    SystemError (a traceback under ``timeout``'s SIGTERM): it is unwrapped."""
    import igraph

    from detect.symmetry.automorphisms import automorphisms
    from detect.symmetry.graph import ColouredGraph

    def search(self, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise SystemError("automorphism_group returned a result with an exception set") from e

    monkeypatch.setattr(igraph.GraphBase, "automorphism_group", search)  # the C graph bliss runs on
    graph = ColouredGraph(2, ((0, 1),), (0, 0), ("a",), ("x", "x"), ("u", "v"), ())
    with pytest.raises(KeyboardInterrupt):
        automorphisms(graph, "bliss")


@pytest.mark.parametrize("name, defines", [("peterson.csp", {}), ("token_circulation.csp", {"N": 7}),
                                           ("murphi/german_small.m", {}), ("token_pool.pml", {}),
                                           ("no_symmetry.csp", {})])
def test_graph_size_is_known_before_building(name, defines):
    """The estimate has the nodes exactly and at least the edges (built edges are deduplicated)."""
    from detect.symmetry.constraints import translate
    from detect.symmetry.graph import build_graph, graph_size
    from detect.transform.load import load_model

    csp = translate(load_model(ROOT / "models" / name, defines))
    nodes, edges = graph_size(csp)
    graph = build_graph(csp)
    assert nodes == graph.n and edges >= len(graph.edges)


def test_a_parameter_too_large_for_the_graph_limit_is_refused_naming_it_and_the_option():
    model = str(ROOT / "models" / "token_circulation.csp")
    for command in (["analyze"], ["explore", "--reduce", "exact"]):
        result, _ = _run([*command, model, "-D", "N=50", "--graph-limit", "10000"])
        assert result.exit_code == 2
        assert _one_line(result) == (f"symdetect: {model}: the coloured graph would have 4,294 nodes and up to "
                                     "8,795 edges, more than 10,000 in all; lower the parameters (N=50) or "
                                     "raise --graph-limit")


@pytest.mark.parametrize("command", [["analyze"], ["explore"]])
def test_the_alarm_never_raises_inside_a_garbage_collector_callback(tmp_path, monkeypatch, command):
    """An exception raised inside a gc callback is dropped as "unraisable" (hypothesis has one,
    and pytest then warns): the time-out waits for the collection's end, and is not late."""
    import gc
    import sys

    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", dropped.append)

    def slow_callback(phase, info):  # much of the run's time is spent here
        time.sleep(0.005)

    path = tmp_path / "counters.csp"
    path.write_text(COUNTERS)
    threshold = gc.get_threshold()
    gc.callbacks.append(slow_callback)
    gc.set_threshold(200)  # collections often, but with work between them
    try:
        result, seconds = _run([*command, str(path), "--timeout", "1"])
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(slow_callback)
    assert dropped == [], [d.exc_type for d in dropped]
    assert result.exit_code == 3, result.output
    assert seconds < 1 + SLACK
    assert "time-out of 1 s reached while loading the model" in _one_line(result)
    assert slow_callback not in gc.callbacks and sys.unraisablehook == dropped.append
    assert gc.isenabled()  # paused only until the deferred alarm fired


def test_an_alarm_that_reaches_a_finaliser_fires_again_after_it(monkeypatch):
    """A finaliser cannot propagate the time-out: it is not lost (nor printed), but raised
    again at once in the code the finaliser interrupted."""
    import os
    import sys

    from detect.cli import Run, TimedOut

    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", dropped.append)

    class Finalised:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGALRM)  # the deadline passes while it runs
            time.sleep(0.01)

    run = Run("m", 600)
    run.arm()
    start = time.perf_counter()
    try:
        with pytest.raises(TimedOut):
            thing = Finalised()
            del thing
            time.sleep(5)
    finally:
        run.disarm()
    assert time.perf_counter() - start < 1
    assert dropped == [] and sys.unraisablehook == dropped.append
