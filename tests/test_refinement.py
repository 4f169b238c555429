"""GROOVE-style certificates (detect.checking.refinement) and the graph strategy's collision path.

The hand-built graph: K_6 with every edge {i, j} subdivided by two literal nodes, "on" and
"off", one slot per edge.  A state marks one literal per slot, i.e. it is a graph on six
labelled vertices; the graph's automorphisms (S_6 on the vertices) act on states as relabelling.
The 2-regular states -- 60 hexagons and 10 pairs of triangles -- are all alike to colour
refinement (every vertex has two marked edges), so every one of them has the same certificate,
yet they form two orbits: the isomorphism search (or the canonical form) must split them.
"""
from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from detect.checking.reduce import graph_canonicaliser, marked_canonical_form as graph_canonical_form
from detect.checking.refinement import (
    NativeGraphCanonicaliser, RefinementGraph, SearchBudgetExceeded, certificate, find_isomorphism,
    native_available,
)
from detect.statespace.explore import CanonicalUndecided
from detect.symmetry.graph import ColouredGraph

VERTICES = 6
PAIRS = list(itertools.combinations(range(VERTICES), 2))


def subdivided_complete_graph() -> ColouredGraph:
    """Vertices 0..5 (colour 0), then for each pair an "off" node (colour 1) and an "on" node
    (colour 2), both adjacent to the pair's ends."""
    colour = [0] * VERTICES
    edges = []
    pre_literal = []
    for i, j in PAIRS:
        nodes = {}
        for value in (0, 1):
            node = len(colour)
            colour.append(1 + value)
            edges += [(i, node), (j, node)]
            nodes[value] = node
        pre_literal.append(nodes)
    n = len(colour)
    return ColouredGraph(n, tuple(sorted(edges)), tuple(colour), ("a-vertex", "b-off", "c-on"),
                         tuple("node" for _ in range(n)), tuple(str(v) for v in range(n)),
                         tuple(pre_literal))


def state_of(edge_set) -> tuple[int, ...]:
    return tuple(int(p in edge_set) for p in PAIRS)


def two_regular_states() -> dict[tuple[int, ...], str]:
    """Every 2-regular graph on the six vertices, as a state, with its shape."""
    states = {}
    for perm in itertools.permutations(range(VERTICES)):
        hexagon = {tuple(sorted((perm[k], perm[(k + 1) % 6]))) for k in range(6)}
        triangles = {tuple(sorted((perm[a], perm[b]))) for a, b in ((0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5))}
        states[state_of(hexagon)] = "hexagon"
        states[state_of(triangles)] = "triangles"
    return states


def marks(graph: ColouredGraph, state) -> np.ndarray:
    marked = np.zeros(graph.n, dtype=bool)
    marked[[graph.pre_literal[k][v] for k, v in enumerate(state)]] = True
    return marked


def test_refinement_does_not_separate_hexagons_from_triangles():
    graph = subdivided_complete_graph()
    states = two_regular_states()
    assert sorted(states.values()).count("hexagon") == 60 and len(states) == 70
    rg = RefinementGraph.of_coloured_graph(graph)
    certificates = {certificate(rg.stable_colours(marks(graph, s))) for s in states}
    assert len(certificates) == 1


def test_isomorphism_search_tells_hexagons_from_triangles():
    graph = subdivided_complete_graph()
    rg = RefinementGraph.of_coloured_graph(graph)
    by_shape: dict[str, list] = {}
    for s, shape in two_regular_states().items():
        by_shape.setdefault(shape, []).append(s)
    hexagon, other_hexagon = by_shape["hexagon"][:2]
    triangles = by_shape["triangles"][0]

    def search(a, b, budget=64):
        ma, mb = marks(graph, a), marks(graph, b)
        return find_isomorphism(rg, ma, rg.stable_colours(ma), mb, rg.stable_colours(mb), budget)

    assert search(hexagon, triangles) is None
    f = search(hexagon, other_hexagon)
    assert f is not None and rg.is_isomorphism(f, marks(graph, hexagon), marks(graph, other_hexagon))
    with pytest.raises(SearchBudgetExceeded):
        search(hexagon, triangles, budget=0)


