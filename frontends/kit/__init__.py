"""The front-end kit: what the four front ends (``csp``, ``promela``, ``dve``, ``murphi``)
share, so that no language repeats the machinery another already has.

Reading and parsing:
- ``source.read_source``: a file's UTF-8 text, or a located ``InputError``.
- ``span``: ``Span``, the one source position every syntax tree node carries as ``pos``
  (``Located`` gives ``node.line``/``node.column`` through it).
- ``nodes``: the syntax tree nodes whose shape several languages share (``Num``, ``Ident``,
  ``UnaryOp``, ``BinaryOp``, ``Conditional``, ``Call``, ``Assignment``, ``WhileLoop``,
  ``AssertStmt``, ``Constant``); each front end imports them under its own names.
- ``grammar``: ``Grammar`` (a lark grammar file beside a front end, loaded once) and
  ``Vocabulary`` (a language's words for its terminals); ``Grammar.parse`` turns lark's
  errors into one located ``InputError`` worded by ``syntax_errors``.
- ``build``: ``SyntaxBuilder``, the base of each front end's lark ``Transformer`` (spans,
  source text, ``InputError`` out of lark's ``VisitError``), and callbacks for the rules
  every grammar has (lists, tagged parts, operator families).

Bounds (``bounds``): ``MAX_STATE_SLOTS``, the most state slots a model may declare, and the
refusal each front end locates at the declaration that passes it.

Lowering (``lowering``): FIFO buffers, rendezvous hand-offs, program counters, exclusive
owners, the helpers each language's lowering would otherwise repeat.

Depends on ``detect.ir``, ``detect.errors`` and lark only; the language packages depend on
it, never the reverse.  Each front end keeps its own grammar, node classes and meaning.
"""
from __future__ import annotations

from frontends.kit.build import SyntaxBuilder, collect, first, infix, tagged
from frontends.kit.grammar import Grammar, Vocabulary
from frontends.kit.source import read_source
from frontends.kit.nodes import (
    AssertStmt, Assignment, BinaryOp, Call, Conditional, Constant, Ident, Num, UnaryOp, WhileLoop,
)
from frontends.kit.span import Located, Span

__all__ = [
    "AssertStmt", "Assignment", "BinaryOp", "Call", "Conditional", "Constant", "Grammar", "Ident", "Located",
    "Num", "Span", "SyntaxBuilder", "UnaryOp", "Vocabulary", "WhileLoop", "collect", "first", "infix",
    "read_source", "tagged",
]
