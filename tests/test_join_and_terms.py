"""The value analysis's branch join and the agreement's hash-consed terms (both made fast for
CMurphi's adash.m, results/cmurphi_examples.md): same answers as their definitions."""
from __future__ import annotations

import random

from detect.transform.agreement import _Terms, agreeing_slots
from detect.transform.domains import _join_env
from detect.transform.load import load_model


def _reference_join(a, b):
    """The definition: pointwise union, ``None`` (unknown) absorbing, a key on one side only
    keeping that side's values."""
    if a is None:
        return b
    if b is None:
        return a
    out = {}
    for k in set(a) | set(b):
        x, y = a.get(k, frozenset()), b.get(k, frozenset())
        out[k] = None if x is None or y is None else x | y
    return out


def test_the_join_is_the_pointwise_union_on_random_environments():
    rng = random.Random(7)
    values = [None, frozenset(), frozenset({0}), frozenset({1}), frozenset({0, 1}), frozenset({2, 3})]
    for _ in range(2000):
        keys = [f"v{i}" for i in range(rng.randint(0, 6))] + [("a", k) for k in range(rng.randint(0, 3))]
        a = {k: rng.choice(values) for k in keys if rng.random() < 0.8}
        # b shares most of a's objects, as the two sides of a branch do
        b = {k: (a[k] if k in a and rng.random() < 0.7 else rng.choice(values)) for k in keys if rng.random() < 0.8}
        assert _join_env(a, b) == _reference_join(a, b)
        assert _join_env(b, a) == _reference_join(a, b)
        assert _join_env(a, a) == a
    assert _join_env(None, {"x": frozenset({1})}) == {"x": frozenset({1})}


def test_hash_consed_terms_are_equal_exactly_when_their_trees_are():
    t = _Terms()
    one = t("const", 1)
    assert t("const", 1) == one and t("const", 2) != one
    a = t("binary", "+", t("pre", 0), one)
    b = t("binary", "+", t("pre", 0), t("const", 1))
    assert a == b and t("ite", a, one, b) == t("ite", b, one, a)
    assert t("binary", "+", t("pre", 1), one) != a


def test_two_slots_written_alike_on_both_sides_of_a_branch_agree(tmp_path):
    # x and y get the same value on each side of the If (built apart on each side); z starts
    # with them but is written otherwise, so only {x, y} is a class.
    path = tmp_path / "m.m"
    path.write_text("""
Var x : 0..3; y : 0..3; z : 0..3;
Startstate Begin x := 0; y := 0; z := 0; End;
Rule "r" true ==> Begin
  If z = 0 Then x := z + 1; y := z + 1; z := 1; Else x := 2; y := 2; z := 0; End;
End;
""")
    model = load_model(str(path))
    names = [v.name for v in model.variables]
    classes = agreeing_slots(model)
    assert [[names[k] for k in c] for c in classes] == [["x", "y"]]
