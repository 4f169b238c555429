"""Spin 6 constructs that Spin's own examples use (issue 28), each pinned by a minimal model
and Spin 6.5.2's numbers ("states, stored" and whether pan reports errors, as
``spin_oracle`` runs it: ``spin -o1 -o2 -o3 -a``, ``-DSAFETY -DNOREDUCE``).  When Spin is
installed each test also re-runs it, so a wrong pinned number fails too."""
from __future__ import annotations

import pytest

from pathlib import Path

from detect.errors import InputError
from frontends.promela import parse_text
from tests.promela_gen import iterating, recorded, spawning
from tests.spin_oracle import (Counts, SpinRefused, compare, neutralise_asserts, our_counts, spin_available,
                               spin_counts)
from tests.spin_oracle import check_pinned as check

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------- run P(c)
# Channels as values: a channel parameter given a process's local channel, or a channel
# chosen at run time, is a chan variable of the new process; local channels of processes
# created at run time are numbered as Spin numbers them (after the channels in use).
RUN_CHANNELS = [
    # the issue's minimal case: init's local channel passed to a process it starts
    ("proctype P(chan c) { c!1 }  init { chan c = [1] of { byte }; run P(c); c?1 }", 7, False),
    # recursion through local channels (Book_1991/p105.2 with fact(4))
    ("proctype fact(int n; chan p) { int result; chan child = [1] of { int };\n"
     " if :: (n <= 1) -> p!1 :: (n >= 2) -> run fact(n-1, child); child?result; p!n*result fi }\n"
     "init { int result; chan child = [1] of { int }; run fact(4, child); child?result; assert(result == 24) }",
     43, False),
    # a channel chosen at run time
    ("chan q[3] = [1] of { byte };\nproctype P(chan inp, out) { byte v; inp?v; out!v+1 }\n"
     "init { byte i; if :: i = 0 :: i = 1 fi; run P(q[i], q[2]); q[i]!5; q[2]?6 }", 18, False),
    ("chan c[2] = [1] of { byte };\nproctype P(chan x) { x!1 }\nactive proctype A() { byte i;\n run P(c[i]) }",
     5, False),
    # runs passing different global channels
    ("chan a = [1] of { byte }; chan b = [1] of { byte };\nproctype P(chan x) { x!1 }\n"
     "active proctype A() { run P(a);\n run P(b) }", 14, False),
    # several proctypes may take pid 1, with different local channels of the same number
    ("chan g = [1] of { chan };\nproctype A() { chan a = [1] of {byte}; g!a; a?1 }\n"
     "proctype B() { chan b = [2] of {byte}; g!b; b?1 }\nproctype U() { chan c; g?c; c!1 }\n"
     "init { if :: run A() :: run B() fi; run U() }", 21, False),
    # C's channel is number 3 after A (one local channel), 2 after B (none)
    ("chan g = [2] of { chan };\nproctype A() { chan a = [1] of {byte}; a!1; end: a?2 }\n"
     "proctype B() { end: false }\nproctype C() { chan x = [1] of {byte}; g!x; x?1 }\n"
     "proctype U() { chan c; g?c; c!1; assert(c == 2 || c == 3) }\n"
     "init { if :: run A() :: run B() fi; run C(); run U() }", 40, False),
    # pids, and with them channel numbers, reused as processes end
    ("proctype W(chan r) { chan mine = [1] of {byte}; mine!1; mine?1; r!1 }\n"
     "init { chan r = [1] of {byte}; byte n; do :: n < 3 -> run W(r); r?_; n++ :: else -> break od }", 57, False),
    # a local channel of a process created at run time sent away (the hub fills up: error)
    ("chan hub = [1] of { chan };\nproctype W() { chan mine = [1] of { byte }; hub!mine }\n"
     "init { byte i; do :: i < 2 -> run W(); i++ :: else -> break od }", 26, True),
    # the sieve (eratosthenes.pml up to 8): rendezvous on a chain of local channels
    ("mtype = { number, eof };\nchan root = [0] of { mtype, byte };\n"
     "proctype sieve(chan c; byte prime) { chan child = [0] of { mtype, byte }; bool haschild; byte n;\n"
     "end: do :: c?number(n) -> if :: (n%prime) == 0 :: else -> if :: !haschild -> haschild = true; "
     "run sieve(child, n) :: else -> child!number(n) fi fi\n :: c?eof(0) -> break od;\n"
     " if :: haschild -> child!eof(0) :: else fi }\n"
     "init { byte n = 2; run sieve(root, n);\n do :: (n < 8) -> n++; root!number(n) "
     ":: (n >= 8) -> root!eof(0); break od }", 215, False),
    # init's local channels, passed in its start-up (Book_1991/p99)
    ("proctype A(chan q1) { chan q2; q1?q2; q2!123 }\nproctype B(chan qforb) { int x; qforb?x }\n"
     "init { chan qname[2] = [1] of { chan }; chan qforb = [1] of { int };\n"
     " run A(qname[0]); run B(qforb); qname[0]!qforb }", 10, False),
]


