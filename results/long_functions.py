"""Every function over 80 lines in the tool's packages, and whether its docstring says why.

Usage: python3 results/long_functions.py [PATH ...]   (default: detect/ and frontends/)

Issue 11 asks that no function be longer than 80 lines unless its docstring gives the
reason, in a paragraph starting "Why one function".  One line per long function:
``path:line name lines reason|NO REASON``; the exit status is 1 when one lacks the reason.
``tests/test_layers.py`` runs ``long_functions`` on the packages and fails on the same
condition.
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
#: The packages whose functions are held to the limit (tests and scripts are not).
PACKAGES = ("detect", "frontends")
#: Longest function, in source lines from ``def`` to its last line, that needs no reason.
LIMIT = 80
#: What a long function's docstring must contain.
REASON = "Why one function"


@dataclass(frozen=True)
class LongFunction:
    """A function (or method) of ``lines`` source lines, over ``LIMIT``."""

    path: Path
    line: int
    name: str
    lines: int
    has_reason: bool


def long_functions(path: Path, limit: int = LIMIT) -> Iterator[LongFunction]:
    """The functions of the Python file at ``path`` longer than ``limit`` lines, nested ones
    included (each is counted whole, as written), in source order."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            if lines > limit:
                doc = ast.get_docstring(node) or ""
                yield LongFunction(path, node.lineno, node.name, lines, REASON in doc)


def python_files(paths: list[Path]) -> list[Path]:
    """The ``.py`` files under ``paths`` (files are taken as given), sorted."""
    files: list[Path] = []
    for p in paths:
        files.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
    return files


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    paths = [Path(a) for a in args] or [ROOT / p for p in PACKAGES]
    missing = 0
    for file in python_files(paths):
        for f in sorted(long_functions(file), key=lambda f: f.line):
            shown = file.relative_to(ROOT) if ROOT in file.resolve().parents else file
            print(f"{shown}:{f.line} {f.name} {f.lines} lines {'reason' if f.has_reason else 'NO REASON'}")
            missing += not f.has_reason
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
