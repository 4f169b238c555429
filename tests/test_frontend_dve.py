"""DVE front end: BEEM state counts, DiVinE semantics corner cases, located errors, fuzzing."""
from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detect import ir
from detect.ir import semantics
from detect.errors import InputError
from detect.statespace.explore import explore_state_space
from detect.transform.load import narrowed
from frontends import dve
from frontends.dve.linearise import KEYWORDS
from tests.frontend_checks import assert_located_error, model_or_input_error

load, parse_text = narrowed(dve.load), narrowed(dve.parse_text)

BEEM = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "beem" / "dve"

#: Published BEEM counts (DiVinE semantics), from /work/shared/corpus/README.md.
PUBLISHED = {
    "peterson.1": (12_498, None),
    "phils.1": (80, None),
    "phils.2": (581, None),
    "bakery.1": (1_506, None),
    "msmie.1": (2_334, None),
    "hanoi.1": (6_561, None),
    "fischer.1": (634, None),
    "gear.1": (2_689, 3_567),
}


def _beem(name: str) -> Path:
    path = BEEM / f"{name}.dve"
    if not path.exists():
        pytest.skip(f"BEEM corpus not available at {BEEM} (../shared is absent)")
    return path


def _model(text: str, **kw) -> ir.SequentialModel:
    return parse_text(text, "t.dve", **kw)


def _reachable(model: ir.SequentialModel) -> set[tuple[int, ...]]:
    states, _, _ = semantics.reference_state_space(model)
    return states


def _value(model: ir.SequentialModel, state, name: str, k: int = 0) -> int:
    return state[ir.slot_offsets(model)[name] + k]


def _state_where(model, states, **values):
    """The states whose named slots (``P_state`` for ``P.state``) have the given values."""
    found = []
    for s in states:
        if all(_value(model, s, n.replace("__", "."), 0) == v for n, v in values.items()):
            found.append(s)
    return found


# ---------------------------------------------------------------------------- BEEM corpus


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_beem_state_counts_match_published(name):
    model = load(_beem(name))
    result = explore_state_space(model, max_states=200_000)
    states, transitions = PUBLISHED[name]
    assert result.states == states
    if transitions is not None:
        assert result.transitions == transitions
    assert result.faults == 0
    assert not result.truncated


def test_beem_processes_become_owned_globals_and_summands():
    path = _beem("peterson.1")
    model = load(path)
    pc = model.variable("P_1.state")
    assert pc.owner == "P_1" and pc.size is None
    assert pc.domain == (0, 1, 2, 3, 4) and pc.init == ((0,),)
    k = model.variable("P_2.k")
    assert k.owner == "P_2" and k.init == ((0,),)
    assert model.variable("pos").owner is None and model.variable("pos").size == 3
    assert len(model.summands) == 3 * 7
    first = model.summands[0]
    assert first.owners == ("P_0",)
    assert str(first.origin) == f"{path}:17"  # "NCS -> wait" of P_0
    assert (first.origin.first().file, first.origin.first().line) == (str(path), 17)


def test_reference_interpreter_agrees_on_small_instance():
    model = load(_beem("phils.2"))
    states, transitions, faults = semantics.reference_state_space(model)
    result = explore_state_space(model)
    assert (len(states), len(transitions), len(faults)) == (result.states, result.transitions, 0)


# ---------------------------------------------------------------------------- templates

def _rename(obj, old: str, new: str):
    """``obj`` with every string occurrence of ``old`` replaced (deep, over frozen dataclasses)."""
    if isinstance(obj, str):
        return obj.replace(old, new)
    if isinstance(obj, (tuple, list)):
        return type(obj)(_rename(x, old, new) for x in obj)
    if dataclasses.is_dataclass(obj):
        return dataclasses.replace(
            obj, **{f.name: _rename(getattr(obj, f.name), old, new) for f in dataclasses.fields(obj)}
        )
    return obj


def test_identical_template_bodies_give_identical_summands_up_to_renaming():
    body = "byte k; state a, b; init a; trans a -> b { guard k < 2; effect k = k + 1; }, b -> a {};"
    model = _model(f"byte g; process P_0 {{ {body} }} process P_1 {{ {body} }} system async;")
    p0 = [dataclasses.replace(s, origin=ir.Origin()) for s in model.summands if s.owners == ("P_0",)]
    p1 = [dataclasses.replace(s, origin=ir.Origin()) for s in model.summands if s.owners == ("P_1",)]
    assert _rename(p1, "P_1", "P_0") == p0
    v0, v1 = model.variable("P_0.k"), model.variable("P_1.k")
    assert (v0.domain, v0.init, v0.owner, v1.owner) == (v1.domain, v1.init, "P_0", "P_1")


