"""The exact fast path for S_m acting on m pids, moving process slots *and* renaming pid
values (the Murphi scalarset / n_peterson shape; seed 001's abstraction of unobservable pids
is another thing, ``detect.checking.pids``), beside the sorting fast path for blocks whose
values are not renamed.

``aligned_blocks`` finds m interchangeable blocks of slots (shared with
``detect.checking.reduce.symmetric_blocks``); ``permuted_pids`` checks that the detected group
is exactly S_m moving those blocks and relabelling the values that name pids, and returns the
tables (``detect.statespace.explore.PermutedPids``) the native explorer reads;
``scalarset_canonicaliser`` is the same least image in Python.  Invariant: for the key order
``block_key`` gives, ``scalarset_canonicaliser(spec)(s)`` is the least image of s under G, as
``reduce.smallest_image`` computes it with that key (tests compare them on random states,
and reduced counts with brute-force orbit counts).
"""
from __future__ import annotations

import math
from typing import Callable, Optional, Sequence

from detect.ir.points import LiteralPoints
from detect.statespace.compile import State
from detect.statespace.explore import PermutedPids

Images = tuple[int, ...]


def slot_maps(point_generators: Sequence[Images], pts: LiteralPoints) -> Optional[list[list[int]]]:
    """Where each generator moves each slot (None if one splits a slot's points over slots)."""
    out = []
    for g in point_generators:
        target = list(range(len(pts.slot_points)))
        for k, points in enumerate(pts.slot_points):
            if not points:
                continue
            t = pts.pairs[g[points[0]]][0]
            if any(pts.pairs[g[p]][0] != t for p in points):
                return None
            target[k] = t
        out.append(target)
    return out


def aligned_blocks(maps: Sequence[Sequence[int]], order: Sequence[int]) -> Optional[tuple[tuple[int, ...], ...]]:
    """The moved slots as m blocks the slot maps permute position by position (position i of
    every block in the same slot orbit), or None.  Positions follow ``order`` in the block
    whose slot comes first in it; the blocks follow ``order`` by their first slots."""
    n = len(order)
    moved = sorted({k for m in maps for k in range(n) if m[k] != k})
    if not moved:
        return None
    orbit_of: dict[int, int] = {}
    orbits: list[list[int]] = []
    for k in moved:
        if k in orbit_of:
            continue
        orbit, queue = [k], [k]
        orbit_of[k] = len(orbits)
        for q in queue:
            for m in maps:
                r = m[q]
                if r not in orbit_of:
                    orbit_of[r] = len(orbits)
                    orbit.append(r)
                    queue.append(r)
        orbits.append(sorted(orbit))
    first = orbits[0]
    size = len(first)
    if any(len(o) != size for o in orbits):
        return None
    # φ_j: first orbit -> orbit j commuting with every slot map.
    blocks = [[a] for a in first]
    for other in orbits[1:]:
        phi = None
        for start in other:
            trial = {first[0]: start}
            queue = [first[0]]
            ok = True
            for a in queue:
                for m in maps:
                    a2, b2 = m[a], m[trial[a]]
                    if a2 in trial:
                        if trial[a2] != b2:
                            ok = False
                            break
                    else:
                        trial[a2] = b2
                        queue.append(a2)
                if not ok:
                    break
            if ok and len(trial) == size and len(set(trial.values())) == size:
                phi = trial
                break
        if phi is None:
            return None
        for i, a in enumerate(first):
            blocks[i].append(phi[a])
    # Positions in the order the earliest block's slots have in ``order``, the blocks in the
    # order of their first slots: the key of ``block_key`` reads them block after block.
    position = {k: i for i, k in enumerate(order)}
    earliest = min(blocks, key=lambda b: min(position[k] for k in b))
    positions = sorted(range(len(orbits)), key=lambda i: position[earliest[i]])
    ordered = [tuple(b[i] for i in positions) for b in blocks]
    ordered.sort(key=lambda b: position[b[0]])
    return tuple(ordered)