@pytest.mark.parametrize("text,stored,error", RUN_CHANNELS)
def test_run_with_channel_values_counts_as_spin(text, stored, error, tmp_path):
    check(text, stored, error, tmp_path)


def test_channel_number_of_a_later_process_is_observable(tmp_path):
    """C's channel is 3 only when A runs below it: asserting 2 fails, in Spin and here."""
    text = RUN_CHANNELS[6][0].replace("assert(c == 2 || c == 3)", "assert(c == 2)")
    assert our_counts(text).error
    if spin_available():
        assert compare(text, tmp_path) is None


def test_local_channel_of_a_process_created_at_run_time_is_owned():
    model = parse_text("proctype W() { chan mine = [1] of { byte }; mine!1; mine?1 }\n"
                       "init { run W(); run W() }", "w.pml")
    owners = {v.name: v.owner for v in model.variables}
    assert owners["W_1.mine.len"] == "W[1]" and owners["W_2.mine.len"] == "W[2]"


def test_poll_of_a_rendezvous_channel_is_false(tmp_path):
    """Spin 6.5.2 accepts ``c?[...]`` on a rendezvous channel; it never holds a message."""
    check("chan c = [0] of { byte };\nactive proctype A() { do :: c?[1] -> break :: c!1 -> break od }\n"
          "active proctype B() { c?[1] -> c?1; assert(false) }\nactive proctype C() { c?1 }", 3, True, tmp_path)


# pan evaluates a poll of a rendezvous channel as ``not_RV(c) && ...``: each evaluation is
# the error "error to poll rendezvous channel", then the poll is false and the search goes
# on (``frontends/promela/rvpoll.py``).  Pinned with Spin 6.5.2's numbers; before, the poll
# was false with no error (the first, fourth to seventh: Spin error, we none).
RV_POLLS = {
    "beside else, which runs": ("active proctype A() { if :: c?[1] -> x = 1 :: else -> x = 2 fi; x = 3 }", 5, True),
    "not reached by the short circuit": ("active proctype A() { do :: x < 2 -> x++ :: x == 5 && c?[1] -> break "
                                         ":: x == 2 -> break od }", 7, False),
    "reached by the short circuit": ("active proctype A() { do :: x < 2 -> x++ :: x == 2 && c?[1] -> break "
                                     ":: x == 2 -> break od }", 7, True),
    "not executable for timeout": ("active proctype A() { do :: c?[1] -> break :: timeout -> x++; break od }\n"
                                   "active proctype B() { x < 3 -> x = 3 }", 7, True),
    "through a channel variable": ("chan d = [1] of { byte };\n"
                                   "active proctype A() { chan q; if :: q = c :: q = d fi; d!1; q?[1] -> x = 1 }", 8, True),
    "inside atomic": ("active proctype A() { atomic { x = 1; c?[1] -> x = 2 } }\nactive proctype B() { x = 3 }",
                      8, True),
    "in a never claim": ("active proctype A() { x < 3 -> x++; x++; x++ }\nnever { do :: c?[1] :: x < 5 od }", 6, True),
    "negated, in an unless": ("active proctype A() { do :: x < 2 -> x++ :: !c?[1] -> break :: timeout -> break od "
                              "unless { x == 2 && c?[1] } }", 11, True),
}


@pytest.mark.parametrize("name", RV_POLLS)
def test_poll_of_a_rendezvous_channel_is_pans_error(name, tmp_path):
    text, stored, error = RV_POLLS[name]
    check("chan c = [0] of { byte };\nbyte x;\n" + text, stored, error, tmp_path)


# A poll evaluated inside a step's program: pan reports the error and completes the step
# with the poll false (before, our step stopped there: Spin 4, 5, 9 and 9, we 1, 2, 4 and 4).
RV_PROGRAM_POLLS = {
    "assigned": ("active proctype A() { b = c?[1]; x = 1 }", 4, True),
    "in an if inside d_step": ("active proctype A() { x = 1; d_step { x = 2; if :: c?[1] -> x = 3 :: else -> x = 4 fi "
                               "}; x = 5 }", 5, True),
    "behind a short circuit": ("active proctype A() { do :: x < 3 -> d_step { x++; b = (x == 2 && c?[1]) } "
                               ":: else -> break od }", 9, True),
    "never reached": ("active proctype A() { do :: x < 3 -> d_step { x++; b = (x == 7 && c?[1]) } "
                      ":: else -> break od }", 9, False),
    "behind an array store": ("byte a[3];\nactive proctype A() { do :: x < 3 -> d_step { a[x] = x; x++; "
                              "if :: a[1] == 1 -> b = c?[1] :: else fi } :: else -> break od }", 9, True),
    "behind an array store, not reached": ("byte a[3];\nactive proctype A() { do :: x < 3 -> d_step { a[x] = x + 1; "
                                           "x++; if :: a[1] == 1 -> b = c?[1] :: else fi } :: else -> break od }",
                                           9, False),
}


@pytest.mark.parametrize("name", RV_PROGRAM_POLLS)
def test_poll_of_a_rendezvous_channel_in_a_program_completes_the_step(name, tmp_path):
    text, stored, error = RV_PROGRAM_POLLS[name]
    check("chan c = [0] of { byte };\nbyte x;\nbool b;\n" + text, stored, error, tmp_path)


