"""Dynamic process creation in Promela (issue 14): ``run`` anywhere, pids given at run time
(the lowest free one, Spin's ``_nr_pr``) and reused after last-in-first-out removal.  Each
model's "states, stored" and verdict are pinned to Spin 6.5.2's (``spin -a -o1 -o2 -o3``,
pan with ``-DSAFETY -DNOREDUCE -DNOCLAIM``), and Spin is re-run when installed."""
from __future__ import annotations

from pathlib import Path

import pytest

from detect.checking.pids import anonymous_pids, pid_canonicaliser
from detect.checking.reduce import explore_reduced
from detect.errors import InputError
from detect.ir import ToolBound
from detect.statespace.compile import compile_model
from detect.symmetry.pipeline import detect
from detect.ir.semantics import steps
from detect.statespace.explore import reachable_graph
from detect.transform.load import load_model, narrowed
from frontends import promela
from tests.spin_oracle import compare, our_counts, spin_available, spin_counts
from tests.test_promela_spin_regressions import check, follows_spin

ROOT = Path(__file__).resolve().parent.parent


#: the bundled models with Spin's counts at their default parameters
MODELS = [
    ("dynamic_server.pml", 15365),   # a handler per request, run inside the server
    ("dynamic_pool.pml", 548),       # workers end and are restarted: pids reused
    ("dynamic_ring.pml", 222),       # a ring started by a loop over a variable
    ("dynamic_session.pml", 557),    # seed 001's server / handler / function threads
    ("dynamic_workers.pml", 499),    # workers that never end, started by a loop over a variable
]


@pytest.mark.parametrize("name,stored", MODELS)
def test_bundled_dynamic_models_count_as_spin(name, stored, tmp_path):
    check((ROOT / "models" / name).read_text(), stored, False, tmp_path)


SMALL = [
    # a chain: each process starts the next, then writes
    ("byte depth;\nproctype Link(byte d) { if :: d < 3 -> run Link(d + 1) :: else -> skip fi; depth = d }\n"
     "init { run Link(0) }", 123, False),
    # init's loop starts processes that may end before the next run: the pid is reused
    ("byte n;\nproctype H(byte x) { n++ }\ninit { byte i; do :: i < 3 -> run H(i); i++ :: i == 3 -> break od }",
     120, False),
    # runs inside atomic, a channel parameter, _pid of a run-time process, runs in two processes
    ("chan c = [0] of { byte };\nchan d = [2] of { byte };\nbyte sum;\n"
     "proctype H(chan out; byte k) { byte x = k * 2; out!x; sum = sum + _pid }\n"
     "active proctype S() { byte v; atomic { run H(d, 1); run H(d, 2) }; d?v; d?v; run H(d, v); d?v }\n"
     "active proctype T() { byte y; c?y }\nactive proctype U() { c!3; run H(d, 7) }", 6306, False),
    # a process at pid 1 (not init) ends and its pid is reused by a run of another process
    ("byte x;\nproctype B() { x++ }\nactive proctype A() { (_nr_pr == 1) -> run B(); run B(); (_nr_pr == 1) }\n"
     "active proctype C() { x = 9 }", None, None),
]


@pytest.mark.parametrize("text,stored,error", SMALL)
def test_run_anywhere_counts_as_spin(text, stored, error, tmp_path):
    follows_spin(text, stored, error, tmp_path)


def test_more_processes_than_the_bound_is_a_fault_naming_the_option():
    """Spin reports "too many processes" at 255; below that, the bound is ours and says so:
    the step is cut at a ``ToolBound`` naming the option, no fault of the model."""
    text = "byte x;\nproctype B() { x++; x-- }\nactive proctype A() { do :: x < 2 -> run B() :: timeout -> break od }"
    model = narrowed(promela.parse_text)(text, "many.pml", max_procs=4)
    graph = reachable_graph(model)
    cut = {(st.fault, st.bound) for k in graph.faults for st in steps(model, graph.states[k]) if st.fault}
    assert cut == {("run: more than 4 processes alive (at most 255 as in Spin)", ToolBound("--max-procs", 4, 255))}
    assert our_counts(text).error


