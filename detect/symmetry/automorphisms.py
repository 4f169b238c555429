"""Automorphism engines behind one interface: generators and order of Aut(coloured graph).

``pynauty`` wraps dense nauty (n²/8 bytes; slow beyond ~10,000 nodes); ``bliss`` is sparse
and handles 10^5–10^6 nodes: through igraph for small graphs, and for graphs of at least
``IN_CHILD_FROM`` nodes through the ``bliss`` command-line tool where it is installed, its
generators read one at a time (``_bliss_streamed``; igraph otherwise).  ``auto`` picks by size; the threshold was
measured with ``results/bench_engines.py`` (see ``results/engines.md``).
"""
from __future__ import annotations

import collections
import os
import time
from dataclasses import dataclass
from itertools import islice
from typing import Callable, Mapping, Sequence, TypeVar

from detect.symmetry.graph import ColouredGraph

ENGINES = ("auto", "nauty", "bliss")
#: Above this many nodes ``auto`` uses bliss (see results/engines.md for the measurement).
AUTO_THRESHOLD = 2_500


@dataclass(frozen=True)
class Automorphisms:
    """Generators (node images: ``g[v]`` is the image of node v) and the group order.

    Each generator is an ``array('i')`` (``compact``): 4 bytes a node, where a list of
    Python ints costs about 40 (a graph of 782,536 nodes and 179 generators, CMurphi's
    eadash.m, held 5.6 GB as lists, twice: in the search's child and again unpickled)."""

    generators: tuple[Sequence[int], ...]
    order: int
    engine: str
    seconds: float


T = TypeVar("T")


class SearchFailed(Exception):
    """The automorphism search's child process ended without a result: killed (most often
    for memory: the bound ``in_child`` sets, or the kernel's out-of-memory killer) or crashed
    in C.  Its message says which and how to go on."""


def automorphisms(graph: ColouredGraph, engine: str = "auto") -> Automorphisms:
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if engine == "auto":
        engine = "nauty" if graph.n <= AUTO_THRESHOLD else "bliss"
    if graph.n >= 2 ** 31:
        raise ValueError(f"a graph of {graph.n:,} nodes: node numbers past 32 bits")
    start = time.perf_counter()
    tool = bliss_tool() if engine == "bliss" and graph.n >= IN_CHILD_FROM else None
    if tool is not None:
        gens, order = _bliss_streamed(graph, tool)
    else:
        search = _nauty_counted if engine == "nauty" else _bliss
        gens, order = (search(graph) if graph.n < IN_CHILD_FROM else in_child(search, graph))
    return Automorphisms(tuple(compact(gens)), order, engine, time.perf_counter() - start)


def compact(generators: list) -> list:
    """``generators`` (lists of node images) as ``array('i')``s, in order.  The input list is
    emptied as it goes, so each list is freed as soon as its array exists: the peak is the
    engine's answer plus one array, not two copies."""
    from array import array

    out = []
    generators.reverse()
    while generators:
        g = generators.pop()
        out.append(g if isinstance(g, array) else array("i", g))
    return out


def stabiliser_orders(graph: ColouredGraph, markings: Sequence[Mapping[int, int]]) -> list[int]:
    """For each of ``markings``, the order of the automorphisms of ``graph`` that map each
    node it marks (marks are non-negative) to a node with the same mark: the graph
    recoloured by (colour, mark).  With literal nodes marked by the class they belong to,
    and classes that every automorphism permutes, this is the kernel of the action on the
    classes, and |Aut| divided by it is the order of that action.  Whichever engine found
    the generators, bliss counts, on one graph built for all of them: its count is an exact
    integer, nauty's a double (``_nauty``)."""
    if graph.n >= IN_CHILD_FROM:
        return in_child(_stabiliser_orders, graph, markings)
    return _stabiliser_orders(graph, markings)


def _stabiliser_orders(graph: ColouredGraph, markings: Sequence[Mapping[int, int]]) -> list[int]:
    engine_graph = _igraph(graph)
    return [_count(engine_graph, _recoloured(graph, marks)) for marks in markings]


