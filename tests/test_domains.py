"""Domain analysis: soundness against exhaustive exploration, and the precision it promises."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detect.ir import semantics
from detect.transform.domains import (
    Unbounded, expression_values, held_values, infer_domains, narrow_domains, variable_values,
)
from detect.ir import (
    TRUE, Assert, Assign, Binary, Const, Event, If, Index, Ite, Local, Name, SequentialModel,
    Summand, Unary, Variable, While, validate,
)

from tests.ir_strategies import models as small_models
from tests.test_explore import eq, lt, plus, random_models

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def pc_step(pc: str, at: int, to: int, guard=TRUE, program=()) -> Summand:
    """A summand ``[pc == at && guard] {program; pc := to}`` as Promela/DVE produce them."""
    g = eq(Name(pc), Const(at)) if guard == TRUE else Binary("&&", eq(Name(pc), Const(at)), guard)
    return Summand((), g, Event(f"{pc}.{at}"), tuple(program) + (Assign(Name(pc), Const(to)),))


def values_seen(model: SequentialModel) -> dict:
    """Every value each variable holds in a reachable state, by exhaustive exploration."""
    states, _, _ = semantics.reference_state_space(model)
    seen = {v.name: set() for v in model.variables}
    slots = [v.name for v in model.variables for _ in range(v.length)]
    for s in states:
        for name, value in zip(slots, s):
            seen[name].add(value)
    return seen


def wide(model: SequentialModel, low: int = -8, high: int = 8) -> SequentialModel:
    """``model`` with every domain widened to ``low..high`` (plus the original values)."""
    return dataclasses.replace(model, variables=tuple(
        dataclasses.replace(v, domain=tuple(sorted(set(range(low, high + 1)) | set(v.domain))))
        for v in model.variables))


# ------------------------------------------------------------------------ soundness properties


def check_narrowing_is_sound(model: SequentialModel) -> None:
    narrowed = narrow_domains(model)
    validate(narrowed)
    before = semantics.reference_state_space(model)
    after = semantics.reference_state_space(narrowed)
    # Same LTS: reachable states, transitions and faulting states.
    assert after == before
    seen = values_seen(model)
    for v in narrowed.variables:
        assert seen[v.name] <= set(v.domain), v.name
        assert set(v.domain) <= set(model.variable(v.name).domain)


@PROPERTY
@given(random_models())
def test_narrowing_keeps_the_lts_of_random_models(model):
    check_narrowing_is_sound(model)


@PROPERTY
@given(small_models())
def test_narrowing_keeps_the_lts_of_small_models(model):
    check_narrowing_is_sound(wide(model))


@st.composite
def pc_models(draw):
    """Two 'processes' with program counters, guarded steps and counters (the Promela shape)."""
    variables = [Variable("g", tuple(range(-4, 9)), ((0,),)),
                 Variable("buf", tuple(range(-4, 9)), ((0,), (1,)), size=2)]
    summands = []
    for proc in ("p", "q"):
        pc, x = f"{proc}.pc", f"{proc}.x"
        n = draw(st.integers(2, 4))
        variables += [Variable(pc, tuple(range(n)), ((0,),)), Variable(x, tuple(range(-4, 9)), ((0,),))]
        for _ in range(draw(st.integers(2, 5))):
            at, to = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
            leaf = draw(st.sampled_from([Name(x), Name("g"), Index("buf", Const(draw(st.integers(0, 1))))]))
            guard = draw(st.sampled_from([
                TRUE, lt(leaf, Const(draw(st.integers(0, 4)))), eq(leaf, Const(draw(st.integers(0, 3)))),
                Unary("!", lt(Name(x), Name("g"))),
                Binary("||", eq(Name(x), Const(1)), lt(Name("g"), Const(2)))]))
            target = draw(st.sampled_from([Name(x), Name("g"), Index("buf", Name(x)),
                                           Index("buf", Const(0))]))
            value = draw(st.sampled_from([
                plus(leaf, Const(1)), Binary("-", leaf, Const(1)), Const(draw(st.integers(-1, 3))),
                Ite(eq(leaf, Const(2)), Const(5), plus(leaf, Const(2))),
                Binary("|", Binary("-", leaf, Const(1)), Binary("*", eq(leaf, Const(0)), Const(7))),
                Binary("%", plus(leaf, Const(1)), Const(3))]))
            program = [Assign(target, value)]
            if draw(st.booleans()):
                program.append(Assert(Binary("<=", Name(x), Const(draw(st.integers(1, 6))))))
            if draw(st.booleans()):
                # An intermediate write, overwritten later in the same program.
                program = [Assign(Name(x), Const(draw(st.integers(4, 8))))] + program
            summands.append(pc_step(pc, at, to, guard, program))
    return SequentialModel("pcs", tuple(variables), tuple(summands), loop_bound=3)


@PROPERTY
@given(pc_models())
def test_narrowing_keeps_the_lts_of_models_with_program_counters(model):
    check_narrowing_is_sound(model)


@PROPERTY
@given(st.one_of(pc_models(), random_models()))
def test_the_fixpoint_holds_every_reachable_state(model):
    # The invariant I(s) of ``detect.transform.domains``: every reachable state's values lie
    # in ``flat`` and in the bucket of each location's value.  (The buckets are what a
    # summand's run updates only where something changed since its last run.)
    analysis = variable_values(model, 4096)
    layout, fixpoint = analysis.layout, analysis.fixpoint
    keys = [k for v in model.variables for k in layout.keys_of(v.name)]
    slot = {k: i for i, k in enumerate(keys)}
    held = held_values(model)
    states, _, _ = semantics.reference_state_space(model)
    for state in states:
        for k, value in zip(keys, state):
            assert fixpoint.flat[k] is None or value in fixpoint.flat[k], k
            for p in layout.locations:
                bucket = fixpoint.at[p][state[slot[p]]]
                assert bucket[k] is None or value in bucket[k], (k, p)
            assert value in held.values[slot[k]], k
            for location, table in held.determined[slot[k]]:
                assert dict(table)[state[location]] == value, (k, location)


@PROPERTY
@given(pc_models())
def test_inferred_domains_hold_every_reachable_value(model):
    names = [v.name for v in model.variables if not v.name.endswith(".pc")]
    try:
        inferred = infer_domains(model, names, limit=64)
    except Unbounded:
        return  # allowed: the analysis may give up, never under-approximate
    seen = values_seen(model)
    for v in inferred.variables:
        if v.name in names:
            # Values written (even faulting ones under the old domain) are inferred, so
            # every reachable value is there.
            assert seen[v.name] <= set(v.domain), v.name


# ------------------------------------------------------------------------ precision


def loop_model(n: int) -> SequentialModel:
    """``l = 1; do :: l < n -> level = l; l++ :: else -> break od`` split into pc steps."""
    pc, l = "P.pc", "P.l"
    return SequentialModel("loop", (
        Variable("level", tuple(range(256)), ((0,),)),
        Variable(pc, tuple(range(5)), ((0,),)),
        Variable(l, tuple(range(256)), ((0,),)),
    ), (
        pc_step(pc, 0, 1, program=[Assign(Name(l), Const(1))]),
        pc_step(pc, 1, 2, lt(Name(l), Const(n))),
        pc_step(pc, 2, 3, program=[Assign(Name("level"), Name(l))]),
        pc_step(pc, 3, 1, program=[Assign(Name(l), Binary("&", plus(Name(l), Const(1)), Const(255)))]),
        pc_step(pc, 1, 4, Unary("!", lt(Name(l), Const(n)))),
        pc_step(pc, 4, 0, program=[Assign(Name("level"), Const(0))]),
    ))


@pytest.mark.parametrize("n", [2, 3, 7])
def test_location_sensitive_loop_counter(n):
    model = narrow_domains(loop_model(n))
    assert model.variable("P.l").domain == tuple(range(n + 1))
    assert model.variable("level").domain == tuple(range(n))
    assert model.variable("P.pc").domain == (0, 1, 2, 3, 4)


def test_other_processes_do_not_blur_locations():
    # Q spins on its own counter; P's (pc, counter) pairs must stay apart regardless.
    base = loop_model(3)
    q = pc_step("Q.pc", 0, 0, program=[Assign(Name("Q.c"), Binary("%", plus(Name("Q.c"), Const(1)), Const(3)))])
    model = dataclasses.replace(
        base, variables=base.variables + (Variable("Q.pc", (0,), ((0,),)), Variable("Q.c", tuple(range(256)), ((0,),))),
        summands=base.summands + (q,))
    narrowed = narrow_domains(model)
    assert narrowed.variable("P.l").domain == (0, 1, 2, 3)
    assert narrowed.variable("Q.c").domain == (0, 1, 2)


def test_repeated_leaves_are_evaluated_together():
    # DVE timers: t' = (t-1) | ((t==255)*255) keeps 255 and counts the rest down.
    t = Index("t", Const(0))
    tick = Binary("|", Binary("-", t, Const(1)), Binary("*", eq(t, Const(255)), Const(255)))
    model = SequentialModel("timer", (Variable("t", tuple(range(256)), ((255,), (255,)), size=2),), (
        Summand((), Binary("!=", t, Const(0)), Event("tick"), (Assign(t, tick),)),
        Summand((), TRUE, Event("set"), (Assign(t, Const(3)),)),
        Summand((), eq(t, Const(0)), Event("off"), (Assign(t, Const(255)),)),
    ))
    assert narrow_domains(model).variable("t").domain == (0, 1, 2, 3, 255)
    assert expression_values(Binary("-", Name("y"), Name("y")), SequentialModel(
        "m", (Variable("y", (0, 5, 9), ((0,),)),), ()), {}) == frozenset({0})


def test_intermediate_writes_are_kept():
    # x takes 2 only in the middle of a program; narrowing must not make that write fault.
    model = SequentialModel("mid", (Variable("x", tuple(range(10)), ((0,),)),), (
        Summand((), eq(Name("x"), Const(0)), Event("a"),
                (Assign(Name("x"), Const(2)), Assign(Name("x"), Const(1)))),
    ))
    assert narrow_domains(model).variable("x").domain == (0, 1, 2)


def test_widening_stops_growth_quickly():
    # An unguarded int counter: widened to its declared bounds, not grown value by value.
    model = SequentialModel("grow", (
        Variable("x", tuple(range(-32768, 32768)), ((0,),)),
        Variable("d", (-1, 1), ((1,),)),
    ), (Summand((), TRUE, Event("a"), (Assign(Name("x"), plus(Name("x"), Name("d"))),)),))
    assert len(narrow_domains(model, limit=4096).variable("x").domain) == 65536


def test_guard_bound_counter_survives_widening():
    # 40 growth steps (more than the widening threshold) still end at the guard's bound.
    model = SequentialModel("count", (Variable("x", tuple(range(256)), ((0,),)),), (
        Summand((), lt(Name("x"), Const(40)), Event("inc"), (Assign(Name("x"), plus(Name("x"), Const(1))),)),
    ))
    assert narrow_domains(model).variable("x").domain == tuple(range(41))
    inferred = infer_domains(dataclasses.replace(
        model, variables=(Variable("x", (0,), ((0,),)),)), ["x"])
    assert inferred.variable("x").domain == tuple(range(41))


def test_infer_raises_unbounded_with_the_culprit():
    model = SequentialModel("grow", (Variable("x", (0,), ((0,),)),), (
        Summand((), TRUE, Event("a"), (Assign(Name("x"), plus(Name("x"), Const(1))),)),))
    with pytest.raises(Unbounded) as info:
        infer_domains(model, ["x"], limit=100)
    assert info.value.variable == "x" and "x := x + 1" in info.value.reason


def test_droppable_variables_are_given_up_in_one_analysis():
    # t counts for ever, d and h copy it, k only compares it: with t, d and h droppable one
    # analysis gives them up in the order found (t first: the others are unbounded through
    # it) and still bounds k; with t alone droppable, d is unbounded.
    model = SequentialModel("chain", tuple(Variable(n, (0,), ((0,),)) for n in "tdhk"), (
        Summand((), TRUE, Event("a"), (Assign(Name("t"), plus(Name("t"), Const(1))), Assign(Name("d"), Name("t")))),
        Summand((), TRUE, Event("b"), (Assign(Name("h"), Name("d")),
                                       Assign(Name("k"), Binary(">", Name("d"), Const(5))))),
    ))
    analysis = variable_values(model, 100, strict=frozenset("tdhk"), droppable=frozenset("tdh"))
    assert list(analysis.fixpoint.dropped) == ["t", "d", "h"]
    assert "t := t + 1" in analysis.fixpoint.dropped["t"]
    assert [analysis.values[n] for n in "tdh"] == [None, None, None]
    assert analysis.values["k"] == frozenset({0, 1})
    with pytest.raises(Unbounded) as info:
        variable_values(model, 100, strict=frozenset("tdhk"), droppable=frozenset("t"))
    assert info.value.variable == "d"


def test_loops_and_branches_in_programs():
    body = (If(eq(Binary("%", Name("x"), Const(2)), Const(0)),
               (Assign(Name("y"), plus(Name("y"), Const(1))),)),
            Assign(Name("x"), plus(Name("x"), Const(1))))
    model = SequentialModel("w", (Variable("x", tuple(range(20)), ((0,),)),
                                  Variable("y", tuple(range(20)), ((0,),))), (
        Summand((), eq(Name("x"), Const(0)), Event("run"), (While(lt(Name("x"), Const(4)), body),)),
    ), loop_bound=5)
    narrowed = narrow_domains(model)
    assert narrowed.variable("x").domain == (0, 1, 2, 3, 4)
    assert set(narrowed.variable("y").domain) >= {0, 1, 2}
    check_narrowing_is_sound(model)


def nested_counted_loops(loop_bound: int = 256) -> SequentialModel:
    """One step running ``i, j = -1..1`` nested, ``cnt`` counting the 9 rounds of the inner
    loop (Spin's life.pml counts a cell's neighbours so, in a d_step)."""
    inner = While(Binary("<=", Name("j"), Const(1)), (
        Assign(Name("cnt"), plus(Name("cnt"), Const(1))), Assign(Name("j"), plus(Name("j"), Const(1)))))
    outer = While(Binary("<=", Name("i"), Const(1)), (
        Assign(Name("j"), Const(-1)), inner, Assign(Name("i"), plus(Name("i"), Const(1)))))
    wide_range = tuple(range(-1000, 100_001))
    return SequentialModel("life", (
        Variable("pc", (0, 1), ((0,),)), Variable("cnt", wide_range, ((0,),)),
        Variable("i", wide_range, ((0,),)), Variable("j", wide_range, ((0,),))), (
        Summand((), eq(Name("pc"), Const(0)), Event("count"), (
            Assign(Name("cnt"), Const(0)), Assign(Name("i"), Const(-1)), outer, Assign(Name("pc"), Const(1)))),
    ), loop_bound=loop_bound)


def test_counted_loops_are_followed_round_by_round():
    # Joining the rounds at each loop head loses the link between j and cnt: cnt climbed
    # for all 256 rounds of each loop, nested (hours on life.pml).  Followed round by
    # round, the loops leave after 3 rounds each and cnt holds what it can hold.
    values = variable_values(nested_counted_loops(), 100_000, strict=frozenset({"cnt", "i", "j"})).values
    assert values["cnt"] == frozenset(range(10))
    assert values["i"] == frozenset(range(-1, 3))
    assert values["j"] == frozenset(range(-1, 3))
    check_narrowing_is_sound(dataclasses.replace(nested_counted_loops(), variables=tuple(
        dataclasses.replace(v, domain=tuple(range(-2, 12))) for v in nested_counted_loops().variables)))


def test_a_loop_going_round_in_circles_ends_the_unrolling():
    # x toggles for ever: the rounds repeat, so the classic iteration takes over (and the
    # loop's exit is every state it may leave in, here none: the loop always faults)
    body = (Assign(Name("x"), Binary("-", Const(1), Name("x"))), Assign(Name("y"), plus(Name("y"), Const(1))))
    model = SequentialModel("circle", (Variable("x", (0, 1), ((0,),)), Variable("y", tuple(range(300)), ((0,),))), (
        Summand((), eq(Name("y"), Const(0)), Event("spin"), (While(TRUE, body),)),), loop_bound=4)
    check_narrowing_is_sound(model)
    assert variable_values(model, 1000).values["x"] == frozenset({0, 1})


# ------------------------------------------------------------------------ corpus


def corpus(*parts):
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared corpus not available at {path}")
    return path


@pytest.mark.parametrize("name, variable, expected", [
    ("fischer.1.dve", "t", (0, 1, 2, 3, 255)),
    ("peterson.1.dve", None, None),
])
def test_dve_corpus_domains(name, variable, expected):
    from detect.transform.load import load_model

    model = load_model(str(corpus("beem", "dve", name)))
    assert max(len(v.domain) for v in model.variables if v.name != "toGear") <= 16
    if variable is not None:
        assert model.variable(variable).domain == expected


def test_peterson_filter_locals_are_small():
    from frontends.promela import load

    path = REPO / "models" / "peterson_filter.pml"
    model = narrow_domains(load(path, {"N": 5}))
    assert model.variable("user_1.l").domain == (0, 1, 2, 3, 4, 5)
    assert model.variable("level").domain == (0, 1, 2, 3, 4)


def test_widening_does_not_fill_gaps():
    # A timer set to 100 counts down past the widening threshold; 101..254 stay out.
    t = Name("t")
    tick = Binary("|", Binary("-", t, Const(1)), Binary("*", eq(t, Const(255)), Const(255)))
    model = SequentialModel("timer", (Variable("t", tuple(range(256)), ((255,),)),), (
        Summand((), Binary("!=", t, Const(0)), Event("tick"), (Assign(t, tick),)),
        Summand((), eq(t, Const(255)), Event("set"), (Assign(t, Const(100)),)),
        Summand((), eq(t, Const(0)), Event("off"), (Assign(t, Const(255)),)),
    ))
    assert narrow_domains(model).variable("t").domain == tuple(range(101)) + (255,)


#: Spin's example ``sort.pml`` (``../shared/corpus/spin/sort.pml``): seven processes in a
#: pipeline over seven channels of ``L`` cells each.
SORT = """/*
 * A program to sort concurrently N "random" numbers
 * The reduced space and time should be linear in the
 * number of processes, and can be reduced when the length of
 * the buffer queues is increased.
 * In full search it should be exponential.
 */

