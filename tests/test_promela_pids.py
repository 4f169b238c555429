"""The pid analysis (``frontends/promela/pids.py``, issue 28): which pids each ``run`` can
give.  A proctype gets an instance only at the pids a run can give it, and a local channel
a constant number where one count of channels is in use whenever its process is created.
The analysis must over-approximate: models where a run's pid varies (runs in a loop, after
processes end, in different branches, after atomic control is lost) count as Spin 6.5.2
does (figures pinned, Spin re-run when installed), and a run the analysis did not foresee
is a fault that says so, never a blocked step."""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from detect.ir.semantics import steps
from detect.statespace.explore import reachable_graph
from frontends.promela import parse_text, pids
from tests.promela_gen import creating
from tests.spin_oracle import Counts, check_pinned, compare, our_counts, spin_available

EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "spin" / "Examples"

#: (model, Spin's "states, stored", Spin reports an error)
VARYING = [
    # atomic control is lost at a blocking receive
    ("""chan c = [0] of { byte };
byte pa, pb, pc;
proctype A() { end: do :: false od }
proctype B() { end: do :: false od }
proctype C() { end: do :: false od }
active proctype S() { byte x; atomic { pa = run A(); c?x; pb = run B() } }
active proctype T() { atomic { c!1; pc = run C() } }""", 4, False),
    # X's pid depends on the branch and on whether Y ended first
    ("""byte px, py;
proctype X() { byte k = _pid; k++ }
proctype Y() { skip }
active proctype M() {
  if
  :: px = run X()
  :: py = run Y(); px = run X()
  :: atomic { py = run Y(); (_nr_pr == 2) -> px = run X() }
  fi
}""", 20, False),
    # runs in a loop of a process other than init; workers end (pids and channels reused) or stay
    ("""byte n, last;
proctype W(byte k) { chan mine = [1] of { byte }; mine!k; mine?_; if :: k == 1 -> do :: n > 3 -> break od :: else fi }
active proctype L() { byte i; do :: i < 3 -> last = run W(i); i++ :: i == 3 -> break :: n < 2 -> n++ od }""",
     1383, True),
    # local channels numbered in creation order, which varies; their numbers travel
    ("""chan g1, g2;
chan hub = [2] of { chan };
proctype P() { chan m = [1] of { byte }; hub!m; m?_ }
proctype Q() { chan l = [1] of { byte }; chan o; hub?o; o!1; l!2 }
active proctype A() { atomic { run P(); run Q() } }
active proctype B() { run P(); run Q() }""", 377, False),
    # a rendezvous send inside atomic passes control to the receiver, which runs a process
    ("""chan c = [0] of { byte };
byte pa, pb, pc;
proctype A() { end: do :: false od }
active proctype S() { atomic { pa = run A(); c!1; pb = run A() } }
active proctype T() { byte x; atomic { c?x; pc = run A() } }""", 3, False),
    # provided blocks P inside its atomic sequence: T runs a process in between
    ("""byte x, p1, p2, p3;
proctype A() { end: do :: false od }
proctype P() provided (x == 0) { atomic { p1 = run A(); x = 1; p2 = run A() } }
active proctype S() { atomic { run P(); x = 0 } }
active proctype T() { x == 1 -> p3 = run A(); x = 0 }""", 7, False),
    # mobile1's shape: nested atomic runs from processes, processes ended below live ones
    ("""byte a_id, p_id, h_id;
chan k = [0] of { byte };
proctype H() { end: k?_ }
proctype B(bit how) { do :: how -> k!1 :: else -> break od }
proctype M() { chan l = [0] of { byte }; atomic { h_id = run H(); l!_pid } }
proctype P() { chan m = [1] of { byte }; atomic { run M(); p_id = run B(0) } }
proctype Q() { chan m = [1] of { byte }; atomic { a_id = run B(1); run H() } }
active proctype System() { atomic { run P(); run Q() } }""", 206, True),
    # an unless escape that runs a process, runs in its main part
    ("""byte x, p1, p2;
proctype A() { x++ }
active proctype S() { { p1 = run A(); p1 = run A(); x == 7 } unless { x >= 1 -> p2 = run A() } }
active proctype T() { x == 1 -> x = 5; p2 = run A() }""", 460, True),
    # runs after an if with else, a goto and a timeout inside atomic; a loop inside atomic
    ("""byte g, p1, p2, p3, n;
proctype A() { g++ }
proctype B() { end: do :: g > 5 -> break od }
active proctype S() {
  atomic { if :: g > 0 -> skip :: else -> p1 = run A() fi; goto L; L: p2 = run B() };
  atomic { do :: n < 2 -> n++; p3 = run A() :: else -> break od }
}
active proctype T() { atomic { timeout -> run A() } }""", 20, False),
    # R0 blocks inside its atomic sequence: R1's run may take the pid in between
    ("""byte g0, p1, p2;
proctype X() { end: do :: g0 == 9 od }
active proctype R0() { atomic { run X(); g0 > 0 -> p1 = run X() } }
active proctype R1() { g0 = 1; p2 = run X() }""", 10, False),
]


