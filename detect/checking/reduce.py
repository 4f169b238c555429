"""Symmetry-reduced exploration: canonicalisers behind one interface and property checks.

A *canonicaliser* maps a state to a representative of its orbit under the detected symmetry
group G (``detect.symmetry.group.SymmetryGroup``), which acts on literal points ``(slot, value)``.
Strategies (``make_reducer``):

* ``enumerate`` -- every element of G, the least image (refused above ``enumerate_limit``);
* ``exact``     -- the same least image, found by Linton-style backtracking over a stabiliser
  chain that follows the state (Schreier–Sims, ``detect.symmetry.permgroup``, gives each stabiliser), with a sorting
  fast path when G is the full symmetric group on interchangeable blocks of slots, and one
  for S_m permuting process slots and pid values together (``detect.checking.scalarset``);
* ``local``     -- hill climbing with the generators: sound, may keep several per orbit;
* ``graph``     -- isomorphism of the coloured graph with the state's pre-literals marked:
  colour-refinement certificates as the hash key, an exact isomorphism search (nauty's or
  bliss's canonical form past a budget) on equal keys; exact under Aut(graph), whose action
  on literals is G;
* ``pids``      -- seed 001's pid abstraction (``detect.checking.pids``: processes whose pids
  nobody can observe are interchangeable while present), then ``exact`` under G, repeated
  until neither changes the state: sound, exact when G is trivial.

"Least" is lexicographic on ``key(s) = (s[o] for o in slot_order)``.  ``slot_order`` puts the
slots G fixes first, then greedily the next slot and every slot its stabiliser fixes (for
process symmetry: whole processes one after the other; ``scalarset.block_key`` keeps whole blocks
of slots together where the last ones would interleave), so that the least image of a state
under a symmetric group is its processes sorted, and backtracking rarely branches.  Invariant:
``exact`` and ``enumerate`` return the same state; every strategy returns a state of the orbit.

Property verdicts under reduction are kept only where they are valid: ``terminal`` and each
``reaches``/``invariant`` condition are checked to be G-invariant (``condition_invariant``);
the others are re-checked without reduction and say so in their note.
"""
from __future__ import annotations

import functools
import itertools
import math
import operator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from detect.statespace.compile import State, compile_model
from detect.statespace.distributed import DistributedUnavailable  # noqa: F401 (for the CLI: Ray cannot be used)
from detect.symmetry.permgroup import PermutationGroup, permutation_group
from detect.symmetry.automorphisms import AUTO_THRESHOLD
from detect.statespace.explore import (
    CanonicalUndecided, EnumeratedElements, Exploration, LocalSymmetry, NativeCanonical, NotASymmetry,
    PointSymmetry, Progress, SortedBlocks, explore_state_space,
)
from detect.statespace.native.canon import gathered, map_list
from detect.ir import Const, Expr, Index, Name, SequentialModel, state_slots
from detect.ir.points import LiteralPoints
from detect.ir.walk import subexpressions
from detect.checking.pids import anonymous_pids, pid_canonicaliser, pid_swaps
from detect.checking.scalarset import (
    aligned_blocks, block_key, permuted_pids, scalarset_canonicaliser, slot_maps,
)

if TYPE_CHECKING:  # for annotations: numpy is imported where the graph strategy runs
    import numpy as np

STRATEGIES = ("none", "exact", "enumerate", "local", "graph", "pids")
#: ``enumerate`` refuses groups larger than this (per-state cost is |G| images).
ENUMERATE_LIMIT = 50_000
#: Largest number of valuations tried when checking that a condition is G-invariant.
INVARIANCE_LIMIT = 200_000
#: Branches the graph strategy's isomorphism search may try before it asks nauty/bliss.
SEARCH_BUDGET = 64

Images = tuple[int, ...]  # a permutation of literal points, as the image of each point


class ReductionError(ValueError):
    """A strategy cannot be used for this group (e.g. ``enumerate`` on a huge group)."""


@dataclass(frozen=True)
class Reducer:
    """A canonicaliser and what it is: ``canonicalise(s)`` lies in the orbit of ``s``."""

    strategy: str
    group_order: int
    canonicalise: Optional[Callable[[State], State]]
    slot_order: tuple[int, ...]
    method: str
    #: Set when the native explorer computes ``canonicalise`` in C (sorting blocks, or S_m on pids).
    native_canonical: Optional[NativeCanonical] = None
    #: Moves ``canonicalise`` makes beyond the group's generators, each checked on the
    #: expanded states where it applies (``pids``: ``detect.checking.pids.pid_swaps``).
    local_symmetries: tuple[LocalSymmetry, ...] = ()
    #: Murphi multisets sorted (``detect.checking.multisets``): CMurphi's sort, by which the
    #: checks compare steps, and the place exchanges (P's generators), checked and used too.
    settle: Optional[Callable[[State], State]] = None
    place_symmetries: tuple[PointSymmetry, ...] = ()


@dataclass(frozen=True)
class ReducedExploration:
    exploration: Exploration
    reducer: Reducer
    #: why some verdicts came from an unreduced run (empty when none did)
    notes: tuple[str, ...]
    #: per CSP# LTL assertion, which group reduced its check and why (``checking.temporal``)
    ltl_symmetry: tuple[str, ...] = ()


# ------------------------------------------------------------------------ points and actions


