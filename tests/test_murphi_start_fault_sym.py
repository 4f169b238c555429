"""A Murphi start state that faults, explored with symmetry reduction (issue 27).

CMurphi stops at the first start state that faults and reports the start states it stored
before; with ``-sym1`` it stores them canonicalised, so it reports their orbits.  ``explore
--reduce exact`` reported the distinct start states (CMurphi's ``-nosym`` figure) instead.
The models' rules read every variable the start states set, so the detected group is the
declared scalarset group (a variable no rule reads could be permuted on its own: a larger
group, with fewer orbits than ``-sym1``).  The figures are CMurphi 5.4's, pinned; the last
test reruns CMurphi where it can be built (``tests/cmurphi.py``)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from detect.cli import main
from tests import cmurphi

#: (model, CMurphi -nosym states, -sym1 states, a word of its error)
MODELS = {
    # the last Startstate runs first: its 3 bindings, then "bad" reads y undefined
    "ruleset_then_bad": ("""
Type S: Scalarset(3);
Var a: Array[S] of Boolean; x: 0..1; y: 0..1;
Startstate "bad" Begin x := y + 1; End;
Ruleset p: S Do Startstate "good" Begin For i: S Do a[i] := false; End; a[p] := true; x := 0; y := 0; End; End;
Ruleset i: S Do Rule "r" a[i] ==> x := 1 - x; End; End;
""", 3, 1, "undefined"),
    # a Ruleset's first parameter varies fastest: 6 bindings (k = 0, 1) before k = 2 fails
    "assert_mid_ruleset": ("""
Type S: Scalarset(3);
Var a: Array[S] of Boolean; n: 0..2;
Ruleset p: S Do Ruleset k: 0..2 Do Startstate Begin
  Assert k < 2 "k";
  For i: S Do a[i] := false; End; a[p] := true; n := k; End; End; End;
Ruleset i: S Do Rule "r" a[i] ==> n := (n + 1) % 3; End; End;
""", 6, 2, "Assertion"),
    # two scalarset parameters: orbits p = q and p != q
    "pairs": ("""
Type S: Scalarset(3);
Var a: Array[S] of Boolean; c: Array[S] of 0..1; v: S; x: 0..1;
Startstate "bad" Begin Undefine x; x := x + 1; End;
Ruleset p: S Do Ruleset q: S Do Startstate "good" Begin
  For i: S Do a[i] := false; c[i] := 0; End; a[p] := true; c[q] := 1; v := q; x := 0; End; End; End;
Ruleset i: S Do Rule "t" a[i] & c[i] = 1 ==> x := 1 - x; End; End;
Rule "w" c[v] = 1 ==> a[v] := !a[v]; End;
""", 9, 2, "undefined"),
    # a multiset (sorted, CMurphi's default): {0,0}, {0,1}, {1,1}; -sym1: two orbits
    "multiset": ("""
Type S: Scalarset(2);
Var m: Multiset[2] of S; x: 0..1;
Startstate "bad" Begin x := 2; End;
Ruleset p: S Do Ruleset q: S Do Startstate "good" Begin
  MultisetAdd(p, m); MultisetAdd(q, m); x := 0; End; End; End;
Ruleset i: S Do Rule "m" MultisetCount(j: m, m[j] = i) = 2 ==> x := 1 - x; End; End;
""", 3, 2, "range"),
    # a union of two scalarsets: each permuted on its own
    "union": ("""
Type S: Scalarset(2); T: Scalarset(2); U: Union{S, T};
Var o: Array[S] of U; x: 0..1;
Ruleset p: S Do Ruleset t: T Do Ruleset k: 0..1 Do Startstate Begin
  Assert k = 0 "k";
  For i: S Do o[i] := i; End; o[p] := t; x := k; End; End; End; End;
Ruleset i: S Do Rule "r" IsMember(o[i], T) ==> x := 1 - x; End; End;
""", 4, 1, "Assertion"),
}


def _explore(path: Path, *options: str) -> dict:
    result = CliRunner().invoke(main, ["explore", str(path), "--json", *options])
    assert result.exit_code == 1, result.output[-2000:]
    return json.loads(result.output[result.output.index("{"):])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_reduced_start_fault_counts_orbits_as_cmurphi_sym1(name, tmp_path):
    """``--reduce exact`` gave the -nosym count (3, 6, 9, 3, 4); now CMurphi's -sym1 count."""
    text, nosym, sym1, _ = MODELS[name]
    path = tmp_path / f"{name}.m"
    path.write_text(text)
    plain = _explore(path)
    assert plain["states"] == nosym and "start_state_fault" in plain
    reduced = _explore(path, "--reduce", "exact")
    assert reduced["states"] == sym1 and reduced["faults"] == 1 and "start_state_fault" in reduced
    assert _explore(path, "--reduce", "enumerate")["states"] == sym1



@pytest.mark.parametrize("name", sorted(MODELS))
def test_pinned_figures_are_cmurphis(name, cmurphi_home, tmp_path):
    text, nosym, sym1, word = MODELS[name]
    executable = cmurphi.compile_model(cmurphi_home, text, tmp_path, "m")
    for options, states in ((("-nosym",), nosym), (("-sym1",), sym1)):
        result = cmurphi.run_model(executable, options=options)
        assert (result.states, word in (result.error or "")) == (states, True), (options, result.error)