def test_poll_of_a_rendezvous_channel_after_a_loop_of_a_d_step_is_refused():
    with pytest.raises(InputError) as e:
        parse_text("chan c = [0] of { byte };\nbyte x;\nbool b;\nactive proctype A() { d_step {\n"
                   " do :: x < 3 -> x++ :: else -> break od; b = c?[1] } }", "m.pml")
    assert "poll of a rendezvous channel inside or after a loop" in e.value.message and e.value.line == 4


def test_rendezvous_poll_error_is_where_pan_evaluates_it():
    """The error is a fault of the state where the poll is tried (``x == 2`` there, by the
    short circuit), located at its line, with pan's message."""
    import warnings

    from detect.ir import FALSE, Assert
    from detect.statespace.explore import reachable_graph
    from detect.transform.narrowing import narrow

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = narrow(parse_text("chan c = [0] of { byte };\nbyte x;\n" + RV_POLLS["reached by the short circuit"][0],
                                  "m.pml"))
    graph = reachable_graph(model)
    x = [v.name for v in model.variables].index("x")
    faulty = [graph.states[k] for k in graph.faults]
    assert faulty and all(s[x] == 2 for s in faulty)
    probes = [s for s in model.summands if s.program[:1] == (Assert(FALSE, "error to poll rendezvous channel"),)]
    assert [p.origin.locations[0].line for p in probes] == [3]


# len, empty, nempty, full, nfull of a ``chan`` variable.  Its value is the length of the
# channel it names (a number: before, the candidates were joined by ``||``, so len was 0 or
# 1 and the first model failed its assert where pan has none); where it names no channel
# (0: never assigned) pan's q_len / q_full report "ref to uninitialized chan name" where they
# are evaluated (before, our front end refused the model: "c names no channel").  Pinned
# with Spin 6.5.2's numbers.
_TWO = "chan a = [2] of { byte };\nchan b = [2] of { byte };\nbyte x;\n"
CHAN_VALUE_FNS = {
    "names a channel": ("init { chan c; c = a; a!1; a!2; assert(len(c) == 2 && full(c) && len(b) == 0) }", 6),
    "chosen at run time": ("init { chan c; if :: c = a :: c = b fi; c!1; "
                           "assert(len(c) == 1 && nempty(c) && nfull(c) && len(a) + len(b) == 1) }", 9),
    "uninitialised, not reached by the short circuit": (
        "active proctype A() { chan c; do :: x < 2 -> x++ :: x == 5 && empty(c) -> break :: x == 2 -> break od }", 7),
}
#: pan reports an error on each; its state count past the error is not comparable (q_len goes
#: on reading ``q_offset[-1]``), so only the verdict is pinned
UNINIT_CHAN = {
    "never assigned": "init { chan c; x = len(c) }",
    "reached by the short circuit": "active proctype A() { chan c; do :: x < 2 -> x++ :: x == 2 && empty(c) -> break "
                                    ":: x == 2 -> break od }",
    "assigned on one branch only": "active proctype A() { chan c; if :: c = b :: skip fi; b!1; x = len(c) }",
    "in a never claim": "chan q;\nactive proctype A() { x < 3 -> x++; x++; x++ }\n"
                        "never { do :: x < 3 && len(q) == 0 :: x < 5 od }",
}


@pytest.mark.parametrize("name", CHAN_VALUE_FNS)
def test_channel_function_of_a_chan_variable(name, tmp_path):
    text, stored = CHAN_VALUE_FNS[name]
    check(_TWO + text, stored, False, tmp_path)


@pytest.mark.parametrize("name", UNINIT_CHAN)
def test_channel_function_of_an_uninitialised_chan_is_pans_error(name, tmp_path):
    import warnings

    from detect.statespace.explore import reachable_graph
    from detect.transform.narrowing import narrow

    text = _TWO + UNINIT_CHAN[name]
    assert our_counts(text).error
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = narrow(parse_text(text, "m.pml"))
    assert "ref to uninitialized chan name" in str(model.summands)  # pan's message
    assert reachable_graph(model).faults
    if spin_available():
        assert spin_counts(text, tmp_path).error