def _recoloured(graph: ColouredGraph, marks: Mapping[int, int]) -> list[int]:
    """Colours numbering the pairs (colour, mark, -1 for none) present, in sorted order."""
    sizes = collections.Counter(graph.colour)
    marked = collections.Counter(graph.colour[v] for v in marks)
    keys = {(c, -1) for c, size in sizes.items() if marked[c] < size}
    keys |= {(graph.colour[v], m) for v, m in marks.items()}
    index = {key: i for i, key in enumerate(sorted(keys))}
    plain = {c: index.get((c, -1), -1) for c in sizes}
    colour = list(map(plain.__getitem__, graph.colour))
    for v, m in marks.items():
        colour[v] = index[(graph.colour[v], m)]
    return colour


#: Graphs of at least this many nodes are searched in a child process (``in_child``).
IN_CHILD_FROM = 1_000


def in_child(work: Callable[..., T], *args) -> T:
    """``work(*args)`` run in a forked child process, its result sent back pickled.

    Why: nauty and bliss run in C, and neither stops promptly when asked -- bliss, through
    igraph, runs Python's signal handlers but went on searching 14 s after the --timeout
    alarm on a 390,000-node graph (Spin's p337.pftp.ses), holding gigabytes.  A child is
    killed at once: an interrupt, SIGTERM or the alarm raised here while waiting kills it
    and propagates, so the search stops within milliseconds and its memory is returned.
    Where ``fork`` is missing the work runs here."""
    import os
    import pickle
    import signal

    if not hasattr(os, "fork"):
        return work(*args)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, and leave without running the parent's cleanup
        code = 0
        try:
            os.close(read_end)
            signal.setitimer(signal.ITIMER_REAL, 0)
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM):
                signal.signal(sig, signal.SIG_DFL)
            _bound_memory()
            try:
                reply = (True, work(*args))
            except Exception as e:  # noqa: BLE001 -- handed to the parent, which raises it
                reply = (False, e)
            try:
                data = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as e:  # noqa: BLE001
                data = pickle.dumps((False, RuntimeError(f"{type(e).__name__}: {e}")))
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    try:
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
    except BaseException:
        import threading

        os.kill(pid, signal.SIGKILL)
        # Reaped aside: the kernel takes a while (0.4 s for 3 GB) to free the child's memory.
        threading.Thread(target=os.waitpid, args=(pid, 0), daemon=True).start()
        raise
    _, status = os.waitpid(pid, 0)
    if not data:
        how = (f"was killed by {signal.Signals(os.WTERMSIG(status)).name}" if os.WIFSIGNALED(status)
               else f"exited with status {os.WEXITSTATUS(status)}")
        raise SearchFailed(f"the automorphism search {how} without a result, most likely out of memory "
                           f"(it may use the memory this machine had free when it started)")
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    return value


def _bound_memory() -> None:
    """In the search's child: its address space bounded by what it has now plus 90% of the
    memory the machine has free, so a search that outgrows the machine fails in its own
    process (``SearchFailed`` in the parent) instead of waking the kernel's out-of-memory
    killer, which may pick another process (19 GB on CMurphi's others/cache3.m)."""
    import resource

    try:
        with open("/proc/meminfo") as f:
            free = next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:"))
        with open("/proc/self/statm") as f:
            mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        bound = mapped + int(free * 0.9)
        if hard != resource.RLIM_INFINITY:
            bound = min(bound, hard)
        if soft == resource.RLIM_INFINITY or bound < soft:
            resource.setrlimit(resource.RLIMIT_AS, (bound, hard))
    except (OSError, ValueError, StopIteration):
        pass  # no /proc (not Linux): the search runs unbounded, as before


def _nauty_counted(graph: ColouredGraph):
    """(generators, exact order): nauty's generators, bliss's count (``_count``)."""
    return compact(list(_nauty(graph))), _count(_igraph(graph), list(graph.colour))


def _nauty(graph: ColouredGraph) -> list:
    """The generators nauty finds.  Its group order is not used: nauty gives it as a double
    (mantissa, exponent), exact to about 15 digits only, so the quotient of two such orders
    came out as 47 where it is 48 (issue 25); ``_count`` counts exactly."""
    import pynauty

    adjacency: dict[int, list[int]] = {v: [] for v in range(graph.n)}
    for u, v in graph.edges:
        adjacency[u].append(v)
    classes = [set(c) for c in graph.colour_classes()]
    g = pynauty.Graph(graph.n, directed=False, adjacency_dict=adjacency, vertex_coloring=classes)
    gens, _mantissa, _exponent, _orbits, _norbits = pynauty.autgrp(g)
    return gens


