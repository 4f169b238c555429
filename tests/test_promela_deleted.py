"""Channels pan deletes with their process (issue 28): a local channel -- plain, or a
record's ``chan`` field -- of a process that ended and was removed, read through a ``chan``
variable that still holds its number.

pan's ``delq`` zeroes the queue's bytes and lowers ``_nr_qs``; the number is free for the
next channel created.  What each operation then does is what pan's generated code does
with a zeroed queue (Spin 6.5.2's pan.c): ``q_len`` reads length 0 (``len``, ``empty``,
``nempty``, a poll or receive of a model declaring buffered channels only, which tests
``q_len`` first: false, blocked); ``q_full`` (``full``, ``nfull``, a send), ``q_zero`` (a
poll or receive where a rendezvous channel is declared: ``not_RV``) and ``Q_has`` (a random
poll matching a value, ``c??[3]``) stop at "bad queue"; a rendezvous-only model's receive
tests ``boq != c`` first and blocks, and its ``c?<m>`` is "polling rv chan" whatever ``c``
holds.  The same for a process created by ``run`` at run time (``Channel.alive``: its
channels' numbers vary) and for one that exists from the start (``Channel.removed_with``).

Each model is pinned with Spin's "states, stored" and verdict (None: pan stops at its
fatal error, "search not completed", so only the verdict is compared), and rerun with
Spin where it is installed (``check_pinned``).
"""
from __future__ import annotations

import pytest

from tests.spin_oracle import check_pinned

#: a process created by ``run`` at run time (not by init's deterministic prefix) sends its
#: local channel, holding one message, and ends; the reader waits until it is removed
_RUN = """chan g2 = [1] of {{ chan }};{decl}
proctype P2() {{ chan own = [{cap}] of {{ byte }}; {send} g2!own }}
active proctype A() {{ chan x; byte m; run P2(); g2?x; (_nr_pr == 1); if :: {op} -> m = 1 :: timeout -> m = 2 fi }}
"""


def _run(op: str, decl: str = "", cap: int = 1, g2: int = 1) -> str:
    text = _RUN.format(decl=decl, cap=cap, send="own!3;" if cap else "", op=op)
    return text.replace("chan g2 = [1]", f"chan g2 = [{g2}]")


_BOTH = " chan rg = [0] of { byte };"

