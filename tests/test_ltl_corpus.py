"""Spin's ``Examples/LTL`` files that take the native explorer (issue 30): mobile1 and
mobile2's ``ltl`` blocks against ``pan -a``, and the ``progress`` labels of diskhead, mobile1
and mobile2 against ``pan -l`` (``--non-progress``), unreduced and with ``--reduce exact``.
Run through the command line, as a user does (the in-process oracle ``our_ltl`` explores in
Python, too slow for mobile1's 10^5 states); ``results/ltl_corpus.md`` has the whole table.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.spin_oracle import spin_available, spin_ltl, spin_non_progress

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "spin" / "Examples" / "LTL"
pytestmark = [pytest.mark.skipif(not spin_available(), reason="spin or gcc not installed"),
              pytest.mark.skipif(not CORPUS.exists(), reason="../shared/corpus/spin/Examples/LTL not present")]


def ours(file: str, *args: str) -> bool:
    """Whether ``symdetect explore FILE ARGS`` finds the property violated (exit 1).  A model
    with ``progress`` labels checked for an ltl block exits 3 ("progress labels not checked",
    as pan -a does not check them either), so the property's own verdict lines decide holds."""
    env = dict(os.environ, SYMDETECT_MODEL_CACHE="off")
    r = subprocess.run([sys.executable, "-m", "detect.cli", "explore", str(CORPUS / file), "--no-trace", *args],
                       cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    if r.returncode == 1:
        return True
    own = re.findall(r"^assert (?:ltl .*?\((?:never claim end|acceptance cycle)\)|no non-progress cycle \(progress labels, as pan -l\)): "
                     r"(\w+)", r.stdout, re.M)
    assert r.returncode in (0, 3) and own and all(v == "holds" for v in own), r.stdout + r.stderr
    return False


def pan(file: str, run) -> bool:
    with tempfile.TemporaryDirectory() as d:
        return run((CORPUS / file).read_text(), Path(d))


SLOW = pytest.mark.slow


@pytest.mark.parametrize("file", ["diskhead.pml", "mobile2.pml", pytest.param("mobile1.pml", marks=SLOW)])
@pytest.mark.parametrize("reduce", ["none", pytest.param("exact", marks=SLOW)])
def test_progress_labels_as_pan_l(file, reduce):
    """diskhead's progress_0..2 leave no non-progress cycle; in mobile1 and mobile2 the
    handover loop can run for ever without passing ``progress:`` (pan -l: error)."""
    expected = {"diskhead.pml": False, "mobile1.pml": True, "mobile2.pml": True}[file]
    assert pan(file, spin_non_progress) is expected
    assert ours(file, "--non-progress", "--reduce", reduce) is expected


@pytest.mark.parametrize("file, reduce", [("mobile2.pml", "none"),
                                          pytest.param("mobile2.pml", "exact", marks=SLOW),
                                          pytest.param("mobile1.pml", "none", marks=SLOW),
                                          pytest.param("mobile1.pml", "exact", marks=SLOW)])
def test_mobile_ltl_as_pan_a(file, reduce):
    """The one ``ltl`` block of mobile1 and mobile2 (their only block: pan's ``-N ltl_0`` is
    the default) holds; mobile2 was refused ("channel fa used as a value"), mobile1 not
    decided within 120 CPU s."""
    assert pan(file, spin_ltl) is False
    assert ours(file, "--ltl", "ltl_0", "--reduce", reduce) is False


# ------------------------------------------------- X: Spin's translator refuses it, ours translates

from frontends.promela.ltl import blocks, parse_printed, spin_translation, tableau_claim  # noqa: E402
from frontends.promela.preprocess import preprocess  # noqa: E402
from tests.promela_gen import ltl_claimed  # noqa: E402
from tests.spin_oracle import SpinRefused, our_ltl, spin_acceptance  # noqa: E402


def with_tableau_claim(text: str) -> str:
    """``text`` (one ``ltl`` block) with that block replaced by our tableau's never claim for
    Spin's parse of it (what ``ltl.splice`` does where Spin's translator refuses ``X``)."""
    block = blocks(text)[0]
    return text[:block.start] + f"never {{ {tableau_claim(printed(text)[block.name])} }}" + text[block.end:]


def printed(text: str) -> dict[str, str]:
    """Spin's parse of each ``ltl`` block of ``text`` (``ltl.spin_translation``)."""
    try:
        return spin_translation(text)[1]
    except RuntimeError as e:  # Spin's translator refuses X, having printed its parse
        return e.args[1]


#: seeds whose check takes a few seconds (seed 4's product is large: minutes)
FAST_SEEDS = (1, 3, 5, 6, 8, 9, 11)


@pytest.mark.parametrize("seed", [s if s in FAST_SEEDS else pytest.param(s, marks=SLOW) for s in range(80)])
def test_tableau_claim_agrees_with_spins_translator(seed, tmp_path):
    """On X-free formulas, the route taken for X (Spin's printed parse -> ``parse_printed``
    -> our tableau -> a never claim) gives pan's verdict with Spin's own claim: random
    (model, formula) pairs of ``promela_gen.ltl_claimed``."""
    text = preprocess(ltl_claimed(seed), "m.pml", {}).text
    try:
        spin = spin_ltl(text, tmp_path)
    except SpinRefused as e:
        pytest.skip(f"Spin refuses the model: {e}")
    ours_claimed = with_tableau_claim(text)
    assert our_ltl(ours_claimed) == spin, ours_claimed


#: every step of P assigns x: the run is 0, 1, 2, 3, 0, 1, ... (a guard would be a step of
#: its own, leaving x as it was: X is not blind to such steps)
COUNTER = "byte x;\nactive proctype P() { do :: x = (x + 1) % 4 od }\n"


@pytest.mark.parametrize("formula, holds", [("X (x == 1)", True), ("X (x == 0)", False),
                                            ("X X X (x == 3)", True), ("X X (x == 3)", False),
                                            ("[] ((x == 1) -> X (x == 2))", True),
                                            ("[] ((x == 1) -> X (x == 1))", False),
                                            ("[] ((x == 3) -> X (x == 0))", True),
                                            ("<> ((x == 3) && X (x == 3))", False),
                                            ("(x < 2) U X (x == 2)", True), ("(x < 1) U X (x == 3)", False)])
def test_x_is_the_next_state(formula, holds, tmp_path):
    """``X`` formulas (Spin's translator refuses them) are checked by our tableau's claim:
    the verdict is LTL's on the run 0, 1, 2, 3, 3, ..., and pan's on the same claim."""
    text = COUNTER + f"ltl p {{ {formula} }}\n"
    assert our_ltl(text) is (not holds)
    assert our_ltl(text, reduce="exact") is (not holds)
    claimed = with_tableau_claim(preprocess(text, "m.pml", {}).text)
    assert spin_acceptance(claimed, tmp_path) is (not holds)


def _patterns_x_cases():
    path = CORPUS / "patterns.pml"
    if not path.exists():
        return
    for b in blocks(preprocess(path.read_text(), str(path), {}).text):
        if re.search(r"\bX\b", b.formula):
            yield pytest.param(b.name, marks=[] if b.name in ("pc1", "rc6", "cc3") else [SLOW], id=b.name)


@pytest.mark.parametrize("name", list(_patterns_x_cases()))
def test_patterns_x_blocks_by_definition(name, tmp_path):
    """patterns.pml's blocks with ``X`` (25; Spin refuses each): P..Z stay 0 for ever, so
    each proposition is constant and the verdict is LTL's on one repeated letter; pan,
    given our claim as the model's never claim, agrees."""
    from detect.checking.buchi import holds_on_lasso

    text = preprocess((CORPUS / "patterns.pml").read_text(), "patterns.pml", {}).text
    for b in reversed([b for b in blocks(text) if b.name != name]):
        text = text[:b.start] + "\n" * text.count("\n", b.start, b.end) + text[b.end:]
    formula, props = parse_printed(printed(text)[name])
    zero = {v: 0 for v in "PQRSTZ"}
    letter = frozenset(k for k, p in enumerate(props)
                       if eval(p.replace("&&", " and ").replace("||", " or ").replace("!", " not "), {}, zero))
    holds = holds_on_lasso(formula, [letter], 0)
    assert our_ltl(text, name) is (not holds)
    assert spin_acceptance(with_tableau_claim(text), tmp_path) is (not holds)


def test_simplified_automaton_has_the_tableaus_language():
    """``tableau.simplify`` (dead states dropped, equivalent states merged) keeps the
    language: on random formulas with X and random lassos, it accepts what the tableau's
    automaton accepts, and that is LTL's definition (``holds_on_lasso``)."""
    import random

    from detect.checking.buchi import accepts_lasso, holds_on_lasso
    from detect.ir.tableau import simplify, translate

    r = random.Random(7)

    def formula(d):
        if d == 0 or r.random() < 0.25:
            return ("ap", r.randrange(2))
        op = r.choice(["!", "X", "[]", "<>", "&&", "||", "U", "R", "->"])
        return (op, formula(d - 1)) if op in ("!", "X", "[]", "<>") else (op, formula(d - 1), formula(d - 1))

    letters = [frozenset(s) for s in ((), (0,), (1,), (0, 1))]
    smaller = 0
    for _ in range(150):
        f = formula(4)
        big = translate(("!", f))
        small = simplify(big)
        smaller += small.states < big.states
        for _ in range(12):
            word = [r.choice(letters) for _ in range(r.randint(1, 4))]
            loop = r.randrange(len(word))
            expected = not holds_on_lasso(f, word, loop)
            assert accepts_lasso(big, word, loop) == accepts_lasso(small, word, loop) == expected, (f, word, loop)
    assert smaller > 50  # it does simplify
