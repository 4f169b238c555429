"""The soundness checker: hand-built symmetric and asymmetric models, and a brute-force oracle."""
from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detect.ir import semantics
from detect.ir import (
    TRUE, Assert, Assign, Binary, Const, Event, If, Index, Ite, Local, Name, SequentialModel,
    Summand, Unary, Variable, state_slots,
)
from detect.symmetry.perm import StatePermutation, identity
from detect.checking.verify import check_permutation_is_bijection, compile_permutation, verify


def swap_slots(n: int, a: int, b: int, domains) -> StatePermutation:
    target = list(range(n))
    target[a], target[b] = b, a
    return StatePermutation(tuple(target), tuple({v: v for v in d} for d in domains))


def domains_of(model):
    return [slot.domain for slot in state_slots(model)]


def counters(n: int = 2, top: int = 2) -> SequentialModel:
    inc = Summand(
        (Local("i", tuple(range(n))),),
        Binary("<", Index("c", Name("i")), Const(top)),
        Event("inc", (Name("i"),)),
        (Assign(Index("c", Name("i")), Binary("+", Index("c", Name("i")), Const(1))),),
    )
    return SequentialModel("counters", (Variable("c", tuple(range(top + 1)), ((0,),) * n,
                                                 size=n),), (inc,))


def token_ring(n: int = 3) -> SequentialModel:
    """The token holder flips its bit and passes the token to the right."""
    step = Summand(
        (Local("i", tuple(range(n))),),
        Binary("==", Name("tok"), Name("i")),
        Event("step", (Name("i"),)),
        (Assign(Index("bit", Name("i")), Binary("-", Const(1), Index("bit", Name("i")))),
         Assign(Name("tok"), Binary("%", Binary("+", Name("i"), Const(1)), Const(n)))),
    )
    return SequentialModel(
        "ring",
        (Variable("tok", tuple(range(n)), (tuple(range(n)),)),
         Variable("bit", (0, 1), ((0,),) * n, size=n)),
        (step,),
    )


def ring_map(n: int, shift: int, reflect: bool) -> StatePermutation:
    """Process i -> (±i + shift) mod n, on the token value and on the bit slots."""
    def image(i):
        return ((-i if reflect else i) + shift) % n
    target = (0,) + tuple(1 + image(i) for i in range(n))
    values = ({v: image(v) for v in range(n)},) + tuple({0: 0, 1: 1} for _ in range(n))
    return StatePermutation(target, values)


def test_swapping_symmetric_counters_is_sound():
    model = counters()
    report = verify(model, [swap_slots(2, 0, 1, domains_of(model)),
                            identity(domains_of(model))])
    assert report.ok and report.complete and report.states == 9
    assert "generator 0: ok" in report.summary()


def test_value_permutation_of_counters_breaks_initial_states():
    model = counters()
    flip = StatePermutation((0, 1), ({0: 2, 1: 1, 2: 0},) * 2)
    (verdict,) = verify(model, [flip]).verdicts
    assert not verdict.ok and verdict.kind == "initial"
    assert verdict.state == (0, 0) and verdict.image == (2, 2)
    assert "c[0]=0" in verdict.message and "not initial" in verdict.message


def test_ring_rotation_is_sound_and_reflection_is_not():
    model = token_ring(3)
    rotate, reflect = ring_map(3, 1, False), ring_map(3, 0, True)
    report = verify(model, [rotate, reflect])
    assert report.verdicts[0].ok
    bad = report.verdicts[1]
    assert not bad.ok and bad.kind == "transition"
    source, target = bad.missing
    assert source == bad.image
    assert target not in {st_.target for st_ in semantics.steps(model, source)}
    assert "--step." in bad.message and "tok=" in bad.message


def test_reset_counterexample_from_the_pitfalls_notes():
    # [true] reset {x := 0}: swapping the values of x preserves the initial set but maps
    # 1 -> 0 to 0 -> 1, which is no transition.
    model = SequentialModel(
        "reset", (Variable("x", (0, 1), ((0, 1),)),),
        (Summand((), TRUE, Event("reset"), (Assign(Name("x"), Const(0)),)),),
    )
    swap_values = StatePermutation((0,), ({0: 1, 1: 0},))
    (verdict,) = verify(model, [swap_values]).verdicts
    assert not verdict.ok and verdict.kind == "transition"
    assert verdict.missing in {((1,), (1,)), ((0,), (1,))}