# ---------------------------------------------------------------------------- semantics

def test_effects_are_sequential_and_read_the_updated_values():
    model = _model("""
        byte a[3]; byte n = 1;
        process P { state s, t; init s; trans s -> t { effect a[n] = 7, n = n + 1, a[n] = 9; }; }
        system async;""")
    (final,) = [s for s in _reachable(model) if _value(model, s, "P.state") == 1]
    assert [_value(model, final, "a", k) for k in range(3)] == [0, 7, 9]
    assert _value(model, final, "n") == 2


def test_byte_overflow_and_bad_index_are_faults():
    model = _model("""
        byte x = 255; int y = 32767; byte a[2];
        process P { state s; init s; trans s -> s { effect x = x + 1; },
                                             s -> s { effect y = y + 1; },
                                             s -> s { effect a[x - 253] = 1; }; }
        system async;""")
    (init,) = semantics.initial_states(model)
    steps = list(semantics.steps(model, init))
    assert len(steps) == 3 and all(st.target is None for st in steps)
    assert "outside its domain" in steps[0].fault and "outside its domain" in steps[1].fault
    assert "out of bounds" in steps[2].fault
    assert explore_state_space(model).faults == 1


def test_int_is_signed_sixteen_bit():
    model = _model("int x = -32768; process P { state s, t; init s; trans s -> t { effect x = x - 1; }; } system async;")
    (init,) = semantics.initial_states(model)
    (step,) = semantics.steps(model, init)
    assert step.target is None


def test_rendezvous_passes_value_from_prestate_receiver_effects_first():
    model = _model("""
        byte x = 3, y, z;
        channel c;
        process S { state s0, s1; init s0; trans s0 -> s1 { sync c!x; effect x = 5; }; }
        process R { state r0, r1; init r0; trans r0 -> r1 { sync c?y; effect z = x; }; }
        system async;""")
    (summand,) = model.summands
    assert summand.owners == ("S", "R")
    assert summand.event.name == "c"
    states = _reachable(model)
    assert len(states) == 2
    final = max(states)
    assert (_value(model, final, "x"), _value(model, final, "y"), _value(model, final, "z")) == (5, 3, 3)


def test_rendezvous_with_several_values_and_negative_constant():
    model = _model("""
        int a, b;
        channel {int, int} c[0];
        process S { state s0, s1; init s0; trans s0 -> s1 { sync c!{-1, 2}; }; }
        process R { state r0, r1; init r0; trans r0 -> r1 { sync c?{a, b}; }; }
        system async;""")
    final = [s for s in _reachable(model) if _value(model, s, "R.state") == 1]
    assert [(_value(model, s, "a"), _value(model, s, "b")) for s in final] == [(-1, 2)]


def test_compiled_explorer_runs_rendezvous_temporaries_with_dotted_names():
    """The DVE front end names a rendezvous' value temporaries ``c.v0``; the compiled
    explorer once emitted them as Python names verbatim (NameError)."""
    from detect.statespace.explore import explore_state_space

    model = _model("""
        byte a, b;
        channel c;
        process S { state s0, s1; init s0; trans s0 -> s1 { sync c!{1, 2}; }; }
        process R { state r0, r1; init r0; trans r0 -> r1 { sync c?{a, b}; }; }
        system async;""")
    result = explore_state_space(model)
    assert result.states == len(_reachable(model)) == 2 and result.faults == 0


def test_no_rendezvous_with_itself():
    model = _model("""
        channel c;
        process P { state a, b; init a; trans a -> b { sync c!; }, a -> b { sync c?; }; }
        system async;""")
    assert model.summands == ()


