"""Each CSP# ``#assert`` is about its own process (issue 25, item 3).

Before, every assertion got its verdict from the state space of the first assertion's
process: ``#assert P() deadlockfree`` held because ``Q()`` was explored.  Now ``explore``
explores each asserted process for its own assertions; with ``--process X`` (a name, or a
call ``X(args)``) only X is explored and the others are "not checked".  The verdicts below
are derived by hand from PAT's semantics.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from detect.cli import main
from frontends.csp import parse_text

LOCATED = re.compile(r"^symdetect: .+:\d+:\d+: .+$")

#: P() deadlocks after a (Stop); Q() terminates after b (Skip: a valid end, no deadlock).
DEADLOCK = """\
P() = a -> Stop;
Q() = b -> Skip;
#assert Q() deadlockfree;
#assert P() deadlockfree;
"""

#: Q() reaches x == 2 only, P() x == 1 only.
REACHES = """\
var x = 0;
P() = a{x = 1} -> Stop;
Q() = b{x = 2} -> Skip;
#assert Q() reaches x == 2;
#assert P() reaches x == 2;
#assert P() reaches x == 1;
"""

#: Two calls of one process with other arguments are two processes.
ARGUMENTS = """\
#define K 2;
var x = 0;
P(i) = a{x = i} -> Stop;
#assert P(1) reaches x == 1;
#assert P(K) reaches x == 1;
#assert P(3 - 1) reaches x == 2;
"""


def explore(tmp_path, text: str, *options: str):
    path = tmp_path / "m.csp"
    path.write_text(text)
    result = CliRunner().invoke(main, ["explore", str(path), *options], catch_exceptions=False)
    return result


def verdicts(result) -> list[str]:
    return [a["verdict"] for a in json.loads(result.stdout)["assertions"]]


def test_each_deadlockfree_is_checked_on_its_own_process(tmp_path):
    result = explore(tmp_path, DEADLOCK, "--json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert verdicts(result) == ["holds", "fails"]
    assert data["states"] == 2  # Q(): b, then Skip
    second = data["assertions"][1]
    assert second["explored"] == {"process": "P()", "states": 2, "transitions": 1, "faults": 0, "bounds": 0,
                                  "truncated": False}
    assert [step["event"] for step in second["trace"]] == [None, "a"]
    assert "explored" not in data["assertions"][0]


def test_text_report_names_the_process_explored(tmp_path):
    result = explore(tmp_path, DEADLOCK)
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if line.startswith("assert ")]
    assert lines == ["assert #assert Q() deadlockfree;: holds",
                     "assert #assert P() deadlockfree;: fails (deadlock reachable; explored P(): 2 states, "
                     "1 transition)"]
    # P's trace, shown as a run of P's model (its step, its state)
    trace = result.stdout.split("explored P()", 1)[1]
    assert "initial state: pc_P=0" in trace and "1. P  m.csp:1  a -> Stop;" in trace and "pc_P=1" in trace


def test_process_option_checks_only_that_process(tmp_path):
    only_q = explore(tmp_path, DEADLOCK, "--process", "Q", "--json")
    assert only_q.exit_code == 0, only_q.output
    assert verdicts(only_q) == ["holds", "not checked"]
    note = json.loads(only_q.stdout)["assertions"][1]
    assert note["about"] == "P()" and "--process 'P()'" in note["note"]
    only_p = explore(tmp_path, DEADLOCK, "--process", "P", "--json")
    assert only_p.exit_code == 1
    assert verdicts(only_p) == ["not checked", "fails"]


def test_reaches_is_checked_on_its_own_process(tmp_path):
    result = explore(tmp_path, REACHES, "--json")
    assert result.exit_code == 1  # P() never reaches x == 2
    assert verdicts(result) == ["holds", "fails", "holds"]
    only_p = explore(tmp_path, REACHES, "--process", "P", "--json")
    assert verdicts(only_p) == ["not checked", "fails", "holds"]


def test_arguments_tell_processes_apart(tmp_path):
    model = parse_text(ARGUMENTS)
    assert [a.about for a in model.assertions] == ["", "P(2)", "P(2)"]
    result = explore(tmp_path, ARGUMENTS, "--json")
    assert verdicts(result) == ["holds", "fails", "holds"]
    assert result.exit_code == 1
    second = explore(tmp_path, ARGUMENTS, "--process", "P(2)", "--json")
    assert verdicts(second) == ["not checked", "fails", "holds"]
    first = explore(tmp_path, ARGUMENTS, "--process", "P( 1 )", "--json")
    assert verdicts(first) == ["holds", "not checked", "not checked"]
    assert first.exit_code == 0


def test_a_condition_about_another_process_is_not_translated():
    model = parse_text(REACHES)
    assert [(a.about, a.condition is None) for a in model.assertions] == [
        ("", False), ("P()", True), ("P()", True)]


@pytest.mark.parametrize("text, option, message", [
    (DEADLOCK, "P(", "expected a process name, or a call such as 'P(1)'"),
    (DEADLOCK, "R", "no process named 'R'"),
    (ARGUMENTS, "P(1, 2)", "system process 'P' needs 1 argument(s), got 2"),
    (ARGUMENTS, "P(])", "the arguments must be expressions"),
])
def test_bad_process_option_is_one_line(tmp_path, text, option, message):
    result = explore(tmp_path, text, "--process", option)
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1, result.output


def test_an_assertion_on_an_unknown_process_is_located(tmp_path):
    result = explore(tmp_path, DEADLOCK + "#assert R() deadlockfree;\n")
    assert result.exit_code == 2
    assert LOCATED.match(result.output.strip()) and ":5:" in result.output
    assert "unknown process 'R' in #assert" in result.output


def test_trail_is_a_run_of_the_process_explored(tmp_path):
    """--trail writes the system process's counterexample only (a replay loads that process):
    P()'s deadlock, found by the default run, needs --process."""
    trail = tmp_path / "t.json"
    default = explore(tmp_path, DEADLOCK, "--trail", str(trail))
    assert default.exit_code == 1 and not trail.exists()
    assert "pass --process 'P()' to write its counterexample" in default.stderr
    only_p = explore(tmp_path, DEADLOCK, "--process", "P", "--trail", str(trail))
    assert only_p.exit_code == 1 and json.loads(trail.read_text())["kind"] == "deadlock"


