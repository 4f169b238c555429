"""What the Promela front end and the analyses leave out or skip to stay fast on Spin's own
examples (results/spin_examples.md), pinned by behaviour: the pieces left out, and the
counts, equal to Spin's, of small models built from the same constructs.  Times are
measured in results/, not here."""
from __future__ import annotations

import warnings

import pytest

from frontends.promela import parse_text
from tests.spin_oracle import our_counts, spin_available, spin_counts

# Every send offers a constant and a value; the receives want a constant and store or
# want a value: of the 3 x 3 (send, receive) pairs only (a, a) and (b, b) can ever meet
# ((c,3) against (c,2) cannot either).
TAGGED = """
mtype = { a, b, c };
chan ch = [0] of { mtype, byte };
active proctype S() { do :: ch!a,1 :: ch!b,2 :: ch!c,3 od }
active proctype R() { byte x; do :: ch?a,x :: ch?b,x :: ch?c,2 od }
"""


def test_handshakes_whose_constants_differ_are_not_steps():
    # mobile1.pml's run-time channels made 108,290 such pairs; 25,755 could never fire
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = parse_text(TAGGED, "tagged.pml")
    assert len(model.summands) == 2


@pytest.mark.skipif(not spin_available(), reason="spin and gcc are needed")
def test_handshakes_whose_constants_differ_count_as_spin(tmp_path):
    assert our_counts(TAGGED) == spin_counts(TAGGED, tmp_path)


def test_steps_are_compiled_when_first_asked_for():
    # the explorer needs only ``successors``; ``steps_i`` (half the source) waits for a trace
    from detect.statespace.compile import compile_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = compile_model(parse_text(TAGGED, "tagged.pml"))
    code = compiled.code
    assert "def successors" in code.main_source and "def steps_" not in code.main_source
    assert code.stepping.cache_info().currsize == 0
    state = next(compiled.initial_states())
    assert [step.target for step in compiled.steps(state)] == compiled.successors(state)
    assert code.stepping.cache_info().currsize == 1
    assert "def steps_1" in compiled.source
