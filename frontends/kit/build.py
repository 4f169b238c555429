"""Building a front end's syntax tree from lark's parse tree.

Each front end subclasses ``SyntaxBuilder`` (a lark ``Transformer`` whose callbacks all take
``(self, meta, children)``) with one method per grammar rule.  lark's
``ast_utils.create_transformer`` would derive those methods from the node classes, but only
where a rule's children are a node's fields in order; here positions come from the first
token or the rule's ``meta``, tokens become strings and numbers, and several rules build one
node class (``infix``), so the callbacks are written out, and the ones every grammar repeats
are the functions below.
"""
from __future__ import annotations

from typing import Callable

from lark import Token, Transformer, Tree, v_args
from lark.exceptions import VisitError
from lark.tree import Meta

from detect.errors import InputError

from frontends.kit.span import Span


class SyntaxBuilder(Transformer):
    """lark tree -> syntax nodes for the ``text`` of ``file``; every subclass's callbacks take
    ``(meta, children)`` (lark's ``v_args(meta=True)``, applied to each subclass)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        v_args(meta=True)(cls)

    def __init__(self, text: str, file: str = ""):
        super().__init__()
        self.text = text
        self.file = file

    def span(self, at: "Meta | Token") -> Span:
        """The position of a token or of a rule's first token (0, 0 for an empty rule)."""
        return Span(getattr(at, "line", 0) or 0, getattr(at, "column", 0) or 0, self.file)

    def source(self, meta: Meta) -> str:
        """The text a rule matched."""
        return self.text[meta.start_pos:meta.end_pos]

    def build(self, tree: Tree):
        """The syntax tree of ``tree``; an ``InputError`` a callback raises comes out as is."""
        try:
            return self.transform(tree)
        except VisitError as e:
            if isinstance(e.orig_exc, InputError):
                raise e.orig_exc from None
            raise


Callback = Callable[[SyntaxBuilder, Meta, list], object]


def collect(self: SyntaxBuilder, meta: Meta, children: list) -> tuple:
    """A rule that is a list of its children (arguments, items, statements)."""
    return tuple(children)


def first(self: SyntaxBuilder, meta: Meta, children: list):
    """A rule that stands for its only child."""
    return children[0]


def tagged(tag: str) -> Callback:
    """A rule that is one optional part of its parent: ``(tag, child)``."""

    def build(self: SyntaxBuilder, meta: Meta, children: list) -> tuple:
        return (tag, children[0])

    return build


def infix(node: type, op: str) -> Callback:
    """A rule ``left OP right`` that builds ``node(op, left, right, pos)`` at the rule's start."""

    def build(self: SyntaxBuilder, meta: Meta, children: list):
        return node(op, children[0], children[1], self.span(meta))

    return build
