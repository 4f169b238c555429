"""Native (C) exploration of a ``SequentialModel``: the same ``Exploration`` as
``detect.statespace.explore.explore_state_space`` without canonicalisation, at compiled-code speed.

``codegen`` writes C for the successor function, the terminal predicate and the assertion
conditions (``detect.ir.semantics``'s meaning, faults included); ``build`` compiles it with the
system C compiler (cached by a hash of the source) and loads it with cffi; ``runtime.c`` keeps
the packed states (in breadth-first order, which makes the state array the queue), their
parent indices and an open-addressing visited table, hash-partitioned over worker threads.
Python drives the search in slices (to report progress and honour ``max_states``,
``memory_limit``, ``timeout`` and Ctrl-C) and rebuilds traces by re-running the Python
compiled model along the parent chain.

The result equals the Python explorer's in states, transitions, initial states, deadlock and
terminal state sets, fault count, truncation and verdicts.  What may differ is only what
depends on the order in which one state's new successors are queued (Python queues a set):
the order of ``deadlocks``/``terminal_states``, which shortest counterexample is shown, which
fault states are reported first, and which states are kept when ``max_states`` truncates.

Engines (``dispatch``): ``python``, ``native`` (falls back to Python, saying so in the result's
``notes``, when no compiler is available, compilation fails, or int64 arithmetic would
overflow), and
``auto``, the default: Python explores the first ``AUTO_THRESHOLD`` states
(``AUTO_THRESHOLD_REDUCED`` when it canonicalises; small models never wait for a compiler)
and a model with more is explored natively.  The choice comes from the
``engine`` argument (the CLI's ``--engine``, passed down), else the
environment variable ``SYMDETECT_NATIVE`` (``0``/``python``, ``1``/``native``, ``auto``).
"""
from __future__ import annotations

import os
import time
from dataclasses import replace
from typing import Optional

from detect.statespace.compile import CompiledModel, State, compile_model
from detect.ir import SequentialModel

ENGINES = ("auto", "native", "python")
#: States the Python explorer handles before ``auto`` switches to native code.
AUTO_THRESHOLD = 20_000
#: The same for a reduced run: canonicalising and checking the generators in Python costs
#: ~1 ms a state (n_peterson N=6: 20,000 states took 20 s, the C build ~2 s).
AUTO_THRESHOLD_REDUCED = 2_000
#: Target seconds of one C slice between Python checks (progress, timeout, Ctrl-C).
_SLICE_SECONDS = 0.2


class NativeUnavailable(Exception):
    """The native explorer cannot run this model here (no compiler, build error, ...)."""


class NativeOverflow(NativeUnavailable):
    """Some arithmetic left the int64 range: Python's unbounded ints are needed."""


def default_workers() -> int:
    """One worker per core this process may run on that the load average does not show busy
    (this process counts as one; at least one worker).  Workers meet at the end of every
    round, and on busy cores a worker that waits for another waits for a core too: on the
    shared 2-core machine at load 11, 2 workers took 1.2-1.6x the wall time of 1 while their
    critical path was 1.1-1.7x shorter (``results/native.md``)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        busy = round(os.getloadavg()[0]) - 1
    except (AttributeError, OSError):
        busy = 0
    return max(1, min(cores, cores - busy))


def engine_choice(explicit: Optional[str] = None) -> str:
    if explicit is not None:
        if explicit not in ENGINES:
            raise ValueError(f"unknown explorer engine {explicit!r}")
        return explicit
    env = os.environ.get("SYMDETECT_NATIVE", "").strip().lower()
    if env in ("0", "python", "no", "off", "false"):
        return "python"
    if env in ("1", "native", "yes", "on", "true"):
        return "native"
    return "auto"


def dispatch(model, *, max_states=None, timeout=None, progress=None, engine=None,
             canonicalise=None, symmetries=(), memory_limit=None, native_canonical=None, workers=None):
    """``detect.statespace.explore.explore_state_space`` on the chosen engine: unreduced, or
    reduced by the canonicaliser ``native_canonical`` describes (``SortedBlocks``,
    ``PermutedPids`` or ``ExternalCanonical``) with the generators ``symmetries`` checked on every state.  A fallback to
    the Python explorer is said in the result's ``notes``."""
    from detect.statespace.explore import explore_state_space as explore_python

    def python(max_states=max_states, timeout=timeout):
        return explore_python(model, max_states=max_states, timeout=timeout, progress=progress,
                              engine="python", canonicalise=canonicalise, symmetries=symmetries,
                              memory_limit=memory_limit)

    choice = engine_choice(engine)
    if choice == "python":
        return python()
    start, cpu_start = time.perf_counter(), time.process_time()
    first = None
    if choice == "auto":
        threshold = AUTO_THRESHOLD if canonicalise is None else AUTO_THRESHOLD_REDUCED
        if max_states is not None and max_states <= threshold:
            return python()
        first = python(max_states=threshold)
        if not first.truncated or first.interrupted or first.states < threshold:
            return first
        if timeout is not None and time.perf_counter() - start >= timeout:
            return first
    remaining = None if timeout is None else max(0.0, timeout - (time.perf_counter() - start))
    try:
        result = explore_native(model, max_states=max_states, timeout=remaining, progress=progress,
                                canonicalise=canonicalise, symmetries=symmetries,
                                memory_limit=memory_limit, native_canonical=native_canonical, workers=workers)
    except NativeUnavailable as e:
        remaining = None if timeout is None else max(0.0, timeout - (time.perf_counter() - start))
        fallback = python(timeout=remaining)
        note = f"native explorer unavailable ({e}); used the Python explorer"
        return replace(fallback, notes=fallback.notes + (note,))
    if first is None:
        return result
    return replace(result, seconds=time.perf_counter() - start, cpu_seconds=time.process_time() - cpu_start)