def _count(engine_graph, colour: list[int]) -> int:
    """|Aut| of ``engine_graph`` (``_igraph``) under the node colours ``colour``, by bliss:
    igraph hands bliss's big-number count over as an exact Python int (compared with GAP's
    ``Size`` by tests/test_group_orders.py)."""
    import sys

    # igraph converts bliss's count through its decimal digits: an order past Python's
    # 4,300-digit conversion limit (hundreds of inert value swaps) would raise ValueError.
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    if limit:
        sys.set_int_max_str_digits(0)
    try:
        order = engine_graph.count_automorphisms(sh="fl", color=colour)
    finally:
        if limit:
            sys.set_int_max_str_digits(limit)
    if not isinstance(order, int):
        raise TypeError(f"igraph counted automorphisms as {type(order).__name__}, not an exact int")
    return order


def _igraph(graph: ColouredGraph):
    """``graph``'s edges as igraph's C-level graph (bliss's interface)."""
    # ``GraphBase``, not ``Graph``: the same C graph, but ``Graph.__init__`` imports numpy
    # (~0.15 s, to recognise array arguments), which a detection otherwise never needs.
    return _igraph_core().GraphBase(graph.n, list(graph.edges), False)


def _igraph_core():
    """igraph's C extension module ``igraph._igraph``, without running ``igraph/__init__``.

    Why: the package's ``__init__`` imports its drawing, clustering and table-printing
    modules (texttable, wcwidth, regex): ~40 ms, a sixth of a whole small ``explore``,
    for a module that only needs ``GraphBase``.  The extension is registered under its own
    name, so a later ``import igraph`` (``from igraph._igraph import *``) reuses it rather
    than loading a second copy (the package then lacks the attribute ``igraph._igraph``,
    which only its ``split_join_distance`` reads).  Anything unexpected falls back to the
    plain import."""
    import sys

    core = sys.modules.get("igraph._igraph")
    if core is not None:
        return core
    if "igraph" not in sys.modules:
        import importlib.machinery
        import importlib.util

        try:
            package = importlib.util.find_spec("igraph")
            folder = package.submodule_search_locations[0] if package else None
            spec = importlib.machinery.PathFinder.find_spec("_igraph", [folder]) if folder else None
            if spec is not None and isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
                spec = importlib.util.spec_from_file_location(
                    "igraph._igraph", spec.origin,
                    loader=importlib.machinery.ExtensionFileLoader("igraph._igraph", spec.origin))
                core = importlib.util.module_from_spec(spec)
                sys.modules["igraph._igraph"] = core
                spec.loader.exec_module(core)
                return core
        except (ImportError, OSError, AttributeError):
            sys.modules.pop("igraph._igraph", None)
    import igraph  # noqa: F401  (loads igraph._igraph)

    return sys.modules["igraph._igraph"]


def _bliss(graph: ColouredGraph):
    g = _igraph(graph)
    colours = list(graph.colour)
    try:
        # compacted here, in the search's child: what is pickled to the parent is the arrays
        gens = compact(g.automorphism_group(sh="fl", color=colours))
        order = _count(g, colours)
    except SystemError as e:
        # igraph runs Python's signal handlers during the search; an interrupt (Ctrl-C,
        # SIGTERM, the --timeout alarm, a caller's own BaseException) raised there comes
        # back wrapped in a SystemError.
        if isinstance(e.__cause__, BaseException) and not isinstance(e.__cause__, Exception):
            raise e.__cause__ from None
        raise
    return gens, order


#: The bliss command-line tool (Debian's ``bliss``), or a path to one; empty: never use it.
BLISS_TOOL_VARIABLE = "SYMDETECT_BLISS"


def bliss_tool() -> "str | None":
    """The path of the bliss command-line tool, or None (absent, or disabled by setting
    ``$SYMDETECT_BLISS`` to the empty string): ``automorphisms`` then uses igraph."""
    import shutil

    name = os.environ.get(BLISS_TOOL_VARIABLE, "bliss")
    return shutil.which(name) if name else None