# Send, receive and poll on a ``chan`` variable that names no channel (0: never assigned,
# or received unset).  pan's q_full / q_len report "ref to uninitialized chan name" where it
# tries the operation, its executability test (checked against Spin 6.5.2: buffered and
# rendezvous candidates, beside ``else``, inside atomic and d_step, through a chan
# parameter); before, ours blocked there (no fault).  pan's count past the error is not
# comparable (it reads ``q_offset[-1]``): pinned are its verdict, and that our faults are
# in the states where pan tries the operation (``x`` the value there, as pan's depth of the
# error shows: 1, 0 in a d_step).
_ONE = "chan b = [1] of { byte };\nbyte x;\n"
UNINIT_OPS = {
    "send": (_ONE + "init { chan c; x = 1; c!1; x = 2 }", {1}),
    "receive": (_ONE + "init { chan c; x = 1; c?x; x = 2 }", {1}),
    "receive a constant": (_ONE + "init { chan c; x = 1; c?1; x = 2 }", {1}),
    "poll": (_ONE + "init { chan c; x = 1; c?[1] -> x = 2 }", {1}),
    "poll in an expression": (_ONE + "init { chan c; x = 1; x < 5 && c?[1]; x = 2 }", {1}),
    "poll not reached by the short circuit": (_ONE + "init { chan c; x = 1; x > 5 && c?[1] || x == 1; x = 2; "
                                              "x < 5 && c?[1]; x = 3 }", {2}),
    "in an if with else": (_ONE + "init { chan c; x = 1; if :: c!1 :: else -> x = 3 fi; x = 2 }", {1}),
    "receive beside timeout": (_ONE + "init { chan c; x = 1; if :: c?x :: timeout -> x = 3 fi }", {1}),
    "a chan parameter given one": (_ONE + "proctype P(chan q) { x = 1; q!1; x = 2 }\ninit { chan c; run P(c) }",
                                   {1}),
    # Spin refuses ``d = 0`` ("invalid asgn to chan"): an unset chan received from a channel
    "received unset": ("chan b = [1] of { byte };\nchan g = [1] of { chan };\nbyte x;\n"
                       "init { chan d, e; d = b; d!1; g!e; g?d; x = 1; d!1 }", {1}),
    "rendezvous candidates only": ("chan r = [0] of { byte };\nbyte x;\nactive proctype A() { end: r?x }\n"
                                   "init { chan c; x = 1; c!1; x = 2 }", {1}),
    "inside atomic": (_ONE + "init { chan c; atomic { x = 1; c!1; x = 2 } }", {1}),
    "inside d_step": (_ONE + "init { chan c; d_step { x = 1; c!1; x = 2 } }", {0}),
    "first in a d_step": (_ONE + "init { chan c; d_step { c!1; x = 2 } }", {0}),
}
#: the same operations on a chan variable naming a channel: no fault, Spin's counts
NAMED_OPS = [
    (_ONE + "init { chan c; c = b; x = 1; c!1; c?[1] -> c?x; x = 2 }", 8),
    ("chan a = [1] of { byte };\nchan b = [2] of { byte };\nchan r = [0] of { byte };\nbyte x;\n"
     "active proctype A() { end: r?x }\ninit { chan c; if :: c = a :: c = b :: c = r fi; c!1; "
     "if :: nempty(c) -> c?x :: else fi; x = 2 }", 18),
    ("chan a = [1] of { byte };\nbyte x;\nproctype P(chan q) { q!1; q?[1] -> q?x }\ninit { run P(a) }", 7),
]


@pytest.mark.parametrize("name", UNINIT_OPS)
def test_operation_on_an_uninitialised_chan_is_pans_error(name, tmp_path):
    import warnings

    from detect.ir.model import slot_offsets
    from detect.statespace.explore import reachable_graph
    from detect.transform.narrowing import narrow

    text, x_values = UNINIT_OPS[name]
    assert our_counts(text).error
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = narrow(parse_text(text, "m.pml"))
    assert "ref to uninitialized chan name" in str(model.summands)  # pan's message
    graph = reachable_graph(model)
    x = slot_offsets(model)["x"]
    assert graph.faults and {graph.states[k][x] for k in graph.faults} == x_values
    if spin_available():
        assert spin_counts(text, tmp_path).error


@pytest.mark.parametrize("text,stored", NAMED_OPS)
def test_operation_on_a_chan_variable_naming_a_channel(text, stored, tmp_path):
    check(text, stored, False, tmp_path)


# ---------------------------------------------------------------------------- for, select
# Spin 6.5.2 expands select (i : lo .. hi) to an if with one option per value when both
# bounds are numbers at most 32 apart, else to a do loop; for is a do loop.
FOR_SELECT = [
    ("byte x; active proctype A() { byte i; select (i : 1 .. 3); x = i }", 10),
    ("byte x; active proctype A() { byte i; select (i : 1 .. 33); x = i }", 100),
    ("byte x; active proctype A() { byte i; select (i : 1 .. 34); x = i }", 170),
    ("byte x; active proctype A() { byte i; select (i : 1 .. 300); x = i }", 1281),
    ("byte x, n = 3; active proctype A() { byte i; select (i : 1 .. n); x = i }", 15),
    ("byte x; active proctype A() { byte i; select (i : 1 .. 4-1); x = i }", 15),
    ("byte x; active proctype A() { byte i; for (i : 0 .. 2) { x = x + i } }", 13),
    ("byte x; active proctype A() { byte i; for (i : 1 .. 3) { if :: i == 2 -> break :: else fi }; x = i }", 9),
    ("byte x, a[3];\nactive proctype A() { byte i; select (i : 1 .. 3); x = i; for (i : 0 .. 2) { a[i] = i + x }; "
     "for (i in a) { x = x + a[i] } }", 76),
]


@pytest.mark.parametrize("text,stored", FOR_SELECT)
def test_for_and_select_count_as_spin(text, stored, tmp_path):
    check(text, stored, False, tmp_path)


