"""The native (C) explorer against the Python one: same states, transitions, deadlocks,
terminal states, faults and verdicts, on every bundled model and on random IR models."""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from detect.statespace import native
from detect.statespace.explore import explore_state_space
from detect.ir import (
    Assertion, Assign, Binary, Const, Event, Local, Name, SequentialModel, Summand, Unary,
    Variable,
)
from detect.statespace.native import build
from detect.ir.semantics import Fault, apply_binary, apply_unary
from frontends import SUFFIXES
from detect.transform.load import load_model as load

from tests.ir_strategies import models as ir_models
from tests.test_explore import is_real_trace, random_models
from tests.test_models import MODELS, ROOT, parameters_for

pytestmark = pytest.mark.skipif(build.compiler() is None, reason="no C compiler")

#: The Python explorer takes too long on these at their test parameters (>100k states):
#: they are covered by the others and by the benchmark.
_SKIP = {"social_golfers.csp"}


def assert_same(model, native_result, python_result):
    n, p = native_result, python_result
    assert (n.states, n.transitions, n.initial, n.faults, n.bounds, n.truncated, n.interrupted) == (
        p.states, p.transitions, p.initial, p.faults, p.bounds, p.truncated, p.interrupted)
    if not p.truncated:
        assert set(n.deadlocks) == set(p.deadlocks)
        assert set(n.terminal_states) == set(p.terminal_states)
        assert len(n.deadlock_trace) == len(p.deadlock_trace)
        assert len(n.fault_trace) == len(p.fault_trace)
    if len(p.first_faults) < 10:  # then every fault of every fault state is listed
        assert set(n.first_faults) == set(p.first_faults)
    if len(p.first_bounds) < 10:
        assert set(n.first_bounds) == set(p.first_bounds)
    assert [(a.verdict, a.note) for a in n.assertions] == [(a.verdict, a.note) for a in p.assertions]
    for a, b in zip(n.assertions, p.assertions):
        assert len(a.trace) == len(b.trace)
        trace = a.trace[:-1] if a.note == "run-time error reachable" else a.trace
        if trace:
            assert is_real_trace(model, trace)
    if n.deadlock_trace:
        assert is_real_trace(model, n.deadlock_trace)


def both(model, **kw):
    return explore_state_space(model, engine="native", **kw), explore_state_space(model, engine="python", **kw)


#: One worker, and more workers than this machine's cores (a count that is no power of two).
WORKERS = (1, 3)


def all_agree(model, **kw):
    """Native runs with each of ``WORKERS`` agree with the Python run, and so does a run whose
    every level goes to the threads (small levels otherwise run on one)."""
    p = explore_state_space(model, engine="python", **kw)
    runs = [explore_state_space(model, engine="native", workers=w, **kw) for w in WORKERS]
    for n in runs:
        assert n.notes == ()  # native indeed
        assert_same(model, n, p)
    assert_same(model, native.explore_native(model, workers=3, parallel_min=0, **kw), p)
    return runs, p


@pytest.mark.parametrize("path", [p for p in MODELS if p.name not in _SKIP],
                         ids=lambda p: str(p.relative_to(ROOT / "models")))
def test_native_agrees_with_python_on_bundled_models(path: Path):
    model = load(str(path), parameters_for(path))
    all_agree(model)


