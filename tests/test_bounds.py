"""Bounded work behind the user's back (issue 16): ``--verify`` and ``--completeness`` hold
at most ``--max-states`` states and the state-slot budget, stop at ``--timeout`` and say what
they checked and what to pass; ``--domain-states`` bounds load-time narrowing on every
command that loads a model; ``export`` shares ``analyze``'s ``--timeout``/``--graph-limit``."""
from __future__ import annotations

import json
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from detect.checking import verify as verify_module
from detect.checking.completeness import GRAPH_LIMIT, completeness, lts_graph
from detect.checking.verify import MAX_STATES, SLOT_BUDGET, TIMEOUT, verify
from detect.cli import analyze, export, main
from detect.statespace import explore
from detect.statespace.compile import compile_model
from detect.statespace.explore import reachable_graph
from detect.transform.load import load_model

ROOT = Path(__file__).resolve().parent.parent
TOKEN = str(ROOT / "models" / "token_circulation.csp")

#: Two counter pairs bounded only relationally: loading takes their domains from the
#: 121 reachable states (``detect.transform.narrowing`` step 2).
COUNTERS = """\
#define N 5;
var lo[2]; var hi[2];
P(i) = [hi[i] - lo[i] == 0 && lo[i] < N] up.i{hi[i] = hi[i] + 1;} -> P(i)
    [] [hi[i] - lo[i] == 1] catch.i{lo[i] = lo[i] + 1;} -> P(i);
Sys() = ||| i:{0..1} @ P(i);
"""
#: The same in Promela, with ``int`` counters (22 reachable states).
COUNTERS_PML = """\
int lo, hi;
active proctype P() {
  do
  :: hi - lo == 0 && lo < 5 -> hi = hi + 1
  :: hi - lo == 1 -> lo = lo + 1
  :: hi - lo == 0 && lo >= 5 -> break
  od
}
"""


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def token_model(n: int):
    return load_model(TOKEN, {"N": n})


def generators_of(model):
    from detect.symmetry.pipeline import detect

    return [g.permutation for g in detect(model).group.generators]


# ------------------------------------------------------------------------- verify


def test_verify_holds_at_most_the_slot_budget(monkeypatch):
    model = token_model(3)  # 512 states of 9 slots
    monkeypatch.setattr(explore, "SLOT_BUDGET", 900)
    report = verify(model, generators_of(model), max_states=10_000)
    assert not report.complete and report.stopped_by == SLOT_BUDGET
    assert report.states <= 100 and report.checked < report.states
    assert report.advice() == ("at most 900 state slots are held while verifying (9 per state): "
                               "lower the parameters")
    assert "not a proof" in report.summary() and ": ok" not in report.summary()


def test_verify_stops_at_its_time_out_and_says_so():
    model = token_model(4)  # 4,096 states: the clock is read after 512
    report = verify(model, generators_of(model), timeout=0.0)
    assert not report.complete and report.stopped_by == TIMEOUT and report.advice() == "raise --timeout"
    assert report.reachable_order is None
    bounded = verify(model, generators_of(model), max_states=100)
    assert bounded.stopped_by == MAX_STATES and bounded.advice() == "raise --max-states"


def test_a_check_cut_short_counts_only_the_states_it_checked():
    """The time-out can also fall after the exploration, while generators are checked."""
    model = token_model(3)
    compiled = compile_model(model)
    graph = reachable_graph(compiled)
    assert graph.complete
    checker = verify_module._Checker(compiled, graph, None, deadline=time.perf_counter())
    verdict = checker.check(0, generators_of(model)[0])
    assert verdict.ok and verdict.checked == 0
    whole = verify_module._Checker(compiled, graph).check(0, generators_of(model)[0])
    assert whole.ok and whole.checked == graph.expanded == 512


