"""Tests of the Promela front end: state counts against Spin, errors, preprocessor."""
from __future__ import annotations

import re
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from detect.errors import InputError
from detect.statespace.explore import reachable_graph
from detect.checking.spin_counts import spin_state_count
from detect.transform.load import narrowed
from frontends import promela
from frontends.promela.preprocess import preprocess

load, parse_text = narrowed(promela.load), narrowed(promela.parse_text)

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"
MODELS = Path(__file__).resolve().parents[1] / "models"

FAST = ["beem/promela/bakery.1.pml", "beem/promela/fischer.1.pml", "beem/promela/hanoi.1.pml",
        "beem/promela/msmie.1.pml", "beem/promela/peterson.1.pml", "beem/promela/phils.1.pml",
        "beem/promela/phils.2.pml", "spin/loops.pml"]
SLOW = ["spin/leader0.pml", "spin/snoopy.pml", "spin/sort.pml", "spin/pftp.pml"]


class SpinRefused(Exception):
    """pan gave no complete count ("has unconditional self-loop", depth bound hit)."""


def spin_states(path: Path, tmp: Path, defines: dict | None = None) -> int:
    """Spin's "states, stored" without statement merging, data-flow optimisation or
    write-only-variable hiding (-o1 -o2 -o3), without partial-order reduction, and without
    the never claim Spin builds from the file's first ``ltl`` formula (-DNOCLAIM)."""
    return spin_run(path, tmp, defines)[0]


def spin_run(path: Path, tmp: Path, defines: dict | None = None) -> tuple[int, int]:
    """Spin's (states stored, errors) as in ``spin_states``; with ``-c0`` every invalid end
    state (deadlock) found is one error."""
    if shutil.which("spin") is None or shutil.which("gcc") is None:
        pytest.skip("spin or gcc not installed (apt-get install spin)")
    src = tmp / "m.pml"
    text = path.read_text()
    for k, v in (defines or {}).items():  # cpp lets the file's #define win over -D: edit it
        text = re.sub(rf"^#define\s+{k}\b.*$", f"#define {k} {v}", text, flags=re.M)
    src.write_text(text)
    flags: list[str] = []
    subprocess.run(["spin", *flags, "-o1", "-o2", "-o3", "-a", "m.pml"], cwd=tmp, check=True, capture_output=True)
    # -O0: the counts do not depend on it, and it compiles pan.c four times faster.
    subprocess.run(["gcc", "-O0", "-DSAFETY", "-DNOREDUCE", "-DNOCLAIM", "-o", "pan", "pan.c"], cwd=tmp, check=True,
                   capture_output=True)
    out = subprocess.run(["./pan", "-m1000000", "-c0", "-n"], cwd=tmp, check=True, capture_output=True, text=True).stdout
    if "max search depth too small" in out:  # Spin's count would be truncated
        raise SpinRefused("max search depth too small (an endless atomic loop?)")
    if "states, stored" not in out:
        raise SpinRefused(out.strip().splitlines()[0] if out.strip() else "no output")
    return int(re.search(r"(\d+) states, stored", out).group(1)), int(re.search(r"errors: (\d+)", out).group(1))


def our_states(path: Path, defines: dict | None = None) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load(path, defines or {}, ltl_name="")  # as pan -DNOCLAIM
    graph = reachable_graph(model, max_states=5_000_000)
    assert graph.complete
    return spin_state_count(model, graph.states)


def corpus(rel: str) -> Path:
    p = CORPUS / rel
    if not p.exists():
        pytest.skip(f"shared corpus not available at {CORPUS}")
    return p