FEW = settings(max_examples=25, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FEW
@given(random_models())
def test_native_agrees_with_python_on_random_models(model):
    all_agree(model)
    for w in WORKERS:
        states = native.native_states(model, workers=w)
        assert len(states) == len(set(states)) and set(states) == _python_states(model)
        # On the threads or on one, the workers do the same: the same states in the same order.
        assert native.native_states(model, workers=w, parallel_min=0) == states


@FEW
@given(ir_models())
def test_native_agrees_with_python_on_ir_strategy_models(model):
    all_agree(model)


def test_workers_find_the_same_states_in_the_same_order_every_time():
    model = load(str(ROOT / "models" / "peterson_filter.pml"), {"N": 3})
    first = native.native_states(model, workers=2, parallel_min=0)
    for _ in range(3):
        assert native.native_states(model, workers=2, parallel_min=0) == first
    assert native.native_states(model, workers=2) == first
    assert sorted(first) == sorted(native.native_states(model, workers=1))


def test_workers_share_the_state_limit_and_the_memory_limit():
    model = _counter(100_000)
    for w in WORKERS + (2,):
        for parallel_min in (None, 0):
            n = native.explore_native(model, workers=w, max_states=777, parallel_min=parallel_min)
            assert n.states == 777 and n.truncated and not n.memory_limit_reached
            m = native.explore_native(model, workers=w, memory_limit=1 << 20, parallel_min=parallel_min)
            assert m.truncated and m.memory_limit_reached and m.memory_bytes <= 1 << 20


def test_slots_straddling_words_are_packed_and_unpacked():
    """Slots are packed with no gaps, so some straddle two 64-bit words: 20 slots of 7 bits
    (140 bits: 3 words, 18 stored bytes; slots 9 and 18 straddle).  Slot i counts to 99 once
    slot i - 1 is full, so every value of every slot is stored and read back."""
    from detect.ir import state_slots
    from detect.statespace.native.codegen import _layout

    n = 20
    variables = tuple(Variable(f"x{i}", tuple(range(100)), ((0,),)) for i in range(n))
    summands = tuple(
        Summand((), Binary("&&", Binary("<", Name(f"x{i}"), Const(99)), Binary("==", Name(f"x{i - 1}"), Const(99)))
                if i else Binary("<", Name("x0"), Const(99)), Event(f"inc{i}"),
                (Assign(Name(f"x{i}"), Binary("+", Name(f"x{i}"), Const(1))),))
        for i in range(n))
    model = SequentialModel("straddling", variables, summands)
    layout, nwords, nbytes = _layout(state_slots(model))
    assert (nwords, nbytes) == (3, 18) and sum(shift + bits > 64 for _, shift, bits in layout) == 2
    expected = [tuple([99] * i + [v] + [0] * (n - i - 1)) for i in range(n) for v in range(1 if i else 0, 100)]
    for workers in (1, 3):
        assert sorted(native.native_states(model, workers=workers)) == sorted(expected)
    runs, _ = all_agree(model)
    assert list(runs[0].deadlocks) == [(99,) * n]


def _python_states(model):
    from detect.ir import semantics

    return semantics.reference_state_space(model)[0]


# ------------------------------------------------------------------------ C semantics

_A = (-(1 << 63), -7, -1, 0, 7, (1 << 63) - 1)
_B = (-65, -1, 0, 2, 63, 64, 65)


def test_every_operator_has_python_semantics_on_int64_edges():
    """One summand per (op, a, b): enabled iff C computes Python's value, faulting iff Python
    faults; the successor records which summand it was, so the state sets must be equal."""
    checks, faulting = [], set()
    for op in ("+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "min",
               "max", "&", "|", "^", "<<", ">>"):
        for a, b in itertools.product(_A, _B + _A[:2]):
            try:
                r = apply_binary(op, a, b)
            except Fault:
                r = 0
                faulting.add(len(checks))
            if -(1 << 63) <= r < (1 << 63):
                checks.append((Binary(op, Const(a), Const(b)), r))
            else:
                faulting.discard(len(checks))
    for op in ("-", "!"):
        for a in _A[1:]:
            checks.append((Unary(op, Const(a)), apply_unary(op, a)))
    # The C compiler may fold the constants: the helpers have no undefined behaviour, so
    # folding computes what they compute at run time.
    summands = []
    for k, (e, r) in enumerate(checks):
        guard = Binary("&&", Binary("==", Name("y"), Const(0)),
                       Binary("==", e, Const(r)))
        summands.append(Summand((), guard,
                                Event("e"), (Assign(Name("y"), Const(k + 1)),)))
    model = SequentialModel("ops", (Variable("y", tuple(range(len(checks) + 1)), ((0,),)),),
                            tuple(summands))
    expected = {(0,)} | {(k + 1,) for k in range(len(checks)) if k not in faulting}
    assert set(native.native_states(model)) == expected
    n, p = both(model)
    assert_same(model, n, p)
    assert n.faults == 1


def _counter(n: int, step: Binary | None = None, **kw) -> SequentialModel:
    step = step or Binary("+", Name("x"), Const(1))
    return SequentialModel(
        "counter", (Variable("x", tuple(range(n)), ((0,),)),),
        (Summand((), Binary("<", Name("x"), Const(n - 1)), Event("inc"),
                 (Assign(Name("x"), step),)),), **kw)


def test_overflow_falls_back_to_python_with_a_note():
    big = Binary("*", Name("x"), Const((1 << 62) + 1))
    model = SequentialModel(
        "overflow", (Variable("x", (0, 1, 2), ((0,),)),),
        (Summand((), Binary(">", big, Const(-1)), Event("inc"),
                 (Assign(Name("x"), Binary("+", Name("x"), Const(1))),)),))
    with pytest.raises(native.NativeOverflow):
        native.explore_native(model)
    n = explore_state_space(model, engine="native")
    assert (n.states, n.transitions) == (3, 2)
    assert len(n.notes) == 1 and "64-bit" in n.notes[0] and "Python explorer" in n.notes[0]


def test_no_compiler_falls_back_to_python_with_a_note(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(build, "compiler", lambda: None)
    monkeypatch.setenv("SYMDETECT_NATIVE_CACHE", str(tmp_path))
    model = _counter(5)
    n = explore_state_space(model, engine="native")
    assert (n.states, n.transitions, len(n.deadlocks)) == (5, 4, 1)
    assert len(n.notes) == 1 and "no C compiler" in n.notes[0] and "Python explorer" in n.notes[0]
    assert capsys.readouterr().err == ""  # the library says it in the result; the CLI prints it


def test_cli_prints_the_fallback_note_once(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from detect.cli import main

    monkeypatch.setattr(build, "compiler", lambda: None)
    monkeypatch.setenv("SYMDETECT_NATIVE_CACHE", str(tmp_path))
    run = CliRunner().invoke(
        main, ["explore", str(ROOT / "models" / "peterson.csp"), "--engine", "native", "--json"])
    assert run.exit_code in (0, 1), run.output
    assert run.stderr.count("warning: native explorer unavailable (no C compiler") == 1


def test_compile_error_falls_back(monkeypatch, tmp_path):
    monkeypatch.setattr(build, "FLAGS", build.FLAGS + ("--no-such-option-xyz",))
    monkeypatch.setenv("SYMDETECT_NATIVE_CACHE", str(tmp_path))
    n = explore_state_space(_counter(4), engine="native")
    assert n.states == 4 and "C compiler failed" in n.notes[0]


def test_shared_objects_are_cached(monkeypatch, tmp_path):
    monkeypatch.setenv("SYMDETECT_NATIVE_CACHE", str(tmp_path))
    source = native.native_source(_counter(6))
    first = build.shared_object(source)
    assert first.parent == tmp_path and first.exists()
    mtime = first.stat().st_mtime_ns
    assert build.shared_object(source) == first and first.stat().st_mtime_ns == mtime


def test_max_states_and_timeout_truncate():
    model = _counter(50)
    n, p = both(model, max_states=10)
    assert n.states == p.states == 10 and n.truncated and p.truncated
    assert n.assertions == p.assertions
    n = explore_state_space(model, engine="native", timeout=0.0)
    assert n.truncated and not n.interrupted


def test_verdicts_and_terminal_states_agree():
    model = _counter(4, terminal=Binary("==", Name("x"), Const(3)), assertions=(
        Assertion("deadlockfree", "deadlockfree"),
        Assertion("reaches", "reaches x==2", Binary("==", Name("x"), Const(2))),
        Assertion("invariant", "always x<3", Binary("<", Name("x"), Const(3))),
        Assertion("invariant", "ghost", Name("ghost")),  # a fault counts as false
        Assertion("ltl", "not checked"),
    ))
    n, p = both(model)
    assert_same(model, n, p)
    assert [a.verdict for a in n.assertions] == ["holds", "holds", "fails", "fails", "not checked"]
    assert n.terminal_states == ((3,),) and n.deadlocks == ()


def test_cpu_seconds_are_this_process_s_over_the_search(monkeypatch):
    """One thread searches, so its CPU seconds are positive and at most the wall clock's."""
    monkeypatch.setattr(native, "AUTO_THRESHOLD", 1000)
    # (50,000 states: the native search takes milliseconds, well above the clocks' resolution)
    for engine, n in (("python", 20_000), ("native", 50_000), ("auto", 50_000)):
        result = explore_state_space(_counter(n), engine=engine, workers=1)
        assert result.states == n
        assert 0 < result.cpu_seconds <= result.seconds + 0.01, engine


def test_auto_switches_to_native_past_the_threshold(monkeypatch):
    calls = []
    real = native.explore_native
    monkeypatch.setattr(native, "explore_native", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(native, "AUTO_THRESHOLD", 5)
    model = _counter(20)
    assert explore_state_space(model).states == 20 and calls == [1]
    assert explore_state_space(model, max_states=4).states == 4 and calls == [1]
    assert explore_state_space(_counter(3)).states == 3 and calls == [1]
    monkeypatch.setenv("SYMDETECT_NATIVE", "0")
    assert explore_state_space(model).states == 20 and calls == [1]


def test_progress_is_reported(monkeypatch):
    from detect.statespace import explore as explore_module

    monkeypatch.setattr(explore_module, "PROGRESS_INTERVAL", 0.0)
    calls = []
    explore_state_space(_counter(30), engine="native", progress=lambda s, t, sec, *level: calls.append((s, t)))
    assert calls and calls[-1] == (30, 29)


def test_cli_engine_option():
    import json

    from click.testing import CliRunner

    from detect.cli import main

    outputs = []
    for engine in ("native", "python"):
        run = CliRunner().invoke(main, ["explore", str(ROOT / "models" / "peterson.csp"), "--json",
                                        "--engine", engine])
        assert run.exit_code in (0, 1), run.output
        data = json.loads(run.output)
        outputs.append({k: data[k] for k in ("states", "transitions", "deadlocks")})
    assert outputs[0] == outputs[1]


# ------------------------------------------------------------------------ reduced (sorting)


def _independent_counters(n: int, k: int) -> SequentialModel:
    """n interchangeable counters over 0..k-1, each incremented on its own: Sym(n) on slots."""
    return SequentialModel(
        "counters", (Variable("c", tuple(range(k)), tuple(((0,) for _ in range(n))), size=n),),
        (Summand((Local("i", tuple(range(n))),),
                 Binary("<", _index("c", Name("i")), Const(k - 1)), Event("inc", (Name("i"),)),
                 (Assign(_index("c", Name("i")), Binary("+", _index("c", Name("i")), Const(1))),)),),
        assertions=(Assertion("deadlockfree", "deadlockfree"),))


def _index(array, e):
    from detect.ir import Index

    return Index(array, e)


@pytest.mark.parametrize("name", ["paper/hanoi.csp", "paper/leader_complete.csp", "counters"])
def test_native_sorting_reduction_agrees_with_python(name, monkeypatch):
    import functools

    from detect.checking.reduce import explore_reduced

    model = (_independent_counters(4, 3) if name == "counters"
             else load(str(ROOT / "models" / name), parameters_for(ROOT / "models" / name)))
    results = []
    runs = (("python", 1, None),) + tuple(("native", w, None) for w in WORKERS) + (("native", 3, 0),)
    real = native.explore_native
    for engine, workers, parallel_min in runs:
        # parallel_min=0: every level on the threads
        monkeypatch.setattr(native, "explore_native", functools.partial(real, parallel_min=parallel_min))
        reduced = explore_reduced(model, "exact", explorer=engine, workers=workers)
        assert reduced.reducer.method.startswith("sorting")
        assert reduced.exploration.notes == ()  # the native run did not fall back
        results.append(reduced.exploration)
    for native_result in results[1:]:
        assert_same(model, native_result, results[0])
    if name == "counters":
        assert results[0].states == 15  # multisets of size 4 over 3 values: C(6, 2)


def test_native_reduction_refuses_a_wrong_generator_like_python():
    from detect.statespace.explore import NotASymmetry, SortedBlocks
    from detect.checking.reduce import point_symmetry, sorting_canonicaliser
    from detect.ir.points import LiteralPoints

    # x counts up, y never moves: swapping them is no symmetry.
    model = SequentialModel(
        "asym", (Variable("x", (0, 1, 2), ((0,),)), Variable("y", (0, 1, 2), ((0,),))),
        (Summand((), Binary("<", Name("x"), Const(2)), Event("inc"),
                 (Assign(Name("x"), Binary("+", Name("x"), Const(1))),)),))
    pts = LiteralPoints.of(model)
    swap = [pts.index[(1 - k, v)] for k, v in pts.pairs]
    canon = sorting_canonicaliser(((0,), (1,)))
    kw = dict(canonicalise=canon, native_canonical=SortedBlocks(((0,), (1,))),
              symmetries=(point_symmetry(swap, pts),))
    # explore_native never falls back to Python: C itself refuses.
    for run in (lambda: native.explore_native(model, workers=1, **kw),
                lambda: native.explore_native(model, workers=3, parallel_min=0, **kw),
                lambda: explore_state_space(model, engine="python", **kw)):
        with pytest.raises(NotASymmetry) as info:
            run()
        assert info.value.generator == 0 and info.value.state == (0, 0)


def test_cli_workers_option():
    import json

    from click.testing import CliRunner

    from detect.cli import main

    path = str(ROOT / "models" / "peterson_filter.pml")
    outputs = []
    for workers in ("1", "2"):
        run = CliRunner().invoke(main, ["explore", path, "-D", "N=3", "--json", "--engine", "native",
                                        "--workers", workers])
        assert run.exit_code == 0, run.output
        data = json.loads(run.output)
        outputs.append({k: data[k] for k in ("states", "transitions", "deadlocks", "faults")})
    assert outputs[0] == outputs[1] and outputs[0]["states"] > 1000


def test_default_workers_are_the_idle_cores(monkeypatch):
    monkeypatch.setattr(native.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    for load, workers in ((0.2, 4), (1.3, 4), (2.0, 3), (3.6, 1), (11.0, 1)):
        monkeypatch.setattr(native.os, "getloadavg", lambda load=load: (load, load, load))
        assert native.default_workers() == workers


def test_native_starts_from_listed_initial_states():
    """A model whose start states are listed (``SequentialModel.initial``: a Murphi
    ``Startstate`` inside a ruleset) starts the native explorer from those rows only, not
    from the product of the per-slot sets (27 states, 9 initial, as CMurphi)."""
    from frontends.murphi import parse_text
    from tests.test_murphi_constructs import RULESET_STARTSTATES

    model = parse_text(RULESET_STARTSTATES, "t.m")
    assert model.initial is not None
    runs, p = all_agree(model)
    assert (p.states, p.initial) == (27, 9)


def test_native_nested_search_refuses_a_wrong_generator_like_the_exploration():
    """The acceptance-cycle search checks each generator on every state it expands, as the
    exploration does (one shared C routine), and raises the same ``NotASymmetry``."""
    from dataclasses import replace

    from detect.checking.reduce import point_symmetry, sorting_canonicaliser
    from detect.ir.model import Assertion
    from detect.ir.points import LiteralPoints
    from detect.statespace.explore import NotASymmetry, SortedBlocks

    model = SequentialModel(
        "asym", (Variable("x", (0, 1, 2), ((0,),)), Variable("y", (0, 1, 2), ((0,),))),
        (Summand((), Binary("<", Name("x"), Const(2)), Event("inc"),
                 (Assign(Name("x"), Binary("+", Name("x"), Const(1))),)),))
    model = replace(model, assertions=(Assertion("invariant", "x >= 0", Binary(">=", Name("x"), Const(0))),))
    pts = LiteralPoints.of(model)
    swap = [pts.index[(1 - k, v)] for k, v in pts.pairs]
    with pytest.raises(NotASymmetry) as info:
        native.acceptance_cycle_native(
            model, 0, canonicalise=sorting_canonicaliser(((0,), (1,))),
            native_canonical=SortedBlocks(((0,), (1,))), symmetries=(point_symmetry(swap, pts),))
    assert info.value.generator == 0 and info.value.state == (0, 0)