def test_analyze_verify_under_the_slot_budget_is_an_honest_incomplete_run(monkeypatch):
    monkeypatch.setattr(explore, "SLOT_BUDGET", 900)
    result = run("analyze", TOKEN, "-D", "N=3", "--verify", "--completeness")
    assert result.exit_code == 3, result.output
    assert "verified" not in result.output
    assert ("not a proof; stopped early: state-slot budget reached; at most 900 state slots are held while "
            "verifying (9 per state)") in result.output
    assert ("completeness: unknown; stopped early: state-slot budget reached: more than 100 reachable states; "
            "at most 900 state slots") in result.output
    data = json.loads(run("analyze", TOKEN, "-D", "N=3", "--verify", "--completeness", "--json").stdout)
    assert data["verify"]["complete"] is False and data["verify"]["stopped_by"] == "slot-budget"
    assert data["completeness"]["complete"] is None and data["completeness"]["stopped_by"] == "slot-budget"
    assert run("analyze", TOKEN, "-D", "N=3", "--verify", "--completeness", "--partial-ok").exit_code == 0


def test_analyze_verify_stops_at_the_time_out_with_its_report(tmp_path):
    """Detection takes a fraction of the time-out; the 2^22 states of the check cannot be
    explored in it, and the check stops and reports what it covered, exit 3."""
    bits = tmp_path / "bits.csp"
    bits.write_text("#define N 22;\nvar b[N] : {0..1} = [0(N)];\n"
                    "P(i) = [b[i] == 0] set.i{b[i] = 1;} -> P(i) [] [b[i] == 1] clr.i{b[i] = 0;} -> P(i);\n"
                    "Sys() = ||| i:{0..N-1} @ P(i);\n")
    # The time-out must fall in the check, not in detection: time detection first, so that a
    # loaded machine does not make this flaky.
    start = time.perf_counter()
    assert run("analyze", str(bits)).exit_code == 0
    timeout = round(1.5 * (time.perf_counter() - start) + 1.0, 1)
    start = time.perf_counter()
    result = run("analyze", str(bits), "--verify", "--completeness", "--timeout", str(timeout), "--json")
    assert time.perf_counter() - start < timeout + 3.0
    assert result.exit_code == 3, result.output
    data = json.loads(result.stdout)
    assert data["verify"]["complete"] is False and data["verify"]["stopped_by"] == "timeout"
    assert data["verify"]["advice"] == "raise --timeout" and data["verify"]["states"] > 0
    assert data["completeness"]["stopped_by"] == "timeout" and data["completeness"]["true_order"] is None


# ------------------------------------------------------------------------- completeness


def test_completeness_refuses_a_graph_over_the_limit_before_building_it(monkeypatch):
    model = token_model(3)
    measured = completeness(model, generators_of(model))
    graph = reachable_graph(model)
    coloured = lts_graph(model, graph)[0]
    assert measured.graph_size == coloured.n + len(coloured.edges)  # counted exactly

    def not_built(*args):
        raise AssertionError("built")

    monkeypatch.setattr("detect.checking.completeness.lts_graph", not_built)
    limited = completeness(model, generators_of(model), graph_limit=measured.graph_size - 1)
    assert limited.stopped_by == GRAPH_LIMIT and limited.complete is None and limited.explored_all
    assert limited.advice(measured.graph_size - 1).endswith("; raise --graph-limit")


def test_analyze_completeness_over_the_graph_limit_exits_3():
    small = json.loads(run("analyze", TOKEN, "-D", "N=3", "--json").stdout)
    limit = str(small["graph"]["nodes"] + small["graph"]["edges"])  # detection's graph fits exactly
    result = run("analyze", TOKEN, "-D", "N=3", "--completeness", "--graph-limit", limit)
    assert result.exit_code == 3, result.output
    assert f"more than --graph-limit {int(limit):,}; raise --graph-limit" in result.output


def test_completeness_reports_progress():
    told = []
    model = token_model(3)
    completeness(model, [], progress=told.append)
    assert told[0] == "completeness: exploring"
    assert told[-1].startswith("completeness: every symmetry of the transition system's graph (512 states")


# ------------------------------------------------------------------------- --domain-states on loading


