"""Disagreements with Spin found by differential testing, each pinned by a minimal model and
Spin 6.5.2's numbers ("states, stored" and whether pan reports errors, as ``spin_oracle``
runs it).  When Spin is installed, each test also re-runs it."""
from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import pytest

from tests.spin_oracle import check_pinned as check
from tests.spin_oracle import Counts, our_counts, spin_available, spin_counts


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


def follows_spin(text, stored, error, tmp_path):
    """``check`` against the expected counts, or (``stored`` None) against Spin itself."""
    if stored is None:
        if not spin_available():
            pytest.skip("spin or gcc not installed")
        assert our_counts(text) == spin_counts(text, tmp_path)
    else:
        check(text, stored, error, tmp_path)


@pytest.mark.parametrize("text,stored,error", ATOMIC)
def test_atomic_marks_follow_spin(text, stored, error, tmp_path):
    follows_spin(text, stored, error, tmp_path)


def test_atomic_loop_process_is_not_swapped_with_a_per_iteration_atomic_one():
    """A keeps control through its whole loop, B only per iteration: no A<->B symmetry
    (the loop head used to release control, which made them look alike)."""
    from detect.symmetry.pipeline import detect
    from detect.transform.load import narrowed
    from frontends import promela

    parse_text = narrowed(promela.parse_text)

    text = ("byte a, b;\n"
            "active proctype A() { atomic { do :: a < 2 -> a++ :: a == 2 -> a = 0 od } }\n"
            "active proctype B() { do :: atomic { b < 2 -> b++ } :: atomic { b == 2 -> b = 0 } od }\n")
    assert our_counts(text) == Counts(3, False)  # Spin 6.5.2
    assert detect(parse_text(text, "ab.pml")).group.order == 1


# Integer types follow Spin: int is 32-bit, short 16-bit, byte 8-bit unsigned, bit and bool
# one bit, unsigned x : n n bits; a store wraps as Spin's C does (pan reports no error).
INTS = [
    # int x = 40000 starts at 40000 (was: -25536, int had short's range)
    ("int x = 40000; active proctype A() { assert(x == 40000); x = x + 30000; assert(x == 70000) }", 5, False),
    # two writers of different values, and a reader that can tell them apart
    ("int x;\nactive proctype A() { do :: x = 1 od }\nactive proctype B() { do :: x = 65537 od }\n"
     "active proctype C() { x != 0 -> assert(x == 1) }", 9, True),
    # stores wrap: byte, short, bit, bool, unsigned (also 20 bits), negative into unsigned
    ("int x = 40000; short s; byte b = 255; bit t; bool bb; unsigned u : 3; unsigned w : 20;\n"
     "active proctype A() {\n"
     "  assert(x == 40000); b++; assert(b == 0); s = 40000; assert(s == -25536);\n"
     "  s = 32767; s++; assert(s < 0); t = 2; assert(t == 0); bb = 3; assert(bb == 1);\n"
     "  bb = 2; assert(bb == 0); u = 9; assert(u == 1); u = 0; u--; assert(u == 7);\n"
     "  w = 1048575; w++; assert(w == 0); x = 65537 * 3; assert(x == 196611);\n"
     "  x = -40000; assert(x < 0); b = -1; assert(b == 255); s = -40000; assert(s == 25536) }", 32, False),
    # a sum bounded only by the loop counter: its domain comes from the reachable states
    ("int x;\nactive proctype A() { byte i; do :: i < 5 -> x = x + i; i++ :: i == 5 -> break od; "
     "assert(x == 10) }\nactive proctype B() { short y = 30000; y = y + y; assert(y < 0) }", 73, False),
    # int message fields and int locals of processes started by run
    ("chan c = [1] of { int }; int x;\nproctype P(int v) { c!v * 2 }\n"
     "init { run P(40000); c?x; assert(x == 80000) }", None, None),
]


@pytest.mark.parametrize("text,stored,error", INTS)
def test_integer_types_follow_spin(text, stored, error, tmp_path):
    follows_spin(text, stored, error, tmp_path)