def test_extra_transition_of_the_image_is_reported():
    model = SequentialModel(
        "extra", (Variable("x", (0, 1), ((0, 1),)), Variable("y", (0, 1), ((0,),))),
        (Summand((), Binary("==", Name("x"), Const(0)), Event("a"), (Assign(Name("x"), Const(1)),)),
         Summand((), Binary("==", Name("x"), Const(1)), Event("b"), (Assign(Name("x"), Const(0)),)),
         Summand((), Binary("==", Name("x"), Const(1)), Event("c"), (Assign(Name("y"), Const(1)),))),
    )
    flip_x = StatePermutation((0, 1), ({0: 1, 1: 0}, {0: 0, 1: 1}))
    (verdict,) = verify(model, [flip_x]).verdicts
    assert not verdict.ok and verdict.kind == "extra transition"
    assert verdict.missing == ((1, 0), (1, 1)) and "--c-->" in verdict.message


def test_fault_states_must_map_to_fault_states():
    toggle = [Summand((), TRUE, Event(f"t{v}"), (Assign(Name(v), Binary("-", Const(1), Name(v))),))
              for v in ("x", "y")]
    overflow = Summand((), Binary("==", Name("x"), Const(1)), Event("bad"),
                       (Assign(Name("x"), Const(2)),))
    model = SequentialModel(
        "faults", (Variable("x", (0, 1), ((0,),)), Variable("y", (0, 1), ((0,),))),
        tuple(toggle) + (overflow,))
    (verdict,) = verify(model, [swap_slots(2, 0, 1, domains_of(model))]).verdicts
    assert not verdict.ok and verdict.kind == "fault"


def test_terminal_predicate_must_be_preserved_on_dead_ends():
    model = SequentialModel(
        "ends", (Variable("x", (0, 1), ((0, 1),)), Variable("y", (0, 1), ((0, 1),))), (),
        terminal=Binary("==", Name("x"), Const(1)))
    (verdict,) = verify(model, [swap_slots(2, 0, 1, domains_of(model))]).verdicts
    assert not verdict.ok and verdict.kind == "terminal"
    assert "valid end" in verdict.message and "deadlock" in verdict.message


def test_malformed_permutations_are_rejected_before_exploring():
    model = counters()
    not_a_permutation = StatePermutation((0, 0), ({0: 0, 1: 1, 2: 2},) * 2)
    not_onto = StatePermutation((0, 1), ({0: 0, 1: 0, 2: 2}, {0: 0, 1: 1, 2: 2}))
    wrong_domain = StatePermutation((0, 1), ({0: 0, 1: 1}, {0: 0, 1: 1, 2: 2}))
    assert check_permutation_is_bijection(model, identity(domains_of(model))) == ()
    for sigma in (not_a_permutation, not_onto, wrong_domain):
        assert check_permutation_is_bijection(model, sigma)
        (verdict,) = verify(model, [sigma]).verdicts
        assert verdict.kind == "malformed" and not verdict.ok


def test_truncated_exploration_gives_a_partial_verdict():
    model = counters(3, 3)
    report = verify(model, [swap_slots(3, 0, 1, domains_of(model))], max_states=10)
    assert not report.complete and report.ok
    assert "not a proof" in report.summary()


def test_compiled_permutation_agrees_with_apply():
    sigma = ring_map(4, 1, True)
    apply = compile_permutation(sigma)
    for state in itertools.product(range(4), *([(0, 1)] * 4)):
        assert apply(state) == sigma.apply(state)


# ------------------------------------------------------------------------ brute force

def brute_force_is_symmetry(model, sigma) -> bool:
    """σ is an automorphism of the reachable LTS (states, transitions, faults, valid ends)."""
    states, transitions, faults = semantics.reference_state_space(model)
    init = set(semantics.initial_states(model))
    if {sigma.apply(s) for s in init} != init:
        return False
    if {sigma.apply(s) for s in states} != states:
        return False
    if {(sigma.apply(s), sigma.apply(t)) for s, t in transitions} != transitions:
        return False
    if {sigma.apply(s) for s in faults} != faults:
        return False
    dead_ends = states - {s for s, _ in transitions}
    terminal = {s for s in dead_ends if semantics.is_terminal(model, s)}
    return {sigma.apply(s) for s in terminal} == terminal


