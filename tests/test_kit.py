"""The front-end kit: grammar loading, syntax-error wording from a language's words, spans
and the shared transformer callbacks."""
from __future__ import annotations

from dataclasses import dataclass

import pytest
from lark.exceptions import VisitError

from detect.errors import InputError
from frontends.kit import (
    BinaryOp, Grammar, Located, Num, Span, SyntaxBuilder, Vocabulary, collect, first, infix, tagged,
)

WORDS = Vocabulary({"NAME": "a name"}, str.lower)
SAMPLE = Grammar("tests", WORDS, file="kit_sample.lark")


def _message(grammar: Grammar, text: str) -> InputError:
    with pytest.raises(InputError) as err:
        grammar.parse(text, "m.x")
    return err.value


def test_the_parser_is_built_once_per_grammar():
    assert SAMPLE.parser is SAMPLE.parser
    assert SAMPLE.parser.options.maybe_placeholders is False
    assert Grammar("tests", WORDS, True, "kit_sample.lark").parser.options.maybe_placeholders is True


def test_a_syntax_error_is_located_in_the_file_and_worded_by_the_vocabulary():
    err = _message(SAMPLE, "x = 1;\ny = ;")
    assert (err.path, err.line, err.column) == ("m.x", 2, 5)
    assert err.message == "syntax error: unexpected ';'; expected number"


def _expected(vocabulary: Vocabulary) -> str:
    """What ``vocabulary`` says is expected after ``x`` (lark: ASSIGN or EQUAL)."""
    message = _message(Grammar("tests", vocabulary, file="kit_sample.lark"), "x = 1; x").message
    assert message.startswith("syntax error: unexpected end of file; expected ")
    return message.split("; expected ", 1)[1]


def test_words_come_from_the_table_then_literals_then_the_fallback():
    assert _expected(Vocabulary({}, str.lower)) == "assign, equal"
    assert _expected(Vocabulary({"ASSIGN": "becomes"}, str.upper)) == "becomes, EQUAL"
    assert _expected(Vocabulary({"ASSIGN": "becomes"}, str.lower, literals=True)) == "becomes, '='"


def test_words_are_ordered_by_terminal_name_or_by_word():
    words = {"ASSIGN": "x", "EQUAL": "a"}
    assert _expected(Vocabulary(words, str)) == "x, a"
    assert _expected(Vocabulary(words, str, sort_words=True)) == "a, x"


def test_long_lists_are_cut_after_the_limit_and_a_prefix_is_kept():
    assert _expected(Vocabulary({}, str.lower, limit=1, prefix="one of: ")) == "one of: assign, ..."


def test_duplicate_words_are_listed_once():
    assert _expected(Vocabulary({"ASSIGN": "an operator", "EQUAL": "an operator"}, str)) == "an operator"


def test_locate_maps_the_line_to_another_file():
    with pytest.raises(InputError) as err:
        SAMPLE.parse("x = 1;\ny = ;", "ignored", lambda line: ("inc.h", line + 10))
    assert (err.value.path, err.value.line, err.value.column) == ("inc.h", 12, 5)


@dataclass(frozen=True)
class Item(Located):
    name: str
    value: object
    pos: Span


class _Build(SyntaxBuilder):
    start = collect
    copy = infix(BinaryOp, ":=")

    def define(self, meta, children):
        return Item(str(children[0]), Num(int(children[1]), self.span(children[1])), self.span(meta))

    def bad(self, meta, children):
        raise InputError(f"bad {children[0]}: {self.source(meta)}", self.file, meta.line, meta.column)


def test_the_builder_gives_callbacks_meta_and_spans_in_the_file():
    text = "x = 1;\n  y := z;"
    items = _Build(text, "m.x").build(SAMPLE.parse(text, "m.x"))
    assert items[0] == Item("x", Num(1, Span(1, 5, "m.x")), Span(1, 1, "m.x"))
    assert (items[0].line, items[0].column, items[0].value.column) == (1, 1, 5)
    assert isinstance(items[1], BinaryOp) and items[1].op == ":=" and items[1].pos == Span(2, 3, "m.x")


def test_an_input_error_raised_while_building_comes_out_as_is():
    text = "x = 1;\nbad q;"
    with pytest.raises(InputError) as err:
        _Build(text, "m.x").build(SAMPLE.parse(text, "m.x"))
    assert str(err.value) == "m.x:2:1: bad q: bad q;"


def test_other_errors_while_building_stay_lark_errors():
    class Broken(SyntaxBuilder):
        def define(self, meta, children):
            raise ValueError("bug")

    with pytest.raises(VisitError):
        Broken("x = 1;").build(SAMPLE.parse("x = 1;", ""))


def test_first_and_tagged_pick_the_child():
    assert first(None, None, ["a"]) == "a" and tagged("size")(None, None, [3]) == ("size", 3)
