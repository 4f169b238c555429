"""Disagreements with Spin found by differential testing, each pinned by a minimal model and
Spin 6.5.2's numbers ("states, stored" and whether pan reports errors, as ``spin_oracle``
runs it).  When Spin is installed, each test also re-runs it."""
from __future__ import annotations

import pytest

from tests.spin_oracle import Counts, SpinRefused, our_counts, spin_available, spin_counts


def check(text: str, stored: int, error: bool, tmp_path) -> None:
    assert our_counts(text) == Counts(stored, error)
    if spin_available():
        try:
            assert spin_counts(text, tmp_path) == Counts(stored, error)
        except SpinRefused as e:  # pragma: no cover - a broken Spin installation
            pytest.fail(f"Spin refused the pinned model: {e}")


# Atomicity belongs to the step (Spin's atom & 2), not to the location it ends at.
ATOMIC = [
    # atomic { do ... od }: returning to the loop head keeps control (was: released, and Q
    # saw x == 1)
    ("byte x, n; active proctype P() { atomic { do :: n < 3 -> x = 0; n++; x = 1 "
     ":: n == 3 -> x = 0; break od } } active proctype Q() { assert(x == 0) }", 7, False),
    ("byte x, n; active proctype P() { atomic { do :: n < 3 -> x = 0; n++; x = 1 "
     ":: n == 3 -> x = 0; break od }; x = 1 } active proctype Q() { assert(x == 0) }", 10, True),
    # per-iteration atomic: the last statement releases at the loop head
    ("byte x; active proctype P() { do :: atomic { x = 1; x = 2 } :: x == 2 -> break od } "
     "active proctype Q() { assert(x != 1) }", 10, False),
    ("byte x; active proctype P() { do :: atomic { if :: x = 2 :: x = 3 fi } od } "
     "active proctype Q() { assert(x != 2 && x != 3) }", 9, True),
    # an if that ends the atomic sequence releases at its exit; one in the middle does not
    ("byte x; active proctype P() { atomic { x = 1; if :: x = 2 :: x = 3 fi }; x = 4 } "
     "active proctype Q() { assert(x != 2 && x != 3) }", 13, True),
    ("byte x; active proctype P() { atomic { x = 1; if :: x = 2 :: x = 3 fi; x = 4 }; x = 5 } "
     "active proctype Q() { assert(x != 2 && x != 3) }", 10, False),
    ("byte x; active proctype P() { atomic { do :: x = 2; break od }; x = 4 } "
     "active proctype Q() { assert(x != 2) }", 10, True),
    # nested atomic and { } blocks: only the outermost sequence's last statement releases
    ("byte x; active proctype P() { atomic { atomic { x = 1; x = 2 }; x = 3 }; x = 4 } "
     "active proctype Q() { assert(x != 2) }", 10, False),
    ("byte x; active proctype P() { atomic { x = 1; { x = 2; x = 5 } }; x = 4 } "
     "active proctype Q() { assert(x != 2) }", 10, False),
    # d_step inside atomic keeps control
    ("byte x; active proctype P() { atomic { x = 1; d_step { x = 2; x = 5 }; x = 3 }; x = 4 } "
     "active proctype Q() { assert(x != 5) }", 10, False),
    # goto: to a label inside the sequence keeps control; out of it, Spin unmarks the goto
    ("byte x; active proctype A() { atomic { x = 1; goto L; x = 3 }; L: x = 2 }", 4, False),
    ("byte x; active proctype A() { atomic { x = 1; goto L; x = 3; L: x = 2 }; x = 4 } "
     "active proctype B() { assert(x != 1) }", 10, False),
    ("byte x; active proctype P() { atomic { x = 1; x = 2; goto L }; x = 3; L: x = 4 } "
     "active proctype Q() { assert(x != 2) }", 10, True),
    ("byte x; active proctype P() { atomic { x = 1; if :: goto L :: x = 5 fi; x = 3 }; x = 6; L: x = 2 } "
     "active proctype Q() { assert(x != 1) }", 16, True),
    ("byte x; active proctype P() { L: atomic { x = 1; if :: goto L :: x = 5 fi; x = 3 }; x = 6 } "
     "active proctype Q() { assert(x != 1) }", 13, True),
    # an atomic loop that blocks in the middle: others run, and it regains control after
    ("byte x, n; active proctype P() { atomic { do :: n < 2 -> x = 1; x == 0; n++ "
     ":: n == 2 -> break od } } active proctype Q() { do :: x == 1 -> x = 0 :: n == 2 -> break od }",
     None, None),
]


@pytest.mark.parametrize("text,stored,error", ATOMIC)
def test_atomic_marks_follow_spin(text, stored, error, tmp_path):
    if stored is None:
        if not spin_available():
            pytest.skip("spin or gcc not installed")
        assert our_counts(text) == spin_counts(text, tmp_path)
    else:
        check(text, stored, error, tmp_path)


def test_atomic_loop_process_is_not_swapped_with_a_per_iteration_atomic_one():
    """A keeps control through its whole loop, B only per iteration: no A<->B symmetry
    (the loop head used to release control, which made them look alike)."""
    from detect.pipeline import detect
    from frontends.promela import parse_text

    text = ("byte a, b;\n"
            "active proctype A() { atomic { do :: a < 2 -> a++ :: a == 2 -> a = 0 od } }\n"
            "active proctype B() { do :: atomic { b < 2 -> b++ } :: atomic { b == 2 -> b = 0 } od }\n")
    assert our_counts(text) == Counts(3, False)  # Spin 6.5.2
    assert detect(parse_text(text, "ab.pml")).group.order == 1