# Two processes with own variables p0, p1 over DOMAIN and a shared g over {0, 1}.  A random
# template over "P" (own variable) and "g" is instantiated once per process, so swapping p0
# and p1 is always a symmetry; random value maps on top of that may or may not be.
DOMAIN = (0, 1, 2)


def rename(node, own: str):
    if isinstance(node, Name):
        return Name(own) if node.name == "P" else node
    if isinstance(node, (Const,)):
        return node
    if isinstance(node, Unary):
        return Unary(node.op, rename(node.operand, own))
    if isinstance(node, Binary):
        return Binary(node.op, rename(node.left, own), rename(node.right, own))
    if isinstance(node, Ite):
        return Ite(*(rename(x, own) for x in (node.cond, node.then, node.else_)))
    if isinstance(node, Assign):
        return Assign(rename(node.target, own), rename(node.value, own))
    if isinstance(node, If):
        return If(rename(node.cond, own), tuple(rename(s, own) for s in node.then),
                  tuple(rename(s, own) for s in node.else_))
    if isinstance(node, Assert):
        return Assert(rename(node.cond, own), node.text)
    raise AssertionError(node)


@st.composite
def template_exprs(draw, depth=2):
    leaf = st.one_of(st.builds(Const, st.integers(0, 2)), st.sampled_from([Name("P"), Name("g")]))
    if depth == 0 or draw(st.booleans()):
        return draw(leaf)
    sub = template_exprs(depth - 1)
    return draw(st.one_of(
        st.builds(Binary, st.sampled_from(["+", "-", "==", "<", "%", "max", "&&"]), sub, sub),
        st.builds(Unary, st.just("!"), sub),
        st.builds(Ite, sub, sub, sub),
    ))


@st.composite
def template_statements(draw, depth=1):
    kind = draw(st.sampled_from(["own", "own", "shared", "assert"] + (["if"] if depth else [])))
    if kind == "own":
        return Assign(Name("P"), draw(template_exprs()))
    if kind == "shared":
        return Assign(Name("g"), draw(template_exprs()))
    if kind == "assert":
        return Assert(draw(template_exprs()))
    body = st.lists(template_statements(depth - 1), max_size=2)
    return If(draw(template_exprs()), tuple(draw(body)), tuple(draw(body)))


@st.composite
def symmetric_models(draw):
    summands = []
    for k in range(draw(st.integers(1, 3))):
        guard = draw(st.one_of(st.just(TRUE), template_exprs()))
        program = tuple(draw(st.lists(template_statements(), min_size=1, max_size=3)))
        for own in ("p0", "p1"):
            summands.append(Summand((), rename(guard, own), Event(f"a{k}"),
                                    tuple(rename(s, own) for s in program)))
    p_init = tuple(draw(st.sets(st.sampled_from(DOMAIN), min_size=1)))
    g_init = tuple(draw(st.sets(st.sampled_from((0, 1)), min_size=1)))
    terminal = draw(st.one_of(st.none(), st.just(Binary("==", Name("p0"), Name("p1")))))
    return SequentialModel(
        "pair",
        (Variable("p0", DOMAIN, (tuple(sorted(p_init)),)),
         Variable("p1", DOMAIN, (tuple(sorted(p_init)),)),
         Variable("g", (0, 1), (tuple(sorted(g_init)),))),
        tuple(summands), terminal=terminal)


@st.composite
def permutations(draw):
    swap = draw(st.booleans())
    perms = list(itertools.permutations(DOMAIN))
    first = draw(st.sampled_from(perms))
    second = first if draw(st.booleans()) else draw(st.sampled_from(perms))
    g_map = draw(st.sampled_from([{0: 0, 1: 1}, {0: 1, 1: 0}]))
    target = (1, 0, 2) if swap else (0, 1, 2)
    return StatePermutation(target, (dict(zip(DOMAIN, first)), dict(zip(DOMAIN, second)), g_map))


