"""Narrowing keeps the reachable transition system exactly (issue 25, item 7).

The oracle is the front end's own model with every unranged variable given the provisional
range -32768..32767 (and every other domain as declared): PAT's transition system for models
whose values stay in it.  The narrowed model that ``load_model`` gives must have the same
numbers of states, transitions and fault states.  Before the fix, a domain cut to the values
of the reachable states made a step fault where it wrote a larger value and then overwrote it
(``speed = speed + 30; if (speed > 200) speed = 200;``): the narrowed model lost transitions
and states, and the model was refused.
"""
from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import pytest

from detect.ir import SequentialModel
from detect.statespace.explore import reachable_graph
from detect.transform.load import load_model
from detect.transform.narrowing import INT16
from detect.transform.reachable import counts
from frontends import load

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "pat"
FILES = sorted(CORPUS.glob("*.csp")) if CORPUS.is_dir() else []
#: The corpus file of the issue: 194,218 states, 806,220 transitions, no fault.
LARGE = "viettrung9012__cs5232__project.csp"

#: ``s`` holds 0, 3 and 4, but each step writes 6 or 7 to it before clamping it to 4; ``d``
#: is bounded only through ``n`` (the value analysis cannot bound it: it is taken from the
#: reachable states, and with it every domain is cut to the reachable values).
CLAMPED = """\
var n = 0;
var d = 0;
var s = 0;
P() = [n < 5] move{n++; s = s + 3; if (s > 4) s = 4; d = d + s;} -> P();
#assert P() deadlockfree;
"""


def _wide(model: SequentialModel) -> SequentialModel:
    """The front end's ``model`` with each unranged variable's domain widened by INT16."""
    unranged = {u.variable for u in model.domains.unranged}
    lo, hi = INT16
    return dataclasses.replace(model, variables=tuple(
        dataclasses.replace(v, domain=tuple(sorted(set(v.domain) | set(range(lo, hi + 1)))))
        if v.name in unranged else v for v in model.variables))


def _counts_agree(path: Path) -> tuple[int, int, int]:
    """Counts of the narrowed model, checked equal to those of the widened front-end model."""
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        narrowed = load_model(str(path))
    after = reachable_graph(narrowed, max_states=2_000_000)
    before = reachable_graph(_wide(load(str(path))), max_states=2_000_000)
    assert before.complete and after.complete
    assert counts(after) == counts(before)
    return counts(after)


def _narrows_from_reachable(path: Path) -> bool:
    """Whether loading ``path`` takes a domain from the reachable states (it warns so)."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            load_model(str(path))
    except Exception:  # refused for another reason (tests/test_pat_corpus.py covers it)
        return False
    return any("reachable states" in str(w.message) for w in caught)


def test_a_value_written_then_overwritten_in_a_step_survives_narrowing(tmp_path):
    path = tmp_path / "clamped.csp"
    path.write_text(CLAMPED)
    # n = 0..5 with one move each: 6 states, 5 transitions, no fault (the last one deadlocks)
    assert _counts_agree(path) == (6, 5, 0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        model = load_model(str(path))
    domains = {v.name: v.domain for v in model.variables}
    assert {6, 7} <= set(domains["s"])  # written during steps, held by no state
    assert set(domains["d"]) == {0, 3, 7, 11, 15, 19}


@pytest.mark.skipif(not FILES, reason=f"the shared PAT corpus ({CORPUS}) is not here")
@pytest.mark.parametrize("path", [p for p in FILES if p.name != LARGE], ids=lambda p: p.stem[-40:])
def test_corpus_models_that_narrow_keep_their_counts(path):
    if not _narrows_from_reachable(path):
        pytest.skip("no domain is taken from the reachable states")
    _counts_agree(path)


@pytest.mark.slow
@pytest.mark.skipif(not (CORPUS / LARGE).is_file(), reason=f"{CORPUS / LARGE} is not here")
def test_the_issue_model_keeps_its_194218_states():
    assert _counts_agree(CORPUS / LARGE) == (194_218, 806_220, 0)


def test_the_warning_does_not_show_the_no_value_placeholder(tmp_path):
    """A stored parameter is reset to "no value" when its process ends: the warning showed
    that placeholder (-2^40 - 7) as the low end of the domain taken from the states."""
    path = tmp_path / "tick.csp"
    path.write_text("var n = 0;\n"
                    "Tick(t) = [n < 2] tick{n++} -> Tick(t + n) [] [n >= 2] done -> Skip;\n"
                    "System = Tick(0) ||| Tick(1);\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_model(str(path))
    shown = [str(w.message) for w in caught if "Tick_t" in str(w.message)]
    assert len(shown) == 1 and "its domain 0..4 was taken from the 16 reachable states" in shown[0], shown


def test_a_loop_writing_many_values_in_one_step_is_narrowed_in_one_round(tmp_path, monkeypatch):
    """``i`` counts to 40 and back to 0 inside one step: no state holds 1..40, yet each is
    written.  All are found from the first round's fault states (not one value per round)."""
    from detect.transform import reachable

    rounds = []
    explore = reachable.reachable_graph
    monkeypatch.setattr(reachable, "reachable_graph", lambda *a, **k: rounds.append(1) or explore(*a, **k))
    path = tmp_path / "loop.csp"
    path.write_text("var n = 0;\nvar d = 0;\nvar i = 0;\n"
                    "P() = [n < 3] go{n++; i = 0; while (i < 40) {i++;} i = 0; d = d + n;} -> P();\n")
    assert _counts_agree(path) == (4, 3, 0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        model = load_model(str(path))
    assert set(next(v.domain for v in model.variables if v.name == "i")) == set(range(41))
    # per load (two above): the cut, where the step faults at i = 1, then the cut with 1..40
    assert len(rounds) == 4, len(rounds)
