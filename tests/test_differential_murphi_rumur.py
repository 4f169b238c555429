"""Random Murphi models in Rumur's syntax (``tests/murphi_gen.py`` with ``rumur=True``: no
";" after declarations, "&&", "||", "==", "^", "~", shifts) through Rumur and us: the verdict
must agree and, without an error, the state count (Rumur without symmetry reduction, its
CMurphi-like deadlock check, ``--value-type int32_t`` so that no intermediate value of ours
overflows Rumur's type).  The models of ``generate_rumur_properties`` (global ``Assume``,
``Liveness``, ``Cover``/``Assume`` statements, mostly without errors) likewise, and reduced.
Skipped when ``rumur`` is absent.  A few models by default, many with ``-m slow``."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from detect.cli import main

from tests import rumur_oracle
from tests.murphi_gen import generate, generate_rumur_properties


def _compare(seed: int, tmp_path) -> None:
    why = rumur_oracle.unavailable()
    if why:
        pytest.skip(why)
    text = generate(seed, rumur=True)
    path = tmp_path / "g.m"
    path.write_text(text)
    try:
        theirs = rumur_oracle.check(text, tmp_path / "rumur", value_type="int32_t")
    except rumur_oracle.Rejected as e:  # e.g. IsUndefined of a non-variable, which CMurphi reads
        pytest.skip(f"Rumur refuses seed {seed}: {e}")
    run = CliRunner().invoke(main, ["explore", str(path), "--json"])
    assert run.exit_code in (0, 1), f"seed {seed}: {run.output}\n{text}"
    ours = json.loads(run.output[run.output.index("{"):])
    assert (run.exit_code == 1) == (theirs.error is not None), f"seed {seed}: Rumur {theirs}, ours exit {run.exit_code}\n{text}"
    if theirs.error is None:
        assert ours["states"] == theirs.states, f"seed {seed}: Rumur {theirs.states} states, ours {ours['states']}\n{text}"


@pytest.mark.parametrize("seed", range(6))
def test_random_rumur_model_agrees_with_rumur(seed, tmp_path):
    _compare(seed, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 160))
def test_many_random_rumur_models_agree_with_rumur(seed, tmp_path):
    _compare(seed, tmp_path)


def _compare_properties(seed: int) -> None:
    """A model of ``generate_rumur_properties``: Rumur's verdict and, without an error, its
    count; ``--reduce exact`` gives the unreduced verdict."""
    why = rumur_oracle.unavailable()
    if why:
        pytest.skip(why)
    outcome, detail = rumur_oracle.compare_text(generate_rumur_properties(seed), reduce=True)
    assert outcome == "agree", f"seed {seed}: {detail}\n{generate_rumur_properties(seed)}"


@pytest.mark.parametrize("seed", range(8))
def test_random_rumur_properties_agree_with_rumur(seed):
    _compare_properties(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 200))
def test_many_random_rumur_properties_agree_with_rumur(seed):
    _compare_properties(seed)


def test_rumur_syntax_changes_no_count():
    """The Rumur draws are extra options: with ``rumur`` off the models are CMurphi's as before."""
    assert generate(3) == generate(3, rumur=False) != generate(3, rumur=True)
