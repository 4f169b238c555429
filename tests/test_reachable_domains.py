"""Domains from the reachable states: narrowing keeps the reachable transition system, or refuses."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detect.symmetry.constraints import TableTooLarge
from detect.statespace.explore import reachable_graph
from detect.ir import TRUE, Assign, Binary, Const, Event, Name, SequentialModel, Summand, Variable
from detect.symmetry.pipeline import detect
from detect.transform.reachable import DomainsNotNarrowed, narrow_to_reachable
from detect.checking.verify import verify
from tests.ir_strategies import SCALARS, expressions, models, statements


def _lts(model):
    g = reachable_graph(model)
    assert g.complete
    edges = {(g.states[i], g.states[j]) for i, succ in enumerate(g.successors) for j in succ}
    return set(g.states), edges, {g.states[i] for i in g.faults}


def _counters(n: int = 3, declared: int = 40_000) -> SequentialModel:
    """``hi`` is bounded only through ``lo`` (``hi - lo`` stays in 0..1): a static value
    analysis cannot bound it, the reachable states can.  Two symmetric copies of the pair."""
    big = tuple(range(declared))
    variables = tuple(Variable(f"{p}{i}", big, ((0,),)) for i in range(2) for p in ("lo", "hi"))
    summands = []
    for i in range(2):
        lo, hi = Name(f"lo{i}"), Name(f"hi{i}")
        summands.append(Summand((), Binary("&&", Binary("==", lo, hi), Binary("<", lo, Const(n))),
                                Event(f"up{i}"), (Assign(hi, Binary("+", hi, Const(1))),)))
        summands.append(Summand((), Binary("!=", lo, hi), Event(f"catch{i}"),
                                (Assign(lo, Binary("+", lo, Const(1))),)))
    return SequentialModel("counters", variables, tuple(summands))


def test_relationally_bounded_counters_get_their_reachable_domains_and_their_symmetry():
    model = _counters()
    with pytest.raises(TableTooLarge):
        detect(model, table_limit=100_000)
    detection = detect(model, table_limit=100_000, domain_states=10_000)
    assert {name: values for name, _, values in detection.domains.narrowed} == {
        "lo0": (0, 1, 2, 3), "hi0": (0, 1, 2, 3), "lo1": (0, 1, 2, 3), "hi1": (0, 1, 2, 3)}
    assert _lts(detection.model) == _lts(model)
    assert detection.group.order == 2  # the two pairs swap
    assert verify(detection.model, [g.permutation for g in detection.group.generators]).ok


def test_a_write_outside_the_reachable_values_stays_in_the_domain():
    """``x := 5; x := 0``: 5 is never in a reachable state, but writing it must not fault
    (it used to refuse narrowing; issue 25 item 7 keeps the written value instead)."""
    model = SequentialModel("overwrite", (Variable("x", tuple(range(8)), ((0,),)),), (
        Summand((), TRUE, Event("e"), (Assign(Name("x"), Const(5)), Assign(Name("x"), Const(0)))),
    ))
    narrowed = narrow_to_reachable(model, 100)
    assert narrowed.model.variables[0].domain == (0, 5)
    assert _lts(narrowed.model) == _lts(model)


def test_too_many_reachable_states_refuses_narrowing():
    with pytest.raises(DomainsNotNarrowed, match="more than 5 reachable states"):
        narrow_to_reachable(_counters(), 5)


@settings(max_examples=80, deadline=None)
@given(models())
def test_narrowing_keeps_states_transitions_and_faults(model):
    try:
        narrowed = narrow_to_reachable(model, 10_000)
    except DomainsNotNarrowed:
        return
    assert _lts(narrowed.model) == _lts(model)


def test_fallback_that_cannot_help_says_so():
    """A counter that really reaches 40,000 values: the reachable domains are as wide."""
    big = tuple(range(40_000))
    model = SequentialModel("wide", (Variable("c", big, ((0,),)),), (
        Summand((), Binary("<", Name("c"), Const(39_999)), Event("inc"),
                (Assign(Name("c"), Binary("+", Name("c"), Const(1))),)),))
    with pytest.raises(TableTooLarge, match="c ranges over 40000 values") as err:
        detect(model, table_limit=100_000, domain_states=100_000)
    assert "the domains of the 40,000 reachable states are as wide" in str(err.value)


def test_narrowing_tells_its_progress(monkeypatch):
    from detect.statespace import explore as explore_module

    monkeypatch.setattr(explore_module, "_CLOCK_EVERY", 1)
    monkeypatch.setattr(explore_module, "PROGRESS_INTERVAL", 0.0)
    told = []
    detect(_counters(), table_limit=100_000, domain_states=10_000, progress=told.append)
    assert any(t.startswith("domains: exploring") for t in told)
    assert any(t.startswith("domains: re-exploring narrowed") for t in told)


def test_narrowing_holds_at_most_the_slot_budget(monkeypatch):
    """States of many slots are bounded by memory before --domain-states (issue 16: a ring of
    1,000 processes listed a million initial states of 3,000 slots, 24 GB)."""
    from detect.statespace import explore

    monkeypatch.setattr(explore, "SLOT_BUDGET", 20)
    with pytest.raises(DomainsNotNarrowed) as err:
        narrow_to_reachable(_counters(), 10_000)
    assert str(err.value) == ("the model has more than 5 reachable states; at most 20 state slots are held "
                              "while narrowing (4 per state): lower the parameters")


@st.composite
def models_overwriting(draw):
    """``models()`` where a summand writes a scalar and then overwrites it (``x := e1; ...;
    x := e2``): e1 may be a value no reachable state holds."""
    import dataclasses

    model = draw(models())
    k = draw(st.integers(0, len(model.summands) - 1))
    s = model.summands[k]
    name = draw(st.sampled_from(SCALARS))
    locals_ = tuple(x.name for x in s.locals)
    first, then = draw(expressions(locals_, 1)), draw(expressions(locals_, 1))
    middle = draw(st.lists(statements(locals_, 1), max_size=1))
    program = s.program + (Assign(Name(name), first), *middle, Assign(Name(name), then))
    summands = model.summands[:k] + (dataclasses.replace(s, program=program),) + model.summands[k + 1:]
    return dataclasses.replace(model, summands=summands)


@settings(max_examples=120, deadline=None)
@given(models_overwriting())
def test_narrowing_never_loses_a_written_value(model):
    """Issue 25 item 7: a domain keeps the values steps write on the way, so the narrowed
    model always has the original's counts (only the state bound may refuse)."""
    try:
        narrowed = narrow_to_reachable(model, 10_000)
    except DomainsNotNarrowed as e:
        assert "reachable states" in str(e) and "written during steps" not in str(e), str(e)
        return
    assert _lts(narrowed.model) == _lts(model)


