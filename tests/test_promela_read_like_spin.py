"""Promela constructs we read differently from Spin 6.5.2 (issue 25, item 5), each pinned by a
minimal model with Spin's numbers ("states, stored" and whether pan reports errors, as
``spin_oracle`` runs it).  When Spin is installed, each test also re-runs it."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.spin_oracle import check_pinned as check
from tests.spin_oracle import our_counts, spin_available

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"


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


def follows_spin(text: str, tmp_path) -> None:
    """Our verdict and count equal Spin's (``spin_oracle.compare``: counts on the model with
    assertions neutralised when one fails); skipped without Spin."""
    from tests.spin_oracle import compare
    if not spin_available():
        pytest.skip("spin or gcc not installed")
    assert compare(text, tmp_path) is None


# A local declared after a statement is a statement: it resets the variable each time it is
# passed (pan.m: ``v = 0``, ``v = x``; only element 0 of an array).
MID_BODY = [
    # the model: v restarts at 0 each round (was: hoisted, no violation)
    ("byte n;\nactive proctype P() {\n  do\n  :: n < 3 -> n++; byte v; v++; assert(v == n)\n"
     "  :: n >= 3 -> break\n  od\n}\n", None, True),
    ("byte x; active [2] proctype P() { x++; byte v; v = x }", 28, False),
    ("byte x = 3; active proctype P() { x++; byte v = x; byte w = v + 1; assert(v == 4 && w == 5); "
     "byte y[2] = 1; y[1]++; byte y2[2] = 5; assert(y[0] == 1 && y[1] == 1 && y2[1] == 0) }", 10, False),
    # as an option's first statement, in a nested block and in a d_step
    ("byte x = 3; active proctype P() { do :: byte v = x -> v++; x = v :: x > 5 -> byte w; break od }", None, None),
    ("byte x = 3; active proctype P() { { byte v = x; v++; x = v }; assert(x == 4) }", 6, False),
    ("byte x = 3; active proctype P() { x++; d_step { byte v = x; v++; x = v }; assert(x == 5) }", 5, False),
    # a typedef variable's step is empty: its fields keep the values creation gave them
    ("typedef T { byte a; byte b = 2 }; byte x = 3; active proctype P() { T t; t.a = 5; x++; T u; u.a++; "
     "assert(t.b == 2 && u.b == 2 && t.a == 5) }", 7, False),
    ("typedef T { byte a; byte b = 2 }; proctype P() { byte x; x++; T t[2]; assert(t[1].b == 2) } "
     "init { byte i; i++; run P() }", 8, False),
    # in a process started by run: 0 at creation, set when passed
    ("byte g; proctype P(byte k) { g++; byte v = k + g; assert(v == 9) } init { g = 1; run P(7) }", None, False),
]


@pytest.mark.parametrize("text,stored,error", MID_BODY)
def test_declaration_after_a_statement_is_a_step(text, stored, error, tmp_path):
    if stored is None:
        if error is not None:
            assert our_counts(text).error == error
        follows_spin(text, tmp_path)
    else:
        check(text, stored, error, tmp_path)


def test_initialised_channel_after_a_statement_is_refused_like_spin():
    from detect.errors import InputError
    from frontends.promela import parse_text
    with pytest.raises(InputError, match=r"c.pml:1:41: place initialized chan decl of 'c' at start of proctype"):
        parse_text("byte x; active proctype P() { x++; chan c = [1] of { byte }; c!1 }", "c.pml")


# Initialisers that read variables: Spin evaluates them when the variable is created --
# globals in declaration order, then each process's leading locals in order as it is created
# (earlier locals, _pid, _nr_pr counting the processes created so far).
INITIALISERS = [
    ("byte x = 3; active proctype P() { byte v = x; assert(v == 3) }", 3, False),
    ("active proctype P() { byte v = 4; byte w = v + 1; assert(w == 5) }", 3, False),
    ("int y = 70001; active proctype P() { int q = y / 2; assert(q == 35000) }", 3, False),
    ("byte x = 3; byte y = x + 1; int yy = y * 1000;\n"
     "active proctype P() { byte v = _nr_pr; assert(v == 1); assert(y == 4); assert(yy == 4000) }\n"
     "active proctype Q() { byte v = _nr_pr; int q = yy / 3; assert(v == 2); assert(q == 1333) }\n"
     "proctype R(byte k) { byte v = _nr_pr + k; byte w = v + 1; byte arr[2] = w; assert(v == 4 + 7); "
     "assert(w == 12); assert(arr[1] == 12) }\n"
     "init { byte i = _nr_pr; assert(i == 3); run R(7) }\n", 101, False),
    ("byte x = 3; active [2] proctype P() { byte v = x + _pid; byte w = v + 1; byte y[2] = w; int q = x / 2; "
     "assert(v == 3 + _pid && y[1] == w && q == 1) }", 7, False),
    # a byte initialiser wraps as Spin stores it
    ("byte x = 200; active proctype P() { byte v = x + x; assert(v == 144) }", 3, False),
]


@pytest.mark.parametrize("text,stored,error", INITIALISERS)
def test_initialiser_reading_variables(text, stored, error, tmp_path):
    check(text, stored, error, tmp_path)


def test_initialiser_that_faults_is_a_located_error():
    from detect.errors import InputError
    from frontends.promela import parse_text
    with pytest.raises(InputError, match=r"z.pml:1:40: initialiser: division by zero"):
        parse_text("byte x; active proctype P() { byte v = 1 / x; v++ }", "z.pml")


def test_only_failing_assertion_enabled_is_no_invalid_end_state(tmp_path):
    """pan -A (assertions ignored) reports no error: a state whose only enabled step fails an
    assertion is not an invalid end state (was: reported as a deadlock as well)."""
    from detect.statespace.explore import explore_state_space
    from detect.transform.load import narrowed
    from frontends import promela

    text = "byte x; active proctype A() { do :: assert(x == 1) od }"
    result = explore_state_space(narrowed(promela.parse_text)(text, "a.pml"))
    assert (result.states, result.faults, len(result.deadlocks)) == (1, 1, 0)
    check(text, 1, True, tmp_path)
    if spin_available():
        import subprocess
        (tmp_path / "m.pml").write_text(text)
        subprocess.run(["spin", "-a", "m.pml"], cwd=tmp_path, check=True, capture_output=True)
        subprocess.run(["gcc", "-O0", "-w", "-DSAFETY", "-DNOREDUCE", "-o", "pan", "pan.c"], cwd=tmp_path,
                       check=True, capture_output=True)
        out = subprocess.run(["./pan", "-A"], cwd=tmp_path, capture_output=True, text=True).stdout
        assert "errors: 0" in out  # invalid end states are searched for ("invalid end states +")


# ``c?..,_pid`` stores into the receiver's _pid (Spin 6.5.2's verifier; its simulator refuses
# it), which later reads of _pid see; pan masks _pid out of the stored states.
PID_RECEIVES = [
    ("chan c = [2] of { byte, byte };\nactive proctype P() { c!0,_pid; c?0,_pid }\n", 4, False),
    ("chan c = [4] of { byte, byte };\nactive [2] proctype P() { byte v = _pid; c!0,1 - _pid; c?0,_pid; "
     "assert(v != _pid); c!1,_pid; end: c?9,_ }\n", None, True),
    ("chan c = [4] of { byte, byte };\nproctype P() { byte v = _pid; c!0,3 - _pid; c?0,_pid; assert(v != _pid); "
     "c!1,_pid; end: c?9,_ }\ninit { run P(); run P() }\n", None, True),
]


@pytest.mark.parametrize("text,stored,error", PID_RECEIVES)
def test_receive_into_pid(text, stored, error, tmp_path):
    if stored is None:
        assert our_counts(text).error == error
        follows_spin(text, tmp_path)
    else:
        check(text, stored, error, tmp_path)