def _action_source(images: Sequence[int], pts: LiteralPoints) -> Optional[str]:
    """Python source of ``lambda s: σ(s)`` for the point permutation ``images`` (None = id).

    σ(s)[target] = value map of slot k applied to s[k]; unmoved slots are copied.
    """
    n = len(pts.slot_points)
    parts = [f"s[{k}]" for k in range(n)]
    moved = False
    for k, points in enumerate(pts.slot_points):
        if not points:
            continue
        target = pts.pairs[images[points[0]]][0]
        mapping = {pts.pairs[p][1]: pts.pairs[images[p]][1] for p in points}
        if target == k and all(a == b for a, b in mapping.items()):
            continue
        moved = True
        if all(b == a for a, b in mapping.items()):
            parts[target] = f"s[{k}]"
        else:
            parts[target] = f"{mapping!r}[s[{k}]]"
    if not moved:
        return None
    return "lambda s: (" + ", ".join(parts) + ",)"


def _compile_action(images: Sequence[int], pts: LiteralPoints) -> Callable[[State], State]:
    src = _action_source(images, pts)
    return (lambda s: s) if src is None else eval(src)  # generated from ints and dicts of ints only


def point_symmetry(images: Sequence[int], pts: LiteralPoints) -> PointSymmetry:
    """The generator ``images`` as the explorer checks it (compiled, images kept for C)."""
    return PointSymmetry(tuple(images), _compile_action(images, pts))


def _inverse(images: Sequence[int]) -> Images:
    inv = [0] * len(images)
    for p, q in enumerate(images):
        inv[q] = p
    return tuple(inv)


def slot_order(group: PermutationGroup, pts: LiteralPoints) -> tuple[int, ...]:
    """Slots fixed (setwise) by G first, then greedily: the next slot, then all its stabiliser fixes."""
    remaining = [k for k in range(len(pts.slot_points))]
    order: list[int] = []
    current = group
    while remaining:
        gens = current.generators

        def fixed(k: int) -> bool:
            pts_k = pts.slot_points[k]
            return not pts_k or all(pts.pairs[g[pts_k[0]]][0] == k for g in gens)

        settled = [k for k in remaining if fixed(k)]
        if settled:
            order.extend(settled)
            remaining = [k for k in remaining if k not in set(settled)]
            continue
        k = remaining.pop(0)
        order.append(k)
        current = current.pointwise_stabiliser(pts.slot_points[k])
    return tuple(order)


def _key_function(order: Sequence[int]) -> Callable[[State], tuple]:
    if len(order) == 1:
        only = order[0]
        return lambda s: (s[only],)
    return operator.itemgetter(*order) if order else (lambda s: ())


# ------------------------------------------------------------------------ exact: smallest image


class _GroupInfo:
    """One stabiliser in the chain: its group, orbit tables per slot, children."""

    def __init__(self, group: PermutationGroup, pts: LiteralPoints):
        self.group = group
        self.pts = pts
        self.gens = group.generators
        self.trivial = not self.gens
        self.order = group.order()
        self._levels: dict[int, object] = {}
        self.children: dict[int, "_GroupInfo"] = {}

    def level(self, slot: int):
        """None if every generator fixes each point of ``slot``; else (sources, table).

        ``table[(j, a)] = (b, act)``: ``b`` is the least value with ``(slot, b)`` in the orbit of
        point ``(j, a)`` and ``act`` applies an element of this group mapping ``(j, a)`` to it.
        """
        if slot in self._levels:
            return self._levels[slot]
        pts, gens = self.pts, self.gens
        points = pts.slot_points[slot]
        if all(g[p] == p for g in gens for p in points):
            self._levels[slot] = None
            return None
        degree = len(pts.pairs)
        table: dict[tuple[int, int], tuple[int, Callable]] = {}
        seen: set[int] = set()
        for x in points:
            if x in seen:
                continue
            b = pts.pairs[x][1]
            # BFS: word[q] maps x to q; we store its inverse, which maps q to x.
            word = {x: tuple(range(degree))}
            queue = [x]
            seen.add(x)
            for q in queue:
                wq = word[q]
                for g in gens:
                    r = g[q]
                    if r not in word:
                        word[r] = tuple(g[i] for i in wq)
                        seen.add(r)
                        queue.append(r)
            for q, wq in word.items():
                table[pts.pairs[q]] = (b, _compile_action(_inverse(wq), pts) if q != x else None)
        sources = tuple(sorted({j for (j, _a) in table}))
        self._levels[slot] = (sources, table)
        return self._levels[slot]


class _Registry:
    """Stabilisers shared by identity, so equal subgroups reached by different prefixes are one."""

    def __init__(self, pts: LiteralPoints):
        self.pts = pts
        self.known: dict[tuple, list[_GroupInfo]] = {}

    def intern(self, group: PermutationGroup) -> _GroupInfo:
        order = group.order()
        orbits = tuple(sorted(tuple(o) for o in group.orbits() if len(o) > 1)) if order > 1 else ()
        bucket = self.known.setdefault((order, orbits), [])
        for info in bucket:
            # Same order and one contains the other's generators: the same group.
            if all(info.group.contains(g) for g in group.generators):
                return info
        info = _GroupInfo(group, self.pts)
        bucket.append(info)
        return info

    def child(self, info: _GroupInfo, point: int) -> _GroupInfo:
        found = info.children.get(point)
        if found is None:
            found = info.children[point] = self.intern(info.group.pointwise_stabiliser([point]))
        return found


