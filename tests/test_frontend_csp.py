"""CSP# front end: parsing, linearisation meaning (checked against independent simulations),
family shape, located errors, and fuzzing (only ``InputError`` ever escapes)."""
from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from detect.errors import InputError
from detect.ir import slot_offsets, validate
from detect.ir.semantics import reference_state_space
from detect.transform.load import narrowed
from frontends import csp

load, parse_text = narrowed(csp.load), narrowed(csp.parse_text)

REPO = Path(__file__).resolve().parent.parent
MODELS = sorted((REPO / "models").glob("*.csp"))


def _explore(model):
    states, transitions, faults = reference_state_space(model, max_states=200_000)
    return states, transitions, faults


# ---------------------------------------------------------------------------- every model


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
def test_every_model_parses_validates_and_explores_without_faults(path):
    model = load(str(path))
    validate(model)
    states, _, faults = _explore(model)
    assert states and not faults
    assert len(states) <= 50_000


def test_there_are_at_least_six_models():
    names = {p.name for p in MODELS}
    assert {"token_circulation.csp", "dining_philosophers.csp", "no_symmetry.csp", "peterson.csp"} <= names
    assert len(names) >= 6


# ---------------------------------------------------------------------------- meaning


def _token_successors(state, n):
    """Figure 2 rules applied directly to (token, label, leader) bit vectors."""
    token, label, leader = state
    for u in range(n):
        v = (u + 1) % n
        if not leader[u] and leader[v] and label[u] == label[v]:
            t, l = list(token), list(label)
            t[u], t[v], l[v] = 0, 1, 1 - label[u]
            yield (tuple(t), tuple(l), leader)
        if not leader[v] and label[u] != label[v]:
            t, l = list(token), list(label)
            t[u], t[v], l[v] = 0, 1, label[u]
            yield (tuple(t), tuple(l), leader)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_token_circulation_matches_direct_simulation(n):
    model = load(str(REPO / "models/token_circulation.csp"), {"N": n})
    states, transitions, _ = _explore(model)
    bits = list(itertools.product((0, 1), repeat=n))
    expected_states = set()
    expected_edges = set()
    for s in itertools.product(bits, bits, bits):
        expected_states.add(s)
        for t in _token_successors(s, n):
            expected_edges.add((s, t))
    flat = lambda s: s[0] + s[1] + s[2]
    assert states == {flat(s) for s in expected_states}
    assert transitions == {(flat(a), flat(b)) for a, b in expected_edges}


def test_token_circulation_is_one_summand_set_per_rule_with_a_local():
    model = load(str(REPO / "models/token_circulation.csp"))
    assert len(model.summands) == 2
    for s in model.summands:
        assert [loc.name for loc in s.locals] == ["x"]
        assert s.locals[0].domain == (0, 1, 2)
        assert s.owners == ()
    assert {s.event.name for s in model.summands} == {"rule1", "rule2"}
    # No program counter: each rule is a one-location recursion (seed Figure 3).
    assert [v.name for v in model.variables] == ["token", "label", "leader"]
    assert model.variable("token").init == ((0, 1),) * 3


def _philosophers(n):
    """Philosopher i: 0 think, 1 holds left, 2 holds both, 3 ate, 4 put left; forks derived."""
    def holder(pcs, f):
        for i, pc in enumerate(pcs):
            if f == i and pc in (1, 2, 3):
                return i
            if f == (i + 1) % n and pc in (2, 3, 4):
                return i
        return None

    start = (0,) * n
    seen, todo, edges = {start}, [start], 0
    while todo:
        pcs = todo.pop()
        for i, pc in enumerate(pcs):
            need = {0: i, 1: (i + 1) % n}.get(pc)
            if need is not None and holder(pcs, need) is not None:
                continue
            nxt = pcs[:i] + ((pc + 1) % 5,) + pcs[i + 1:]
            edges += 1
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen, edges


