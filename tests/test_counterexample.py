"""Counterexamples in the user's terms (issue 26, item 4): every violation has a shortest path
from an initial state whose steps name the process, the source place and text; ``--trail``
writes it and ``replay`` takes it again, checking every step, also under reduction."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from detect.checking.counterexample import Trail, TrailError, describe, read_trail, replay
from detect.cli import main
from detect.statespace.explore import explore_state_space

ROOT = Path(__file__).resolve().parent.parent

RACE = """byte x;
active [2] proctype user() {
  x++;
  assert(x < 2)
}
"""

LASSO = """byte x;
active proctype A() {
  do
  :: x < 2 -> x++
  :: x == 2 -> x = 0
  od
}
never { T0: do :: x == 2 -> goto accept_all :: true od; accept_all: do :: true od }
"""

MURPHI_DEADLOCK = """Var x : 0..3;
Startstate Begin x := 0; End;
Rule "up" x < 2 ==> Begin x := x + 1; End;
Invariant "small" x < 2;
"""


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_failed_assertion_names_processes_places_and_statements(tmp_path):
    model = write(tmp_path, "race.pml", RACE)
    result = run("explore", model)
    assert result.exit_code == 1
    text = result.stdout
    assert "counterexample: a shortest path to the first fault (3 steps)" in text
    # Both increments, by two different processes, then the failing assertion.
    assert "race.pml:3  x++;" in text and "race.pml:4  assert(x < 2)" in text
    assert "user[0] (pid 0)" in text and "user[1] (pid 1)" in text
    assert "fails: assertion violated" in text
    assert "initial state: x=0" in text


def test_trail_is_written_and_replays(tmp_path):
    model, trail = write(tmp_path, "race.pml", RACE), tmp_path / "race.trail"
    assert run("explore", model, "--trail", str(trail)).exit_code == 1
    data = json.loads(trail.read_text())
    assert data["kind"] == "fault" and "assertion violated" in data["violation"]
    steps = data["steps"]
    assert len(steps) == 4 and steps[-1]["fault"] and steps[-1]["where"] == "race.pml:4"
    assert {s["process"] for s in steps[1:]} == {"user[0]", "user[1]"}
    replayed = run("replay", model, str(trail))
    assert replayed.exit_code == 1, replayed.output
    assert "violation reproduced" in replayed.stdout and "race.pml:4  assert(x < 2)" in replayed.stdout


def test_a_trail_that_does_not_fit_is_refused_in_one_line(tmp_path):
    model, trail = write(tmp_path, "race.pml", RACE), tmp_path / "race.trail"
    run("explore", model, "--trail", str(trail))
    data = json.loads(trail.read_text())
    data["steps"][2]["values"][0] = 7  # x cannot be 7 after two increments
    trail.write_text(json.dumps(data))
    result = run("replay", model, str(trail))
    assert result.exit_code == 2
    assert "step 2" in result.stderr and "leads elsewhere" in result.stderr
    trail.write_text("{not json")
    bad = run("replay", model, str(trail))
    assert bad.exit_code == 2 and "race.trail:1:2: not a trail" in bad.stderr


def test_deadlock_trail_replays_for_csp(tmp_path):
    model, trail = str(ROOT / "models" / "dining_philosophers.csp"), tmp_path / "d.trail"
    result = run("explore", model, "--trail", str(trail))
    assert result.exit_code == 1
    assert "Phil(0) & Fork(0)" in result.stdout and "[get.0.0]" in result.stdout
    data = json.loads(trail.read_text())
    assert data["kind"] == "deadlock"
    replayed = run("replay", model, str(trail))
    assert replayed.exit_code == 1 and "no step and is not a valid end state" in replayed.stdout


def test_acceptance_cycle_is_a_lasso(tmp_path):
    model, trail = write(tmp_path, "lasso.pml", LASSO), tmp_path / "l.trail"
    result = run("explore", model, "--trail", str(trail))
    assert result.exit_code == 1
    assert "<<<<< the cycle starts here >>>>>" in result.stdout
    data = json.loads(trail.read_text())
    assert data["kind"] == "cycle"
    k = data["loop_from"]
    assert data["steps"][k]["values"] == data["steps"][-1]["values"] and k < len(data["steps"]) - 1
    replayed = run("replay", model, str(trail))
    assert replayed.exit_code == 1 and "the cycle repeats" in replayed.stdout


def test_murphi_invariant_trail_names_rules(tmp_path):
    model, trail = write(tmp_path, "inv.m", MURPHI_DEADLOCK), tmp_path / "m.trail"
    result = run("explore", model, "--trail", str(trail))
    assert result.exit_code == 1
    assert 'Rule "up"' in result.stdout
    assert run("replay", model, str(trail)).exit_code == 1


@pytest.mark.parametrize("strategy", ["exact", "graph"])
def test_reduced_counterexamples_are_real_paths(tmp_path, strategy):
    """Under reduction the path is un-permuted: it replays on the unreduced model."""
    model, trail = str(ROOT / "models" / "dining_philosophers.csp"), tmp_path / "r.trail"
    result = run("explore", model, "--reduce", strategy, "--trail", str(trail))
    assert result.exit_code == 1
    assert run("replay", model, str(trail)).exit_code == 1


def test_json_carries_the_counterexample(tmp_path):
    model = write(tmp_path, "race.pml", RACE)
    data = json.loads(run("explore", model, "--json").stdout)
    steps = data["fault_counterexample"]
    assert steps[0]["step"] == 0 and steps[-1]["fault"]
    assert all(s["where"].startswith("race.pml:") for s in steps[1:])


def test_replay_api_rejects_a_step_that_is_not_enabled(tmp_path):
    from frontends.promela import load

    model = load(write(tmp_path, "race.pml", RACE))
    result = explore_state_space(model)
    trace = result.fault_trace
    assert [m.process for m in describe(model, trace)][-1] in ("user[0]", "user[1]")
    from detect.checking.counterexample import moves_json

    steps = moves_json(model, trace)
    assert replay(model, Trail("race.pml", {}, "x", "fault", steps)).recurred
    broken = steps[:1] + steps[2:]  # drop a step: the next one leads elsewhere
    with pytest.raises(TrailError):
        replay(model, Trail("race.pml", {}, "x", "fault", broken))
    with pytest.raises(TrailError):
        read_trail(write(tmp_path, "x.trail", json.dumps({"format": "other"})))


LABELLED = """byte x;
active [2] proctype P() {
again:
  x++;
  if
  :: x < 3 -> goto again
  :: else
  fi;
cs:
  assert(x < 3)
}
"""


def test_program_counters_show_as_labels_and_lines(tmp_path):
    """States name a location as a Spin user does: its label, else the line of the statement
    that leaves it (not our location numbers)."""
    result = run("explore", write(tmp_path, "labelled.pml", LABELLED), "--json")
    assert result.exit_code == 1
    violation = next(a for a in json.loads(result.stdout)["assertions"] if a.get("counterexample"))
    steps = violation["counterexample"]
    assert steps[0]["state"]["P_0.pc"] == "again" and steps[0]["state"]["P_1.pc"] == "again"
    shown = {value for step in steps for name, value in step["state"].items() if name.endswith(".pc")}
    assert "cs" in shown and "line 6" in shown and not any(v.isdigit() for v in shown)
    # The numbers stay in the trail, so replay does not depend on the names.
    assert all(isinstance(v, int) for v in steps[-1]["values"])
