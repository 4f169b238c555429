"""Issue 25.2: Promela's ``end``, ``accept`` and ``progress`` labels are part of the symmetry.

A location's labels are in the colour of its literals (``SequentialModel.marks``,
``detect.symmetry.graph``), so detection never exchanges an accepting loop with a plain one
or a valid end location with an invalid one; ``--verify`` checks that every generator maps
each literal a reachable state holds onto one with the same labels.  Spin (``pan -a``) is the
oracle for the acceptance cycle.
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from detect.checking.verify import verify
from detect.cli import main
from detect.ir import literal_marks, state_slots
from detect.symmetry.perm import StatePermutation
from detect.transform.load import load_model
from tests.spin_oracle import SpinRefused, our_acceptance, spin_acceptance, spin_available

#: Issue 25's reproducer: only A's loop is accepting.
ACCEPT = """byte x = 0;
active proctype A() { do :: x == 0 -> x = 1 :: x == 1 -> accept: x = 0 od }
active proctype B() { do :: x == 0 -> x = 1 :: x == 1 -> x = 0 od }
"""
#: the same with a progress label on A's loop
PROGRESS = ACCEPT.replace("accept:", "progress:")
#: A and B wait at two points each; A's first and B's second are valid end locations.  The
#: swap A <-> B that also exchanges the two points keeps the labels (a symmetry); the plain
#: swaps map a valid end state to an invalid one.
ENDS = """byte x;
active proctype A() { if :: true -> end1: x == 9 :: true -> L2: x == 9 fi }
active proctype B() { if :: true -> L1: x == 9 :: true -> end2: x == 9 fi }
"""


def _analyze(tmp_path, text: str, *extra: str) -> tuple[int, dict]:
    path = tmp_path / "labels.pml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["analyze", str(path), "--json", *extra])
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("text,order", [(ACCEPT, 1), (PROGRESS, 1), (ENDS, 2)], ids=["accept", "progress", "ends"])
def test_completeness_counts_the_symmetries_that_keep_the_labels(text, order, tmp_path):
    """``--completeness`` colours literals by their labels too: it agrees with ``--verify``
    and finds every symmetry (before: "found 1 of 2" on ACCEPT)."""
    code, data = _analyze(tmp_path, text, "--verify", "--completeness")
    assert code == 0 and data["verify"]["ok"]
    assert (data["completeness"]["found_order"], data["completeness"]["true_order"]) == (order, order)


@pytest.mark.parametrize("text", [ACCEPT, PROGRESS], ids=["accept", "progress"])
def test_a_labelled_loop_is_not_exchanged_with_a_plain_one(text, tmp_path):
    code, data = _analyze(tmp_path, text, "--verify")
    assert (code, data["group_order"], data["verify"]["ok"]) == (0, 1, True)
    # without the label the two processes are exchanged
    code, data = _analyze(tmp_path, text.replace("accept: ", "").replace("progress: ", ""), "--verify")
    assert (code, data["group_order"], data["verify"]["ok"]) == (0, 2, True)


def test_only_the_accepting_loop_has_an_acceptance_cycle(tmp_path):
    """pan -a finds A's cycle; so do we."""
    assert our_acceptance(ACCEPT)
    if spin_available():
        try:
            assert spin_acceptance(ACCEPT, tmp_path)
        except SpinRefused as e:  # pragma: no cover - a broken Spin installation
            pytest.fail(f"Spin refused the model: {e}")


def _swap_processes(model) -> StatePermutation:
    """A_0.pc <-> B_1.pc, values unchanged (the swap the graph found before labels counted)."""
    slots = state_slots(model)
    a = next(k for k, s in enumerate(slots) if s.label == "A_0.pc")
    b = next(k for k, s in enumerate(slots) if s.label == "B_1.pc")
    assert slots[a].domain == slots[b].domain
    target = list(range(len(slots)))
    target[a], target[b] = b, a
    return StatePermutation(tuple(target), tuple({v: v for v in s.domain} for s in slots))


def test_verify_refutes_a_swap_that_moves_an_accept_label(tmp_path):
    """The swap maps every transition onto a transition (the loops are alike) but A's
    accepting location onto B's plain one: ``--verify`` refutes it by its labels."""
    path = tmp_path / "accept.pml"
    path.write_text(ACCEPT)
    model = load_model(str(path))
    assert "accept" in literal_marks(model).values()
    report = verify(model, [_swap_processes(model)])
    assert report.complete and not report.ok
    verdict = report.verdicts[0]
    assert verdict.kind == "labels" and "(accept)" in verdict.message and "(no label)" in verdict.message


def test_end_labels_on_different_waiting_points(tmp_path):
    """Only the swap that maps A's end location onto B's is reported, by ``analyze`` and by
    ``export``; ``--verify`` confirms it, and refutes the plain swap by its labels."""
    code, data = _analyze(tmp_path, ENDS, "--verify")
    assert (code, data["group_order"], data["verify"]["ok"]) == (0, 2, True)
    path = tmp_path / "labels.pml"
    exported = CliRunner().invoke(main, ["export", str(path), "--format", "json"])
    assert exported.exit_code == 0
    assert json.loads(exported.stdout)["group_order"] == 2
    model = load_model(str(path))
    marks = literal_marks(model)
    slots = {s.label: k for k, s in enumerate(state_slots(model))}
    # literals show values by their source names (a pc by its label or line): back to numbers
    numbers = {(s.label, s.show_value(v)): v for s in state_slots(model) for v in s.domain}

    def mark(literal: str) -> str:
        name, value = literal.split("=", 1)
        return marks.get((slots[name], numbers[name, value]), "")

    # the one generator maps every literal onto one with the same labels, and A's end
    # location onto B's
    (generator,) = json.loads(exported.stdout)["generators"]
    cycles = generator["cycles"]
    assert all(len({mark(x) for x in cycle}) == 1 for cycle in cycles)
    assert any({mark(x) for x in cycle} == {"end"} and {x.split("=")[0] for x in cycle} == {"A_0.pc", "B_1.pc"}
               for cycle in cycles)
    plain = verify(model, [_swap_processes(model)])
    assert not plain.ok and plain.verdicts[0].kind in ("labels", "terminal")


def test_reduced_exploration_keeps_the_deadlock_verdict_of_end_labels(tmp_path):
    """ENDS has invalid end states (A at L2 or B at L1): every strategy reports them."""
    path = tmp_path / "ends.pml"
    path.write_text(ENDS)
    for strategy in ("none", "exact", "graph", "pids"):
        result = CliRunner().invoke(main, ["explore", str(path), "--reduce", strategy, "--json", "--no-trace"])
        assert result.exit_code == 1, (strategy, result.output)
        assert json.loads(result.stdout)["deadlocks"] >= 1