def test_progress_is_told_with_the_bfs_level(monkeypatch):
    from detect.statespace import explore

    monkeypatch.setattr(explore, "PROGRESS_INTERVAL", 0.0)
    monkeypatch.setattr(explore, "_CLOCK_EVERY", 1)
    told: list[str] = []
    narrow_to_reachable(_counters(), 100, progress=told.append)
    assert told and all(line.startswith("domains: ") and "BFS level" in line for line in told)


# ------------------------------------------------------------- native explorations (issue 28)
# Narrowing explores natively past AUTO_THRESHOLD states (Spin's dtp.pml: two explorations of
# 589,223 states were most of its detection); the native Survey must give what the Python
# graph gives: the counts that prove step 3 and the slot values that step 2 cuts to.

def _native_or_skip():
    from detect.statespace.native import NativeUnavailable, load

    try:
        load(_counters())
    except NativeUnavailable as e:
        pytest.skip(f"no native explorer here: {e}")


@settings(max_examples=15, deadline=None)
@given(models_overwriting())
def test_native_survey_equals_the_python_graphs(model):
    from detect.statespace.explore import Survey
    from detect.transform.reachable import counts, explored

    _native_or_skip()
    python = reachable_graph(model, max_states=10_000)
    native = explored(model, 10_000, native=True)
    assert isinstance(native, Survey)
    assert (counts(native), native.complete, native.slot_values) == (
        counts(python), python.complete, Survey.of(python).slot_values)


@settings(max_examples=15, deadline=None)
@given(models_overwriting())
def test_native_narrowing_gives_the_python_narrowing(model):
    """The same narrowed model, counts and refusals whichever engine explores (the written
    values found through the Python graph when a native count differs)."""
    import os

    _native_or_skip()

    def run(engine: str):
        old = os.environ.get("SYMDETECT_NATIVE")
        os.environ["SYMDETECT_NATIVE"] = engine
        try:
            return narrow_to_reachable(model, 10_000)
        except DomainsNotNarrowed as e:
            return str(e)
        finally:
            if old is None:
                del os.environ["SYMDETECT_NATIVE"]
            else:
                os.environ["SYMDETECT_NATIVE"] = old

    python, native = run("python"), run("native")
    if isinstance(python, str):
        assert native == python
        return
    assert (native.model, native.states, native.transitions, native.narrowed, native.faults) == (
        python.model, python.states, python.transitions, python.narrowed, python.faults)


def test_native_survey_is_complete_only_below_the_state_bound():
    """As ``reachable_graph``: "more than N reachable states" when there are N."""
    from detect.transform.reachable import counts, explored

    _native_or_skip()
    model = _counters()
    n = len(reachable_graph(model).states)
    for bound in (n - 1, n, n + 1):
        python, native = reachable_graph(model, max_states=bound), explored(model, bound, native=True)
        assert native.complete == python.complete == (bound > n)
        if bound > n:
            assert counts(native) == counts(python)


def test_overwritten_value_is_kept_when_native_code_explores(monkeypatch):
    """The retry of step 3 (a written value outside the states' values) through native counts."""
    monkeypatch.setenv("SYMDETECT_NATIVE", "native")
    model = SequentialModel("overwrite", (Variable("x", tuple(range(8)), ((0,),)),), (
        Summand((), TRUE, Event("e"), (Assign(Name("x"), Const(5)), Assign(Name("x"), Const(0)))),
    ))
    narrowed = narrow_to_reachable(model, 100)
    assert narrowed.model.variables[0].domain == (0, 5)
    assert _lts(narrowed.model) == _lts(model)


def test_a_time_out_during_a_native_survey_propagates_as_raised(monkeypatch):
    """The command line's ``TimedOut`` is a ``KeyboardInterrupt``: narrowing must not turn it
    into a plain one (the run would report Ctrl-C instead of the time-out)."""
    from detect.statespace import explore
    from detect.transform.reachable import explored

    _native_or_skip()

    class Stop(KeyboardInterrupt):
        pass

    def stop(*_):
        raise Stop

    monkeypatch.setattr(explore, "PROGRESS_INTERVAL", 0.0)
    with pytest.raises(Stop):
        explored(_counters(), 10_000, progress=stop, native=True)
