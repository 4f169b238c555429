"""A front end's lark grammar: loaded once from the file beside its modules, parsing with
syntax errors turned into one located ``InputError`` each.

Building an LALR parser takes lark ~0.1-0.5 s per grammar, more than parsing a model; the
built parser is cached on disk (``detect.cache``) under a hash of the grammar text, the
options, lark's and Python's versions, so a changed grammar or an upgraded lark is a new
entry and a stale one is never read.

The wording (``syntax_errors``) is the same for every language; what differs is data: the
``Vocabulary`` that names a language's terminals in "expected ..." lists.
"""
from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from typing import Callable, Iterable, Mapping, Optional

import lark
from lark import Lark, Tree
from lark.exceptions import UnexpectedInput

from detect.cache import cache_home, write_atomically
from detect.errors import InputError

from frontends.kit.syntax_errors import syntax_error


@dataclass(frozen=True)
class Vocabulary:
    """How syntax errors name the terminals a parser expected.

    A terminal is named by ``words`` (the language's table), else, with ``literals``, by
    its quoted text when it is a fixed string, else by ``other(name)``.  The names are
    deduplicated and listed in the order of the terminal names (``sort_words``: of the
    words), at most ``limit`` of them followed by ``...``, after ``prefix``.
    """

    words: Mapping[str, str]
    other: Callable[[str], str]
    literals: bool = False
    sort_words: bool = False
    limit: int = 8
    prefix: str = ""

    def word(self, name: str, parser: Lark) -> str:
        """The word for the terminal ``name`` of ``parser``."""
        if name in self.words:
            return self.words[name]
        if self.literals:
            try:
                pattern = parser.get_terminal(name).pattern
            except KeyError:  # ``$END`` and other names the grammar does not define
                pattern = None
            if pattern is not None and pattern.type == "str":
                return repr(pattern.value)
        return self.other(name)

    def describe(self, names: Iterable[str], parser: Lark) -> str:
        """``names`` (terminals lark expected) as the text after "expected"."""
        words = list(dict.fromkeys(self.word(n, parser) for n in sorted(names or ())))
        if self.sort_words:
            words.sort()
        more = ", ..." if len(words) > self.limit else ""
        return self.prefix + ", ".join(words[:self.limit]) + more


#: ``locate(line)``: the file and line in it of a line of the parsed text.
Locate = Callable[[int], tuple[str, int]]


@dataclass(frozen=True)
class Grammar:
    """The LALR grammar ``file`` in the package ``package`` (with ``propagate_positions``),
    and the ``vocabulary`` its syntax errors use."""

    package: str
    vocabulary: Vocabulary = field(repr=False)
    maybe_placeholders: bool = False
    file: str = "grammar.lark"

    @cached_property
    def parser(self) -> Lark:
        """The lark parser, built on first use (or read from the disk cache) and kept by this
        (module-level, immutable) grammar object: no registry of parsers."""
        text = resources.files(self.package).joinpath(self.file).read_text()
        options = {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": self.maybe_placeholders}
        key = hashlib.sha256(repr((text, sorted(options.items()), lark.__version__, sys.version_info[:2]))
                             .encode()).hexdigest()[:32]
        cached = cache_home() / "grammars" / f"{self.package}.{self.file}.{key}.pickle"
        try:
            with open(cached, "rb") as f:
                return Lark.load(f)
        except Exception:  # noqa: BLE001 - absent or unreadable: built and (re)written, never fatal
            pass
        parser = Lark(text, **options)
        write_atomically(cached, parser.save)
        return parser

    def parse(self, text: str, path: str, locate: Optional[Locate] = None) -> Tree:
        """lark's tree for ``text``; a syntax error is an ``InputError`` at ``path`` (or where
        ``locate`` maps the offending line), worded by ``syntax_errors.syntax_error``."""
        parser = self.parser
        try:
            return parser.parse(text)
        except UnexpectedInput as e:
            describe = lambda names: self.vocabulary.describe(names, parser)  # noqa: E731
            message, line, column = syntax_error(e, text, describe)
            if locate is not None:
                path, line = locate(line)
            raise InputError(message, path, line, column) from None

