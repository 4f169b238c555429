"""Spin's "states, stored" for a Promela model, from the states we explore.

Spin does not store a state reached by a step that leaves its process inside an atomic
block (``_atomic`` holds that pid) -- unless that process is blocked there, not counting its
timeout moves: then Spin hands control to the others and stores the state.  Under a never
claim it stores the states where the claim is to move, and those after a stutter move
(``frontends.promela.claim``).  Spin's state vector has no ``_atomic`` and no turn bits:
states that differ only there count once.  The Promela front end records the condition
(``"spin_stored"``) and those variables (``"spin_hidden"``) in the model's annotations; a
model without them is stored state for state.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from detect import ir
from detect.checking.verify import stop_advice, stop_reason
from detect.statespace.compile import compile_model
from detect.statespace.explore import reachable_graph, state_bound


def with_merging(model: ir.SequentialModel, skipped: dict[str, frozenset[int]]) -> ir.SequentialModel:
    """``model`` counted as Spin with statement merging (its default) stores: ``skipped`` maps
    a program counter to the values pan's merged transitions pass over (a merged chain is one
    step of pan's, so no state with a process inside it is reached or stored); the stored
    condition excludes them."""
    cond = model.annotation("spin_stored") or ir.Const(1)
    for pc, values in sorted(skipped.items()):
        for v in sorted(values):
            cond = ir.Binary("&&", cond, ir.Binary("!=", ir.Name(pc), ir.Const(v)))
    notes = dict(model.annotations)
    notes["spin_stored"], notes["spin_merging"] = cond, True
    return dataclasses.replace(model, annotations=tuple(notes.items()))


def _stored_probe(model: ir.SequentialModel):
    """The stored condition compiled as the guard of a summand that changes nothing (None:
    every state is stored)."""
    if not model.annotation("spin_hidden", ()) and not model.annotation("spin_merging"):
        return None
    return compile_model(dataclasses.replace(
        model, summands=(ir.Summand((), model.annotation("spin_stored"), ir.Event("stored"), ()),),
        assertions=(), terminal=None))


def spin_state_count(model: ir.SequentialModel, states) -> int:
    """How many of ``states`` Spin stores ("states, stored" without partial-order reduction)."""
    hidden = set(model.annotation("spin_hidden", ()))
    probe = _stored_probe(model)
    if probe is None:
        return len(states)
    keep = [k for k, slot in enumerate(ir.state_slots(model)) if slot.variable not in hidden]
    kept = {tuple(state[k] for k in keep) for state in states if probe.successors(state)}
    return len(kept)


def spin_stored_states(model: ir.SequentialModel, max_states: int | None = None,
                       timeout: float | None = None, memory_limit: int | None = None,
                       interruptible: bool = False) -> tuple[int, int, bool]:
    """``(Spin's "states, stored", all our states, complete)`` by one unreduced exploration
    of at most ``max_states`` states (fewer for states of many slots: ``explore.state_bound``),
    ``timeout`` seconds and ``memory_limit`` bytes of resident-set growth (and Ctrl-C, if
    ``interruptible``).

    Our count includes the states inside atomic sequences, which Spin passes through
    without storing; ``spin_state_count`` gives the number comparable with Spin's
    ``-o1 -o2 -o3`` run without partial-order reduction and without a never claim."""
    counted = spin_stored_count(model, max_states, timeout, memory_limit, interruptible)
    return counted.stored, counted.states, not counted.stopped_by


@dataclass(frozen=True)
class SpinStored:
    """Spin's "states, stored" (``stored``) among the ``states`` we explored; ``stopped_by``
    (a ``verify.stop_reason``, "" when the count is complete) and ``advice`` say why the count
    is partial and what to pass."""

    stored: int
    states: int
    stopped_by: str = ""
    advice: str = ""
    #: with a group: Spin's "states, stored" when it stores states up to the group (the
    #: orbits of those it stores: ``spin_stored_slots``), as ``symdetect spin``'s verifier does
    reduced: Optional[int] = None


def spin_stored_count(model: ir.SequentialModel, max_states: int | None = None, timeout: float | None = None,
                      memory_limit: int | None = None, interruptible: bool = False, group=None) -> SpinStored:
    """``spin_stored_states`` with the reason a partial count stopped; with ``group`` (acting
    on ``model``'s points) also the count up to the group."""
    bound = state_bound(model, max_states or 10_000_000)
    graph = reachable_graph(model, max_states=bound.states, timeout=timeout,
                            memory_limit=memory_limit, interruptible=interruptible)
    reason = stop_reason(graph, bound)
    advice = stop_advice(reason, bound, "while counting Spin's stored states") if reason else ""
    reduced = None
    if group is not None and not reason:
        reduced = len(spin_stored_slots(model, graph.states, group))
    return SpinStored(spin_state_count(model, graph.states), len(graph.states), reason, advice, reduced)


def spin_stored_slots(model: ir.SequentialModel, states, group) -> set[tuple]:
    """One representative per orbit, under ``group`` (a detection's ``SymmetryGroup``), of
    the states Spin stores among ``states``, projected on the slots pan's vector has: their
    number is the "states, stored" of a Spin verifier that stores states up to the group.
    The least image (stabiliser-chain backtracking) compares the hidden slots last, so the
    projection of the least image is the least image of the projection."""
    from detect.checking.reduce import slot_order, smallest_image
    from detect.ir.points import LiteralPoints
    from detect.symmetry.permgroup import permutation_group

    hidden = set(model.annotation("spin_hidden", ()))
    slots = ir.state_slots(model)
    probe = _stored_probe(model)
    if probe is not None:
        states = [s for s in states if probe.successors(s)]
    keep = [k for k, slot in enumerate(slots) if slot.variable not in hidden]
    pts = LiteralPoints.of(model)
    gens = [tuple(g) for g in group.acting_points]
    if not gens:
        return {tuple(s[k] for k in keep) for s in states}
    sym = permutation_group(gens, len(pts.pairs))
    order = slot_order(sym, pts)
    order = tuple(k for k in order if k in set(keep)) + tuple(k for k in order if k not in set(keep))
    canon = smallest_image(sym, pts, order)
    return {tuple(c[k] for k in keep) for c in map(canon, states)}


def spin_stored_orbits(model: ir.SequentialModel, group, max_states: int = 1_000_000) -> Optional[int]:
    """``spin_stored_slots``'s count (Spin's "states, stored" up to ``group``) by a search of
    the quotient: one state per orbit is held (the least image, hidden slots compared last),
    so models whose unreduced state space does not fit are counted.  The orbits of the
    reachable states are the states reachable in the quotient (each element of the group is
    an automorphism); the stored condition is read on each, and the projections of their
    least images are the least images of the projections (``spin_stored_slots``).  None past
    ``max_states`` orbits."""
    from collections import deque

    from detect.checking.reduce import slot_order, smallest_image
    from detect.ir.points import LiteralPoints
    from detect.symmetry.permgroup import permutation_group

    hidden = set(model.annotation("spin_hidden", ()))
    slots = ir.state_slots(model)
    keep = [k for k, slot in enumerate(slots) if slot.variable not in hidden]
    compiled = compile_model(model)
    probe = _stored_probe(model)
    pts = LiteralPoints.of(model)
    gens = [tuple(g) for g in group.acting_points]
    sym = permutation_group(gens, len(pts.pairs))
    order = slot_order(sym, pts)
    order = tuple(k for k in order if k in set(keep)) + tuple(k for k in order if k not in set(keep))
    canon = smallest_image(sym, pts, order) if gens else (lambda s: s)
    start = [canon(s) for s in compiled.initial_states()]
    seen = set(start)
    queue = deque(start)
    stored: set[tuple] = set()
    while queue:
        s = queue.popleft()
        if probe is None or probe.successors(s):
            stored.add(tuple(s[k] for k in keep))
        for t in compiled.successors(s):
            c = canon(t)
            if c not in seen:
                if len(seen) >= max_states:
                    return None
                seen.add(c)
                queue.append(c)
    return len(stored)
