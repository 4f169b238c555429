"""PAT's LTL formulas (``#assert P() |= F;``) read into a ``detect.ir.TemporalProperty``.

PAT's syntax (its "How to write LTL Formulae" page, Spin's): ``[]``/``G``, ``<>``/``F``,
``X``, ``!``, ``U``, ``R``/``V``, ``&&``/``/\\``, ``||``/``\\/``, ``->``, ``<->``, ``true``,
``false``, parentheses.  Precedence is Spin's (``tl_parse.c``): unary operators bind
tightest, then ``U``/``V``, then ``&&``, ``||``, ``->`` and ``<->`` at one level, all binary
operators left-associative (so ``a || b && c`` is ``(a || b) && c``, as ``spin -f`` reads it).

An operand is a state proposition when it names a ``#define`` condition (``#define goal
x == 3;``), else an event: ``name`` or ``name.a1.a2`` with constant arguments (numbers,
constants); it holds at the state reached by that event ("the event just performed").
Operands are read as PAT's LTL lexer (``PAT.Common/Classes/BA/LTL2BA/lex.cs``) reads them:
a word starts with a letter and goes on over letters, digits, ``_``, ``.``, ``?`` and ``!``
(so ``c!1`` and ``c?1.2`` are channel events, one operand each), or is a double-quoted
string (``"c[1]!3"``, for a channel of an array).  PAT compares the operand's text with the
configuration's event string (``BuchiAutomata.MakeOneMove``): ``c!1`` is a buffered send,
``c?1`` a buffered receive, ``d.1`` a synchronous hand-shake on ``d``, ``init`` the event of
the initial configuration and ``terminate`` the step of a process's successful termination
(``Constants.INITIAL_EVENT``, ``Constants.TERMINATION``).
"""
from __future__ import annotations

import re
from typing import Callable

from detect.errors import InputError
from detect.ir import Proposition, TemporalProperty

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<op>\[\]|<>|<->|->|&&|\|\||/\\|\\/|!|\(|\))
  | (?P<atom>"[^"\n]*"|[A-Za-z_][A-Za-z0-9_]*([.?!](\d+|[A-Za-z_][A-Za-z0-9_]*|\(\s*-?\d+\s*\))?)*)
  | (?P<bad>.)
""", re.X)
_UNARY = {"[]": "[]", "G": "[]", "<>": "<>", "F": "<>", "X": "X", "!": "!"}
_TEMPORAL = {"U": "U", "R": "R", "V": "R"}
_BOOLEAN = {"&&": "&&", "/\\": "&&", "||": "||", "\\/": "||", "->": "->", "<->": "<->"}


def parse_formula(text: str, error: Callable[[str, int], InputError],
                  proposition: Callable[[str, int], Proposition]) -> TemporalProperty:
    """``text`` (after ``|=``) as a property; ``error(message, offset)`` makes the located
    error, ``proposition(atom, offset)`` gives an operand's meaning (raising when it has none)."""
    tokens: list[tuple[str, str, int]] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "ws":
            continue
        if kind == "bad":
            raise error(f"unexpected character {m.group()!r} in an LTL formula (PAT's LTL operands are "
                        f"#define conditions and events: name an expression with '#define p ...;')", m.start())
        value = m.group()
        if kind == "atom" and value in _UNARY or value in _TEMPORAL:
            kind = "op"
        tokens.append((kind, value, m.start()))
    props: list[Proposition] = []
    index: dict[Proposition, int] = {}
    pos = [0]

    def peek() -> tuple[str, str, int]:
        return tokens[pos[0]] if pos[0] < len(tokens) else ("end", "", len(text))

    def take() -> tuple[str, str, int]:
        t = peek()
        pos[0] += 1
        return t

    def factor() -> tuple:
        kind, value, at = take()
        if kind == "op" and value in _UNARY:
            return (_UNARY[value], factor())
        if kind == "op" and value == "(":
            inner = level(1)
            if peek()[1] != ")":
                raise error("expected ')' in the LTL formula", peek()[2])
            take()
            return inner
        if kind == "atom":
            if value in ("true", "false"):
                return (value,)
            p = proposition(value, at)
            if p not in index:
                index[p] = len(props)
                props.append(p)
            return ("ap", index[p])
        raise error("expected an operand, '(' or a unary operator" + (f", saw {value!r}" if value else
                                                                      " at the end of the formula"), at)

    def level(nr: int) -> tuple:
        ops = _TEMPORAL if nr == 0 else _BOOLEAN
        left = factor() if nr == 0 else level(0)
        while peek()[0] == "op" and peek()[1] in ops:
            op = ops[take()[1]]
            right = factor() if nr == 0 else level(0)
            left = (op, left, right)
        return left

    if not tokens:
        raise error("empty LTL formula", 0)
    formula = level(1)
    if pos[0] < len(tokens):
        raise error(f"unexpected {tokens[pos[0]][1]!r} in the LTL formula", tokens[pos[0]][2])
    return TemporalProperty(formula, tuple(props))