def smallest_image(group: PermutationGroup, pts: LiteralPoints, order: Sequence[int]) -> Callable[[State], State]:
    """The least image of a state under ``group`` (on points), by backtracking.

    Level by level along ``order``: keep the candidate images whose key prefix is least so far;
    at slot ``t`` the value is minimised over the orbits (under the current stabiliser H) of
    the candidates' literals, every candidate literal reaching the least value is moved there
    by a transversal element, and H becomes the stabiliser of that point.  Candidates are
    deduplicated as states.  Stabilisers are memoised per point prefix, so steady-state cost
    is orbit look-ups and tuple builds.
    """
    registry = _Registry(pts)
    root = registry.intern(group)
    key = _key_function(order)
    index = pts.index

    def canonicalise(s: State) -> State:
        cands = {s}
        info = root
        for slot in order:
            if info.trivial:
                break
            lvl = info.level(slot)
            if lvl is None:
                if len(cands) > 1:
                    best = min(c[slot] for c in cands)
                    cands = {c for c in cands if c[slot] == best}
                continue
            sources, table = lvl
            best = None
            chosen: list = []
            for c in cands:
                for j in sources:
                    entry = table.get((j, c[j]))
                    if entry is None:
                        continue
                    b = entry[0]
                    if best is None or b < best:
                        best, chosen = b, [(c, entry[1])]
                    elif b == best:
                        chosen.append((c, entry[1]))
            cands = {c if act is None else act(c) for c, act in chosen}
            info = registry.child(info, index[(slot, best)])
        if len(cands) == 1:
            return next(iter(cands))
        return min(cands, key=key)

    return canonicalise


# ------------------------------------------------------------------------ exact: sorting fast path


def symmetric_blocks(point_generators: Sequence[Images], order_of_group: int, pts: LiteralPoints,
                     order: Sequence[int]) -> Optional[tuple[tuple[int, ...], ...]]:
    """Blocks of slots (each in ``order``) if G is exactly Sym(blocks) acting without value maps.

    Conditions checked: every generator moves slots only (identity value maps); the moved slots
    split into m blocks that every generator maps onto each other position by position
    (``scalarset.aligned_blocks``, positions and blocks following ``order``); and |G| = m!.  Then
    the least image for the key ``scalarset.block_key(order, blocks)`` is the blocks sorted by their
    value tuples.
    """
    if any(pts.pairs[g[p]][1] != v for g in point_generators for p, (_k, v) in enumerate(pts.pairs)):
        return None  # a value map is not the identity
    maps = slot_maps(point_generators, pts)
    blocks = aligned_blocks(maps, order) if maps is not None else None
    if blocks is None or order_of_group != math.factorial(len(blocks)):
        return None
    return blocks


def sorting_canonicaliser(blocks: Sequence[Sequence[int]]) -> Callable[[State], State]:
    """Least image under Sym(blocks): write the blocks' value tuples back sorted."""
    getters = [operator.itemgetter(*b) if len(b) > 1 else (lambda s, k=b[0]: (s[k],)) for b in blocks]
    slots = [k for b in blocks for k in b]

    def canonicalise(s: State) -> State:
        parts = sorted([get(s) for get in getters])
        out = list(s)
        for k, v in zip(slots, itertools.chain.from_iterable(parts)):
            out[k] = v
        return tuple(out)

    return canonicalise


# ------------------------------------------------------------------------ enumerate, local


def enumerating_canonicaliser(group: PermutationGroup, pts: LiteralPoints, key) -> Callable[[State], State]:
    actions = [_compile_action(g, pts) for g in group.elements()]

    def canonicalise(s: State) -> State:
        return min((act(s) for act in actions), key=key)

    return canonicalise


#: at most this many cells (elements x slots) are handed to the native explorer's C tables
NATIVE_ELEMENT_CELLS = 4_000_000


def enumerated_elements(group: PermutationGroup, pts: LiteralPoints, order: Sequence[int]) -> Optional[EnumeratedElements]:
    """``enumerating_canonicaliser``'s least image as the native explorer's C tables (the
    elements in gather form, least in ``order``: the same key), or None where an element
    splits a slot's values or the tables would be too large."""
    n = len(pts.slot_points)
    if group.order() * max(1, n) > NATIVE_ELEMENT_CELLS:
        return None
    maps: dict = {(0, ()): 0}
    elements = []
    for g in group.elements():
        image = gathered(g, pts.pairs, range(n), maps)
        if image is None:
            return None
        elements.append(image)
    return EnumeratedElements(tuple(elements), map_list(maps), tuple(order))


def local_canonicaliser(point_generators: Sequence[Images], pts: LiteralPoints, key) -> Callable[[State], State]:
    """Apply generators (and inverses) while the key decreases: sound, not canonical."""
    actions = []
    for g in point_generators:
        for images in (tuple(g), _inverse(g)):
            act = _compile_action(images, pts)
            if act not in actions:
                actions.append(act)

    def canonicalise(s: State) -> State:
        best, best_key = s, key(s)
        improved = True
        while improved:
            improved = False
            for act in actions:
                t = act(best)
                tk = key(t)
                if tk < best_key:
                    best, best_key, improved = t, tk, True
        return best

    return canonicalise


# ------------------------------------------------------------------------ graph


