"""Constructs of README's Promela "Not supported" list that Spin 6.5.2 accepts after all
(issue 28), each compared with Spin's "states, stored" and error verdict, and those Spin
rejects too, refused with a located line that says so."""
from __future__ import annotations

import pytest

from detect.errors import InputError
from frontends.promela import parse_text
from tests.spin_oracle import (Counts, SpinRefused, check_pinned, compare, our_counts, spin_available,
                               spin_counts)

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
    # Spin 6.5.2's "jump into d_step sequence" for a jump to a d_step's start too: a goto to
    # a label on it, a break out of a loop that a d_step follows (not to an if/do option's)
    ("byte x, c; active proctype P() { x = 0; goto L; x = 3; L: d_step { x = 1; x = 2 } }",
     ("m.pml:1:41", "goto L jumps to the start of a d_step", "Spin rejects it too"), True),
    ("byte x, c; active proctype P() { do :: c < 1 -> c++ :: else -> break od; d_step { x = 1; x = 2 } }",
     ("m.pml:1:64", "break jumps to the start of a d_step", "Spin rejects it too"), True),
    ("byte x, c; active proctype P() { if :: do :: c < 1 -> c++ :: else -> break od fi; d_step { x = 1 } }",
     ("m.pml:1:70", "break jumps to the start of a d_step", "Spin rejects it too"), True),
    ("byte x, c; active proctype P() { atomic { x = 0; goto L; x = 3; L: d_step { x = 1; x = 2 } } }",
     ("m.pml:1:50", "goto L jumps to the start of a d_step", "Spin rejects it too"), True),
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


@pytest.mark.parametrize("text,stored", [
    # a jump to a loop or an if whose option starts with a d_step: Spin accepts it
    ("byte x, c; active proctype P() { c = 0; goto L; c = 3; L: do :: d_step { c < 1 -> c++ } :: else -> break od }",
     5),
    ("byte x, c; active proctype P() { c = 0; goto L; c = 3; L: if :: d_step { c < 1 -> c++ } :: else fi }", 4),
    ("byte x, c; active proctype P() { do :: c < 1 -> c++ :: else -> break od; skip; d_step { x = 1; x = 2 } }", 7),
    # a break inside an atomic sequence, a jump to an atomic sequence that starts with one
    ("byte x, c; active proctype P() { atomic { do :: c < 1 -> c++ :: else -> break od }; d_step { x = 1; x = 2 } }",
     4),
    ("byte x, c; active proctype P() { atomic { do :: c < 1 -> c++ :: else -> break od; d_step { x = 1; x = 2 } } }",
     3),
    ("byte x, c; active proctype P() { x = 0; goto L; x = 3; L: atomic { d_step { x = 1; x = 2 }; x = 3 } }", 4),
])
def test_jumps_near_a_dstep_spin_accepts(text, stored, tmp_path):
    check_pinned(text, stored, False, tmp_path)


# 3. Inside a never claim: d_step and timeout, as pan 6.5.2 runs them (pan's timeout bit:
# off at the claim's first try, on at its second where the system cannot move or the claim
# has no move, passed on to the system's next step; never set where no proctype's text has
# a timeout).  A declaration Spin reports as an error ("never_0 defines local n").
_LOOP = "byte x; active proctype A() { do :: x < 3 -> x++ :: x == 3 -> x = 0 od }\n"
_TIMED = "byte x; active proctype A() { do :: x < 2 -> x++ :: timeout -> x = 5; break od }\n"
NEVER = [
    # (model, Spin's states, error)
    (_LOOP + "never { do :: d_step { x == 3 -> skip } -> break :: else od; accept: do :: true od }", 15, False),
    # no timeout in any proctype: pan has no timeout code, the claim's timeout never holds
    ("byte x; active proctype A() { do :: x < 3 -> x++ :: x == 3 -> x = 0 od }\n"
     "never { do :: timeout -> break :: else od }", 8, False),
    # a timeout in a proctype no one runs is enough for pan
    ("byte x; active proctype A() { do :: x < 3 -> x++ :: x == 3 -> break od }\nproctype Z() { timeout }\n"
     "never { do :: timeout -> break :: else od }", 10, True),
    ("byte x; active proctype A() { do :: x < 3 -> x++ :: x == 3 -> break od; timeout }\n"
     "never { do :: timeout -> break :: else od }", 9, True),
    ("byte x; active proctype A() { do :: x < 3 -> x++ :: timeout -> x = 0 od }\n"
     "never { do :: timeout -> break :: else od }", 8, True),
    # the claim has no move with the bit off: it moves with it on, and the system's timeout
    # move is enabled beside x++
    (_TIMED + "never { S: do :: timeout -> goto T :: x == 9 od; T: do :: true od }", 9, False),
    (_TIMED + "never { S: do :: timeout -> goto T :: else od; T: do :: x < 5 od }", 7, False),
    (_TIMED + "never { do :: d_step { (timeout || x == 2) -> x < 9 } -> break :: x < 3 od; do :: true od }",
     10, False),
    # a blocked atomic process hands over to the claim
    ("byte x, y; active proctype A() { atomic { x = 1; y == 1; x = 2 } } "
     "active proctype B() { do :: timeout -> y = 1; break :: x == 2 -> break od }\n"
     "never { do :: timeout -> assert(x != 1) :: x < 3 od }", 10, True),
    # after a stutter move the bit is on
    ("byte x; active proctype A() { x = 1; timeout; x = 2 }\n"
     "never { do :: timeout && x == 2 -> break :: x < 3 od; accept: do :: timeout od }", 6, False),
]