#define N	7			/* Number of Proc */
#define L	10			/* Size of buffer queues */
#define RANDOM	(seed * 3 + 14) % 100	/* Calculate "random" number */

chan q[N] = [L] of {byte};

proctype left(chan out)			/* leftmost process, generates random numbers */
{	byte counter, seed;

	xs out;

	counter = 0; seed = 15;
	do
	:: out!seed ->			/* output value to the right */
		counter = counter + 1;
		if
		:: counter == N -> break
		:: counter != N -> skip
		fi;
		seed = RANDOM		/* next "random" number */
	od
}

proctype middle(chan inp, out; byte procnum)
{	byte counter, myval, nextval;

	xs out;
	xr inp;

	counter = N - procnum;
	inp?myval;				/* get first value from the left */
	do
	:: counter > 0 ->
		inp?nextval;			/* upon receipt of a new value */
		if
		:: nextval >= myval -> out!nextval
		:: nextval <  myval ->
			out!myval;
			myval=nextval		/* send bigger, hold smaller */
		fi;
		counter = counter - 1
	:: counter == 0 -> break
	od
}

proctype right(chan inp)	/* rightmost channel */
{	byte biggest;

	xr inp;

	inp?biggest		/* accepts only one value, which is the biggest */
}

init {
	byte proc=1;

	atomic {
		run left ( q[0] );
		do
		:: proc < N ->
			run middle ( q[proc-1] , q[proc], proc );
			proc = proc+1
		:: proc == N -> break
		od;
		run right ( q[N-1] )
	}
}