@pytest.mark.parametrize("text,message", [
    ("byte x;\nactive proctype A() { byte i;\n select (i : 3 .. 1) }", "bad range in select statement"),
    # Spin 6.5.2: "bad arrayname c" -- only a record variable runs over a channel
    ("chan c = [2] of { byte };\nactive proctype A() { byte i;\n for (i in c) { skip } }",
     "bad arrayname c"),
    ("typedef R { byte a };\nbyte arr[3];\nactive proctype A() { R x; for (x in arr) { skip } }",
     "x is a record, so arr must name one channel"),
    ("typedef R { byte a };\nchan c = [1] of { R, byte };\nactive proctype A() { R x; for (x in c) { skip } }",
     "bad channel type c in for"),
])
def test_for_and_select_refusals_are_located(text, message, tmp_path):
    with pytest.raises(InputError) as e:
        parse_text(text, "m.pml")
    assert message in e.value.message and e.value.line == 3
    if spin_available():  # Spin refuses them too
        with pytest.raises(SpinRefused):
            spin_counts(text, tmp_path)


# ---------------------------------------------------------------------------- records
# Spin spells a record out field by field (depth first, arrays element by element) in a
# channel's field list, a send, a receive and a poll (``spin -I``); for (x in c) with a
# record x takes each message from the head and puts it back, counting with a byte of the
# state vector; record fields may be channels, records and arrays of either.
RECORDS = [
    # the issue's minimal case
    ("typedef R { byte a; byte b };\nchan c = [2] of { R };\n"
     "active proctype A() { R r; r.a = 1; r.b = 2; c!r; r.a = 0; c?r; assert(r.a == 1) }", 8, False),
    # nested records, arrays in them, a record beside a plain field, polls and copies
    ("typedef I { byte p; byte q[2] };\ntypedef R { byte a; I n; bool b };\nchan g = [2] of { R, byte };\n"
     "R rs[2];\ninit {\n  R r; R s;\n  chan x = [2] of { R };\n  r.a = 1; r.n.q[1] = 3; r.n.p = 2;\n"
     "  g!r,4; g?s,_;\n  x!rs[1]; x?rs[0];\n  x!r; x?[r]; x?<s>;\n  for (r in x) { r.a++ }\n}", 19, False),
    # for over a channel leaves it as it was
    ("typedef R { byte a; byte b };\nchan c = [3] of { R };\nactive proctype A() { R x; byte s; x.a = 1; c!x; "
     "x.a = 2; x.b = 1; c!x; for (x in c) { s = s + x.a + x.b }; assert(s == 4 && len(c) == 2); c?1,0; c?2,1 }",
     22, False),
    ("typedef R { byte a };\nchan c = [2] of { R };\nR g;\n"
     "active [2] proctype P() { R x; x.a = _pid + 1; c!x; for (g in c) { g.a > 0 } }", 731, False),
    # a channel field in a typedef
    ("typedef T { chan c; byte x };\nchan g = [1] of { byte };\nT t;\n"
     "active proctype A() { t.c = g; t.x = 3; t.c!t.x; g?3 }", 6, False),
    ("typedef R { byte a; chan c };\nchan q = [2] of { R, byte };\nchan z = [1] of { byte };\n"
     "active [2] proctype P() { R r; r.a = _pid; r.c = z; q!r,_pid; q?r,_; r.c!r.a }\n"
     "active proctype D() { byte v; do :: z?v :: timeout -> break od }", 74, False),
    # an initialised channel in a typedef: created with the (global) record, numbered after
    # every other global channel, as Spin numbers it
    ("typedef T { chan c = [1] of { byte }; byte x };\nT t;\nactive proctype A() { t.c!1; t.c?1 }", 4, False),
    ("chan a = [3] of { chan };\ntypedef T { byte x; chan c = [2] of { byte } };\nT t;\nchan b = [1] of { byte };\n"
     "T u;\nactive proctype A() { chan y; a!t.c; a!b; a!u.c; a?y; assert(y == 3); a?y; assert(y == 2); a?y; "
     "assert(y == 4); u.c!1; t.c!2; t.c?2 }", 14, False),
    # nested record fields with an index at every level
    ("typedef I { byte q[2] };\ntypedef R { I n[2]; byte a };\nR rs[2];\nactive proctype A() { byte i; "
     "for (i : 0 .. 1) { rs[i].n[1].q[i] = i + 1 }; assert(rs[1].n[1].q[1] == 2 && rs[0].n[1].q[0] == 1) }",
     11, False),
    # a rendezvous of records
    ("typedef R { byte a; bool b };\nchan c = [0] of { R };\nactive proctype S() { R r; r.a = 2; c!r }\n"
     "active proctype Q() { R r; c?r; assert(r.a == 2) }", 6, False),
    # for (i in a) over an array of channels runs over its indices
    ("chan a[3] = [1] of { byte };\nactive proctype A() { byte i, s; for (i in a) { a[i]!i }; "
     "for (i in a) { a[i]?s } }", 24, False),
]


@pytest.mark.parametrize("text,stored,error", RECORDS)
def test_records_in_messages_count_as_spin(text, stored, error, tmp_path):
    check(text, stored, error, tmp_path)