def test_buffered_channel_is_a_fifo_that_blocks_when_full():
    model = _model("""
        byte first, second;
        channel {byte} c[2];
        process P { state s0, s1, s2, s3; init s0;
          trans s0 -> s1 { sync c!1; }, s1 -> s2 { sync c!2; }, s2 -> s3 { sync c!3; }; }
        process Q { state q0, q1, q2; init q0;
          trans q0 -> q1 { sync c?first; }, q1 -> q2 { sync c?second; }; }
        system async;""")
    states = _reachable(model)
    done = [s for s in states if _value(model, s, "Q.state") == 2]
    assert {(_value(model, s, "first"), _value(model, s, "second")) for s in done} == {(1, 2)}
    # P can never get past the third send while the buffer is full.
    full = [s for s in states if _value(model, s, "c.count") == 2 and _value(model, s, "Q.state") == 0]
    assert full and all(_value(model, s, "P.state") == 2 for s in full)
    # Received slots are zeroed, so an emptied channel has one representation.
    empty = {tuple(_value(model, s, "c.x0", k) for k in range(2)) for s in states if _value(model, s, "c.count") == 0}
    assert empty == {(0, 0)}
    # (sent, received) with 0 <= sent - received <= 2, sent <= 3, received <= 2.
    assert len(states) == 8


COMMIT = """
byte x;
channel c;
process A {{ state a0, a1, a2; init a0; commit a1;
  trans a0 -> a1 {{ effect x = 1; }}, a1 -> a2 {{ sync c!; }}, a1 -> a2 {{ effect x = 2; }}; }}
process B {{ state b0, b1; init b0; {commit_b}
  trans b0 -> b1 {{ sync c?; }}, b0 -> b1 {{ guard x < 5; }}; }}
system async;
"""


def _successors(model, **where):
    (state,) = [s for s in _reachable(model) if all(
        _value(model, s, k.replace("_", ".", 1)) == v for k, v in where.items())]
    return [st for st in semantics.steps(model, state) if st.target is not None]


def test_committed_state_blocks_other_processes():
    model = _model(COMMIT.format(commit_b=""))
    # A in committed a1, B in b0: B's local step is blocked and the rendezvous needs both
    # parties committed, so only A's local a1 -> a2 remains.
    succ = _successors(model, A_state=1, B_state=0)
    assert len(succ) == 1
    assert _value(model, succ[0].target, "x") == 2
    # Without any committed process everything interleaves.
    free = _model(COMMIT.format(commit_b="").replace("commit a1;", ""))
    assert len(_successors(free, A_state=1, B_state=0)) == 3


def test_rendezvous_between_committed_parties_is_allowed():
    model = _model(COMMIT.format(commit_b="commit b0;").replace("init a0", "init a1"))
    # Both A (a1) and B (b0) committed: A's local step, the rendezvous and B's local step.
    succ = _successors(model, A_state=1, B_state=0)
    assert len(succ) == 3
    model = _model(COMMIT.format(commit_b="commit b0;"))
    # A in a0 (not committed) while B sits in committed b0: only B may move.
    succ = _successors(model, A_state=0, B_state=0)
    assert len(succ) == 1 and _value(model, succ[0].target, "B.state") == 1


def test_remote_state_and_variable_references():
    model = _model("""
        byte seen;
        process P { byte v = 4; state a, b; init a; trans a -> b {}; }
        process Q { state q, r; init q; trans q -> r { guard P.b && P->v == 4 && P.v == 4; effect seen = P->v; }; }
        system async;""")
    final = [s for s in _reachable(model) if _value(model, s, "Q.state") == 1]
    assert final and all(_value(model, s, "seen") == 4 for s in final)
    assert all(_value(model, s, "P.state") == 1 for s in final)


def test_operators_constants_and_defines():
    text = """
        const byte N = 3;
        const int T[3] = {10, 20, 30};
        int r[8];
        byte i;
        process P { state s, t; init s;
          trans s -> t { effect r[0] = ~5, r[1] = -7 / 2, r[2] = -7 % 2, r[3] = (1 imply 0),
                                r[4] = not 0, r[5] = 1 << N, r[6] = T[i + 1], r[7] = N; }; }
        system async;"""
    (final,) = [s for s in _reachable(_model(text)) if s[-1] == 1]
    model = _model(text)
    assert [_value(model, final, "r", k) for k in range(8)] == [-6, -3, -1, 0, 1, 8, 20, 3]
    model4 = _model(text, defines={"N": 4})
    (final4,) = [s for s in _reachable(model4) if s[-1] == 1]
    assert _value(model4, final4, "r", 5) == 16 and _value(model4, final4, "r", 7) == 4
    assert model4.parameters == (("N", 4),)


