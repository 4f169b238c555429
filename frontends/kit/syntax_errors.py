"""One wording for lark's parse errors in every front end.

Each front end names its own terminals (``describe``: terminal names -> "a, b or c"); this
module turns any lark ``UnexpectedInput`` into ``(message, line, column)``:
``syntax error: unexpected <what>; expected <describe(...)>``, located at the offending
token or character, or at the end of the text for a premature end of file.
"""
from __future__ import annotations

from typing import Callable, Iterable

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

Describe = Callable[[Iterable[str]], str]


def end_position(text: str) -> tuple[int, int]:
    """Line and column just after the last character of ``text`` (1-based)."""
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1


def syntax_error(e: UnexpectedInput, text: str, describe: Describe) -> tuple[str, int, int]:
    """``(message, line, column)`` for the lark error ``e`` raised on ``text``."""
    if isinstance(e, UnexpectedToken):
        at_end = e.token.type == "$END" or e.line in (-1, None)
        line, column = end_position(text) if at_end else (e.line, e.column)
        found = "end of file" if at_end else repr(str(e.token)[:20])
        return f"syntax error: unexpected {found}; expected {describe(e.expected)}", line, column
    if isinstance(e, UnexpectedCharacters):
        char = text[e.pos_in_stream] if 0 <= e.pos_in_stream < len(text) else "?"
        expected = f"; expected {describe(e.allowed)}" if e.allowed else ""
        return f"syntax error: unexpected character {char!r}{expected}", e.line, e.column
    if isinstance(e, UnexpectedEOF):
        line, column = end_position(text)
        return f"syntax error: unexpected end of file; expected {describe(e.expected)}", line, column
    return f"syntax error: {e}", getattr(e, "line", 0) or 0, getattr(e, "column", 0) or 0