@pytest.mark.parametrize("n", [2, 3, 4])
def test_dining_philosophers_matches_direct_simulation(n):
    model = load(str(REPO / "models/dining_philosophers.csp"), {"N": n})
    states, transitions, _ = _explore(model)
    expected, edges = _philosophers(n)
    assert len(states) == len(expected)
    assert len(transitions) == edges
    # Every get/put is a joint summand of a philosopher and a fork.
    for s in model.summands:
        if s.event.name in ("get", "put"):
            assert len(s.owners) == 2 and {o.split("(")[0] for o in s.owners} == {"Phil", "Fork"}
    # pc arrays per process definition, owners per instance.
    assert model.variable("pc_Phil").size == n and model.variable("pc_Fork").size == n
    # The all-hold-left state is a deadlock.
    deadlocks = [s for s in states if not any(a == s for a, _ in transitions)]
    assert len(deadlocks) == 1


def test_readers_writers_reachable_states_are_the_safe_ones():
    model = load(str(REPO / "models/readers_writers.csp"), {"M": 2, "W": 2})
    states, _, _ = _explore(model)
    # readers (count), writing, pc_Reader[2], pc_Writer[2]
    expected = set()
    for r in itertools.product((0, 1), repeat=2):
        expected.add((sum(r), 0) + r + (0, 0))
    for w in ((1, 0), (0, 1)):
        expected.add((0, 1, 0, 0) + w)
    assert states == expected
    assert [a.kind for a in model.assertions] == ["deadlockfree", "reaches", "ltl"]
    assert all(len(s.locals) == 1 for s in model.summands)


def test_client_server_sync_channel_hands_shake_between_different_processes():
    c = 2
    model = load(str(REPO / "models/client_server.csp"), {"C": c})
    states, _, _ = _explore(model)
    # Direct simulation: client state 0 idle / 1 sent / 2 served; server None or the client
    # it handles.  req hands client i to an idle server; handle marks it served; ack resets.
    start = ((0,) * c, None)
    seen, todo = {start}, [start]
    while todo:
        clients, server = todo.pop()
        nxt = []
        for i, cl in enumerate(clients):
            if cl == 0 and server is None:
                nxt.append((clients[:i] + (1,) + clients[i + 1:], i))
            if cl == 2:
                nxt.append((clients[:i] + (0,) + clients[i + 1:], server))
        if server is not None:
            nxt.append((clients[:server] + (2,) + clients[server + 1:], None))
        for t in nxt:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    assert len(states) == len(seen) == 2 ** c + c * 2 ** (c - 1)
    # The server's received client id is -1 while dead, never a client id.
    server_c = model.variable("Server_c")
    assert server_c.domain == (-1,) + tuple(range(c)) and server_c.init == ((-1,),)
    req = [s for s in model.summands if s.event.name == "req"]
    assert len(req) == 1 and [l.name for l in req[0].locals] == ["i"]


def test_buffered_channel_is_fifo():
    text = """
    channel c 2;
    var out[3] : {0..3} = [0(3)];
    var k : {0..3} = 0;
    Sender() = c!1 -> c!2 -> c!3 -> Skip;
    Receiver() = c?x -> got.x{out[k] = x; k++;} -> Receiver();
    System() = Sender() ||| Receiver();
    """
    model = parse_text(text, "fifo.csp")
    states, _, faults = _explore(model)
    assert not faults
    offsets = slot_offsets(model)
    final = [s for s in states if s[offsets["k"]] == 3]
    assert final and all(s[:3] == (1, 2, 3) for s in final)
    # Capacity 2: never 3 items in the buffer.
    count = offsets["c_count"]
    assert max(s[count] for s in states) == 2


def test_sync_channel_within_one_family_uses_two_distinct_locals():
    text = """
    #define N 3;
    channel c 0;
    var got[N] : {-1..2} = [-1(N)];
    P(i) = c!i -> Skip [] c?x -> save{got[i] = x;} -> Skip;
    System() = |||i:{0..N-1}@P(i);
    """
    model = parse_text(text, "fam.csp")
    hs = [s for s in model.summands if s.event.name == "c"]
    assert len(hs) == 1 and len(hs[0].locals) == 2
    states, _, _ = _explore(model)
    got = model.variables[0]
    for s in states:
        for i, v in enumerate(s[:3]):
            assert v != i  # nobody receives its own message


