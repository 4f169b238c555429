"""Differential testing of the Promela front end against Spin, the oracle.

(a) Random models (``tests/promela_gen.py``): for each, Spin's "states, stored" and error
    verdict must equal what ``symdetect explore --spin-states`` reports (``spin_oracle``:
    the counts are compared when no assertion fails, else on the model with its assertions
    neutralised, since Spin goes on past a failed assertion and we stop; and only where pan
    completed its search).  12 models by default, 313 more with ``-m slow``.
(b) Every model of ``../shared/corpus/spin`` and ``../shared/corpus/beem/promela`` we accept,
    compared the same way; the ones taking more than a few seconds are ``slow``.
(c) Random models with workers created by ``run``, remote references ``W[k]@L`` and
    ``end``/``accept``/``progress`` labels (``promela_gen.dynamic``, ``dynamic_claimed``).

Random models are also explored with ``--reduce pids`` (its per-state checks on): it must
find Spin's error verdict, and refute none of its symmetries (``spin_oracle.compare``).

Every disagreement these found is pinned by a minimal model in
``tests/test_promela_spin_regressions.py``; ``results/differential_promela.py`` reports
the counts.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from detect.errors import InputError
from tests.promela_gen import dynamic, dynamic_claimed, model
from tests.spin_oracle import SpinRefused, compare, spin_available

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"
SLOW_CORPUS = {"leader0.pml", "pftp.pml", "snoopy.pml", "sort.pml"}

# seeds 12..24 were in the default run until the CI time budget (results/test_time.md)
FAST_SEEDS = range(12)
SLOW_SEEDS = [*range(12, 25), *range(1000, 1300)]


def _needs_spin():
    if not spin_available():
        pytest.skip("spin or gcc not installed (apt-get install spin)")


def _differ(text: str, tmp_path: Path, name: str = "m.pml", reduce: str | None = None) -> str | None:
    _needs_spin()
    try:
        return compare(text, tmp_path, name, reduce)
    except InputError as e:
        pytest.skip(f"not accepted by symdetect: {e}")
    except SpinRefused as e:
        pytest.skip(f"Spin gives no count: {e}")


@pytest.mark.parametrize("seed", FAST_SEEDS)
def test_random_model_agrees_with_spin(seed, tmp_path):
    text = model(seed)
    assert _differ(text, tmp_path, reduce="pids") is None, text


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
def test_many_random_models_agree_with_spin(seed, tmp_path):
    text = model(seed)
    assert _differ(text, tmp_path, reduce="pids") is None, text


DYNAMIC = {"dynamic": dynamic, "dynamic_claimed": dynamic_claimed}
FAST_DYNAMIC_SEEDS = range(5)
SLOW_DYNAMIC_SEEDS = range(1000, 1030)
#: interleaved workers multiply states: larger random models are skipped (our explorer is
#: Python, three times over here)
DYNAMIC_STATES = 50_000


def _small(text: str) -> None:
    import warnings

    from detect.statespace.explore import reachable_graph
    from detect.transform.narrowing import narrow
    from frontends.promela import parse_text

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = narrow(parse_text(text, "m.pml"))
    except InputError as e:
        pytest.skip(f"not accepted by symdetect: {e}")
    if not reachable_graph(model, max_states=DYNAMIC_STATES).complete:
        pytest.skip(f"more than {DYNAMIC_STATES:,} states")


@pytest.mark.parametrize("kind", sorted(DYNAMIC))
@pytest.mark.parametrize("seed", FAST_DYNAMIC_SEEDS)
def test_random_dynamic_model_agrees_with_spin(seed, kind, tmp_path):
    text = DYNAMIC[kind](seed)
    _small(text)
    assert _differ(text, tmp_path, reduce="pids") is None, text


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(DYNAMIC))
@pytest.mark.parametrize("seed", SLOW_DYNAMIC_SEEDS)
def test_many_random_dynamic_models_agree_with_spin(seed, kind, tmp_path):
    text = DYNAMIC[kind](seed)
    _small(text)
    assert _differ(text, tmp_path, reduce="pids") is None, text


def _corpus_files() -> list:
    files = sorted((CORPUS / "spin").glob("*.pml")) + sorted((CORPUS / "beem" / "promela").glob("*.pml"))
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"shared corpus not available at {CORPUS}"))]
    return [pytest.param(f, id=f"{f.parent.name}/{f.name}",
                         marks=[pytest.mark.slow] if f.name in SLOW_CORPUS else []) for f in files]


@pytest.mark.parametrize("path", _corpus_files())
def test_corpus_model_agrees_with_spin(path, tmp_path):
    assert _differ(path.read_text(), tmp_path, str(path)) is None


def test_generator_is_deterministic_and_varied():
    texts = [model(s) for s in FAST_SEEDS]
    assert texts == [model(s) for s in FAST_SEEDS]
    joined = "\n".join(texts)
    for construct in ("atomic { do", "d_step", "else", "break", "run P", "active [2]", "[0] of", "[2] of",
                      "assert(", "_pid", "i0 = i0 + 65537", "s0 = s0 + 30000",
                      # issue 25: declarations after a statement (also inside a loop), initialisers
                      # reading variables, goto back into an atomic sequence (also as its last element)
                      "; byte d", "-> byte d", "byte l1 = ", "byte g1 = g0 + 1", "goto LA", "endA"):
        assert construct in joined, construct


def test_dynamic_generator_covers_runs_remote_references_and_labels():
    """The constructs of issue 25: workers created by run at run time, observed by remote
    references in assertions, guards, a watcher and never claims, with end/accept/progress
    labels; and some models whose workers ``--reduce pids`` may exchange."""
    import warnings

    from detect.checking.pids import anonymous_pids
    from detect.transform.narrowing import narrow
    from frontends.promela import parse_text

    texts = [dynamic(s) for s in FAST_DYNAMIC_SEEDS] + [dynamic_claimed(s) for s in FAST_DYNAMIC_SEEDS]
    assert texts == [dynamic(s) for s in FAST_DYNAMIC_SEEDS] + [dynamic_claimed(s) for s in FAST_DYNAMIC_SEEDS]
    joined = "\n".join(texts)
    for construct in ("run W(", "]@", "assert(", "active proctype Watch", "never {", "end", "accept", "progress",
                      "if :: g1 = 0 :: g1 = 1 fi", "do :: n < "):
        assert construct in joined, construct
    assert any("@" in t.split("never {")[1] for t in texts if "never {" in t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        anonymous = sum(anonymous_pids(narrow(parse_text(t, "m.pml"))) is not None for t in texts)
    assert anonymous >= 2, anonymous
