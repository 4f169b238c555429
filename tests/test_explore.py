"""The compiled explorer against the reference interpreter, plus its own features."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detect.statespace import explore as explore_module
from detect.ir import semantics
from detect.statespace.compile import compile_model
from detect.statespace.explore import explore_state_space, reachable_graph, trace_between
from detect.transform.narrowing import narrow
from detect.ir import (
    TRUE, Assert, Assertion, Assign, Binary, BINARY_OPS, Const, Event, If, Index, Ite, Local,
    ModelError, Name, Origin, SequentialModel, Summand, ToolBound, Unary, Variable, While,
)

# ------------------------------------------------------------------------ hand-built models


def lt(a, b):
    return Binary("<", a, b)


def eq(a, b):
    return Binary("==", a, b)


def plus(a, b):
    return Binary("+", a, b)


def counters(n: int = 2, top: int = 3, terminal: bool = False) -> SequentialModel:
    """``n`` independent counters ``c[0..n-1]`` counting from 0 up to ``top``."""
    inc = Summand(
        (Local("i", tuple(range(n))),),
        lt(Index("c", Name("i")), Const(top)),
        Event("inc", (Name("i"),)),
        (Assign(Index("c", Name("i")), plus(Index("c", Name("i")), Const(1))),),
        origin=Origin.at(text="inc"),
    )
    all_top = TRUE
    for k in range(n):
        all_top = Binary("&&", all_top, eq(Index("c", Const(k)), Const(top)))
    return SequentialModel(
        "counters",
        (Variable("c", tuple(range(top + 1)), ((0,),) * n, size=n),),
        (inc,),
        assertions=(
            Assertion("deadlockfree", "deadlockfree"),
            Assertion("reaches", "c[0] == top", eq(Index("c", Const(0)), Const(top))),
            Assertion("invariant", "c[0] <= c[1]", Binary("<=", Index("c", Const(0)),
                                                           Index("c", Const(1)))),
            Assertion("unchecked", "some LTL formula"),
        ),
        terminal=all_top if terminal else None,
    )


def is_real_trace(model, trace) -> bool:
    """Starts in an initial state and each step is a transition with that label."""
    if trace[0].state not in set(semantics.initial_states(model)):
        return False
    for before, after in zip(trace, trace[1:]):
        if not any(st_.target == after.state and st_.event == after.event
                   for st_ in semantics.steps(model, before.state)):
            return False
    return True


def test_counters_counts_and_deadlock():
    result = explore_state_space(counters())
    assert (result.states, result.transitions, result.initial) == (16, 24, 1)
    assert result.deadlocks == ((3, 3),)
    assert result.terminal_states == ()
    assert result.faults == 0 and result.first_faults == ()
    assert not result.truncated and not result.interrupted
    # BFS: the deadlock trace is a shortest path, six increments long.
    assert len(result.deadlock_trace) == 7 and is_real_trace(counters(), result.deadlock_trace)


def test_terminal_states_are_not_deadlocks():
    result = explore_state_space(counters(terminal=True))
    assert result.deadlocks == ()
    assert result.terminal_states == ((3, 3),)
    assert result.assertions[0].verdict == "holds"


def test_assertion_verdicts_and_traces():
    model = counters()
    deadlockfree, reaches, invariant, unchecked = explore_state_space(model).assertions
    assert deadlockfree.verdict == "fails" and is_real_trace(model, deadlockfree.trace)
    assert deadlockfree.trace[-1].state == (3, 3)
    assert reaches.verdict == "holds" and reaches.trace[-1].state[0] == 3
    assert is_real_trace(model, reaches.trace)
    assert invariant.verdict == "fails" and is_real_trace(model, invariant.trace)
    last = invariant.trace[-1].state
    assert last[0] > last[1] and len(invariant.trace) == 2  # shortest: one inc.0
    assert unchecked.verdict == "not checked"


def test_unreachable_condition_fails_reaches_and_holds_invariant():
    base = counters()
    model = SequentialModel(
        base.name, base.variables, base.summands,
        assertions=(Assertion("reaches", "c[0] == 9", eq(Index("c", Const(0)), Const(9))),
                    Assertion("invariant", "c[1] <= 3", Binary("<=", Index("c", Const(1)),
                                                                Const(3)))),
    )
    reaches, invariant = explore_state_space(model).assertions
    assert (reaches.verdict, reaches.trace) == ("fails", ())
    assert (invariant.verdict, invariant.trace) == ("holds", ())


def test_faults_are_reported_with_origin_and_message():
    # x counts up with no bound check: writing 3 into {0..2} is a fault, not a crash.
    model = SequentialModel(
        "overflow",
        (Variable("x", (0, 1, 2), ((0,),)),),
        (Summand((), TRUE, Event("up"), (Assign(Name("x"), plus(Name("x"), Const(1))),),
                 origin=Origin.at(text="line 7")),),
        assertions=(Assertion("deadlockfree", "deadlockfree"),),
    )
    result = explore_state_space(model)
    assert (result.states, result.transitions, result.faults) == (3, 2, 1)
    (report,) = result.first_faults
    assert report.state == (2,) and report.origin == "line 7"
    assert report.message == "value 3 written to x is outside its domain"
    # A state whose only step faults has a step enabled: a fault, not a deadlock as well
    # (Spin: an assertion that fails is executable, pan -A reports no invalid end state).
    assert result.deadlocks == ()
    verdict = result.assertions[0]
    assert (verdict.verdict, verdict.note) == ("fails", "run-time error reachable")
    assert result.fault_trace[-1].event.startswith("up: value 3 written")


def test_max_states_truncates():
    result = explore_state_space(counters(), max_states=5)
    assert result.truncated and not result.interrupted
    assert result.states == 5
    assert result.assertions[0].verdict == "unknown"
    assert result.assertions[3].verdict == "not checked"


def test_timeout_truncates(monkeypatch):
    monkeypatch.setattr(explore_module, "_CLOCK_EVERY", 1)
    result = explore_state_space(counters(3, 5), timeout=0.0)
    assert result.truncated and result.states < 6 ** 3


def test_timeout_applies_while_initial_states_are_enumerated():
    """Two-hop colouring N=5 starts from ~8 million initial states; with a canonicaliser the
    clock must be read while they are enumerated, not only once expansion starts."""
    model = SequentialModel("many", (Variable("c", tuple(range(10)), (tuple(range(10)),) * 4, size=4),), (
        Summand((), TRUE, Event("stay"), ()),))
    result = explore_state_space(model, timeout=0.0, canonicalise=lambda s: s)
    assert result.truncated and result.states < 10 ** 4


def test_progress_is_reported(monkeypatch):
    monkeypatch.setattr(explore_module, "_CLOCK_EVERY", 1)
    monkeypatch.setattr(explore_module, "PROGRESS_INTERVAL", 0.0)
    calls = []
    result = explore_state_space(counters(), progress=lambda s, t, sec, *level: calls.append((s, t, sec)))
    assert len(calls) >= 2
    assert calls[-1][:2] == (result.states, result.transitions)
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)


def test_keyboard_interrupt_returns_partial_result():
    seen = []

    def canonicalise(state):
        seen.append(state)
        if len(seen) == 8:
            raise KeyboardInterrupt
        return state

    result = explore_state_space(counters(), canonicalise=canonicalise)
    assert result.interrupted and result.truncated
    assert 0 < result.states < 16


def sort_counters(state):
    return tuple(sorted(state))


def test_canonicalise_counts_representatives_and_traces_are_real():
    model = counters()
    result = explore_state_space(model, canonicalise=sort_counters)
    # Multisets of size 2 over {0..3}: 10 orbits; the orbit graph has 12 edges
    # ({a,b} -> {a+1,b} and {a,b+1}, merged when they coincide).
    assert result.states == 10
    assert result.transitions == sum(
        len({sort_counters(t) for t in ((a + 1, b), (a, b + 1)) if max(t) <= 3})
        for a in range(4) for b in range(a, 4)
    )
    assert result.deadlocks == ((3, 3),)
    assert is_real_trace(model, result.deadlock_trace)
    # The invariant c[0] <= c[1] is not symmetric: on representatives it is never violated,
    # which is exactly why reduction needs invariant conditions (checked elsewhere).
    assert result.assertions[2].verdict == "holds"


def test_trace_between_marks_a_step_that_does_not_exist():
    model = counters()
    trace = trace_between(compile_model(model), (0, 0), [(1, 0), (3, 3)])
    assert trace[1].event == "inc.0" and trace[2].event == "<no matching step>"


def test_reachable_graph_matches_oracle_and_truncates():
    model = counters()
    graph = reachable_graph(model)
    states, transitions, faults = semantics.reference_state_space(model)
    assert set(graph.states) == states and graph.complete
    assert {(graph.states[i], graph.states[j]) for i, succ in enumerate(graph.successors)
            for j in succ} == transitions
    assert graph.initial == frozenset({0}) and graph.faults == frozenset()
    small = reachable_graph(model, max_states=4)
    assert not small.complete and small.expanded < len(small.states)


def test_invalid_model_is_rejected():
    bad = SequentialModel("bad", (Variable("x", (0, 1), ((2,),)),), ())
    with pytest.raises(ModelError):
        explore_state_space(bad)


def test_initial_states_are_the_product_of_init_sets():
    model = SequentialModel(
        "any", (Variable("x", (0, 1, 2), ((0, 2),)), Variable("a", (0, 1), ((0, 1), (1,)), 2)),
        ())
    result = explore_state_space(model)
    assert result.initial == result.states == 4 and len(result.deadlocks) == 4


# ------------------------------------------------------------------------ random models

# A pool of globals with contiguous and non-contiguous domains; the random models use a few.
POOL = (
    Variable("x", (0, 1, 2), ((0,),)),
    Variable("y", (-1, 0, 2), ((0, 2),)),
    Variable("a", (0, 1), ((0,), (0, 1)), size=2),
    Variable("b", (0, 1, 2), ((1,), (0,)), size=2),
)
SCALAR_OPS = [op for op in BINARY_OPS]


@st.composite
def expressions(draw, scalars, arrays, names, depth=2):
    """Expressions over the given globals and names; may fault in every way the IR allows."""
    leaves = [st.builds(Const, st.integers(-2, 3))]
    if scalars or names:
        leaves.append(st.sampled_from([Name(n) for n in scalars + names]))
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(st.one_of(leaves))
    sub = expressions(scalars, arrays, names, depth - 1)
    choices = [
        st.builds(Unary, st.sampled_from(["-", "!"]), sub),
        st.builds(Binary, st.sampled_from(SCALAR_OPS), sub, sub),
        st.builds(Ite, sub, sub, sub),
    ]
    if arrays:
        choices.append(st.builds(Index, st.sampled_from(arrays), sub))
    return draw(st.one_of(choices))


@st.composite
def statements(draw, scalars, arrays, names, depth=1):
    expr = expressions(scalars, arrays, names, 2)
    targets = [st.sampled_from([Name(n) for n in scalars + names])] if scalars + names else []
    if arrays:
        targets.append(st.builds(Index, st.sampled_from(arrays), expressions(scalars, arrays,
                                                                             names, 1)))
    kinds = ["assign", "assign", "assert", "step", "step", "step", "step"]
    kinds += ["if", "while"] if depth > 0 else []
    kind = draw(st.sampled_from(kinds))
    if kind == "step" and (scalars or arrays):
        # A small update of a global, so that random models reach several states.
        target = draw(st.sampled_from([Name(n) for n in scalars]
                                      + [Index(a, Const(k)) for a in arrays for k in (0, 1)]))
        delta = draw(st.sampled_from([Const(1), Const(-1), Const(2)]))
        value = draw(st.sampled_from([Binary("+", target, delta), Binary("%", Binary(
            "+", target, delta), Const(3)), Const(0)]))
        return Assign(target, value)
    if kind == "assign" and targets:
        return Assign(draw(st.one_of(targets)), draw(expr))
    if kind == "if":
        body = st.lists(statements(scalars, arrays, names, depth - 1), max_size=2)
        return If(draw(expr), tuple(draw(body)), tuple(draw(body)))
    if kind == "while":
        body = st.lists(statements(scalars, arrays, names, depth - 1), min_size=1, max_size=2)
        return While(draw(expr), tuple(draw(body)))
    # some asserts stand for a bound of ours (``ToolBound``): cut, not a fault of the model
    return Assert(draw(expr), draw(st.sampled_from(["", "ok"])),
                  draw(st.sampled_from([None, None, ToolBound("--max-procs", 2, 4)])))


@st.composite
def random_models(draw):
    variables = tuple(draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=3,
                                    unique_by=lambda v: v.name)))
    scalars = [v.name for v in variables if v.size is None]
    arrays = [v.name for v in variables if v.size is not None]
    summands = []
    for k in range(draw(st.integers(1, 3))):
        local_names = draw(st.lists(st.sampled_from(["i", "j"]), max_size=2, unique=True))
        locals_ = tuple(Local(n, draw(st.sampled_from([(0, 1), (0, 1, 2), (-1, 1)])))
                        for n in local_names)
        # "tmp" is a program temporary; "ghost" is never assigned (reading it faults).
        names = local_names + ["tmp"] + (["ghost"] if draw(st.integers(0, 3)) == 0 else [])
        guard = draw(st.one_of(st.just(TRUE), st.just(TRUE),
                               expressions(scalars, arrays, local_names, 2)))
        args = tuple(draw(st.lists(expressions(scalars, arrays, local_names, 1), max_size=2)))
        program = tuple(draw(st.lists(statements(scalars, arrays, names), min_size=1,
                                      max_size=3)))
        summands.append(Summand(locals_, guard, Event(f"e{k}", args), program, f"s{k}"))
    terminal = draw(st.one_of(st.none(), expressions(scalars, arrays, [], 1)))
    return SequentialModel("random", variables, tuple(summands), loop_bound=3,
                           terminal=terminal, loop_option=draw(st.sampled_from(["", "--loop-max"])))


def state_space(model):
    return itertools.product(*(v.domain for v in model.variables for _ in range(v.length)))


def test_large_domain_of_few_intervals_is_tested_by_comparisons():
    # A provisional range beside a placeholder far below it (narrowing's trial models): the
    # write check compares against the two intervals instead of compiling a 601-value set.
    none = -(10 ** 12)
    model = SequentialModel("wide", (Variable("x", (none,) + tuple(range(-300, 301)), ((0,),)),), (
        Summand((), TRUE, Event("up"), (Assign(Name("x"), plus(Name("x"), Const(1))),)),
        Summand((), TRUE, Event("none"), (Assign(Name("x"), Const(none)),)),
    ))
    compiled = compile_model(model)
    assert "not in {" not in compiled.source and f"_v == {none} or -300 <= _v <= 300" in compiled.source
    for value in (none, -300, 0, 299, 300):
        assert list(compiled.steps((value,))) == list(semantics.steps(model, (value,)))
    assert [s.fault for s in compiled.steps((300,))][0] == "value 301 written to x is outside its domain"


RANDOM = settings(max_examples=100, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@RANDOM
@given(random_models())
def test_compiled_steps_equal_interpreter_on_every_state(model):
    """Labels, successors and fault messages agree on all states, reachable or not."""
    compiled = compile_model(model)
    for state in state_space(model):
        expected = list(semantics.steps(model, state))
        assert list(compiled.steps(state)) == expected, compiled.source
        assert compiled.successors(state) == [s.target for s in expected], compiled.source
        assert compiled.terminal(state) == semantics.is_terminal(model, state)


@RANDOM
@given(random_models())
def test_explorer_agrees_with_oracle(model):
    states, transitions, faults = semantics.reference_state_space(model)
    result = explore_state_space(model)
    assert result.states == len(states)
    assert result.transitions == len(transitions)
    # a fault state is one with a fault of the model, or a bound state (cut at a bound of ours)
    assert result.faults + result.bounds == len(faults)
    real = {s for s in faults if any(t.target is None and t.bound is None for t in semantics.steps(model, s))}
    assert result.faults == len(real)
    assert {r.state for r in result.first_bounds} <= faults - real
    assert all(r.bound is not None for r in result.first_bounds) and all(r.bound is None for r in result.first_faults)
    # a state with a faulting step has an enabled step: it is no dead end
    dead_ends = states - {s for s, _ in transitions} - faults
    assert set(result.deadlocks) == {s for s in dead_ends if not semantics.is_terminal(model, s)}
    assert set(result.terminal_states) == {s for s in dead_ends if semantics.is_terminal(model, s)}
    assert {r.state for r in result.first_faults} <= faults
    graph = reachable_graph(model)
    assert set(graph.states) == states
    assert {(graph.states[i], graph.states[j]) for i, succ in enumerate(graph.successors)
            for j in succ} == transitions
    assert {graph.states[i] for i in graph.faults} == faults
    if result.deadlocks:
        assert is_real_trace(model, result.deadlock_trace)


# ------------------------------------------------------------------------ front-end models

REPO = __import__("pathlib").Path(__file__).resolve().parents[1]
CORPUS = REPO / ".." / "shared" / "corpus" / "beem" / "dve"
#: Published BEEM state counts (shared corpus README); small enough for the interpreter.
BEEM_SMALL = {"phils.1": 80, "phils.2": 581, "fischer.1": 634, "bakery.1": 1_506,
              "gear.1": 2_689}


def assert_agrees_with_interpreter(model):
    states, transitions, faults = semantics.reference_state_space(model)
    result = explore_state_space(model)
    assert (result.states, result.transitions, result.faults + result.bounds) == (
        len(states), len(transitions), len(faults))
    dead_ends = states - {s for s, _ in transitions} - faults
    assert set(result.deadlocks) == {s for s in dead_ends if not semantics.is_terminal(model, s)}
    for verdict in result.assertions:
        trace = verdict.trace
        if verdict.note == "run-time error reachable":
            trace = trace[:-1]  # the last entry names the faulting step, it is no transition
        if trace:
            assert is_real_trace(model, trace)
    return result


@pytest.mark.parametrize("instance", sorted(BEEM_SMALL))
def test_beem_instances_agree_with_interpreter_and_published_counts(instance):
    dve = pytest.importorskip("frontends.dve")
    path = CORPUS / f"{instance}.dve"
    if not path.exists():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    result = assert_agrees_with_interpreter(narrow(dve.load(path)))
    assert result.states == BEEM_SMALL[instance]


@pytest.mark.parametrize("path", sorted((REPO / "models").glob("*.csp")), ids=lambda p: p.name)
def test_csp_models_agree_with_interpreter(path):
    csp = pytest.importorskip("frontends.csp")
    assert_agrees_with_interpreter(narrow(csp.load(str(path))))


def test_long_left_nested_chains_compile_and_too_deep_nesting_is_a_model_error():
    def model_with(expr):
        # x := expr * 0 + x + 1 while x < 2: the chain is evaluated but does not matter.
        update = Binary("+", Binary("*", expr, Const(0)), plus(Name("x"), Const(1)))
        return SequentialModel(
            "deep", (Variable("x", (0, 1, 2), ((0,),)),),
            (Summand((), lt(Name("x"), Const(2)), Event("a"), (Assign(Name("x"), update),)),))

    total, conj, right = Name("x"), Name("x"), Name("x")
    for _ in range(300):
        total = plus(total, Binary("*", Name("x"), Const(0)))
        conj = Binary("&&", conj, lt(Name("x"), Const(5)))
        right = Binary("-", Const(0), right)
    for chain in (total, conj):
        model = model_with(chain)
        assert explore_state_space(model).states == len(semantics.reference_state_space(model)[0]) == 3
    with pytest.raises(ModelError, match="too deeply nested"):
        compile_model(model_with(right)).successors  # the code is generated on first use