TEXT_ASSERT = """
    byte x;
    process P { state a, b; init a; assert b: x == 1;
      trans a -> b { effect x = 1; }; }
    system async;"""


def test_assert_section_becomes_an_invariant():
    model = _model(TEXT_ASSERT)
    (assertion,) = model.assertions
    assert assertion.kind == "invariant" and "x == 1" in assertion.text
    assert [r.verdict for r in explore_state_space(model).assertions] == ["holds"]
    broken = _model(TEXT_ASSERT.replace("x = 1", "x = 2"))
    assert [r.verdict for r in explore_state_space(broken).assertions] == ["fails"]


def test_synchronous_system_moves_all_processes_together():
    model = _model("""
        byte x;
        process A { state a0, a1; init a0; trans a0 -> a1 {}, a1 -> a0 {}; }
        process B { state b0, b1; init b0; trans b0 -> b1 { guard x < 2; effect x = x + 1; }, b1 -> b0 {}; }
        system sync;""")
    assert all(s.owners == ("A", "B") for s in model.summands)
    result = explore_state_space(model)
    assert result.states == 5 and len(result.deadlocks) == 1


def test_domains_are_narrowed_to_written_values():
    model = _model("byte x; process P { state s, t; init s; trans s -> t { effect x = 7; }; } system async;")
    assert model.variable("x").domain == (0, 7)


# ---------------------------------------------------------------------------- errors

@pytest.mark.parametrize(
    "text, line, column, fragment",
    [
        ("byte x\nprocess P { state s; init s; } system async;", 2, 1, "syntax error"),
        ("byte x;\nprocess P { state s; init s;\n trans s -> s { effect y = 1; }; } system async;", 3, 24, "unknown variable 'y'"),
        ("byte x;\nprocess P { state s; init s;\n trans s -> s { guard z > 1; }; } system async;", 3, 23, "unknown identifier 'z'"),
        ("process P { state s; init s;\n trans s -> u {}; } system async;", 2, 13, "no state 'u'"),
        ("process P { state s; init s;\n trans s -> s { sync c!; }; } system async;", 2, 17, "unknown channel 'c'"),
        ("process P { state s; init s;\n trans s -> s { guard Q.s; }; } system async;", 2, 23, "unknown process 'Q'"),
        ("const byte N = 2;\nprocess P { state s; init s;\n trans s -> s { effect N = 1; }; } system async;", 3, 24, "constant"),
        ("byte a[2];\nprocess P { state s; init s;\n trans s -> s { guard a > 1; }; } system async;", 3, 23, "needs an index"),
        ("byte x = 256;\nprocess P { state s; init s; } system async;", 1, 10, "outside byte"),
        ("byte a[2] = {1, 2, 3};\nprocess P { state s; init s; } system async;", 1, 20, "3 initial values"),
        ("byte x;\nbyte x;\nprocess P { state s; init s; } system async;", 2, 6, "declared twice"),
        ("process P { state s; init s; }\nsystem async property P;", 2, 23, "not supported"),
        ("process P { state s; init s; trans s -> s {}; ", 1, 47, "end of file"),
    ],
)
def test_errors_are_located(text, line, column, fragment):
    assert_located_error(parse_text, text, "bad.dve", line, column, fragment)


def test_unmatched_rendezvous_is_still_checked():
    with pytest.raises(InputError, match="unknown identifier 'nope'") as info:
        parse_text("channel c;\nprocess P { state s; init s;\n trans s -> s { sync c!nope; }; } system async;", "u.dve")
    assert (info.value.line, info.value.column) == (3, 24)


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError):
        load(tmp_path / "absent.dve")


# ---------------------------------------------------------------------------- fuzzing

SEED = """byte a[2] = {1, 2}; int x = -3; const byte N = 2; channel c; channel {byte} q[2];
process P { byte k; state s, t; init s; commit t; assert t: k < N;
 trans s -> t { guard a[k] < N and x != 0 or P.s; sync c!k; effect k = k + 1, x = ~x; },
       t -> s { sync q?k; }; }
process Q { state u; init u; trans u -> u { sync c?x; effect a[1] = P->k; }, u -> u { sync q!3; }; }
system async;
"""

