"""Source positions of syntax tree nodes.

Every node of every front end's syntax tree carries ``pos: Span`` (where the front end
locates it: its first token, or its operator for some binary operators); error messages
print ``line``/``column`` exactly as lark reported them.  The nodes several languages share
are in ``nodes``.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """Where a construct starts: 1-based ``line`` and ``column`` (0 when unknown, e.g. an
    empty rule) in ``file`` (the path the text was read from; empty where the text is not a
    file's, as Promela's preprocessed text, whose ``Preprocessed.origin`` maps lines back)."""

    line: int
    column: int
    file: str = ""


class Located:
    """A syntax node with a ``pos: Span`` field; ``line`` and ``column`` read through it."""

    __slots__ = ()

    @property
    def line(self) -> int:
        return self.pos.line

    @property
    def column(self) -> int:
        return self.pos.column
