"""DVE front end (DiVinE 2 / BEEM): ``load(path)`` and ``parse_text(text, path)``.

The result is a ``SequentialModel`` (see ``linearise`` for the layout and semantics) whose
variable domains are the DVE types narrowed to the values the model can write
(``detect.transform.domains.narrow_domains``): byte 0..255 and int -32768..32767 are declared, the
coloured graph sees only reachable-looking literals, and the LTS (faults included) is the
one DiVinE defines.
"""
from __future__ import annotations

from typing import Mapping, Optional

from detect.transform.domains import narrow_domains
from detect.errors import InputError
from detect.ir import SequentialModel

from frontends.kit import read_source
from frontends.dve.linearise import linearise
from frontends.dve.syntax import parse_syntax

__all__ = ["load", "parse_text"]


#: Variables that may hold more values than this keep their whole DVE type as domain.  Lower
#: than ``narrow_domains``' default because its fixpoint grows a counter such as gear's
#: ``toGear = toGear + dir`` by one value per round: 512 rounds take 0.6 s, 4096 take 20 s,
#: and a domain of 512 literals is already too big to matter for the coloured graph.
DOMAIN_LIMIT = 512


def parse_text(
    text: str, path: str = "", defines: Optional[Mapping[str, int]] = None,
    *, domain_limit: int = DOMAIN_LIMIT,
) -> SequentialModel:
    """Parse and linearise DVE ``text``; ``defines`` override global scalar constants
    (``-D``; a name the model does not declare ``const`` is an error)."""
    try:
        system = parse_syntax(text, path)
        model = linearise(system, path, defines or {})
    except RecursionError:
        # Lark's tree transformer and our translators recurse on nesting depth.
        raise InputError("expressions nested too deeply", path) from None
    return narrow_domains(model, domain_limit)


def load(
    path, defines: Optional[Mapping[str, int]] = None, *, domain_limit: int = DOMAIN_LIMIT
) -> SequentialModel:
    """Read the DVE file at ``path``; unreadable files are ``InputError`` too."""
    return parse_text(read_source(path), str(path), defines, domain_limit=domain_limit)
