"""Domains of variables whose Promela type is too wide to enumerate (``int``: 32 bits).

The front end declares such a variable with its initial values only; every store into it
wraps as Spin's C does (``lower.wrap``).  Its domain is then

1. the value set of the sound value analysis (``detect.transform.domains.infer_domains``), which
   over-approximates every value held in a reachable state and every value written by a
   step from one, so no write faults and the transition system is Spin's; or, when that set
   exceeds ``limit`` values (a counter bounded only through another variable),
2. the values of the reachable states: the model is explored with a provisional range
   (``PROVISIONAL_RANGES``, the next one if a write leaves it), and
   ``detect.transform.reachable`` takes the reachable values and proves the narrowed model's
   transition system equal.  A write outside the largest provisional range, or more than
   ``PROVISIONAL_STATES`` states, refuses the model with an error naming the variable.
"""
from __future__ import annotations

import dataclasses
import re
import warnings

from detect import ir
from detect.errors import InputError

PROVISIONAL_RANGES = ((-32768, 32767), (-(1 << 18), (1 << 18) - 1))
PROVISIONAL_STATES = 1_000_000
#: The IR's domain checks enumerate ``lo..hi`` (``detect.ir.show_domain``, the compiled
#: domain test), so a domain spanning more values than this is refused with an error.
SPAN_LIMIT = 1 << 22

_OUTSIDE = re.compile(r"written to ([^\s\[]+)(\[\d+\])? is outside its domain")


def settle(model: ir.SequentialModel, wide: dict[str, tuple[int, int]], path: str,
           limit: int = 4096, narrow: bool = True) -> ir.SequentialModel:
    """``model`` with the domains of the ``wide`` variables settled (module docstring), and
    when ``narrow``, every other domain narrowed as ``detect.transform.domains.narrow_domains`` does
    (by the same fixpoint when the analysis bounds the wide variables: one pass, not two)."""
    from detect.transform.domains import Unbounded, _propagate_constants, _variable_values, narrow_domains

    if not wide:
        return narrow_domains(model) if narrow else model
    if narrow:
        try:
            analysis: list = []
            values = _variable_values(model, frozenset(wide), limit, strict=frozenset(wide),
                                      analysis=analysis)
        except Unbounded:
            pass
        else:
            model = _propagate_constants(model, *analysis)
            variables = []
            for v in model.variables:
                vals = values[v.name]
                if v.name in wide:
                    v = dataclasses.replace(v, domain=tuple(sorted(vals)))
                elif vals is not None:
                    v = dataclasses.replace(v, domain=tuple(x for x in v.domain if x in vals))
                variables.append(v)
            return _check_span(dataclasses.replace(model, variables=tuple(variables)), wide, path)
    settled = _check_span(_settle(model, wide, path, limit), wide, path)
    return narrow_domains(settled) if narrow else settled


def _check_span(settled: ir.SequentialModel, wide: dict, path: str) -> ir.SequentialModel:
    for v in settled.variables:
        if v.name in wide and v.domain[-1] - v.domain[0] + 1 > SPAN_LIMIT:
            raise InputError(f"variable '{v.name}' holds values from {v.domain[0]} to {v.domain[-1]}: domains "
                             f"spanning more than {SPAN_LIMIT:,} values are not supported", path, 0, 0)
    return settled


def _settle(model: ir.SequentialModel, wide: dict[str, tuple[int, int]], path: str,
            limit: int) -> ir.SequentialModel:
    from detect.transform.domains import Unbounded, infer_domains

    provisional: dict[str, str] = {}  # variable -> why the analysis could not bound it
    current = model
    while True:
        try:
            inferred = infer_domains(current, [v for v in wide if v not in provisional], limit)
            break
        except Unbounded as e:
            if e.variable in provisional or e.variable not in wide:
                raise InputError(f"variable '{e.variable}' takes unboundedly many values ({e.reason})",
                                 path, 0, 0) from None
            provisional[e.variable] = e.reason
            current = _with_range(current, {e.variable: PROVISIONAL_RANGES[0]}, wide)
    if not provisional:
        return inferred
    return _reachable(inferred, provisional, wide, path)


def _with_range(model: ir.SequentialModel, ranges: dict, wide: dict) -> ir.SequentialModel:
    out = []
    for v in model.variables:
        if v.name in ranges:
            lo, hi = ranges[v.name]
            tlo, thi = wide[v.name]
            lo, hi = max(lo, tlo), min(hi, thi)
            if lo <= v.domain[0] and v.domain[-1] <= hi:
                v = dataclasses.replace(v, domain=tuple(range(lo, hi + 1)))
            else:
                v = dataclasses.replace(v, domain=tuple(sorted(set(range(lo, hi + 1)) | set(v.domain))))
        out.append(v)
    return dataclasses.replace(model, variables=tuple(out))


def _reachable(model: ir.SequentialModel, provisional: dict, wide: dict, path: str) -> ir.SequentialModel:
    from detect.statespace.explore import reachable_graph
    from detect.ir import slot_offsets
    from detect.ir.semantics import steps

    names = ", ".join(f"'{v}'" for v in provisional)
    for lo, hi in PROVISIONAL_RANGES:
        trial = _with_range(model, {v: (lo, hi) for v in provisional}, wide)
        first = reachable_graph(trial, max_states=PROVISIONAL_STATES)
        if not first.complete:
            raise InputError(
                f"{names}: the value analysis bounds no domain ({next(iter(provisional.values()))}), and the "
                f"model has more than {PROVISIONAL_STATES:,} reachable states to take the values from; "
                f"use a narrower type (byte, short) or bound the variable with a guard", path, 0, 0)
        if _leaves_range(trial, first, provisional, steps):
            continue
        offsets = slot_offsets(trial)
        variables = []
        for v in trial.variables:
            if v.name in provisional:
                base = offsets[v.name]
                values = {s[base + k] for s in first.states for k in range(v.length)}
                v = dataclasses.replace(v, domain=tuple(sorted(values)))
            variables.append(v)
        smaller = dataclasses.replace(trial, variables=tuple(variables))
        second = reachable_graph(smaller, max_states=PROVISIONAL_STATES)
        if _counts(first) != _counts(second):
            raise InputError(
                f"{names}: the value analysis bounds no domain, and the values of the reachable states "
                f"do not cover the values written during steps; use a narrower type (byte, short) or "
                f"bound the variable with a guard", path, 0, 0)
        for v in smaller.variables:
            if v.name in provisional:
                shown = (f"{v.domain[0]}..{v.domain[-1]}" if len(v.domain) == v.domain[-1] - v.domain[0] + 1
                         else f"{len(v.domain)} values in {v.domain[0]}..{v.domain[-1]}")
                warnings.warn(f"{path}: the value analysis cannot bound {v.name} ({provisional[v.name]}); "
                              f"its domain ({shown}) was taken from the {len(first.states):,} reachable states",
                              stacklevel=3)
        return smaller
    lo, hi = PROVISIONAL_RANGES[-1]
    raise InputError(f"{names}: a reachable value lies outside {lo}..{hi}, more than can be enumerated; "
                     f"use a narrower type or bound the variable with a guard", path, 0, 0)


def _leaves_range(model, graph, provisional, steps) -> bool:
    """Some reachable step writes a provisional variable outside its provisional range."""
    for k in sorted(graph.faults):
        for step in steps(model, graph.states[k]):
            m = _OUTSIDE.search(step.fault or "")
            if m and m.group(1) in provisional:
                return True
    return False


def _counts(graph) -> tuple[int, int, int]:
    return len(graph.states), sum(len(s) for s in graph.successors), len(graph.faults)
