"""A small C preprocessor for Promela sources (what Spin delegates to ``cpp``).

Supports ``#define`` (object-like and simple function-like macros, ``\\``-continued lines),
``#undef``, ``#if``/``#ifdef``/``#ifndef``/``#elif``/``#else``/``#endif`` and ``#include "file"``
of local files; comments are removed.  ``defines`` (from ``-D NAME=VALUE``) override every
``#define`` of the same name.

Invariant: the output has one line per input line (directives and comments become blank or
shorter lines) plus the included files' lines, and ``Preprocessed.origin(k)`` gives the
``(path, line)`` each output line ``k`` (1-based) came from, so later errors point into the
file the user wrote.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

from detect.errors import InputError

from frontends.kit import read_source

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAX_EXPANSION_DEPTH = 64


@dataclass(frozen=True)
class Macro:
    name: str
    params: Optional[tuple[str, ...]]  # None for object-like macros
    body: str


@dataclass(frozen=True)
class Preprocessed:
    """Expanded text; ``lines[k-1]`` is where output line ``k`` came from."""

    text: str
    lines: tuple[tuple[str, int], ...]
    macros: tuple[tuple[str, str], ...]  # final object-like macro values (for ``parameters``)

    def origin(self, line: int) -> tuple[str, int]:
        if 1 <= line <= len(self.lines):
            return self.lines[line - 1]
        return (self.lines[-1][0] if self.lines else "", line)


def strip_comments(text: str, path: str) -> str:
    """Remove ``/* */`` and ``//`` comments outside string literals, keeping newlines."""
    out = []
    i, n = 0, len(text)
    line = 1
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise InputError("unterminated comment: expected '*/'", path, line, 1)
            comment = text[i:j + 2]
            out.append(" " + "\n" * comment.count("\n"))
            line += comment.count("\n")
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            if c == "\n":
                line += 1
            out.append(c)
            i += 1
    return "".join(out)