def marked_canonical_form(graph, engine: str = "auto") -> Callable[[np.ndarray], bytes]:
    """The canonical form of the coloured graph with the nodes ``marked`` (a bool per node):
    equal iff the marked graphs are isomorphic.  nauty (dense) up to ``AUTO_THRESHOLD`` nodes,
    bliss (igraph, sparse) above, as in ``detect.symmetry.automorphisms``, or as ``engine`` says."""
    classes = graph.colour_classes()
    if engine == "auto":
        engine = "nauty" if graph.n <= AUTO_THRESHOLD else "bliss"
    if engine == "nauty":
        import pynauty

        adjacency: dict[int, list[int]] = {v: [] for v in range(graph.n)}
        for u, v in graph.edges:
            adjacency[u].append(v)
        nauty_graph = pynauty.Graph(graph.n, directed=False, adjacency_dict=adjacency)

        def label(partition: list[set]) -> bytes:
            nauty_graph.set_vertex_coloring(partition)
            return pynauty.certificate(nauty_graph)
    else:
        import igraph

        bliss_graph = igraph.Graph(n=graph.n, edges=list(graph.edges), directed=False)

        def label(partition: list[set]) -> bytes:
            colour = [0] * graph.n
            for c, cls in enumerate(partition):
                for v in cls:
                    colour[v] = c
            perm = bliss_graph.canonical_permutation(sh="fl", color=colour)
            # igraph's permute_vertices(perm) is the canonical graph: its vertex i is old vertex
            # perm[i] (checked on random isomorphic pairs; the other reading is not canonical).
            canon = bliss_graph.permute_vertices(perm)
            canon_colour = [colour[perm[i]] for i in range(graph.n)]
            return repr((sorted(tuple(sorted(e)) for e in canon.get_edgelist()), canon_colour)).encode()

    def form(marked: np.ndarray) -> bytes:
        # Each literal colour class split into unmarked, marked, in that fixed order, so the
        # ordered partition is canonical.
        partition = []
        for cls in classes:
            inside = {v for v in cls if marked[v]}
            if inside:
                rest = set(cls) - inside
                if rest:
                    partition.append(rest)
                partition.append(inside)
            else:
                partition.append(set(cls))
        return label(partition)

    return form


def state_marks(graph) -> Callable[[State], np.ndarray]:
    """A state's pre-literal nodes of ``graph``, as a bool per node."""
    import numpy as np  # here, not at the top: see graph_canonicaliser

    node_of_literal = [dict(values) for values in graph.pre_literal]

    def marks(s: State) -> np.ndarray:
        marked = np.zeros(graph.n, dtype=bool)
        marked[[node_of_literal[k][v] for k, v in enumerate(s)]] = True
        return marked

    return marks


def graph_canonicaliser(graph, engine: str = "auto", search_budget: int = SEARCH_BUDGET,
                        native: bool = True) -> Callable[[State], State]:
    """Representative = the first state seen that is isomorphic to this one as a marked graph.

    A state is the coloured graph with its pre-literal nodes marked; two states are isomorphic
    iff an automorphism of the graph maps one literal set onto the other, i.e. iff they lie in
    one G-orbit.  The hash key is the GROOVE-style certificate (seed 003,
    ``detect.checking.refinement``): colour refinement of the marked graph, equal for isomorphic
    states, so a state whose certificate is new is a new orbit.  A state whose certificate is
    already in the table is compared with each state of that bucket by the exact isomorphism
    search; where the search passes ``search_budget`` branches, by the full canonical form,
    computed lazily and kept per bucket entry: nauty (dense) up to ``AUTO_THRESHOLD`` nodes,
    bliss (igraph, sparse) above, as in ``detect.symmetry.automorphisms``.  ``native``: the
    refinement rounds in C where a compiler is present (the same colours as numpy's).

    Why one function: it builds the closure called once per explored state; the per-state path keeps its data in closure variables, not in a helper object's attributes.
    """
    # The refinement module (and numpy) only here: an import of ~0.15 s every other run would pay.
    from detect.checking.refinement import RefinementGraph, SearchBudgetExceeded, certificate, find_isomorphism

    refinement = RefinementGraph.of_coloured_graph(graph, native)
    canonical_form = marked_canonical_form(graph, engine)
    marks = state_marks(graph)

    memo: dict[State, State] = {}
    # certificate -> [[state, marks, stable colours, canonical form or None], ...]
    buckets: dict[bytes, list] = {}

    def canonicalise(s: State) -> State:
        rep = memo.get(s)
        if rep is not None:
            return rep
        marked = marks(s)
        stable = refinement.stable_colours(marked)
        key = certificate(stable)
        bucket = buckets.setdefault(key, [])
        form = None
        for entry in bucket:
            try:
                same = find_isomorphism(refinement, entry[1], entry[2], marked, stable,
                                        search_budget) is not None
            except SearchBudgetExceeded:
                if entry[3] is None:
                    entry[3] = canonical_form(entry[1])
                if form is None:
                    form = canonical_form(marked)
                same = entry[3] == form
            if same:
                rep = entry[0]
                break
        if rep is None:
            bucket.append([s, marked, stable, form])
            rep = s
        memo[s] = rep
        return rep

    return canonicalise


# ------------------------------------------------------------------------ building a reducer