@pytest.mark.parametrize("text,stored,error", VARYING)
def test_varying_pids_count_as_spin(text, stored, error, tmp_path):
    check_pinned(text, stored, error, tmp_path)


# init runs its processes in a counted loop, and they never end (no pid is reused): the
# start-up plan unrolls the loop; cut after its last run, init would meet the run again
# (it was refused: "run is supported only in init's start-up sequence"; promela_gen.dynamic(66))
INIT_LOOPS = [
    ("""byte g0;
chan q0 = [1] of { byte };
proctype W(byte k) { byte l0; accept1: do :: q0?l0; skip :: l0 = 1; g0 = 1 od }
init { byte n; do :: n < 2 -> run W(n); n++ :: else -> break od; skip }""", 62, False),
    ("""byte g0;
chan q0 = [1] of { byte };
proctype W(byte k) { byte l0; do :: q0?l0; g0 = l0 :: g0 < 2 -> g0++ od }
init { byte n; do :: n < 3 -> run W(n); n++ :: else -> break od; q0!n; g0 == 2 -> g0 = n }""", 357, True),  # error: W never ends (invalid end state)
]


@pytest.mark.parametrize("text,stored,error", INIT_LOOPS)
def test_runs_in_init_s_counted_loop_count_as_spin(text, stored, error, tmp_path):
    check_pinned(text, stored, error, tmp_path)