@pytest.mark.parametrize("engine, budget", [("nauty", 64), ("nauty", 0), ("bliss", 0)])
@pytest.mark.parametrize("native", [True, False])
def test_graph_canonicaliser_on_a_certificate_collision(engine, budget, native):
    """Budget 0 sends every equal-certificate comparison to the canonical form."""
    graph = subdivided_complete_graph()
    states = two_regular_states()
    order = list(states)
    random.Random(15).shuffle(order)
    canon = graph_canonicaliser(graph, engine, search_budget=budget, native=native)
    reps = {canon(s) for s in order}
    assert sorted(states[r] for r in reps) == ["hexagon", "triangles"]
    assert all(states[canon(s)] == states[s] for s in order)


def random_marked_graph(rnd: random.Random, n: int, density: float, colours: int):
    """Edges (at least one), a colour class per node and marks, drawn from ``rnd``."""
    edges = [(u, v) for u, v in itertools.combinations(range(n), 2) if rnd.random() < density] or [(0, 1)]
    colour = [rnd.randrange(colours) for _ in range(n)]
    return edges, colour, np.array([rnd.random() < 0.3 for _ in range(n)])


@settings(max_examples=40, deadline=None)
@given(st.integers(4, 14), st.floats(0.1, 0.6), st.integers(0, 2**32 - 1))
def test_relabelled_marked_graphs_have_equal_certificates_and_a_checked_isomorphism(n, density, seed):
    rnd = random.Random(seed)
    edges, colour, marked = random_marked_graph(rnd, n, density, 2)
    perm = list(range(n))
    rnd.shuffle(perm)
    image = RefinementGraph.of(n, [(perm[u], perm[v]) for u, v in edges], [colour[perm.index(v)] for v in range(n)])
    original = RefinementGraph.of(n, edges, colour)
    image_marked = np.zeros(n, dtype=bool)
    image_marked[[perm[v] for v in range(n) if marked[v]]] = True
    stable, image_stable = original.stable_colours(marked), image.stable_colours(image_marked)
    assert certificate(stable) == certificate(image_stable)
    # find_isomorphism compares two markings of one graph: take the disjoint union of the
    # original and its relabelled copy, marked in the first copy and in the second.
    joint = RefinementGraph.of(2 * n, edges + [(perm[u] + n, perm[v] + n) for u, v in edges],
                               colour + [colour[perm.index(v)] for v in range(n)])
    ma = np.concatenate([marked, np.zeros(n, dtype=bool)])
    mb = np.concatenate([np.zeros(n, dtype=bool), image_marked])
    # Swapping the two copies is an isomorphism between the markings, so the search finds one.
    f = find_isomorphism(joint, ma, joint.stable_colours(ma), mb, joint.stable_colours(mb), budget=10_000)
    assert f is not None and joint.is_isomorphism(f, ma, mb)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.floats(0.05, 0.5), st.integers(0, 2**32 - 1))
def test_c_rounds_give_the_numpy_colours(n, density, seed):
    edges, colour, marked = random_marked_graph(random.Random(seed), n, density, 3)
    in_c, in_numpy = RefinementGraph.of(n, edges, colour, native=True), RefinementGraph.of(n, edges, colour, native=False)
    if not in_c.native:
        pytest.skip("no C compiler")
    assert np.array_equal(in_c.stable_colours(marked), in_numpy.stable_colours(marked))
    assert np.array_equal(in_c.base, in_numpy.base)


# ------------------------------------------------------------------------ the C canonicaliser

needs_c = pytest.mark.skipif(not native_available(), reason="no C compiler")


@needs_c
@pytest.mark.parametrize("key_bits", [64, 0])
def test_c_canonicaliser_on_a_certificate_collision(key_bits):
    """All 70 two-regular states get one certificate: the search in C splits them into the
    hexagons and the pairs of triangles."""
    graph = subdivided_complete_graph()
    states = two_regular_states()
    order = list(states)
    random.Random(15).shuffle(order)
    canon = NativeGraphCanonicaliser(graph, budget=64, key_bits=key_bits)
    reps = {canon(s) for s in order}
    assert sorted(states[r] for r in reps) == ["hexagon", "triangles"]
    assert all(states[canon(s)] == states[s] for s in order)
    stats = canon.stats()
    # Equal certificates, settled by the search (not the discrete check), some of them
    # against the other shape's representative.
    assert stats["searches"] > 0 and stats["collisions"] > 0 and stats["orbits"] == 2


