"""Spin's queue operations beyond FIFO (issue 28): sorted send ``c!!m``, random receive
``c??m``, the copies ``c?<m>``/``c??<m>`` and the random poll ``c??[m]``, each pinned by a
minimal model and Spin 6.5.2's numbers ("states, stored" and whether pan reports errors,
as ``spin_oracle`` runs it).  When Spin is installed each test re-runs it too, so a wrong
pinned number fails.

What pan 6.5.2's generated code does (read in the ``pan.c``/``pan.m`` Spin writes):

* ``c??args``: ``Q_has`` scans the queue from the head for the FIRST message whose fields
  equal every constant and ``eval()`` argument (variables and ``_`` match anything); that
  message is read and removed (``qrecv`` with ``done`` at its slot), the ones behind it move
  up.  ``c??<args>`` reads it and leaves it; ``c??[args]`` is ``Q_has`` alone.
* ``c!!args``: ``qsend`` with ``sorted`` inserts before the first message in the queue that
  is greater, comparing field by field the values as computed (an ``int``, before they are
  truncated to the field) with the stored ones; an equal message does not stop the scan.
* on a rendezvous channel ``!!`` is ``!`` and ``??`` is ``?``; ``?<>`` and ``??<>`` are
  pan's error "polling rv chan" each time it tries them (then they block).
"""
from __future__ import annotations

import pytest

from detect.errors import InputError
from frontends.promela import parse_text
from tests.promela_gen import queued
from tests.spin_oracle import check_pinned as check
from tests.spin_oracle import (Counts, SpinRefused, compare, our_counts, reduced_error, spin_available,
                               spin_counts)


