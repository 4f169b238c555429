"""Constructs of README's Promela "Not supported" list that Spin 6.5.2 accepts after all
(issue 28), each compared with Spin's "states, stored" and error verdict, and those Spin
rejects too, refused with a located line that says so."""
from __future__ import annotations

import pytest

from detect.errors import InputError
from frontends.promela import parse_text
from tests.spin_oracle import Counts, SpinRefused, compare, our_counts, spin_available, spin_counts

needs_spin = pytest.mark.skipif(not spin_available(), reason="spin is not installed")


def refused(text: str) -> str:
    with pytest.raises(InputError) as e:
        parse_text(text, "m.pml")
    return str(e.value)


def agree(text: str, tmp_path) -> None:
    try:
        diff = compare(text, tmp_path)
    except SpinRefused as e:  # pragma: no cover - a broken Spin installation
        pytest.fail(f"Spin refused the model: {e}")
    assert diff is None, diff


# 1. goto and labels inside a d_step, every jump staying inside it: (model, Spin's
# "states, stored", error), as spin_oracle runs pan.
DSTEP_JUMPS = [
    # a loop written with goto: the whole d_step is one step
    ("byte x; active proctype A() { d_step { x++; L: x++; if :: x < 5 -> goto L :: else -> skip fi }; x = 9 }",
     4, False),
    ("byte x; active proctype A() { d_step { do :: x < 5 -> x++ :: else -> goto done od; done: skip }; x = 9 }",
     4, False),
    # a forward goto skips a statement; two processes interleave their d_steps
    ("byte x; active proctype A() { d_step { x++; goto L; x = 7; L: x++ } } "
     "active proctype B() { d_step { x++; L: x++ } }", 7, False),
    # a failed assertion after the goto loop (x is 4)
    ("byte x; active proctype A() { d_step { x++; L: if :: x < 4 -> x++; goto L :: else -> skip fi; "
     "assert(x == 5) } }", 3, True),
    # a goto back into the middle, a label inside a do option, a break after it
    ("byte x, y; active [2] proctype A() { do :: d_step { x < 3 -> y = 0; M: y++; if :: y < 2 -> goto M "
     ":: else -> x++ fi } :: d_step { x >= 3 -> do :: y > 0 -> y--; N: skip :: y == 0 -> break od; x = 0 } "
     ":: x == 0 -> break od }", 19, False),
    # the same label in two d_steps: each goto stays in its own
    ("byte x; active proctype A() { d_step { x++; L: x++ }; d_step { x++; L: x++; if :: x < 9 -> goto L "
     ":: else fi } }", 4, False),
    # sends in a goto loop
    ("chan c = [4] of { byte }; byte n; active proctype A() { d_step { n = 0; S: c!n; n++; "
     "if :: n < 3 -> goto S :: else fi }; do :: c?n :: empty(c) -> break od }", 7, False),
]


@pytest.mark.parametrize("text,stored,error", DSTEP_JUMPS)
def test_dstep_goto_counts(text, stored, error, tmp_path):
    ours = our_counts(text)
    assert ours.error == error
    if not error:
        assert ours == Counts(stored, False)
    if spin_available():
        assert spin_counts(text, tmp_path) == Counts(stored, error)
        agree(text, tmp_path)


@pytest.mark.parametrize("text,words,spin_refuses", [
    # Spin 6.5.2: "label L placed incorrectly"
    ("byte x; active proctype A() { d_step { L: x++; if :: x < 3 -> goto L :: else fi } }",
     ("m.pml:1:40", "label L", "Spin rejects it too"), True),
    # Spin 6.5.2 prints the same error, and writes a pan.c all the same
    ("byte x; active proctype A() { d_step { x++; if :: L: x++ :: x > 5 fi; if :: x < 4 -> goto L :: else fi } }",
     ("m.pml:1:51", "label L", "Spin reports it as an error too"), False),
    # Spin 6.5.2: "jump into d_step sequence", for a jump out of one too
    ("byte x; active proctype A() { d_step { x++; goto M }; x++; M: x++ }",
     ("m.pml:1:45", "goto M leaves the d_step", "Spin rejects it too"), True),
    ("byte x; active proctype A() { goto M; d_step { x++; M: x++ } }",
     ("m.pml:1:31", "goto M jumps into a d_step", "Spin rejects it too"), True),
    # 4. Spin 6.5.2: "run operator in d_step"
    ("byte x; proctype P() { x++ } init { d_step { x = 1; run P() } }",
     ("m.pml:1:53", "run inside d_step", "Spin rejects it too"), True),
])
def test_dstep_spin_rejects(text, words, spin_refuses, tmp_path):
    message = refused(text)
    for w in words:
        assert w in message, message
    if spin_available() and spin_refuses:
        with pytest.raises(SpinRefused):
            spin_counts(text, tmp_path)