PINNED = {
    # (a) a channel of a process created by run: read as pan reads a zeroed queue
    "run: len reads 0": (_run("len(x) == 0"), 11, False),
    "run: empty": (_run("empty(x)"), 11, False),
    "run: nempty is false": (_run("nempty(x)"), 11, False),
    "run: poll, buffered only": (_run("x?[3]"), 11, False),
    "run: poll into a variable, buffered only": (_run("x?[m]"), 11, False),
    "run: receive, buffered only": (_run("x?m"), 11, False),
    "run: copy receive, buffered only": (_run("x?<m>"), 11, False),
    "run: random receive, buffered only": (_run("x??m"), 11, False),
    "run: random poll of a value, buffered only (Q_has)": (_run("x??[3]"), None, True),
    "run: random poll of a variable, buffered only (q_len)": (_run("x??[m]"), 11, False),
    "run: full": (_run("full(x)"), None, True),
    "run: nfull": (_run("nfull(x)"), None, True),
    "run: send": (_run("x!1"), None, True),
    "run: len, both kinds declared": (_run("len(x) == 0", _BOTH), 11, False),
    "run: receive, both kinds declared (q_zero)": (_run("x?m", _BOTH), None, True),
    "run: poll, both kinds declared (not_RV)": (_run("x?[3]", _BOTH), None, True),
    "run: len of a rendezvous channel, rendezvous only": (_run("len(x) == 0", cap=0, g2=0), 8, False),
    "run: receive, rendezvous only (boq)": (_run("x?m", cap=0, g2=0), 8, False),
    "run: copy receive, rendezvous only (polling rv chan)": (_run("x?<m>", cap=0, g2=0), 8, True),
    "run: send, rendezvous only": (_run("x!1", cap=0, g2=0), None, True),
    # the deleted number taken by the channel of a later run: the variable names that one
    "run: the number taken by a later run's channel": ("""chan g2 = [1] of { chan };
proctype P2() { chan own = [1] of { byte }; own!3; g2!own }
proctype Q() { chan mine = [1] of { byte }; byte k; mine?k; assert(k == 7) }
active proctype A() { chan x; byte m; run P2(); g2?x; (_nr_pr == 1); assert(len(x) == 0); run Q(); x!7 }
""", 15, False),
    # a process that exists from the start: a random poll of a value is Q_has's error
    "active: random poll of a value, buffered only (Q_has)": ("""chan g2 = [1] of { chan };
active proctype A() { chan x; byte m; g2?x; (_nr_pr == 1); if :: x??[3] -> m = 1 :: timeout -> m = 2 fi }
active proctype P2() { chan own = [1] of { byte }; own!3; g2!own }
""", None, True),
    # (b) a record's channel field, local to a process that ends: deleted with it
    "record, active: full": ("""typedef R { byte k; chan c = [1] of { byte } };
chan g2 = [1] of { chan };
active proctype A() { chan x; byte m; g2?x; (_nr_pr == 1); if :: full(x) -> m = 1 :: timeout -> m = 2 fi }
active proctype P2() { R rr; rr.c!3; g2!rr.c }
""", None, True),
    "record, active: send": ("""typedef R { byte k; chan c = [1] of { byte } };
chan g2 = [1] of { chan };
active proctype A() { chan x; byte m; g2?x; (_nr_pr == 1); if :: x!1 -> m = 1 :: timeout -> m = 2 fi }
active proctype P2() { R rr; rr.c!3; g2!rr.c }
""", None, True),
    "record, active: len reads 0": ("""typedef R { byte k; chan c = [1] of { byte } };
chan g2 = [1] of { chan };
active proctype A() { chan x; byte m; g2?x; (_nr_pr == 1); if :: len(x) == 0 -> m = 1 :: timeout -> m = 2 fi }
active proctype P2() { R rr; rr.c!3; g2!rr.c }
""", 10, False),
    "record, run: len reads 0": ("""typedef R { byte k; chan c = [1] of { byte } };
chan g2 = [1] of { chan };
proctype P2() { R rr; rr.c!3; g2!rr.c }
active proctype A() { chan x; byte m; run P2(); g2?x; (_nr_pr == 1); if :: len(x) == 0 -> m = 1 :: timeout -> m = 2 fi }
""", 11, False),
    "record, run: full": ("""typedef R { byte k; chan c = [1] of { byte } };
chan g2 = [1] of { chan };
proctype P2() { R rr; rr.c!3; g2!rr.c }
active proctype A() { chan x; byte m; run P2(); g2?x; (_nr_pr == 1); if :: full(x) -> m = 1 :: timeout -> m = 2 fi }
""", None, True),
}


@pytest.mark.parametrize("name", PINNED)
def test_deleted_channel_pinned_against_spin(name, tmp_path):
    text, stored, error = PINNED[name]
    check_pinned(text, stored, error, tmp_path)


def test_a_live_channel_of_a_process_run_at_run_time_is_read_as_it_is(tmp_path):
    """Read before its process is removed (the message there) and after (deleted: 0)."""
    text = """chan g2 = [1] of { chan };
proctype P2() { chan own = [1] of { byte }; own!3; g2!own }
active proctype A() { chan x; byte m; run P2(); g2?x; if :: len(x) == 1 -> m = 1 :: len(x) == 0 -> m = 2 fi;
  (_nr_pr == 1); assert(len(x) == 0 && empty(x)) }
"""
    check_pinned(text, LIVE_THEN_DELETED, False, tmp_path)


#: Spin 6.5.2: 18 states, no error
LIVE_THEN_DELETED = 18


def test_deleted_generator_covers_the_operations():
    """``promela_gen.deleted`` is deterministic and reads channels of removed ``Own``
    processes with every kind of operation, in the three kinds of model."""
    from tests.promela_gen import deleted

    texts = [deleted(seed) for seed in range(40)]
    assert texts == [deleted(seed) for seed in range(40)]
    joined = "\n".join(texts)
    for construct in ("len(x) == 0", "empty(x)", "nempty(x)", "full(x)", "x?[", "x??[", "x?<v>", "x??v", "x!g0",
                      "(_nr_pr == 1)", "run Own(0)", "hub!rr.c", "hub = [0]", "chan rg = [0]", "Rd2", "init {"):
        assert construct in joined, construct


#: seeds whose Spin counts are complete, with and without an error
GENERATED = [11, 19, 25, 30, 34]


@pytest.mark.parametrize("seed", GENERATED)
def test_deleted_generator_agrees_with_spin(seed, tmp_path):
    from tests.promela_gen import deleted
    from tests.test_differential_spin import _differ

    text = deleted(seed)
    assert _differ(text, tmp_path) is None, text