def make_reducer(model: SequentialModel, group, strategy: str, graph=None,
                 enumerate_limit: int = ENUMERATE_LIMIT, fast_paths: bool = True,
                 graph_engine: str = "auto", memory_limit: Optional[int] = None) -> Reducer:
    """The canonicaliser of ``strategy`` for ``group`` (a ``detect.symmetry.group.SymmetryGroup``).

    ``graph`` (the detection's coloured graph) is needed by ``graph`` only; ``fast_paths=False``
    makes ``exact`` use the general backtracking even where sorting would do, and ``graph`` its
    numpy/Python canonicaliser rather than the C one (tests, benchmarks).
    """
    if strategy not in STRATEGIES:
        raise ReductionError(f"unknown reduction strategy '{strategy}'; choose one of {', '.join(STRATEGIES)}")
    pts = LiteralPoints.of(model)
    n = len(pts.slot_points)
    if strategy == "pids":
        return pid_reducer(model, group, enumerate_limit)
    if strategy == "none" or group.order == 1:
        method = "no reduction" if strategy == "none" else "trivial group: nothing to reduce"
        return Reducer(strategy, group.order, None, tuple(range(n)), method)
    # Inert generators fix every reachable state: canonicalising with them changes nothing.
    gens = [tuple(g) for g in group.acting_points]
    sym = permutation_group(gens, len(pts.pairs))
    order = slot_order(sym, pts)
    maps = slot_maps(gens, pts)
    blocks = aligned_blocks(maps, order) if maps is not None else None
    if blocks is not None:
        # Whole blocks one after the other, also where slot_order interleaves the last ones
        # (their stabiliser is trivial): the key the fast paths need.
        order = block_key(order, blocks)
    key = _key_function(order)
    # The order on all literals: a multiple of the headline when products of the acting
    # generators fix every state the value analysis allows.
    literal_order = sym.order()
    if strategy == "enumerate":
        if literal_order > enumerate_limit:
            raise ReductionError(
                f"--reduce enumerate would apply all {literal_order:,} group elements to every state "
                f"(limit {enumerate_limit:,}); use --reduce exact")
        return Reducer(strategy, group.order, enumerating_canonicaliser(sym, pts, key), order,
                       f"least image over all {literal_order:,} elements",
                       enumerated_elements(sym, pts, order) if fast_paths else None)
    if strategy == "exact":
        blocks = symmetric_blocks(gens, literal_order, pts, order) if fast_paths else None
        if blocks is not None:
            return Reducer(strategy, group.order, sorting_canonicaliser(blocks), order,
                           f"sorting {len(blocks)} interchangeable blocks of {len(blocks[0])} slots (S_{len(blocks)})",
                           SortedBlocks(tuple(tuple(b) for b in blocks)))
        scalar = permuted_pids(gens, group.order, pts, order) if fast_paths else None
        if scalar is not None:
            m = len(scalar.blocks)
            return Reducer(strategy, group.order, scalarset_canonicaliser(scalar), order,
                           f"S_{m} on {m} pids (blocks of {len(scalar.blocks[0])} slots and the values "
                           f"naming pids): greedy least image, backtracking over ties", scalar)
        return Reducer(strategy, group.order, smallest_image(sym, pts, order), order,
                       "least image by stabiliser-chain backtracking")
    if strategy == "local":
        return Reducer(strategy, group.order, local_canonicaliser(gens, pts, key), order,
                       f"hill climbing with {len(gens)} generators and inverses")
    if graph is None:
        raise ReductionError("--reduce graph needs the coloured graph of the detection")
    return graph_reducer(graph, group.order, order, graph_engine, native=fast_paths, memory_limit=memory_limit)


def multiset_reducer(model: SequentialModel, group, strategy: str, instances,
                     enumerate_limit: int = ENUMERATE_LIMIT) -> Reducer:
    """The canonicaliser for a model whose multisets are sorted, ``group`` (G) detected on its
    unsorted reading: CMurphi's sort of the least image under H = <G, P>, P permuting each
    multiset's places (``detect.checking.multisets``; the caller has checked that G
    normalises P).  ``exact``: stabiliser-chain backtracking over H; ``enumerate``: the least
    sorted image over all of G; ``local``: hill climbing with G's and P's generators, sorted."""
    from detect.checking.multisets import place_swaps, settler

    if strategy not in ("exact", "enumerate", "local"):
        raise ReductionError(f"--reduce {strategy} does not quotient by the places of Murphi's multisets; "
                             "use exact, enumerate or local, or --nomultiset")
    pts = LiteralPoints.of(model)
    settle = settler(instances)
    swaps = place_swaps(instances, pts)
    places = tuple(point_symmetry(g, pts) for g in swaps)
    gens = [tuple(g) for g in group.acting_points]
    whole = permutation_group(gens + swaps, len(pts.pairs))
    order = slot_order(whole, pts)
    key = _key_function(order)
    described = (f"G of order {group.order:,} (detected on the unsorted reading) with the permutations of the "
                 f"places of {len(instances)} multiset(s)")
    if strategy == "enumerate":
        g_only = permutation_group(gens, len(pts.pairs))
        if g_only.order() > enumerate_limit:
            raise ReductionError(
                f"--reduce enumerate would apply all {g_only.order():,} group elements to every state "
                f"(limit {enumerate_limit:,}); use --reduce exact")
        actions = [_compile_action(g, pts) for g in g_only.elements()]

        def canonicalise(s: State) -> State:
            return min(settle(act(s)) for act in actions)

        method = f"least sorted image over all {g_only.order():,} elements of G (CMurphi's -sym1 with multisets)"
    else:
        inner = (smallest_image(whole, pts, order) if strategy == "exact"
                 else local_canonicaliser(gens + swaps, pts, key))

        def canonicalise(s: State) -> State:
            return settle(inner(s))

        method = ("least image by stabiliser-chain backtracking over " if strategy == "exact"
                  else "hill climbing with the generators of ") + described + ", then the multisets sorted"
    return Reducer(strategy, group.order, canonicalise, order, method, settle=settle, place_symmetries=places)