@pytest.mark.parametrize("text,stored,error", NEVER)
def test_never_claim_dstep_and_timeout_count_as_spin(text, stored, error, tmp_path):
    check_pinned(text, stored, error, tmp_path)


def test_never_claim_timeout_acceptance_as_pan(tmp_path):
    """The accepting loop on ``timeout`` after the system has stopped: pan -a finds the
    acceptance cycle (stutter moves, the bit on), and so do we."""
    from tests.spin_oracle import our_acceptance, spin_acceptance

    text = NEVER[-1][0]
    assert our_acceptance(text)
    if spin_available():
        assert spin_acceptance(text, tmp_path)


def test_never_claim_dstep_that_blocks_is_an_error_as_in_pan(tmp_path):
    """pan: "block in d_step seq" (its search stops); ours: a fault."""
    text = _LOOP + "never { do :: d_step { x >= 2 -> x == 3 } -> break :: else od; do :: x == 1 od }"
    assert our_counts(text).error
    if spin_available():
        assert spin_counts(text, tmp_path).error


def test_never_claim_declarations_refused_as_spin_reports_them():
    message = refused(_LOOP + "never { byte n; do :: x == 3 -> break :: else od }")
    for w in ("m.pml:2:14", "declarations inside a never claim", "Spin reports them as an error too"):
        assert w in message, message


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


