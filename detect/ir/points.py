"""Literal points: every (state slot, value) pair of a model, numbered slot by slot.

Permutations of literal points are how symmetries act on states (``detect.checking.reduce``
builds state actions from them, the native explorer hands them to C as tables)."""
from __future__ import annotations

from dataclasses import dataclass

from detect.ir.model import SequentialModel, state_slots


@dataclass(frozen=True)
class LiteralPoints:
    """Literal points ``(slot, value)`` numbered slot by slot (as ``detect.symmetry.group`` does): point ``p`` is ``pairs[p]``, ``index[(slot, value)]`` is its number, ``slot_points[k]`` the points of slot ``k`` in domain order."""

    pairs: tuple[tuple[int, int], ...]
    index: dict
    slot_points: tuple[tuple[int, ...], ...]

    @staticmethod
    def of(model: SequentialModel) -> "LiteralPoints":
        pairs, index, per_slot = [], {}, []
        for k, slot in enumerate(state_slots(model)):
            mine = []
            for v in slot.domain:
                index[(k, v)] = len(pairs)
                mine.append(len(pairs))
                pairs.append((k, v))
            per_slot.append(tuple(mine))
        return LiteralPoints(tuple(pairs), index, tuple(per_slot))