def graph_reducer(graph, group_order: int, order: tuple[int, ...], graph_engine: str = "auto",
                  native: bool = True, memory_limit: Optional[int] = None) -> Reducer:
    """``graph``: in C where a compiler is present (``NativeGraphCanonicaliser``, which the
    native explorer calls too), else the numpy/Python ``graph_canonicaliser``; both fall back to
    a canonical form by ``graph_engine`` (nauty or bliss) where their search budget runs out
    (the C one when called from Python: a native run stops, ``CanonicalUndecided``, and
    ``explore_reduced`` redoes it in the Python explorer).  ``native=False``: the Python one.
    The C one's memo takes at most a quarter of ``memory_limit`` (bytes), whose budget the
    native explorer then counts all its memory in."""
    from detect.checking.refinement import NativeGraphCanonicaliser, native_available

    engine = graph_engine if graph_engine != "auto" else ("nauty" if graph.n <= AUTO_THRESHOLD else "bliss")
    if native and native_available():
        marks = state_marks(graph)

        @functools.lru_cache(maxsize=1)
        def form() -> Callable[[np.ndarray], bytes]:
            # Built on the first undecided state: most runs never need nauty/bliss.
            return marked_canonical_form(graph, engine)

        def state_form(s: State) -> bytes:
            return form()(marks(s))

        memo = -1 if memory_limit is None else memory_limit // 4  # C caps it at its MEMO_BYTES
        canon = NativeGraphCanonicaliser(graph, SEARCH_BUDGET, canonical_form=state_form, memo_bytes=memo)
        return Reducer("graph", group_order, canon, order,
                       f"partition-refinement certificate of the {graph.n}-node coloured graph with the state "
                       f"marked, in C; a discrete partition's bijection checked on equal certificates, else an "
                       f"isomorphism search, {engine} canonical form past {SEARCH_BUDGET} branches; a memo of "
                       f"settled states and their images under the automorphisms the checks proved", canon.native)
    return Reducer("graph", group_order, graph_canonicaliser(graph, engine), order,
                   f"colour-refinement certificate of the {graph.n}-node coloured graph with the state marked; "
                   f"isomorphism search on equal certificates, {engine} canonical form past {SEARCH_BUDGET} branches")


def pid_reducer(model: SequentialModel, group, enumerate_limit: int = ENUMERATE_LIMIT) -> Reducer:
    """``pids``: the pid abstraction, then ``exact`` under ``group``, until a fixed point
    (each step stays in the state's class under both, so the result does too)."""
    exact = make_reducer(model, group, "exact", enumerate_limit=enumerate_limit)
    abstraction = anonymous_pids(model)
    if abstraction is None:
        return replace(exact, strategy="pids",
                       method="no process whose pid is unobservable (detect.checking.pids); " + exact.method)
    by_pids = pid_canonicaliser(abstraction)
    by_group = exact.canonicalise
    if by_group is None:
        canonicalise = by_pids
    else:
        def canonicalise(s: State) -> State:
            while True:
                t = by_group(by_pids(s))
                if t == s:
                    return t
                s = t
    sizes = ", ".join(str(len(g)) for g in abstraction.groups)
    method = f"pid abstraction over {len(abstraction.groups)} group(s) of {sizes} processes"
    if by_group is not None:
        method += f", then {exact.method}"
    return Reducer("pids", group.order, canonicalise, exact.slot_order, method,
                   local_symmetries=pid_swaps(abstraction))


# ------------------------------------------------------------------------ invariance of conditions


def read_slots(model: SequentialModel, expr: Expr) -> set[int]:
    """Slots an expression over globals may read (every element for a non-constant index)."""
    offsets, pos = {}, 0
    for v in model.variables:
        offsets[v.name] = (pos, v.length)
        pos += v.length
    out: set[int] = set()
    for e in subexpressions(expr):
        if isinstance(e, Name) and e.name in offsets:
            out.add(offsets[e.name][0])
        elif isinstance(e, Index):
            start, length = offsets[e.array]
            if isinstance(e.index, Const) and 0 <= e.index.value < length:
                out.add(start + e.index.value)
            else:
                out.update(range(start, start + length))
    return out


def condition_invariant(model: SequentialModel, expr: Expr, condition: Callable[[State], bool],
                        generators: Sequence[Callable[[State], State]], targets: Sequence[Sequence[int]],
                        limit: int = INVARIANCE_LIMIT) -> Optional[bool]:
    """Whether ``condition(g(s)) == condition(s)`` for every state s and generator g.

    ``targets[i][k]`` is the slot generator i moves slot k to.  Only the slots the condition
    reads, and the slots moved onto them, matter; all their valuations are tried.  None when
    there are more than ``limit`` of them (undecided).

    A generator given with its point images (``PointSymmetry``) that maps the read slots onto
    themselves is checked on a table instead: the condition's value on every valuation of
    those slots, computed once for all such generators, against the same table permuted by
    the generator (the condition reads nothing else, so this is the same comparison).
    """
    slots = state_slots(model)
    reads = read_slots(model, expr)
    table: list[bool] = []
    for g, target in zip(generators, targets):
        relevant = reads | {k for k, t in enumerate(target) if t in reads}
        total = 1
        for k in relevant:
            total *= len(slots[k].domain)
            if total > limit:
                return None
        # Every valuation of the relevant slots, the others at their first value: the product
        # builds the states themselves (in C), in the order of the relevant slots' values.
        choices = [slot.domain if k in relevant else slot.domain[:1] for k, slot in enumerate(slots)]
        images = getattr(g, "images", None)
        if images is not None and relevant == reads:
            if not table:
                table = [bool(condition(s)) for s in itertools.product(*choices)]
                pts = LiteralPoints.of(model)
            if [table[i] for i in _permuted_valuations(images, sorted(reads), slots, pts)] != table:
                return False
        elif any(bool(condition(s)) != bool(condition(g(s))) for s in itertools.product(*choices)):
            return False
    return True


def _permuted_valuations(images: Sequence[int], order: Sequence[int], slots, pts: LiteralPoints) -> list[int]:
    """For each valuation of the slots ``order`` (mixed radix, the last slot fastest, as
    ``itertools.product`` enumerates them), the index of its image under the point permutation
    ``images``, which maps those slots onto themselves."""
    weight, w = {}, 1
    for k in reversed(order):
        weight[k] = w
        w *= len(slots[k].domain)
    indices = [0]
    for k in order:
        contribution = []
        for v in slots[k].domain:
            t, image = pts.pairs[images[pts.index[(k, v)]]]
            contribution.append(weight[t] * slots[t].domain.index(image))
        indices = [i + c for i in indices for c in contribution]
    return indices


