"""Stops are prompt and bounded, in every stage (issue 26, item 6): the automorphism search
is killed at once when the run stops, init's start-up is not unrolled without end, deep
nesting is translated as Spin takes it, and the TopSPIN models that hung stop at their
time-out or signal with one line and exit 3 (results/stop_latency.md has the measurements)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from detect.cli import main
from detect.symmetry import automorphisms
from detect.symmetry.automorphisms import SearchFailed, in_child
from tests.spin_oracle import spin_available, spin_counts

ROOT = Path(__file__).resolve().parent.parent
TOPSPIN = ROOT.parent / "shared" / "corpus" / "topspin"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def nested_ifs(depth: int) -> str:
    return "byte x;\nactive proctype P() {\n" + "if :: true -> " * depth + "skip" + " fi" * depth + "\n}\n"


def test_in_child_returns_the_result_and_raises_the_error():
    assert in_child(sum, [1, 2, 3]) == 6
    with pytest.raises(ValueError):
        in_child(int, "not a number")


def test_in_child_stops_at_once_when_interrupted():
    """What a stuck nauty/bliss search gets: the alarm (as --timeout's) kills the child."""
    def alarm(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        start = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            in_child(time.sleep, 30)
        # Not a timing test (results/stop_latency.md measures how fast): the child's 30 s
        # sleep must not be waited out.
        assert time.perf_counter() - start < 15
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _killed_by_the_kernel() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_search_killed_without_a_result_says_so():
    """CMurphi's others/cache3.m: the search grew to 19 GB and the kernel killed it; that was
    a traceback.  Now it is SearchFailed, naming the signal."""
    with pytest.raises(SearchFailed, match="killed by SIGKILL"):
        in_child(_killed_by_the_kernel)


def test_the_search_child_is_bounded_by_the_memory_the_machine_has():
    import resource

    if not Path("/proc/meminfo").exists():
        pytest.skip("no /proc/meminfo: the search runs unbounded")
    soft, _ = in_child(resource.getrlimit, resource.RLIMIT_AS)
    assert soft != resource.RLIM_INFINITY
    free = next(int(line.split()[1]) * 1024 for line in open("/proc/meminfo") if line.startswith("MemAvailable:"))
    assert soft < 4 * (free + os.sysconf("SC_PAGE_SIZE") * int(open("/proc/self/statm").read().split()[0]))


def test_a_search_out_of_memory_is_one_line_and_exit_3(monkeypatch, tmp_path):
    def out_of_memory(graph, engine="auto"):
        raise SearchFailed("the automorphism search was killed by SIGKILL without a result, most likely out of memory")

    from detect.symmetry import pipeline

    monkeypatch.setattr(automorphisms, "automorphisms", out_of_memory)
    monkeypatch.setattr(pipeline, "automorphisms", out_of_memory)
    # A model of its own: a cached detection of a bundled model would not search at all.
    path = tmp_path / "search.pml"
    path.write_text(f"// {tmp_path}\nbyte x;\nactive [2] proctype P() {{ x++ }}\n")
    result = run("analyze", str(path))
    assert result.exit_code == 3, result.output
    assert "killed by SIGKILL" in result.output and "Traceback" not in result.output
    assert result.output.strip().count("\n") == 0


def test_a_counting_init_loop_loads_at_once_with_spins_states(tmp_path):
    """``init { byte i; do :: i++ od }``: init's start-up was unrolled 20,000 steps (two
    minutes to load, 20,256 states); Spin: 256 states."""
    path = tmp_path / "counter.pml"
    text = "init { byte i; do :: i++ od }\n"
    path.write_text(text)
    result = run("explore", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert '"states": 256,' in result.stdout
    if spin_available():
        assert spin_counts(text, tmp_path).stored == 256


def test_init_start_up_still_starts_its_processes_then_loops(tmp_path):
    """The plan keeps init's runs; only what follows the last run is left to init's own code."""
    text = ("byte n;\nproctype W() { n++ }\n"
            "init { byte i; run W(); run W(); do :: i < 3 -> i++ :: else -> break od; (n == 2) }\n")
    path = tmp_path / "runs.pml"
    path.write_text(text)
    result = run("explore", str(path), "--json")
    assert result.exit_code == 0, result.output
    if spin_available():
        assert f'"states": {spin_counts(text, tmp_path).stored},' in result.stdout


@pytest.mark.parametrize("depth", [200, 300])
def test_deeply_nested_ifs_are_translated_as_spin_takes_them(tmp_path, depth):
    """200 nested ``if`` were a RecursionError (exit 1, then a one-line refusal); Spin
    takes 300 (303 states)."""
    path = tmp_path / "nested.pml"
    path.write_text(nested_ifs(depth))
    explored = run("explore", str(path), "--json")
    assert explored.exit_code == 0, explored.output
    assert f'"states": {depth + 3},' in explored.stdout
    analysed = run("analyze", str(path))
    assert analysed.exit_code == 0, analysed.output
    assert "group order on states: 1" in analysed.output


def _topspin(name: str) -> Path:
    path = TOPSPIN / name
    if not path.exists():
        pytest.skip(f"{path} absent (the shared corpus is not installed)")
    return path


@pytest.mark.parametrize("name", ["badlytyped_email.p", "badlytyped_priority.p", "email4.p"])
def test_topspin_models_stop_at_their_time_out(name):
    path = _topspin(name)
    start = time.perf_counter()
    # (These ran minutes before; email.p now analyses in ~2.3 s here, so the time-out is
    # well under that: the test is of the stop, not of the model's speed.)
    result = subprocess.run([sys.executable, "-m", "detect.cli", "analyze", str(path), "--timeout", "0.5"],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    elapsed = time.perf_counter() - start
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert result.stderr.strip().count("\n") == 0 and "time-out of 0.5 s reached while" in result.stderr
    # Stopped, not run to its end (67 s and more before): how fast is measured in
    # results/stop_latency.md, not asserted here (a loaded CI machine is slow to start).
    assert elapsed < 0.5 + 30


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_topspin_models_stop_at_a_signal(how):
    path = _topspin("badlytyped_priority.p")
    # As at a terminal: SIGINT handled by default (a background job of a script ignores it).
    proc = subprocess.Popen([sys.executable, "-m", "detect.cli", "explore", str(path), "--reduce", "exact"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(2.5)
    start = time.perf_counter()
    os.kill(proc.pid, how)
    try:
        _, stderr = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"{how.name} ignored")
    # (communicate's 10 s bound above is what fails a signal that is ignored; the latency
    # itself is measured in results/stop_latency.md)
    assert proc.returncode == 3, stderr
    assert "Traceback" not in stderr and "interrupted while" in stderr


def test_a_loop_in_d_step_is_analysed_not_refused_as_too_deep(tmp_path):
    """``d_step { do :: y < 3 -> y++ :: else -> break od }`` explored, but analyze said "model
    nested too deeply to translate" (the translation unrolls the loop 256 rounds, recursing
    per round).  A one-bit counter keeps the test short (the byte one takes ~12 s)."""
    path = tmp_path / "dstep.pml"
    path.write_text("bit y;\nactive proctype P() {\n  d_step { do :: y < 1 -> y++ :: else -> break od }\n}\n")
    result = run("analyze", str(path))
    assert result.exit_code == 0, result.output
    assert "group order on states: 1" in result.output