@pytest.mark.parametrize("command", [["analyze"], ["explore"], ["linearise"], ["export", "--format", "gap"]])
def test_the_option_the_narrowing_refusal_names_lets_the_model_load(tmp_path, command):
    for name, text in (("counters.csp", COUNTERS), ("counters.pml", COUNTERS_PML)):
        path = tmp_path / name
        path.write_text(text)
        refused = run(*command, str(path), "--domain-states", "3")
        assert refused.exit_code == 2, refused.output
        assert "more than 3 reachable states" in refused.stderr and "raise --domain-states" in refused.stderr
        loaded = run(*command, str(path), "--domain-states", "200")
        assert loaded.exit_code == 0, loaded.output


def test_load_time_narrowing_holds_at_most_the_slot_budget(tmp_path, monkeypatch):
    path = tmp_path / "counters.csp"
    path.write_text(COUNTERS)
    monkeypatch.setattr(explore, "SLOT_BUDGET", 20)
    result = run("linearise", str(path))
    assert result.exit_code == 2
    assert ("more than 5 reachable states; at most 20 state slots are held while narrowing (4 per state): "
            "lower the parameters") in result.stderr


# ------------------------------------------------------------------------- export


def test_export_shares_the_options_of_analyze():
    def options(command):
        return {p.name: (p.help, p.default, p.type) for p in command.params if isinstance(p, click.Option)}

    for name in ("timeout", "graph_limit", "domain_states"):
        assert options(export)[name] == options(analyze)[name]


@pytest.mark.parametrize("fmt", ["gap", "json", "dreadnaut", "dot"])
def test_export_refuses_a_graph_over_the_limit(tmp_path, fmt):
    out = tmp_path / "out"
    result = run("export", TOKEN, "-D", "N=3", "--format", fmt, "--graph-limit", "100", "-o", str(out))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "more than 100" in result.stderr and "lower the parameters (N=3) or raise --graph-limit" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_export_stops_at_its_time_out_leaving_no_file(tmp_path):
    path = tmp_path / "counters.csp"
    path.write_text(COUNTERS.replace("#define N 5;", "#define N 3000;"))
    out = tmp_path / "out.g"
    result = run("export", str(path), "--format", "gap", "--timeout", "1", "-o", str(out))
    assert result.exit_code == 3, result.output
    assert result.stderr.startswith(f"symdetect: {path}: time-out of 1 s reached while loading the model")
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["counters.csp"]


# ------------------------------------------------------------------------- the table, rechecked


