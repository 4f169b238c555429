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
        path = os.path.join(tmp, "_spin_nvr.tmp")
        if not os.path.exists(path):
            # Spin's line numbers are those of the preprocessed text: left out
            lines = [re.sub(r"^spin: model\.pml:\d+, ", "", x) for x in (run.stdout + run.stderr).splitlines()
                     if x.strip() and not x.startswith("ltl ")]
            raise RuntimeError("Spin could not translate the ltl formulas: " + (lines[0] if lines else "no output"))
        with open(path) as f:
            written = f.read()
    claims = {}
    for m in re.finditer(r"never\s+(\S+)\s*\{[^\n]*\n(.*?)\n\}", written, re.S):
        claims[m.group(1)] = m.group(2)
    return claims


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
    try:
        claims = spin_claims(text)
    except RuntimeError as e:
        raise TranslatorError(f"ltl {block.name} not checked: {e}", path, block.line, block.column) from None
    if block.name not in claims:
        raise TranslatorError(f"ltl {block.name} not checked: Spin wrote no never claim for it", path,
                         block.line, block.column)
    claim = f"never {{ {rewrite(claims[block.name])} }}"
    lines = text.count("\n", block.start, block.end)
    return text[:block.start] + claim + "\n" * lines + text[block.end:], block, len(found) - 1