def test_an_inner_index_out_of_its_range_is_a_fault(tmp_path):
    # rs[0].n[0].q[2] is within the flat array, but q has 2 elements: pan's index error
    text = ("typedef I { byte q[2] };\ntypedef R { I n[2]; byte a };\nR rs[2];\n"
            "active proctype A() { byte i = 2; rs[0].n[0].q[i] = 1 }")
    assert our_counts(text).error
    if spin_available():
        assert spin_counts(text, tmp_path).error


@pytest.mark.parametrize("name,stored,error", [("for_example.pml", 32, False), ("for_select_example.pml", 410, True)])
def test_spins_for_examples(name, stored, error, tmp_path):
    # Spin: 32 states, no error; 410 and an error (assert(i != 21) fails), 410 with it made true
    path = ROOT.parent / "shared" / "corpus" / "spin" / "Examples" / name
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared corpus)")
    text = path.read_text()
    assert our_counts(text).error == error
    assert our_counts(neutralise_asserts(text)) == Counts(stored, False)
    if spin_available():
        assert compare(text, tmp_path) is None


# ---------------------------------------------------------------------------- fewer arguments
# pan matches the fields a poll gives; a receive with fewer arguments removes the message
# and reports "missing pars in receive", a send of fewer values sends 0 for the rest and
# reports "too few parameters in send stmnt": errors after which pan goes on (counts differ
# then, as after a failed assertion; the verdicts agree).
def test_poll_with_fewer_arguments_than_fields(tmp_path):
    check("chan c = [1] of { byte, byte }; active proctype A() { c!1,2; c?[1] -> c?1,2 }", 5, False, tmp_path)
    check("mtype = { red, blue }; chan c = [2] of { mtype, byte };\n"
          "active proctype A() { c!blue,2; c!red,3; if :: c?[red] -> c?red,_ :: c?<blue> -> c?blue,_ fi; c?_,_ }",
          7, False, tmp_path)


@pytest.mark.parametrize("text", [
    "chan c = [2] of { byte, byte }; byte x, y; active proctype A() { c!1,2; c!3,4; c?x; c?[3] -> c?x,y }",
    "chan c = [2] of { byte, byte }; byte x, y; active proctype A() { c!1; c?x,y }",
    "chan c = [0] of { byte, byte }; byte x; active proctype A() { c!1,7 } active proctype B() { c?x }",
])
def test_fewer_arguments_in_a_receive_or_send_are_errors_as_in_pan(text, tmp_path):
    assert our_counts(text).error
    if spin_available():
        assert spin_counts(text, tmp_path).error


# ---------------------------------------------------------------------------- mtypes, characters
def test_named_mtypes_number_their_names_as_spin(tmp_path):
    """Spin 6.5.2 prints ``3 2 1 | 2 1 | 5 4 | 3`` for these: each mtype numbers its own
    names, a declaration's names after the earlier ones', the last first."""
    text = ("mtype = { one, two, three }\nmtype:fruit = { appel, pear }\nmtype = { four, five }\n"
            "mtype:fruit = { kiwi }\nmtype:fruit f = kiwi; mtype m = four;\nchan q = [1] of { mtype:fruit, mtype };\n"
            "active proctype A() { mtype:fruit g;\n"
            " assert(one == 3 && three == 1 && appel == 2 && pear == 1 && four == 5 && five == 4 && kiwi == 3);\n"
            " q!pear,five; q?g,m; f = g; assert(f < kiwi && m == 4) }")
    check(text, 7, False, tmp_path)
    names = {v.name: dict(v.value_names) for v in parse_text(text, "m.pml").variables}
    assert names["f"] == {1: "pear", 2: "appel", 3: "kiwi"} and names["m"][5] == "four"


def test_character_literals_with_escapes(tmp_path):
    # Spin 6.5.2: '\n' 10, '\t' 9, '\r' 13, '\f' 12, '\b' is 'b' (98), '\\' 92
    check("byte x;\nactive proctype A() { x = '\\n'; assert(x == 10 && '\\t' == 9 && '\\r' == 13 && '\\f' == 12 "
          "&& '\\b' == 98 && '\\\\' == 92 && 'a' == 97 && ' ' == 32) }", 4, False, tmp_path)


# ---------------------------------------------------------------------------- p = run P()
@pytest.mark.parametrize("text,stored", [
    # in init's start-up
    ("byte p, q;\nproctype P() { byte x = _pid; end: x == 9 }\n"
     "init { p = run P(); q = run P(); assert(p == 1 && q == 2) }", 4),
    # at run time, with pids reused
    ("pid p;\nproctype P(byte k) { skip }\n"
     "active proctype A() { byte i; do :: i < 3 -> p = run P(i); i++; (_nr_pr == 1) :: else -> break od; "
     "assert(p == 1) }", 28),
])
def test_run_gives_the_new_pid(text, stored, tmp_path):
    check(text, stored, False, tmp_path)


def test_the_pid_run_gives_is_observable(tmp_path):
    text = "byte p;\nproctype P() { skip }\ninit { p = run P(); assert(p == 2) }"
    assert our_counts(text).error
    if spin_available():
        assert spin_counts(text, tmp_path).error