def test_bound_below_the_initial_processes_is_refused():
    with pytest.raises(InputError, match="--max-procs 2: 2 processes run from the start"):
        promela.parse_text("proctype B() { skip }\nactive [2] proctype A() { run B() }", "b.pml", max_procs=2)


@pytest.mark.parametrize("statement, column", [("x = run P() + 1", 12), ("if :: (run P() > 0) -> skip fi", 15),
                                               ("x = 2 * run P()", 16)])
def test_run_inside_an_expression_is_refused_by_name_at_the_run(statement, column):
    """Spin's ``run`` is an expression; in ours a syntax error after one inside an expression
    names it rather than the token the parser stopped at."""
    with pytest.raises(InputError, match="'run' as an expression") as caught:
        promela.parse_text(f"byte x;\nproctype P() {{ skip }}\ninit {{ {statement} }}", "r.pml")
    assert (caught.value.line, caught.value.column) == (3, column)


def test_a_syntax_error_after_a_run_statement_is_an_ordinary_one():
    with pytest.raises(InputError, match="syntax error") as caught:
        promela.parse_text("byte x;\nproctype P() { skip }\ninit { if :: x > 0 -> run P() :: else -> x = 1 + fi }",
                           "r.pml")
    assert caught.value.line == 3


# ---------------------------------------------------------------- seed 001's pid abstraction


def test_pid_abstraction_is_a_bisimulation_and_reduces_to_its_classes():
    """dynamic_workers: workers never end and never read _pid.  On every reachable state the
    canonical form is reachable and has the same canonical successors (a bisimulation:
    the quotient is exact), and ``--reduce pids`` explores exactly one state per class."""
    model = load_model(str(ROOT / "models" / "dynamic_workers.pml"))
    abstraction = anonymous_pids(model)
    assert abstraction is not None and len(abstraction.groups) == 1 and abstraction.pid_slots
    canon = pid_canonicaliser(abstraction)
    compiled = compile_model(model)
    graph = reachable_graph(compiled)
    reachable = set(graph.states)
    for s in graph.states:
        c = canon(s)
        assert c in reachable and canon(c) == c
        assert {canon(t) for t in compiled.successors(s)} == {canon(t) for t in compiled.successors(c)}
    # some state has a worker mid-atomic: _atomic names a pid the abstraction moves
    atomic = abstraction.pid_slots[0]
    assert any(s[atomic] >= 1 and canon(s)[atomic] != s[atomic] for s in graph.states)
    classes = len({canon(s) for s in graph.states})
    reduced = explore_reduced(model, "pids", detection=detect(model, domain_states=100_000))
    assert (len(graph.states), classes, reduced.exploration.states) == (724, 162, 162)


def test_processes_that_end_are_not_abstracted():
    """A handler that ends may be removed only while it is the newest process (Spin), so
    its pid is observable: no anonymous processes, and ``pids`` is the plain exploration."""
    model = load_model(str(ROOT / "models" / "dynamic_server.pml"))
    assert anonymous_pids(model) is None
    reduced = explore_reduced(model, "pids", detection=detect(model, domain_states=100_000))
    assert "no process whose pid is unobservable" in reduced.reducer.method
    assert reduced.exploration.states == explore_reduced(model, "none").exploration.states


def test_processes_reading_pid_are_not_abstracted():
    text = ("chan c = [2] of { byte };\nproctype W() { end: do :: c!_pid od }\n"
            "init { byte i; do :: i < _nr_pr + 1 && i < 2 -> run W(); i++ :: else -> break od }")
    assert anonymous_pids(narrowed(promela.parse_text)(text, "w.pml")) is None
    assert anonymous_pids(narrowed(promela.parse_text)(text.replace("c!_pid", "c!1"), "w.pml")) is not None


