"""Murphi front end (CMurphi): ``load(path)`` and ``parse_text(text, path)``.

The result is a ``SequentialModel`` (see ``linearise`` for the value encoding -- scalarsets
are ``0..N-1``, enums ``0..k-1``, *undefined* is ``lo - 1`` -- and CMurphi's semantics):
one summand family per ``Rule`` (its ruleset parameters are the summand's locals),
start states computed by running the ``Startstate``s, ``Invariant``s as invariant
assertions.  ``defines`` (``-D N=3``) override the file's top-level ``Const`` declarations;
naming any other is an ``InputError``.
"""
from __future__ import annotations

from typing import Mapping, Optional

from detect.errors import InputError
from detect.ir import SequentialModel

from frontends.kit import read_source
from frontends.murphi.linearise import LOOP_MAX, linearise
from frontends.murphi.syntax import parse_syntax
from frontends.murphi.typecheck import check

__all__ = ["LOOP_MAX", "load", "parse_text"]


def parse_text(text: str, path: str = "", defines: Optional[Mapping[str, int]] = None,
               loop_max: Optional[int] = None, multiset_sort: bool = True) -> SequentialModel:
    """Parse and linearise Murphi ``text``; ``defines`` override top-level constants;
    ``loop_max`` bounds the rounds of a ``While`` (default ``LOOP_MAX``, CMurphi's ``-loop``);
    ``multiset_sort=False`` is CMurphi's ``-nomultiset``."""
    try:
        program = parse_syntax(text, path)
        check(program, path)
        return linearise(program, path, defines or {}, loop_max or LOOP_MAX, multiset_sort)
    except RecursionError:
        # Lark's tree transformer and our translators recurse on nesting depth.
        raise InputError("expressions nested too deeply", path) from None


def load(path, defines: Optional[Mapping[str, int]] = None, loop_max: Optional[int] = None,
         multiset_sort: bool = True) -> SequentialModel:
    """Read the Murphi file at ``path``; unreadable files are ``InputError`` too."""
    return parse_text(read_source(path), str(path), defines, loop_max, multiset_sort)