# ---------------------------------------------------------------------------- assert in a claim
def test_assert_inside_a_never_claim(tmp_path):
    """werkplaats.pml's claim; pan checks the assertion at each claim move."""
    claim = "byte x;\nactive proctype A() { do :: x < 3 -> x++ :: x == 3 -> break od }\nnever { do :: assert(x != %d) od }"
    check(claim % 4, 9, False, tmp_path)
    assert our_counts(claim % 3).error
    if spin_available():
        assert spin_counts(claim % 3, tmp_path).error


def test_atomic_inside_a_never_claim_counts_as_spin(tmp_path):
    """What ``spin -f '<> p'`` writes: the claim's atomic sequence is a chain of claim
    moves (``frontends.promela.claim``), its assertion fails where ``x == 1``."""
    text = ("byte x;\nactive proctype A() { do :: x < 2 -> x++ :: x == 2 -> x = 0 od }\nnever { do\n"
            " :: atomic { (x == 1) -> assert(!(x == 1)) }\n :: (1) od }")
    check(text, 6, True, tmp_path)
    # (where the system stops, pan -c0 runs out of depth: after a stutter move it stores no
    # state until the claim stutters again, and this claim's chain returns where it began)


# ---------------------------------------------------------------------------- random models
def _agrees(text: str, tmp_path) -> None:
    if not spin_available():
        pytest.skip("spin or gcc not installed")
    assert compare(text, tmp_path) is None, text


@pytest.mark.parametrize("seed", range(6))
def test_random_spawning_model_agrees_with_spin(seed, tmp_path):
    _agrees(spawning(seed), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6, 200))
def test_many_random_spawning_models_agree_with_spin(seed, tmp_path):
    _agrees(spawning(seed), tmp_path)


@pytest.mark.parametrize("seed", range(4))
def test_random_iterating_model_agrees_with_spin(seed, tmp_path):
    _agrees(iterating(seed), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4, 150))
def test_many_random_iterating_models_agree_with_spin(seed, tmp_path):
    try:
        _agrees(iterating(seed), tmp_path)
    except SpinRefused as e:  # the base model's goto into a d_step, say
        pytest.skip(f"Spin gives no count: {e}")


@pytest.mark.parametrize("seed", range(4))
def test_random_recorded_model_agrees_with_spin(seed, tmp_path):
    _agrees(recorded(seed), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4, 150))
def test_many_random_recorded_models_agree_with_spin(seed, tmp_path):
    _agrees(recorded(seed), tmp_path)


def test_recorded_generator_covers_its_constructs():
    texts = [recorded(s) for s in range(40)]
    for construct in ("rq!x", "rq?gr[", "for (x in rq)", "x.s.k[", "gr[1].s.p", "x.c!x.v", "ra = rb",
                      "trace {", "notrace {", "[0] of { byte, Rec }", "tz!0"):
        assert any(construct in t for t in texts), construct


def test_macro_stringification():
    """ltl_gen.pml: ``#define Unary(s) printf(#s); ...`` with ``Unary([])``, ``Unary(<>)``."""
    from frontends.promela.preprocess import preprocess
    text = preprocess('#define U(s)\tprintf(#s); x++\nU([]) U(<>) U(a"b)\n').text
    assert 'printf("[]"); x++ printf("<>"); x++ printf("a\\"b"); x++' in text
    parse_text('byte x;\n#define U(s)\tprintf(#s); x++\nactive proctype A() { U([]); U(<>) }', "m.pml")


# ---------------------------------------------------------------------------- trace, notrace
# pan 6.5.2's event traces (frontends/promela/events.py): the trace follows every send to and
# receive from the channels it names; a trace that cannot follow, a notrace that matches to
# its end, and a system that stops with the trace short of its end are errors.  pan goes on
# after such an error (we stop), so counts are pinned where no error occurs.
TRACES = [
    ("chan c = [3] of { byte };\nnotrace { c!1; c!2 }\nactive proctype A() { c!2; c!1; c!2 }", 5, False),
    ("chan c = [2] of { byte };\ntrace { end: do :: c!1 od }\nactive proctype A() { c!1; c!1; end: false }", 3, False),
    ("chan c = [2] of { byte, byte };\nchan d = [2] of { byte };\ntrace { do :: c!1,_ ; d?2 od }\n"
     "active proctype A() { byte x; c!1,5; d!2; d?<x>; d?[2]; d?x; c?x,_ }", 8, False),
    # the system ends with the trace short of its end: pan accepts it (no process left)
    ("chan c = [2] of { byte, byte };\ntrace { c!1,_ ; c!2,_ }\nactive proctype A() { c!1,5 }", 3, False),
]
TRACE_ERRORS = [
    "chan c = [2] of { byte };\ntrace { c!1; c!2 }\nactive proctype A() { c!2 }",  # no matching event
    "chan c = [2] of { byte };\nnotrace { c!1; c!2 }\nactive proctype A() { c!1; c!2 }",  # all events matched
    "chan c = [2] of { byte };\ntrace { do :: c!1 -> c?1 :: c!2 -> c?2 od }\n"
    "active [2] proctype A() { byte x; do :: c!_pid+1 -> c?x :: x > 5 -> break od }",
    "mtype = { a, b };\nchan c = [2] of { mtype, byte };\nchan d = [1] of { byte };\n"
    "notrace { do :: c?a,_ :: c?b,1 -> break od; d!3 }\n"
    "active [2] proctype A() { byte x; c!a,_pid; c!b,_pid; c?_,x; c?_,x; d!x; d?x }",
    # "event_trace not completed": an end state with the trace short of its end
    "chan c = [2] of { byte };\ntrace { do :: c!1 od }\nactive proctype A() { c!1; c!1; end: false }",
    "chan c = [2] of { byte };\ntrace { do :: c!1 :: c!_ od }\nactive proctype A() { c!1 }",  # non-determinism
]