def test_pid_abstraction_keeps_faults_and_deadlocks():
    """Workers that never end, one of which can fail an assertion once two have counted:
    the reduced run finds the fault, and the plain and reduced runs agree on deadlocks."""
    text = ("chan jobs = [2] of { byte };\nbyte n = 3, seen;\n"
            "proctype W() { byte c; end: do :: jobs?c -> seen++; assert(seen < 2) od }\n"
            "init { byte i; do :: i < n -> run W(); i++ :: i == n -> break od; jobs!1; jobs!2 }")
    model = narrowed(promela.parse_text)(text, "w.pml")
    assert anonymous_pids(model) is not None
    reduced = explore_reduced(model, "pids", detection=detect(model, domain_states=100_000)).exploration
    plain = explore_reduced(model, "none").exploration
    assert reduced.faults >= 1 and plain.faults >= 1
    assert bool(reduced.deadlocks) == bool(plain.deadlocks) and reduced.states < plain.states


# ---------------------------------------------------------------- remote references observe pids (issue 25.1)

#: Issue 25's reproducer: ``W[1]@L1 && W[2]@L0`` tells the two workers apart by pid.
OBSERVED = """byte go = 0;
proctype W() {
L0: go > 0;
L1: do :: go > 0 -> skip od
}
init {
  if :: go = 0 :: go = 0 fi;
  run W(); run W();
  go = 1;
  do :: assert(!(W[1]@L1 && W[2]@L0)) od
}
"""
CLAIM = "never { do :: W[1]@L1 && W[2]@L0 -> break :: else od }\n"
#: the observation in the never claim only (init loops without looking at the workers)
CLAIM_ONLY = OBSERVED.replace("do :: assert(!(W[1]@L1 && W[2]@L0)) od", "do :: go > 0 -> go = 1 od") + CLAIM
#: the observation in a guard of a process, not in an assertion
WATCHER = OBSERVED.replace("do :: assert(!(W[1]@L1 && W[2]@L0)) od",
                           "do :: W[1]@L1 && W[2]@L0 -> assert(false) :: go > 0 -> go = 1 od")
REMOTE = [("assertion", OBSERVED), ("claim beside the assertion", OBSERVED + CLAIM),
          ("claim only", CLAIM_ONLY), ("watcher process", WATCHER)]


def _explore_cli(tmp_path, text: str, strategy: str) -> tuple[int, dict]:
    import json

    from click.testing import CliRunner

    from detect.cli import main

    path = tmp_path / "observed.pml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["explore", str(path), "--reduce", strategy, "--json", "--no-trace"])
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("what,text", REMOTE, ids=[w for w, _ in REMOTE])
def test_a_remotely_referenced_proctype_is_not_anonymous(what, text):
    assert anonymous_pids(narrowed(promela.parse_text)(text, "o.pml")) is None
    # without the reference, the same workers are anonymous
    plain = OBSERVED.replace("do :: assert(!(W[1]@L1 && W[2]@L0)) od", "do :: go > 0 -> go = 1 od")
    assert anonymous_pids(narrowed(promela.parse_text)(plain, "o.pml")) is not None


@pytest.mark.parametrize("what,text", REMOTE, ids=[w for w, _ in REMOTE])
def test_reduce_pids_finds_the_violation_a_remote_reference_observes(what, text, tmp_path):
    """Spin: an error (assertion violated, claim end reached); every strategy, pids included,
    reports it (exit 1) and stores as many states as the unreduced run (no symmetry left)."""
    plain_exit, plain = _explore_cli(tmp_path, text, "none")
    exit_code, reduced = _explore_cli(tmp_path, text, "pids")
    assert (plain_exit, exit_code) == (1, 1)
    assert reduced["states"] == plain["states"]
    assert [a["verdict"] for a in reduced["assertions"]] == [a["verdict"] for a in plain["assertions"]]
    assert "fails" in [a["verdict"] for a in reduced["assertions"]]
    assert our_counts(text).error
    if spin_available():
        assert spin_counts(text, tmp_path).error
        assert compare(text, tmp_path) is None