TOKENS = [
    "byte", "int", "const", "channel", "process", "state", "init", "commit", "accept", "assert",
    "trans", "guard", "sync", "effect", "system", "async", "property", "imply", "and", "or",
    "not", "true", "false", "P", "Q", "s", "t", "x", "a", "c", "k", "->", ".", "!", "?", "{", "}",
    "(", ")", "[", "]", ";", ",", ":", "=", "==", "<", "+", "-", "*", "/", "%", "~", "&&",
    "||", "<<", "0", "1", "255", "65536", "/*", "*/", "//", "\n", " ",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=60))
def test_fuzz_token_soup_gives_model_or_input_error(tokens):
    model_or_input_error(parse_text, " ".join(tokens), "fuzz.dve")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, len(SEED)), st.integers(0, 6), st.sampled_from(TOKENS + ["", "x"])),
        min_size=1, max_size=4,
    )
)
def test_fuzz_mutated_model_gives_model_or_input_error(edits):
    text = SEED
    for pos, cut, insert in edits:
        pos = min(pos, len(text))
        text = text[:pos] + insert + text[pos + cut:]
    model_or_input_error(parse_text, text, "fuzz.dve")


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|->|==|!=|<=|>=|<<|>>|&&|\|\||\S")
NAMES = ["a", "x", "k", "N", "c", "q", "P", "Q", "s", "t", "u", "zz", "state", "byte", "count"]
NUMBERS = ["0", "1", "2", "3", "255", "256", "32768", "65537", "99999999999"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzz_renamed_identifiers_and_numbers_give_model_or_input_error(data):
    # Swapping names and numbers keeps the syntax valid and exercises name resolution,
    # constant evaluation and range checks instead of the parser.
    tokens = _WORD.findall(SEED)
    positions = [
        i for i, tok in enumerate(tokens)
        if (tok[0].isalnum() or tok[0] == "_") and tok not in KEYWORDS
    ]
    for i in data.draw(st.lists(st.sampled_from(positions), min_size=1, max_size=4)):
        pool = NUMBERS if tokens[i][0].isdigit() else NAMES + NUMBERS[:2]
        tokens[i] = data.draw(st.sampled_from(pool))
    result = model_or_input_error(parse_text, " ".join(tokens), "fuzz.dve")
    assert not isinstance(result, InputError) or result.line >= 1


def test_local_named_like_the_program_counter_is_refused():
    with pytest.raises(InputError, match="reserved word"):
        parse_text("process P { byte state; state s; init s; } system async;", "k.dve")


def test_seed_of_the_fuzzer_is_a_valid_model():
    model = parse_text(SEED, "seed.dve")
    assert explore_state_space(model).states > 1


# ---------------------------------------------------------------------------- scaled instances

def _scaled():
    spec = importlib.util.spec_from_file_location(
        "dve_scaled", Path(__file__).resolve().parents[1] / "results" / "dve_scaled.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _comparable(model: ir.SequentialModel):
    return (model.variables, tuple(dataclasses.replace(s, origin=ir.Origin()) for s in model.summands))


@pytest.mark.parametrize("name, make", [
    ("peterson.1", lambda g: g.peterson_text(3)),
    ("phils.1", lambda g: g.phils_text(4)),
    ("phils.2", lambda g: g.phils_text(5, 3)),
])
def test_generators_reproduce_the_corpus_instances(name, make):
    corpus = load(_beem(name))
    generated = parse_text(make(_scaled()), f"{name}.dve")
    assert _comparable(generated) == _comparable(corpus)


@pytest.mark.slow
def test_peterson_4_matches_published_count():
    model = parse_text(_scaled().peterson_text(4), "peterson.4.dve")
    assert explore_state_space(model, max_states=2_000_000).states == 1_119_560


@pytest.mark.parametrize("name, make", [
    ("peterson.1", lambda g: g.peterson_promela(3)),
    ("phils.1", lambda g: g.phils_promela(4)),
    ("phils.2", lambda g: g.phils_promela(5, 3)),
])
def test_promela_generators_reproduce_beem_translations_byte_for_byte(name, make):
    # The Spin side of results/dve_scaled.py runs larger instances generated this way.
    path = BEEM.parent / "promela" / f"{name}.pml"
    if not path.exists():
        pytest.skip(f"BEEM Promela corpus not available at {path.parent} (../shared is absent)")
    assert make(_scaled()) == path.read_text()