def test_stored_parameter_and_termination():
    text = """
    var x = 0;
    P(n) = [n < 3] step.n{x = n;} -> P(n + 1) [] [n == 3] Skip;
    Q() = a -> Skip; b -> Skip;
    System() = P(0) ||| Q();
    """
    model = parse_text(text, "t.csp")
    assert model.variable("P_n").domain == (0, 1, 2, 3)
    states, transitions, _ = _explore(model)
    # P: n in 0..3 (x = n - 1 after a step); Q: 3 locations.
    assert len(states) == 4 * 3
    # Termination: P can only terminate through `[n == 3] Skip`, which is a guard over
    # Skip (no step), so P never reaches Skip and there is no terminal state.
    assert model.terminal is None

    model2 = parse_text("A() = a -> Skip; B() = b -> Skip; System() = A() ||| B();", "u.csp")
    assert model2.terminal is not None
    states, transitions, _ = _explore(model2)
    assert len(states) == 4


def test_process_if_and_internal_choice_are_tau_steps():
    model = parse_text("var x = 0; P() = if (x == 0) { a{x = 1;} -> P() } else { b -> Stop <> c -> Stop };",
                       "p.csp")
    events = {s.event.name for s in model.summands}
    assert "τ" in events and {"a", "b", "c"} <= events


def test_defines_override_and_system_choice():
    text = "#define N 2; var a[N]; P(i) = e.i{a[i] = 1;} -> Skip; System() = |||i:{0..N-1}@P(i); Other() = Stop;"
    m = parse_text(text, "d.csp", {"N": 4})
    assert m.variable("a").size == 4 and ("N", 4) in m.parameters
    m2 = parse_text(text, "d.csp", process="Other")
    assert m2.summands == ()


def test_multidimensional_array_is_flattened_row_major():
    text = "var m[2][3]; P() = set{m[1][2] = 1;} -> Stop;"
    m = parse_text(text, "m.csp")
    assert m.variable("m").size == 6
    states, _, _ = _explore(m)
    assert any(s[5] == 1 for s in states)


# ---------------------------------------------------------------------------- errors


def _error(text, **kw) -> InputError:
    with pytest.raises(InputError) as info:
        parse_text(text, "bad.csp", **kw)
    return info.value


@pytest.mark.parametrize("text, where, words", [
    ("var x = 0;\nP() = a{y = 1;} -> P();", "bad.csp:2:9", "unknown variable 'y'"),
    ("var x = 0;\nP() = [z > 0] a -> P();", "bad.csp:2:8", "unknown identifier 'z'"),
    ("P(i) = a -> P(i);\nSystem() = P(1, 2);", "bad.csp:2:12", "expects 1 argument(s), got 2"),
    ("P() = a -> Q();", "bad.csp:1:12", "unknown process 'Q'"),
    ("var x = *;\nP() = a -> P();", "bad.csp:1:5", "needs a declared range"),
    ("var x = 0;\nP() = a -> \n", "bad.csp:3:1", "unexpected end of file; expected"),
    ("var x = 0\nP() = a -> P();", "bad.csp:2:1", "expected"),
    ("P() = a -> (P(); b -> Skip);", "bad.csp:1:1", "non-tail recursion"),
    ("System() = a -> (Q() || Q());\nQ() = b -> Skip;", "bad.csp:1:18", "inside a sequential process"),
    ("var count = 0;\nP() = inc{count++;} -> P();", "bad.csp:1:5", "unbounded"),
    ("channel c 0;\nP() = c?x{x = 1;} -> P();", "bad.csp:2:11", "read-only"),
    ("var a[2];\nP() = e{a = 1;} -> P();", "bad.csp:2:9", "without an index"),
])
def test_errors_are_located_and_say_what_was_expected(text, where, words):
    err = _error(text)
    message = str(err)
    assert message.startswith(where), message
    assert words in message, message
    assert "\n" not in message


def test_unbounded_variable_error_names_the_declaration():
    err = _error("var x : {0..1} = 0;\nvar count = 0;\nP() = inc{count++;} -> P();")
    assert (err.line, err.column) == (2, 5)
    assert "variable 'count' has no declared range" in err.message
    assert "var count : {0..7} = 0;" in err.message