CHECKS = settings(max_examples=100, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@CHECKS
@given(symmetric_models())
def test_swapping_identical_processes_is_always_accepted(model):
    swap = StatePermutation((1, 0, 2), tuple({v: v for v in d} for d in domains_of(model)))
    report = verify(model, [swap])
    assert report.ok and report.complete
    assert brute_force_is_symmetry(model, swap)


@CHECKS
@given(symmetric_models(), st.lists(permutations(), min_size=1, max_size=3))
def test_verdicts_match_a_brute_force_automorphism_check(model, sigmas):
    report = verify(model, sigmas)
    assert report.complete
    for sigma, verdict in zip(sigmas, report.verdicts):
        assert verdict.ok == brute_force_is_symmetry(model, sigma), verdict
        if not verdict.ok:
            assert verdict.kind in {"initial", "transition", "extra transition", "fault",
                                    "terminal"}


def test_reachable_order_counts_only_the_action_on_reachable_states():
    """c[0], c[1] count to 1 of 0..3: swapping the counters acts on reachable states, swapping
    the never-reached values 2 and 3 does not, so the group of order 4 acts as order 2."""
    model = counters(2, top=1)
    model = SequentialModel(model.name, (Variable("c", (0, 1, 2, 3), ((0,),) * 2, size=2),), model.summands)
    domains = domains_of(model)
    swap = swap_slots(2, 0, 1, domains)
    values = tuple({0: 0, 1: 1, 2: 3, 3: 2} for _ in domains)
    unreached = StatePermutation((0, 1), values)
    report = verify(model, [swap, unreached])
    assert report.ok and report.complete
    assert report.reachable_order == 2
    assert "order 2" in report.action_note(4) and report.action_note(2) == ""


def test_reachable_order_equals_the_group_order_when_every_element_acts():
    model = token_ring(4)
    report = verify(model, [ring_map(4, 1, False)])
    assert report.ok and report.reachable_order == 4


def test_reachable_order_ignores_exchanges_of_variables_that_always_agree():
    """x and y never change (both stay 0) and z counts: swapping x and y is a symmetry that
    fixes every reachable state, so the action has order 1 although the literals move."""
    model = SequentialModel("consts", (
        Variable("x", (0, 1), ((0,),)), Variable("y", (0, 1), ((0,),)), Variable("z", (0, 1, 2), ((0,),)),
    ), (Summand((), Binary("<", Name("z"), Const(2)), Event("tick"), (Assign(Name("z"), Binary("+", Name("z"), Const(1))),)),))
    swap = swap_slots(3, 0, 1, domains_of(model))
    report = verify(model, [swap])
    assert report.ok and report.reachable_order == 1


def _action_order_by_enumeration(model, generators, limit: int = 2_000):
    """|G| acting on the reachable states, by closing the generators' state permutations."""
    from detect.statespace.explore import reachable_graph

    states = reachable_graph(model).states
    index = {s: i for i, s in enumerate(states)}
    gens = [tuple(index[compile_permutation(g)(s)] for s in states) for g in generators]
    identity_perm = tuple(range(len(states)))
    seen, frontier = {identity_perm}, [identity_perm]
    while frontier:
        new = []
        for p in frontier:
            for g in gens:
                q = tuple(g[i] for i in p)
                if q not in seen:
                    seen.add(q)
                    new.append(q)
        if len(seen) > limit:
            return None
        frontier = new
    return len(seen)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_reachable_order_equals_the_order_of_the_permutation_group_on_states(data):
    from detect.symmetry.pipeline import detect
    from tests.ir_strategies import models

    model = data.draw(models())
    generators = [g.permutation for g in detect(model).group.generators]
    report = verify(model, generators)
    if not (report.ok and report.complete):
        return
    expected = _action_order_by_enumeration(model, generators)
    if expected is not None:
        assert report.reachable_order == expected


def test_progress_is_told_while_exploring_and_checking(monkeypatch):
    from detect.statespace import explore as explore_module
    from detect.checking import verify as verify_module

    monkeypatch.setattr(explore_module, "_CLOCK_EVERY", 1)
    monkeypatch.setattr(explore_module, "PROGRESS_INTERVAL", 0.0)
    monkeypatch.setattr(verify_module, "_TELL_EVERY", 1)
    monkeypatch.setattr(verify_module, "_TELL_SECONDS", 0.0)
    told = []
    model = token_ring(4)
    report = verify(model, [ring_map(4, 1, False)], progress=told.append)
    assert report.ok
    assert any(t.startswith("verify: exploring") for t in told)
    assert any(t.startswith("verify: generator 0,") for t in told)