def native_source(model: SequentialModel) -> str:
    from detect.statespace.native.codegen import Unsupported, c_source

    try:
        return c_source(model)
    except Unsupported as e:
        raise NativeUnavailable(str(e)) from None
    except RecursionError:
        raise NativeUnavailable("model too deeply nested for the C generator") from None


def load(model: SequentialModel, quick: bool = False):
    """The compiled library of ``model`` (``NativeUnavailable`` when it cannot be built;
    ``quick``: see ``build.shared_object``)."""
    from detect.statespace.native.build import BuildError, load as load_library

    source = native_source(model)
    try:
        return load_library(source, quick)
    except BuildError as e:
        raise NativeUnavailable(str(e)) from None


_RC_TRUNCATED, _RC_OVERFLOW, _RC_MEMORY, _RC_NOT_A_SYMMETRY, _RC_MEMORY_LIMIT, _RC_TOO_MANY = 2, 3, 4, 5, 6, 7
_RC_UNDECIDED = 8
_NO_LIMIT = (1 << 64) - 1
#: How the native explorer's ``memory_bytes`` are counted.
MEMORY_MEASURE = "held: packed states, parent indices, visited tables and routing boxes"
#: The same for the nested search (``acceptance_cycle_native``).
NDFS_MEMORY_MEASURE = ("held by the nested search: packed states, parent indices, the visited table, colours "
                       "and stacks")


def _set_symmetry(model, lib, ffi, ctx, canonicalise, symmetries, native_canonical):
    """Hand the canonical form (sorted blocks, or pids' tables) and the generators' slot/value
    tables to C; returns what must stay alive while C may read it (nothing after
    ``nx_set_symmetry`` and ``nx_set_pids`` copy, but be safe)."""
    from detect.statespace.explore import ExternalCanonical

    tables = symmetry_tables(model, canonicalise is not None, symmetries, native_canonical)
    if tables is None:
        return None
    keep = apply_symmetry_tables(lib, ffi, ctx, tables)
    if canonicalise is not None and isinstance(native_canonical, ExternalCanonical):
        lib.nx_set_external(ctx, ffi.cast("void *", native_canonical.function),
                            ffi.cast("void *", native_canonical.context),
                            ffi.cast("void *", native_canonical.attach))
        keep.append(native_canonical.owner)
    return keep


