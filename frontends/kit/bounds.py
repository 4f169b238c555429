"""Bounds every front end applies to what a model declares, so that a mutated size (an array
or channel of 2^16 or 2^31 cells) is refused at its declaration, not after hours of value
analysis, automorphism search or exploration."""
from __future__ import annotations

from typing import Optional

#: Most state slots (array elements, locals of every instance, channel buffer cells) a model
#: may declare.  Spin's pan needs -DVECTORSZ beyond a 1,024-byte state vector; this is 16 times
#: that in one-byte slots, and keeps the value analysis, tables and coloured graphs of later
#: stages bounded.
MAX_STATE_SLOTS = 16_384


def state_slots_refusal(held: int, adding: int, name: str, hint: str = "shrink its size") -> Optional[str]:
    """The message refusing declaration ``name`` of ``adding`` slots on top of ``held``, or
    ``None`` when the total stays within ``MAX_STATE_SLOTS``; the caller locates it."""
    if held + adding <= MAX_STATE_SLOTS:
        return None
    return f"{name!r} takes the state vector past {MAX_STATE_SLOTS:,} slots ({held + adding:,}); {hint}"
