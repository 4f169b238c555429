"""Which pids ``run`` can give: an exploration of the process-creation skeleton.

In Spin a new process takes pid ``_nr_pr``, the number of processes alive, and only the
newest process is removed when it ends, so the pids in use are always ``0 .. _nr_pr - 1``.
Which pid a ``run`` gives is therefore the number of processes alive when it runs.
Without this analysis every proctype that ``run`` starts gets a slot at every pid up to
``--max-procs`` (``lower.dynamic_slots``); a model that starts its processes in a fixed
order (``LTL/mobile1.pml``: ``atomic { run P(fa, fp); run Q(fa) }``) then has instances
that never run, and local channels whose numbers depend on which of them do.

``creations`` explores an abstraction of the model: a state is the list of processes
alive, in pid order, each as its proctype and its location, and which process (if any)
surely holds atomic control.  Data is forgotten: every step of a process may be taken
whenever the process may move.  A location from which no ``run`` can be reached is
collapsed: into ``MAY_END`` when the process can still reach its end (it may then be
removed at any time it is the newest), else into ``INERT`` (it never changes the
processes alive).  Atomic control is kept only where it surely is: after a step that
keeps it (``Transition.keep``), that is no send or receive (a rendezvous passes control
to the partner), into a location with a step that is executable in every state
(an assignment, ``printf``, ``assert``, ``run``, ``skip``, a jump), in a model without
priorities and a proctype without ``provided``.

Invariant (soundness): every sequence of process creations and removals of the model is
one of the abstraction's (it only forgets guards and atomicity), so the pids recorded for
each ``run`` contain every pid it gives in a reachable state, and the channel counts
recorded for each created process every number of channels in use when it is created.
Past ``LIMIT`` abstract states the analysis gives up (None): every pid is then possible.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Optional

from frontends.kit import Num
from frontends.promela import syntax as S
from frontends.promela.cfg import Graph, Transition

#: abstract states explored before the analysis gives up (each is cheap: a tuple of pairs)
LIMIT = 20_000
#: collapsed locations (``Graph`` locations are non-negative)
INERT = -1
MAY_END = -2


@dataclass(frozen=True)
class Creations:
    """``run_pids``: per ``run`` statement, the pids it may give (``bound``: the run may
    find every pid below the bound in use); ``holders``: every (proctype, pid) a run may
    create; ``channels_in_use``: per (proctype, pid), the numbers of channels in use
    (globals not counted) when such a process is created."""

    run_pids: Mapping[S.Run, frozenset[int]]
    holders: frozenset[tuple[str, int]]
    channels_in_use: Mapping[tuple[str, int], frozenset[int]]


def _surely_executable(t: Transition) -> bool:
    """``t`` is executable in every state (or faults, which ends the run)."""
    if t.kind == "goto":
        return True
    if t.kind != "stmt":
        return False
    st = t.stmt
    if isinstance(st, (S.Assign, S.IncDec, S.Printf, S.AssertStmt, S.Run)):
        return True
    return isinstance(st, S.ExprStmt) and isinstance(st.expr, Num) and st.expr.value != 0


@dataclass(frozen=True)
class _Shape:
    """One graph's abstraction: each location's class (itself, ``INERT`` or ``MAY_END``),
    the steps out of each kept location as (transition, abstract target), and the kept
    locations where a process that keeps atomic control surely moves next."""

    cls: Mapping[int, int]
    steps: Mapping[int, tuple[tuple[Transition, int], ...]]
    sure: frozenset[int]


def _shape(g: Graph, exclusive: bool) -> _Shape:
    moves = [t for t in g.transitions if t.kind != "end"]
    back: dict[int, list[int]] = {}
    for t in moves:
        back.setdefault(t.dst, []).append(t.src)

    def reaching(targets: set[int]) -> set[int]:
        seen, todo = set(targets), list(targets)
        while todo:
            x = todo.pop()
            for y in back.get(x, ()):
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return seen

    creating = reaching({t.src for t in moves if t.kind == "stmt" and isinstance(t.stmt, S.Run)})
    ending = reaching({g.end})
    cls = {loc: loc if loc in creating else MAY_END if loc in ending else INERT
           for loc in set(g.locations) | {g.entry, g.end}}
    steps: dict[int, list] = {}
    for t in moves:
        if t.src in creating:
            steps.setdefault(t.src, []).append((t, cls.get(t.dst, INERT if t.dst not in ending else MAY_END)))
    sure = frozenset(loc for loc, out in steps.items()
                     if exclusive and any(_surely_executable(t) for t, _ in out))
    return _Shape(cls, {k: tuple(v) for k, v in steps.items()}, sure)


def creations(started: list[Graph], graph_of: Callable[[str], Graph], bound: int,
              channels: Callable[[Graph, int], int], exclusive: bool,
              blockable: frozenset[str] = frozenset()) -> Optional[Creations]:
    """The creations of a model whose processes ``started`` run from the start (pids
    0, 1, ...); ``graph_of(proctype)`` is the graph a ``run`` starts; at most ``bound``
    processes alive (a run beyond is a fault: nothing after it is explored).
    ``channels(graph, pid)``: the channels a process creates.  ``exclusive``: atomic
    control may be followed (False in a model with priorities); ``blockable``: graphs
    every step of which may block (``provided``).  None past ``LIMIT`` states, or where a
    ``run`` hides in a ``d_step`` (not explored)."""
    shapes: dict[str, _Shape] = {}
    graphs: dict[str, Graph] = {}

    def shape(g: Graph) -> _Shape:
        if g.name not in shapes:
            if any(t.kind == "dstep" and S.find_node(t.stmt, lambda n: isinstance(n, S.Run)) is not None
                   for t in g.transitions):
                raise _GiveUp
            shapes[g.name] = _shape(g, exclusive and g.name not in blockable)
            graphs[g.name] = g
        return shapes[g.name]

    run_pids: dict[S.Run, set[int]] = {}
    in_use: dict[tuple[str, int], set[int]] = {}
    try:
        initial = (tuple((g.name, shape(g).cls.get(g.entry, INERT)) for g in started), None)
        seen = {initial}
        todo = [initial]
        while todo:
            procs, holder = todo.pop()
            movers = range(len(procs)) if holder is None else (holder,)
            for p in movers:
                name, loc = procs[p]
                if loc == MAY_END:
                    if p == len(procs) - 1:
                        nxt = (procs[:-1], None)
                        if nxt not in seen:
                            seen.add(nxt)
                            todo.append(nxt)
                    continue
                if loc == INERT:
                    continue
                sh = shapes[name]
                for t, dst in sh.steps.get(loc, ()):
                    after = procs[:p] + ((name, dst),) + procs[p + 1:]
                    if t.kind == "stmt" and isinstance(t.stmt, S.Run):
                        pid = len(procs)
                        run_pids.setdefault(t.stmt, set()).add(pid)
                        if pid >= bound:
                            continue  # "too many processes": the run faults
                        child = graph_of(t.stmt.proctype)
                        csh = shape(child)
                        in_use.setdefault((t.stmt.proctype, pid), set()).add(
                            sum(channels(graphs[n], k) for k, (n, _) in enumerate(procs)))
                        after = after + ((child.name, csh.cls.get(child.entry, INERT)),)
                    keeps = t.keep and not isinstance(t.stmt, (S.Send, S.Recv)) and dst in sh.sure
                    nxt = (after, p if keeps else None)
                    if nxt not in seen:
                        if len(seen) >= LIMIT:
                            return None
                        seen.add(nxt)
                        todo.append(nxt)
    except _GiveUp:
        return None
    return Creations({r: frozenset(v) for r, v in run_pids.items()}, frozenset(in_use),
                     {k: frozenset(v) for k, v in in_use.items()})


class _GiveUp(Exception):
    """A ``run`` the exploration does not follow."""
