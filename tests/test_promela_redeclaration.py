"""Spin's "redeclaration of 'x'" (issue 28): the declarations Spin 6.5.2 refuses we refuse with
one located line, at Spin's line; the ones it accepts we accept.  Each case is pinned, and
rerun against ``spin -a`` when spin is installed."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from detect.errors import InputError
from frontends.promela import parse_text
from tests.spin_oracle import compare, spin_available

ROOT = Path(__file__).resolve().parent.parent
needs_spin = pytest.mark.skipif(not spin_available(), reason="spin is not installed")

# (name, model, line, column, message): refused by Spin and by us, at that line
REFUSED = [
    ("global byte, local byte", "byte r;\nactive proctype P() {\n byte r; r = 1 }\n", 3, 7, "redeclaration of 'r'"),
    ("global int, local int", "int r;\nactive proctype P() {\n int r; r = 1 }\n", 3, 6, "redeclaration of 'r'"),
    ("global bool, local bool", "bool r;\nactive proctype P() {\n bool r; r = 1 }\n", 3, 7,
     "redeclaration of 'r'"),
    ("global chan, local chan", "chan r = [1] of { byte };\nactive proctype P() {\n chan r = [1] of { byte }; "
     "r!1 }\n", 3, 7, "redeclaration of 'r'"),
    # the other engineer's case: a typedef local named like a global
    ("global typedef, local typedef", "typedef R { byte a };\nR r;\nactive proctype P() {\n R r; r.a = 1 }\n",
     4, 4, "redeclaration of 'r'"),
    ("global byte, local typedef", "typedef R { byte a };\nbyte r;\nactive proctype P() {\n R r; r.a = 1 }\n",
     4, 4, "redeclaration of 'r'"),
    ("global array, local array", "byte r[2];\nactive proctype P() {\n byte r[2]; r[0] = 1 }\n", 3, 7,
     "redeclaration of 'r'"),
    ("global mtype, local mtype", "mtype = { a, b };\nmtype r;\nactive proctype P() {\n mtype r; r = a }\n",
     4, 8, "redeclaration of 'r'"),
    ("hidden global, local in init", "hidden byte r;\ninit {\n byte r; r = 1 }\n", 3, 7,
     "redeclaration of 'r'"),
    ("global, local in a nested block", "byte r;\nactive proctype P() {\n do :: { byte r; r = 1 }; break od }\n",
     3, 15, "redeclaration of 'r'"),
    ("two locals", "active proctype P() {\n byte r;\n byte r; r = 1 }\n", 3, 7, "redeclaration of 'r'"),
    ("two locals in one declaration", "active proctype P() {\n byte q, r, r; r = 1 }\n", 2, 13,
     "redeclaration of 'r'"),
    ("local, then one in an option", "active proctype P() {\n byte r;\n if :: true -> byte r; r = 1 :: else fi }\n",
     3, 21, "redeclaration of 'r'"),
    ("parameter and local", "proctype P(byte r) {\n byte r; r = 1 }\ninit { run P(1) }\n", 2, 7,
     "redeclaration of 'r'"),
    ("two parameters", "proctype P(byte r; byte r) { skip }\ninit { run P(1, 2) }\n", 1, 25,
     "redeclaration of 'r'"),
    ("global and parameter", "byte r;\nproctype P(byte r) { r = 1 }\ninit { run P(1) }\n", 2, 17,
     "redeclaration of 'r'"),
    ("global twice", "byte r;\nbyte r;\nactive proctype P() { r = 1 }\n", 2, 6, "redeclaration of 'r'"),
    ("global twice, other types", "byte r;\nint r;\nactive proctype P() { r = 1 }\n", 2, 5,
     "redeclaration of 'r'"),
    ("typedef field twice", "typedef R { byte r;\n byte r };\nR x;\nactive proctype P() { x.r = 1 }\n", 2, 7,
     "redeclaration of 'r'"),
    ("global, then a proctype of its name", "byte P;\nactive proctype P() { skip }\n", 2, 1,
     "redeclaration of 'P'"),
    # an inline's local after the proctype declared it
    ("local, then an inline's", "inline f(x) {\n byte t; t = x }\nactive proctype P() {\n byte t;\n f(1) }\n",
     2, 7, "redeclaration of 't'"),
    ("global, then an inline's", "byte t;\ninline f(x) {\n byte t; t = x }\nactive proctype P() { f(1) }\n",
     3, 7, "redeclaration of 't'"),
    # a name Spin's lexer knows as another token: Spin's syntax error
    ("local named like its proctype", "active proctype P() {\n byte P; P = 1 }\n", 2, 7,
     "syntax error: saw 'process name'"),
    ("local named like another proctype", "proctype Q() { skip }\nactive proctype P() {\n byte Q; Q = 1 }\n",
     3, 7, "syntax error: saw 'process name'"),
    ("local named like an mtype constant", "mtype = { a, b };\nactive proctype P() {\n byte a; a = 1 }\n",
     3, 7, "syntax error: saw 'a constant'"),
    ("global named like an mtype constant", "mtype = { a };\nbyte a;\nactive proctype P() { skip }\n", 2, 6,
     "syntax error: saw 'a constant'"),
    ("local named like a typedef", "typedef R { byte x };\nactive proctype P() {\n byte R; R = 1 }\n", 3, 7,
     "syntax error: saw 'a typename'"),
    ("local named like an inline", "inline f() { skip }\nactive proctype P() {\n byte f; f = 1 }\n", 3, 7,
     "syntax error: saw 'inline name'"),
    ("global named like a proctype", "active proctype P() { skip }\nbyte P;\n", 2, 6,
     "syntax error: saw 'process name'"),
    ("parameter named like its proctype", "proctype P(byte P) { skip }\ninit { run P(1) }\n", 1, 17,
     "syntax error: saw 'process name'"),
    ("local in init named like a proctype", "proctype P() { skip }\ninit {\n byte P; run P() }\n", 3, 7,
     "syntax error: saw 'process name'"),
    ("global chan array, local byte", "chan c[2] = [1] of { byte };\nactive proctype P() {\n byte c; c = 1 }\n",
     3, 7, "redeclaration of 'c'"),
]

# models Spin accepts that declare one name more than once (or look as if they did)
ACCEPTED = [
    ("same local in two proctypes", "active proctype P() { byte r; r = 1 }\nactive proctype Q() { byte r; r = 2 }\n"),
    ("local, then a global of its name", "active proctype P() {\n byte r; r = 1 }\nbyte r;\ninit { r = 2 }\n"),
    ("a field named like a local", "typedef R { byte r };\nR x;\nactive proctype P() {\n byte r; r = 1; x.r = r }\n"),
    ("a local named like a later proctype", "active proctype P() { byte Q; Q = 1 }\nactive proctype Q() { skip }\n"),
    ("a local named like a later mtype constant", "active proctype P() {\n byte a; a = 1 }\nmtype = { a };\n"),
    ("a local named like a later typedef", "active proctype P() {\n byte R; R = 1 }\ntypedef R { byte x };\n"),
    ("a local named like an mtype subtype", "mtype:fruit = { apple };\nactive proctype P() {\n byte fruit; "
     "fruit = 1 }\n"),
    ("a local named like another proctype's parameter", "proctype Q(byte r) { skip }\nactive proctype P() {\n"
     " byte r; r = 1; run Q(r) }\n"),
    ("an inline's parameter named like a global", "byte x;\ninline f(x) { x = 1 }\nactive proctype P() { byte y; "
     "f(y) }\n"),
    # an inline's local declared again: Spin gives each expansion a variable of its own
    ("inline called twice", "inline f(x) { byte t; t = x }\nactive proctype P() { f(1); f(2) }\n"),
    ("inline's local, then the proctype's", "inline f(x) { byte t; t = x }\nactive proctype P() { f(1); byte t; "
     "t = 2 }\n"),
]


def _ids(cases):
    return [c[0] for c in cases]


@pytest.mark.parametrize("name,text,line,column,message", REFUSED, ids=_ids(REFUSED))
def test_refused_as_spin(name, text, line, column, message):
    with pytest.raises(InputError) as e:
        parse_text(text, "m.pml")
    assert (e.value.line, e.value.column, e.value.message) == (line, column, message)


@pytest.mark.parametrize("name,text", ACCEPTED, ids=_ids(ACCEPTED))
def test_accepted_as_spin(name, text):
    parse_text(text, "m.pml")


def test_cli_one_located_line(tmp_path):
    model = tmp_path / "m.pml"
    model.write_text(REFUSED[4][1])
    r = subprocess.run([sys.executable, "-m", "detect.cli", "linearise", str(model)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [f"symdetect: {model}:4:4: redeclaration of 'r'"]


def _spin_a(text: str, tmp_path: Path) -> tuple[int, str]:
    (tmp_path / "m.pml").write_text(text)
    r = subprocess.run(["spin", "-a", "m.pml"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout + r.stderr


@needs_spin
@pytest.mark.parametrize("name,text,line,column,message", REFUSED, ids=_ids(REFUSED))
def test_spin_refuses_too(name, text, line, column, message, tmp_path):
    rc, out = _spin_a(text, tmp_path)
    assert rc != 0, out
    m = re.search(r"m\.pml:(\d+), Error: (.*)", out)
    assert m and int(m.group(1)) == line, out
    if message.startswith("syntax error"):
        token = message.split("saw ", 1)[1]
        assert m.group(2).startswith("syntax error") and f"saw {token}" in m.group(2), out
    else:
        assert m.group(2).startswith(message), out


@needs_spin
@pytest.mark.parametrize("name,text", ACCEPTED, ids=_ids(ACCEPTED))
def test_spin_accepts_too(name, text, tmp_path):
    rc, out = _spin_a(text, tmp_path)
    assert rc == 0 and "Error" not in out, out


@needs_spin
@pytest.mark.parametrize("name,text", ACCEPTED, ids=_ids(ACCEPTED))
def test_accepted_counts_as_spin(name, text, tmp_path):
    assert compare(text, tmp_path) is None