def test_a_process_that_cannot_be_explored_leaves_its_assertions_unknown(tmp_path):
    """Q() is refused ('||' inside a sequential process): P()'s verdict stands, Q()'s is
    unknown with the reason, and the run is incomplete (exit 3), not refused as a whole."""
    text = ("P() = a -> Skip;\nQ() = b -> (R() || Q());\nR() = c -> Skip;\n"
            "#assert P() deadlockfree;\n#assert Q() deadlockfree;\n")
    result = explore(tmp_path, text, "--json")
    assert result.exit_code == 3, result.output
    first, second = json.loads(result.stdout)["assertions"]
    assert first["verdict"] == "holds"
    assert second["verdict"] == "unknown" and "cannot explore Q(): " in second["note"]
    assert "'||' inside a sequential process is not supported" in second["note"]


CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "pat"
#: Third-party files asserting on more than one process (issue 25's reproducer among them).
SEVERAL = ["lunarmoon26__CS5232-IoT__lifx_-_Jack.csp", "binhnguyennus__cs4211-nus__eventDeadlock.csp",
           pytest.param("dukesun99__DPoSFormalVarification__model_v2.csp", marks=pytest.mark.slow)]


@pytest.mark.parametrize("name", SEVERAL)
def test_corpus_verdicts_are_those_of_each_process_alone(name):
    """The default run gives each assertion the verdict that a run of its own process alone
    (--process) gives it."""
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"{path} is not here")

    def run(*options):
        result = CliRunner().invoke(main, ["explore", str(path), "--json", "--no-trace", *options],
                                    catch_exceptions=False)
        assert result.exit_code in (0, 1), result.output
        return json.loads(result.stdout)["assertions"]

    default = run()
    processes = {a.get("explored", {}).get("process") for a in default}
    assert len(processes) > 1  # several processes were explored
    checked = 0
    for process in sorted(p for p in processes if p is not None):
        alone = run("--process", process)
        for mine, theirs in zip(default, alone):
            if theirs["verdict"] != "not checked":
                assert mine["verdict"] == theirs["verdict"], (process, mine["text"])
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("strategy", ["exact", "local"])
def test_reduced_runs_check_each_process_too(tmp_path, strategy):
    for text, expected in ((DEADLOCK, ["holds", "fails"]), (REACHES, ["holds", "fails", "holds"])):
        result = explore(tmp_path, text, "--reduce", strategy, "--json")
        assert verdicts(result) == expected and result.exit_code == 1