def test_two_writers_of_different_int_values_are_not_symmetric():
    from detect.symmetry.pipeline import detect
    from detect.transform.load import narrowed
    from frontends import promela

    parse_text = narrowed(promela.parse_text)

    text = INTS[1][0]
    model = parse_text(text, "ints.pml")
    assert model.variable("x").domain == (0, 1, 65537)
    assert detect(model).group.order == 1


def test_int_wrapping_past_int_max_is_a_sparse_domain(tmp_path):
    """Spin wraps INT_MAX + 1 to INT_MIN: the domain is those two values (a sparse domain,
    tested by a set literal), and the assertion holds as in Spin."""
    from detect.transform.load import narrowed
    from frontends import promela

    text = "int x = 2147483647; active proctype A() { x++; assert(x < 0) }"
    model = narrowed(promela.parse_text)(text, "o.pml")
    assert model.variable("x").domain == (-2147483648, 2147483647)
    assert our_counts(text) == Counts(4, False)
    if spin_available():
        assert spin_counts(text, tmp_path) == Counts(4, False)


def test_doubling_through_a_channel_is_a_sparse_domain(tmp_path):
    """y = y*2+1 until it wraps to -1: 33 values spread over all of int, through a channel."""
    text = "chan c = [2] of {int};\nactive proctype P() {\n  int y;\n  do :: c!y; c?y; y = y*2+1 od\n}\n"
    assert our_counts(text) == Counts(99, False)
    if spin_available():
        assert spin_counts(text, tmp_path) == Counts(99, False)


def test_too_many_int_values_are_a_clear_error():
    """More than 2^22 values of one variable: refused, naming the variable."""
    from detect.errors import InputError
    from detect.transform.narrowing import POLICIES, narrow
    from frontends.promela import parse_text

    policy = dataclasses.replace(POLICIES["promela"], span_limit=50)
    with pytest.raises(InputError, match=r"variable 'x' holds \d+ values from 0 to \d+: domains of more than 50 values"):
        narrow(parse_text("int x; active proctype A() { do :: x < 100 -> x++ :: else -> break od }", "v.pml"),
               policy)


def test_factorials_are_a_sparse_domain(tmp_path):
    """Book_1991/p248.pml: init.result holds 12! = 479,001,600 (13 values in all)."""
    path = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "spin" / "Examples" / \
        "Book_1991" / "p248.pml"
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared corpus)")
    assert our_counts(path.read_text(), max_procs=16) == Counts(219, False)  # Spin 6.5.2: 219, no error


def test_unbounded_int_counter_is_refused_naming_it(monkeypatch):
    from detect.errors import InputError
    from detect.transform.narrowing import POLICIES, narrow
    from frontends.promela import parse_text

    policy = dataclasses.replace(POLICIES["promela"], provisional_states=1000)
    with pytest.raises(InputError, match="'x': the value analysis bounds no domain"):
        narrow(parse_text("int x; active proctype A() { do :: x++ od }", "u.pml"), policy)


# Found by tests/test_differential_spin.py.
FOUND = [
    # a rendezvous channel is never full: nfull(q) holds, full(q) does not (was: the reverse)
    ("chan q0 = [0] of { byte }; active proctype P1() { nfull(q0) -> skip }", 4, False),
    ("chan q0 = [0] of { byte }; active proctype P1() { full(q0) -> skip }", 1, True),
    ("byte g0, g1; chan q0 = [0] of { byte };\nproctype P1(byte k) { byte l0; l0 = k; if :: nfull(q0) -> q0?1 fi }\n"
     "init { atomic { run P1(2) } }", 4, True),
    # (c -> a : b) was a parser crash (a lark VisitError)
    ("byte g0, g1; active proctype A() { g1 = (g0 > 2 -> 1 : 2); g0 = 5; g1 = (g0 > 2 -> 7 : 2); "
     "assert(g1 == 7) }", 6, False),
]


@pytest.mark.parametrize("text,stored,error", FOUND)
def test_differential_findings(text, stored, error, tmp_path):
    check(text, stored, error, tmp_path)


