"""``detect.symmetry.permgroup`` answers as sympy's ``PermutationGroup`` does (sympy is the
reference here only): order, membership, pointwise stabilisers, orbits, the elements."""
from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.combinatorics import Permutation
from sympy.combinatorics import PermutationGroup as SympyGroup

from detect.symmetry.permgroup import compose, inverse, permutation_group


@st.composite
def groups(draw, max_degree: int = 10):
    """(degree, generators, a permutation, a list of points) on up to ``max_degree`` points."""
    degree = draw(st.integers(1, max_degree))
    perm = st.permutations(range(degree)).map(tuple)
    gens = draw(st.lists(perm, max_size=4))
    points = draw(st.lists(st.integers(0, degree - 1), unique=True, max_size=degree))
    return degree, gens, draw(perm), points


def sympy_group(degree, gens) -> SympyGroup:
    return SympyGroup([Permutation(list(g)) for g in gens] or [Permutation(list(range(degree)))])


@settings(max_examples=300, deadline=None)
@given(groups())
def test_order_membership_stabilisers_and_orbits_agree_with_sympy(case):
    degree, gens, other, points = case
    ours, theirs = permutation_group(gens, degree), sympy_group(degree, gens)
    assert ours.order() == theirs.order()
    assert ours.contains(other) == theirs.contains(Permutation(list(other)))
    assert all(ours.contains(g) for g in gens)
    stabiliser = ours.pointwise_stabiliser(points)
    assert stabiliser.order() == theirs.pointwise_stabilizer(points).order()
    assert all(g[p] == p for g in stabiliser.generators for p in points)
    assert sorted(ours.orbits()) == sorted(sorted(o) for o in theirs.orbits())


@settings(max_examples=100, deadline=None)
@given(groups(max_degree=6), st.lists(st.integers(0, 5), max_size=3))
def test_the_elements_are_the_group_each_once(case, base):
    degree, gens, _, _ = case
    group = permutation_group(gens, degree, [p for p in dict.fromkeys(base) if p < degree])
    elements = list(group.elements())
    assert len(elements) == len(set(elements)) == group.order()
    # Closed under the generators: the whole group, not a subset of it.
    assert {compose(e, g) for e in elements for g in gens} <= set(elements)


def test_a_base_that_starts_with_given_points_and_the_symmetric_group_on_blocks():
    """S_m permuting m blocks of 3 points: order m!; the stabiliser of a block's points is
    S_(m-1); a product of generators and an inverse is a member, a transposition of two
    points inside one block is not."""
    m, b = 6, 3
    n = m * b
    swap = list(range(n))
    for k in range(b):
        swap[k], swap[b + k] = b + k, k
    cycle = [((p // b + 1) % m) * b + p % b for p in range(n)]
    group = permutation_group([swap, cycle], n, base=[4, 5])
    assert group.base[:2] == (4, 5)
    assert group.order() == math.factorial(m)
    assert group.pointwise_stabiliser([0, 1, 2]).order() == math.factorial(m - 1)
    assert group.contains(compose(compose(tuple(swap), tuple(cycle)), inverse(tuple(cycle))))
    inside = list(range(n))
    inside[0], inside[1] = 1, 0
    assert not group.contains(inside)
    assert permutation_group([], 4).order() == 1 and permutation_group([], 4).contains(range(4))
