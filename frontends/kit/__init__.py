"""The front-end kit: what the four front ends (``csp``, ``promela``, ``dve``, ``murphi``)
share to turn a model file into a syntax tree.

- ``source.read_source``: a file's UTF-8 text, or a located ``InputError``.
- ``span``: ``Span``, the one source position every syntax tree node carries as ``pos``
  (``Located`` gives ``node.line``/``node.column`` through it), and the expression nodes
  whose shape all four languages share (``Num``, ``UnaryOp``, ``BinaryOp``, ``Conditional``).
- ``grammar``: ``Grammar`` (a lark grammar file beside a front end, loaded once) and
  ``Vocabulary`` (a language's words for its terminals); ``Grammar.parse`` turns lark's
  errors into one located ``InputError`` worded by ``syntax_errors``.
- ``build``: ``SyntaxBuilder``, the base of each front end's lark ``Transformer`` (spans,
  source text, ``InputError`` out of lark's ``VisitError``), and callbacks for the rules
  every grammar has (lists, tagged parts, operator families).

Each front end keeps its own grammar, node classes and meaning; nothing here knows a language.
"""
from __future__ import annotations

from frontends.kit.build import SyntaxBuilder, collect, first, infix, tagged
from frontends.kit.grammar import Grammar, Vocabulary
from frontends.kit.source import read_source
from frontends.kit.span import BinaryOp, Conditional, Located, Num, Span, UnaryOp

__all__ = [
    "BinaryOp", "Conditional", "Grammar", "Located", "Num", "Span", "SyntaxBuilder", "UnaryOp",
    "Vocabulary", "collect", "first", "infix", "read_source", "tagged",
]
