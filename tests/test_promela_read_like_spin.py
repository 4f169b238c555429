"""Promela constructs we read differently from Spin 6.5.2 (issue 25, item 5), each pinned by a
minimal model with Spin's numbers ("states, stored" and whether pan reports errors, as
``spin_oracle`` runs it).  When Spin is installed, each test also re-runs it."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.spin_oracle import Counts, SpinRefused, our_counts, spin_available, spin_counts

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"


def check(text: str, stored: int, error: bool, tmp_path) -> None:
    assert our_counts(text) == Counts(stored, error)
    if spin_available():
        try:
            assert spin_counts(text, tmp_path) == Counts(stored, error)
        except SpinRefused as e:  # pragma: no cover - a broken Spin installation
            pytest.fail(f"Spin refused the pinned model: {e}")


# A goto inside an atomic sequence keeps control iff its label is inside an atomic sequence
# (its own -- even when the goto is the sequence's last element -- or another one).
GOTO_IN_ATOMIC = [
    # the model: A runs x = 1 .. 5 atomically, B never sees x == 3 (was: 10 states, violated)
    ("byte x = 0;\nactive proctype A() { atomic { x = 1; L: x = x + 1; end: x < 5 -> goto L } }\n"
     "active proctype B() { if :: x == 3 -> assert(false) :: x == 5 fi }\n", 4, False),
    # the goto as an option of a do that ends the sequence
    ("byte x; active proctype P() { atomic { x = 1; L: x = x + 1; do :: x < 5 -> goto L :: else -> break od } } "
     "active proctype Q() { assert(x != 3) }", 7, False),
    # into the middle of another atomic sequence: control is kept through the jump
    ("byte x; active proctype P() { atomic { x = 1; goto L; x = 7 }; x = 5; atomic { x = 2; L: x = 3; x = 4 } } "
     "active proctype Q() { assert(x != 3) }", 7, False),
    # onto the last statement of another atomic sequence: kept until that statement has run
    ("byte x; active proctype P() { atomic { x = 1; goto L; x = 7 }; x = 5; atomic { x = 2; x = 4; L: x = 3 }; "
     "x = 6 } active proctype Q() { assert(x != 3 && x != 1) }", 10, True),
]


@pytest.mark.parametrize("text,stored,error", GOTO_IN_ATOMIC)
def test_goto_inside_atomic_follows_spin(text, stored, error, tmp_path):
    check(text, stored, error, tmp_path)


# A { } or atomic sub-sequence whose first statement is a do is entered through a state of
# its own (Spin's "sub-sequence" element), distinct from the loop's head.
SUBSEQUENCE_LOOP = [
    ("chan r = [1] of { byte };\nactive proctype S() { do :: r!1 :: r!2 od }\n"
     "active proctype R() { r?1; { do :: r?1 -> break :: r?2 od } }\n", 15, True),
    ("chan r = [1] of { byte };\nactive proctype S() { do :: r!1 :: r!2 od }\n"
     "active proctype R() { r?1; atomic { do :: r?1 -> break :: r?2 od } }\n", 15, True),
    ("chan r = [1] of { byte };\nactive proctype S() { do :: r!1 :: r!2 od }\n"
     "active proctype R() { { do :: r?1 -> break :: r?2 od } }\n", 12, True),
    # the label names the loop's head, not the sub-sequence's entry
    ("chan r = [1] of { byte };\nactive proctype S() { do :: r!1 :: r!2 od }\n"
     "active proctype R() { r?1; { L: do :: r?1 -> break :: r?2 od }; goto L }\n", 9, True),
    ("chan r = [1] of { byte };\nactive proctype S() { do :: r!1 :: r!2 od }\n"
     "active proctype R() { do :: r?1 -> { do :: r?1 -> break :: r?2 od } od }\n", 9, True),
    # as an option's first statement: no further state (as before)
    ("chan r = [1] of { byte };\nactive proctype S() { do :: r!1 :: r!2 od }\n"
     "active proctype R() { do :: { do :: r?1 -> break :: r?2 od } od }\n", 6, False),
]


@pytest.mark.parametrize("text,stored,error", SUBSEQUENCE_LOOP)
def test_loop_first_in_a_block_has_an_entry_state(text, stored, error, tmp_path):
    check(text, stored, error, tmp_path)


def test_abp_example_counts_as_spin(tmp_path):
    """Spin's Examples/abp.pml: inline bodies are sub-sequences starting with a do (was: 11)."""
    path = CORPUS / "spin" / "Examples" / "abp.pml"
    if not path.exists():
        pytest.skip(f"shared corpus not available at {path}")
    check(path.read_text(), 12, False, tmp_path)