def _model(text: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return parse_text(text, "m.pml")


def test_a_process_started_in_a_fixed_order_gets_one_pid():
    """The nested model above: P is always pid 1 and Q pid 2; M, B and H only at the pids
    the creation skeleton allows (its guards forgotten, so B and H may end there): 16
    instances, where each of the 5 proctypes had one at every pid 1..7 (36)."""
    model = _model(VARYING[6][0])
    names = sorted(p.name for p in model.processes)
    assert [n for n in names if n[0] in "PQ"] == ["P[1]", "Q[2]"]
    assert [n for n in names if n[0] == "M"] == ["M[2]", "M[3]", "M[4]", "M[5]"]
    assert len(names) == 16


def test_a_run_the_analysis_did_not_foresee_is_a_fault(monkeypatch):
    """Should the analysis miss a pid, the run faults there (naming the analysis) instead
    of blocking, which would silently drop states."""
    original = pids.creations

    def narrower(*args, **kwargs):
        found = original(*args, **kwargs)
        # forget that X can be given pid 3 by R0's second run
        return pids.Creations({r: v - {4} if r.target is not None and r.target.name == "p1" else v
                               for r, v in found.run_pids.items()}, found.holders, found.channels_in_use)

    monkeypatch.setattr(pids, "creations", narrower)
    model = _model(VARYING[-1][0])
    graph = reachable_graph(model)
    messages = {st.fault for k in graph.faults for st in steps(model, graph.states[k]) if st.fault}
    assert any("pid analysis" in m for m in messages), messages


@pytest.mark.parametrize("seed", range(8))
def test_random_creation_orders_are_foreseen(seed):
    """``promela_gen.creating``: no reachable state of the lowered model (the first 50,000
    where there are more) reaches a run the analysis did not foresee, nor runs out of pids
    (150 seeds checked so when written)."""
    model = _model(creating(seed))
    graph = reachable_graph(model, max_states=50_000)
    messages = {st.fault for k in graph.faults for st in steps(model, graph.states[k]) if st.fault}
    assert not any("pid analysis" in m or "processes" in m for m in messages), messages


@pytest.mark.parametrize("seed", range(4))
def test_random_creation_orders_agree_with_spin(seed, tmp_path):
    if not spin_available():
        pytest.skip("spin or gcc not installed")
    text = creating(seed)
    assert compare(text, tmp_path) is None, text


def test_mobile2_counts_as_spin():
    """Spin's LTL/mobile2.pml: five runs in one atomic sequence of System (pid 0) give HC,
    CC, BS, BS and MS pids 2 to 6 in that order (it took 87 CPU s to load and count with
    a slot per proctype and pid; 10,865 states as Spin)."""
    path = EXAMPLES / "LTL" / "mobile2.pml"
    if not path.exists():
        pytest.skip(f"Spin's examples not available at {path}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = parse_text(path.read_text(), str(path), ltl_name="")
    assert sorted(p.name for p in model.processes) == ["BS[4]", "BS[5]", "CC[3]", "HC[2]", "MS[6]", "Out[1]",
                                                        "System[0]"]
    assert our_counts(path.read_text(), str(path)) == Counts(10865, False)


def _mobile1():
    path = EXAMPLES / "LTL" / "mobile1.pml"
    if not path.exists():
        pytest.skip(f"Spin's examples not available at {path}")
    return path


def test_mobile1_has_the_processes_spin_can_create():
    """Spin's LTL/mobile1.pml (issue 28; it did not load within 120 CPU s): P is always pid
    3 and Q pid 4, the channels P, Q and MSC create are numbers 5, 6 and 7 in every state;
    16 instances created by run, not 56, and a lowering of under 2,500 summands (89,225 in its first
    round before)."""
    path = _mobile1()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = parse_text(path.read_text(), str(path), ltl_name="")  # the bound found: 11
    names = sorted(p.name for p in model.processes)
    assert [n for n in names if n[0] in "PQ"] == ["P[3]", "Q[4]"]
    assert sorted(n for n in names if n.startswith("MSC")) == ["MSC[5]", "MSC[7]"]
    assert len([n for n in names if n.split("[")[0] not in ("System", "top", "bot")]) == 16
    assert len(model.summands) < 2500


@pytest.mark.slow
def test_mobile1_counts_as_spin():
    """32,668 states as Spin (about 20 CPU s), without --max-procs: the bound is the
    skeleton's 11 (a fixed 8 made 90 false "more than 8 processes" faults)."""
    path = _mobile1()
    assert our_counts(path.read_text(), str(path)) == Counts(32668, False)


def _largest_pid(model) -> int:
    return max(int(p.name.split("[")[1].rstrip("]")) for p in model.processes if "[" in p.name)


def test_the_default_bound_is_what_the_skeleton_can_have_alive(tmp_path):
    """Without --max-procs, a model whose creation skeleton has at most 10 processes alive
    gets 10 slots and no fault (Spin allows 255: a fixed default of 8 made a false fault),
    and one that creates without end keeps the default 8 and its fault naming the option."""
    chain = "byte g;\n" + "".join(f"proctype W{k}() {{ g = {k}; run W{k + 1}() }}\n" for k in range(9)) + \
        "proctype W9() { g = 9 }\ninit { run W0() }\n"
    model = _model(chain)
    assert _largest_pid(model) == 10
    check_pinned(chain, 32, False, tmp_path)
    endless = """
proctype W() { run W() }
init { run W() }
"""
    model = _model(endless)
    assert _largest_pid(model) == 7


def test_past_the_limit_every_pid_is_possible(monkeypatch):
    """Where the analysis gives up (``pids.LIMIT``), a run may give every pid, as before
    it: more slots, and the counts are Spin's all the same."""
    text, stored, error = VARYING[3]
    slots = len(_model(text).processes)
    monkeypatch.setattr(pids, "LIMIT", 1)
    assert len(_model(text).processes) > slots
    assert our_counts(text) == Counts(stored, error)