def temporal_property(scope, decl) -> TemporalProperty:
    """The property of ``#assert P() |= F`` (``decl``, an ``AssertDecl`` of kind ``ltl``) in
    ``scope`` (a ``frontends.csp.scope.Scope``): ``#define`` conditions become state
    propositions, every other operand an event with constant arguments."""
    from frontends.csp.syntax import Ident
    from frontends.kit import Span

    text = decl.formula
    start = decl.formula_pos

    def at(offset: int) -> Span:
        before = text[:offset]
        lines = before.count("\n")
        if lines == 0:
            return Span(start.line, start.column + offset, start.file)
        return Span(start.line + lines, offset - before.rfind("\n"), start.file)

    def error(message: str, offset: int) -> InputError:
        return scope.error(message, at(offset))

    def proposition(atom: str, offset: int) -> Proposition:
        quoted = atom.startswith('"')
        body = atom[1:-1].strip() if quoted else atom
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(\[\s*([A-Za-z_][A-Za-z0-9_]*|\d+)\s*\])?([!?]?)(.*)", body, re.S)
        if m is None:
            raise error(f"{atom}: not an event (name, name.1, c!1, c?1, \"c[1]!1\") nor a #define condition",
                        offset)
        name, _, index, op, rest = m.groups()
        if not quoted and op and name in ("X", "G", "F", "U", "R", "V"):
            # PAT's lexer reads 'X!a' as one word: a name no event has, never true
            raise error(f"PAT reads '{atom}' as one name, which no event has: write '{name} {atom[1:]}'", offset)
        if index is None and not op and not rest and name in scope.macros:
            return Proposition(atom, condition=scope.expr(Ident(name, at(offset)), {}))
        if index is None and not op and not rest and name in scope.numeric:
            raise error(f"'{name}' is a constant, not a proposition: an LTL operand is a #define "
                        f"condition or an event", offset)
        if index is None and not op and not rest and name in scope.variables:
            raise error(f"'{name}' is a variable: an LTL operand is a #define condition (#define p "
                        f"{name} == ...;) or an event", offset)

        def value(raw: str) -> int:
            raw = raw.strip().strip("()").strip()
            if re.fullmatch(r"-?\d+", raw):
                return int(raw)
            if raw in scope.numeric:
                return scope.numeric[raw]
            raise error(f"event '{atom}': argument '{raw}' is not a number or a constant", offset)

        event = name if index is None else f"{name}[{value(index)}]"
        if op:
            # a buffered channel operation: PAT's event is c!v1.v2 (c?v1.v2), ours c! (c?) with arguments
            parts = rest.split(".") if rest else []
            return Proposition(atom, event=event + op, args=tuple(value(a) for a in parts))
        if rest and not rest.startswith("."):
            raise error(f"{atom}: not an event (name, name.1, c!1, c?1, \"c[1]!1\") nor a #define condition",
                        offset)
        return Proposition(atom, event=event, args=tuple(value(a) for a in rest.split(".")[1:]))

    return parse_formula(text, error, proposition)
