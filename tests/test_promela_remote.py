"""Remote variable references ``P[pid]:v`` and ``P:v`` (issues 28 and 30), read as pan 6.5.2
reads them: ``((P *)Pptr(BASE+pid))->v``, the bytes of the process with that pid (0 where
no process has it: pan's zeroed ``noptr``, and a removed process's bytes are zeroed), and
``f_pid`` for ``P:v`` (the running P of lowest pid).  Each model is pinned with Spin 6.5.2's
numbers (``spin_oracle``: "states, stored" and whether pan reports errors; where an
assertion fails, the counts with assertions made true); with Spin installed each test
re-runs it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from detect.errors import InputError
from frontends.promela import parse_text
from tests.promela_gen import remote_ltl
from tests.spin_oracle import (SpinRefused, compare, neutralise_asserts, our_counts, our_ltl,
                               spin_available, spin_counts, spin_ltl)

ROOT = Path(__file__).resolve().parent.parent
needs_spin = pytest.mark.skipif(not spin_available(), reason="spin or gcc not installed")

#: (model, pan reports an error, Spin's states stored with assertions made true)
COUNTS = {
    # constant pids; pids 3 and 7 are nobody's: 0
    "constant pids": ("active [2] proctype P() { byte x = _pid + 5; x++; x++ }\n"
                      "active proctype Q() { byte y; y = P[1]:x; y = P[7]:x; assert(P[3]:x == 0) }", False, 58),
    # a process that has ended and been removed reads 0 (pan zeroes its bytes)
    "removed reads 0": ("proctype P() { byte x = 7; x = 8 }\n"
                        "active proctype Q() { run P(); timeout -> assert(P[1]:x == 0) }", False, 7),
    "removed is not 8": ("proctype P() { byte x = 7; x = 8 }\n"
                         "active proctype Q() { run P(); timeout -> assert(P[1]:x == 8) }", True, 7),
    # P:x is pan's f_pid: the running P of lowest pid, as processes come and go
    "f_pid": ("byte g;\nproctype P(byte a) { byte x = a + 10; x++ }\n"
              "active proctype Q() { byte k; do :: k < 3 -> run P(k); k++ :: else -> break od; g = P:x; "
              "assert(g != 11) }", True, 212),
    # a pid computed at run time, over processes created at run time
    "run-time pid": ("proctype P(byte a) { byte x = a; x = x + 2 }\n"
                     "init { byte i; run P(1); run P(5); do :: i < 2 -> i++ :: i == 2 -> break od; "
                     "assert(P[1 + i % 2]:x != 7) }", True, 68),
    # an element, its index the reader's
    "array element": ("byte g;\nactive [2] proctype P() { byte a[3]; a[_pid] = 4; a[2] = _pid + 1 }\n"
                      "active proctype Q() { byte i; do :: i < 2 -> g = P[i % 2]:a[i] + P[1]:a[2]; i++ "
                      ":: else -> break od }", False, 162),
    # in a never claim, beside f_pid
    "never claim": ("active [2] proctype P() { byte x; do :: x < 3 -> x++ :: x == 3 -> break od }\n"
                    "never { do :: P:x + P[1]:x == 5 -> break :: else od }", True, 75),
}


@pytest.mark.parametrize("name", COUNTS)
def test_remote_variables_count_as_spin(name, tmp_path):
    text, error, stored = COUNTS[name]
    assert our_counts(text).error is error
    if stored is not None:
        assert our_counts(neutralise_asserts(text)).stored == stored
    if spin_available():  # Spin's verdict and count (with assertions made true) are ours, so the pinned ones
        assert compare(text, tmp_path, reduce="pids") is None


#: Spin 6.5.2 refuses these too (its messages in the comments)
SPIN_REFUSES = [
    # "undeclared variable: P": Spin's lexer knows a proctype's name once it is declared
    ("active proctype Q() { byte y;\n y = P[0]:x }\nactive proctype P() { byte x }", "undeclared variable: P", 2),
    # "syntax error saw 'operator: ='": a remote variable is read only
    ("active proctype P() { byte x }\nactive proctype Q() {\n P[0]:x = 3 }", "unexpected '='", 3),
    # "syntax error saw '.'": no record fields
    ("typedef R { byte f };\nactive proctype P() { R r }\nactive proctype Q() { byte y;\n y = P[0]:r.f }",
     "unexpected '.'", 4),
    # "syntax error saw 'keyword: init'"
    ("init { byte z }\nactive proctype Q() { byte y;\n y = init[0]:z }", "remote variable reference to init", 3),
]


@pytest.mark.parametrize("text,message,line", SPIN_REFUSES)
def test_what_spin_refuses_is_one_located_line(text, message, line, tmp_path):
    with pytest.raises(InputError) as e:
        parse_text(text, "m.pml")
    assert message in e.value.message and e.value.line == line
    if spin_available():
        with pytest.raises(SpinRefused):
            spin_counts(text, tmp_path)


#: Spin accepts these, but pan reads another proctype's bytes as P's: refused by name
GARBAGE = [
    # pid 0 is a P: Q's z read from P's bytes (pan: 40 states, no error, a meaningless value)
    ("active [2] proctype P() { byte x = _pid + 5; x++ }\nactive proctype Q() { byte z = 9; byte y;\n"
     " y = Q[0]:z }", "pid 0 is (or may be) a process of P"),
    # a run-time pid that may name init
    ("proctype P() { byte x }\ninit { byte i; run P(); run P();\n i = P[i]:x }", "may be) a process of init"),
    # pid 2 sits above Watch or, once Watch is gone, a W: where it is not running, pan's stale
    # offset for it may point into a live process
    ("proctype W() { byte l }\ninit { run W(); run W();\n assert(W[2]:l == 0) }\nactive proctype Watch() { skip }",
     "depends on which proctype has pid 1"),
    # the pid analysis (frontends/promela/pids.py) knows pid 2 is only ever P's, but P's
    # place in pan's state vector still follows whether A or B holds pid 1
    ("proctype A() { byte a }\nproctype B() { byte b[4] }\nproctype P() { byte x }\n"
     "init { if :: run A() :: run B() fi; run P();\n assert(P[2]:x == 0) }", "depends on which proctype has pid 1"),
    # where a run may put A or B at pid 2 (after P ended), pid 2 may be theirs
    ("proctype A() { byte a }\nproctype B() { byte b[4] }\nproctype P() { byte x }\n"
     "init { run P(); if :: run A() :: run B() fi; run P();\n assert(P[2]:x == 0) }", "may be) a process of A, B"),
    ("active proctype P() { chan c = [1] of { byte }; c!1 }\nactive proctype Q() { byte y;\n y = P[0]:c }",
     "c is a channel of P"),
    ("active proctype P() { byte a[2] }\nactive proctype Q() { byte y;\n y = P[0]:a }", "an array: give an index"),
    ("active proctype P() { byte a[2] }\nactive proctype Q() { byte y;\n y = P[0]:b }", "b is no variable of P"),
]


@pytest.mark.parametrize("text,message", GARBAGE)
def test_reads_of_another_proctype_are_refused_by_name(text, message):
    with pytest.raises(InputError) as e:
        parse_text(text, "m.pml")
    assert message in e.value.message and e.value.line == text.count("\n", 0, text.index("\n ")) + 2


def test_a_label_is_still_a_label():
    """``L: x = 1`` where no proctype is called L, and a remote reference's proctype named as
    a label before its declaration: labels, as Spin reads them."""
    model = parse_text("byte x;\nactive proctype A() { byte z; Q: x = 1; z = 1; goto Q }\n"
                       "active proctype P() { byte y; A[0]:z == 1 -> y = 2 }", "m.pml")
    assert model.summands


def test_remote_variables_observe_anonymous_workers():
    """Workers that nobody could tell apart are anonymous for ``--reduce pids``; a remote read
    of one of their variables tells their pids apart (as ``W[k]@L`` does)."""
    from detect.checking.pids import anonymous_pids
    from detect.transform.narrowing import narrow

    body = ("proctype W() { byte l; do :: l < 2 -> l++ :: l == 2 -> l = 0 od }\n"
            "init { byte g; if :: g = 0 :: g = 1 fi; run W(); run W();\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert anonymous_pids(narrow(parse_text(body + " skip }", "m.pml"))) is not None
        assert anonymous_pids(narrow(parse_text(body + " W[1]:l == 2 -> skip }", "m.pml"))) is None


# ---------------------------------------------------------------------- LTL (issue 30)
TOKENS = """byte tok = 1;
active [3] proctype P() {
  byte x;
  do
  :: atomic { tok > 0 -> tok--; x++ }
  :: x > 0 -> atomic { x--; tok++ }
  od
}
ltl one { [] (P[1]:x == 0) }
ltl sum { [] (P[0]:x + P[1]:x + P[2]:x <= 1) }
ltl first { [] (P:x <= 1) }
ltl two { [] <> (P[1]:x == 1 || P[2]:x == 1) }
"""


def cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SYMDETECT_MODEL_CACHE="off")
    return subprocess.run([sys.executable, "-m", "detect.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)


@needs_spin
@pytest.mark.parametrize("name,order,violated,kept", [
    ("one", 2, True, "P[0]↔P[2]"),  # names P[1]: only the swap of the others
    ("sum", 6, False, None),  # symmetric in the three
    pytest.param("first", 2, False, "P[1]↔P[2]", marks=pytest.mark.slow),  # P:x is P[0]'s (all run from the start)
    pytest.param("two", 2, True, "P[1]↔P[2]", marks=pytest.mark.slow),  # no fairness: P[0] may keep the token
])
def test_remote_variables_in_ltl_restrict_the_group(name, order, violated, kept, tmp_path):
    """A formula reading P[1]:x keeps only the symmetries that fix P[1]; its verdict is pan's
    (pan -a), unreduced and reduced by that subgroup, and the group is verified."""
    path = tmp_path / "tokens.pml"
    path.write_text(TOKENS)
    r = cli("explore", str(path), "--ltl", name, "--reduce", "exact", "--json")
    report = json.loads(r.stdout)
    assert report["group_order"] == order, r.stdout
    assert r.returncode == (1 if violated else 0), r.stdout + r.stderr
    if kept is not None:
        assert kept in report["ltl symmetry"].split("reduction uses")[1]
    assert spin_ltl(TOKENS, tmp_path, name) is violated
    assert our_ltl(TOKENS, name) is violated and our_ltl(TOKENS, name, "exact") is violated
    v = cli("analyze", str(path), "--ltl", name, "--verify")
    assert "every generator verified" in v.stdout, v.stdout + v.stderr


@needs_spin
@pytest.mark.parametrize("seed", [pytest.param(0, marks=pytest.mark.slow), 2, 3, 5, 6, 7])
def test_random_remote_pairs_agree_with_pan(seed):
    """``promela_gen.remote_ltl``: formulas, init and watchers reading workers' variables;
    the verdict is pan -a's, unreduced and reduced (results/ltl_remote.md: the large run)."""
    import tempfile

    text = remote_ltl(seed)
    assert ":l0" in text.split("ltl p")[1]
    with tempfile.TemporaryDirectory() as d:
        spin = spin_ltl(text, Path(d))
    assert our_ltl(text) is spin and our_ltl(text, reduce="exact") is spin
