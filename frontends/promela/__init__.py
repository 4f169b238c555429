"""Promela front end: ``load(path, defines)`` / ``parse_text`` -> ``SequentialModel``.

Pipeline: ``preprocess`` (cpp subset) -> ``syntax`` (LALR parse to a frozen AST) -> ``cfg``
(Spin's per-proctype automata) -> ``lower`` (instances, spawn plan, rendezvous handshakes,
summands with ``normal`` guards).  See ``lower`` for the semantics and deviations.

The model's domains are the Promela types; variables of a type too wide to enumerate
(``int``) have placeholder domains, listed as unranged in its ``DomainFacts``, every domain
is narrowable, and ``detect.transform.narrowing`` settles and narrows them (location-
sensitive: the program counters bound loop counters such as ``do :: l < N -> l++ od``).
The model is annotated with the condition under which Spin stores a state
(``"spin_stored"``; see ``lower`` and ``claim``) and the variables Spin's state vector lacks
(``"spin_hidden"``), for ``detect.checking.spin_counts``.
"""
from __future__ import annotations

import dataclasses
import re
import warnings
from pathlib import Path
from typing import Mapping

import lark

from detect import ir
from detect.errors import InputError

from frontends.kit import read_source

from frontends.promela import claim, ltl, scopes
from frontends.promela.lower import ATOMIC, PID_SUFFIX, lower_with_storage
from frontends.promela.preprocess import preprocess
from frontends.promela.syntax import parse_program

SUFFIXES = (".pml", ".p", ".prom")


def parse_text(text: str, path: str = "<input>", defines: Mapping[str, object] | None = None,
               max_procs: int | None = None, ltl_name: str | None = None) -> ir.SequentialModel:
    """The model of Promela source ``text`` (domains not yet narrowed: module docstring);
    bad input raises ``InputError``.  ``max_procs`` bounds the processes alive at once
    when ``run`` creates them at run time (``lower.DEFAULT_MAX_PROCS``; Spin: 255).
    Without a never claim, the ``ltl`` block named ``ltl_name`` (default: the first) is
    checked as the never claim Spin writes for it (``ltl``).  ``ltl_name`` ``claim.NON_PROGRESS``
    checks non-progress cycles instead, with pan's own claim (as ``pan -l``)."""
    pre = preprocess(text, path if path != "<input>" else "", defines)
    block = None
    non_progress = ltl_name == claim.NON_PROGRESS
    if non_progress:
        pass  # pan -DNP: its claim replaces the model's claim and formulas (``lower``)
    elif re.search(r"\bnever\s*\{", pre.text) is None:
        try:
            spliced, block, _ = ltl.splice(pre.text, ltl_name, path)
        except ltl.TranslatorError:
            # the model's own error first, where it has one (Spin rejects it too)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                parse_text(text, path, defines, max_procs, ltl.NO_LTL)
            raise
        pre = dataclasses.replace(pre, text=spliced)
    elif ltl_name:
        raise InputError(f"--ltl {ltl_name}: the model has a never claim, so its ltl formulas are not used",
                         path, 0, 0)
    try:
        program = parse_program(pre)
    except lark.exceptions.VisitError as e:
        if isinstance(e.orig_exc, InputError):
            err = e.orig_exc
            p, line = pre.origin(err.line)
            raise InputError(err.message, p or path, line, err.column) from None
        raise
    scopes.check(program, lambda message, pos: InputError(message, *_origin(pre, path, pos)))
    scopes.check_record_arguments(program, lambda message, pos: InputError(message, *_origin(pre, path, pos)))
    name = Path(path).stem if path else "model"
    stored, model, wide = lower_with_storage(program, pre, path, name, max_procs, non_progress)
    facts = ir.DomainFacts(
        "promela", tuple(ir.Unranged(v, bounds, True, f"variable '{v}'", at or path or name, line, column)
                         for v, (bounds, (at, line, column)) in wide.items()),
        frozenset(v.name for v in model.variables))
    names = {v.name for v in model.variables}
    # pan's state vector has no ``_atomic`` or claim bookkeeping, and masks every _pid out
    hidden = tuple(n for n in (ATOMIC,) + claim.HIDDEN if n in names) + tuple(
        v.name for v in model.variables if v.name.endswith(PID_SUFFIX))
    annotations: tuple = (("spin_stored", stored), ("spin_hidden", hidden))
    if non_progress:
        annotations += (("non_progress", claim.NON_PROGRESS),)
    model = dataclasses.replace(model, domains=facts, annotations=model.annotations + annotations)
    if block is not None:
        # the claim's properties are the formula's: say so in their names
        model = dataclasses.replace(model, annotations=model.annotations + (
            ("ltl", block.name), ("ltl_formula", block.formula)), assertions=tuple(
            dataclasses.replace(a, text=f"ltl {block.name} {{ {block.formula} }}" + (
                " (acceptance cycle)" if a.kind == "acceptance" else " (never claim end)"))
            if a.kind == "acceptance" or a.text.startswith("never claim") else a for a in model.assertions
            # The other blocks stay "not checked" (exit 3) unless --ltl named the one to check,
            # as pan's -N: then they were not asked for.
            if not (ltl_name and a.kind == "ltl")))
    ir.validate(model)
    return model


def _origin(pre, path: str, pos) -> tuple:
    """``(file, line, column)`` of ``pos`` (in the preprocessed text) in the user's file."""
    p, line = pre.origin(pos.line)
    return p or path, line, pos.column


def load(path: str | Path, defines: Mapping[str, object] | None = None,
         max_procs: int | None = None, ltl_name: str | None = None) -> ir.SequentialModel:
    """Read and translate a ``.pml``/``.p``/``.prom`` file; ``defines`` override ``#define``;
    ``max_procs`` as in ``parse_text``."""
    path = Path(path)
    if path.suffix not in SUFFIXES:
        raise InputError(f"expected a Promela file ({', '.join(SUFFIXES)})", str(path), 0, 0)
    return parse_text(read_source(path), str(path), defines, max_procs, ltl_name)


__all__ = ["load", "parse_text", "SUFFIXES"]
