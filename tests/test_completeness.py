"""``analyze --completeness``: every symmetry of the explored LTS, against the detected group."""
from __future__ import annotations

import json

import pytest

from click.testing import CliRunner

from detect.cli import main
from detect.checking.completeness import completeness, true_symmetries
from detect.statespace.explore import reachable_graph
from detect.ir import Assign, Binary, Const, Event, Name, SequentialModel, Summand, Variable
from detect.symmetry.pipeline import detect
from detect.checking.verify import verify


def semantic_pair() -> SequentialModel:
    """Two counters 0..2 that step alike, written differently: one summand ``x0 := x0 + 1``
    for p0, two summands for p1.  Their swap is a symmetry of the LTS that the constraint
    graph cannot see (the summands do not match)."""
    x0, x1 = Name("x0"), Name("x1")
    return SequentialModel("semantic", (Variable("x0", (0, 1, 2), ((0,),)), Variable("x1", (0, 1, 2), ((0,),))), (
        Summand((), Binary("<", x0, Const(2)), Event("p0"), (Assign(x0, Binary("+", x0, Const(1))),)),
        Summand((), Binary("==", x1, Const(0)), Event("p1"), (Assign(x1, Const(1)),)),
        Summand((), Binary("==", x1, Const(1)), Event("p1"), (Assign(x1, Const(2)),)),
    ))


def test_finds_a_symmetry_the_detector_cannot():
    model = semantic_pair()
    detection = detect(model)
    assert detection.group.order == 1
    result = completeness(model, [])
    assert result.explored_all and result.states == 9
    assert (result.found_order, result.true_order, result.complete) == (1, 2, False)
    assert "x0" in result.missing and "x1" in result.missing


def test_true_symmetries_are_symmetries():
    model = semantic_pair()
    graph = reachable_graph(model)
    true = true_symmetries(model, graph)
    assert true and verify(model, true).ok


