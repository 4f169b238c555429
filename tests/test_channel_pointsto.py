"""The channel points-to analysis (``frontends.promela.pointsto``): an operation on a
``chan`` variable expands only over the channels the variable may hold.

Each model passes channel numbers along a path a narrow analysis (copies between ``chan``
variables only) would miss -- arithmetic on a number, an ``mtype`` variable and field,
a run parameter chosen at run time, a chain of receives needing several rounds, a
process's local channel numbered at run time -- so a narrow analysis would make an
operation block where Spin's moves: the states and the verdict must still be Spin's.
"""
from __future__ import annotations

import warnings

import pytest

import frontends.promela.lower as lower
from frontends.promela import parse_text
from tests.spin_oracle import compare, spin_available

CASES = {
    "a channel number computed": """chan a = [1] of { byte };
chan b = [1] of { byte };
active proctype P() { byte k; chan c; k = a; k++; c = k; c!5; b?5; assert(len(a) == 0) }""",
    "through an mtype variable and a rendezvous field": """mtype = { go };
chan q1 = [1] of { byte };
chan q2 = [1] of { byte };
chan hub = [0] of { mtype };
chan relay = [1] of { chan };
active proctype S() { hub!q2 }
active proctype M() { mtype v; chan c; hub?v; c = v; relay!c }
active proctype R() { chan d; relay?d; d!7; q2?7; assert(len(q1) == 0) }""",
    "a chain of receives": """chan a = [1] of { byte };
chan l1 = [1] of { chan };
chan l2 = [1] of { chan };
chan l3 = [1] of { chan };
active proctype A() { chan x; l1!a; l1?x; l2!x; l2?x; l3!x; l3?x; x!3; a?3 }""",
    "a run parameter chosen at run time": """chan a = [1] of { byte };
chan b = [1] of { byte };
proctype W(chan c) { c!1 }
init { chan x; if :: x = a :: x = b fi; run W(x); (len(a) + len(b) == 1) }""",
    "a local channel of a process created at run time": """chan back = [2] of { chan };
proctype P() { chan mine = [1] of { byte }; back!mine; mine?1 }
init { chan c; run P(); run P(); back?c; c!1; back?c; c!1 }""",
    "swapped names": """chan fa = [1] of { byte };
chan fp = [1] of { byte };
active proctype A() { chan x; fa!1; x = fa; fa = fp; fp = x; fp?1; fa!2; assert(len(fp) == 0) }""",
}


@pytest.mark.parametrize("name", CASES)
def test_points_to_agrees_with_spin(name, tmp_path):
    if not spin_available():
        pytest.skip("spin or gcc not installed (apt-get install spin)")
    assert compare(CASES[name], tmp_path) is None


def _summands(text: str, monkeypatch, rounds: int) -> int:
    monkeypatch.setattr(lower, "POINTS_TO_ROUNDS", rounds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return len(parse_text(text, "m.pml").summands)


MOBILE = """chan a = [0] of { byte };
chan b = [0] of { byte };
chan c = [0] of { byte };
chan d = [0] of { byte };
chan e = [0] of { byte };
chan f = [0] of { byte };
proctype Send(chan to) { to!1 }
proctype Recv(chan from) { from?1 }
active proctype Main() { atomic { run Send(a); run Recv(a); run Send(b); run Recv(b) } }"""


def test_operations_expand_over_the_channels_held(monkeypatch):
    """Without the analysis each of the 2 sends meets each of the 2 receives on each of
    the 6 channels of one field; with it, a send meets a receive only on the channel both
    may name (2 handshakes, not 24 candidates)."""
    narrow = _summands(MOBILE, monkeypatch, lower.POINTS_TO_ROUNDS)
    wide = _summands(MOBILE, monkeypatch, 0)  # no round: every channel of the arity
    assert narrow < wide
    assert narrow == _summands(MOBILE.replace("chan f = [0] of { byte };\n", ""), monkeypatch, 8)


def test_mobile_model_agrees_with_spin(tmp_path):
    if not spin_available():
        pytest.skip("spin or gcc not installed (apt-get install spin)")
    assert compare(MOBILE, tmp_path) is None
