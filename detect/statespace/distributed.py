"""Exploration distributed on Ray: the native explorer's states hash-partitioned over actors.

Design (issue 32).  Each Ray actor (``PartitionWorker``) owns one partition: the canonical
states whose hash falls to it (``runtime.c``'s ``owner_of`` over the partitions), kept in the
native explorer's C table of its own process, with the compiled model's ``.so`` (built from
the C source the driver ships; each node compiles it once into its cache).  Successors are
canonicalised where they are generated (sorted blocks or the pid canonicaliser, in C), so
each orbit has one owner, and are sent in batches to their owners: per round, an actor's
``step`` returns one packed ``uint8`` array per partition (records of the packed state and
its parent's 32-bit global id), each a separate Ray object, and the driver passes the
*references* to the owners' next ``step``, which inserts them before it expands (numpy
arrays are read zero-copy from the object store; the driver never touches the states).

The search is level-synchronous breadth first, not asynchronous with termination detection:
levels never mix, so every parent pointer is at the least depth and counterexamples are
shortest, as in the single-process explorer; the end of the search is simply a level that
no partition adds to; and a round (expand, then receive) is the natural point to check
``max_states``, the time-out, progress and Ctrl-C.  Its cost is one barrier per round (one
Ray call per actor), which ``results/distributed.md`` measures.

Ids: a state's global id is ``local * P + partition`` (32 bits, as the native explorer's),
so a parent id names its owner, and a counterexample is followed back by asking owners for
each state and parent (``_IndexTracer``).  Limits: ``max_states`` is shared out among the
partitions each round (each gets the states left divided by P), so a truncated run holds at
most ``max_states`` states; ``memory_limit`` bounds each worker's C memory (states, parents,
table, routing boxes), which is what must fit in one machine.

Spec: ``local:N`` starts (or joins the already started) Ray runtime on this machine with N
partitions; anything else is a Ray address (``auto``, ``HOST:PORT``, ``ray://HOST:10001``)
with ``workers`` partitions (default: the cluster's CPUs).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from typing import Optional

from detect.statespace.compile import CompiledModel, compile_model

#: Target seconds of one round (the slowest actor's share of the level): long enough that two
#: Ray calls per actor are noise, short enough for progress, time-out and Ctrl-C.
ROUND_SECONDS = 0.25
FIRST_BUDGET = 4096
MAX_PARTS = 256
MEASURE = "held per worker: packed states, parent indices, visited table and routing boxes (summed over workers)"
_RC_DONE, _RC_MORE, _RC_TRUNCATED, _RC_OVERFLOW, _RC_MEMORY, _RC_NOT_A_SYMMETRY, _RC_MEMORY_LIMIT = 0, 1, 2, 3, 4, 5, 6
_RC_TOO_MANY, _RC_UNDECIDED = 7, 8
_NO_LIMIT = (1 << 64) - 1


class DistributedUnavailable(Exception):
    """Ray is not installed, the spec is malformed, or the cluster cannot be reached."""


@dataclass(frozen=True)
class Spec:
    """Where to run: ``address`` None starts Ray on this machine; ``workers`` partitions
    (None: the cluster's CPUs)."""

    address: Optional[str]
    workers: Optional[int]

    def label(self) -> str:
        """What the report shows: ``local:4 (4 workers)``, ``HOST:PORT (64 workers)``."""
        where = self.address or f"local:{self.workers}"
        return f"{where} ({self.workers or 'one per cluster CPU'} workers)"

    @staticmethod
    def parse(text: str, workers: Optional[int] = None) -> "Spec":
        """``local:N`` or a Ray address; raises ``ValueError`` with the expected form."""
        text = text.strip()
        if text.startswith("local"):
            _, _, n = text.partition(":")
            try:
                count = int(n) if n else (workers or os.cpu_count() or 1)
            except ValueError:
                raise ValueError(f"--distributed {text!r}: expected local:N (N workers) or a Ray address") from None
            if not 1 <= count <= MAX_PARTS:
                raise ValueError(f"--distributed {text!r}: N must be between 1 and {MAX_PARTS}")
            return Spec(None, count)
        if not text:
            raise ValueError("--distributed: expected local:N (N workers) or a Ray address")
        return Spec(text, workers)


def ray_module():
    """The ``ray`` module, or ``DistributedUnavailable`` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise DistributedUnavailable("--distributed needs Ray: pip install 'symdetect[distributed]' "
                                     "(or pip install 'ray>=2.9')") from None
    return ray


def _package_root() -> str:
    import detect

    return os.path.dirname(os.path.dirname(os.path.abspath(detect.__file__)))


def connect(spec: Spec):
    """Start or join Ray as ``spec`` says (once per process: an initialised Ray is reused);
    returns the number of partitions."""
    ray = ray_module()
    if not ray.is_initialized():
        import signal
        import threading

        # Ray's core worker installs C handlers for SIGTERM (log and abort) and SIGINT: the
        # caller's (a report of what was explored, exit 3) are put back after it starts.
        main = threading.current_thread() is threading.main_thread()
        saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)} if main else {}
        # The workers import this checkout's code, as the driver does (an editable install
        # elsewhere, or none, on this machine); on a cluster the path is ignored where absent.
        env = {"env_vars": {"PYTHONPATH": os.pathsep.join(
            p for p in (_package_root(), os.environ.get("PYTHONPATH", "")) if p)}}
        try:
            if spec.address is None:
                ray.init(address="local", num_cpus=spec.workers, include_dashboard=False, runtime_env=env,
                         log_to_driver=False, logging_level="ERROR")
            else:
                ray.init(address=spec.address, runtime_env=env, log_to_driver=False, logging_level="ERROR")
        except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError, ...
            raise DistributedUnavailable(f"cannot start or reach Ray at {spec.address or 'local'}: "
                                         f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
        finally:
            for sig, handler in saved.items():
                if handler is not None:
                    signal.signal(sig, handler)
    if spec.workers is not None:
        return spec.workers
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


class PartitionWorker:
    """One partition of a distributed run, in its own process (a Ray actor): a native
    explorer context (one worker) that owns the states hashing to ``part`` of ``nparts``.
    Plain class; ``explore_distributed`` wraps it with ``ray.remote``."""

    def __init__(self):
        self.ctx = None

    def setup(self, source: str, part: int, nparts: int, memory_limit: Optional[int],
              tables: Optional[dict], canonicalise=None) -> int:
        """Load the compiled model (building it unless cached) and a fresh context; returns
        the record size (packed state bytes + 4).  ``canonicalise``, a Python canonicaliser
        (the stabiliser-chain least image, which C does not have), is called from C for each
        successor, here, in this partition's process."""
        from detect.statespace.native import apply_symmetry_tables, NativeUnavailable
        from detect.statespace.native.build import BuildError, ffi as get_ffi, load

        self.close()
        try:
            self.lib = load(source)
        except BuildError as e:
            raise NativeUnavailable(str(e)) from None
        self.ffi = get_ffi()
        self.ctx = self.lib.nx_new(_NO_LIMIT, _NO_LIMIT if memory_limit is None else max(0, memory_limit), 1)
        if self.ctx == self.ffi.NULL or self.lib.nx_set_partition(self.ctx, part, nparts):
            raise NativeUnavailable("out of memory")
        self.keep = apply_symmetry_tables(self.lib, self.ffi, self.ctx, tables) if tables else None
        if canonicalise is not None:
            self.callback = _c_canonicaliser(canonicalise, self.lib.nx_nslots())
            self.lib.nx_set_external(self.ctx, self.ffi.cast("void *", self.callback[0]), self.ffi.NULL,
                                     self.ffi.NULL)
        self.nparts = nparts
        self.part = part
        self.nslots = self.lib.nx_nslots()
        self.record = self.lib.nx_record_bytes()
        self.routed = 0
        return self.record

    def close(self) -> None:
        if self.ctx is not None:
            self.lib.nx_free(self.ctx)
            self.ctx = None

    def _status(self, rc: int, seconds: float = 0.0) -> dict:
        lib, ctx = self.lib, self.ctx
        return {"rc": rc, "states": lib.nx_count(ctx), "transitions": lib.nx_transitions(ctx),
                "memory": lib.nx_memory(ctx), "pending": lib.nx_part_pending(ctx),
                "deadlocks": lib.nx_ndeadlocks(ctx), "faults": lib.nx_nfaults(ctx),
                "decided": [lib.nx_decided(ctx, i) >= 0 for i in range(self.nconds)],
                "seconds": seconds, "routed": self.routed}

    def start(self, limit: int, nconds: int):
        """Enumerate every nparts-th initial state, canonicalised; returns the status and,
        per partition, the records of those it owns (as ``step`` does)."""
        t0, c0 = time.perf_counter(), time.thread_time()
        self.nconds = nconds
        self.lib.nx_set_limit(self.ctx, limit)
        while (rc := self.lib.nx_init(self.ctx, 1 << 16)) == _RC_MORE:
            pass
        out, sent = self._boxes()
        status = self._status(rc, time.perf_counter() - t0)
        status["sent"] = sent
        status["cpu"] = time.thread_time() - c0
        return (status, *out)

    def _boxes(self):
        """The routing boxes as arrays (empty for this partition) and their records in all."""
        import numpy as np

        out = [np.empty(0, dtype=np.uint8)] * self.nparts
        sent = 0
        ptr = self.ffi.new("uint8_t **")
        for o in range(self.nparts):
            k = self.lib.nx_part_box(self.ctx, o, ptr) if o != self.part else 0
            if k:
                # Copied once, into the object store (Ray serialises the return value
                # before the method returns, so the next round may reuse the C box).
                out[o] = np.frombuffer(self.ffi.buffer(ptr[0], k * self.record), dtype=np.uint8)
                sent += k
        self.routed += sent
        return out, sent

    def step(self, advance: bool, budget: int, limit: int, *boxes):
        """One round here: insert the records routed here in the last round (``boxes``), start
        the next level when ``advance`` (the last round ended the level everywhere), then
        expand up to ``budget`` states of the level.  Returns the status and one array of
        records per partition (empty for this one)."""
        import numpy as np

        t0, c0 = time.perf_counter(), time.thread_time()
        lib, ctx = self.lib, self.ctx
        lib.nx_set_limit(ctx, limit)
        rc = 0
        for box in boxes:
            if len(box) and rc == 0:
                rc = lib.nx_part_receive(ctx, self.ffi.from_buffer("uint8_t[]", box), len(box) // self.record)
        if advance and rc == 0:
            lib.nx_part_next_level(ctx)
        t1, c1 = time.perf_counter(), time.thread_time()
        sent = 0
        out = [np.empty(0, dtype=np.uint8)] * self.nparts
        if rc == 0:
            rc = lib.nx_part_expand(ctx, budget)
            out, sent = self._boxes()
        status = self._status(rc, time.perf_counter() - t0)
        status["sent"] = sent
        status["receive_seconds"] = t1 - t0
        status["receive_cpu"] = c1 - c0
        status["cpu"] = time.thread_time() - c0
        status["fresh"] = lib.nx_count(ctx) - lib.nx_part_level_end(ctx)
        if rc == _RC_NOT_A_SYMMETRY:
            status["bad"] = (lib.nx_bad_generator(ctx), self.state(lib.nx_bad_state(ctx) // self.nparts))
        return (status, *out)

    def finish(self) -> dict:
        """The run's findings here: global ids of deadlocks, terminals, first faults, decided
        conditions (nx_finish checks the unexpanded states' conditions first)."""
        lib, ctx = self.lib, self.ctx
        ovf = lib.nx_finish(ctx) == _RC_OVERFLOW
        nd, dl = lib.nx_ndeadlocks(ctx), lib.nx_deadlocks(ctx)
        nt, tl = lib.nx_nterminals(ctx), lib.nx_terminals(ctx)
        nf, nb = lib.nx_nfaults(ctx), lib.nx_nbounds(ctx)
        return {"overflow": ovf, "states": lib.nx_count(ctx), "transitions": lib.nx_transitions(ctx),
                "initial": lib.nx_initial(ctx), "memory": lib.nx_memory(ctx),
                "deadlocks": [dl[j] for j in range(nd)], "terminals": [tl[j] for j in range(nt)],
                "faults": nf, "first_faults": [lib.nx_first_fault(ctx, j) for j in range(min(16, nf))],
                "bounds": nb, "first_bounds": [lib.nx_first_bound(ctx, j) for j in range(min(16, nb))],
                "decided": [lib.nx_decided(ctx, i) for i in range(self.nconds)],
                "cpu": lib.nx_cpu_total(ctx), "routed": self.routed}

    def state(self, local: int) -> tuple:
        buf = self.ffi.new("int64_t[]", max(1, self.nslots))
        self.lib.nx_state(self.ctx, local, buf)
        return tuple(buf[k] for k in range(self.nslots))

    def states(self, locals_: list) -> list:
        return [self.state(i) for i in locals_]

    def parent(self, local: int) -> int:
        return self.lib.nx_parent(self.ctx, local)


def _c_canonicaliser(canonicalise, nslots: int):
    """A C function ``int f(void *, int64_t *state)`` replacing the state by
    ``canonicalise``'s representative (nonzero when it raised): its address and what keeps it."""
    import cffi

    ffi = cffi.FFI()

    def canon(_context, t) -> int:
        r = canonicalise(tuple(t[0:nslots]))
        for k in range(nslots):
            t[k] = r[k]
        return 0

    callback = ffi.callback("int(void *, int64_t *)", canon, onerror=lambda *_: -1)
    return int(ffi.cast("uintptr_t", callback)), callback, ffi


_POOL: list = []


def _actors(ray, n: int) -> list:
    """``n`` partition actors, kept for the process's later runs (an actor is a process:
    starting one costs about a second); a run uses the first ``n``."""
    if len(_POOL) < n:
        # No CPU reserved (local:4 on 2 cores must start, and a run's actors must not wait
        # for an earlier run's); spread over the nodes so that memory is.
        remote = ray.remote(num_cpus=0, scheduling_strategy="SPREAD")(PartitionWorker)
        _POOL.extend(remote.remote() for _ in range(n - len(_POOL)))
    return _POOL[:n]


def explore_distributed(model: SequentialModel | CompiledModel, spec: Spec, *, max_states: int | None = None,
                        timeout: float | None = None, progress=None, canonicalise=None, symmetries=(),
                        memory_limit: int | None = None, native_canonical=None, stats: dict | None = None):
    """``detect.statespace.explore.explore_state_space`` on Ray partitions (module docstring):
    unreduced, or reduced by the C canonicaliser ``native_canonical`` describes
    (``SortedBlocks`` or ``PermutedPids``), the generators ``symmetries`` checked on every
    state.  Raises ``NativeUnavailable`` for what the native explorer cannot run (the caller
    falls back) and ``DistributedUnavailable`` when Ray cannot be used.

    ``stats``, when given, receives ``rounds``, ``levels``, ``routed`` (records sent between
    partitions), ``record_bytes``, ``worker_memory`` (bytes held per worker) and
    ``round_seconds`` (the rounds' wall-clock times), ``step_seconds`` (per round, the slowest
    worker's and the sum of the workers' times inside their step, the sum of their times
    inserting what was routed to them, the records they routed, the slowest worker's and
    the sum of their CPU seconds, and the sum of their CPU seconds inserting),
    ``start_seconds`` (the same four for enumerating the initial states: wall, wall summed,
    CPU, CPU summed) and ``worker_cpu``.

    Why one function: it owns the actors of one run from ``setup`` to ``finish``; rounds,
    stops and verdicts are handled in the one loop that sees every status."""
    from detect.statespace import explore as ex
    from detect.statespace.native import (NativeOverflow, NativeUnavailable, _IndexTracer, native_source,
                                          symmetry_tables)

    called = time.perf_counter()
    compiled = model if isinstance(model, CompiledModel) else compile_model(model)
    # The sorting, pid and element canonicalisers run in C (their tables are shipped); another
    # Python canonicaliser (the stabiliser-chain least image) is shipped to the workers and
    # called from C there; the graph canonicaliser's C tables live in this process and are not
    # shipped.
    python_canonical = None
    if canonicalise is not None and not isinstance(native_canonical, (ex.SortedBlocks, ex.PermutedPids,
                                                                      ex.EnumeratedElements)):
        if native_canonical is not None:
            raise NativeUnavailable("the graph canonicaliser runs in one process only")
        python_canonical = canonicalise
    if any(a.objective is not None for a in compiled.model.assertions):
        raise NativeUnavailable("min/max objectives are computed by the Python explorer")
    source = native_source(compiled.model)
    tables = symmetry_tables(compiled.model, canonicalise is not None and python_canonical is None, symmetries,
                             native_canonical)
    ray = ray_module()
    n = connect(spec)
    actors = _actors(ray, n)
    nconds = len(compiled.model.assertions)
    try:
        record = ray.get([a.setup.remote(source, i, n, memory_limit, tables, python_canonical)
                          for i, a in enumerate(actors)])[0]
    except ray.exceptions.RayTaskError as e:
        cause = e.as_instanceof_cause()
        if isinstance(cause, NativeUnavailable):
            raise NativeUnavailable(str(cause)) from None
        raise
    # The search's clock starts once the workers hold the model (the single-process
    # explorer's starts after its build too); the time-out counts from the call.
    deadline = called + timeout if timeout is not None else None
    start, cpu_start = time.perf_counter(), time.process_time()
    states = transitions = 0
    clock = ex.Clock(start, deadline, progress, lambda: (states, transitions))
    limit = max_states if max_states is not None else None
    truncated = interrupted = memory_limited = False
    level = 0
    # per partition: the level of its first deadlock, fault, and decided condition
    first_level = [dict() for _ in range(n)]
    rounds, round_seconds, step_seconds, start_seconds = 0, [], [], (0.0, 0.0, 0.0, 0.0)
    budget = FIRST_BUDGET

    def shares(statuses) -> list:
        """Each partition's state limit for the next round: the states left, shared out."""
        if limit is None:
            return [_NO_LIMIT] * n
        left = max(0, limit - sum(s["states"] for s in statuses))
        return [s["states"] + left // n + (1 if i < left % n else 0) for i, s in enumerate(statuses)]

    def note(statuses, at: int) -> None:
        for i, s in enumerate(statuses):
            seen = first_level[i]
            if s["deadlocks"]:
                seen.setdefault("deadlock", at)
            if s["faults"]:
                seen.setdefault("fault", at)
            for k, d in enumerate(s["decided"]):
                if d:
                    seen.setdefault(k, at)

    def stop_code(statuses) -> Optional[int]:
        nonlocal truncated, memory_limited
        for s in statuses:
            rc = s["rc"]
            if rc in (_RC_DONE, _RC_MORE):
                continue
            if rc == _RC_TRUNCATED:
                truncated = True
            elif rc == _RC_MEMORY_LIMIT:
                truncated = memory_limited = True
            else:
                return rc
        return None

    def fail(rc: int, statuses) -> None:
        if rc == _RC_OVERFLOW:
            raise NativeOverflow("a value left the 64-bit range")
        if rc == _RC_NOT_A_SYMMETRY:
            g, s = next(x["bad"] for x in statuses if x["rc"] == _RC_NOT_A_SYMMETRY)
            raise ex.NotASymmetry(g, s, symmetries[g](s))
        if rc == _RC_TOO_MANY:
            raise NativeUnavailable("more states than 32-bit state ids can number")
        if rc == _RC_UNDECIDED:
            raise NativeUnavailable("a worker's canonicaliser failed")
        raise NativeUnavailable("out of memory in a worker")

    try:
        try:
            # Each worker canonicalises every n-th initial state; the first step delivers them
            # and starts level 0 with all of them.
            refs = [a.start.options(num_returns=n + 1).remote(limit_i, nconds)
                    for a, limit_i in zip(actors, shares([{"states": 0}] * n))]
            statuses = ray.get([r[0] for r in refs])
            start_seconds = (max(s["seconds"] for s in statuses), sum(s["seconds"] for s in statuses),
                             max(s["cpu"] for s in statuses), sum(s["cpu"] for s in statuses))
            states = sum(s["states"] for s in statuses)
            rc = stop_code(statuses)
            if rc is not None:
                fail(rc, statuses)
            if max_states == 0:
                truncated = True
            advance = True
            level = -1
            while not truncated:
                if clock.out_of_time():
                    truncated = True
                    break
                t0 = time.perf_counter()
                if advance:
                    level += 1
                lims = shares(statuses)
                # Each owner receives its boxes of the last round by reference: the object
                # store hands them over (zero-copy for numpy), the driver never reads them.
                refs = [a.step.options(num_returns=n + 1).remote(
                            advance, budget, lim, *[refs[i][1 + j] for i in range(n)])
                        for j, (a, lim) in enumerate(zip(actors, lims))]
                statuses = ray.get([r[0] for r in refs])
                note(statuses, level)
                rc = stop_code(statuses)
                if rc is not None:
                    fail(rc, statuses)
                rounds += 1
                round_seconds.append(time.perf_counter() - t0)
                step_seconds.append((max(s["seconds"] for s in statuses), sum(s["seconds"] for s in statuses),
                                     sum(s["receive_seconds"] for s in statuses), sum(s["sent"] for s in statuses),
                                     max(s["cpu"] for s in statuses), sum(s["cpu"] for s in statuses),
                                     sum(s["receive_cpu"] for s in statuses)))
                states = sum(s["states"] for s in statuses)
                transitions = sum(s["transitions"] for s in statuses)
                advance = all(s["pending"] == 0 for s in statuses)
                if advance and not any(s["fresh"] or s["sent"] for s in statuses):
                    break  # the next level is empty everywhere
                slowest = max(s["seconds"] for s in statuses)
                if not advance or slowest > ROUND_SECONDS:
                    if slowest < ROUND_SECONDS / 4:
                        budget = min(budget * 4, 1 << 24)
                    elif slowest > ROUND_SECONDS * 2:
                        budget = max(256, budget // 2)
            del refs
        except KeyboardInterrupt:
            truncated = interrupted = True
        try:
            done = ray.get([a.finish.remote() for a in actors])
        except KeyboardInterrupt:  # a second Ctrl-C: the findings are still wanted
            done = ray.get([a.finish.remote() for a in actors])
        if any(d["overflow"] for d in done):
            raise NativeOverflow("a value left the 64-bit range")
        seconds = time.perf_counter() - start
        states = sum(d["states"] for d in done)
        transitions = sum(d["transitions"] for d in done)
        if progress is not None:
            progress(states, transitions, seconds)
        if stats is not None:
            stats.update(rounds=rounds, levels=level, routed=sum(d["routed"] for d in done), record_bytes=record,
                         worker_memory=[d["memory"] for d in done], round_seconds=round_seconds,
                         step_seconds=step_seconds, start_seconds=start_seconds,
                         worker_cpu=[d["cpu"] for d in done])
        result = _result(compiled, ray, actors, n, done, first_level, level, canonicalise, seconds,
                         truncated, interrupted, _IndexTracer)
        return replace(result, memory_bytes=sum(d["memory"] for d in done), memory_measure=MEASURE,
                       memory_limit_reached=memory_limited, cpu_seconds=time.process_time() - cpu_start)
    finally:
        for a in actors:
            a.close.remote()


def _result(compiled, ray, actors, n, done, first_level, last_level, canonicalise, seconds, truncated,
            interrupted, tracer_class):
    """The ``Exploration``: findings gathered from the partitions, the ones of least depth
    first (each partition's first is its shallowest), traces followed back across owners."""
    from detect.statespace import explore as ex

    def by_depth(key) -> list[int]:
        return sorted(range(n), key=lambda i: (first_level[i].get(key, last_level + 1), i))

    cache: dict[int, tuple] = {}

    def fetch(ids: list[int]) -> list[tuple]:
        want = [g for g in dict.fromkeys(ids) if g not in cache]
        per = {}
        for g in want:
            per.setdefault(g % n, []).append(g)
        got = ray.get([actors[p].states.remote([g // n for g in gs]) for p, gs in per.items()])
        for gs, ss in zip(per.values(), got):
            cache.update(zip(gs, ss))
        return [cache[g] for g in ids]

    index_of: dict[tuple, int] = {}

    def known(ids: list[int]) -> list[tuple]:
        out = fetch(ids)
        for g, s in zip(ids, out):
            index_of.setdefault(s, g)
        return out

    dl_ids = [g for i in by_depth("deadlock") for g in done[i]["deadlocks"]]
    deadlocks = known(dl_ids[:1]) + fetch(dl_ids[1:])
    terminals = fetch([g for d in done for g in d["terminals"]])
    ff_ids = [g for i in by_depth("fault") for g in done[i]["first_faults"]][:16]
    fault_states = known(ff_ids)
    bound_states = known([g for d in done for g in d["first_bounds"]][:16])

    class Pending:
        decided: dict[int, tuple] = {}
        best: dict[int, int] = {}

    pending = Pending()
    pending.decided, pending.best = {}, {}
    for k in range(len(compiled.model.assertions)):
        for i in by_depth(k):
            if done[i]["decided"][k] >= 0:
                pending.decided[k] = known([done[i]["decided"][k]])[0]
                break

    def state_of(g: int) -> tuple:
        return fetch([g])[0]

    def parent_of(g: int) -> int:
        return ray.get(actors[g % n].parent.remote(g // n))

    tracer = tracer_class(compiled, state_of, parent_of, index_of, canonicalise)
    return ex.finished(compiled, tracer, pending, states=sum(d["states"] for d in done),
                       transitions=sum(d["transitions"] for d in done), initial=sum(d["initial"] for d in done),
                       deadlocks=deadlocks, terminals=terminals, fault_states=fault_states,
                       faults=sum(d["faults"] for d in done), truncated=truncated, interrupted=interrupted,
                       seconds=seconds, bound_states=bound_states, bounds=sum(d["bounds"] for d in done))
