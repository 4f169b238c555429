"""The lowering gives every step of a process the same atomic-turn condition object.

Why it matters: walks memoised by node identity (``walk.fold``: the value analysis' plans,
``may_fault``, the translation's sizes and names) cost a shared condition once; built
afresh per step, Spin's LTL/mobile1.pml had 8,872 guard conjunct objects for 498 distinct
ones (results/detection_perf.md, "mobile1")."""
from __future__ import annotations

from detect.ir import Binary
from detect.ir.walk import names_read
from frontends.promela import parse_text

MODEL = """
byte x;
active [2] proctype P() {
    do
    :: atomic { x < 3 -> x++ }
    :: atomic { x > 0 -> x-- }
    od
}
active proctype Q() { atomic { x == 2 -> x = 0 } }
"""


def _conjuncts(e):
    if isinstance(e, Binary) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def test_equal_turn_conditions_are_one_object():
    model = parse_text(MODEL, "turn.pml")
    turns: dict = {}
    for s in model.summands:
        for c in _conjuncts(s.guard):
            if "_atomic" in names_read(c):
                turns.setdefault(c, set()).add(id(c))
    assert turns, "no step carries an atomic-turn condition"
    assert len(turns) >= 2  # one per process at least: the test compares like with like
    assert all(len(ids) == 1 for ids in turns.values()), {len(ids) for ids in turns.values()}