CASES = {
    # the first matching message anywhere in the queue; eval() and constants match,
    # variables take the fields; ??<> leaves it, ??[ ] only tests
    "first match, copies and polls": ("""chan c = [4] of { byte, byte };
byte x, y;
active proctype A() { c!1,1; c!2,1; c!1,2; c!2,2; c??1,x; assert(x == 1 && len(c) == 3); c??<_,eval(x)>;
  c??x,2; assert(x == 1); if :: c??[1,_] -> assert(false) :: else fi; c?x,y; assert(x == 2 && y == 1) }""",
                                      14, False),
    # sorted: before the first greater message, so after the unsorted 3 in [3, 1] comes
    # nothing: 2 goes before 3
    "sorted send into an unsorted queue": ("""chan c = [3] of { byte };
byte x;
active proctype A() { c!3; c!1; c!!2; c?x; assert(x == 2); c?x; assert(x == 3); c?x; assert(x == 1) }""",
                                           11, False),
    # lexicographic over the fields
    "sorted send compares field by field": ("""chan c = [3] of { byte, byte };
byte x, y;
active proctype A() { c!!2,5; c!!1,7; c!!2,3; c?x,y; assert(x == 1 && y == 7); c?x,y; assert(x == 2 && y == 3);
  c?x,y; assert(y == 5) }""", 11, False),
    # the value as computed is compared: 256 goes behind 1 (then stored as 0), -1 before it
    "sorted send compares values before truncation": ("""chan c = [3] of { byte };
byte x;
active proctype A() { c!1; c!!256; c!!-1; c?x; assert(x == 255); c?x; assert(x == 1); c?x; assert(x == 0) }""",
                                                     11, False),
    "mixed sorted and random": ("""chan c = [3] of { byte, byte };
byte x, y;
active proctype A() {
  c!!3,1; c!!1,2; c!!2,0; c??1,x; c!!1,1;
  c??<eval(x),y>; assert(y == 0); c??[2,_] -> c?<x,y>; assert(x == 1 && y == 1);
  c??x,0; assert(x == 2); c??3,y; c?x,y
}""", 16, False),
    "eval of an expression, polls": ("""chan c = [4] of { byte, byte };
byte x, y;
active proctype A() {
  c!3,1; c!1,2; c!!2,0; c!!2,0;
  c??eval(x+2),y; assert(y == 0); c??[2,0]; c??2,0; c?x,y; assert(x == 3 && y == 1);
  c?x,y; assert(x == 1 && y == 2); if :: c??[_,_] -> assert(false) :: empty(c) fi
}""", 15, False),
    # wrapping values kept in sorted order
    "sorted send of wrapping values": ("""chan c = [3] of { byte };
byte x = 254;
active proctype A() { do :: c!!x; x++ :: c??x :: c?x od }""", 2054, False),
    # two processes, polls, len/full/empty/nempty beside them
    "polls and channel functions": ("""chan c = [2] of { byte };
byte n;
active proctype A() { do :: n < 3 -> n++ :: c!!n :: c??[eval(n)] -> c??eval(n) :: c??<n> :: empty(c) && n > 2 -> break od }
active proctype B() { do :: full(c) -> c??_ :: nempty(c) -> c?<_> od }""", 334, True),
    # a chan variable naming buffered channels, an array of channels, d_step, a rendezvous
    "chan variables, d_step, rendezvous": ("""chan a = [2] of { byte }; chan b = [0] of { byte };
chan q[2] = [2] of { byte };
byte x, i;
active proctype A() { chan v = a;
  do :: v = a :: v = q[i] :: i < 1 -> i++ :: v!!x :: x < 2 -> x++ :: v??eval(x) :: v??<x> :: v??[1] -> x = 0
     :: q[i]??<eval(x)> :: q[i]!!x :: d_step { q[i]??[1] -> q[i]??1; x = 2 } :: b!!x
     :: a??[1] -> break :: else -> skip od }
active proctype B() { do :: b??x :: b??eval(x) od }""", 23978, True),
    # records are spelled out field by field, then sorted and matched as any message
    "records": ("""typedef R { byte a; byte b };
chan c = [3] of { R };
R r, s;
active proctype A() { r.a = 2; r.b = 1; c!!r; r.a = 1; r.b = 5; c!!r; r.a = 2; r.b = 0; c!!r;
  c??<s>; assert(s.a == 1 && s.b == 5); c??2,0; c??r; assert(r.a == 1); c?s; assert(s.a == 2 && s.b == 1) }""",
                18, False),
    # rendezvous: !! is !, ?? is ?
    "rendezvous: !! and ?? are ! and ?": ("""chan c = [0] of { byte };
byte x;
active proctype A() { c!!2; c!!1 }
active proctype B() { c??2; c??x; assert(x == 1) }""", 6, False),
    # rendezvous: ?<> is pan's error each time it is tried, and blocks
    "rendezvous: ?<> is pan's polling error": ("""chan c = [0] of { byte };
byte x;
active proctype A() { c!1; x = 5 }
active proctype B() { c?<x>; x = 7 }""", 1, True),
    "rendezvous: ??<> beside else": ("""chan c = [0] of { byte };
chan d = [1] of { byte };
byte x;
active proctype A() { do :: x < 3 -> x++ :: c!1 :: break od }
active proctype B() { x == 2; if :: c??<x> :: else -> d!1 fi; c??x }""", 45, True),
    # a trace sees the TAIL after a sorted send and the HEAD at a random receive (pan's
    # ``require``), not the message sent or taken
    "trace follows the tail and the head": ("""chan c = [3] of { byte };
active proctype A() { c!!2; c!!1; c!!3; c??1; c??2; c?3 }
trace { c!2; c!2; c!3; c?1; c?2; c?3 }""", 8, False),
}


@pytest.mark.parametrize("name", list(CASES))
def test_queue_operations_agree_with_spin(name, tmp_path):
    text, stored, error = CASES[name]
    check(text, stored, error, tmp_path)


