"""``explore --memory-limit``: a clear, honest stop for both explorers (exit 3 unless
``--partial-ok``; the JSON report says what was explored, that the limit was reached, and the
bytes per state)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from detect.cli import Failure, main, parse_size
from detect.ir import Assign, Binary, Const, Event, Name, SequentialModel, Summand, Variable
from detect.statespace.explore import explore_state_space
from detect.statespace.native import build

from tests.test_models import ROOT

PETERSON = str(ROOT / "models" / "peterson_filter.pml")
GERMAN = str(ROOT / "models" / "murphi" / "german_small.m")
native_only = pytest.mark.skipif(build.compiler() is None, reason="no C compiler")


def _counter(n: int) -> SequentialModel:
    return SequentialModel(
        "counter", (Variable("x", tuple(range(n)), ((0,),)),),
        (Summand((), Binary("<", Name("x"), Const(n - 1)), Event("inc"),
                 (Assign(Name("x"), Binary("+", Name("x"), Const(1))),)),))


def test_sizes_parse_in_binary_units():
    assert parse_size("2G") == 2 << 30
    assert parse_size("512m") == 512 << 20
    assert parse_size("1.5GiB") == 3 << 29
    assert parse_size("100k") == 102_400
    assert parse_size("4096") == 4096
    for bad in ("", "G", "-1M", "two", "1X", "nan"):
        with pytest.raises(Failure):
            parse_size(bad)


@native_only
def test_native_explorer_stops_before_the_limit():
    model = _counter(1_000_000)
    full = explore_state_space(model, engine="native", max_states=300_000)
    assert not full.memory_limit_reached and full.memory_bytes > 1 << 20
    limited = explore_state_space(model, engine="native", memory_limit=1 << 20)
    assert limited.truncated and limited.memory_limit_reached and not limited.interrupted
    assert 1000 < limited.states < 300_000
    assert limited.memory_bytes <= 1 << 20  # it counts what it allocates and stops first
    assert limited.bytes_per_state == limited.memory_bytes / limited.states
    small = explore_state_space(_counter(100), engine="native", memory_limit=1 << 20)
    assert small.states == 100 and not small.truncated and not small.memory_limit_reached


#: runtime.c's CHUNK: states per chunk of packed states and parent ids.
_CHUNK = 16384


@native_only
@pytest.mark.parametrize("workers", [1, 2])
def test_bytes_per_state_stay_within_the_record_and_a_table_at_load_three_eighths(workers):
    """german_small N=4 (544,617 states; CMurphi -nosym holds 33 bytes a state for it): what
    the native explorer holds per state is the packed state and its 4-byte parent id, at most
    8/3 table slots of 4 bytes (the table doubles past load 3/4, so its load is at least 3/8),
    and per worker at most one chunk of records not yet filled; two workers add their routing
    boxes (bounded here by 2 bytes a state: a round's routed successors).  Before the records
    were packed and the table slots halved this was 54 (1 worker)."""
    from detect.ir import state_slots
    from detect.statespace.native import explore_native
    from detect.statespace.native.codegen import _layout
    from detect.transform.load import load_model

    model = load_model(GERMAN, {"N": 4})
    nbytes = _layout(state_slots(model))[2]
    assert nbytes == 8  # 27 slots, 59 bits
    stats: dict = {}
    result = explore_native(model, workers=workers, stats=stats)
    assert result.states == stats["states"] == 544_617 and not result.truncated
    record = nbytes + 4
    bound = record + 4 * 8 / 3 + workers * _CHUNK * record / result.states + (workers - 1) * 2
    assert stats["bytes"] / result.states <= bound
    assert result.bytes_per_state == stats["bytes"] / result.states


@native_only
def test_the_native_explorer_counts_its_list_of_deadlocks():
    """200,000 initial states, deadlocked or each with a self-loop: the deadlocked run also
    holds the list of its deadlocks (4 bytes each), and says so; a limit stops that list too."""
    n = 200_000

    def model(loop: bool) -> SequentialModel:
        steps = (Summand((), Const(1), Event("stay"), ()),) if loop else ()
        return SequentialModel("many", (Variable("x", tuple(range(n)), (tuple(range(n)),)),), steps)

    live = explore_state_space(model(True), engine="native", workers=1)
    dead = explore_state_space(model(False), engine="native", workers=1)
    assert live.states == dead.states == n and len(dead.deadlocks) == n and not live.deadlocks
    assert dead.memory_bytes - live.memory_bytes >= 4 * n
    limit = live.memory_bytes + 2 * n  # room for the states, not for the whole list
    stopped = explore_state_space(model(False), engine="native", workers=1, memory_limit=limit)
    assert stopped.memory_limit_reached and stopped.memory_bytes <= limit


def test_python_explorer_reports_its_resident_growth():
    result = explore_state_space(_counter(2000), engine="python", memory_limit=1 << 40)
    assert result.states == 2000 and not result.memory_limit_reached
    assert result.memory_measure == "resident set growth of the process"


def _cli(*args: str) -> tuple[int, dict]:
    run = CliRunner().invoke(main, ["explore", PETERSON, "-D", "N=4", "--json", *args])
    return run.exit_code, json.loads(run.output)


@native_only
def test_cli_native_memory_limit_exit_code_and_json():
    code, data = _cli("--engine", "native", "--memory-limit", "256K")
    assert code == 3
    assert data["memory_limit"] == 256 << 10 and data["memory_limit_reached"] and data["truncated"]
    assert 0 < data["states"] and data["bytes"] <= 256 << 10
    assert data["bytes_per_state"] == pytest.approx(data["bytes"] / data["states"], abs=0.1)
    assert data["assertions"][0]["verdict"] == "unknown"
    code, partial = _cli("--engine", "native", "--memory-limit", "256K", "--partial-ok")
    assert code == 0 and partial["states"] == data["states"]
    code, full = _cli("--engine", "native")
    assert code == 0 and not full["memory_limit_reached"] and full["states"] > data["states"]
    assert full["bytes_per_state"] > 0 and "memory_limit" not in full


def test_cli_python_memory_limit_in_a_fresh_process():
    # A fresh process: in this one, memory freed by earlier tests would be reused unseen.
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-m", "detect.cli", "explore", PETERSON, "-D", "N=4",
                          "--json", "--engine", "python", "--memory-limit", "4M"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 3, run.stderr
    data = json.loads(run.stdout)
    assert data["memory_limit_reached"] and data["truncated"] and data["states"] > 0
    assert data["bytes"] > 4 << 20 and data["memory_measure"] == "resident set growth of the process"


def test_cli_refuses_a_bad_size():
    run = CliRunner().invoke(main, ["explore", PETERSON, "--memory-limit", "lots"])
    assert run.exit_code == 2 and "--memory-limit expects a size" in run.output