@pytest.mark.parametrize("text,stored,error", TRACES)
def test_traces_count_as_pan(text, stored, error, tmp_path):
    check(text, stored, error, tmp_path)


@pytest.mark.parametrize("text", TRACE_ERRORS)
def test_trace_errors_as_pan(text, tmp_path):
    assert our_counts(text).error
    if spin_available():
        assert spin_counts(text, tmp_path).error


def test_leader_trace_counts_as_spin(tmp_path):
    path = ROOT.parent / "shared" / "corpus" / "spin" / "Examples" / "leader_trace.pml"
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared corpus)")
    assert our_counts(path.read_text()) == Counts(41_692, False)  # Spin 6.5.2: 41,692, no error


@pytest.mark.parametrize("text,message", [
    ("chan c = [0] of { byte };\ntrace { c!1 }\nactive proctype A() { c!1 }", "rendezvous channel"),
    ("chan c = [1] of { byte };\nbyte x;\ntrace { c?x }\nactive proctype A() { c!1 }", "only match constants"),
    ("chan c = [1] of { byte };\ntrace { c!1 }\ntrace { c!1 }\nactive proctype A() { c!1 }", "a second trace"),
])
def test_trace_refusals_are_located(text, message):
    with pytest.raises(InputError) as e:
        parse_text(text, "m.pml")
    assert message in e.value.message and e.value.line >= 2


# ---------------------------------------------------------------------------- channel names as values
# In Spin a channel's name is a variable holding the channel's number: one the model assigns
# (Examples/LTL/mobile2.pml: x = fa; fa = fp; fp = x, and a parameter m = m_new) names
# whatever it was given since.
CHANNEL_NAMES = [
    ("chan a = [1] of { byte };\nchan b = [1] of { byte };\n"
     "active proctype P() { chan x; a!1; x = a; a = b; b = x; a!2; b?1; a?2 }", 9, False),
    ("chan a = [1] of { byte };\nchan b = [1] of { byte };\n"
     "proctype M(chan m) { chan n; m!1; n = b; m = n; m!2 }\ninit { run M(a); a?1; b?2 }", 15, False),
    ("chan a = [2] of { byte };\nchan b = [2] of { byte };\n"
     "active [2] proctype P() { chan x; atomic { x = a; a = b; b = x }; a!_pid; b?_ }", 28, True),
]


@pytest.mark.parametrize("text,stored,error", CHANNEL_NAMES)
def test_assigned_channel_names_count_as_spin(text, stored, error, tmp_path):
    check(text, stored, error, tmp_path)


def test_stdin_is_refused_located(tmp_path):
    # wordcount.pml: pan has no standard input and stops at the first state reading it
    # ("1 (incomplete)"): no count to compare, so the front end says why
    text = "chan STDIN;\nint c;\ninit {\n do :: STDIN?c -> if :: c == -1 -> break :: else fi od }"
    with pytest.raises(InputError) as e:
        parse_text(text, "w.pml")
    assert "STDIN" in e.value.message and e.value.line == 4


# ---------------------------------------------------------------------------- symmetry
# Records, for over a channel, a trace and assigned channel names touch channels: three
# interchangeable processes keep their group (S3), and every generator is checked on the
# reachable states.
SYMMETRIC = [
    "typedef R { bool v; chan c };\nchan c = [1] of { R };\nchan z = [1] of { byte };\n"
    "trace { end: do :: z!_ :: z?_ od }\n"
    "active [3] proctype P() { R x; x.c = z; end: do :: c!x -> x.v = !x.v :: c?x :: nfull(x.c) -> x.c!x.v "
    ":: z?_ :: atomic { for (x in c) { x.v = 1 } } od }",
    "chan q = [1] of { byte };\nchan r = [1] of { byte };\n"
    "active [3] proctype P() { chan t; end: do :: atomic { t = q; q = r; r = t } :: q!1 :: q?_ od }",
]


@pytest.mark.parametrize("text", SYMMETRIC)
def test_new_constructs_keep_a_verified_symmetry(text, tmp_path):
    from detect.checking.verify import verify
    from detect.symmetry.pipeline import detect
    from detect.transform.load import narrowed

    model = narrowed(parse_text)(text, "s.pml")
    detection = detect(model)
    assert detection.group.order == 6
    assert verify(model, [g.permutation for g in detection.group.generators]).ok