ERRORS = {
    # pan goes on past these errors, we stop at them: the verdicts agree
    "random receive with too few arguments": "chan c = [2] of { byte, byte };\n"
                                             "active proctype A() { c!1,2; c!2,3; c??2 }",
    "sorted send with too few values": "chan c = [2] of { byte, byte };\nactive proctype A() { c!3,3; c!!2 }",
    "a trace that the tail does not follow": "chan c = [3] of { byte };\n"
                                             "active proctype A() { c!!2; c!!1; c!!3; c??2; c??1; c?3 }\n"
                                             "trace { c!2; c!1; c!3; c?2; c?1; c?3 }",
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_pan_goes_on_past_are_errors(name, tmp_path):
    text = ERRORS[name]
    assert our_counts(text).error
    if spin_available():
        assert spin_counts(text, tmp_path).error


@pytest.mark.parametrize("text", [
    "chan c = [1] of { byte, byte }; byte x;\nactive proctype A() { c??x,x }",
    "chan c = [0] of { byte, byte }; byte x;\nactive proctype A() { atomic { c?<x,x> } }",
])
def test_one_variable_twice_is_refused_as_spin_refuses_it(text, tmp_path):
    with pytest.raises(InputError) as e:
        parse_text(text, "bad.pml")
    assert "cannot use var ('x') in multiple msg fields" in e.value.message and e.value.line == 2
    if spin_available():
        with pytest.raises(SpinRefused, match="multiple msg fields"):
            spin_counts(text, tmp_path)


def test_one_variable_twice_inside_d_step_is_accepted(tmp_path):
    """Spin checks no receive inside a ``d_step``: the fields are stored in order."""
    check("chan c = [1] of { byte, byte }; byte x;\n"
          "active proctype A() { c!1,2; d_step { c??[x,x] -> c??x,x }; assert(x == 2) }", 5, False, tmp_path)


def test_pan_undo_of_eval_and_store_of_one_variable(tmp_path):
    """pan 6.5.2's bug, pinned: the undo of ``c?eval(g),g`` (``?`` and ``??`` alike, pan.b's
    ``unrecv``) puts the message back with ``g``'s NEW value in the eval field, so after
    backtracking pan searches from a queue holding [255,255] where it held [0,255], and
    finds P0 stuck on a message that matches (an invalid end state that is none).  Ours:
    24 states, no error; pan: 25 (``?``) or 27 (``??``), error."""
    for op, spin_stored in (("?", 25), ("??", 27)):
        text = ("chan q0 = [3] of { byte, byte };\nbyte g0, g1;\n"
                f"active proctype P0() {{ len(q0) > 0 -> q0{op}eval(g1),g1 }}\n"
                "active proctype P1() { byte c1; do :: c1 < 2 -> q0!!g0,255; c1++ :: else -> break od }")
        assert our_counts(text) == Counts(24, False)
        if spin_available():
            assert spin_counts(text, tmp_path) == Counts(spin_stored, True)


def test_symmetric_model_keeps_its_group_and_verifies():
    """Three copies of a process sorting and picking messages by value (no pids in them):
    S_3 is found, each generator verified on the reachable states, and the reduced
    exploration finds Spin's verdict."""
    from detect.checking.verify import verify
    from detect.symmetry.pipeline import detect
    from detect.transform.narrowing import narrow

    text = ("chan c = [2] of { byte, byte };\n"
            "active [3] proctype P() { byte v; do :: v < 1 -> v++ :: c!!v,len(c) :: c??eval(v),_ :: c??<v,_> "
            ":: c??[eval(v),1] -> v = 0 :: nempty(c) && nfull(c) -> c?<_,v> od }")
    model = narrow(parse_text(text, "sym.pml"))
    group = detect(model).group
    assert group.order == 6
    report = verify(model, [g.permutation for g in group.generators])
    assert report.complete and all(v.ok for v in report.verdicts)
    error, stored, notes = reduced_error(text, "exact", "sym.pml")
    assert not error and stored < 3864 and not any("not a symmetry" in n for n in notes)


def test_pids_in_sorted_messages_break_the_symmetry():
    """Sorting by ``_pid`` orders the processes (``<`` on pids): no permutation of them is a
    symmetry, and detection finds none; the random receive of one's own pid keeps the swap
    of the processes whose pids are not 0 (the vacant slots hold 0)."""
    from detect.checking.verify import verify
    from detect.symmetry.pipeline import detect
    from detect.transform.narrowing import narrow

    sorted_ = ("chan c = [3] of { byte, byte };\n"
               "active [3] proctype P() { byte v; do :: v < 2 -> v++ :: c!!_pid,v :: c??eval(_pid),v od }")
    assert detect(narrow(parse_text(sorted_, "s.pml"))).group.order == 1
    fifo = sorted_.replace("c!!", "c!")
    model = narrow(parse_text(fifo, "f.pml"))
    group = detect(model).group
    assert group.order == 2
    report = verify(model, [g.permutation for g in group.generators])
    assert report.complete and all(v.ok for v in report.verdicts)


@pytest.mark.parametrize("seed", [0, 3, 12, 21])
def test_random_queue_models_agree_with_spin(seed, tmp_path):
    if not spin_available():
        pytest.skip("spin or gcc not installed (apt-get install spin)")
    text = queued(seed)
    assert compare(text, tmp_path) is None, text
