"""A rendezvous in the main part of ``unless`` (issue 28, seed 9 of ``promela_gen.creating``).

pan tries a process's escapes before its other steps and leaves the step list at the first
escape that moved (``e_trans``/``E_state``).  A rendezvous send is such a step: an
executable escape preempts it.  A rendezvous receive is not tried that way: it is the second
half of the handshake, tried while the sender's offer is pending (``boq`` set), when every
non-rendezvous step -- the receiver's escapes included -- is blocked (pan.m's
``IfNotBlocked``), so the escape is skipped and the receive goes ahead.  A buffered send or
receive is an ordinary step.  A rendezvous as the escape itself stays refused.

Each model is pinned with Spin 6.5.2's "states, stored" and verdict and rerun with Spin where
it is installed (``check_pinned``).
"""
from __future__ import annotations

import pytest

from detect.errors import InputError
from tests.spin_oracle import check_pinned, our_counts

_MODEL = """byte g0;
chan k = [{cap}] of {{ byte }};
proctype X1() {{ g0 = _pid }}
{other}
active proctype X0() {{ {{ run X1(); k{op} }} unless {{ g0 == 2 -> {escape} }}; end: do :: g0 == 9 od }}
"""
_RECEIVER = "active proctype R0() { end: k?g0 }"
_SENDER = "active proctype S0() { end: k!7 }"


def _model(cap: int = 0, op: str = "!7", escape: str = "run X1()", other: str = _RECEIVER) -> str:
    return _MODEL.format(cap=cap, op=op, escape=escape, other=other)


PINNED = {
    # the reproducer: before the fix the send was not preempted (18 states)
    "rendezvous send, the escape runs a process": (_model(), 16, False),
    "rendezvous send, the escape assigns": (_model(escape="g0 = 5"), 11, False),
    # the receive goes ahead while the escape is executable (16 if it were preempted)
    "rendezvous receive, the escape runs a process": (_model(op="?g0", other=_SENDER), 18, False),
    "buffered send, the escape runs a process": (_model(cap=1), 21, False),
    "buffered receive, the escape runs a process": (_model(cap=1, op="?g0", other=_SENDER), 29, False),
    "rendezvous send and receive, both under unless": (_model(
        other="active proctype R0() { { k?g0 } unless { g0 == 2 -> g0 = 4 } }"), 39, True),
    "rendezvous send, no process created": ("""byte g0;
chan k = [0] of { byte };
active proctype R0() { end: k?g0 }
active proctype T() { g0 = 2 }
active proctype X0() { { k!7; g0 = 3 } unless { g0 == 2 } }
""", 13, False),
}


@pytest.mark.parametrize("name", PINNED)
def test_rendezvous_under_unless_counts_as_spin(name, tmp_path):
    text, stored, error = PINNED[name]
    check_pinned(text, stored, error, tmp_path)


def test_a_rendezvous_as_the_escape_is_refused_with_its_location():
    text = """byte g0;
chan k = [0] of { byte };
active proctype S() { k!1 }
active proctype X0() { { g0 == 5 } unless { k?g0 } }
"""
    with pytest.raises(InputError, match=r"m.pml:4:45: unsupported construct: a rendezvous as the escape of 'unless'"):
        our_counts(text)