# 3. Inside a never claim: Spin 6.5.2 accepts d_step and timeout (we still refuse them, and
# say so), and reports a declaration as an error ("never_0 defines local n").
NEVER = [
    ("byte x; active proctype A() { do :: x < 3 -> x++ :: x == 3 -> x = 0 od }\n"
     "never { do :: d_step { x == 3 -> skip } -> break :: else od; accept: do :: true od }",
     ("m.pml:2:15", "d_step inside a never claim", "Spin 6.5.2 accepts it"), True),
    ("byte x; active proctype A() { do :: x < 3 -> x++ :: x == 3 -> break od }\n"
     "never { do :: timeout -> break :: else od }",
     ("m.pml:2:15", "timeout inside a never claim", "Spin 6.5.2 accepts it"), True),
    ("byte x; active proctype A() { do :: x < 3 -> x++ :: x == 3 -> x = 0 od }\n"
     "never { byte n; do :: x == 3 -> break :: else od }",
     ("m.pml:2:14", "declarations inside a never claim", "Spin reports them as an error too"), False),
]


@pytest.mark.parametrize("text,words,spin_accepts", NEVER)
def test_never_claim_refusals_say_what_spin_does(text, words, spin_accepts, tmp_path):
    message = refused(text)
    for w in words:
        assert w in message, message
    if spin_available() and spin_accepts:
        spin_counts(text, tmp_path)  # raises SpinRefused if Spin refused it


# 2. typedef field initialisers (already read as Spin does), and the initialiser of a global
# typedef variable, which Spin 6.5.2 ignores: (model, Spin's states, error).
TYPEDEF_INITS = [
    ("typedef R { byte a = 3; byte b }\nR g;\nactive proctype A() { R r; r.b = r.a + g.a; assert(r.b == 6) }",
     4, False),
    ("typedef R { byte a = 3; byte b }\nR g = 1;\nactive proctype A() { g.b = g.a }", 3, False),
    ("typedef R { byte a = 3; byte b }\nR g = 1;\nactive proctype A() { assert(g.a == 3 && g.b == 0) }", 3, False),
    ("typedef R { byte a = 3; byte b }\nR g = 1;\nactive proctype A() { assert(g.a == 1) }", 1, True),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("text,stored,error", TYPEDEF_INITS)
def test_typedef_initialisers(text, stored, error, tmp_path):
    ours = our_counts(text)
    assert ours.error == error
    if not error:
        assert ours == Counts(stored, False)
    if spin_available():
        spin = spin_counts(text, tmp_path)
        assert spin.error == error and (error or spin.stored == stored)
        agree(text, tmp_path)


def test_local_typedef_initialiser_refused():
    message = refused("typedef R { byte a = 3 }\nactive proctype A() { byte x; x++; R r = 7; x++ }")
    assert "m.pml:2:38" in message and "local typedef variables" in message, message


# A number assigned to a chan variable: Spin 6.5.2's parser rejects it ("invalid asgn to
# chan"); an expression or a variable holding a number, and an initialiser, it accepts.
CHAN_NUMBER = "chan b = [1] of { byte };\n"


@pytest.mark.parametrize("text", [
    CHAN_NUMBER + "init { chan d; d = b; d = 0; d!1 }",
    CHAN_NUMBER + "init { chan d; d = b; d = 1 }",
    CHAN_NUMBER + "chan d;\ninit { d = b; d = 0 }",
    CHAN_NUMBER + "chan a[2];\ninit { a[0] = b; a[0] = 0 }",
    CHAN_NUMBER + "proctype P(chan q) { q = 0 }\ninit { run P(b) }",
])
def test_a_number_assigned_to_a_chan_variable_is_refused_as_spin_does(text, tmp_path):
    message = refused(text)
    assert "invalid asgn to chan" in message and "Spin rejects it too" in message
    assert message.startswith("m.pml:")
    if spin_available():
        with pytest.raises(SpinRefused):
            spin_counts(text, tmp_path)


@pytest.mark.parametrize("text, stored", [
    (CHAN_NUMBER + "byte x;\ninit { chan d; d = b; x = 0; d = x }", 5),
    (CHAN_NUMBER + "init { chan d = 0; d = b }", 3),
    (CHAN_NUMBER + "init { chan d; d = b; d = 1 + 0 }", 4),
    ("typedef R { chan c };\n" + CHAN_NUMBER + "R r;\ninit { r.c = b; r.c = 0 }", 4),
])
def test_a_chan_variable_given_a_number_otherwise_loads(text, stored, tmp_path):
    assert our_counts(text).stored == stored
    if spin_available():
        assert spin_counts(text, tmp_path).stored == stored
