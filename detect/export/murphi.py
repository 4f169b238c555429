"""``export --format murphi``: the Murphi source with the detected index symmetries declared
as ``Scalarset``s, so that CMurphi ``-sym1`` (and Rumur) reduce by them.

A named subrange type T is re-declared when (1) ``frontends.murphi.scalarsets.check``
accepts it (Murphi's scalarset typing rules hold for T, so the full symmetric group on T's
values is an automorphism, by Murphi's own theory) and (2) a detected generator moves
variables indexed by T (we only hand over symmetries we detected).  Every detected
generator that moves a variable indexed by a type not re-declared is listed, with the
reason, in a comment at the top of the file.  Invariant: the body of the file is the input
byte for byte apart from the re-declared type definitions.
"""
from __future__ import annotations

import re
from typing import Iterator

from detect.ir import state_slots

MARK = "-- symdetect:"

RING_HINT = ("Murphi scalarsets express only full symmetric groups of values used without order or "
             "arithmetic; a symmetry that needs arithmetic on the index (a ring's rotations, pid "
             "arithmetic) has no scalarset form: reduce it with `symdetect explore --reduce exact`")


def murphi_lines(detection, text: str) -> Iterator[str]:
    """The lines of the exported model (see the module docstring)."""
    from frontends.murphi.scalarsets import candidates, check, parse, rewrite, variable_index_types

    model = detection.model
    program = parse(text, model.source)
    cands = candidates(program)
    why = {t: check(program, t) for t in cands}
    index_of = variable_index_types(program)
    slots = state_slots(model)
    moved_types = []
    for g in detection.group.acting:
        names = {slots[k].variable for k, t in enumerate(g.permutation.target) if t != k}
        moved_types.append({index_of.get(re.split(r"[.\[]", n)[0]) for n in names})
    declare = [t for t in cands if why[t] is None and any(t in ts for ts in moved_types)]
    params = ", ".join(f"{k}={v}" for k, v in model.parameters)
    header = [f"{MARK} exported from {model.source}" + (f" ({params})" if params else ""),
              f"{MARK} detected group order {detection.group.order}; "
              + (f"declared as Scalarset: {', '.join(declare)}" if declare else "no type could be declared a Scalarset")]
    left = False
    for k, (g, ts) in enumerate(zip(detection.group.acting, moved_types)):
        missing = sorted((t for t in ts if t not in declare), key=str)
        if not missing:
            continue
        left = True
        reasons = []
        for t in missing:
            if t is None:
                reasons.append("it moves variables not indexed by a named subrange type")
            elif t not in cands:
                reasons.append(f"{t} is not a named subrange type")
            elif why[t] is not None:
                reasons.append(f"{t} is not a scalarset: line {why[t]}")
            else:
                reasons.append(f"{t}: no detected generator acts on it alone")
        header.append(f"{MARK} left out g{k} ({g.description}): {'; '.join(reasons)}")
    if left:
        header.append(f"{MARK} {RING_HINT}")
    for line in header:
        yield line + "\n"
    yield from rewrite(text, program, declare).splitlines(keepends=True)
