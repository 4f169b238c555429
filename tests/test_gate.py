"""n-ary ``&&``/``||`` constraints drawn as gates (``detect.symmetry.graph._gate``): the same
automorphism group as their 2^n-row tables, on a smaller graph."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from detect.symmetry import graph as graph_module
from detect.symmetry.pipeline import detect
from detect.transform.load import load_model, narrowed
from frontends import promela
from tests.ir_strategies import models
from tests.test_promela_spin_regressions import check

ROOT = Path(__file__).resolve().parent.parent


def peterson_pid(n: int) -> str:
    """Peterson's filter with ``_pid`` comparisons written as one unrolled conjunction and
    no ``atomic`` (issue 14's slow family)."""
    wait = " &&\n        ".join(f"(_pid == {i} || flag[{i}] < k)" for i in range(1, n + 1))
    return (f"byte flag[{n + 1}];\nbyte turn[{n}];\nbyte incs;\n"
            "proctype user() {\n  byte k;\n  do\n  :: k = 1;\n     do\n     :: k < " + str(n) + " ->\n"
            "        flag[_pid] = k;\n        turn[k] = _pid;\n"
            f"        ({wait}) || turn[k] != _pid;\n"
            "        k = k + 1\n     :: else -> break\n     od;\n"
            "     incs++;\n     assert(incs == 1);\n     incs--;\n     flag[_pid] = 0\n  od\n}\n"
            "init { atomic { " + "; ".join("run user()" for _ in range(n)) + " } }\n")


def both_ways(model, monkeypatch):
    """The detections with gates and with every gate drawn as its table."""
    with_gates = detect(model)
    with monkeypatch.context() as m:
        m.setattr(graph_module, "_is_gate", lambda csp, c: False)
        with_tables = detect(model)
    return with_gates, with_tables


@pytest.mark.parametrize("n", [3, 5])
def test_peterson_with_pid_conjunction_same_group_smaller_graph(n, monkeypatch):
    model = narrowed(promela.parse_text)(peterson_pid(n), "peterson_pid.pml")
    gates, tables = both_ways(model, monkeypatch)
    factorial = 1
    for k in range(2, n + 1):
        factorial *= k
    # the users' n!, times the swaps of flag[0]'s unused values (it is never written)
    assert gates.group.order == tables.group.order and gates.group.order % factorial == 0
    assert gates.graph.n < tables.graph.n and len(gates.graph.edges) < len(tables.graph.edges)


@pytest.mark.parametrize("name", ["peterson_filter.pml", "token_circulation.csp", "peterson.csp"])
def test_bundled_models_same_group(name, monkeypatch):
    gates, tables = both_ways(load_model(str(ROOT / "models" / name)), monkeypatch)
    assert gates.group.order == tables.group.order


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_random_models_same_group(model):
    """Random models have && and || chains over partial operands, in branches and guards."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        gates, tables = both_ways(model, monkeypatch)
    assert gates.group.order == tables.group.order


def test_bundled_peterson_pid_counts_as_spin_and_has_the_users_group(tmp_path):
    """models/peterson_pid.pml at N = 3: Spin 6.5.2's count; the users' 3! times the two
    swaps of flag[0]'s unused values."""
    path = ROOT / "models" / "peterson_pid.pml"
    check(path.read_text(), 3407, False, tmp_path)
    assert detect(load_model(str(path))).group.order == 12
