"""Promela front end: ``load(path, defines)`` / ``parse_text`` -> ``SequentialModel``.

Pipeline: ``preprocess`` (cpp subset) -> ``syntax`` (LALR parse to a frozen AST) -> ``cfg``
(Spin's per-proctype automata) -> ``lower`` (instances, spawn plan, rendezvous handshakes,
summands with ``normal`` guards) -> ``wide`` (domains of ``int`` variables, too wide to
enumerate) -> ``detect.transform.domains.narrow_domains`` (location-sensitive:
the program counters bound loop counters such as ``do :: l < N -> l++ od``).  See ``lower`` for the semantics and
deviations.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Mapping

import lark

from detect import ir
from detect.errors import InputError

from frontends.kit import read_source

from frontends.promela.lower import ATOMIC, lower_with_storage
from frontends.promela.preprocess import preprocess
from frontends.promela.syntax import parse_program
from frontends.promela.wide import settle

SUFFIXES = (".pml", ".p", ".prom")


def parse_text(text: str, path: str = "<input>", defines: Mapping[str, object] | None = None,
               narrow: bool = True) -> ir.SequentialModel:
    """The model of Promela source ``text``; bad input raises ``InputError``."""
    return parse_with_storage(text, path, defines, narrow)[1]


def parse_with_storage(text: str, path: str = "<input>", defines: Mapping[str, object] | None = None,
                       narrow: bool = True) -> tuple[ir.Expr, ir.SequentialModel]:
    """``(stored, model)``: ``stored`` is true in the states Spin stores (see ``lower``)."""
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
    stored, model, wide = lower_with_storage(program, pre, path, name)
    model = settle(model, wide, path or name, narrow=narrow)
    ir.validate(model)
    return stored, model


def load(path: str | Path, defines: Mapping[str, object] | None = None, narrow: bool = True) -> ir.SequentialModel:
    """Read and translate a ``.pml``/``.p``/``.prom`` file; ``defines`` override ``#define``."""
    path = Path(path)
    if path.suffix not in SUFFIXES:
        raise InputError(f"expected a Promela file ({', '.join(SUFFIXES)})", str(path), 0, 0)
    return parse_text(read_source(path), str(path), defines, narrow)


def spin_storage(model: ir.SequentialModel) -> ir.Expr:
    """The condition under which Spin stores a state of ``model`` (a Promela model read from
    the file ``model.source``): it is translated again with ``model.parameters`` as defines.
    The IR has no field for it (see the Promela report)."""
    text = read_source(model.source)
    stored, again = parse_with_storage(text, model.source, dict(model.parameters))
    if [v.name for v in again.variables] != [v.name for v in model.variables]:
        raise ValueError(f"{model.source} changed since {model.name} was read")
    return stored


def spin_state_count(model: ir.SequentialModel, states, stored: ir.Expr | None = None) -> int:
    """How many of ``states`` Spin stores ("states, stored" without partial-order reduction).

    Spin does not store a state reached by a step that leaves its process inside an atomic
    block (``_atomic`` holds that pid) -- unless that process is blocked there, not counting
    its timeout moves: then Spin hands control to the others and stores the state.  Spin's
    state vector has no ``_atomic``: states that differ only there count once.  ``stored``
    is that condition (``spin_storage(model)`` when not given)."""
    try:
        pos = [v.name for v in model.variables].index(ATOMIC)
    except ValueError:
        return len(states)
    from detect.statespace.compile import compile_model

    if stored is None:
        stored = spin_storage(model)
    # The condition compiled as the guard of a summand that changes nothing.
    probe = compile_model(dataclasses.replace(
        model, summands=(ir.Summand((), stored, ir.Event("stored"), ()),), assertions=(), terminal=None))
    offset = sum(v.length for v in model.variables[:pos])
    kept = {state[:offset] + state[offset + 1:] for state in states if probe.successors(state)}
    return len(kept)


def spin_stored_states(model: ir.SequentialModel, max_states: int | None = None) -> tuple[int, int, bool]:
    """``(Spin's "states, stored", all our states, complete)`` by one unreduced exploration.

    Our count includes the states inside atomic sequences, which Spin passes through
    without storing; ``spin_state_count`` gives the number comparable with Spin's
    ``-o1 -o2 -o3`` run without partial-order reduction and without a never claim."""
    from detect.statespace.explore import reachable_graph

    graph = reachable_graph(model, max_states=max_states or 10_000_000)
    return spin_state_count(model, graph.states), len(graph.states), graph.complete


__all__ = ["load", "parse_text", "parse_with_storage", "spin_storage", "spin_state_count", "spin_stored_states",
           "SUFFIXES"]
