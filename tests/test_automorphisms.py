"""The automorphism engines: bliss through igraph's C extension loaded on its own, and nauty."""
import subprocess
import sys
import textwrap

from hypothesis import given, settings, strategies as st

from detect.symmetry.automorphisms import automorphisms
from detect.symmetry.graph import ColouredGraph


def test_bliss_loads_igraphs_extension_without_the_package_and_the_package_reuses_it():
    script = textwrap.dedent("""
        import sys
        from detect.symmetry.automorphisms import _igraph_core
        core = _igraph_core()
        assert "igraph" not in sys.modules, "the igraph package was imported"
        g = core.GraphBase(4, [(0, 1), (1, 2), (2, 3)], False)
        assert sorted(g.automorphism_group(sh="fl", color=[0, 1, 1, 0])) == [[3, 2, 1, 0]]
        import igraph
        assert igraph.GraphBase is core.GraphBase
        assert _igraph_core() is core
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@st.composite
def coloured_graphs(draw):
    n = draw(st.integers(1, 9))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    colour = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    return ColouredGraph(n=n, edges=tuple(sorted(edges)), colour=tuple(colour),
                         colour_keys=("a", "b", "c"), kind=("x",) * n, label=("",) * n,
                         pre_literal=())


@settings(max_examples=60, deadline=None)
@given(coloured_graphs())
def test_bliss_and_nauty_agree_and_every_generator_is_an_automorphism(graph):
    nauty, bliss = automorphisms(graph, "nauty"), automorphisms(graph, "bliss")
    assert nauty.order == bliss.order
    edges = {frozenset(e) for e in graph.edges}
    for g in nauty.generators + bliss.generators:
        assert all(graph.colour[g[v]] == graph.colour[v] for v in range(graph.n))
        assert {frozenset((g[u], g[v])) for u, v in graph.edges} == edges
