"""``ltl name { formula }`` blocks: translated by Spin into the never claim pan would check.

Spin is the reference translator: ``spin -a`` on the preprocessed model writes, for every
``ltl`` block, the never claim of the negated formula to ``_spin_nvr.tmp`` (Spin's LTL
syntax -- ``[]``, ``<>``, ``X``, ``U``, ``W``, ``V``, ``always``, ``implies``... -- with
remote references and Promela expressions as propositions, exactly as ``pan -a -N name``
checks it).  One block is chosen (``--ltl NAME``; by default the first, as pan's default
``-N``) and spliced into the text in its place as a ``never { ... }`` on the block's first
line, the other lines of the block left empty, so that every later line keeps its number.
The claim is then checked as any never claim (``claim``): reaching its end is a safety
violation, a cycle through an ``accept`` label an acceptance cycle.

Spin writes a transition to its universal accepting state as
``atomic { (g) -> assert(!(g)) }`` (a safety violation as soon as ``g`` holds); it becomes
``(g) -> goto accept_all``, whose ``skip`` then ends the claim: a violation one claim move
later on every path (the claim's ``skip`` is always executable, and the state at
``accept_all`` is accepting, so a system that never lets the claim move again -- an endless
atomic loop -- closes an acceptance cycle there instead).  Either way the verdict is pan's.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import warnings
from dataclasses import dataclass
from typing import Optional

from detect.errors import InputError

#: an ``ltl`` block, as the grammar's ``LTL`` token matches it (no ``}`` in the formula)
BLOCK = re.compile(r"\bltl\b(?P<name>[^{]*)\{(?P<formula>[^}]*)\}")
_ASSERT_STEP = re.compile(r"^(\s*::\s*)atomic\s*\{\s*(?P<guard>.*?)\s*->\s*assert\(.*\)\s*\}\s*$")
SPIN_TIMEOUT = 60.0
#: the ``ltl_name`` that checks no block (the model without its property: the group it has)
NO_LTL = ""


class TranslatorError(InputError):
    """Spin could not give the chosen block's claim (missing, or it rejects the model)."""


@dataclass(frozen=True)
class LtlBlock:
    """One ``ltl`` block of the preprocessed text: ``text[start:end]``; ``name`` is Spin's
    (``ltl_0``, ``ltl_1``... for an unnamed block, numbered in source order)."""

    name: str
    formula: str
    start: int
    end: int
    line: int
    column: int


def blocks(text: str) -> list[LtlBlock]:
    """The ``ltl`` blocks of preprocessed ``text``, in source order (none inside a string:
    ``printf("ltl { ")``)."""
    out = []
    unnamed = 0
    blanked = re.sub(r'"(\\.|[^"\\])*"', lambda m: " " * len(m.group(0)), text)
    for m in BLOCK.finditer(blanked):
        name = m.group("name").strip()
        if not name:
            name = f"ltl_{unnamed}"
            unnamed += 1
        line = text.count("\n", 0, m.start()) + 1
        column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        out.append(LtlBlock(name, " ".join(m.group("formula").split()), m.start(), m.end(), line, column))
    return out


def spin_claims(text: str) -> dict[str, str]:
    """Spin's never claim (body text, between the braces) for each ``ltl`` block of the
    Promela ``text``, by name; raises ``RuntimeError`` with Spin's first message when Spin
    is missing or rejects the model."""
    return spin_translation(text)[0]