def test_issue_reproducer_counts_as_spin(tmp_path):
    """Spin 6.5.2: assertion violated, 13 states stored; ``--reduce pids`` stores 13 too."""
    check(OBSERVED, 13, True, tmp_path)
    assert _explore_cli(tmp_path, OBSERVED, "pids")[1]["states"] == 13


def test_reduce_pids_checks_its_swaps_on_every_state():
    """A front end that wrongly called the observed workers anonymous: the explorer checks
    each swap the pid abstraction makes where it applies, refutes one, and explores without
    reduction, finding the violation."""
    import dataclasses

    model = narrowed(promela.parse_text)(OBSERVED, "o.pml")
    workers = tuple(p.name for p in model.processes if p.family == "W")
    wrong = dataclasses.replace(model, annotations=model.annotations + (("anonymous_pids", ((workers,), ())),))
    assert anonymous_pids(wrong) is not None
    reduced = explore_reduced(wrong, "pids", detection=detect(wrong))
    assert reduced.exploration.faults == 1 and reduced.exploration.states == 13
    assert reduced.notes and "swap of anonymous processes" in reduced.notes[0]
    # with the check off (--trust-symmetry) the wrong abstraction hides it: the check is what caught it
    trusted = explore_reduced(wrong, "pids", detection=detect(wrong), check=False)
    assert trusted.exploration.faults == 0


def test_pid_swaps_pass_where_the_abstraction_is_right():
    """dynamic_workers: every swap holds on every state where it applies (no note)."""
    model = load_model(str(ROOT / "models" / "dynamic_workers.pml"))
    reduced = explore_reduced(model, "pids", detection=detect(model, domain_states=100_000))
    assert reduced.notes == () and reduced.reducer.local_symmetries


def test_workers_whose_narrowed_domains_differ_are_not_exchanged():
    """``run W(0); run W(1)``: pid 1 always holds k = 0, so narrowing gives the two workers'
    ``k`` the domains {0} and {1} and folds them into their steps; exchanging them would
    leave the narrowed model (the per-state check refuted the swap, found by
    ``promela_gen.dynamic(9)``).  With equal arguments they stay interchangeable."""
    text = ("byte g1;\nproctype W(byte k) { byte l0; l0 = k; do :: g1 = (g1 + 1) % 3 od }\n"
            "init { if :: g1 = 0 :: g1 = 1 fi; atomic { run W(0); run W(ARG) } }\n")
    for arg, anonymous in (("1", False), ("0", True)):
        model = narrowed(promela.parse_text)(text.replace("ARG", arg), "w.pml")
        assert (anonymous_pids(model) is not None) == anonymous
        reduced = explore_reduced(model, "pids", detection=detect(model))
        assert reduced.notes == ()
        plain = explore_reduced(model, "none").exploration.states
        assert (reduced.exploration.states < plain) == anonymous


def test_max_procs_option(tmp_path):
    """``--max-procs`` reaches the Promela front end; a run beyond it leaves the run undecided
    (exit 3) with a line naming the option and a larger value; languages other than Promela and CSP# refuse the option (exit 2)."""
    from click.testing import CliRunner

    from detect.cli import main

    path = tmp_path / "many.pml"
    path.write_text("byte x;\nproctype B() { x++; x-- }\n"
                    "active proctype A() { do :: x < 2 -> run B() :: timeout -> break od }\n")
    result = CliRunner().invoke(main, ["explore", str(path), "--max-procs", "3"])
    assert result.exit_code == 3 and "not decided: --max-procs 3 reached" in result.output
    assert "pass --max-procs 6 (or more) to go past it" in result.output
    murphi = ROOT / "models" / "peterson_scalarset.m"
    result = CliRunner().invoke(main, ["analyze", str(murphi), "--max-procs", "3"])
    assert result.exit_code == 2 and "--max-procs applies to Promela and CSP# models only" in result.output
