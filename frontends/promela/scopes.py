"""Spin's "redeclaration of 'x'": the declarations Spin 6.5.2 refuses, checked on the syntax tree.

Spin keeps one symbol per name and scope (global, or one proctype) and looks a declared name
up locals first, then globals declared *earlier* in the file; finding one already typed is the
error.  Measured with ``spin -a`` (tests/test_promela_redeclaration.py):
- refused: a global declared twice; a global named like an earlier proctype; a local or
  parameter named like an earlier global (of any type: shadowing is not allowed); two locals,
  two parameters, or a parameter and a local of one proctype (nested blocks are the same
  scope); a typedef with two fields of one name; a local that an inline (expanded in the
  proctype) declares when the proctype declared it before the call;
- refused as Spin's syntax error ("saw 'a constant'"): a variable or parameter named like an
  earlier mtype constant, typedef, inline or proctype (its own included);
- accepted: the same local name in two proctypes; a local named like a global declared later
  in the file; a name that earlier inline expansions declared (one inline called twice).
The located error is at the second declaration.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from detect.errors import InputError

from frontends.kit import Call, Span
from frontends.promela import syntax as S

_LIMIT = 64  # inline expansion depth (recursive inlines are refused elsewhere)


def check(program: S.Program, error: Callable[[str, Span], InputError]) -> None:
    """Raise ``error("redeclaration of 'x'", pos)`` at the first declaration Spin refuses."""
    inlines = {u.name: u for u in program.units if isinstance(u, S.Inline)}
    globals_: set[str] = set()

    # names that Spin's lexer returns as other tokens once declared: a declaration of one is
    # Spin's syntax error, worded as Spin words the token
    tokens: dict[str, str] = {}

    def refuse(name: str, pos: Span) -> InputError:
        if name in tokens:
            return error(f"syntax error: saw '{tokens[name]}'", pos)
        return error(f"redeclaration of '{name}'", pos)

    for u in program.units:
        if isinstance(u, S.MtypeDecl):
            tokens.update((n, "a constant") for n in u.names)
        elif isinstance(u, S.Inline):
            tokens[u.name] = "inline name"
        elif isinstance(u, S.Decl):
            for d in u.vars:
                if d.name in globals_ or d.name in tokens:
                    raise refuse(d.name, d.pos)
                globals_.add(d.name)
        elif isinstance(u, S.Typedef):
            tokens[u.name] = "a typename"
            seen: set[str] = set()
            for f in u.fields:
                if f.name in seen:
                    raise refuse(f.name, f.pos)
                seen.add(f.name)
        elif isinstance(u, S.Proctype):
            if u.name in globals_:
                raise refuse(u.name, u.pos)
            tokens[u.name] = "process name"
            local: set[str] = set()
            for p in u.params:
                if p.name in local or p.name in globals_ or p.name in tokens:
                    raise refuse(p.name, p.pos)
                local.add(p.name)
            _body(u.body, globals_ | tokens.keys(), local, set(), inlines, refuse, 0)
        elif isinstance(u, S.Init):
            _body(u.body, globals_ | tokens.keys(), set(), set(), inlines, refuse, 0)


def _body(node, globals_: set, local: set, expanded: set, inlines: dict, refuse, depth: int) -> None:
    """Walk ``node`` in source order, declaring its locals; ``expanded`` holds the names
    declared inside inline expansions, which Spin lets a later declaration reuse."""
    if isinstance(node, tuple):
        for x in node:
            _body(x, globals_, local, expanded, inlines, refuse, depth)
        return
    if isinstance(node, S.VarDecl):
        if (node.name in local and node.name not in expanded) or node.name in globals_:
            raise refuse(node.name, node.pos)
        local.add(node.name)
        if depth:
            expanded.add(node.name)
        else:
            expanded.discard(node.name)
        return
    if isinstance(node, Call) and node.name in inlines and depth < _LIMIT:
        _body(inlines[node.name].body, globals_, local, expanded, inlines, refuse, depth + 1)
        return
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            v = getattr(node, f.name)
            if isinstance(v, (tuple, S.Sequence, S.Decl, S.VarDecl)) or (
                    dataclasses.is_dataclass(v) and not isinstance(v, Span)):
                _body(v, globals_, local, expanded, inlines, refuse, depth)


def check_record_arguments(program: S.Program, error: Callable[[str, Span], InputError]) -> None:
    """Raise ``error`` at a ``run`` passing an argument to a proctype's ``typedef`` parameter:
    pan copies the record into the parameter field by field (``z.f = par0; z.g = par1``),
    which we do not model (a located refusal, not a wrong count)."""
    typedefs = {u.name for u in program.units if isinstance(u, S.Typedef)}
    record_params = {u.name: [k for k, p in enumerate(u.params) if p.type in typedefs]
                     for u in program.units if isinstance(u, S.Proctype)}
    record_params = {n: ks for n, ks in record_params.items() if ks}
    if not record_params:
        return

    def passes_record(node) -> bool:
        return isinstance(node, S.Run) and any(k < len(node.args) for k in record_params.get(node.proctype, ()))
    for u in program.units:
        if isinstance(u, (S.Proctype, S.Init, S.Inline)):
            run = S.find_node(u.body, passes_record)
            if run is not None:
                raise error(f"run {run.proctype}(...) passes a record to a typedef parameter, "
                            f"which is not supported (pan copies it field by field)", run.pos)