def block_key(order: Sequence[int], blocks: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The key order of the fast paths: the slots outside the blocks as in ``order``, then the
    blocks one after another (as ``aligned_blocks`` orders them).  Under it the least image
    under Sym(blocks) is the blocks sorted, and a pid's placement is decided block by block."""
    inside = {k for b in blocks for k in b}
    return tuple(k for k in order if k not in inside) + tuple(k for b in blocks for k in b)


def _pid_labels(point_generators, perms, pts: LiteralPoints, m: int) -> Optional[list[Optional[int]]]:
    """A pid (or None) per point such that every generator g maps a point naming pid q to one
    naming perms[g][q] and a point naming none to the same value, and no slot names a pid by
    two values: orbit by orbit, the first labelling of the orbit's first point that propagates
    without contradiction."""
    label: list = [False] * len(pts.pairs)  # False: not labelled yet
    named: dict[tuple[int, int], int] = {}  # (slot, pid) -> the point naming it
    for x0 in range(len(pts.pairs)):
        if label[x0] is not False:
            continue
        for guess in (None, *range(m)):
            trial = {x0: guess}
            owners = {} if guess is None else {(pts.pairs[x0][0], guess): x0}
            queue = [x0]
            ok = (pts.pairs[x0][0], guess) not in named
            for x in queue:
                for g, perm in zip(point_generators, perms):
                    y = g[x]
                    want = None if trial[x] is None else perm[trial[x]]
                    if want is None and pts.pairs[y][1] != pts.pairs[x][1]:
                        ok = False
                    elif y in trial:
                        ok = trial[y] == want
                    elif want is not None and owners.setdefault((pts.pairs[y][0], want), y) != y \
                            or (pts.pairs[y][0], want) in named:
                        ok = False
                    else:
                        trial[y] = want
                        queue.append(y)
                    if not ok:
                        break
                if not ok:
                    break
            if ok:
                for x, q in trial.items():
                    label[x] = q
                named.update(owners)
                break
        else:
            return None
    return label


def permuted_pids(point_generators: Sequence[Images], order_of_group: int, pts: LiteralPoints,
                  order: Sequence[int]) -> Optional[PermutedPids]:
    """The tables of G as S_m on pids (see ``PermutedPids``), or None if G is not of that shape.

    The key is ``block_key(order, blocks)``.  Checked: the moved slots form m aligned blocks
    (``aligned_blocks``); each generator permutes whole blocks (π_g); the points can be
    labelled with pids equivariantly (``_pid_labels``), each slot naming every pid by exactly
    one value or none, the same values at the same position of every block; every generator
    is exactly the action of its π_g; and |G| = m!, so G is the whole image of S_m.

    Why one function: each check reads the blocks and permutations the previous ones built; it
    runs once per model.
    """
    maps = slot_maps(point_generators, pts)
    if maps is None:
        return None
    blocks = aligned_blocks(maps, order)
    if blocks is None:
        return None
    m, size = len(blocks), len(blocks[0])
    if order_of_group != math.factorial(m) or m < 2:
        return None
    n = len(pts.slot_points)
    key = block_key(order, blocks)
    block_of = {k: (q, pos) for q, b in enumerate(blocks) for pos, k in enumerate(b)}
    perms = []
    for tmap in maps:
        perm = [block_of[tmap[b[0]]][0] for b in blocks]
        if any(tmap[k] != blocks[perm[q]][pos] for q, b in enumerate(blocks) for pos, k in enumerate(b)):
            return None
        perms.append(perm)
    label = _pid_labels(point_generators, perms, pts, m)
    if label is None:
        return None
    pid_of = []
    for k, points in enumerate(pts.slot_points):
        named = tuple((pts.pairs[p][1], label[p]) for p in points if label[p] is not None)
        if named and sorted(q for _v, q in named) != list(range(m)):
            return None
        pid_of.append(named)
    if any(pid_of[b[pos]] != pid_of[blocks[0][pos]] for b in blocks for pos in range(size)):
        return None
    spec = PermutedPids(blocks, tuple(k for k in key[:n - m * size] if pid_of[k]), tuple(pid_of))
    act = pid_action(spec, pts)
    if any(tuple(act(perm)) != tuple(g) for g, perm in zip(point_generators, perms)):
        return None
    return spec


def pid_action(spec: PermutedPids, pts: LiteralPoints) -> Callable[[Sequence[int]], list[int]]:
    """π (a permutation of pids) -> the point permutation it acts as (``PermutedPids``)."""
    names = [dict(pairs) for pairs in spec.pid_of]
    values = [{q: v for v, q in pairs} for pairs in spec.pid_of]
    block_of = {k: (q, pos) for q, b in enumerate(spec.blocks) for pos, k in enumerate(b)}

    def images(perm: Sequence[int]) -> list[int]:
        out = []
        for k, v in pts.pairs:
            t = k
            if k in block_of:
                q, pos = block_of[k]
                t = spec.blocks[perm[q]][pos]
            q = names[k].get(v)
            out.append(pts.index[(t, v if q is None else values[t][perm[q]])])
        return out

    return images


def scalarset_canonicaliser(spec: PermutedPids) -> Callable[[State], State]:
    """The least image under S_m on pids, as C's ``canonicalise_pids`` (runtime.c) finds it:
    greedy where the key forces the placement of a pid, backtracking over the candidates whose
    block images tie, one candidate per twin class (pids whose transposition fixes the state).

    Why one function: the per-state search keeps its data in closure variables.
    """
    blocks, fixed = spec.blocks, spec.fixed
    m, size = len(blocks), len(blocks[0])
    names = [dict(pairs) for pairs in spec.pid_of]
    values = [[dict((q, v) for v, q in pairs).get(q) for q in range(m)] for pairs in spec.pid_of]

    def canonicalise(s: State) -> State:
        """The least image of s.

        Why one function: the helpers share the search's placements (closure variables), as
        C's canonicalise_pids shares them in one struct."""
        lab = [names[k].get(v) if names[k] else None for k, v in enumerate(s)]
        pi: list = [None] * m
        inv: list = [None] * m
        placed: list[int] = []

        def place_least(p: int, k: int) -> None:
            q = min((r for r in range(m) if inv[r] is None), key=values[k].__getitem__)
            pi[p], inv[q] = q, p
            placed.append(p)

        def unplace_to(mark: int) -> None:
            while len(placed) > mark:
                p = placed.pop()
                inv[pi[p]] = None
                pi[p] = None

        def block_image(p: int, j: int) -> tuple:
            out = []
            for k, tk in zip(blocks[p], blocks[j]):
                q = lab[k]
                if q is None:
                    out.append(s[k])
                    continue
                if pi[q] is None:
                    place_least(q, tk)
                out.append(values[tk][pi[q]])
            return tuple(out)

        def swap_fixes(p: int, r: int) -> bool:
            if any(lab[k] in (p, r) for k in fixed):
                return False
            swap = {p: r, r: p}
            for q in range(m):
                for k, tk in zip(blocks[q], blocks[swap.get(q, q)]):
                    v = s[k] if lab[k] is None else values[tk][swap.get(lab[k], lab[k])]
                    if v != s[tk]:
                        return False
            return True

        classes: list[int] = []

        def twin_class(p: int) -> int:
            if not classes:
                for q in range(m):
                    classes.append(next((r for r in range(q) if classes[r] == r and swap_fixes(r, q)), q))
            return classes[p]

        out = list(s)
        for k in fixed:
            q = lab[k]
            if q is not None:
                if pi[q] is None:
                    place_least(q, k)
                out[k] = values[k][pi[q]]
        best: list[tuple] = []  # the least image's blocks found so far (a prefix when cut short)

        def search(j: int) -> None:
            if j == m:
                return
            mark = len(placed)
            if inv[j] is not None:
                tied, least = [inv[j]], block_image(inv[j], j)
                unplace_to(mark)
            else:
                tied, least = [], None
                for p in range(m):
                    if pi[p] is not None:
                        continue
                    pi[p], inv[j] = j, p
                    placed.append(p)
                    img = block_image(p, j)
                    unplace_to(mark)
                    if least is None or img < least:
                        tied, least = [p], img
                    elif img == least:
                        tied.append(p)
            if j < len(best):
                if least > best[j]:
                    return
                if least < best[j]:
                    del best[j:]
            if j >= len(best):
                best.append(least)
            seen_classes = set()
            for p in tied:
                if len(tied) > 1:
                    c = twin_class(p)
                    if c in seen_classes:
                        continue
                    seen_classes.add(c)
                if inv[j] is None:
                    pi[p], inv[j] = j, p
                    placed.append(p)
                block_image(p, j)
                search(j + 1)
                unplace_to(mark)

        search(0)
        for b, image in zip(blocks, best):
            for k, v in zip(b, image):
                out[k] = v
        return tuple(out)

    return canonicalise