@needs_c
def test_c_canonicaliser_past_its_budget_is_undecided_and_stores_nothing():
    graph = subdivided_complete_graph()
    hexagon, other = [s for s, shape in two_regular_states().items() if shape == "hexagon"][:2]
    canon = NativeGraphCanonicaliser(graph, budget=0)
    assert canon(hexagon) == hexagon
    with pytest.raises(CanonicalUndecided):
        canon(other)
    assert canon.stats()["orbits"] == 1


@needs_c
def test_c_canonicaliser_past_its_budget_asks_the_canonical_form():
    """Called from Python with a canonical form, every undecided state is settled by it."""
    graph = subdivided_complete_graph()
    states = two_regular_states()
    form = graph_canonical_form(graph)
    canon = NativeGraphCanonicaliser(graph, budget=0, canonical_form=lambda s: form(marks(graph, s)))
    reps = {canon(s) for s in states}
    assert sorted(states[r] for r in reps) == ["hexagon", "triangles"]
    assert all(states[canon(s)] == states[s] for s in states)
    assert canon.stats()["undecided"] > 0


def automorphisms_by_brute_force(n, edges, colour):
    """Every colour-preserving permutation (one per colour class, combined) that keeps the edges."""
    edge_set = {frozenset(e) for e in edges}
    classes = [[v for v in range(n) if colour[v] == c] for c in sorted(set(colour))]
    for images in itertools.product(*(itertools.permutations(cls) for cls in classes)):
        perm = [0] * n
        for cls, image in zip(classes, images):
            for v, w in zip(cls, image):
                perm[v] = w
        if all(frozenset((perm[u], perm[v])) in edge_set for u, v in edges):
            yield perm


@needs_c
@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.integers(1, 3), st.floats(0.1, 0.7), st.integers(0, 2**32 - 1),
       st.sampled_from([64, 0]), st.sampled_from([64, 0]))
def test_c_canonicaliser_counts_the_orbits_of_random_graphs(vertices, slots, density, seed, key_bits,
                                                             automorphisms):
    """A random coloured graph with ``slots`` slots of two literal nodes each (joined to random
    vertices); every state's representative lies in its orbit under the brute-force
    automorphism group, and there is exactly one representative per orbit.  ``key_bits`` 0
    puts every state in one bucket: the exact comparison alone separates the orbits;
    ``automorphisms`` 0 keeps none of those the checks prove (no images in the memo)."""
    rnd = random.Random(seed)
    colour = [rnd.randrange(2) for _ in range(vertices)]
    edges = [(u, v) for u, v in itertools.combinations(range(vertices), 2) if rnd.random() < density]
    pre_literal = []
    for _ in range(slots):
        # A slot node joined to both literal nodes: automorphisms map slots to slots.
        slot_node = len(colour)
        colour.append(4)
        nodes = {}
        for value in (0, 1):
            node = len(colour)
            colour.append(2 + value)
            edges += [(rnd.randrange(vertices), node), (slot_node, node)]
            nodes[value] = node
        pre_literal.append(nodes)
    n = len(colour)
    graph = ColouredGraph(n, tuple(sorted(edges)), tuple(colour), ("a", "b", "off", "on", "slot"),
                          tuple("node" for _ in range(n)), tuple(str(v) for v in range(n)),
                          tuple(pre_literal))
    perms = list(automorphisms_by_brute_force(n, edges, colour))
    value_of = {node: (k, value) for k, nodes in enumerate(pre_literal) for value, node in nodes.items()}

    def image(perm, state):
        out = [None] * slots
        for k, value in enumerate(state):
            slot, v = value_of[perm[pre_literal[k][value]]]
            out[slot] = v
        return tuple(out)

    states = list(itertools.product((0, 1), repeat=slots))
    orbit = {s: min(image(p, s) for p in perms) for s in states}
    canon = NativeGraphCanonicaliser(graph, budget=10_000, key_bits=key_bits, automorphisms=automorphisms)
    reps = {canon(s) for s in rnd.sample(states, len(states))}
    assert all(orbit[canon(s)] == orbit[s] for s in states)
    assert len(reps) == len(set(orbit.values()))


