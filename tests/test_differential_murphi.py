"""Differential testing of the Murphi front end against CMurphi 5.4, the real tool.

CMurphi is built from ``../shared/peers`` once per machine into a cache (``tests/cmurphi.py``;
the build is safe under pytest-xdist); these tests skip with the reason when ``../shared``,
``g++`` or ``make`` is absent.  Each model is run by ``symdetect explore FILE --json`` (plus
``detect.checking.murphi_counts`` for CMurphi's "rules fired", which our "transitions" do not
count) and by CMurphi ``-nosym -ndl``; the verdicts (some error / invariant violation, or
none) must agree, and when neither finds one, the states and rules fired too (CMurphi stops
at its first error, so its counts are partial then).

(a) random models from ``tests/murphi_gen.py`` (a few by default, many with ``-m slow``);
(b) every Murphi file of ``../shared/corpus/murphi``, ``models/`` and ``models/murphi/``.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import cmurphi, murphi_gen

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "murphi"
#: Const values for files whose own are too large to explore here (CMurphi gets the same,
#: written into the text).
SMALL = {"n_peterson.m": {"N": 3}, "german_small.m": {"N": 2}}
#: Default seeds (a few seconds each: mu + g++ -O0 + both explorations).
DEFAULT_SEEDS = range(6)
SLOW_SEEDS = range(1000, 1200)



def _check(comparison: cmurphi.Comparison, text: str) -> None:
    if not comparison.compared:
        pytest.skip(f"CMurphi cannot run this model: {comparison.theirs}")
    assert comparison.disagreement is None, (
        f"{comparison.name}: {comparison.disagreement}\nours: {comparison.ours}\n"
        f"CMurphi: {comparison.theirs}\n--- model ---\n{text}")


def _random(seed: int, home: Path, tmp_path: Path, compare=cmurphi.compare) -> cmurphi.Comparison:
    """Random model ``seed`` compared with CMurphi by ``compare`` (``cmurphi.compare``:
    ``-nosym``; ``cmurphi.compare_sym1``: reduced)."""
    text = murphi_gen.generate(seed)
    path = tmp_path / f"random{seed}.m"
    path.write_text(text)
    comparison = compare(home, path, tmp_path / "cmurphi")
    _check(comparison, text)
    return comparison


@pytest.mark.parametrize("seed", DEFAULT_SEEDS)
def test_random_model_agrees_with_cmurphi(seed, cmurphi_home, tmp_path):
    _random(seed, cmurphi_home, tmp_path)


@pytest.mark.parametrize("seed", DEFAULT_SEEDS)
def test_random_model_reduced_agrees_with_cmurphi_sym1(seed, cmurphi_home, tmp_path):
    """``explore --reduce exact`` against CMurphi ``-sym1`` (``cmurphi.compare_sym1``): the
    same verdict; with none, the same states, or fewer with ``analyze --verify`` passing (a
    larger group), or more only where the start states are not symmetric."""
    _random(seed, cmurphi_home, tmp_path, cmurphi.compare_sym1)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
def test_many_random_models_reduced_agree_with_cmurphi_sym1(seed, cmurphi_home, tmp_path):
    _random(seed, cmurphi_home, tmp_path, cmurphi.compare_sym1)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
def test_many_random_models_agree_with_cmurphi(seed, cmurphi_home, tmp_path):
    _random(seed, cmurphi_home, tmp_path)


def _files() -> list[Path]:
    files = sorted((ROOT / "models").rglob("*.m"))
    if CORPUS.exists():
        files += sorted(CORPUS.glob("*.m"))
    return files


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_model_file_agrees_with_cmurphi(path, cmurphi_home, tmp_path):
    comparison = cmurphi.compare(cmurphi_home, path, tmp_path, SMALL.get(path.name))
    _check(comparison, path.read_text())
    assert comparison.compared and not isinstance(comparison.ours, str)


@pytest.mark.parametrize("rules", [
    'Rule "r" x = 0 ==> Begin x := 1; If x = 2 Then a[5] := true; End; End;',
    'Rule "r" x = 0 ==> Begin x := 1; End; Rule "t" x = 1 ==> Begin m[0][1] := 1; x := 2; End;',
    'Rule "r" x = 0 ==> Begin x := 1; End; Rule "t" x = 1 ==> Alias y: a[3] Do x := 2; End; End;',
], ids=["not-run", "runs", "alias"])
def test_a_constant_subscript_out_of_range_agrees_with_cmurphi(rules, cmurphi_home, tmp_path):
    """An error only when the statement runs (an alias: when it is bound), as CMurphi; we
    refused these when loading."""
    from tests.test_murphi_regressions import OUT_OF_RANGE_FRAME

    path = tmp_path / "oor.m"
    path.write_text(OUT_OF_RANGE_FRAME.format(rules=rules))
    comparison = cmurphi.compare(cmurphi_home, path, tmp_path / "cmurphi")
    assert comparison.compared and comparison.disagreement is None, (comparison.ours, comparison.theirs)


def test_corpus_is_compared_when_present():
    if not CORPUS.exists():
        pytest.skip(f"Murphi corpus not available at {CORPUS} (../shared is absent)")
    assert {p.name for p in CORPUS.glob("*.m")} <= {p.name for p in _files()}


def test_generator_is_deterministic_and_varied():
    assert murphi_gen.generate(3) == murphi_gen.generate(3)
    texts = [murphi_gen.generate(s) for s in range(40)]
    assert len(set(texts)) == 40
    joined = "\n".join(texts)
    for construct in ("Elsif", "Else", "Switch", "For ", "While", "Procedure", "Function", "Return",
                      "Record", "Array", "Enum", "boolean", "Scalarset", "Ruleset", "Alias", "Undefine",
                      "IsUndefined", "Clear", "Invariant", "Error", "Assert", "Forall", "Exists", " ? ",
                      " By ", "Var ", "While w", "< 999 Do", "Begin End", "Put ", "color End;", "Alias ar",
                      "Union {", "MultisetAdd(", "MultisetRemove(", "MultisetRemovePred(", "MultisetCount(",
                      "Choose ", ":= UNDEFINED;"):
        assert construct in joined, construct


def test_cache_build_is_reused(cmurphi_home):
    """A second build finds the first (no rebuild, same tree)."""
    before = os.stat(cmurphi_home / "src" / "mu").st_mtime
    assert cmurphi.build() == cmurphi_home
    assert os.stat(cmurphi_home / "src" / "mu").st_mtime == before


#: Start states that fault (issue 27): CMurphi stops there with the error, having stored the
#: start states it made before (the last Startstate first, a Ruleset's first parameter fastest).
START_FAULTS = {
    "undefined": "Var x : 0..2; y : 0..2;\nStartstate Begin x := y + 1; End;\n",
    "range": "Var x : 0..2;\nStartstate Begin x := 3; End;\n",
    "assert": 'Var x : 0..2;\nRuleset i : 0..2 Do Startstate Begin Assert i != 1 "bad start"; x := i; End; End;\n',
    "last-first": 'Var x : 0..2;\nStartstate "c" Begin x := 3; End;\nStartstate "a" Begin x := 0; End;\n'
                  'Startstate "b" Begin x := 1; End;\n',
    "nested": 'Var x : 0..3;\nRuleset i : 0..1 Do Ruleset j : 0..1 Do Startstate Begin\n'
              '  Assert !(i = 0 & j = 1) "bad start"; x := i * 2 + j; End; End; End;\n',
}


@pytest.mark.parametrize("name", sorted(START_FAULTS))
def test_a_start_state_that_faults_is_the_error_verdict_as_in_cmurphi(name, cmurphi_home, tmp_path):
    """We refused these (exit 2); CMurphi reports the error with the start states stored
    before it: explore now exits 1 with the same count."""
    path = tmp_path / f"{name}.m"
    path.write_text(START_FAULTS[name] + 'Rule "r" true ==> x := (x + 1) % 3; End;\n')
    executable = cmurphi.compile_model(cmurphi_home, path.read_text(), tmp_path / "cmurphi", "m")
    theirs = cmurphi.run_model(executable)
    assert theirs.error is not None and theirs.rules_fired == 0
    mine = cmurphi.ours(path)
    assert not isinstance(mine, str), mine
    assert mine[0] == theirs.states and mine[2], (mine, theirs.states, theirs.error)


def _ours_counts(path: Path, *options: str) -> int:
    import json

    from click.testing import CliRunner

    from detect.cli import main

    result = CliRunner().invoke(main, ["explore", str(path), "--json", "--ndl", *options])
    assert result.exit_code == 0, result.output[-2000:]
    return json.loads(result.output[result.output.index("{"):])["states"]


def _multiset_sym1(seed: int, home: Path, tmp_path: Path) -> None:
    text = murphi_gen.generate_multiset(seed)
    path = tmp_path / f"multiset{seed}.m"
    path.write_text(text)
    executable = cmurphi.compile_model(home, text, tmp_path / "cmurphi", "m")
    for theirs_options, ours_options in ((("-nosym",), ()), (("-sym1",), ("--reduce", "exact")),
                                         (("-sym1", "-nomultiset"), ("--nomultiset", "--reduce", "exact"))):
        theirs = cmurphi.run_model(executable, options=theirs_options)
        assert theirs.error is None, theirs.error
        assert _ours_counts(path, *ours_options) == theirs.states, (theirs_options, text)


@pytest.mark.parametrize("seed", range(4))
def test_multiset_of_scalarsets_reduced_agrees_with_cmurphi_sym1(seed, cmurphi_home, tmp_path):
    """A network that is a multiset of messages naming scalarset processes: ``--reduce
    exact`` (G detected on the unsorted reading, with the place permutations) equals CMurphi's
    ``-sym1``; we stored more before (group order 1: the sort compares scalarsets with <)."""
    _multiset_sym1(seed, cmurphi_home, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 160))
def test_many_multiset_models_reduced_agree_with_cmurphi_sym1(seed, cmurphi_home, tmp_path):
    _multiset_sym1(seed, cmurphi_home, tmp_path)