def symmetry_tables(model, reduces: bool, symmetries, native_canonical) -> Optional[dict]:
    """What ``nx_set_symmetry`` (and ``nx_set_pids``) take, as plain lists that pickle (a
    distributed run ships them to its workers): the sorted blocks or the pids' tables when
    ``reduces``, and the generators ``symmetries`` to check.  None when there is neither."""
    from detect.statespace.explore import (
        EnumeratedElements, ExternalCanonical, PermutedPids, PointSymmetry, SortedBlocks,
    )

    if not reduces and not symmetries:
        return None
    if reduces and not isinstance(native_canonical, (SortedBlocks, PermutedPids, EnumeratedElements,
                                                     ExternalCanonical)):
        raise NativeUnavailable("only the sorting, pid, element and external canonicalisers run natively")
    blocks = native_canonical.blocks if isinstance(native_canonical, SortedBlocks) and reduces else ()
    if blocks and len({len(b) for b in blocks}) != 1:
        raise NativeUnavailable("blocks of different sizes")
    from detect.ir.points import LiteralPoints

    pts = LiteralPoints.of(model)
    targets, values = [], []
    for sym in symmetries:
        if not isinstance(sym, PointSymmetry):
            raise NativeUnavailable("a generator without its point images")
        images = sym.images
        for k, points in enumerate(pts.slot_points):
            targets.append(pts.pairs[images[points[0]]][0])
        for p in range(len(pts.pairs)):
            values.append(pts.pairs[images[p]][1])
    tables = {"blocks": [k for b in blocks for k in b], "nblocks": len(blocks),
              "blen": len(blocks[0]) if blocks else 0, "ngens": len(symmetries), "targets": targets,
              "npoints": len(pts.pairs), "poff": [points[0] for points in pts.slot_points],
              "values": values, "pids": None, "elements": None}
    if reduces and isinstance(native_canonical, PermutedPids):
        tables["pids"] = _pid_tables(native_canonical, pts)
    if reduces and isinstance(native_canonical, EnumeratedElements):
        from detect.statespace.native.canon import CanonTables, element_arrays

        tables["elements"] = element_arrays(CanonTables(
            len(pts.slot_points), elements=native_canonical.elements, maps=native_canonical.maps,
            order=native_canonical.order))
        tables["elements"]["nel"] = len(native_canonical.elements)
    return tables


def apply_symmetry_tables(lib, ffi, ctx, tables: dict) -> list:
    """Set ``symmetry_tables``'s tables on the C context ``ctx``; returns the buffers."""
    keep = [ffi.new("int32_t[]", tables["blocks"] or [0]), ffi.new("int32_t[]", tables["targets"] or [0]),
            ffi.new("int32_t[]", tables["poff"] or [0]), ffi.new("int64_t[]", tables["values"] or [0])]
    if lib.nx_set_symmetry(ctx, tables["nblocks"], tables["blen"], keep[0], tables["ngens"], keep[1],
                           tables["npoints"], keep[2], keep[3]):
        raise NativeUnavailable("out of memory")
    pids = tables["pids"]
    if pids is not None:
        buffers = [ffi.new("int32_t[]", pids["blocks"] or [0]), ffi.new("int32_t[]", pids["fixed"] or [0]),
                   ffi.new("int32_t[]", pids["labelled"] or [0]), ffi.new("int32_t[]", pids["label"] or [0]),
                   ffi.new("int64_t[]", pids["value"] or [0])]
        if lib.nx_set_pids(ctx, pids["m"], pids["len"], buffers[0], len(pids["fixed"]), buffers[1],
                           buffers[2], buffers[3], buffers[4]):
            raise NativeUnavailable(f"S_{pids['m']} on pids: too many pids for the C tables")
        keep += buffers
    elements = tables.get("elements")
    if elements is not None:
        buffers = [ffi.new("int32_t[]", elements[name] or [0]) for name in ("src", "map", "order", "len", "off")]
        buffers += [ffi.new("int64_t[]", elements[name] or [0]) for name in ("lo", "tab")]
        src, mid, order, length, off, lo, tab = buffers
        if lib.nx_set_elements(ctx, elements["nel"], src, mid, order, len(elements["lo"]), lo, length, off,
                               len(elements["tab"]), tab):
            raise NativeUnavailable("out of memory")
        keep += buffers
    return keep


def _pid_tables(pids, pts) -> dict:
    """``nx_set_pids``'s tables: per point the pid it names (-1: none), per slot and pid the
    value naming it (0 where the slot names no pids)."""
    m = len(pids.blocks)
    names = [dict(pairs) for pairs in pids.pid_of]
    label = [names[k].get(v, -1) for k, v in pts.pairs]
    value = [0] * (len(pts.slot_points) * m)
    for k, pairs in enumerate(pids.pid_of):
        for v, q in pairs:
            value[k * m + q] = v
    return {"m": m, "len": len(pids.blocks[0]), "blocks": [k for b in pids.blocks for k in b],
            "fixed": list(pids.fixed), "labelled": [1 if pairs else 0 for pairs in pids.pid_of],
            "label": label, "value": value}


def _not_a_symmetry(lib, ffi, ctx, symmetries) -> None:
    """Raise the ``NotASymmetry`` the run stopped at: the generator the C code found not to
    map a successor set onto the image's, with the state it was checked on."""
    from detect.statespace import explore as ex  # the layer above: imported where raised
    buf = ffi.new("int64_t[]", max(1, lib.nx_nslots()))
    lib.nx_state(ctx, lib.nx_bad_state(ctx), buf)
    s = tuple(buf[k] for k in range(lib.nx_nslots()))
    g = lib.nx_bad_generator(ctx)
    raise ex.NotASymmetry(g, s, symmetries[g](s))


