"""GROOVE-style graph certificates (seed 003): colour refinement as a hash key, and an exact
isomorphism search for states whose certificates are equal.

A state is the detection's coloured graph with the state's pre-literal nodes marked.  Colour
refinement (1-dimensional Weisfeiler-Leman) starts from (colour class, marked) and replaces each
node's colour by a hash of its colour and the multiset of its neighbours' colours until the
number of colours stops growing.  Every step is a fixed function of values that isomorphisms
preserve, so *isomorphic marked graphs have equal certificates*; the converse fails (regular
graphs, hash collisions), so equal certificates are settled by ``find_isomorphism``: individualise
a node of the smallest non-singleton cell on one side, try each node of that cell on the other,
refine both, recurse; a discrete pair of colourings gives a bijection that is returned only after
it is checked to preserve edges, colour classes and marks.  The search is complete (an
isomorphism f survives the branch that picks f(v)), so ``None`` proves non-isomorphism;
``SearchBudgetExceeded`` says nothing and the caller falls back to a canonical labelling.

Where a C compiler is present the graph strategy runs ``NativeGraphCanonicaliser`` instead: the
same design with exact partition refinement (nauty-style cells and a splitter queue, from the
unmarked graph's equitable partition) in place of hashed colours, the whole per-state path in C
(``refinement.c``), callable by the native explorer.  The numpy path above is the fallback and
the reference the tests compare with.
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

import numpy as np

from detect.statespace.explore import CanonicalUndecided, ExternalCanonical
from detect.statespace.native.build import BuildError, shared_object

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_INDIVIDUAL = np.uint64(0xD1B54A32D192ED03)


class SearchBudgetExceeded(Exception):
    """The isomorphism search tried more branches than it was allowed."""


_MUL_1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL_2 = np.uint64(0x94D049BB133111EB)
_SHIFT_1, _SHIFT_2 = np.uint64(30), np.uint64(27)


def _mix(x: np.ndarray) -> np.ndarray:
    """A splitmix64-style mixer on every element of a uint64 array.  Array arithmetic wraps
    silently (no ``errstate``: entering it cost more than the mixing itself)."""
    z = x * _MUL_1
    z ^= z >> _SHIFT_1
    z *= _MUL_2
    z ^= z >> _SHIFT_2
    return z


@functools.lru_cache(maxsize=None)
def _kernel():
    """``(ffi, lib)`` of ``refinement.c`` compiled (cached by ``detect.statespace.native.build``),
    or ``None`` without a C compiler: the numpy rounds give the same colours, slower."""
    import cffi

    try:
        path = shared_object((Path(__file__).parent / "refinement.c").read_text())
    except BuildError:
        return None
    ffi = cffi.FFI()
    ffi.cdef("int64_t wl_refine(int64_t n, const int64_t *offsets, const int64_t *nbrs, "
             "uint64_t *colours, uint64_t *work, int64_t size);"
             "void *gc_new(int32_t n, const int32_t *offsets, const int32_t *nbrs, const int32_t *colour, "
             "int32_t nslots, const int64_t *vmin, const int32_t *vspan, const int32_t *node_of, int64_t budget, "
             "int32_t key_bits, int32_t max_auts, int64_t memo_bytes);"
             "void gc_attach(void *g, void *account, void *budget);"
             "uint64_t gc_memory(void *g);"
             "int gc_canonicalise(void *g, int64_t *t);"
             "int gc_bucket(void *g, const int64_t *t, int64_t *out, int32_t max);"
             "int gc_insert(void *g, const int64_t *t);"
             "void gc_free(void *g);"
             "void gc_stats(void *g, uint64_t *out);")
    return ffi, ffi.dlopen(str(path))


def _count_distinct(x: np.ndarray) -> int:
    """Number of distinct values (sorting: several times faster than ``np.unique`` at this size)."""
    y = np.sort(x)
    return int(np.count_nonzero(y[1:] != y[:-1])) + 1


@dataclass(frozen=True, eq=False)
class RefinementGraph:
    """An undirected coloured graph in CSR form: ``neighbours[starts[i]:starts[i]+degree[i]]``
    are node i's neighbours; ``edge_codes`` are the sorted ``u * n + v`` with ``u < v``."""

    n: int
    colour: np.ndarray          # colour class index per node (int64)
    neighbours: np.ndarray      # int64, length 2|E|
    segment_starts: np.ndarray  # start of each non-isolated node's segment in ``neighbours``
    has_neighbours: np.ndarray  # bool per node
    edge_codes: np.ndarray      # int64, sorted
    offsets: np.ndarray         # int64, n + 1: node i's neighbours are neighbours[offsets[i]:offsets[i+1]]
    #: Rounds in C (``refinement.c``) rather than numpy: same colours, several times faster.
    native: bool
    #: The stable colouring of the unmarked graph: marks start from it, not from the colour
    #: classes, which saves the rounds that only rediscover the graph's own structure (the
    #: stable partition is the same: it refines this one).
    base: np.ndarray

    @staticmethod
    def of(n: int, edges, colour_of_node, native: bool = True) -> "RefinementGraph":
        """From ``edges`` (pairs, no duplicates) and a colour class index per node; ``native``:
        refine in C where a compiler is present."""
        pairs = np.asarray(list(edges), dtype=np.int64).reshape(-1, 2)
        lo, hi = pairs.min(axis=1), pairs.max(axis=1)
        src = np.concatenate([lo, hi])
        dst = np.concatenate([hi, lo])
        order = np.argsort(src, kind="stable")
        degree = np.bincount(src, minlength=n)
        starts = np.concatenate([[0], np.cumsum(degree)[:-1]])
        colour = np.asarray(colour_of_node, dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(degree)]).astype(np.int64)
        unrefined = RefinementGraph(n, colour, dst[order], starts[degree > 0], degree > 0,
                                    np.sort(lo * n + hi), offsets, native and _kernel() is not None,
                                    _mix(colour.astype(np.uint64)))
        return replace(unrefined, base=unrefined.refine(unrefined.base))

    @staticmethod
    def of_coloured_graph(graph, native: bool = True) -> "RefinementGraph":
        """From a ``detect.symmetry.graph.ColouredGraph``."""
        colour = np.zeros(graph.n, dtype=np.int64)
        for c, cls in enumerate(graph.colour_classes()):
            colour[cls] = c
        return RefinementGraph.of(graph.n, graph.edges, colour, native)

    def initial_colours(self, marked: np.ndarray) -> np.ndarray:
        """The colouring refinement starts from: the unmarked stable colour and the mark."""
        return _mix(self.base * _GOLDEN + marked.astype(np.uint64))

    def refine(self, colours: np.ndarray) -> np.ndarray:
        """The stable refinement of ``colours``: an isomorphism-invariant function of them."""
        if self.native:
            return self._refine_in_c(colours)
        count = _count_distinct(colours)
        while True:
            weights = _mix(colours)[self.neighbours]
            sums = np.zeros(self.n, dtype=np.uint64)
            sums[self.has_neighbours] = np.add.reduceat(weights, self.segment_starts)
            refined = _mix(colours * _GOLDEN + _mix(sums))
            refined_count = _count_distinct(refined)
            # Discrete: nothing left to split (saves the round that would only confirm it).
            if refined_count <= count or refined_count == self.n:
                return refined
            colours, count = refined, refined_count

    def _refine_in_c(self, colours: np.ndarray) -> np.ndarray:
        ffi, lib = _kernel()
        refined = np.array(colours, dtype=np.uint64)
        size = 1 << (2 * self.n).bit_length()  # a power of two above 2n: short probes
        work = np.empty(2 * self.n + size, dtype=np.uint64)
        lib.wl_refine(self.n, ffi.from_buffer("int64_t[]", self.offsets),
                      ffi.from_buffer("int64_t[]", self.neighbours), ffi.from_buffer("uint64_t[]", refined),
                      ffi.from_buffer("uint64_t[]", work), size)
        return refined

    def stable_colours(self, marked: np.ndarray) -> np.ndarray:
        return self.refine(self.initial_colours(marked))

    def is_isomorphism(self, f: np.ndarray, marked_a: np.ndarray, marked_b: np.ndarray) -> bool:
        """Whether node map ``f`` (a -> b) preserves edges, colour classes and marks."""
        if not (np.array_equal(self.colour[f], self.colour) and np.array_equal(marked_b[f], marked_a)):
            return False
        fu, fv = f[self.edge_codes // self.n], f[self.edge_codes % self.n]
        mapped = np.sort(np.minimum(fu, fv) * self.n + np.maximum(fu, fv))
        return bool(np.array_equal(mapped, self.edge_codes))


def certificate(stable: np.ndarray) -> bytes:
    """The graph certificate: a digest of the multiset of stable colours (equal for isomorphic
    graphs; a digest collision only costs an isomorphism search)."""
    return hashlib.blake2b(np.sort(stable).tobytes(), digest_size=16).digest()


def find_isomorphism(g: RefinementGraph, marked_a: np.ndarray, stable_a: np.ndarray,
                     marked_b: np.ndarray, stable_b: np.ndarray,
                     budget: int = 64) -> Optional[np.ndarray]:
    """A checked isomorphism from marked graph a to marked graph b, or ``None`` if there is none;
    raises ``SearchBudgetExceeded`` after ``budget`` branches."""
    tries = [budget]

    def search(ca: np.ndarray, cb: np.ndarray) -> Optional[np.ndarray]:
        order_a, order_b = np.argsort(ca), np.argsort(cb)
        sorted_a = ca[order_a]
        if not np.array_equal(sorted_a, cb[order_b]):
            return None
        new_colour = np.empty(g.n, dtype=bool)
        new_colour[0] = True
        np.not_equal(sorted_a[1:], sorted_a[:-1], out=new_colour[1:])
        if new_colour.all():  # discrete: the bijection is forced
            f = np.empty(g.n, dtype=np.int64)
            f[order_a] = order_b
            return f if g.is_isomorphism(f, marked_a, marked_b) else None
        # The smallest non-singleton cell (ties: least colour), an invariant choice.
        starts = np.flatnonzero(new_colour)
        counts = np.diff(np.append(starts, g.n))
        cells = np.flatnonzero(counts > 1)
        cell = sorted_a[starts[cells[np.argmin(counts[cells])]]]
        v = int(np.flatnonzero(ca == cell)[0])
        ra = ca.copy()
        ra[v] = _mix(ra[v:v + 1] ^ _INDIVIDUAL)[0]
        ra = g.refine(ra)
        for w in np.flatnonzero(cb == cell):
            tries[0] -= 1
            if tries[0] < 0:
                raise SearchBudgetExceeded()
            rb = cb.copy()
            rb[w] = _mix(rb[w:w + 1] ^ _INDIVIDUAL)[0]
            found = search(ra, g.refine(rb))
            if found is not None:
                return found
        return None

    return search(stable_a, stable_b)


def native_available() -> bool:
    """Whether ``refinement.c`` compiled here (a C compiler is present)."""
    return _kernel() is not None


#: Automorphisms ``NativeGraphCanonicaliser`` keeps (see there); 0 turns the images off.
AUTOMORPHISMS = 64


class NativeGraphCanonicaliser:
    """The graph strategy's whole per-state path in C (``gc_canonicalise`` in ``refinement.c``):
    mark the state's literal nodes, refine from the graph's precomputed equitable partition,
    key a table by the refinement's trace, and settle equal keys exactly (a discrete partition
    gives the only candidate bijection, which is checked; otherwise an individualisation-
    refinement search of at most ``budget`` branches).  The representative of an orbit is the
    first of its states canonicalised.  Past the budget a call from Python compares
    ``canonical_form`` (nauty/bliss, of a state) of the state with those of the representatives
    of its certificate; without ``canonical_form`` it raises ``CanonicalUndecided`` and stores
    nothing, as the C function does for the native explorer.
    ``key_bits`` of the certificate key the table (tests use 0: every state is compared exactly
    with every representative, which exercises the comparison).

    A memo (2-way, ``memo_bytes`` capped at 32 MB, the default) maps states already
    canonicalised to their representative.
    Each exact check that succeeds proves an automorphism of the graph (node v to the node at
    v's position in the representative's partition); up to ``automorphisms`` distinct ones are
    kept as maps of literals, and the images of every state they settle go into the memo too:
    the isomorphism tests' own by-product (nauty prunes with it likewise), never the detected
    group, so a state they reach costs a lookup instead of a refinement.

    The native explorer calls the same C function through ``native`` (shared table: traces
    rebuilt in Python see the representatives the C run chose)."""

    def __init__(self, graph, budget: int, key_bits: int = 64, canonical_form=None,
                 automorphisms: int = AUTOMORPHISMS, memo_bytes: int = -1):
        ffi, lib = _kernel()
        colour = np.zeros(graph.n, dtype=np.int64)
        for c, cls in enumerate(graph.colour_classes()):
            colour[cls] = c
        ends = np.asarray(graph.edges, dtype=np.int64).reshape(-1, 2)
        src, dst = np.concatenate([ends[:, 0], ends[:, 1]]), np.concatenate([ends[:, 1], ends[:, 0]])
        order = np.argsort(src, kind="stable")
        offsets = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=graph.n))])
        vmin, vspan, node_of = [], [], []
        for values in graph.pre_literal:
            lo, hi = min(values), max(values)
            vmin.append(lo)
            vspan.append(hi - lo + 1)
            node_of.extend(values.get(v, -1) for v in range(lo, hi + 1))
        arrays = (ffi.new("int32_t[]", offsets.tolist()),
                  ffi.new("int32_t[]", dst[order].tolist() or [0]),
                  ffi.new("int32_t[]", colour.tolist()),
                  ffi.new("int64_t[]", vmin or [0]), ffi.new("int32_t[]", vspan or [0]),
                  ffi.new("int32_t[]", node_of or [0]))
        handle = lib.gc_new(graph.n, arrays[0], arrays[1], arrays[2], len(vmin), arrays[3], arrays[4],
                            arrays[5], budget, key_bits, automorphisms, memo_bytes)
        if handle == ffi.NULL:
            raise MemoryError("graph canonicaliser tables")
        self._ffi, self._lib = ffi, lib
        self._handle = ffi.gc(handle, lib.gc_free)
        self._nslots = len(vmin)
        self._buffer = ffi.new("int64_t[]", max(1, self._nslots))
        self._canonical_form = canonical_form
        self._forms: dict = {}  # representative -> its canonical form, computed on demand
        self.native = ExternalCanonical(int(ffi.cast("uintptr_t", ffi.addressof(lib, "gc_canonicalise"))),
                                        int(ffi.cast("uintptr_t", self._handle)), self,
                                        int(ffi.cast("uintptr_t", ffi.addressof(lib, "gc_attach"))))

    def bytes_held(self) -> int:
        """Every byte the C canonicaliser holds: graph, partitions, table, representatives
        (each with its labelling), memo and automorphisms."""
        return int(self._lib.gc_memory(self._handle))

    def __call__(self, state):
        buffer = self._buffer
        buffer[0:self._nslots] = state
        rc = self._lib.gc_canonicalise(self._handle, buffer)
        if rc == -1:
            if self._canonical_form is None:
                raise CanonicalUndecided(state)
            return self._by_canonical_form(tuple(state))
        if rc == -2:
            raise MemoryError("graph canonicaliser tables")
        if rc == -3:
            raise ValueError(f"state {state} has a value without a literal node")
        if rc == -4:  # only while a native run counts it in its budget
            raise MemoryError("graph canonicaliser: the explorer's memory limit")
        return tuple(buffer[0:self._nslots])

    def _by_canonical_form(self, state):
        """The representative whose canonical form is ``state``'s, else ``state`` stored as a new one."""
        ffi, lib = self._ffi, self._lib
        ns = self._nslots
        out = ffi.new("int64_t[]", max(1, ns) * 64)
        count = lib.gc_bucket(self._handle, self._buffer, out, 64)
        if count > 64:
            out = ffi.new("int64_t[]", max(1, ns) * count)
            count = lib.gc_bucket(self._handle, self._buffer, out, count)
        form = self._canonical_form(state)
        for i in range(count):
            rep = tuple(out[i * ns:(i + 1) * ns])
            if rep not in self._forms:
                self._forms[rep] = self._canonical_form(rep)
            if self._forms[rep] == form:
                return rep
        if lib.gc_insert(self._handle, self._buffer) != 0:
            raise MemoryError("graph canonicaliser tables")
        self._forms[state] = form
        return state

    def stats(self) -> dict[str, int]:
        """Calls, discrete checks, searches, undecided calls, equal keys of other orbits, orbits,
        calls answered by the memo, images put in the memo, automorphisms kept."""
        out = self._ffi.new("uint64_t[9]")
        self._lib.gc_stats(self._handle, out)
        names = ("calls", "checks", "searches", "undecided", "collisions", "orbits", "memo_hits", "images",
                 "automorphisms")
        return dict(zip(names, (int(x) for x in out)))