def test_unknown_define_override_lists_the_defines():
    err = _error("#define N 2; #define M 3; P() = a -> P();", defines={"K": 1})
    assert "-D K" in err.message and "M, N" in err.message


def test_unexpected_token_message_uses_plain_words():
    err = _error("P() = a -> ;")
    assert err.message.startswith("syntax error: unexpected ';'; expected ") and "an identifier" in err.message


# ---------------------------------------------------------------------------- fuzzing


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(min_codepoint=9, max_codepoint=126), max_size=80))
def test_random_text_raises_only_input_error(text):
    try:
        parse_text(text, "fuzz.csp")
    except InputError:
        pass


_SOURCES = [p.read_text() for p in MODELS]
_TOKENS = ["(", ")", "[", "]", "{", "}", ";", "->", "|||", "||", "[]", "<>", "x", "0", "N", "?", "!",
           ".", "=", "Skip", "Stop", "var", "#define", "@", ":", "..", "*", "atomic"]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(_SOURCES))), st.integers(0, 10_000), st.integers(0, 8),
       st.sampled_from(_TOKENS))
def test_mutated_models_raise_only_input_error(which, where, cut, token):
    source = _SOURCES[which]
    k = where % (len(source) + 1)
    mutated = source[:k] + token + source[k + cut:]
    try:
        model = parse_text(mutated, "mutant.csp")
    except InputError:
        return
    validate(model)


def test_parse_text_of_models_matches_load():
    for p in MODELS:
        assert parse_text(p.read_text(), str(p)) == load(str(p))


def test_unranged_counter_bounded_only_by_reachability_gets_reachable_domain():
    """``x = x + i`` in two processes that stop once ``x > 3``: the value analysis cannot
    bound x (each process adds while the other sits before its test), the reachable states
    can (0..6); the front end says where the domain came from."""
    text = ("var x = 0;\nP(i) = a.i{x = x + i;} -> if (x > 3) { Stop } else { P(i) };\n"
            "Sys() = P(1) ||| P(2);\n")
    with pytest.warns(UserWarning, match=r"'x' has no declared range; its domain 0\.\.6 was taken"):
        model = parse_text(text, "r.csp")
    assert model.variable("x").domain == tuple(range(7))


def test_a_chain_of_unranged_counters_all_get_reachable_domains():
    """``d`` copies ``t``, which the analysis cannot bound (``t + 1 <= 3`` is not a test of
    a variable): both get their domains from the reachable states, with a warning each."""
    text = "var t = 0;\nvar d = 0;\nP() = [t + 1 <= 3] a{t = t + 1; d = t * 2;} -> P();\n"
    with pytest.warns(UserWarning) as caught:
        model = parse_text(text, "c.csp")
    assert [str(w.message).split(": ", 1)[1] for w in caught] == [
        f"variable '{n}' has no declared range; its domain {d} was taken from the 4 reachable states"
        for n, d in (("t", "0..3"), ("d", "0..6"))]
    assert model.variable("t").domain == (0, 1, 2, 3) and model.variable("d").domain == (0, 2, 4, 6)


def test_truly_unbounded_counter_is_still_refused_with_how_to_bound_it():
    with pytest.raises(InputError, match=r"variable 'x' has no declared range and its values are unbounded"
                                         r".*1 reachable states fault.*var x : \{0\.\.7\} = 0;"):
        parse_text("var x = 0;\nP() = inc{x = x + 1;} -> P();\n", "u.csp")


def _lts_of(text: str):
    from detect.statespace.explore import reachable_graph

    g = reachable_graph(parse_text(text, "m.csp"))
    return len(g.states), sum(len(s) for s in g.successors)