def _refuse(rc: int, lib, ctx) -> None:
    """Raise ``NativeUnavailable`` when ``rc`` says the C search cannot go on, or
    ``CanonicalUndecided`` when the external canonicaliser could not decide a state."""
    from detect.statespace.explore import CanonicalUndecided

    if rc == _RC_UNDECIDED:
        raise CanonicalUndecided("the external canonicaliser could not decide a state")
    if rc == _RC_MEMORY:
        raise NativeUnavailable("out of memory")
    if rc == _RC_TOO_MANY:
        raise NativeUnavailable(f"more states than 32-bit state ids can number "
                                f"({lib.nx_count(ctx):,} stored)")


def explore_native(model: SequentialModel | CompiledModel, *, max_states: int | None = None,
                   timeout: float | None = None, progress=None,
                   stats: dict | None = None, canonicalise=None, symmetries=(),
                   memory_limit: int | None = None, native_canonical=None, workers: int | None = None,
                   parallel_min: int | None = None):
    """Explore natively; raises ``NativeUnavailable``/``NativeOverflow`` instead of falling back.

    ``canonicalise`` must be ``None`` or one C also computes, as ``native_canonical`` says
    (``detect.statespace.explore.SortedBlocks``: blocks sorted; ``PermutedPids``: the least
    image under permutations of pids); each of ``symmetries`` (a
    ``PointSymmetry``, as ``detect.checking.reduce`` makes them) is checked on every expanded state, and
    ``detect.statespace.explore.NotASymmetry`` raised for the first that fails, as the Python explorer does.

    ``memory_limit`` bounds the bytes held for states, parents, the visited tables and the
    routing boxes: C checks before each allocation and stops (``memory_limit_reached``)
    rather than exceed it (beyond each worker's first allocation, always made: room for 1,024
    packed states and their parents and a table of 2,048 4-byte slots).  Per state it holds
    the packed bytes, a 4-byte parent id and 4/3 to 8/3 table slots (see ``runtime.c``).

    ``workers`` threads (default: ``default_workers()``, at most 64) share the search, each owning the
    states whose hash falls to it (see ``runtime.c``); the counts, deadlocks, faults and
    verdicts do not depend on it, and a given number of workers always finds the same states
    in the same order.  Levels of fewer than ``parallel_min`` states (default: ``runtime.c``'s
    ``PARALLEL_MIN``) are expanded on one thread, the workers' phases one after another (the
    same result: tests set 0 to run every level on the threads).

    ``stats``, when given, receives ``bytes`` (memory held for states, parents and the visited
    table), ``states``, ``cpu`` (CPU seconds of the workers' search) and ``cpu_critical`` (of
    those, the ones along the critical path: ``cpu / cpu_critical`` is the speed-up the workers
    give with a core each, however loaded the machine is).

    Why one function: it owns one C context from ``nx_new`` to ``nx_free``; the phases (start-up,
    search in time slices, finish) and their return codes are handled inside that one
    ``try``/``finally``, in the order the runtime returns them.
    """
    from detect.statespace.native.build import ffi as get_ffi

    compiled = model if isinstance(model, CompiledModel) else compile_model(model)
    lib = load(compiled.model)
    ffi = get_ffi()
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + timeout if timeout is not None else None
    limit = max_states if max_states is not None else _NO_LIMIT
    ctx = lib.nx_new(max(0, limit), _NO_LIMIT if memory_limit is None else max(0, memory_limit),
                     default_workers() if workers is None else workers)
    if ctx == ffi.NULL:
        raise NativeUnavailable("out of memory")
    if parallel_min is not None:
        lib.nx_set_parallel_min(ctx, parallel_min)
    try:
        keep = _set_symmetry(compiled.model, lib, ffi, ctx, canonicalise, symmetries, native_canonical)
        truncated, interrupted, memory_limited, timed_out = _search(
            lib, ffi, ctx, start, deadline, progress, max_states, symmetries)
        seconds = time.perf_counter() - start
        cpu_seconds = time.process_time() - cpu_start
        states = lib.nx_count(ctx)
        transitions = lib.nx_transitions(ctx)
        if progress is not None:
            progress(states, transitions, seconds, lib.nx_level(ctx))
        if stats is not None:
            stats["bytes"] = lib.nx_memory(ctx)
            stats["states"] = states
            stats["cpu"] = lib.nx_cpu_total(ctx)
            stats["cpu_critical"] = lib.nx_cpu_critical(ctx)
        del keep
        return replace(_result(compiled, lib, ffi, ctx, seconds, truncated, interrupted, canonicalise),
                       memory_bytes=lib.nx_memory(ctx), memory_measure=MEMORY_MEASURE,
                       memory_limit_reached=memory_limited, cpu_seconds=cpu_seconds, timed_out=timed_out)
    finally:
        lib.nx_free(ctx)


