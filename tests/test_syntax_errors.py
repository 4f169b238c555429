"""The shared wording of lark parse errors: located, saying what was found and expected."""
from __future__ import annotations

import pytest
from lark import Lark
from lark.exceptions import UnexpectedInput

from frontends.kit.syntax_errors import end_position, syntax_error

GRAMMAR = r"""
start: item+
item: NAME "=" NUMBER ";"
NAME: /[a-z]+/
NUMBER: /[0-9]+/
%ignore " " | "\n"
"""


def _error(text: str, parser: str) -> tuple[str, int, int]:
    try:
        Lark(GRAMMAR, parser=parser).parse(text)
    except UnexpectedInput as e:
        return syntax_error(e, text, lambda names: " or ".join(sorted(names)))
    raise AssertionError("no error")


@pytest.mark.parametrize("parser", ["lalr", "earley"])
def test_premature_end_is_located_after_the_last_character(parser):
    message, line, column = _error("x = 1;\ny = ", parser)
    assert message.startswith("syntax error: unexpected end of file; expected ")
    assert "NUMBER" in message and (line, column) == end_position("x = 1;\ny = ") == (2, 5)


def test_unexpected_token_names_it_and_what_was_expected():
    message, line, column = _error("x = 1;\ny = ;", "lalr")
    assert message == "syntax error: unexpected ';'; expected NUMBER" and (line, column) == (2, 5)


def test_unexpected_character_is_shown():
    message, line, column = _error("x = 1;\ny # 2;", "lalr")
    assert message.startswith("syntax error: unexpected character '#'") and (line, column) == (2, 3)