def _bliss_streamed(graph: ColouredGraph, tool: str):
    """(generators as ``array('i')``, exact order) from the bliss tool, run here as a child
    process: the graph written to its input in DIMACS, each generator parsed from its output
    line as it comes, so the peak is the graph plus the compact generators.

    Why not igraph: ``automorphism_group`` returns every generator at once as lists of Python
    ints (~40 bytes a node, besides igraph's own 8): 14.9 GB on CMurphi's adash.m (1.1
    million nodes, 271 generators) where the arrays take 1.2 GB.  The tool also prints the
    exact order (bliss built with GMP); a rounded one (``1.2e+30``) is counted by igraph.
    The tool is killed on any exception here (an interrupt, the --timeout alarm), dies with
    this process (PR_SET_PDEATHSIG), and its memory is bounded as ``_bound_memory``."""
    import resource
    import signal
    import subprocess
    import tempfile
    from array import array

    # Everything the tool's process calls between fork and exec is looked up here: a thread
    # (the --memory-limit watcher) may hold a lock, such as the import lock, at the fork.
    limit = _free_memory_bound()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if limit is not None and hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if limit is not None and soft != resource.RLIM_INFINITY and limit >= soft:
        limit = None  # already bounded tighter
    try:
        import ctypes

        prctl = ctypes.CDLL(None).prctl
    except (OSError, AttributeError):
        prctl = None
    setrlimit, address_space = resource.setrlimit, resource.RLIMIT_AS

    def bounded() -> None:  # in the tool's process, between fork and exec
        if prctl is not None:
            prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL: the tool dies with this process
        if limit is not None:
            setrlimit(address_space, (limit, hard))

    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen([tool, "-sh=fl"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=errors, preexec_fn=bounded)
        try:
            try:
                _write_dimacs(graph, proc.stdin)
                proc.stdin.close()
            except BrokenPipeError:
                pass  # the tool stopped reading: its status and message say why, below
            identity = array("i", range(graph.n))
            gens: list = []
            order_text = None
            for line in proc.stdout:
                if line.startswith(b"Generator:"):
                    gens.append(_parsed_generator(line, identity, graph.colour))
                elif line.startswith(b"|Aut|:"):
                    order_text = line.split(b":", 1)[1].strip()
            status = proc.wait()
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        if status != 0 or order_text is None:
            errors.seek(0)
            message = errors.read().decode(errors="replace").strip().splitlines()
            how = (f"was killed by {signal.Signals(-status).name}" if status < 0
                   else f"exited with status {status}")
            raise SearchFailed(f"the automorphism search (bliss tool {tool}) {how} without a result"
                               + (f": {message[-1]}" if message else ", most likely out of memory"))
    if order_text.isdigit():
        order = int(order_text)
    else:
        order = in_child(_counted, graph)
    return gens, order


def _counted(graph: ColouredGraph) -> int:
    return _count(_igraph(graph), list(graph.colour))


def _free_memory_bound() -> "int | None":
    """90% of the memory this machine has free (None where /proc/meminfo is missing)."""
    try:
        with open("/proc/meminfo") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:")) * 9 // 10
    except (OSError, ValueError, StopIteration):
        return None


def _write_dimacs(graph: ColouredGraph, out) -> None:
    """``graph`` in bliss's DIMACS (1-based nodes), in blocks: never the whole text at once."""
    lines = graph.dimacs_lines()
    while chunk := "".join(islice(lines, 1 << 16)):
        out.write(chunk.encode())


def _parsed_generator(line: bytes, identity, colour: Sequence[int]):
    """One ``Generator: (a,b,c)(d,e)`` line (1-based cycles: a↦b↦c↦a) as node images.
    A point outside the graph or a move between colours is the tool's error, raised, never
    handed on as a symmetry."""
    from array import array

    image = array("i", identity)
    body = line[len(b"Generator:"):].strip()
    if not (body.startswith(b"(") and body.endswith(b")")):
        raise SearchFailed(f"the bliss tool printed a generator this reader does not know: {body[:80]!r}")
    n = len(image)
    for cycle in body[1:-1].split(b")("):
        points = [int(x) - 1 for x in cycle.split(b",")]
        for a, b in zip(points, points[1:] + points[:1]):
            if not (0 <= a < n and 0 <= b < n) or colour[a] != colour[b]:
                raise SearchFailed(f"the bliss tool printed a generator mapping node {a + 1} to {b + 1}, "
                                   "not an automorphism of the coloured graph")
            image[a] = b
    return image