def test_d_step_blocked_in_the_middle_is_an_error_for_both(tmp_path):
    """pan stops at a d_step that blocks after its first statement ("blocking sel in
    d_step", search not completed); we report the step as a fault.  Both say error; pan's
    count is partial, so only the verdict is compared."""
    text = "byte x; active proctype A() { d_step { x = 1; if :: x == 2 fi }; x = 3 } active proctype B() { x = 2; x = 4 }"
    assert our_counts(text).error
    if spin_available():
        spin = spin_counts(text, tmp_path)
        assert spin.error and not spin.complete


# Deliberate differences (README, Promela): pinned so that a change is noticed.
def test_deliberate_spin_goes_on_past_a_failed_assertion(tmp_path):
    """pan counts the states after a failed assertion (the statement completes); our
    faulting step has no successor.  Both report the error."""
    text = "byte x; active proctype A() { x = 1; assert(x == 0); x = 2; x = 3 }"
    assert our_counts(text) == Counts(2, True)
    if spin_available():
        assert spin_counts(text, tmp_path) == Counts(6, True)


def test_a_run_after_a_process_ended_reuses_its_pid(tmp_path):
    """Spin gives a process started after another one ended that one's pid (was: a fault,
    "pids differ from the load-time plan"): init's runs then take the lowest free pid at
    run time."""
    check("byte g0;\nproctype P0() { g0 = 1 }\nproctype P1() { g0 = 2 }\ninit { run P0(); run P1() }",
          18, False, tmp_path)


# ``_pid`` in a receive.  ``eval(_pid)`` matches the receiver's pid; a plain ``_pid`` argument
# stores into the process's _pid, as Spin's verifier does (pan masks _pid out of the states it
# stores; see tests/test_promela_read_like_spin.py).
RECV_INTO_PID = "chan c = [2] of { byte, byte };\nactive [2] proctype P() { c!0,1 - _pid; c?0,_pid; end: c?9,_ }\n"


def test_eval_pid_in_a_receive_matches_the_receivers_pid(tmp_path):
    # process 1's receive blocks on (0, 0): an invalid end state
    check("chan c = [2] of { byte, byte };\nactive [2] proctype P() { c!0,0; c?0,eval(_pid) }", 6, True, tmp_path)


def test_receive_into_pid_stores_as_spin_does(tmp_path):
    check(RECV_INTO_PID, 12, False, tmp_path)


