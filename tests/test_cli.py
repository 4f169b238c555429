"""The command line: reports mean what they say, bad input is one line with exit code 2."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detect.cli import main

ROOT = Path(__file__).resolve().parent.parent
TOKEN = str(ROOT / "models" / "token_circulation.csp")
LITERAL = re.compile(r"^[\w.]+(\[\d+\])?=-?\d+$")
LOCATED = re.compile(r"^symdetect: .+:\d+:\d+: .+$")


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_analyze_json_token_circulation():
    result = run("analyze", TOKEN, "-D", "N=3", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["model"] == "token_circulation"
    assert data["parameters"]["N"] == 3
    assert data["group_order"] == 6
    assert data["graph_group_order"] % data["group_order"] == 0
    assert {g["kind"] for g in data["generators"]} <= {"process", "variable", "data", "mixed"}
    assert {"process", "data"} <= {g["kind"] for g in data["generators"]}
    for g in data["generators"]:
        assert g["cycles"] and all(LITERAL.match(lit) for cycle in g["cycles"] for lit in cycle)
    assert data["graph"]["nodes"] > 0 and data["graph"]["edges"] > 0 and data["graph"]["colours"] > 1
    assert set(data["timings"]) >= {"parse", "csp", "graph", "automorphisms", "group"}


def test_both_spellings_of_analyse_and_linearise():
    """`analyse` and `linearize` are the same commands as `analyze` and `linearise`, and the
    help lists each once."""
    a, b = run("analyse", TOKEN, "-D", "N=3", "--json"), run("analyze", TOKEN, "-D", "N=3", "--json")
    assert a.exit_code == b.exit_code == 0, a.output
    assert json.loads(a.stdout)["group_order"] == json.loads(b.stdout)["group_order"] == 6
    a, b = run("linearize", TOKEN, "-D", "N=3"), run("linearise", TOKEN, "-D", "N=3")
    assert a.exit_code == b.exit_code == 0 and a.stdout == b.stdout and "var token[3]" in a.stdout
    listed = run("--help").output
    assert "analyse" not in listed and "linearize" not in listed and "analyze" in listed


def test_analyze_report_in_words_and_verify():
    result = run("analyze", TOKEN, "-D", "N=3", "--verify")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "group order on states: 6" in text
    assert "rotate processes 0→1→2→0" in text
    assert "swap values 0↔1 of label[]" in text
    assert "label[0]=0 ↔ label[0]=1" in text
    assert "every generator verified" in text


def test_analyze_scales_with_define():
    data = json.loads(run("analyze", TOKEN, "-D", "N=5", "--json").stdout)
    assert data["group_order"] == 10 and data["parameters"]["N"] == 5


def test_explore_reports_counts_and_failed_assertion(tmp_path):
    result = run("explore", str(ROOT / "models" / "dining_philosophers.csp"), "--json")
    data = json.loads(result.stdout)
    assert data["deadlocks"] >= 1
    failing = [a for a in data["assertions"] if a["verdict"] == "fails"]
    assert failing and failing[0]["trace"], "a deadlock must come with a trace"
    assert result.exit_code == 1  # a property is violated


def test_explore_token_ring_counts():
    data = json.loads(run("explore", TOKEN, "-D", "N=3", "--json").stdout)
    # Every valuation of token/label/leader is initial (= *): 2^9 states.
    assert data["states"] == 512 and data["initial"] == 512


def test_linearise_shows_summands_with_locals():
    result = run("linearise", TOKEN, "-D", "N=3")
    assert result.exit_code == 0
    assert result.stdout.count("sum ") == 2  # the family stays one summand set with a local


@pytest.mark.parametrize("text, needle", [
    ("var x = 0;\nP() = a -> P()\n", "expected"),                # missing ';'
    ("var x = 0;\nP() = [y > 0] a -> P();\n", "y"),             # unknown identifier
    ("var x = 0;\nP() = a{x++;} -> P();\n", "declare"),           # unbounded variable
])
def test_bad_input_is_one_located_line_with_exit_2(tmp_path, text, needle):
    path = tmp_path / "bad.csp"
    path.write_text(text)
    result = run("analyze", str(path))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and LOCATED.match(lines[0]), result.stderr
    assert needle in lines[0] and "Traceback" not in result.output


def test_bad_define_and_missing_file_exit_2():
    assert run("analyze", TOKEN, "-D", "N=three").exit_code == 2
    assert run("analyze", TOKEN, "-D", "NOPE=3").exit_code == 2
    assert run("analyze", str(ROOT / "models" / "missing.csp")).exit_code == 2
    assert run("analyze", str(ROOT / "README.md")).exit_code == 2


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=200))
def test_garbage_never_gives_a_traceback(tmp_path, text):
    path = tmp_path / "fuzz.csp"
    path.write_text(text)
    result = CliRunner().invoke(main, ["analyze", str(path)])
    assert result.exit_code in (0, 1, 2)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)


def test_user_text_with_brackets_is_printed_verbatim(tmp_path):
    """Assertion texts like ``x[i]`` must not be read as rich markup (``[i]`` vanished)."""
    path = tmp_path / "m.m"
    path.write_text("Const N: 2;\nType pid: Scalarset(N);\nVar x: Array[pid] Of boolean;\n"
                    "Ruleset i: pid Do Rule \"r\" !x[i] ==> Begin x[i] := true; End; End;\n"
                    "Startstate Begin For i: pid Do x[i] := false; End; End;\n"
                    "Invariant \"inv\" Forall i: pid Do x[i] | !x[i] End;\n")
    result = CliRunner().invoke(main, ["explore", str(path), "--ndl"])
    assert result.exit_code == 0 and "x[i] | !x[i]" in result.output


# ---------------------------------------------------------------- honest verdicts (issue 16)


def test_truncated_verify_is_not_reported_as_verified_and_exits_3():
    result = run("analyze", TOKEN, "-D", "N=4", "--verify", "--max-states", "100")
    assert result.exit_code == 3, result.output
    assert "every generator verified" not in result.output
    assert "not a proof" in result.output
    data = json.loads(run("analyze", TOKEN, "-D", "N=4", "--verify", "--max-states", "100", "--json").stdout)
    assert data["verify"]["complete"] is False and data["verify"]["checked_states"] < data["verify"]["states"]
    assert run("analyze", TOKEN, "-D", "N=4", "--verify", "--max-states", "100", "--partial-ok").exit_code == 0
    assert run("analyze", TOKEN, "-D", "N=3", "--verify").exit_code == 0


def test_a_bounded_exploration_exits_3_unless_partial_is_ok():
    result = run("explore", TOKEN, "--max-states", "10", "--json")
    assert result.exit_code == 3 and json.loads(result.stdout)["truncated"] is True
    assert run("explore", TOKEN, "--max-states", "10", "--partial-ok").exit_code == 0


def test_bench_writes_results_only_when_asked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("bench", "table1", "--quick", "--only", "Reader")
    assert result.exit_code == 0, result.output
    assert list(tmp_path.iterdir()) == []


def test_initial_states_are_listed_within_the_bound():
    """2^64 initial states: verify's exploration stops at the bound while listing them."""
    from detect.statespace.explore import reachable_graph
    from detect.ir import Event, SequentialModel, Summand, TRUE, Variable

    model = SequentialModel("many", (Variable("b", (0, 1), ((0, 1),) * 64, size=64),),
                            (Summand((), TRUE, Event("idle"), ()),))
    graph = reachable_graph(model, max_states=1000)
    assert len(graph.states) == 1000 and not graph.complete


