"""Constructs from Promela models written by other people (results/wild_promela.md), each
pinned to Spin 6.5.2's "states, stored" and error verdict (``spin_oracle.check_pinned``:
rerun against pan where Spin is installed)."""
from __future__ import annotations

import pytest

from tests.spin_oracle import check_pinned, compare, our_counts, spin_available

# (name, model, Spin's states stored, error)
PINNED = [
    # divby7.pml: an inline declaring locals, called twice (pan: _1_1_t and _1_2_t, one
    # variable per expansion; each expansion's initialiser a step of its own)
    ("inline with a local called twice",
     "inline f(x) { byte t = x; t = t + 1; assert(t == x + 1) }\n"
     "active proctype P() { byte u; f(1); f(5); u = 3 }\n", 9, False),
    ("inline's local, then the proctype's",
     "inline f(x) { byte t; t = x }\n"
     "active proctype P() { f(1); byte t; t = 2; assert(t == 2) }\n", 7, False),
    ("inline's local in a loop, called twice",
     "inline f(n, r) {\n do\n :: n > 7 -> byte d = n % 10; n = n / 10 - d * 2\n :: else -> break\n od;\n"
     " r = n }\nactive proctype P() { int n = 15; int a; f(n, a); n = 16; int b; f(n, b); assert(a != b) }\n",
     15, False),
    # divby7.pml: select's variable named with an underscore is Spin's loop (i = lo; do :: i < hi
    # -> i++ :: break od), not the if of one option per value that an alphanumeric name gets
    ("select into a name with an underscore",
     "active proctype P() {\n byte one_six;\n select(one_six: 1 .. 3)\n}\n", 10, False),
    ("select into an alphanumeric name",
     "active proctype P() {\n byte onesix;\n select(onesix: 1 .. 3)\n}\n", 5, False),
    ("select into a name with a leading underscore, after a declaration step",
     "active proctype P() {\n int n = 7;\n byte _v;\n select(_v: 1 .. 3);\n n = 7 + _v\n}\n", 13, False),
    # oneClient-server.pml: array initialiser lists; elements past the list take its last
    # value, values past the array are dropped (pan.c: a[2] = 5; a[3] = 5)
    ("initialiser lists, global, local, in a process run later",
     "int a[4] = {3,5};\nbyte b[3] = {1,2,3};\nproctype Q() { byte d[2] = {4, 6}; d[0] = d[1] + 1; "
     "assert(d[0] == 7) }\nactive proctype P() { int c[3] = {7,8,9}; b[0] = c[2]; assert(a[2] == 5 && a[3] == 5); "
     "run Q(); assert(b[2]==3); c[1] = 0 }\n", 16, False),
    # election.pml: ``#define election false`` in a receive, ``msgs[i] ? election, other``
    ("true and false as receive constants",
     "chan c = [2] of { bool, byte };\nactive proctype P() { c!true,1; c!false,2 }\n"
     "active proctype Q() { byte x; do :: c?false,x -> assert(x == 2) :: c?true,x -> assert(x == 1) "
     ":: c?[true,_] -> c?1,x od }\n", 11, True),
    ("initialiser list longer than the array",
     "byte a[2] = {1,2,3};\nactive proctype P() { a[0] = a[1] + a[0]; assert(a[0] == 3) }\n", 4, False),
]


@pytest.mark.parametrize("name,text,stored,error", PINNED, ids=[c[0] for c in PINNED])
def test_pinned_to_spin(name, text, stored, error, tmp_path):
    check_pinned(text, stored, error, tmp_path)


def test_initialiser_list_after_a_statement_refused_as_spin():
    from detect.errors import InputError
    from frontends.promela import parse_text

    with pytest.raises(InputError) as e:
        parse_text("active proctype P() {\n skip;\n byte a[2] = {1,2}; a[0] = 1 }\n", "m.pml")
    assert e.value.line == 3 and e.value.message.startswith("cannot use an array list initializer here")


@pytest.mark.skipif(not spin_available(), reason="spin is not installed")
def test_initialiser_list_tail_is_the_last_value(tmp_path):
    # an assertion that the tail is 0 fails in Spin and in ours
    text = "int a[4] = {3,5};\nactive proctype P() { assert(a[3] == 0) }\n"
    assert our_counts(text).error
    assert compare(text, tmp_path) is None


def test_record_passed_to_run_is_a_located_refusal():
    # sketchbook-promela cheatsheet/typedef.pml: Spin copies the record field by field
    # (5 states); we refuse it at the run, not with "undeclared variable foo"
    from detect.errors import InputError
    from frontends.promela import parse_text

    text = ("typedef Field { short f = 3; byte g };\nproctype me(Field z) { z.g = 12 }\n"
            "init {\n Field foo;\n run me(foo)\n}\n")
    with pytest.raises(InputError) as e:
        parse_text(text, "m.pml")
    assert (e.value.line, e.value.column) == (5, 2) and "typedef parameter" in e.value.message