def test_symmetric_rings_generators_verified():
    """A token ring addressed by ``_pid`` arithmetic has its rotations (order 3), verified;
    one that also sends pids as data gets only verified generators (today none: pid values
    in messages are not permuted)."""
    from detect.checking.verify import verify
    from detect.symmetry.pipeline import detect
    from detect.transform.load import narrowed
    from frontends import promela

    parse_text = narrowed(promela.parse_text)

    token = ("chan ring[3] = [1] of { byte };\nactive [3] proctype node() { byte tok;\n"
             "  ring[(_pid + 1) % 3]!1;\nend: do :: ring[_pid]?tok -> ring[(_pid + 1) % 3]!tok od }")
    announce = ("chan ring[3] = [1] of { byte, byte };\nactive [3] proctype node() { byte tok, who;\n"
                "  ring[(_pid + 1) % 3]!1,_pid;\nend: do :: ring[_pid]?tok,who -> if\n"
                "  :: who == _pid -> ring[(_pid + 1) % 3]!0,_pid; ring[_pid]?0,eval(_pid)\n"
                "  :: who != _pid -> ring[(_pid + 1) % 3]!tok,who fi od }")
    for text, order in ((token, 3), (announce, None)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = parse_text(text, "ring.pml")
        group = detect(model).group
        if order is not None:
            assert group.order == order
        report = verify(model, [g.permutation for g in group.generators])
        assert report.complete and all(v.ok for v in report.verdicts)


# Two-dimensional arrays as arrays of records with array fields (``row m[2]`` of
# ``typedef row { byte c[3] }``): one flat array ``m.c`` in row-major order.
BOARD = Path(__file__).parent.parent / "models" / "board_rows.pml"
MATRIX = [
    (BOARD.read_text(), 196, False),
    ("typedef row { byte c[2] };\nrow m[2];\nactive [2] proctype P() {\n  m[_pid].c[0] = 1;\n"
     "  m[1 - _pid].c[0] == 1;\n  m[_pid].c[1] = 2;\n  m[1 - _pid].c[1] == 2 || m[1 - _pid].c[1] == 0;\n"
     "  assert(m[_pid].c[1] == 2)\n}\n", 34, False),
]


@pytest.mark.parametrize("text,stored,error", MATRIX)
def test_arrays_of_records_with_array_fields(text, stored, error, tmp_path):
    check(text, stored, error, tmp_path)


def test_inner_index_out_of_range_faults_like_spin(tmp_path):
    """``m[0].c[2]`` with ``c[2]`` is out of range (Spin: an error), not ``m[1].c[0]``."""
    text = ("typedef row { byte c[2]; bit b };\nrow m[2];\nactive proctype P() { byte i, j;\n"
            "  do :: i < 2 -> j = 0; do :: j < 3 -> m[i].c[j] = i + j; j++ :: j == 3 -> break od; i++\n"
            "     :: i == 2 -> break od }\n")
    assert our_counts(text).error
    if spin_available():
        assert spin_counts(text, tmp_path).error


def test_array_field_of_a_record_array_needs_both_indices():
    from detect.errors import InputError
    from frontends.promela import parse_text
    with pytest.raises(InputError, match=r"m.pml:3:23: m.c needs two indices"):
        parse_text("typedef row { byte c[2] };\nrow m[2];\nactive proctype P() { m[0].c = 1 }\n", "m.pml")


# Channel operations inside d_step: each is one deterministic statement of the step; one
# that blocks after the first statement is an error (pan: "Search not completed").
ALLOCATOR = """#define N 2
chan req = [N] of { byte };
chan reply[N] = [1] of { byte };
chan release = [N] of { byte };
bool busy[2];
active proctype allocator() {
  byte who, r;
end:
  do
  :: d_step { req?who; if :: !busy[0] -> r = 0 :: else -> r = 1 fi; busy[r] = true; reply[who]!r }
  :: busy[0] && busy[1] -> skip
  :: d_step { release?r; busy[r] = false; r = 0 }
  od
}
active [N] proctype client() {
  byte mine, me = _pid - 1;
end:
  do
  :: d_step { req!me }; reply[me]?mine; release!mine
  od
}
"""
TOKEN_POOL = Path(__file__).parent.parent / "models" / "token_pool.pml"
DSTEP_CHANNELS = [
    # a reply on a channel chosen by a received value (several alternatives in one d_step)
    (ALLOCATOR, 1400, False),
    ("chan c = [1] of { byte };\nbyte n;\n"
     "active [2] proctype A() { byte x; d_step { c!_pid; n++ }; d_step { c?x; n-- } }\n", 12, False),
    (TOKEN_POOL.read_text(), 27, False),
]


@pytest.mark.parametrize("text,stored,error", DSTEP_CHANNELS)
def test_channel_operations_inside_d_step(text, stored, error, tmp_path):
    check(text, stored, error, tmp_path)


def test_a_receive_blocking_inside_d_step_is_an_error(tmp_path):
    text = "chan c = [1] of { byte };\nactive proctype A() { byte x; d_step { x = 1; c?x } }\n"
    assert our_counts(text) == Counts(1, True)
    if spin_available():
        assert spin_counts(text, tmp_path).error


def test_rendezvous_inside_d_step_is_a_located_error():
    from detect.errors import InputError
    from frontends.promela import parse_text
    with pytest.raises(InputError, match=r"rv.pml:2:47: unsupported construct: a rendezvous inside d_step"):
        parse_text("chan r = [0] of { byte };\nactive proctype A() { byte x; d_step { x = 1; r!x } }\n"
                   "active proctype B() { byte y; r?y }\n", "rv.pml")


def test_token_pool_clients_are_symmetric_and_verified():
    """Three clients taking and returning tokens in d_steps: S3, every generator verified."""
    from detect.checking.verify import verify
    from detect.symmetry.pipeline import detect
    from detect.transform.load import narrowed
    from frontends import promela

    model = narrowed(promela.parse_text)(TOKEN_POOL.read_text(), "token_pool.pml")
    group = detect(model).group
    assert group.order == 6
    report = verify(model, [g.permutation for g in group.generators])
    assert report.complete and all(v.ok for v in report.verdicts)


# Nested counted loops over int counters in a d_step (Spin's life.pml counts a cell's
# neighbours so): the value analysis joined the rounds at each loop head and let the
# counter climb for all 256 rounds of each loop; it did not finish.
NEIGHBOURS = """byte a[9];
active proctype P() {
  int cnt, i, j;
  a[4] = 1; a[5] = 1;
  do
  :: d_step {
       cnt = 0; i = -1;
       do
       :: i <= 1 -> j = -1;
          do
          :: j <= 1 -> if :: a[(i+1)*3 + j+1] -> cnt++ :: else fi; j++
          :: else -> break
          od;
          i++
       :: else -> break
       od;
       a[cnt % 9] = 1 - a[cnt % 9]
     }
  od
}
"""


def test_nested_counted_loops_in_a_d_step(tmp_path):
    check(NEIGHBOURS, 30, False, tmp_path)


@pytest.mark.parametrize("size,stored", [(2, 179), (3, 6288)])
def test_spins_game_of_life(size, stored, tmp_path):
    """Spin's ``Examples/life.pml`` with ``MAX`` edited (pan: 179 and 6,288 states, an
    invalid end state: a cell still waiting for ``moveall == 0`` when init resets it blocks
    for good, and the others then cannot bring ``moveall`` back to 0)."""
    import re

    path = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "spin" / "Examples" / "life.pml"
    if not path.exists():
        pytest.skip(f"Spin's examples not available at {path}")
    text = re.sub(r"^#define\s+MAX\b.*$", f"#define MAX {size}", path.read_text(), flags=re.M)
    check(text, stored, True, tmp_path)


# Channels carried in mtype and byte message fields beside data values that are channel
# numbers too (Spin's LTL/mobile1.pml): the protocol decides which message is a channel,
# and a data value received where a channel is expected names the channel of that number.
CHANNELS_IN_FIELDS = [
    # the handoff: after ``hand`` comes a channel, after ``data`` an mtype (ack = 1 is the
    # number of ``up`` itself)
    ("""mtype = { data, hand, ack };
chan up = [0] of { mtype };
chan c1 = [1] of { mtype };
chan c2 = [1] of { mtype };
active proctype Ctl() {
  byte n;
  do
  :: n < 3 -> n++; up!data; up!ack
  :: n < 3 -> n++; up!hand; if :: up!c1 :: up!c2 fi
  :: n >= 3 -> break
  od
}
active proctype Mob() {
  chan cur; mtype v;
end: do
  :: up?data -> up?v; assert(v == ack)
  :: up?hand -> up?cur; cur!ack; cur?v
  od
}
""", 129, False),
    # a channel in the second byte field of a buffered message, a tag in the first
    ("""chan up = [1] of { byte, byte };
chan c1 = [0] of { byte };
chan c2 = [2] of { byte };
active proctype Ctl() {
  byte n;
  do
  :: n < 3 -> n++; up!1,2
  :: n < 3 -> n++; if :: up!0,c1 :: up!0,c2 fi
  :: c1?n
  :: n >= 3 -> break
  od
}
active proctype Mob() {
  chan cur; byte v, w;
end: do
  :: up?1,v -> assert(v == 2)
  :: up?0,cur -> if :: nfull(cur) -> cur!v; v++ :: empty(cur) -> skip :: cur?w fi
  od
}
""", 3908, True),
    # an mtype value received into a chan variable: hand = 2 names c1
    ("""mtype = { data, hand, ack };
chan up = [0] of { mtype };
chan c1 = [1] of { mtype };
active proctype Ctl() {
  up!hand; up!hand
}
active proctype Mob() {
  chan cur; mtype v;
  up?hand; up?cur; cur!ack; c1?v; assert(v == ack)
}
""", 8, False),
]


@pytest.mark.parametrize("text,stored,error", CHANNELS_IN_FIELDS)
def test_channels_carried_in_mtype_and_byte_fields(text, stored, error, tmp_path):
    check(text, stored, error, tmp_path)