def test_complete_on_token_circulation_and_json():
    result = CliRunner().invoke(main, ["analyze", "models/token_circulation.csp", "-D", "N=3", "--completeness",
                                       "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)["completeness"]
    assert data == {**data, "found_order": 6, "true_order": 6, "complete": True, "states": 512}


def test_bounded_completeness_is_unknown_and_exits_3():
    result = CliRunner().invoke(main, ["analyze", "models/token_circulation.csp", "-D", "N=3", "--completeness",
                                       "--max-states", "50"], catch_exceptions=False)
    assert result.exit_code == 3 and "unknown" in result.output


# ---------------------------------------------------------------- issue 13: misses fixed

USERS_PML = """
byte cnt[3];
proctype user(byte i) {
  do
  :: cnt[i] < 2 -> cnt[i]++
  :: cnt[i] == 2 -> cnt[i] = 0
  od
}
init { atomic { run user(0); run user(1); run user(2) } }
"""

PETERSON_PID_PML = """
#define N 3
byte flag[N+1];
byte turn[N];
byte incs;
proctype user() {
  byte k;
  do
  :: k = 1;
     do
     :: k < N ->
        flag[_pid] = k;
        turn[k] = _pid;
        ((_pid == 1) || (_pid != 1 && flag[1] < k)) &&
        ((_pid == 2) || (_pid != 2 && flag[2] < k)) &&
        ((_pid == 3) || (_pid != 3 && flag[3] < k)) || turn[k] != _pid;
        k = k + 1
     :: else -> break
     od;
     incs++;
     assert(incs == 1);
     incs--;
     flag[_pid] = 0
  od
}
init { atomic { run user(); run user(); run user() } }
"""

NESTED_CSP = """
var cnt[3];
P(i) = [cnt[i] < 2] inc.i{cnt[i] = cnt[i] + 1;} -> P(i);
T(c, t) = [cnt[c] > 0 && cnt[t] < 2] move.c.t{cnt[c] = cnt[c] - 1; cnt[t] = cnt[t] + 1;} -> T(c, t);
System = (||| i:{0..2}@P(i)) ||| (||| c:{0..2}@(||| t:{0..2}@GUARDT(c,t)));
"""


def _measure(tmp_path, name: str, text: str):
    import warnings

    from detect.cli import load_model

    path = tmp_path / name
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        detection = detect(load_model(str(path), ()), domain_states=1_000_000)
    result = completeness(detection.model, [g.permutation for g in detection.group.generators])
    assert verify(detection.model, [g.permutation for g in detection.group.generators]).ok
    return result


def test_run_user_parameters_do_not_single_out_an_instance(tmp_path):
    """``run user(0); run user(1); run user(2)`` with ``cnt[i]``: was 2 of 6 (the parameters'
    domains {0}, {0,1}, {0,2}); the reads of the constant parameter are now ``cnt[k]``."""
    result = _measure(tmp_path, "users.pml", USERS_PML)
    assert (result.found_order, result.true_order) == (6, 6) and result.complete


def test_peterson_with_pid_and_unrolled_conjunction(tmp_path):
    result = _measure(tmp_path, "peterson_pid.pml", PETERSON_PID_PML)
    assert (result.found_order, result.true_order) == (6, 6) and result.complete


def test_nested_csp_family_with_a_guard(tmp_path):
    """``||| c@(||| t@[c != t]T(c,t))``: the guard gives T a program counter indexed
    ``t + 3*c``, read as ``pc[t]`` for c = 0 and ``pc[t + 3]`` for c = 1; was 2 of 6."""
    for text in (NESTED_CSP.replace("GUARDT", "[c != t]T"), NESTED_CSP.replace("GUARDT", "T")):
        result = _measure(tmp_path, "nested.csp", text)
        assert (result.found_order, result.true_order) == (6, 6) and result.complete


@pytest.mark.slow
def test_bandov_telecom_with_three_users(tmp_path):
    """``../shared/corpus/pat/Bandov__pat-llm-bot__model.csp`` cut down to three users at
    test time (four users have more than 400,000 states): was 2 of 6."""
    import pathlib
    import warnings

    from detect.cli import load_model

    corpus = pathlib.Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "pat"
    source = corpus / "Bandov__pat-llm-bot__model.csp"
    if not source.exists():
        pytest.skip(f"{source} not available (../shared is absent)")
    text = source.read_text(encoding="utf-8-sig")
    text = text.replace("#define USER_COUNT 4;", "#define USER_COUNT 3;").replace(
        "[USER_ONHOOK_IDLE, USER_ONHOOK_IDLE, USER_ONHOOK_IDLE, USER_ONHOOK_IDLE]",
        "[USER_ONHOOK_IDLE, USER_ONHOOK_IDLE, USER_ONHOOK_IDLE]")
    fourth = ("handsetStates[3]", "all_user_on_call", "user3_in_call")
    text = "\n".join(line for line in text.splitlines() if not any(word in line for word in fourth))
    assert "USER_COUNT 3" in text
    path = tmp_path / "bandov_3users.csp"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        detection = detect(load_model(str(path), ()), domain_states=1_000_000)
    result = completeness(detection.model, [g.permutation for g in detection.group.generators])
    assert (result.found_order, result.true_order) == (6, 6)



def test_bandov_telecom_with_four_users_finds_the_issues_24():
    """The unmodified four-user file: issue 13 measured 24 true symmetries (S_4 on the
    users) and we found 6.  Completeness on its > 400,000 states is too slow for a test; the
    three-user cut above measures found = true, and here the headline must be the 24."""
    import pathlib
    import warnings

    from detect.transform.load import load_model

    source = (pathlib.Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "pat"
              / "Bandov__pat-llm-bot__model.csp")
    if not source.exists():
        pytest.skip(f"{source} not available (../shared is absent)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        detection = detect(load_model(source))
    assert detection.group.order == 24
    assert sum(not g.inert for g in detection.group.generators) >= 2

# ---------------------------------------------------------------- issue 13: inert symmetries


def test_declared_range_narrowed_to_values_written(tmp_path):
    """``var x:{0..3}`` with only 0 and 1 ever written: no inert swap of 2 and 3."""
    from detect.cli import load_model

    path = tmp_path / "x.csp"
    path.write_text("var x:{0..3} = 0;\nP() = [x == 0] a{x = 1;} -> P() [] [x == 1] b{x = 0;} -> P();\n"
                    "System = P();\n")
    model = load_model(str(path), ())
    assert model.variable("x").domain == (0, 1)
    assert detect(model).group.order == 1


def test_inert_generators_listed_apart(tmp_path):
    path = tmp_path / "users.pml"
    path.write_text(USERS_PML)
    text = CliRunner().invoke(main, ["analyze", str(path), "--verify"]).output
    # Without exploring: the parameters' swap permutes values the value analysis rules out.
    assert "group order on states: 6   (12 with the inert generators;" in text
    assert "inert: swaps values never held: 1 generator fixes every state" in text
    assert "every generator verified" in text  # the inert one too
    data = json.loads(CliRunner().invoke(main, ["analyze", str(path), "--verify", "--json"]).output)
    assert data["group_order"] == 12 and data["acting_group_order"] == 6
    assert data["verify"]["reachable_group_order"] == 6
    assert [g["inert"] for g in data["generators"]] == [False, False, True]
    assert data["verify"]["inert_generators"] == [2]