@pytest.mark.parametrize("signals", [("SIGTERM",), ("SIGTERM", "SIGTERM"), ("SIGINT", "SIGINT")])
def test_sigterm_stops_an_exploration_with_its_partial_report(signals, tmp_path):
    """One signal, or two in quick succession (issue 16: the second one lost the report, and
    ``--json > file`` was left empty): the file has the whole JSON object."""
    import signal
    import subprocess
    import sys
    import time

    command = [sys.executable, "-m", "detect.cli", "explore", TOKEN, "-D", "N=14", "--json", "--engine", "python"]
    # The signal must arrive while the exploration runs, not while the model loads: time the
    # loading first (a run bounded to one state) so that a loaded machine does not make this flaky.
    start = time.monotonic()
    subprocess.run(command + ["--max-states", "1"], capture_output=True, cwd=ROOT, timeout=300)
    loading = time.monotonic() - start
    # (a test worker may ignore SIGINT, and a child inherits that: restore the default)
    report = tmp_path / "report.json"
    with open(report, "w") as into_file:
        proc = subprocess.Popen(command, stdout=into_file, stderr=subprocess.PIPE, cwd=ROOT, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        time.sleep(1.5 * loading + 1.0)
        for name in signals:
            proc.send_signal(getattr(signal, name))
            time.sleep(0.05)
        _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 3, stderr
    data = json.loads(report.read_text())
    assert data["interrupted"] is True and data["truncated"] is True and data["states"] > 0