def native_survey(model: SequentialModel, max_states: int, progress=None, timeout: float | None = None):
    """``detect.statespace.explore.Survey`` of ``model``'s unreduced exploration, natively (one
    worker: the counts do not depend on it), bounded by ``max_states`` and ``timeout``.  Raises
    ``NativeUnavailable``/``NativeOverflow`` instead of falling back; a ``KeyboardInterrupt``
    (Ctrl-C, the command line's time-out) propagates as raised.  ``complete`` as
    ``reachable_graph``'s: every state expanded, fewer than ``max_states`` of them.

    Why: narrowing to the reachable domains needs of its two explorations only the counts and
    each slot's values; in Python they were most of detection on models of 100,000s of states
    (Spin's dtp.pml: 589,223 states, 8.7 CPU s each, 0.3 s here)."""
    import numpy as np

    from detect.statespace.explore import Survey
    from detect.statespace.native.build import ffi as get_ffi

    lib = load(model, quick=True)
    ffi = get_ffi()
    start = time.perf_counter()
    ctx = lib.nx_new(max(0, max_states), _NO_LIMIT, 1)
    if ctx == ffi.NULL:
        raise NativeUnavailable("out of memory")
    try:
        truncated, _, _, _ = _search(lib, ffi, ctx, start, None if timeout is None else start + timeout,
                                     progress, max_states, interruptible=False)
        states, transitions = lib.nx_count(ctx), lib.nx_transitions(ctx)
        if progress is not None:
            progress(states, transitions, time.perf_counter() - start, lib.nx_level(ctx))
        nslots = lib.nx_nslots()
        values: list[set[int]] = [set() for _ in range(nslots)]
        chunk = 1 << 15
        buf = ffi.new("int64_t[]", max(1, chunk * nslots))
        count = lib.nx_worker_count(ctx, 0)
        for first in range(0, count if nslots else 0, chunk):
            n = min(chunk, count - first)
            lib.nx_states(ctx, 0, first, n, buf)
            block = np.frombuffer(ffi.buffer(buf, 8 * n * nslots), dtype=np.int64).reshape(n, nslots)
            for k in range(nslots):
                values[k].update(np.unique(block[:, k]).tolist())
        # (the survey's faults, as ``reachable_graph``'s: any faulting step, a bound's too)
        return Survey(states, transitions, lib.nx_nfaults(ctx) + lib.nx_nbounds(ctx), not truncated and states < max_states,
                      tuple(frozenset(v) for v in values))
    finally:
        lib.nx_free(ctx)