def test_case_is_one_tau_step_to_the_first_true_arm():
    with_case = ("var x : {0..2} = 0;\nP() = case { x == 0: a{x = 1;} -> P()  x >= 1: b{x = 2;} -> P()"
                 "  default: c{x = 0;} -> P() };\n")
    by_hand = ("var x : {0..2} = 0;\nP() = [x == 0] tau -> a{x = 1;} -> P() [] [x >= 1 && !(x == 0)] tau -> "
               "b{x = 2;} -> P() [] [!(x == 0) && !(x >= 1)] tau -> c{x = 0;} -> P();\n")
    assert _lts_of(with_case) == _lts_of(by_hand)
    model = parse_text(with_case, "m.csp")
    taus = [s for s in model.summands if s.event.name == "τ"]
    assert len(taus) == 3  # one τ per arm (default included), never a chain of tests


def test_case_without_default_terminates_when_no_arm_holds():
    model = parse_text("var x : {0..1} = 1;\nP() = case { x == 0: a -> P() };\n", "m.csp")
    from detect.statespace.explore import explore_state_space

    result = explore_state_space(model)
    assert result.states == 2 and not result.deadlocks and len(result.terminal_states) == 1


def test_ifa_and_ifb_are_guarded_choices_without_tau():
    ifa = "var x : {0..1} = 0;\nP() = ifa (x == 0) { a{x = 1;} -> P() } else { b{x = 0;} -> P() };\n"
    guards = "var x : {0..1} = 0;\nP() = [x == 0] a{x = 1;} -> P() [] [!(x == 0)] b{x = 0;} -> P();\n"
    assert _lts_of(ifa) == _lts_of(guards) == (2, 2)
    ifb = "var x : {0..1} = 0;\nP() = ifb (x == 1) { a -> P() };\nQ() = set{x = 1;} -> Stop;\nS() = P() ||| Q();\n"
    assert _lts_of(ifb) == _lts_of(ifb.replace("ifb (x == 1) { a -> P() }", "[x == 1] a -> P()"))
    # PAT: ``ifa`` without ``else`` has ``Skip`` as its else branch.
    no_else = "var x : {0..1} = 0;\nP() = ifa (x == 0) { a{x = 1;} -> P() };\n"
    assert _lts_of(no_else) == _lts_of(no_else.replace("P() };", "P() } else { Skip };"))


def test_channel_arrays_equal_separate_channels():
    """``channel c[N] k`` is N channels; ``c[i]!v`` with a family index i reaches element i.
    The same system written with separate channels and processes has the same state space."""
    arrays = ("channel c[2] 0;\nchannel d[2] 1;\nvar got[2] : {0..1} = [0(2)];\n"
              "S(i) = c[i]!1 -> d[1 - i]!i -> S(i);\n"
              "R(i) = c[i]?x{got[i] = x;} -> d[i]?y -> R(i);\n"
              "Sys() = (|||i:{0..1}@S(i)) ||| (|||i:{0..1}@R(i));\n")
    separate = ("channel c0 0;\nchannel c1 0;\nchannel d0 1;\nchannel d1 1;\nvar got[2] : {0..1} = [0(2)];\n"
                "S0() = c0!1 -> d1!0 -> S0();\nS1() = c1!1 -> d0!1 -> S1();\n"
                "R0() = c0?x{got[0] = x;} -> d0?y -> R0();\nR1() = c1?x{got[1] = x;} -> d1?y -> R1();\n"
                "Sys() = S0() ||| S1() ||| R0() ||| R1();\n")
    assert _lts_of(arrays) == _lts_of(separate)
    from detect.symmetry.pipeline import detect

    assert detect(parse_text(arrays, "a.csp")).group.order == 2  # the two pairs swap


@pytest.mark.parametrize("text,words", [
    ("channel c[2] 0;\nP() = c!1 -> P();\n", "channel 'c' is an array"),
    ("channel c 0;\nP() = c[0]!1 -> P();\n", "channel 'c' is not an array"),
    ("channel c[2] 0;\nP() = c[2]!1 -> P();\nQ() = c[0]?x -> Q();\nS() = P() ||| Q();\n", "outside c[0..1]"),
    ("channel c[0] 0;\nP() = Skip;\n", "channel array size must be positive"),
])
def test_channel_array_misuse_is_located(text, words):
    with pytest.raises(InputError, match=re.escape(words)):
        parse_text(text, "m.csp")