class _Preprocessor:
    def __init__(self, defines: Mapping[str, str], base: Path):
        self.overrides = {k: str(v) for k, v in defines.items()}
        self.macros: dict[str, Macro] = {k: Macro(k, None, v) for k, v in self.overrides.items()}
        self.out_lines: list[str] = []
        self.origins: list[tuple[str, int]] = []
        self.base = base
        self.include_stack: list[str] = []
        #: names the model #defines or tests in a conditional (in any branch): what -D may set
        self.known: set[str] = set()

    # ------------------------------------------------------------------ expansion
    def expand(self, text: str, path: str, line: int, depth: int = 0, active: frozenset = frozenset()) -> str:
        if depth > _MAX_EXPANSION_DEPTH:
            raise InputError("macro expansion too deep (recursive #define?)", path, line, 1)
        out = []
        i, n = 0, len(text)
        while i < n:
            c = text[i]
            if c == '"':
                j = i + 1
                while j < n and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                out.append(text[i:j + 1])
                i = j + 1
                continue
            m = _IDENT.match(text, i) if (c.isalpha() or c == "_") else None
            if not m:
                out.append(c)
                i += 1
                continue
            name = m.group(0)
            i = m.end()
            macro = self.macros.get(name)
            if macro is None or name in active:
                out.append(name)
                continue
            if macro.params is None:
                out.append(self.expand(macro.body, path, line, depth + 1, active | {name}))
                continue
            j = i
            while j < n and text[j] in " \t":
                j += 1
            if j >= n or text[j] != "(":
                out.append(name)  # a function-like macro name not followed by '(' stays
                continue
            args, i = self._arguments(text, j, path, line)
            if len(args) != len(macro.params) and not (len(macro.params) == 0 and args == [""]):
                raise InputError(
                    f"macro {name} expects {len(macro.params)} arguments, got {len(args)}", path, line, 1
                )
            expanded_args = {p: self.expand(a, path, line, depth + 1, active) for p, a in zip(macro.params, args)}
            # cpp's stringification: #param is the argument as written, quoted
            body = re.sub(r"#\s*([A-Za-z_]\w*)", lambda mm: '"' + dict(zip(macro.params, args))[mm.group(1)]
                          .replace("\\", "\\\\").replace('"', '\\"') + '"' if mm.group(1) in macro.params
                          else mm.group(0), macro.body)
            body = _IDENT.sub(lambda mm: expanded_args.get(mm.group(0), mm.group(0)), body)
            out.append(self.expand(body, path, line, depth + 1, active | {name}))
        return "".join(out)

    @staticmethod
    def _arguments(text: str, start: int, path: str, line: int) -> tuple[list[str], int]:
        depth, i, args, cur = 0, start, [], []
        while i < len(text):
            c = text[i]
            if c == "(":
                depth += 1
                if depth > 1:
                    cur.append(c)
            elif c == ")":
                depth -= 1
                if depth == 0:
                    args.append("".join(cur).strip())
                    return args, i + 1
                cur.append(c)
            elif c == "," and depth == 1:
                args.append("".join(cur).strip())
                cur = []
            else:
                cur.append(c)
            i += 1
        raise InputError("unterminated macro call: expected ')'", path, line, 1)

    # ------------------------------------------------------------------ #if expressions
    def condition(self, expr: str, path: str, line: int) -> bool:
        expr = re.sub(r"defined\s*\(\s*([A-Za-z_]\w*)\s*\)", lambda m: "1" if m.group(1) in self.macros else "0", expr)
        expr = re.sub(r"defined\s+([A-Za-z_]\w*)", lambda m: "1" if m.group(1) in self.macros else "0", expr)
        expr = self.expand(expr, path, line)
        expr = _IDENT.sub("0", expr)  # undefined names are 0, as in cpp
        py = expr.replace("&&", " and ").replace("||", " or ")
        py = re.sub(r"!(?!=)", " not ", py).replace("/", "//")
        try:
            return bool(eval(py, {"__builtins__": {}}, {}))  # only digits and operators remain
        except Exception:
            raise InputError(f"cannot evaluate #if condition {expr.strip()!r}", path, line, 1) from None

    # ------------------------------------------------------------------ driver
    def run(self, text: str, path: str) -> None:
        if path in self.include_stack:
            raise InputError(f"recursive #include of {path}", path, 1, 1)
        self.include_stack.append(path)
        text = strip_comments(text, path)
        raw = text.split("\n")
        # stack of (this branch active, some branch taken, parent active)
        conds: list[list[bool]] = []
        k = 0
        while k < len(raw):
            lineno = k + 1
            line = raw[k]
            span = 1
            while line.endswith("\\") and k + span < len(raw):
                line = line[:-1] + " " + raw[k + span]
                span += 1
            k += span
            active = all(c[0] for c in conds)
            stripped = line.strip()
            if stripped.startswith("#"):
                self._note_names(stripped[1:].strip())
                self._directive(stripped[1:].strip(), conds, active, path, lineno)
                for extra in range(span):
                    self._emit("", path, lineno + extra)
                continue
            content = self.expand(line, path, lineno) if active else ""
            self._emit(content, path, lineno)
            for extra in range(1, span):
                self._emit("", path, lineno + extra)
        if conds:
            raise InputError("#if without matching #endif", path, len(raw), 1)
        self.include_stack.pop()

    def _note_names(self, d: str) -> None:
        m = re.match(r"(define|undef|ifdef|ifndef)\s+([A-Za-z_]\w*)", d)
        if m:
            self.known.add(m.group(2))
        elif re.match(r"(if|elif)\b", d):
            self.known.update(n for n in _IDENT.findall(d[2:] if d.startswith("if") else d[4:]) if n != "defined")

    def _emit(self, text: str, path: str, line: int) -> None:
        self.out_lines.append(text)
        self.origins.append((path, line))

    def _directive(self, d: str, conds, active: bool, path: str, line: int) -> None:
        m = re.match(r"(\w+)\s*(.*)", d)
        if not m:
            return  # a lone '#' is a null directive
        word, rest = m.group(1), m.group(2).strip()
        if word in ("ifdef", "ifndef"):
            name = rest.split()[0] if rest else ""
            val = (name in self.macros) == (word == "ifdef")
            conds.append([active and val, val, active])
        elif word == "if":
            val = active and self.condition(rest, path, line)
            conds.append([val, val, active])
        elif word == "elif":
            if not conds:
                raise InputError("#elif without #if", path, line, 1)
            c = conds[-1]
            val = c[2] and not c[1] and self.condition(rest, path, line)
            c[0] = val
            c[1] = c[1] or val
        elif word == "else":
            if not conds:
                raise InputError("#else without #if", path, line, 1)
            c = conds[-1]
            c[0] = c[2] and not c[1]
            c[1] = True
        elif word == "endif":
            if not conds:
                raise InputError("#endif without #if", path, line, 1)
            conds.pop()
        elif not active:
            return
        elif word == "define":
            mm = re.match(r"([A-Za-z_]\w*)(\(([^)]*)\))?\s*(.*)", rest)
            if not mm:
                raise InputError("#define: expected a macro name", path, line, 1)
            name = mm.group(1)
            if name in self.overrides:
                return  # -D NAME=VALUE wins over the file's #define
            params = None
            if mm.group(2) is not None:
                params = tuple(p.strip() for p in mm.group(3).split(",") if p.strip())
            self.macros[name] = Macro(name, params, mm.group(4).strip())
        elif word == "undef":
            name = rest.split()[0] if rest else ""
            if name not in self.overrides:
                self.macros.pop(name, None)
        elif word == "include":
            mm = re.match(r'"([^"]+)"', rest)
            if not mm:
                raise InputError('#include: only local files ("file") are supported', path, line, 1)
            inc = (Path(path).parent if path else self.base) / mm.group(1)
            try:
                inc_text = read_source(inc, "#include file")
            except InputError as e:
                raise InputError(f"#include: {e.message}", path, line, 1) from None
            self.run(inc_text, str(inc))
            # the directive line itself is emitted by the caller
        elif word in ("line", "pragma", "error", "warning"):
            if word == "error":
                raise InputError(f"#error {rest}", path, line, 1)
        else:
            raise InputError(f"unsupported preprocessor directive #{word}", path, line, 1)


def preprocess(text: str, path: str = "", defines: Mapping[str, object] | None = None) -> Preprocessed:
    """Run the preprocessor over ``text`` (read from ``path``, used for ``#include``)."""
    pp = _Preprocessor({k: str(v) for k, v in (defines or {}).items()}, Path(path).parent if path else Path("."))
    pp.run(text, path)
    for name in (defines or {}):
        if name not in pp.known:
            known = ", ".join(sorted(pp.known)) or "none"
            raise InputError(f"-D {name}: the model has no '#define {name}'; its defines are: {known}", path)
    object_like = tuple((m.name, m.body) for m in pp.macros.values() if m.params is None)
    return Preprocessed("\n".join(pp.out_lines), tuple(pp.origins), object_like)