def _search(lib, ffi, ctx, start: float, deadline: float | None, progress, max_states: int | None,
            symmetries=(), interruptible: bool = True) -> tuple[bool, bool, bool, bool]:
    """Run the search of ``ctx`` to its end in time slices (progress, ``deadline``, Ctrl-C):
    ``(truncated, interrupted, memory_limited, timed_out)``.  ``NativeOverflow`` when a value
    left int64, ``NotASymmetry`` for the first of ``symmetries`` that fails.  Without
    ``interruptible`` a ``KeyboardInterrupt`` (the command line's ``TimedOut`` and
    ``MemoryLimitReached`` are ones) propagates as raised."""
    from detect.statespace import explore as ex

    truncated = interrupted = memory_limited = timed_out = False
    tick = ex.Clock(start, deadline, progress,
                    lambda: (lib.nx_count(ctx), lib.nx_transitions(ctx), lib.nx_level(ctx))).out_of_time
    budget = 1024

    def adapt(seconds: float) -> None:
        nonlocal budget
        if seconds < _SLICE_SECONDS / 4:
            budget = min(budget * 4, 1 << 24)
        elif seconds > _SLICE_SECONDS * 2:
            budget = max(64, budget // 2)

    try:
        if max_states == 0:
            truncated = True
        while not truncated:
            t0 = time.perf_counter()
            rc = lib.nx_init(ctx, budget)
            adapt(time.perf_counter() - t0)
            _refuse(rc, lib, ctx)
            if rc in (_RC_TRUNCATED, _RC_MEMORY_LIMIT):
                truncated = True
                memory_limited = rc == _RC_MEMORY_LIMIT
            if tick():
                truncated = timed_out = True
            if rc == 0:
                break
        while not truncated:
            t0 = time.perf_counter()
            rc = lib.nx_run(ctx, budget)
            adapt(time.perf_counter() - t0)
            if rc == _RC_OVERFLOW:
                raise NativeOverflow("a value left the 64-bit range")
            _refuse(rc, lib, ctx)
            if rc == _RC_NOT_A_SYMMETRY:
                _not_a_symmetry(lib, ffi, ctx, symmetries)
            if rc in (_RC_TRUNCATED, _RC_MEMORY_LIMIT):
                truncated = True
                memory_limited = rc == _RC_MEMORY_LIMIT
                break
            if rc == 0:
                break
            if tick():
                truncated = timed_out = True
    except KeyboardInterrupt:
        if not interruptible:
            raise
        truncated = interrupted = True
    if lib.nx_finish(ctx) == _RC_OVERFLOW:
        raise NativeOverflow("a value left the 64-bit range")
    return truncated, interrupted, memory_limited, timed_out


def _result(compiled, lib, ffi, ctx, seconds, truncated, interrupted, canonicalise=None, depth=None):
    """The ``Exploration`` the context ``ctx`` holds; ``depth`` None: the breadth-first
    search's (the last level's), else the one given (the nested search's deepest stack)."""
    from detect.statespace import explore as ex

    buf = ffi.new("int64_t[]", max(1, lib.nx_nslots()))
    nslots = lib.nx_nslots()

    def state(i: int) -> State:
        lib.nx_state(ctx, i, buf)
        return tuple(buf[k] for k in range(nslots))

    index_of: dict[State, int] = {}

    def known(i: int) -> State:
        s = state(i)
        index_of.setdefault(s, i)
        return s

    nd, dl = lib.nx_ndeadlocks(ctx), lib.nx_deadlocks(ctx)
    deadlocks = [known(dl[j]) if j == 0 else state(dl[j]) for j in range(nd)]
    nt, tl = lib.nx_nterminals(ctx), lib.nx_terminals(ctx)
    terminals = [state(tl[j]) for j in range(nt)]
    nfaults = lib.nx_nfaults(ctx)
    fault_states = [known(lib.nx_first_fault(ctx, j)) for j in range(min(16, nfaults))]
    nbounds = lib.nx_nbounds(ctx)
    bound_states = [known(lib.nx_first_bound(ctx, j)) for j in range(min(16, nbounds))]

    class Pending:
        decided: dict[int, State] = {}
        best: dict[int, int] = {}  # min/max objectives: only the Python explorer has them

    pending = Pending()
    pending.decided = {}
    pending.best = {}
    for i in range(len(compiled.model.assertions)):
        d = lib.nx_decided(ctx, i)
        if d >= 0:
            pending.decided[i] = known(d)

    tracer = _IndexTracer(compiled, lambda i: state(i), lambda i: lib.nx_parent(ctx, i), index_of,
                          canonicalise)
    # Each worker stores its states level by level: the deepest of the workers' last states
    # (id = local index * workers + worker) is at the depth reached.
    workers = lib.nx_nworkers(ctx)
    bfs, depth = depth is None, depth or 0
    for w in range(workers if bfs else 0):
        count, steps = lib.nx_worker_count(ctx, w), 0
        at = (count - 1) * workers + w if count else _NO_PARENT
        while at != _NO_PARENT and lib.nx_parent(ctx, at) != _NO_PARENT:
            steps += 1
            at = lib.nx_parent(ctx, at)
        depth = max(depth, steps)
    return ex.finished(compiled, tracer, pending, states=lib.nx_count(ctx),
                       transitions=lib.nx_transitions(ctx), initial=lib.nx_initial(ctx),
                       deadlocks=deadlocks, terminals=terminals, fault_states=fault_states,
                       faults=nfaults, truncated=truncated, interrupted=interrupted, seconds=seconds,
                       depth=depth, bound_states=bound_states, bounds=nbounds)


_NO_PARENT = 0xFFFFFFFF


class _IndexTracer:
    """``detect.statespace.explore._Tracer`` over the native parent indices (states known by index)."""

    def __init__(self, compiled, state_of, parent_of, index_of, canonicalise=None):
        self.canonicalise = canonicalise
        self.compiled = compiled
        self.state_of = state_of
        self.parent_of = parent_of
        self.index_of = index_of

    def trace(self, state: State):
        from detect.statespace.explore import trace_between

        path = [self.index_of[state]]
        while (p := self.parent_of(path[-1])) != _NO_PARENT:
            path.append(p)
        path.reverse()
        states = [self.state_of(i) for i in path]
        start = states[0]
        if self.canonicalise is not None:
            # A real initial state with this representative: the first one, as Python keeps.
            start = next((x for x in self.compiled.initial_states()
                          if self.canonicalise(x) == start), start)
        return trace_between(self.compiled, start, states[1:], self.canonicalise)

    def fault_trace(self, state: State):
        from detect.statespace.explore import with_fault_step

        return with_fault_step(self.compiled, self.trace(state))


def native_states(model: SequentialModel, max_states: int | None = None, workers: int = 1,
                  parallel_min: int | None = None) -> list[State]:
    """Every state the native explorer stores, in each worker's discovery order, worker after
    worker (for tests and tools)."""
    from detect.statespace.native.build import ffi as get_ffi

    lib = load(model)
    ffi = get_ffi()
    ctx = lib.nx_new(max_states if max_states is not None else _NO_LIMIT, _NO_LIMIT, workers)
    if parallel_min is not None:
        lib.nx_set_parallel_min(ctx, parallel_min)
    try:
        while lib.nx_init(ctx, 1 << 20) == 1:
            pass
        while (rc := lib.nx_run(ctx, 1 << 20)) == 1:
            pass
        if rc == _RC_OVERFLOW:
            raise NativeOverflow("a value left the 64-bit range")
        n = lib.nx_nslots()
        buf = ffi.new("int64_t[]", max(1, n))
        out = []
        for w in range(workers):
            for i in range(lib.nx_worker_count(ctx, w)):
                lib.nx_state(ctx, i * workers + w, buf)
                out.append(tuple(buf[k] for k in range(n)))
        return out
    finally:
        lib.nx_free(ctx)


class NativeCanonicaliser:
    """The C canonicaliser a ``native_canonical`` describes, as a function of a state (for
    tests and tools: it must agree with the Python canonicaliser it stands for)."""

    def __init__(self, model: SequentialModel, canonicalise, native_canonical):
        from detect.statespace.native.build import ffi as get_ffi

        self.lib = load(model)
        self.ffi = get_ffi()
        ctx = self.lib.nx_new(_NO_LIMIT, _NO_LIMIT, 1)
        if ctx == self.ffi.NULL:
            raise NativeUnavailable("out of memory")
        self.ctx = self.ffi.gc(ctx, self.lib.nx_free)
        self.tables = _set_symmetry(model, self.lib, self.ffi, self.ctx, canonicalise, (), native_canonical)
        self.nslots = self.lib.nx_nslots()
        self.buf = self.ffi.new("int64_t[]", max(1, self.nslots))

    def __call__(self, state: State) -> State:
        for k, v in enumerate(state):
            self.buf[k] = v
        self.lib.nx_canonicalise(self.ctx, self.buf)
        return tuple(self.buf[k] for k in range(self.nslots))


_RC_FOUND = 9


def acceptance_cycle_native(model: SequentialModel | CompiledModel, condition: int, *,
                            max_states: int | None = None, timeout: float | None = None,
                            memory_limit: int | None = None, interruptible: bool = False,
                            canonicalise=None, symmetries=(), native_canonical=None, fair: bool = False,
                            gather: bool = False) -> dict:
    """Whether the reachable graph of ``model`` (with ``canonicalise``: its quotient, computed
    in C as ``native_canonical`` says; each of ``symmetries`` checked on every expanded state)
    has a cycle through a state satisfying assertion ``condition``'s condition: the nested
    depth-first search of ``runtime.c`` (``nx_ndfs_*``), which stores each state once, packed,
    and stops at the first cycle found.

    Returns a dict: ``found`` (True, False, or None when stopped), ``stopped`` ("" or
    ``verify``'s ``MAX_STATES``, ``MEMORY_LIMIT``, ``TIMEOUT``, ``INTERRUPTED``), ``states``
    (stored), ``transitions`` (of the blue search), ``memory_bytes`` (held), ``path`` (the
    lasso's states, ``path[loop_from] == path[-1]``) and ``loop_from``.  With ``fair``, the
    search is over the states with pan's weak-fairness counter (``nx_ndfs_new_fair``:
    unreduced only), a cycle counts only where it is weakly fair, and ``counters`` gives the
    counter at each state of ``path`` (-1: no round open).  With ``gather`` (unfair, unreduced
    searches), the blue search also records what the breadth-first exploration does
    (``nx_ndfs_gather``), and a search that ends without a cycle -- every reachable state
    expanded once -- returns it as ``exploration``: an ``Exploration`` with the same states,
    transitions, initial states, deadlocks, valid end states, fault states and verdicts,
    whose ``depth`` is the deepest depth-first stack and whose traces are depth-first paths
    (``depth_first``); else ``exploration`` is None.  Raises
    ``NativeUnavailable``/``NativeOverflow`` (the caller falls back to Python),
    ``explore.NotASymmetry`` and ``explore.CanonicalUndecided`` as ``explore_native`` does.

    Why one function: as ``explore_native``, it owns one C context (and its search) from
    ``nx_new`` to the frees; the start-up, the slices and the return codes share them."""
    # verify's stop reasons, spelt out: the checking layer sits above this one
    MAX_STATES, MEMORY_LIMIT, TIMEOUT, INTERRUPTED = "max-states", "memory-limit", "timeout", "interrupted"
    from detect.statespace.native.build import ffi as get_ffi

    compiled = model if isinstance(model, CompiledModel) else compile_model(model)
    lib = load(compiled.model)
    if not lib.nx_cond_native(condition):
        raise NativeUnavailable("the accepting condition has no C translation")
    ffi = get_ffi()
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + timeout if timeout is not None else None
    limit = max_states if max_states is not None else _NO_LIMIT
    ctx = lib.nx_new(max(0, limit), _NO_LIMIT if memory_limit is None else max(0, memory_limit), 1)
    if ctx == ffi.NULL:
        raise NativeUnavailable("out of memory")
    search = ffi.NULL
    gather = gather and not fair and canonicalise is None
    try:
        keep = _set_symmetry(compiled.model, lib, ffi, ctx, canonicalise, symmetries, native_canonical)
        stopped, rc, budget = "", 1, 1024
        try:
            while rc == 1:
                rc = lib.nx_init(ctx, budget)
                _refuse(rc, lib, ctx)
            if rc == 0:
                search = lib.nx_ndfs_new_fair(ctx, condition) if fair else lib.nx_ndfs_new(ctx, condition)
                if search == ffi.NULL:
                    raise NativeUnavailable("no weak fairness facts C can read, or a reduction" if fair
                                            else "out of memory")
                if gather:
                    lib.nx_ndfs_gather(search)
                rc = 1
                while rc == 1:
                    t0 = time.perf_counter()
                    rc = lib.nx_ndfs_run(search, budget)
                    seconds = time.perf_counter() - t0
                    budget = min(budget * 4, 1 << 22) if seconds < _SLICE_SECONDS / 4 else \
                        max(64, budget // 2) if seconds > _SLICE_SECONDS * 2 else budget
                    if rc == 1 and deadline is not None and time.perf_counter() > deadline:
                        stopped = TIMEOUT
                        break
        except KeyboardInterrupt:
            if not interruptible:
                raise
            stopped = INTERRUPTED
        if rc == _RC_OVERFLOW:
            raise NativeOverflow("a value left the 64-bit range")
        _refuse(rc, lib, ctx)
        if rc == _RC_NOT_A_SYMMETRY:
            _not_a_symmetry(lib, ffi, ctx, symmetries)
        if rc == _RC_TRUNCATED:
            stopped = MAX_STATES
        elif rc == _RC_MEMORY_LIMIT:
            stopped = MEMORY_LIMIT
        found = None if stopped else rc == _RC_FOUND
        path, counters, loop_from = [], [], None
        if found:
            nslots = lib.nx_nslots()
            buf = ffi.new("int64_t[]", max(1, nslots))
            k = lib.nx_ndfs_fair_k(search) or 1  # a node is state * k + counter + 1 (fair)
            for i in range(lib.nx_ndfs_lasso_len(search)):
                node = lib.nx_ndfs_lasso(search, i)
                lib.nx_state(ctx, node // k, buf)
                path.append(tuple(buf[x] for x in range(nslots)))
                counters.append(node % k - 1)
            loop_from = lib.nx_ndfs_loop_from(search)
        exploration = None
        if gather and found is False:
            seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
            exploration = replace(_result(compiled, lib, ffi, ctx, seconds, False, False,
                                          depth=lib.nx_ndfs_max_depth(search)),
                                  memory_bytes=lib.nx_memory(ctx), memory_measure=NDFS_MEMORY_MEASURE,
                                  cpu_seconds=cpu_seconds, depth_first=True)
        del keep
        return {"found": found, "stopped": stopped, "states": lib.nx_count(ctx),
                "transitions": lib.nx_transitions(ctx), "memory_bytes": lib.nx_memory(ctx),
                "path": path, "counters": counters if fair else None, "loop_from": loop_from,
                "exploration": exploration}
    finally:
        if search != ffi.NULL:
            lib.nx_ndfs_free(search)
        lib.nx_free(ctx)
