"""Issue 30, Promela follow-ups: non-progress cycles as ``pan -l``, acceptance cycles looked
for on the quotient by the formula's stabiliser (verdict = the unreduced one, lasso
un-permuted into a real one that ``symdetect replay`` takes), and pid-moving symmetries kept
under a never claim.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest

from detect.checking.cycles import check_acceptance
from detect.checking.reduce import acceptance_quotient, explore_reduced
from detect.symmetry.pipeline import detect
from detect.transform.narrowing import narrow
from frontends.promela import parse_text
from frontends.promela.claim import NON_PROGRESS
from tests.promela_gen import ltl_claimed, progressed
from tests.spin_oracle import (SpinRefused, our_ltl, our_non_progress, spin_available, spin_ltl,
                               spin_non_progress)

ROOT = Path(__file__).resolve().parents[1]
needs_spin = pytest.mark.skipif(not spin_available(), reason="spin or gcc not installed")

#: a token passed round a ring of three; the start picks the holder, so rotations are
#: symmetries (pid-valued data: ``tok`` holds a pid).  The quotient's cycle is one pass,
#: the model's three.
RING = """byte tok = 3;
active [3] proctype P() {
  do
  :: tok == _pid -> tok = (_pid + 1) % 3
  od
}
init { if :: tok = 0 :: tok = 1 :: tok = 2 fi }
ltl never3 { [] <> (tok == 3) }
"""

#: x cycles 0..3 through a progress label, but may also loop at 2 for ever (pan -l: error)
NP_MODEL = """byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> progress: x = 0
  :: x == 2 -> x = 2
  od
}
"""


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, SYMDETECT_MODEL_CACHE="off")
    return subprocess.run([sys.executable, "-m", "detect.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)


def quotient_check(text: str, name=None):
    """The acceptance verdicts of ``text`` checked on the quotient and unreduced, and the quotient's note."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = narrow(parse_text(text, "m.pml", ltl_name=name))
    detection = detect(model)
    reduced = explore_reduced(model, "exact", detection=detection, explorer="python")
    on_quotient = check_acceptance(model, reduced.exploration, 100_000,
                                   quotient=acceptance_quotient(detection, reduced))
    plain = check_acceptance(model, explore_reduced(model, "none").exploration, 100_000)
    return on_quotient, plain


# ---------------------------------------------------------------------- the quotient


@needs_spin
def test_ring_lasso_is_unpermuted_and_replays(tmp_path):
    path = tmp_path / "ring.pml"
    path.write_text(RING)
    trail = tmp_path / "ring.json"
    r = cli("explore", str(path), "--reduce", "exact", "--trail", str(trail))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "states of the quotient by the symmetry group (order 3)" in r.stdout
    assert "(the lasso un-permuted into a real one)" in r.stdout
    steps = json.loads(trail.read_text())
    assert steps["ltl"] == "never3" and steps["loop_from"] is not None
    # the real cycle passes the token round all three processes: three lifts of the quotient's
    cycle = steps["steps"][steps["loop_from"] + 1:]
    assert {s["process"] for s in cycle if s.get("process", "").startswith("P[")} == {"P[0]", "P[1]", "P[2]"}
    r = cli("replay", str(path), str(trail))
    assert r.returncode == 1 and "violation reproduced" in r.stdout, r.stdout + r.stderr
    assert spin_ltl(RING, tmp_path) is True


@needs_spin
def test_quotient_smaller_same_verdicts():
    on_quotient, plain = quotient_check(RING)
    [q] = [a for a in on_quotient.assertions if a.assertion.kind == "acceptance"]
    [p] = [a for a in plain.assertions if a.assertion.kind == "acceptance"]
    assert q.verdict == p.verdict == "fails"
    q_states = int(q.note.split("among ")[1].split()[0])
    p_states = int(p.note.split("among ")[1].split()[0])
    assert q_states < p_states and "quotient" in q.note and "unreduced" in p.note


@needs_spin
def test_token_pool_formula_naming_a_client_reduced_by_its_stabiliser():
    text = (ROOT / "models" / "token_pool_ltl.pml").read_text()
    on_quotient, plain = quotient_check(text, "served")
    [q] = [a for a in on_quotient.assertions if a.assertion.kind == "acceptance"]
    [p] = [a for a in plain.assertions if a.assertion.kind == "acceptance"]
    assert q.verdict == p.verdict == "fails" and "(order 2)" in q.note
    # the un-permuted lasso closes on a real state
    assert q.trace[q.loop_from].state == q.trace[-1].state


def test_accepting_states_not_invariant_fall_back():
    """A quotient whose group moves the accepting states is not used (unreduced, with a note)."""
    from detect.checking.cycles import Quotient

    text = "byte x;\nactive [2] proctype P() { do :: x = 1 - x od }\nnever { accept: do :: x == 0 od }\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = narrow(parse_text(text, "m.pml"))
    plain = explore_reduced(model, "none").exploration
    q = Quotient(model, lambda s: s, (), 2, lambda i: False)
    done = check_acceptance(model, plain, 10_000, quotient=q)
    [a] = [a for a in done.assertions if a.assertion.kind == "acceptance"]
    assert "unreduced" in a.note and any("not invariant" in n for n in done.notes)