# ------------------------------------------------------------------------ reduced exploration


def explore_reduced(model: SequentialModel, strategy: str = "exact", *, detection=None,
                    max_states: int | None = None, timeout: float | None = None,
                    progress: Progress | None = None, enumerate_limit: int = ENUMERATE_LIMIT,
                    engine: str = "auto", table_limit: int = 100_000,
                    check: bool = True, explorer: str | None = None,
                    memory_limit: int | None = None, workers: int | None = None,
                    distributed=None, unreduced: Exploration | None = None) -> ReducedExploration:
    """Explore with ``strategy``; verdicts that reduction cannot justify come from a plain run.

    With ``check`` every generator is checked on every expanded state (see ``explore``'s
    ``symmetries``); a refuted one makes the whole run an unreduced one, with a note.
    ``explorer`` picks the explorer (``auto``, ``native``, ``python``: ``detect.statespace.native``);
    ``memory_limit`` (bytes) bounds each exploration and ``workers`` shares a native one, as
    ``explore``'s do; ``distributed`` (a ``detect.statespace.distributed.Spec``) runs every
    exploration on Ray partitions.  ``unreduced``: the model's unreduced exploration, made
    already (by the nested search, ``cycles.FirstSearch.exploration``; its states laid out as
    the detection's model's): a run that does not reduce (``none``, or a trivial group)
    takes it instead of exploring again.

    Deadlock freedom needs ``terminal`` to be G-invariant, ``reaches``/``invariant`` their
    condition; a failed or undecided check sends that assertion to an unreduced exploration
    (same bounds) and records why in ``notes`` and in the verdict's note.

    Why one function: each strategy's set-up (canonicaliser, checks, the unreduced fallback) is a few lines sharing one detection and one verdict merge.
    """
    instances = _multiset_quotient(model, detection)
    if detection is not None and not instances:
        # The input, or its narrowing to the reachable domains (the same transition system,
        # see ``detect.transform.reachable``), whose domains the generators act on.
        model = detection.model
    compiled = compile_model(model)
    if strategy == "none":
        reducer = Reducer("none", 1, None, tuple(range(len(state_slots(model)))), "no reduction")
        if unreduced is not None:
            return ReducedExploration(unreduced, reducer, ())
        return ReducedExploration(explore_state_space(compiled, max_states=max_states, timeout=timeout, engine=explorer,
                                          memory_limit=memory_limit, workers=workers, distributed=distributed,
                                          progress=progress), reducer, ())
    if detection is None:
        from detect.symmetry.pipeline import detect

        detection = detect(model, engine=engine, table_limit=table_limit)
    group = detection.group
    pts = LiteralPoints.of(model)
    if instances and group.order == 1:
        instances = ()  # nothing beyond the sort, which every step of the model makes itself
    if instances:
        from detect.checking.multisets import normaliser_failure

        if distributed is not None:
            raise ReductionError("--distributed does not quotient by the places of Murphi's multisets; "
                                 "explore in one process, or give --nomultiset")
        failure = normaliser_failure(group.acting_points, pts, instances)
        if failure is not None:
            note = (f"the group detected on the unsorted reading does not normalise the permutations of the "
                    f"multisets' places ({failure}): explored without symmetry reduction, multisets sorted")
            plain = explore_state_space(compiled, max_states=max_states, timeout=timeout, progress=progress,
                                        engine=explorer, memory_limit=memory_limit, workers=workers)
            return ReducedExploration(plain, Reducer(strategy, group.order, None, tuple(range(len(pts.slot_points))),
                                                     "no reduction: " + note), (note,))
        reducer = multiset_reducer(model, group, strategy, instances, enumerate_limit)
    else:
        reducer = make_reducer(model, group, strategy, detection.graph, enumerate_limit, memory_limit=memory_limit)
    actions = [point_symmetry(g, pts) for g in group.acting_points] + list(reducer.place_symmetries)
    checks = tuple(actions) + reducer.local_symmetries
    if unreduced is not None and reducer.canonicalise is None and not instances:
        return ReducedExploration(unreduced, reducer, ())

    try:
        try:
            result = explore_state_space(compiled, max_states=max_states, timeout=timeout, engine=explorer,
                                         memory_limit=memory_limit, workers=workers, distributed=distributed,
                                         canonicalise=reducer.canonicalise, native_canonical=reducer.native_canonical,
                                         progress=progress, settle=reducer.settle,
                                         symmetries=checks if check and reducer.canonicalise is not None else ())
        except CanonicalUndecided:
            # The C search ran out of branches in the native explorer, which cannot ask
            # nauty/bliss: again in the Python explorer, whose calls of the same canonicaliser
            # settle such states by the canonical form.
            result = explore_state_space(compiled, max_states=max_states, timeout=timeout, engine="python",
                                         memory_limit=memory_limit, canonicalise=reducer.canonicalise,
                                         progress=progress,
                                         symmetries=checks if check else ())
    except NotASymmetry as wrong:
        # Never trust a refuted generator: the verdicts come from a plain run.
        what = (f"generator {wrong.generator}" if wrong.generator < len(group.acting_points) else
                "an exchange of two places of a multiset" if wrong.generator < len(actions) else
                checks[wrong.generator].name or f"symmetry {wrong.generator}")
        note = (f"{what} is not a symmetry of this model (it does not map the "
                f"steps of a reachable state onto those of its image): explored without reduction. "
                f"This is a bug in symmetry detection; please report it")
        plain = explore_state_space(compiled, max_states=max_states, timeout=timeout, progress=progress, engine=explorer,
                        memory_limit=memory_limit, workers=workers, distributed=distributed)
        return ReducedExploration(plain, replace(reducer, canonicalise=None, native_canonical=None,
                                                 method="no reduction: " + note),
                                  (note,))
    if reducer.canonicalise is None:
        return ReducedExploration(result, reducer, ())
    targets = [[pts.pairs[g.images[pts.slot_points[k][0]]][0] if pts.slot_points[k] else k
                for k in range(len(pts.slot_points))] for g in actions]

    def invariant(expr, cond) -> Optional[bool]:
        return condition_invariant(model, expr, cond, actions, targets)

    terminal_ok: Optional[bool] = True
    if model.terminal is not None:
        terminal_ok = invariant(model.terminal, compiled.terminal)
    redo: dict[int, str] = {}
    for i, (a, cond) in enumerate(zip(model.assertions, compiled.conditions)):
        if a.about:
            continue  # not this model's property: "not checked" either way
        if a.kind == "deadlockfree" and not terminal_ok:
            # None: it reads too many slots to try every valuation -- undecided, not refuted
            redo[i] = ("the valid-end-state predicate is not invariant under the symmetry group"
                       if terminal_ok is False else
                       f"the valid-end-state predicate reads too many slots to check its invariance "
                       f"under the symmetry group (over {INVARIANCE_LIMIT:,} valuations)")
        elif a.objective is not None:
            # min/max over representatives is the min/max over all states only for a G-invariant
            # objective, which is not checked: the value comes from an unreduced run.
            redo[i] = "a min/max objective is computed on the unreduced state space"
        elif a.kind in ("reaches", "invariant") and a.condition is not None and cond is not None:
            verdict = invariant(a.condition, cond)
            if verdict is None:
                redo[i] = "could not check that the condition is invariant under the symmetry group"
            elif not verdict:
                redo[i] = "the condition is not invariant under the symmetry group"
    if not redo:
        return ReducedExploration(result, reducer, ())
    # The re-check shares the caller's time budget: what the reduced run used is spent.
    remaining = None if timeout is None else max(0.0, timeout - result.seconds)
    plain = explore_state_space(compiled, max_states=max_states, timeout=remaining, engine=explorer,
                    memory_limit=memory_limit, workers=workers, distributed=distributed)
    verdicts = list(result.assertions)
    notes = []
    for i, why in redo.items():
        fresh = plain.assertions[i]
        note = f"{why}: checked without reduction" + (f"; {fresh.note}" if fresh.note else "")
        verdicts[i] = replace(fresh, note=note)
        notes.append(f"assert {model.assertions[i].text}: {why}; checked without reduction")
    return ReducedExploration(replace(result, assertions=tuple(verdicts),
                                      notes=tuple(dict.fromkeys(result.notes + plain.notes))),
                              reducer, tuple(notes))


