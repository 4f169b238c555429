"""``analyze --completeness``: every symmetry of the explored LTS, against the detected group."""
from __future__ import annotations

import json

from click.testing import CliRunner

from detect.cli import main
from detect.completeness import completeness, true_symmetries
from detect.explore import reachable_graph
from detect.ir import Assign, Binary, Const, Event, Name, SequentialModel, Summand, Variable
from detect.pipeline import detect
from detect.verify import verify


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
