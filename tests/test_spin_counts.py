"""``detect.checking.spin_counts.with_merging``: Spin's "states, stored" with statement
merging -- the states with a process inside a merged chain are not stored.  Pure (the chain's
pc values given by hand; ``tests/test_export_spin.py`` reads them from pan and compares with
Spin)."""
from __future__ import annotations

from detect.checking.spin_counts import spin_stored_count, with_merging
from detect.transform.load import load_model

LOOP = """active proctype p()
{
	byte k;
	do
	:: k < 2 -> k++
	:: k == 2 -> k = 0
	od
}
"""


def test_merged_pc_values_are_not_stored(tmp_path):
    path = tmp_path / "loop.pml"
    path.write_text(LOOP)
    model = load_model(str(path))
    pc = next(v.name for v in model.variables if v.name.endswith(".pc"))
    from detect.statespace.explore import reachable_graph

    states = reachable_graph(model).states
    at = {v: sum(1 for s in states if s[_slot(model, pc)] == v) for v in model.variable(pc).domain}
    plain = spin_stored_count(model)
    for value, n in at.items():
        if n == 0:
            continue
        merged = spin_stored_count(with_merging(model, {pc: frozenset({value})}))
        assert merged.stored == plain.stored - n and merged.states == plain.states
    # nothing merged: the same count
    assert spin_stored_count(with_merging(model, {})).stored == plain.stored


def _slot(model, name: str) -> int:
    from detect.ir import state_slots

    return next(k for k, sl in enumerate(state_slots(model)) if sl.variable == name)