def spin_translation(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """``(claims, printed)``: ``spin_claims``, and each block's formula as Spin prints it
    before translating (``ltl p: (! (<> (R))) || ...``: parsed by Spin, fully
    parenthesised), which it prints even where its translator then refuses the formula
    (``X``); ``RuntimeError`` as ``spin_claims`` when no claim is written at all, with
    ``printed`` as its ``args[1]``."""
    spin = shutil.which("spin")
    if spin is None:
        raise RuntimeError("Spin's LTL translator is needed to check an ltl formula, and 'spin' is not on PATH")
    with tempfile.TemporaryDirectory(prefix="symdetect-ltl-") as tmp:
        with open(os.path.join(tmp, "model.pml"), "w") as f:
            f.write(text)
        try:
            run = subprocess.run([spin, "-a", "model.pml"], cwd=tmp, capture_output=True, text=True,
                                 timeout=SPIN_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"Spin took more than {SPIN_TIMEOUT:.0f} s to translate the ltl formulas") from None
        printed = dict(re.findall(r"^ltl (\S+): (.*)$", run.stdout, re.M))
        path = os.path.join(tmp, "_spin_nvr.tmp")
        written = ""
        if os.path.exists(path):
            with open(path) as f:
                written = f.read()
        if "never" not in written:
            # Spin's line numbers are those of the preprocessed text: left out
            lines = [re.sub(r"^spin: model\.pml:\d+, ", "", x) for x in (run.stdout + run.stderr).splitlines()
                     if x.strip() and not x.startswith("ltl ")]
            raise RuntimeError("Spin could not translate the ltl formulas: " + (lines[0] if lines else "no output"),
                               printed)
    claims = {}
    for m in re.finditer(r"never\s+(\S+)\s*\{[^\n]*\n(.*?)\n\}", written, re.S):
        claims[m.group(1)] = m.group(2)
    return claims, printed


# ----------------------------------------------------------- formulas Spin's translator refuses

#: the tokens of Spin's printed formula that only LTL has (never a Promela expression's)
_TEMPORAL = {"[]", "<>", "X", "U", "V", "W", "->", "<->"}
_TOKEN = re.compile(r"\s*(<->|->|\[\]|<>|&&|\|\||!(?!=)|\(|\)|\b[UVWX]\b|[^\s()!&|<>\[\]-]+|.)")


def _tokens(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _TOKEN.finditer(text):
        if m.group(1):
            out.append((m.group(1), m.start(1), m.end(1)))
    return out


def parse_printed(text: str) -> tuple[tuple, list[str]]:
    """``(formula, propositions)``: Spin's printed form of an ``ltl`` formula as a
    ``detect.ir.tableau`` formula over propositions ``0..n-1``, each a Promela expression
    (its text).  A maximal part with no LTL-only token (``_TEMPORAL``) is one proposition:
    ``!``, ``&&`` and ``||`` inside it are Promela's, with the same meaning.  Precedence as
    Spin's grammar (``->``/``<->`` < ``||`` < ``&&`` < ``U``/``V``/``W`` < unary); Spin prints
    every operand parenthesised, so it rarely matters.  ``ValueError`` if it does not parse."""
    toks = _tokens(text)
    props: list[str] = []
    at = [0]

    def peek() -> str | None:
        return toks[at[0]][0] if at[0] < len(toks) else None

    def closing(i: int) -> int:
        depth = 0
        for j in range(i, len(toks)):
            depth += {"(": 1, ")": -1}.get(toks[j][0], 0)
            if depth == 0:
                return j
        raise ValueError(f"unbalanced parentheses in {text!r}")

    def prop(i: int, j: int) -> tuple:
        expr = " ".join(text[toks[i][1]:toks[j - 1][2]].split())
        if expr not in props:
            props.append(expr)
        return ("ap", props.index(expr))

    def primary() -> tuple:
        t = peek()
        if t is None or t == ")":
            raise ValueError(f"a formula expected in {text!r}")
        if t in ("!", "[]", "<>", "X"):
            at[0] += 1
            return ({"!": "!", "[]": "[]", "<>": "<>", "X": "X"}[t], unary())
        start = at[0]
        if t == "(":
            end = closing(start)
            if any(k[0] in _TEMPORAL for k in toks[start:end + 1]):
                at[0] += 1
                inner = binary(0)
                if peek() != ")":
                    raise ValueError(f"')' expected in {text!r}")
                at[0] += 1
                return inner
        # a Promela expression: words and operators up to an LTL connective at this depth
        while at[0] < len(toks) and toks[at[0]][0] not in _TEMPORAL | {"&&", "||", ")"}:
            at[0] = closing(at[0]) + 1 if toks[at[0]][0] == "(" else at[0] + 1
        if at[0] == start:
            raise ValueError(f"a proposition expected in {text!r}")
        return prop(start, at[0])

    def unary() -> tuple:
        return primary()

    levels = [("->", "<->"), ("||",), ("&&",), ("U", "V", "W")]

    def binary(level: int) -> tuple:
        if level == len(levels):
            return unary()
        left = binary(level + 1)
        while peek() in levels[level]:
            op = toks[at[0]][0]
            at[0] += 1
            right = binary(level + 1)
            if op == "V":
                left = ("R", left, right)
            elif op == "W":  # p W q = (p U q) || [] p
                left = ("||", ("U", left, right), ("[]", left))
            else:
                left = (op, left, right)
        return left

    formula = binary(0)
    if at[0] != len(toks):
        raise ValueError(f"unexpected {toks[at[0]][0]!r} in {text!r}")
    return formula, props


def tableau_claim(printed: str) -> str:
    """The never claim (body, one line) of the negation of Spin's printed formula, by our
    tableau translator (``detect.ir.tableau.translate``): used for the formulas Spin 6.5.2's
    translator refuses (``X``).  State ``q`` is ``accept_S<q>`` where accepting, else
    ``T0_S<q>``; its options read the system state the claim moves on (as Spin's claims), a
    state with none is ``false`` (the claim blocks).  It has no end, so only acceptance
    cycles are violations (a safety violation is an accepting ``true`` self-loop)."""
    from detect.ir.tableau import simplify, translate

    formula, props = parse_printed(printed)
    aut = simplify(translate(("!", formula)))

    def label(q: int) -> str:
        return f"{'accept' if q in aut.accepting else 'T0'}_S{q}"

    def guard(pos, neg) -> str:
        parts = [f"({props[k]})" for k in sorted(pos)] + [f"!({props[k]})" for k in sorted(neg)]
        return "(" + " && ".join(parts) + ")" if parts else "(1)"

    order = [aut.initial] + [q for q in range(aut.states) if q != aut.initial]
    states = []
    for q in order:
        moves = aut.transitions[q]
        body = ("if " + " ".join(f":: {guard(pos, neg)} -> goto {label(q2)}" for pos, neg, q2 in moves) + " fi"
                if moves else "false")
        states.append(f"{label(q)}: {body};")
    return " ".join(states)


def rewrite(body: str) -> str:
    """Spin's claim ``body`` on one line with its ``atomic { g -> assert(!g) }`` steps as
    ``g -> goto accept_all`` (module docstring)."""
    out = []
    for line in body.splitlines():
        m = _ASSERT_STEP.match(line)
        if m:
            line = f"{m.group(1)}{m.group('guard')} -> goto accept_all"
        # comments are Spin's echo of the formula; the preprocessed text has none
        out.append(re.sub(r"/\*.*?\*/", "", line).strip())
    if any(_ASSERT_STEP.match(x) for x in body.splitlines()) and not re.search(r"\baccept_all\s*:", body):
        out.append("accept_all: skip")
    return " ".join(x for x in out if x)


def splice(text: str, chosen: Optional[str], path: str) -> tuple[str, Optional[LtlBlock], int]:
    """``(text', block, others)``: ``text`` with the chosen ``ltl`` block (``chosen``, or the
    first) replaced by Spin's never claim for it (module docstring), that block, and how
    many other blocks stay (unchecked).  Without blocks, ``text`` unchanged and ``None``;
    an unknown ``chosen``, or no Spin, is an ``InputError``."""
    found = blocks(text)
    if chosen == NO_LTL:
        return text, None, len(found)
    if not found:
        if chosen is not None:
            raise InputError(f"--ltl {chosen}: the model has no ltl formula", path, 0, 0)
        return text, None, 0
    names = [b.name for b in found]
    if chosen is None:
        block = found[0]
    elif chosen in names:
        block = found[names.index(chosen)]
    else:
        raise InputError(f"--ltl {chosen}: no such ltl formula (the model has {', '.join(names)})", path, 0, 0)
    # Spin translates the chosen block alone: a formula it refuses elsewhere in the file
    # (Spin 6.5.2 refuses LTL/patterns.pml as a whole) does not stop this one
    alone = text
    for b in reversed([b for b in found if b is not block]):
        alone = alone[:b.start] + "\n" * alone.count("\n", b.start, b.end) + alone[b.end:]
    try:
        claims, printed = spin_translation(alone)
    except RuntimeError as e:
        claims, printed = {}, (e.args[1] if len(e.args) > 1 else {})
        refused = str(e.args[0])
    else:
        refused = "Spin wrote no never claim for it"
    if block.name in claims:
        claim = f"never {{ {rewrite(claims[block.name])} }}"
    elif block.name in printed and re.search(r"\bX\b", printed[block.name]):
        # Spin 6.5.2 (as Debian builds it) parses X but its translator refuses it ("expected
        # predicate, saw 'X'"): our tableau translates Spin's parse of the formula instead
        try:
            claim = f"never {{ {tableau_claim(printed[block.name])} }}"
        except ValueError as e:
            raise TranslatorError(f"ltl {block.name} not checked: {refused}; and {e}", path, block.line,
                                  block.column) from None
        warnings.warn(f"{path}: ltl {block.name} has X, which Spin's translator refuses: translated by "
                      f"symdetect's own (the tableau of detect/ir/tableau.py)", stacklevel=3)
    else:
        raise TranslatorError(f"ltl {block.name} not checked: {refused}", path, block.line, block.column)
    lines = text.count("\n", block.start, block.end)
    return text[:block.start] + claim + "\n" * lines + text[block.end:], block, len(found) - 1