@pytest.mark.parametrize("rel", FAST)
def test_state_count_equals_spin(rel, tmp_path):
    path = corpus(rel)
    assert our_states(path) == spin_states(path, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("rel", SLOW)
def test_state_count_equals_spin_large(rel, tmp_path):
    path = corpus(rel)
    assert our_states(path) == spin_states(path, tmp_path)


@pytest.mark.parametrize("n", [2, 3])
def test_peterson_filter_equals_spin_and_is_safe(n, tmp_path):
    path = MODELS / "peterson_filter.pml"
    assert our_states(path, {"N": n}) == spin_states(path, tmp_path, {"N": n})
    graph = reachable_graph(load(path, {"N": n}))
    assert not graph.faults  # the assert(incs == 1) never fails


def test_peterson_filter_instances_share_one_template():
    model = load(MODELS / "peterson_filter.pml", {"N": 3})
    owners = sorted({s.owners for s in model.summands})
    assert ("user[1]",) in owners and ("user[3]",) in owners
    shapes = {}
    for s in model.summands:
        if s.owners and s.owners[0].startswith("user"):
            shapes.setdefault(s.owners[0], []).append(s.event.name)
    assert shapes["user[1]"] == shapes["user[2]"] == shapes["user[3]"]
    pcs = [v for v in model.variables if v.name.endswith(".pc") and v.owner and v.owner.startswith("user")]
    assert [v.name for v in pcs] == ["user_1.pc", "user_2.pc", "user_3.pc"]


SMALL = [
    ("byte x; active proctype A() { x = 1; x = 2 }", 4),
    ("byte x; active proctype A() { x = 1; goto L; L: x = 2 }", 4),
    ("byte x; active proctype A() { x = 1; if :: true -> x = 2 fi }", 5),
    ("byte x; active proctype A() { x = 1; do :: break od; x = 2 }", 5),
    ("byte x; active proctype A() { x = 1; atomic { x = 2; x = 3 }; x = 4 }", 5),
    ("byte x; active proctype A() { d_step { x = 1; x = 2; x = 3 } }", 3),
    ("byte x; active proctype A() { atomic { x = 1; x = 2 } } active proctype B() { x = 7 }", 10),
    ("byte x; active proctype A() { x = 255; x++ ; assert(x == 0) }", 5),
    ("chan c = [2] of { byte }; active proctype A() { c!1; c!2 } active proctype B() { byte v; c?v; c?v }", None),
    # an else in a nested if that starts an option is blocked by the outer options too
    ("byte x; active proctype P() { if :: if :: x == 0 -> x = 1 :: else -> x = 5 fi :: x == 1 -> x = 3 fi }", 4),
    # Spin drops redundant skips inside options (flow.c check_sequence), even with -o3
    ("byte x; active proctype P() { x = 0; if :: skip; skip; skip; x = 1 :: x = 2 fi }", 7),
    ("byte x; active proctype P() { x = 0; if :: x = 3; skip; skip :: x = 2 fi; x = 5 }", 8),
    ("byte x; active proctype P() { x = 0; if :: x = 1; skip; printf(\"a\"); skip; x = 3 fi }", 7),
    ("byte x; active proctype P() { x = 0; skip; skip; x = 4 }", 6),
    # init's atomic start-up writes i = 1..4 within one step: all of them are in i's domain
    ("byte x; proctype P(byte k) { x = k }\n"
     "init { byte i; atomic { i = 1; do :: i <= 3 -> run P(i); i++ :: else -> break od } }", None),
]


@pytest.mark.parametrize("text,expected", SMALL)
def test_small_models_against_spin(text, expected, tmp_path):
    path = tmp_path / "s.pml"
    path.write_text(text)
    ours = our_states(path)
    if expected is not None:
        assert ours == expected
    assert ours == spin_states(path, tmp_path)


# Rendezvous: (model, Spin 6.5.2 states stored, Spin errors = deadlocks), measured with
# spin_run; the test also re-runs Spin when it is installed.
RENDEZVOUS = [
    # plain handshakes, then the sender blocked for ever (no receiver left)
    ("chan c = [0] of { byte }; byte x;\n"
     "active proctype S() { c!1; c!2; x = 3 }\n"
     "active proctype R() { byte v; c?v; x = v; c?v }", 8, 0),
    # a send inside atomic: the sender loses control at the handshake
    ("chan c = [0] of { byte }; byte x;\n"
     "active proctype S() { atomic { x = 1; c!1; x = 2; x = 3 } }\n"
     "active proctype R() { byte v; c?v; x = 5; x = 6 }\n"
     "active proctype Q() { x = 7; x = 8 }", 62, 0),
    # a receive inside atomic: the receiver gets control
    ("chan c = [0] of { byte }; byte x;\n"
     "active proctype S() { x = 1; c!1; x = 2 }\n"
     "active proctype R() { byte v; atomic { c?v; x = v + 4; x = 6 } }\n"
     "active proctype Q() { x = 7; x = 8 }", 31, 0),
    # matching mtype constants and eval(), timeout, deadlocks
    ("mtype = { req, ack }; chan c = [0] of { mtype, byte }; byte x;\n"
     "active [2] proctype S() { c!req,_pid; c!ack,_pid }\n"
     "active proctype R() { byte v; do :: c?req,v -> x = v :: c?ack,eval(x) -> x = 9 :: timeout -> break od }",
     35, 2),
    # channel arrays indexed by variables
    ("chan c[2] = [0] of { byte }; byte x;\n"
     "active [2] proctype S() { byte i; do :: i < 2 -> c[i]!_pid; i++ :: i >= 2 -> break od }\n"
     "active [2] proctype R() { byte v; do :: c[_pid - 2]?v -> x = v od }", 454, 6),
    # an atomic receiver blocked inside its atomic block (Spin stores that state), two receivers
    ("chan c = [0] of { byte }; byte x;\n"
     "active proctype S() { atomic { c!1; c!2 }; x = 1 }\n"
     "active proctype R() { byte v; atomic { c?v; c?v; x = 3 } }\n"
     "active proctype T() { byte w; c?w; x = 2 }", 23, 5),
    # cross-blocked handshakes: an immediate deadlock
    ("chan c = [0] of { byte }; chan d = [0] of { byte };\n"
     "active proctype S() { c!1; d!2 }\n"
     "active proctype R() { byte v; d?v; c?v }", 1, 1),
    # both sides atomic, the sender blocked in atomic until the receiver arrives
    ("chan c = [0] of { byte }; byte x;\n"
     "active proctype S() { atomic { x = 1; c!1; x = 4 } }\n"
     "active proctype R() { byte v; atomic { x == 1 -> x = 2; c?v; x = 3 } }", 8, 0),
    # processes started by init with rendezvous channel parameters; timeout ends the reader
    ("chan c = [0] of { byte }; byte x;\n"
     "proctype P(chan out; byte v) { out!v; out!v+1 }\n"
     "proctype Q(chan inp) { byte w; do :: inp?w -> x = x + w :: timeout -> break od }\n"
     "init { atomic { run P(c, 1); run P(c, 3); run Q(c) } }", 32, 0),
    # init as the sender, an mtype constant to match
    ("mtype = { a, b }; chan c = [0] of { mtype }; byte x;\n"
     "init { c!a; x = 1 }\n"
     "active proctype R() { c?a; x = 2 }", 11, 0),
    # channel functions on a rendezvous channel
    ("chan c = [0] of { byte }; byte x;\n"
     "active proctype A() { if :: full(c) -> x = 1 :: nfull(c) -> x = 2 fi;\n"
     " if :: len(c) == 0 -> x = x + 10 :: else -> x = x + 20 fi;\n"
     " if :: empty(c) -> x = x + 100 :: nempty(c) -> x = x + 200 fi }", 8, 0),
    # else beside a send: taken only when no handshake is possible
    ("chan c = [0] of { byte }; byte x;\n"
     "active proctype A() { if :: c!1 -> x = 2 :: else -> x = 1 fi }\n"
     "active proctype B() { byte v; c?v }", 6, 0),
    ("chan c = [0] of { byte }; byte x;\n"
     "active proctype A() { do :: c!1 -> x = 2 :: else -> x = (x + 1) % 4 od }\n"
     "active proctype B() { byte v; x == 3 -> c?v; c?v }", 32, 0),
    # else beside a receive: always executable (a receive only moves as a partner)
    ("chan c = [0] of { byte }; byte x;\n"
     "active proctype A() { c!1 }\n"
     "active proctype B() { byte v; if :: c?v -> x = 2 :: else -> x = 1 fi }", 8, 1),
    # a holder whose only move is timeout counts as blocked (Spin tries timeout only after
    # handing control to everybody): the state is stored, and others may move
    ("chan r = [0] of { byte }; byte x;\n"
     "active proctype P0() { byte y; atomic { r?y; timeout } }\n"
     "active proctype P1() { byte y; r!0 }\n"
     "active proctype P2() { byte y; r!0 }", 6, 2),
    ("byte x;\n"
     "active proctype A() { atomic { x = 1; timeout; x = 2 } }\n"
     "active proctype B() { timeout; x = 3 }", None, None),
    # buffered send blocked inside atomic (Spin stores the blocked state)
    ("chan c = [1] of { byte }; byte x;\n"
     "active proctype A() { atomic { x = 1; c!1; c!2; x = 2 } }\n"
     "active proctype B() { byte v; c?v; c?v }", None, None),
]


def deadlocks(model) -> int:
    """Invalid end states as Spin counts them: Spin's state has no ``_atomic`` slot."""
    from detect.statespace.compile import compile_model
    from frontends.promela.lower import ATOMIC

    compiled = compile_model(model)
    graph = reachable_graph(compiled)
    names = [v.name for v in model.variables]
    drop = sum(v.length for v in model.variables[:names.index(ATOMIC)]) if ATOMIC in names else None
    dead = {s if drop is None else s[:drop] + s[drop + 1:]
            for s, succ in zip(graph.states, graph.successors) if not succ and not compiled.terminal(s)}
    return len(dead)


@pytest.mark.parametrize("text,stored,errors", RENDEZVOUS)
def test_rendezvous_and_atomic_blocking_against_spin(text, stored, errors, tmp_path):
    path = tmp_path / "r.pml"
    path.write_text(text)
    model = load(path)
    ours = (our_states(path), deadlocks(model))
    if stored is not None:
        assert ours == (stored, errors)
    assert ours == spin_run(path, tmp_path)


def test_rendezvous_is_one_step_of_both_processes():
    model = parse_text("chan c = [0] of { byte }; byte x;\n"
                       "active proctype S() { c!7 }\n"
                       "active proctype R() { byte v; c?v; x = v }", "rv.pml")
    handshakes = [s for s in model.summands if len(s.owners) == 2]
    assert [s.owners for s in handshakes] == [("S[0]", "R[1]")]
    graph = reachable_graph(model)
    x = [v.name for v in model.variables].index("x")
    assert {s[x] for s in graph.states} == {0, 7}


@pytest.mark.parametrize("n", [3, pytest.param(4, marks=pytest.mark.slow)])
def test_peterson_filter_group_is_symmetric_and_verified(n):
    import math

    from detect.symmetry.pipeline import detect
    from detect.checking.verify import verify

    model = load(MODELS / "peterson_filter.pml", {"N": n})
    group = detect(model).group
    assert group.order == math.factorial(n)
    report = verify(model, [g.permutation for g in group.generators])
    assert report.complete and all(v.ok for v in report.verdicts)


def test_byte_wraps_like_spin():
    model = parse_text("byte x = 255; active proctype A() { x++; assert(x == 0) }", "w.pml")
    assert not reachable_graph(model).faults


@pytest.mark.parametrize("text,fragment,line", [
    ("active proctype A() { x = 1 }", "undeclared variable x", 1),
    ("byte x;\nactive proctype A() { x = = 1 }", "syntax error", 2),
    ("byte x;\nactive proctype A() {\n x = pc_value(0) }", "unsupported construct 'pc_value'", 3),
    ("byte x;\nactive proctype A() {\n if :: { x = 1 } unless { x == 2 } fi }", "'unless' as the first statement", 3),
    ("byte x;\nnotrace {\n skip }\nactive proctype A() { x = 1 }", "a trace may only send and receive", 3),
    ("chan c = [0] of { byte };\nactive proctype A() { c?<x> }", "undeclared variable x", 2),
    ("byte x;\nactive proctype A() {\n goto nowhere }", "undefined label", 3),
    ("byte x;\nactive proctype A() { if :: if :: x == 1 :: else -> skip fi\n :: else -> x = 3 fi }",
     "two else options", 3),
    # issue 16 (slow fuzz profile): a labelled xr claim was an AttributeError in the CFG builder
    ("chan c = [1] of { byte };\nactive proctype A() {\n L: xr c; c!1 }", "label L precedes an xr/xs claim", 3),
])
def test_errors_are_located(text, fragment, line):
    with pytest.raises(InputError) as e:
        parse_text(text, "bad.pml")
    assert fragment in e.value.message
    assert e.value.line == line and e.value.path == "bad.pml"


def test_preprocessor_defines_override_and_conditionals():
    pre = preprocess("#define N 3\n#define SQ(a) ((a)*(a))\n#if N > 2\nbig SQ(N)\n#else\nsmall\n#endif\n", "", {"N": 5})
    lines = pre.text.split("\n")
    assert lines[3].strip() == "big ((5)*(5))" and "small" not in pre.text
    assert pre.origin(4) == ("", 4)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abx01;:{}()[]=+-!?<>\n \tifdoatomicbyteproctype", max_size=60))
def test_fuzz_never_crashes(text):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            promela.parse_text(text, "fuzz.pml")
    except InputError:
        pass


# ---------------------------------------------------------------------------- guard rewriting


def _guard_outcomes(model, guards, state) -> tuple:
    """Per guard: "fault", or its truth value in ``state``."""
    from detect.ir import slot_offsets
    from detect.ir.semantics import Env, Fault, evaluate

    out = []
    for g in guards:
        try:
            out.append(bool(evaluate(g, Env(model, slot_offsets(model), list(state), {}))))
        except Fault:
            out.append("fault")
    return tuple(out)


def _tiny_model():
    from detect.ir import SequentialModel, Variable

    dom = tuple(range(-1, 4))
    return SequentialModel("t", (Variable("x", dom, ((0,),)), Variable("y", dom, ((0,),)),
                                 Variable("a", dom, ((0,), (0,)), 2)), ())


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_normal_guard_and_alternatives_keep_truth_and_faults(data):
    import itertools

    from frontends.promela.normal import alternatives, normal_guard
    from tests.ir_strategies import expressions

    model = _tiny_model()
    guard = data.draw(expressions((), depth=3))
    normal = normal_guard(guard)
    alts = alternatives(normal, {"a": 2})
    for state in itertools.product(range(-1, 4), range(-1, 4), range(-1, 4), range(-1, 4)):
        original, rewritten, *split = _guard_outcomes(model, [guard, normal, *alts], state)
        assert rewritten == original
        if original == "fault":
            assert "fault" in split
        else:
            assert "fault" not in split and any(split) == original


def test_filter_guard_splits_into_independent_clauses():
    from detect.ir import Binary, Const, Index, Name, Unary
    from frontends.promela.normal import alternatives, clauses, normal_guard

    victim = Binary("!=", Index("victim", Name("l")), Const(1))
    others = Binary("||", Binary("&&", Const(0), Binary(">=", Index("level", Const(0)), Name("l"))),
                    Binary("&&", Const(1), Binary(">=", Index("level", Const(1)), Name("l"))))
    others = Binary("||", others, Binary(">=", Index("level", Const(2)), Name("l")))
    alts = alternatives(normal_guard(Binary("||", victim, Unary("!", others))), {"level": 3, "victim": 3})
    assert alts[0] == victim
    assert clauses(alts[1]) == [Binary("<", Index("level", Const(1)), Name("l")),
                                Binary("<", Index("level", Const(2)), Name("l"))]


def test_local_ranges_follow_the_control_flow():
    model = parse_text("#define N 3\nbyte s;\nactive proctype P() { byte l;\n"
                       " do :: l < N -> s = l; l = l + 1 :: else -> break od }", "r.pml")
    assert model.variable("P_0.l").domain == (0, 1, 2, 3)
    assert model.variable("s").domain == (0, 1, 2)
    unnarrowed = promela.parse_text("#define N 3\nbyte s;\nactive proctype P() { byte l;\n"
                            " do :: l < N -> s = l; l = l + 1 :: else -> break od }", "r.pml")
    assert len(unnarrowed.variable("P_0.l").domain) == 256
    assert len(reachable_graph(model).states) == len(reachable_graph(unnarrowed).states)


def test_cli_explore_reports_spins_count(tmp_path):
    import json

    from click.testing import CliRunner

    from detect.cli import main

    path = tmp_path / "r.pml"
    path.write_text(RENDEZVOUS[5][0])
    result = CliRunner().invoke(main, ["explore", str(path), "--spin-states", "--json"])
    data = json.loads(result.output)
    assert (data["spin states stored"], data["states"], data["deadlocks"]) == ("23", 26, 5)


def test_rendezvous_clients_are_symmetric_and_match_spin(tmp_path):
    from detect.symmetry.pipeline import detect
    from detect.checking.verify import verify

    path = MODELS / "rendezvous_clients.pml"
    model = load(path, {"N": 3})
    group = detect(model).group
    assert group.order == 6
    report = verify(model, [g.permutation for g in group.generators])
    assert report.complete and all(v.ok for v in report.verdicts)
    assert our_states(path, {"N": 3}) == 19 == spin_states(path, tmp_path, {"N": 3})


@st.composite
def rendezvous_programs(draw):
    """Small random Promela programs mixing rendezvous, a buffered channel, atomic blocks,
    choices with else and timeout (a differential test against Spin)."""
    # -end- ordering, blocked atomics and handshakes interleave in many ways here.
    def stmt(depth):
        kind = draw(st.integers(0, 7 if depth > 0 else 4))
        v = draw(st.integers(0, 2))
        if kind == 0:
            return f"r!{v}"
        if kind == 1:
            return draw(st.sampled_from(["r?y", f"r?{v}", "r?eval(x)"]))
        if kind == 2:
            return f"x = {v}"
        if kind == 3:
            return draw(st.sampled_from([f"b!{v}", "b?y", f"x == {v}", "timeout"]))
        if kind == 4:
            return draw(st.sampled_from(["skip", "y = y + 1", 'printf("p")']))
        body = "; ".join(stmt(depth - 1) for _ in range(draw(st.integers(1, 3))))
        if kind == 5:
            return f"atomic {{ {body} }}"
        other = stmt(depth - 1)
        tail = draw(st.sampled_from(["", " :: else -> x = 2", " :: else -> skip"]))
        word = "do" if kind == 6 and draw(st.booleans()) else "if"
        exit_ = " :: break" if word == "do" else ""
        return f"{word} :: {body} :: {other}{tail}{exit_} {'od' if word == 'do' else 'fi'}"

    procs = []
    for k in range(draw(st.integers(2, 3))):
        body = "; ".join(stmt(2) for _ in range(draw(st.integers(1, 4))))
        procs.append(f"active proctype P{k}() {{ byte y; {body} }}")
    return "chan r = [0] of { byte }; chan b = [1] of { byte }; byte x;\n" + "\n".join(procs)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(rendezvous_programs())
def test_random_rendezvous_programs_against_spin(text):
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "r.pml"
        path.write_text(text)
        try:
            model = load(path)
        except InputError:
            return  # e.g. two else options at one point: refused (as Spin does), not mistranslated
        try:
            spin = spin_run(path, Path(d))
        except SpinRefused:
            return  # e.g. "unconditional self-loop": Spin has no count to compare with
        assert (our_states(path), deadlocks(model)) == spin


def test_init_runs_reuse_pids_in_separate_steps_and_stay_symmetric_in_one(tmp_path):
    """Runs in separate steps: the first A may end before the second run, which then reuses
    its pid as in Spin (was: a fault).  Runs in one atomic step: nothing ends in between, the
    pids are fixed at load time, and two instances that could end (``false`` is an edge to
    their end) are still symmetric (BEEM's msmie.1.pml had group 1 for this reason)."""
    from detect.statespace.explore import explore_state_space
    from detect.symmetry.pipeline import detect
    from tests.test_promela_spin_regressions import check

    check("proctype A() { skip }\ninit { run A(); run A() }", 12, False, tmp_path)
    atomic = parse_text("byte n;\nproctype A() { do :: n == 0 -> n = 1; n = 0 :: n == 2 -> break od; false }\n"
                        "init { atomic { run A(); run A() } }", "a.pml")
    assert explore_state_space(atomic).faults == 0
    assert detect(atomic).group.order == 2


@pytest.mark.parametrize("text, line, column, subject", [
    ("int x;\nactive proctype P() {\n  do :: x = x + 1 od\n}\n", 1, 5, "'x'"),
    ("active proctype P() {\n  int y;\n  do :: y = y + 1 od\n}\n", 2, 7, "'P_0.y'"),
    # (y = y*2+1 through the channel is 33 values, a sparse domain: it loads, 99 states as Spin)
    ("chan c = [2] of {int};\nactive proctype P() {\n  int y;\n  do :: c!y+1; c?y od\n}\n", 1, 6, "'c.f0'"),
])
def test_a_wide_variable_that_cannot_be_bounded_is_refused_at_its_declaration(tmp_path, text, line, column, subject):
    from detect.transform.load import load_model

    path = tmp_path / "wide.pml"
    path.write_text(text)
    with pytest.raises(InputError) as refused:
        load_model(str(path))
    assert (refused.value.path, refused.value.line, refused.value.column) == (str(path), line, column)
    assert subject in refused.value.message


@pytest.mark.parametrize("text, count, line", [
    ("active [300] proctype P() { skip }\n", "300", 1),
    ("#define N 2147483648\nactive [2] proctype Q() { skip }\nactive [N] proctype P() { skip }\n", "2,147,483,648", 3),
])
def test_more_than_255_active_processes_are_refused_at_the_count(tmp_path, text, count, line):
    # As in Spin ("max nr of processes is 255"), and before 2^31 instances are made (a hang).
    from detect.transform.load import load_model

    path = tmp_path / "many.pml"
    path.write_text(text)
    with pytest.raises(InputError) as refused:
        load_model(str(path))
    assert (refused.value.path, refused.value.line, refused.value.column) == (str(path), line, 9)
    assert f"active [{count}]" in refused.value.message and "more than 255 processes" in refused.value.message
