"""Permutation groups on the points ``0 .. degree-1``: a base and strong generating set by the
deterministic (incremental) Schreier–Sims algorithm, and what it answers -- the order,
membership, pointwise stabilisers, orbits and the elements.

A permutation is the tuple of images: ``g[p]`` is the image of point ``p``; ``compose(g, h)``
applies ``g`` first.  Invariants of a ``PermutationGroup`` (the chain): ``strong[i]`` are the
strong generators that fix ``base[:i]`` and generate the stabiliser ``G(i)`` of those points;
``transversals[i][q]`` is an element of ``G(i)`` mapping ``base[i]`` to ``q``, for each ``q`` of
that point's orbit under ``G(i)`` (``G(len(base))`` is trivial).  So |G| is the product of the
orbit lengths, and an element is in G iff sifting it through the transversals ends at the
identity.  The answers do not depend on which strong generators the algorithm happens to
pick, only on the group.

Why not sympy's ``PermutationGroup``: importing sympy takes ~0.4 s, more than a whole reduced
exploration of a small model; these few operations are all the reducers and the group stage
use.  ``tests/test_permgroup.py`` compares the answers with sympy's on random groups.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping, Optional, Sequence

Perm = tuple[int, ...]


def compose(first: Perm, then: Perm) -> Perm:
    """The permutation applying ``first``, then ``then``."""
    return tuple([then[q] for q in first])


def inverse(g: Perm) -> Perm:
    out = [0] * len(g)
    for p, q in enumerate(g):
        out[q] = p
    return tuple(out)


def is_identity(g: Perm) -> bool:
    return all(p == q for p, q in enumerate(g))


def _transversal(generators: Sequence[Perm], point: int, identity: Perm) -> dict[int, Perm]:
    """Orbit of ``point`` under ``generators``: each orbit point -> an element mapping ``point`` to it."""
    found = {point: identity}
    queue = [point]
    for q in queue:
        u = found[q]
        for s in generators:
            r = s[q]
            if r not in found:
                found[r] = compose(u, s)
                queue.append(r)
    return found


def _inverses(transversal: Mapping[int, Perm]) -> dict[int, Perm]:
    """Orbit point -> the inverse of its transversal element (what sifting applies)."""
    return {q: inverse(u) for q, u in transversal.items()}


def _strip(g: Perm, base: Sequence[int], inverse_transversals: Sequence[Mapping[int, Perm]],
           start: int) -> tuple[Perm, int]:
    """``g`` sifted through the levels from ``start``: (what is left, the level where it left the
    orbit, or ``len(base)`` when it passed every level: it then fixes the whole base)."""
    for i in range(start, len(base)):
        b = g[base[i]]
        if b == base[i]:
            continue
        u_inverse = inverse_transversals[i].get(b)
        if u_inverse is None:
            return g, i
        g = compose(g, u_inverse)
    return g, len(base)


@dataclass(frozen=True)
class PermutationGroup:
    """The group ``generators`` generate, with its stabiliser chain (module docstring)."""

    degree: int
    #: the generators given, without the identity and repeats, in their order
    generators: tuple[Perm, ...]
    base: tuple[int, ...]
    strong: tuple[tuple[Perm, ...], ...]
    transversals: tuple[Mapping[int, Perm], ...]
    #: the inverses of the transversals' elements, by orbit point
    inverse_transversals: tuple[Mapping[int, Perm], ...]

    def order(self) -> int:
        return math.prod(len(t) for t in self.transversals)

    def contains(self, g: Sequence[int]) -> bool:
        """Whether the permutation ``g`` (of this degree) is in the group."""
        left, level = _strip(tuple(g), self.base, self.inverse_transversals, 0)
        return level == len(self.base) and is_identity(left)

    def pointwise_stabiliser(self, points: Sequence[int]) -> "PermutationGroup":
        """The subgroup fixing each of ``points``; its generators are strong generators of this
        group (a chain whose base starts with ``points``, computed unless this one's does)."""
        points = tuple(points)
        k = len(points)
        chain = self
        if self.base[:k] != points:
            chain = permutation_group(self.generators, self.degree, points)
        if k >= len(chain.base):
            return permutation_group((), self.degree)
        return PermutationGroup(self.degree, chain.strong[k], chain.base[k:], chain.strong[k:],
                                chain.transversals[k:], chain.inverse_transversals[k:])

    def orbits(self) -> list[list[int]]:
        """The orbits of the group on all points (fixed points as singletons), each sorted."""
        seen = [False] * self.degree
        out = []
        for p in range(self.degree):
            if seen[p]:
                continue
            orbit = [p]
            seen[p] = True
            for q in orbit:
                for g in self.generators:
                    r = g[q]
                    if not seen[r]:
                        seen[r] = True
                        orbit.append(r)
            out.append(sorted(orbit))
        return out

    def elements(self) -> Iterator[Perm]:
        """Every element once: g = u_last ... u_0 (the deepest level's transversal element first)."""
        identity = tuple(range(self.degree))
        levels = [list(t.values()) for t in reversed(self.transversals)]
        for choice in itertools.product(*levels):
            g = identity
            for u in choice:
                g = compose(g, u)
            yield g


def permutation_group(generators: Iterable[Sequence[int]], degree: int,
                      base: Sequence[int] = ()) -> PermutationGroup:
    """The group of ``generators`` (each of length ``degree``) with a stabiliser chain whose base
    starts with ``base``: Holt's deterministic Schreier–Sims, as sympy's ``schreier_sims_incremental``."""
    identity = tuple(range(degree))
    gens: list[Perm] = []
    for g in generators:
        g = tuple(g)
        if not is_identity(g) and g not in gens:
            gens.append(g)
    points = list(base)
    for g in gens:  # every generator must move a base point
        if all(g[b] == b for b in points):
            points.append(next(p for p, q in enumerate(g) if p != q))
    strong = [[g for g in gens if all(g[b] == b for b in points[:i])] for i in range(len(points))]
    transversals = [_transversal(strong[i], points[i], identity) for i in range(len(points))]
    inverses = [_inverses(t) for t in transversals]
    i = len(points) - 1
    while i >= 0:
        found = _missing_generator(i, points, strong, transversals, inverses, identity)
        if found is None:
            i -= 1
            continue
        h, j = found
        if j == len(points):  # h fixes the whole base: a new base point, one h moves
            points.append(next(p for p, q in enumerate(h) if p != q))
            strong.append([])
            transversals.append({})
            inverses.append({})
        for level in range(i + 1, j + 1):
            strong[level].append(h)
            transversals[level] = _transversal(strong[level], points[level], identity)
            inverses[level] = _inverses(transversals[level])
        i = j
    return PermutationGroup(degree, tuple(gens), tuple(points), tuple(tuple(s) for s in strong),
                            tuple(transversals), tuple(inverses))


def _missing_generator(i: int, base: list[int], strong: list[list[Perm]], transversals: list[dict[int, Perm]],
                       inverses: list[dict[int, Perm]], identity: Perm) -> Optional[tuple[Perm, int]]:
    """A Schreier generator of level ``i`` that does not sift through the levels below (what is
    left of it, and the level it stopped at), or None when level ``i`` is complete."""
    for beta, u_beta in list(transversals[i].items()):
        for s in strong[i]:
            image = s[beta]
            g = compose(u_beta, s)
            if g == transversals[i][image]:
                continue
            h, j = _strip(compose(g, inverses[i][image]), base, inverses, i + 1)
            if j < len(base) or h != identity:
                return h, j
    return None