# ------------------------------------------------------------------------ in the explorers

GRAPH_MODELS = [("token_circulation.csp", {"N": 4}), ("dining_philosophers.csp", {}),
                ("readers_writers.csp", {}), ("peterson_pid.pml", {})]


def _graph_and_exact(name, defines, engine, monkeypatch=None):
    from detect.checking.reduce import explore_reduced
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    model = load_model(f"models/{name}", defines)
    detection = detect(model)
    graph = explore_reduced(model, "graph", detection=detection, explorer=engine, workers=1)
    exact = explore_reduced(model, "exact", detection=detection, explorer="python")
    return graph, exact


@needs_c
@pytest.mark.parametrize("engine", ["native", "python"])
@pytest.mark.parametrize("name, defines", GRAPH_MODELS, ids=[m for m, _ in GRAPH_MODELS])
def test_graph_in_c_counts_the_orbits_exact_counts(name, defines, engine):
    """The C canonicaliser, called by the native explorer or by the Python one, stores one state
    per orbit: as many as ``exact`` (itself checked against brute-force orbit counts in
    test_reduce), with the same transitions and deadlock verdicts."""
    graph, exact = _graph_and_exact(name, defines, engine)
    assert "in C" in graph.reducer.method
    stats = graph.reducer.canonicalise.stats()
    if stats["checks"] + stats["searches"]:
        # Every proved isomorphism is an automorphism of the graph; some were kept and used.
        assert stats["automorphisms"] > 0 and stats["images"] > 0
    assert graph.exploration.states == exact.exploration.states
    assert graph.exploration.transitions == exact.exploration.transitions
    assert len(graph.exploration.deadlocks) == len(exact.exploration.deadlocks)
    assert [a.verdict for a in graph.exploration.assertions] == [a.verdict for a in exact.exploration.assertions]


@needs_c
def test_graph_past_the_c_budget_falls_back_to_the_canonical_form(monkeypatch):
    """With no branches allowed, the first state the C search must settle is undecided: the
    native run stops and the Python explorer redoes it, settling such states by nauty's
    canonical form, with the same count."""
    import detect.checking.reduce as reduce

    monkeypatch.setattr(reduce, "SEARCH_BUDGET", 0)
    graph, exact = _graph_and_exact("token_circulation.csp", {"N": 4}, "native")
    assert graph.reducer.canonicalise.stats()["undecided"] > 0
    assert graph.exploration.states == exact.exploration.states


def test_the_c_canonicaliser_builds_wherever_there_is_a_compiler():
    """A compile error in refinement.c must fail here, not skip every C test above and leave
    ``--reduce graph`` on the numpy path, 50 times slower."""
    from detect.statespace.native.build import compiler

    assert native_available() or compiler() is None


@needs_c
def test_a_native_graph_run_counts_the_canonicalisers_memory_in_its_budget():
    """The canonicaliser's tables, representatives and memo are in ``memory_bytes`` and under
    ``--memory-limit``: a limit below what the run needs stops it (truncated, flagged), one above
    does not change what it finds, and a limit shrinks the memo to a quarter of it."""
    from detect.checking.reduce import explore_reduced
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    model = load_model("models/token_circulation.csp", {"N": 4})
    detection = detect(model)

    def run(limit=None):
        return explore_reduced(model, "graph", detection=detection, explorer="native", workers=1,
                               memory_limit=limit)

    full = run()
    held = full.reducer.native_canonical.owner.bytes_held()
    assert held > 32 << 19  # the default memo is most of it
    assert full.exploration.memory_bytes >= held and not full.exploration.memory_limit_reached
    roomy = run(limit=2 * full.exploration.memory_bytes)
    assert roomy.exploration.states == full.exploration.states and not roomy.exploration.truncated
    assert roomy.exploration.memory_bytes <= 2 * full.exploration.memory_bytes
    small = run(limit=1 << 20)
    assert small.reducer.native_canonical.owner.bytes_held() < held // 8  # its memo is ≤ 256 KB
    assert small.exploration.memory_limit_reached and small.exploration.truncated
    assert 0 < small.exploration.states < full.exploration.states
