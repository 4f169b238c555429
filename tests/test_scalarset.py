"""The exact fast path for S_m acting on process slots *and* pid values (``detect.checking.scalarset``
and C's ``canonicalise_pids``): its least image is the general stabiliser-chain one on random
states, in Python and in C, and reduced explorations keep exactly one state per orbit
(brute-force orbit counts), natively and in Python."""
from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from detect.checking.scalarset import permuted_pids
from detect.checking.reduce import explore_reduced, make_reducer
from detect.ir import (
    Assign, Binary, Const, Event, Index, Local, Name, SequentialModel, Summand, Variable, state_slots,
)
from detect.statespace.explore import PermutedPids
from detect.statespace.native import NativeCanonicaliser, build
from detect.symmetry.pipeline import detect
from detect.transform.load import load_model

from tests.test_frontend_murphi import _corpus
from tests.test_models import ROOT
from tests.test_native import assert_same
from tests.test_reduce import counters, lock, orbit_count

needs_cc = pytest.mark.skipif(build.compiler() is None, reason="no C compiler")


def pointers(n: int) -> SequentialModel:
    """n processes, each may point at another (ptr[i] names a pid) and bumps its mark mod 3;
    ``last`` names the process that pointed last.  S_n moves the processes' slots and renames
    the pids inside and outside them: the values of blocks name pids too."""
    i, j = Name("i"), Name("j")
    li, lj = Local("i", tuple(range(n))), Local("j", tuple(range(n)))
    bump = Binary("%", Binary("+", Index("mark", j), Const(1)), Const(3))
    return SequentialModel(
        f"pointers n={n}",
        (Variable("ptr", tuple(range(-1, n)), ((-1,),) * n, size=n),
         Variable("mark", (0, 1, 2), ((0,),) * n, size=n),
         Variable("last", tuple(range(-1, n)), ((-1,),))),
        (Summand((li, lj), Binary("&&", Binary("==", Index("ptr", i), Const(-1)), Binary("!=", i, j)),
                 Event("point", (i, j)),
                 (Assign(Index("ptr", i), j), Assign(Index("mark", j), bump), Assign(Name("last"), i))),
         Summand((li,), Binary("!=", Index("ptr", i), Const(-1)), Event("clear", (i,)),
                 (Assign(Index("ptr", i), Const(-1)),))),
        ())


#: (name, how to get the model): S_m on pids, with pid values in fixed slots, in blocks, or both.
CASES = {
    "n_peterson N=3": lambda: load_model(_corpus("n_peterson.m"), {"N": 3}),
    "n_peterson N=4": lambda: load_model(_corpus("n_peterson.m"), {"N": 4}),
    "peterson_scalarset N=3": lambda: load_model(ROOT / "models" / "peterson_scalarset.m", {"N": 3}),
    "peterson_scalarset N=4": lambda: load_model(ROOT / "models" / "peterson_scalarset.m", {"N": 4}),
    "peterson_filter.pml": lambda: load_model(ROOT / "models" / "peterson_filter.pml"),
    "peterson.csp": lambda: load_model(ROOT / "models" / "peterson.csp"),
    "client_server.csp": lambda: load_model(ROOT / "models" / "client_server.csp"),
    "pointers n=2": lambda: pointers(2),  # m = 2: each pid labelling is as good as its swap
    "pointers n=4": lambda: pointers(4),
}


@functools.lru_cache(maxsize=None)
def case(name: str):
    model = CASES[name]()
    detection = detect(model)
    return detection.model, detection


@pytest.mark.parametrize("name", CASES)
def test_the_pid_fast_path_is_taken(name):
    model, detection = case(name)
    reducer = make_reducer(model, detection.group, "exact")
    assert isinstance(reducer.native_canonical, PermutedPids), reducer.method
    m = len(reducer.native_canonical.blocks)
    assert reducer.method.startswith(f"S_{m} on {m} pids") and detection.group.order > 1