@needs_spin
@pytest.mark.parametrize("seed", [pytest.param(s, marks=[pytest.mark.slow] if s > 15 else [])
                                  for s in (7, 11, 15, 23, 31, 35, 39, 47)])
def test_random_pairs_quotient_verdict_is_unreduced_and_pans(seed):
    """Random (model, formula) pairs: the verdict with acceptance cycles on the quotient is
    the unreduced one and pan's (results/ltl_differential.md for the large run)."""
    text = ltl_claimed(seed)
    with tempfile.TemporaryDirectory() as d:
        try:
            spin = spin_ltl(text, Path(d))
        except SpinRefused as e:
            pytest.skip(f"Spin refuses the model: {e}")
    assert our_ltl(text) == spin
    assert our_ltl(text, reduce="exact") == spin


# ---------------------------------------------------------------------- pid symmetry under a claim


@needs_spin
def test_pid_symmetry_kept_under_a_symmetric_claim():
    """peterson_filter's S_3 moves pid values (victim[]); the stutter move's guard read
    ``victim[l]`` of each process in turn, and the fault of the second read, reachable only
    where the first process was blocked, singled out the first: the group under any claim
    was trivial.  A formula over ``incs`` keeps all of S_3, one naming level[0] only S_2."""
    base = (ROOT / "models" / "peterson_filter.pml").read_text()
    text = base + "ltl safe { [] (incs <= 1) }\nltl first { [] (level[0] > 0 -> <> (incs > 0)) }\n"
    for name, order in (("safe", 6), ("first", 2)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = narrow(parse_text(text, "m.pml", ltl_name=name))
        assert detect(model).group.order == order, name
    on_quotient, plain = quotient_check(text, "safe")
    assert [a.verdict for a in on_quotient.assertions] == [a.verdict for a in plain.assertions]


# ---------------------------------------------------------------------- non-progress cycles


@needs_spin
def test_non_progress_lasso_replays(tmp_path):
    path = tmp_path / "np.pml"
    path.write_text(NP_MODEL)
    r = cli("explore", str(path))
    assert r.returncode == 3 and "pass --non-progress" in r.stdout, r.stdout + r.stderr
    trail = tmp_path / "np.json"
    r = cli("explore", str(path), "--non-progress", "--trail", str(trail))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "no non-progress cycle (progress labels, as pan -l): fails" in r.stdout
    assert "the cycle starts here" in r.stdout
    r = cli("replay", str(path), str(trail))
    assert r.returncode == 1 and "violation reproduced" in r.stdout, r.stdout + r.stderr
    assert spin_non_progress(NP_MODEL, tmp_path) is True
    fixed = NP_MODEL.replace(":: x == 2 -> x = 2\n", "")
    path.write_text(fixed)
    r = cli("explore", str(path), "--non-progress")
    assert r.returncode == 0 and ": holds" in r.stdout, r.stdout + r.stderr
    assert spin_non_progress(fixed, tmp_path) is False


def test_non_progress_options():
    r = cli("explore", str(ROOT / "models" / "token_pool_ltl.pml"), "--non-progress", "--ltl", "busy")
    assert r.returncode == 2 and "exclude each other" in r.stderr
    r = cli("explore", str(ROOT / "models" / "dining_philosophers.csp"), "--non-progress")
    assert r.returncode == 2 and "Promela models only" in r.stderr


@needs_spin
def test_non_progress_replaces_the_claim(tmp_path):
    """pan -DNP checks its own claim: the model's never claim and ltl formulas are not used;
    a system that stops is no non-progress cycle (np_ is false on a stutter move)."""
    text = "byte x;\nactive proctype P() { x = 1; x = 2 }\nnever { do :: x > 5 od }\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = parse_text(text, "m.pml", ltl_name=NON_PROGRESS)
    assert any("never claim is not used" in str(w.message) for w in caught)
    assert [a.kind for a in model.assertions] == ["acceptance"]
    assert our_non_progress(text) is False
    assert spin_non_progress(text, tmp_path) is False


@needs_spin
@pytest.mark.parametrize("seed", [pytest.param(s, marks=[pytest.mark.slow] if s > 5 else [])
                                  for s in (1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 13, 15)])
def test_random_non_progress_agrees_with_pan_l(seed):
    """Random models with progress labels: our verdict is pan -l's (compiled -DNP), and the
    reduced one (quotient by the detected group) the same."""
    text = progressed(seed)
    with tempfile.TemporaryDirectory() as d:
        try:
            spin = spin_non_progress(text, Path(d))
        except SpinRefused as e:
            pytest.skip(f"Spin refuses the model: {e}")
    assert our_non_progress(text) == spin
    assert our_non_progress(text, reduce="exact") == spin