# An initialised channel inside a record that is local, an array, or nested in one (Spin
# 6.5.2 accepts them all): pan creates the channels with the record -- globals after the
# plain global channels, locals in declaration order among the process's channels, element
# by element, each element's fields depth first -- and the field holds the number.
RECORD_CHANNELS = [
    # a local record
    ("typedef R { chan c = [2] of { byte }; byte x }\n"
     "active proctype A() { R r; r.c!1; r.c?r.x; assert(r.x == 1) }", 5, False),
    # a global array of records
    ("typedef R { chan c = [2] of { byte }; byte x }\nR a[2];\n"
     "active proctype A() { a[0].c!1; a[1].c!2; a[1].c?a[0].x; assert(a[0].x == 2) }", 6, False),
    # a local array of records
    ("typedef R { chan c = [2] of { byte }; byte x }\n"
     "active proctype A() { R a[2]; a[0].c!1; a[1].c!2; a[1].c?a[0].x; assert(a[0].x == 2) }", 6, False),
    # pan's numbering: g, h, then a[0].c, a[0].d, a[1].c, a[1].d, s.r[0].c, ... s.e (11)
    ("typedef R { byte y; chan c = [1] of { byte }; chan d = [1] of { byte }; byte x }\n"
     "typedef S { R r[2]; chan e = [1] of {byte} }\n"
     "chan g = [1] of { byte }; R a[2]; chan h = [1] of { byte }; S s; byte n;\n"
     "active proctype A() { a[1].d!3; s.r[1].c!4; s.e!5; n = s.r[1].d; a[1].d?n; n = a[0].c; "
     "assert(n == 3 && s.e == 11 && a[1].d == 6 && s.r[1].c == 9) }", 9, False),
    # a local's channels in declaration order, a record declared after a statement too
    ("typedef R { chan c = [1] of { byte }; chan d = [1] of { byte } }\n"
     "active proctype P() { chan x = [1] of { byte }; R r; chan y = [1] of { byte }; x!1; R late; "
     "late.d!1; assert(late.d == 6 && y == 4 && r.d == 3) }", 6, False),
    # processes created at run time, one after another has ended (its channels removed)
    ("typedef R { chan c = [1] of { byte }; byte x }\nbyte n;\n"
     "proctype P(byte k) { chan z = [1] of {byte}; R r[2]; r[k].c!k; n = r[1].c; r[k].c?r[0].x; "
     "assert(r[0].x == k) }\n"
     "init { chan q = [1] of {byte}; run P(0); run P(1); (_nr_pr == 1) ; run P(1) }", 67, False),
    # the record's channel sent to another process
    ("typedef R { chan c = [2] of { byte } }\nchan w = [2] of { chan };\n"
     "proctype P() { R r; w!r.c; r.c?_ }\nproctype Q() { chan x; w?x; x!1; w?x; x!2 }\n"
     "init { run P(); run P(); run Q() }", 49, False),
    # run in a loop
    ("typedef R { chan c = [1] of { byte }; byte x }\nbyte i;\n"
     "proctype P() { byte k; R r; k = _pid; r.c!k; r.c?r.x }\n"
     "init { do :: i < 2 -> i++; run P() :: i == 2 -> break od }", 61, False),
    # a record's channel passed to run, from init's local record and from a global array
    ("typedef R { chan c = [1] of { byte }; byte x }\nproctype P(chan q) { q!1 }\n"
     "init { R r; run P(r.c); r.c?r.x; assert(r.x == 1) }", 9, False),
    ("typedef R { chan c = [1] of { byte }; byte x }\nR g[2];\nproctype P(chan q) { q!_pid }\n"
     "init { byte i; do :: i < 2 -> run P(g[i].c); i++ :: else -> break od; g[1].c?g[0].x }", 50, False),
    # a rendezvous channel in a record
    ("typedef R { chan c = [0] of { byte }; byte x }\nR g;\nactive proctype P() { g.c!1 }\n"
     "active proctype Q() { g.c?g.x }", 4, False),
    # two proctypes that may take one pid, with different numbers of channels
    ("typedef R { chan c = [1] of { byte } }\nproctype P() { R r; r.c!_pid; r.c?_ }\n"
     "proctype Q() { byte y; R rs[2]; rs[1].c!7; rs[1].c?y }\n"
     "init { if :: run P() :: run Q() fi; if :: run Q() :: run P() fi }", 52, False),
]


@pytest.mark.parametrize("text,stored,error", RECORD_CHANNELS)
def test_record_channels_count_as_spin(text, stored, error, tmp_path):
    check_pinned(text, stored, error, tmp_path)


def test_record_channels_move_with_their_processes(tmp_path):
    """Three clients, each sending its own record's channel to a server: the clients are
    interchangeable together with their channels (S_3, every generator verified)."""
    from detect.checking.verify import verify
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    text = ("typedef R { chan c = [1] of { byte }; byte x }\nchan srv = [2] of { chan };\n"
            "active [3] proctype C() { R r; srv!r.c; r.c?r.x }\n"
            "active proctype S() { chan q; do :: srv?q; q!1 od }\n")
    (tmp_path / "m.pml").write_text(text)
    model = load_model(str(tmp_path / "m.pml"))
    detection = detect(model)
    assert detection.group.order == 6
    assert verify(model, [g.permutation for g in detection.group.generators]).ok


@needs_spin
@pytest.mark.parametrize("seed", range(4))
def test_random_unset_chans_and_dstep_jumps_agree_with_spin(seed, tmp_path):
    """``promela_gen.unset``: operations on chan variables naming no channel, goto inside
    d_step (the recorded run: results/differential_promela_unset.md)."""
    from tests.promela_gen import unset

    agree(unset(seed), tmp_path)


@needs_spin
@pytest.mark.parametrize("seed", range(4))
def test_random_claims_with_timeout_and_dstep_agree_with_spin(seed, tmp_path):
    """``promela_gen.timed_claimed``: timeout and d_step in the never claim."""
    from tests.promela_gen import timed_claimed
    from tests.spin_oracle import claim_order_artifact

    text = timed_claimed(seed)
    why = compare(text, tmp_path)
    if why is not None and why.startswith("states") and claim_order_artifact(
            text, timed_claimed(seed, reverse=True), tmp_path):
        why = None  # pan's search order under a claim (README)
    assert why is None, why