def _states(model):
    """Random states over the slots' domains; half of them from the first two values of each
    domain, so that processes tie and the search must break ties."""
    domains = [slot.domain for slot in state_slots(model)]
    narrow = st.tuples(*(st.sampled_from(d[:2]) for d in domains))
    return st.one_of(st.tuples(*(st.sampled_from(d) for d in domains)), narrow)


@pytest.mark.parametrize("name", CASES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_least_image_equals_the_general_backtracking_in_python_and_c(name, data):
    model, detection = case(name)
    fast = make_reducer(model, detection.group, "exact")
    general = make_reducer(model, detection.group, "exact", fast_paths=False)
    assert fast.slot_order == general.slot_order
    state = data.draw(_states(model))
    expected = general.canonicalise(state)
    assert fast.canonicalise(state) == expected
    if build.compiler() is not None:
        assert _native(name)(state) == expected


@functools.lru_cache(maxsize=None)
def _native(name: str):
    model, detection = case(name)
    reducer = make_reducer(model, detection.group, "exact")
    return NativeCanonicaliser(model, reducer.canonicalise, reducer.native_canonical)


@pytest.mark.parametrize("name", CASES)
def test_reduced_counts_are_the_brute_force_orbit_counts(name):
    model, detection = case(name)
    orbits, _ = orbit_count(model, detection.group)
    python = explore_reduced(model, "exact", detection=detection, explorer="python").exploration
    assert python.states == orbits
    if build.compiler() is not None:
        for workers in (1, 3):
            reduced = explore_reduced(model, "exact", detection=detection, explorer="native", workers=workers)
            assert reduced.exploration.notes == ()  # native indeed
            assert_same(model, reduced.exploration, python)


@needs_cc
@pytest.mark.parametrize("n, states", [(5, 6_770), (6, 35_159)])
def test_n_peterson_reduces_natively_to_murphi_sym1_counts(n, states):
    model = load_model(_corpus("n_peterson.m"), {"N": n})
    reduced = explore_reduced(model, "exact", explorer="native")
    assert isinstance(reduced.reducer.native_canonical, PermutedPids)
    assert reduced.exploration.notes == ()
    assert reduced.exploration.states == states
    assert [a.verdict for a in reduced.exploration.assertions if a.assertion.kind != "deadlockfree"] == ["holds"]


def test_other_groups_are_left_to_the_other_paths():
    # S_3 on clients times a rotation of the counters' values: not S_m on pids.
    model = lock(3)
    assert "backtracking" in make_reducer(model, detect(model).group, "exact").method
    # No pid values: the sorting fast path.
    model = counters(3, 2)
    assert make_reducer(model, detect(model).group, "exact").method.startswith("sorting")
    # A cyclic group on the processes.
    model = load_model(ROOT / "models" / "token_circulation.csp")
    detection = detect(model)
    assert "backtracking" in make_reducer(detection.model, detection.group, "exact").method
    from detect.ir.points import LiteralPoints

    pts = LiteralPoints.of(detection.model)
    gens = [tuple(g) for g in detection.group.points]
    order = tuple(range(len(pts.slot_points)))
    assert permuted_pids(gens, detection.group.order, pts, order) is None
    # The right shape with a group order other than m!: refused.
    model, detection = case("pointers n=4")
    pts = LiteralPoints.of(model)
    gens = [tuple(g) for g in detection.group.points]
    order = make_reducer(model, detection.group, "exact").slot_order
    assert permuted_pids(gens, detection.group.order, pts, order) is not None
    assert permuted_pids(gens, detection.group.order // 2, pts, order) is None


@needs_cc
def test_auto_goes_native_sooner_when_it_canonicalises(monkeypatch):
    from detect.statespace import native

    model, detection = case("pointers n=4")
    python = explore_reduced(model, "exact", detection=detection, explorer="python").exploration
    assert python.states > 50
    calls = []
    real = native.explore_native
    monkeypatch.setattr(native, "explore_native", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(native, "AUTO_THRESHOLD_REDUCED", 50)
    auto = explore_reduced(model, "exact", detection=detection, explorer="auto").exploration
    assert calls == [1] and auto.states == python.states
