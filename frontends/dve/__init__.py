"""DVE front end (DiVinE 2 / BEEM): ``load(path)`` and ``parse_text(text, path)``.

The result is a ``SequentialModel`` (see ``linearise`` for the layout and semantics) whose
variable domains are the DVE types, every one narrowable: ``detect.transform.narrowing``
narrows them to the values the model can write (byte 0..255 and int -32768..32767 are
declared, the coloured graph sees only reachable-looking literals, and the LTS, faults
included, is the one DiVinE defines).
"""
from __future__ import annotations

import dataclasses
from typing import Mapping, Optional

from detect.errors import InputError
from detect.ir import DomainFacts, SequentialModel

from frontends.kit import read_source
from frontends.dve.linearise import linearise
from frontends.dve.syntax import parse_syntax

__all__ = ["load", "parse_text"]


def parse_text(text: str, path: str = "", defines: Optional[Mapping[str, int]] = None) -> SequentialModel:
    """Parse and linearise DVE ``text``; ``defines`` override global scalar constants
    (``-D``; a name the model does not declare ``const`` is an error)."""
    try:
        system = parse_syntax(text, path)
        model = linearise(system, path, defines or {})
    except RecursionError:
        # Lark's tree transformer and our translators recurse on nesting depth.
        raise InputError("expressions nested too deeply", path) from None
    return dataclasses.replace(model, domains=DomainFacts("dve", narrowable=frozenset(v.name for v in model.variables)))


def load(path, defines: Optional[Mapping[str, int]] = None) -> SequentialModel:
    """Read the DVE file at ``path``; unreadable files are ``InputError`` too."""
    return parse_text(read_source(path), str(path), defines)
