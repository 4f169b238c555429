"""Promela front end: ``load(path, defines)`` / ``parse_text`` -> ``SequentialModel``.

Pipeline: ``preprocess`` (cpp subset) -> ``syntax`` (LALR parse to a frozen AST) -> ``cfg``
(Spin's per-proctype automata) -> ``lower`` (instances, spawn plan, rendezvous handshakes,
summands with ``normal`` guards) -> ``ranges.narrow_locals`` (location-sensitive domains of
process locals) -> ``detect.domains.narrow_domains``.  See ``lower`` for the semantics and
deviations.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

import lark

from detect import ir
from detect.errors import InputError

from .lower import ATOMIC, lower
from .preprocess import preprocess
from .ranges import narrow_locals
from .syntax import parse_program

SUFFIXES = (".pml", ".p", ".prom")


def parse_text(text: str, path: str = "<input>", defines: Mapping[str, object] | None = None,
               narrow: bool = True) -> ir.SequentialModel:
    """The model of Promela source ``text``; bad input raises ``InputError``."""
    pre = preprocess(text, path if path != "<input>" else "", defines)
    try:
        program = parse_program(pre)
    except lark.exceptions.VisitError as e:
        if isinstance(e.orig_exc, InputError):
            err = e.orig_exc
            p, line = pre.origin(err.line)
            raise InputError(err.message, p or path, line, err.column) from None
        raise
    name = Path(path).stem if path else "model"
    model = lower(program, pre, path, name)
    ir.validate(model)
    if narrow:
        from detect.domains import narrow_domains
        model = narrow_domains(narrow_locals(model))
    return model


def load(path: str | Path, defines: Mapping[str, object] | None = None, narrow: bool = True) -> ir.SequentialModel:
    """Read and translate a ``.pml``/``.p``/``.prom`` file; ``defines`` override ``#define``."""
    path = Path(path)
    if path.suffix not in SUFFIXES:
        raise InputError(f"expected a Promela file ({', '.join(SUFFIXES)})", str(path), 0, 0)
    try:
        text = path.read_text()
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", str(path), 0, 0) from None
    return parse_text(text, str(path), defines, narrow)


def spin_state_count(model: ir.SequentialModel, states) -> int:
    """How many of ``states`` Spin stores ("states, stored" without partial-order reduction).

    Spin does not store a state reached by a step that leaves its process inside an atomic
    block (``_atomic`` holds that pid) -- unless that process is blocked there: then Spin
    hands control to the others and stores the state.  Instance pids are 0..n-1; every
    instance but ``init`` has the owner ``P[pid]``, so ``init`` has the one pid left over.
    A step belongs to the first of its summand's owners (the sender, for a rendezvous).
    Spin's state vector does not hold ``_atomic``: states that differ only there count once."""
    try:
        pos = [v.name for v in model.variables].index(ATOMIC)
    except ValueError:
        return len(states)
    import re

    from detect.compile import compile_model

    offset = sum(v.length for v in model.variables[:pos])
    owners = {v.owner for v in model.variables if v.owner is not None}
    pid_of = {o: int(m.group(1)) for o in owners if (m := re.fullmatch(r".*\[(\d+)\]", o))}
    rest = [o for o in owners if o not in pid_of]
    if rest:
        (init_owner,) = rest
        pid_of[init_owner] = next(p for p in range(len(owners)) if p not in pid_of.values())
    compiled = compile_model(model)
    moves: dict[int, list] = {}
    for i, s in enumerate(model.summands):
        if s.owners:
            moves.setdefault(pid_of[s.owners[0]], []).append(compiled.summand_steps[i])
    stored = set()
    for state in states:
        holder = state[offset]
        if holder == -1 or not any(True for f in moves.get(holder, ()) for _ in f(state)):
            # Spin's state vector has no ``_atomic``: states differing only there are one.
            stored.add(state[:offset] + state[offset + 1:])
    return len(stored)


def spin_stored_states(model: ir.SequentialModel, max_states: int | None = None) -> tuple[int, int, bool]:
    """``(Spin's "states, stored", all our states, complete)`` by one unreduced exploration.

    Our count includes the states inside atomic sequences, which Spin passes through
    without storing; ``spin_state_count`` gives the number comparable with Spin's
    ``-o1 -o2 -o3`` run without partial-order reduction and without a never claim."""
    from detect.explore import reachable_graph

    graph = reachable_graph(model, max_states=max_states or 10_000_000)
    return spin_state_count(model, graph.states), len(graph.states), graph.complete


__all__ = ["load", "parse_text", "spin_state_count", "spin_stored_states", "SUFFIXES"]