def test_bench_table2_quick_runs_outside_the_repository(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("bench", "table2", "--quick", "--only", "Dining")
    assert result.exit_code == 0, result.output
    assert "Dining" in result.stdout and list(tmp_path.iterdir()) == []


def test_bench_without_the_paper_models_is_one_line(tmp_path, monkeypatch):
    """A copy of symdetect installed without the repository's models/ (a wheel)."""
    from detect import bench

    monkeypatch.setattr(bench, "MODELS", str(tmp_path / "models" / "paper"))
    for table in ("table1", "table2"):
        result = run("bench", table, "--quick", "--only", "Dining")
        assert result.exit_code == 2, result.output
        (line,) = [x for x in result.stderr.splitlines() if x.startswith("symdetect:")]
        assert line.startswith(f"symdetect: {tmp_path / 'models' / 'paper'}: no such directory: the paper's models "
                               "are not installed")


def test_bench_never_overwrites_the_committed_results_unless_asked(tmp_path, monkeypatch):
    committed = [ROOT / "results" / "table1.md", ROOT / "results" / "table1.csv"]
    before = [(p.read_bytes(), p.stat().st_mtime_ns) for p in committed]
    for cwd in (ROOT, ROOT / "results"):
        monkeypatch.chdir(cwd)
        assert run("bench", "table1", "--quick", "--only", "Reader").exit_code == 0
    assert [(p.read_bytes(), p.stat().st_mtime_ns) for p in committed] == before
    stem = tmp_path / "mine"
    assert run("bench", "table1", "--quick", "--only", "Reader", "--output", str(stem)).exit_code == 0
    assert "Reader" in (tmp_path / "mine.csv").read_text() and (tmp_path / "mine.md").exists()


def test_explore_stopped_by_its_time_out_exits_3_with_its_counts():
    result = run("explore", TOKEN, "-D", "N=10", "--timeout", "1", "--engine", "python", "--json")
    assert result.exit_code == 3, result.output
    data = json.loads(result.stdout)
    assert data["truncated"] is True and data["interrupted"] is False and 0 < data["states"]
    assert run("explore", TOKEN, "-D", "N=10", "--timeout", "1", "--engine", "python",
               "--partial-ok").exit_code == 0


def test_a_ring_of_a_thousand_is_a_bounded_refusal(monkeypatch):
    """The issue's ``analyze token_circulation.csp -D N=1000`` (16.5 GB, then a MemoryError
    traceback) is one line naming the bound.  The real budget (13,333 states of 3,000 slots)
    takes 2.3 s of CPU and 390 MB; a smaller one keeps this test short."""
    monkeypatch.setattr(explore, "SLOT_BUDGET", 3_000_000)
    result = run("analyze", TOKEN, "-D", "N=1000")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert ("the model has more than 1,000 reachable states; at most 3,000,000 state slots are held while "
            "narrowing (3,000 per state): lower the parameters") in result.stderr


# ------------------------------------------------------------------------- README


def test_readme_documents_the_exit_codes_and_the_bounding_options_of_each_command():
    import re

    from detect import cli

    readme = (ROOT / "README.md").read_text()
    codes = dict(re.findall(r"^\| \*\*(\d)\*\* \| (.+) \|$", readme, re.M))
    assert sorted(codes) == ["0", "1", "2", "3"]
    assert (cli.EXIT_OK, cli.EXIT_VIOLATED, cli.EXIT_BAD_INPUT, cli.EXIT_INCOMPLETE) == (0, 1, 2, 3)
    assert "complete run" in codes["0"] and "violated" in codes["1"] and "bad input" in codes["2"]
    assert "incomplete" in codes["3"] and "--partial-ok" in codes["3"]
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `symdetect (\w+) .*$", readme, re.M)}
    for name in ("analyze", "explore", "linearise", "export"):
        command = cli.main.commands[name]
        has = {opt for p in command.params if isinstance(p, click.Option) for opt in p.opts}
        for option in ("--timeout", "--graph-limit", "--domain-states", "--partial-ok", "--max-states",
                       "--memory-limit"):
            assert (f"[{option}" in rows[name]) == (option in has), (name, option)


# ------------------------------------------------------------------------- explore's own checks

#: x cycles 0..3; the claim accepts at x == 2 onwards and blocks at x == 1 (no acceptance cycle).
CLAIMED = """byte x;
active proctype P() { do :: x < 3 -> x++ :: x == 3 -> x = 0 od }
never { T0: do :: x == 2 -> goto accept_all :: true od; accept_all: do :: x != 1 od }
"""


def test_an_acceptance_check_cut_short_is_unknown_and_the_run_incomplete(tmp_path, monkeypatch):
    """The acceptance check explores the unreduced graph behind the user's back: bounded like
    --verify, and a check cut short is no verdict (it was "not checked" with exit 0)."""
    path = tmp_path / "claimed.pml"
    path.write_text(CLAIMED)
    complete = json.loads(run("explore", str(path), "--json").stdout)
    (verdict,) = [a for a in complete["assertions"] if "acceptance" in a["text"]]
    assert verdict["verdict"] == "holds"
    monkeypatch.setattr(explore, "SLOT_BUDGET", 2)
    result = run("explore", str(path), "--json")
    assert result.exit_code == 3, result.output
    data = json.loads(result.stdout)
    assert data["truncated"] is False and data["states"] == complete["states"]
    (verdict,) = [a for a in data["assertions"] if "acceptance" in a["text"]]
    assert verdict["verdict"] == "unknown"
    assert verdict["note"].startswith("acceptance cycles not checked: more than 1 unreduced states; at most 2 "
                                      "state slots are held while looking for cycles")
    assert run("explore", str(path), "--partial-ok").exit_code == 0


def test_an_acceptance_check_stops_at_the_time_out(tmp_path):
    from detect.checking.cycles import acceptance_cycle

    model = token_model(4)  # 4,096 states: the clock is read after 512
    cycle, states, why, _, _ = acceptance_cycle(model, lambda s: True, 1_000_000, timeout=0.0)
    assert cycle is None and why == f"stopped after {states:,} unreduced states; raise --timeout"
    assert acceptance_cycle(model, lambda s: False, 1_000_000)[0] is False


def test_a_graph_exploration_stops_at_its_memory_limit(monkeypatch):
    from itertools import count

    from detect.checking.verify import MEMORY_LIMIT, stop_advice, stop_reason
    from detect.statespace.explore import state_bound

    # The resident set of a test process that freed memory before need not grow at first:
    # a resident set growing by a page per reading stands in for it.
    pages = count()
    monkeypatch.setattr(explore, "resident_bytes", lambda: 4096 * next(pages))
    model = token_model(4)  # 4,096 states: the limit is looked at every 512 expansions
    graph = reachable_graph(model, memory_limit=1)
    assert graph.memory_limited and not graph.timed_out and not graph.complete
    assert stop_reason(graph, state_bound(model, 1_000_000)) == MEMORY_LIMIT
    assert stop_advice(MEMORY_LIMIT, None, "while verifying") == "raise --memory-limit"
    assert reachable_graph(model, memory_limit=1 << 40).complete


# ------------------------------------------------------------------------- Ctrl-C


def interrupting(compiled, at: int):
    """``compiled`` whose successor function raises ``KeyboardInterrupt`` (Ctrl-C) on its
    ``at``-th call."""
    import dataclasses

    calls = [0]

    def successors(state):
        calls[0] += 1
        if calls[0] == at:
            raise KeyboardInterrupt
        return compiled.successors(state)

    return dataclasses.replace(compiled, supplied=dataclasses.replace(compiled.code, successors=successors))


def test_an_interrupted_graph_exploration_is_a_consistent_prefix():
    compiled = compile_model(token_model(4))
    whole = reachable_graph(compiled)
    for at in (1, 5, 700, 3000):
        with pytest.raises(KeyboardInterrupt):
            reachable_graph(interrupting(compiled, at))
        graph = reachable_graph(interrupting(compiled, at), interruptible=True)
        assert graph.interrupted and not graph.complete and graph.expanded == at - 1
        assert graph.states == whole.states[:len(graph.states)]
        assert graph.successors == whole.successors[:graph.expanded]
        assert graph.faults <= whole.faults and graph.initial == whole.initial


def test_an_interrupted_verify_reports_what_it_checked(monkeypatch):
    """Ctrl-C while --verify explores: the detection and a partial verify report are printed
    (text and JSON), --completeness is not started, exit 3."""
    real = verify_module.reachable_graph
    asked = []

    def interrupted_at_600(model, max_states, progress=None, timeout=None, interruptible=False):
        asked.append(interruptible)
        return real(interrupting(model, 600), max_states, progress, timeout, interruptible=interruptible)

    monkeypatch.setattr(verify_module, "reachable_graph", interrupted_at_600)
    result = run("analyze", TOKEN, "-D", "N=4", "--verify", "--completeness", "--json")
    assert result.exit_code == 3, result.output
    data = json.loads(result.stdout)
    assert asked == [True] and data["group_order"] == 8
    assert data["verify"]["complete"] is False and data["verify"]["stopped_by"] == "interrupted"
    assert data["verify"]["checked_states"] == 0 and data["verify"]["states"] >= 599
    assert data["completeness"]["stopped_by"] == "interrupted" and data["completeness"]["complete"] is None
    text = run("analyze", TOKEN, "-D", "N=4", "--verify")
    assert text.exit_code == 3 and "not a proof; stopped early: interrupted" in text.output
