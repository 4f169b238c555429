"""Promela front end: ``load(path, defines)`` / ``parse_text`` -> ``SequentialModel``.

Pipeline: ``preprocess`` (cpp subset) -> ``syntax`` (LALR parse to a frozen AST) -> ``cfg``
(Spin's per-proctype automata) -> ``lower`` (instances, spawn plan, summands) ->
``detect.domains.narrow_domains``.  See ``lower`` for the semantics and deviations.
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
    """How many of ``states`` Spin stores: those not in the middle of an atomic block."""
    try:
        pos = [v.name for v in model.variables].index(ATOMIC)
    except ValueError:
        return len(states)
    offset = sum(v.length for v in model.variables[:pos])
    return sum(1 for s in states if s[offset] == -1)


__all__ = ["load", "parse_text", "spin_state_count", "SUFFIXES"]
