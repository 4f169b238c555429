"""The shared corpus of third-party PAT models (issue 12): each file either analyses, with
every detected generator checked on its reachable states (up to ``MAX_STATES``), or is
refused by the located error documented for it in ``results/pat_corpus_refusals.json`` (which
``results/pat_corpus.py`` reports from too)."""
from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import pytest

from detect.checking.verify import verify
from detect.errors import InputError
from detect.symmetry.pipeline import detect
from frontends.csp import load

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "pat"
_DOCUMENTED = json.loads((REPO / "results" / "pat_corpus_refusals.json").read_text(encoding="utf-8"))
#: file -> (text the refusal must contain, why the file cannot be analysed).
REFUSALS = {name: (r["refusal"], r["why"]) for name, r in _DOCUMENTED.items()}
#: Files the front end reads but analysis refuses (a limit: "stage": "analysis"), checked by
#: loading and detecting as ``analyze`` does (narrowing them takes seconds: marked slow).
AT_ANALYSIS = {name for name, r in _DOCUMENTED.items() if r.get("stage") == "analysis"}

FILES = sorted(CORPUS.glob("*.csp")) if CORPUS.is_dir() else []
#: Bound of the check, stated in results/pat_corpus.md too (some models are far larger).
MAX_STATES = 20_000

pytestmark = pytest.mark.skipif(not FILES, reason=f"the shared PAT corpus ({CORPUS}) is not here")


def test_the_corpus_has_its_files_and_every_refusal_is_one_of_them():
    # The corpus grows (issue 25 added viettrung9012's project.csp); every file is tested below.
    assert len(FILES) >= 21
    assert set(REFUSALS) <= {p.name for p in FILES}


@pytest.mark.parametrize("path", [p for p in FILES if p.name not in AT_ANALYSIS], ids=lambda p: p.stem[-40:])
def test_file_analyses_or_is_refused_as_documented(path):
    expected = REFUSALS.get(path.name)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = load(str(path))
    except InputError as e:
        assert expected is not None, f"undocumented refusal: {e}"
        assert expected[0] in str(e) and e.line > 0, str(e)
        return
    assert expected is None, f"expected the refusal {expected[0]!r}"
    detection = detect(model)
    report = verify(detection.model, [g.permutation for g in detection.group.generators], MAX_STATES)
    assert all(v.ok for v in report.verdicts)
    assert report.states > 0
    assert time.perf_counter() - start < 600


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for p in FILES if p.name in AT_ANALYSIS], ids=lambda p: p.stem[-40:])
def test_file_refused_at_analysis_as_documented(path):
    from detect.symmetry.constraints import TableTooLarge
    from detect.transform.load import load_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_model(str(path))  # the front end and narrowing accept it
    with pytest.raises((InputError, TableTooLarge)) as refused:
        detect(model)
    assert REFUSALS[path.name][0] in str(refused.value)