"""


def sort_program(buffer: int) -> str:
    """``SORT`` with channels of ``buffer`` cells."""
    assert "#define L\t10\t" in SORT
    return SORT.replace("#define L\t10\t", f"#define L\t{buffer}\t")


def test_fixpoint_work_per_slot_does_not_grow_with_the_buffers():
    # With L = 255 the analysis took ~50 CPU s: every summand's run copied and tested all
    # 1,829 slots, and the runs grow with L (a buffer count gains one value per pass).  A run
    # looks only at what changed since, so the work per slot and location value is no larger
    # than with L = 10.
    from frontends.promela import parse_text

    work = {}
    for buffer in (10, 255):
        state = variable_values(parse_text(sort_program(buffer)), 4096).fixpoint
        buckets = sum(len(at) for at in state.at.values())
        work[buffer] = state.evaluations / (len(state.flat) * buckets)
    assert work[255] <= work[10], work


@pytest.mark.parametrize("source", ["text", "corpus"])
def test_wrapping_byte_counter_is_widened_to_its_type(source):
    """Spin's ``Exercises/ex_1a.pml`` (``init { byte i; do :: i++ od }``; pan: 256 states):
    the counter wraps, so its values are all of 0..255.  The fixpoint widens it to the
    declared bound after ``_WIDEN_AFTER`` growths instead of adding one value per round."""
    from detect.transform import domains
    from frontends.promela import parse_text
    from tests.spin_oracle import our_counts

    text = "init { byte i; do :: i++ od }"
    if source == "corpus":
        path = CORPUS / "spin" / "Examples" / "Exercises" / "ex_1a.pml"
        if not path.exists():
            pytest.skip(f"corpus absent: {path}")
        text = path.read_text()
    model = parse_text(text, "ex_1a.pml", ltl_name="")
    _, state = domains._fixpoint(model, frozenset(), 4096)
    assert state.rounds <= domains._WIDEN_AFTER + 8
    assert narrow_domains(model).variable("init.i").domain == tuple(range(256))
    assert our_counts(text).stored == 256