def start_orbits(model: SequentialModel, strategy: str, detection, states=None) -> int:
    """How many distinct canonical forms ``model``'s initial states (or ``states``) have under
    ``strategy``'s canonicaliser of ``detection``'s group: what a reduced run stores before
    it expands a state (CMurphi's ``-sym1`` count when a start state faults after them)."""
    if states is None:
        states = list(compile_model(model).initial_states())
    instances = _multiset_quotient(model, detection)
    if not instances:
        model = detection.model  # see ``explore_reduced``
    elif detection.group.order == 1:
        instances = ()
    reducer = (multiset_reducer(model, detection.group, strategy, instances) if instances else
               make_reducer(model, detection.group, strategy, detection.graph))
    canonicalise = reducer.canonicalise or (lambda state: state)
    return len({canonicalise(tuple(state)) for state in states})


def _multiset_quotient(model: SequentialModel, detection):
    """The places of ``model``'s multisets when ``model`` sorts them and ``detection`` was made
    on its unsorted reading (``detect.checking.multisets``); else ``()``."""
    from detect.checking.multisets import multiset_instances, same_layout

    if detection is None or not model.annotation("multisets_sorted") or \
            detection.model.annotation("multisets_sorted") or not multiset_instances(detection.model):
        return ()
    if not same_layout(model, detection.model):
        raise ReductionError("the unsorted reading of the multisets has other domains than the sorted one "
                             "(narrowed to its reachable values); give --nomultiset")
    return multiset_instances(model)


def acceptance_quotient(detection, reduced: ReducedExploration):
    """The ``detect.checking.cycles.Quotient`` that looks for acceptance cycles on the
    quotient of ``detection``'s model by the group ``reduced`` used, or None where the run
    used no group (no reduction, a refuted generator) or moves beyond it (``pids``)."""
    from detect.checking.cycles import Quotient

    reducer = reduced.reducer
    if detection is None or reducer.canonicalise is None or reducer.local_symmetries or reducer.strategy == "pids" \
            or reducer.settle is not None:
        return None
    model = detection.model
    pts = LiteralPoints.of(model)
    gens = detection.group.acting_points
    actions = tuple(point_symmetry(g, pts) for g in gens)
    targets = [[pts.pairs[g[pts.slot_points[k][0]]][0] if pts.slot_points[k] else k
                for k in range(len(pts.slot_points))] for g in gens]
    compiled = compile_model(model)

    def invariant(i: int) -> Optional[bool]:
        a = model.assertions[i]
        return condition_invariant(model, a.condition, compiled.conditions[i], actions, targets)

    return Quotient(model, reducer.canonicalise, actions, detection.group.order, invariant,
                    tuple(tuple(t) for t in targets), reducer.native_canonical)
