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


# ---------------------------------------------------------------- the bliss tool, streamed
# Large graphs go to the bliss command-line tool, whose generators are read one line at a
# time into arrays (issue 27: igraph's lists of Python ints took 14.9 GB on adash.m).
import os  # noqa: E402
import pathlib  # noqa: E402
from array import array  # noqa: E402

import pytest  # noqa: E402

from detect.symmetry import automorphisms as engines  # noqa: E402
from detect.symmetry.permgroup import permutation_group  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
TOOL = engines.bliss_tool()
needs_tool = pytest.mark.skipif(TOOL is None, reason="the bliss command-line tool is not installed")


def assert_automorphisms(graph, generators):
    edges = {frozenset(e) for e in graph.edges}
    for g in generators:
        assert isinstance(g, array) and sorted(g) == list(range(graph.n))
        assert all(graph.colour[g[v]] == graph.colour[v] for v in range(graph.n))
        assert {frozenset((g[u], g[v])) for u, v in graph.edges} == edges


@needs_tool
@settings(max_examples=40, deadline=None)
@given(coloured_graphs())
def test_the_tool_gives_automorphisms_generating_the_group_igraph_counts(graph):
    gens, order = engines._bliss_streamed(graph, TOOL)
    _, igraph_order = engines._bliss(graph)
    assert order == igraph_order
    assert_automorphisms(graph, gens)
    assert permutation_group([tuple(g) for g in gens], graph.n).order() == order


def model_graph(path, defines=()):
    from detect.cli import load_model
    from detect.symmetry.constraints import translate
    from detect.symmetry.graph import build_graph

    return build_graph(translate(load_model(str(path), defines)))


MODELS = [ROOT / "models" / "dining_philosophers.csp", ROOT / "models" / "load_balancer.pml",
          ROOT.parent / "shared" / "corpus" / "murphi" / "n_peterson.m"]


@needs_tool
@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
def test_the_tool_and_igraph_give_the_same_group_on_models(path):
    if not path.exists():
        pytest.skip(f"{path} is absent")
    graph = model_graph(path)
    gens, order = engines._bliss_streamed(graph, TOOL)
    old, old_order = engines._bliss(graph)
    assert order == old_order > 1
    assert_automorphisms(graph, gens)
    group = permutation_group([tuple(g) for g in gens], graph.n)
    assert group.order() == order
    assert all(group.contains(g) for g in old)


def ring(n):
    """A cycle of n nodes, one colour: the dihedral group, order 2n (n >= 3)."""
    return ColouredGraph(n=n, edges=tuple((v, (v + 1) % n) for v in range(n)), colour=(0,) * n,
                         colour_keys=("a",), kind=("x",) * n, label=("",) * n, pre_literal=())


def test_large_graphs_use_the_tool_and_fall_back_to_igraph_without_it(monkeypatch):
    graph = ring(engines.IN_CHILD_FROM + 1)
    calls = []
    streamed = engines._bliss_streamed
    monkeypatch.setattr(engines, "_bliss_streamed", lambda *a: calls.append(a[1]) or streamed(*a))
    orders = []
    for tool in ("", "/nonexistent/bliss", "bliss"):
        monkeypatch.setenv(engines.BLISS_TOOL_VARIABLE, tool)
        found = automorphisms(graph, "bliss")
        assert found.engine == "bliss" and found.order == 2 * graph.n
        assert_automorphisms(graph, found.generators)
        orders.append(found.order)
    assert calls == ([TOOL] if TOOL else [])


def fake_tool(tmp_path, output, status=0):
    script = tmp_path / "bliss"
    script.write_text(f"#!/bin/sh\ncat > /dev/null\nprintf '{output}'\nexit {status}\n")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize("output,status,says", [
    ("Generator: (1,2)\\n|Aut|:          2\\n", 0, "not an automorphism"),  # 1 and 2 differ in colour
    ("Generator: (1,9)\\n|Aut|:          2\\n", 0, "not an automorphism"),  # no node 9
    ("Generator: 1 2\\n|Aut|:          2\\n", 0, "does not know"),
    ("", 0, "exited with status 0 without a result"),
    ("bad input\\n", 3, "exited with status 3"),
])
def test_a_wrong_answer_from_the_tool_is_an_error_never_a_symmetry(tmp_path, output, status, says):
    graph = ColouredGraph(n=3, edges=((0, 1),), colour=(0, 1, 0), colour_keys=("a", "b"),
                          kind=("x",) * 3, label=("",) * 3, pre_literal=())
    with pytest.raises(engines.SearchFailed, match=says):
        engines._bliss_streamed(graph, fake_tool(tmp_path, output, status))


def test_a_rounded_order_from_the_tool_is_counted_exactly(tmp_path):
    graph = ring(6)
    tool = fake_tool(tmp_path, "Generator: (2,6)(3,5)\\nGenerator: (1,2,3,4,5,6)\\n|Aut|:          1.2e+01\\n")
    gens, order = engines._bliss_streamed(graph, tool)
    assert order == 12 and [list(g) for g in gens] == [[0, 5, 4, 3, 2, 1], [1, 2, 3, 4, 5, 0]]


PEAK = """
import resource, sys
from detect.symmetry.automorphisms import automorphisms
from detect.symmetry.graph import ColouredGraph
# A rigid path of n nodes (each its own colour) and k pairs, joined, all alike: S_2 wr S_k,
# about 2k generators, each n + 2k long.
n, k = 60000, 120
edges = [(v, v + 1) for v in range(n - 1)] + [(n + 2 * i, n + 2 * i + 1) for i in range(k)]
colour = list(range(n)) + [n] * (2 * k)
size = n + 2 * k
graph = ColouredGraph(n=size, edges=tuple(edges), colour=tuple(colour), colour_keys=tuple(range(n + 1)),
                      kind=("x",) * size, label=("",) * size, pre_literal=())
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
found = automorphisms(graph, "bliss")
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(len(found.generators), size, peak - before)
"""


@needs_tool
def test_the_search_peaks_near_the_compact_generators_not_lists_of_ints():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", PEAK], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    gens, size, grown_kb = map(int, done.stdout.split())
    compact_kb = gens * size * 4 // 1024
    assert gens >= 200
    # lists of Python ints: ~10x the arrays (igraph's path grew by ~9x here); streamed, the
    # arrays plus a few buffers
    assert grown_kb < 2 * compact_kb + 30_000, (grown_kb, compact_kb)


def test_an_exception_while_the_tool_searches_kills_it_at_once(tmp_path):
    import signal
    import time

    pid_file = tmp_path / "pid"
    script = tmp_path / "bliss"
    script.write_text(f"#!/bin/sh\ncat > /dev/null\necho $$ > {pid_file}\nexec sleep 60\n")
    script.chmod(0o755)

    def alarm(*_):
        raise TimeoutError("the --timeout alarm")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    start = time.monotonic()
    try:
        with pytest.raises(TimeoutError):
            engines._bliss_streamed(ring(5), str(script))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - start < 10
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)
