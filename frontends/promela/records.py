"""Records (``typedef`` values) where Spin 6.5.2 spells them out field by field.

Spin expands a record in a channel's field list, in a send, a receive or a poll into its
fields, depth first, an array field element by element (``spin -I`` prints the result):
with ``typedef I { byte p; byte q[2] }; typedef R { byte a; I n; bool b }``, ``chan c = [1] of
{ R }`` has the five fields ``byte, byte, byte, byte, bool`` and ``c!r`` is
``c!r.a,r.n.p,r.n.q[0],r.n.q[1],r.b``.  ``for (x in c)`` over a channel (``syntax.ForIn``)
is decided here too, since whether ``c`` is a channel or an array depends on declarations.

``expand`` is a pure rewrite of one process body (inlines already expanded): the state
vector holds the fields already (``lower.Lowering.declare`` flattens records), so nothing
else changes.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Mapping, Optional

from frontends.promela import syntax as S

#: a leaf field of a record: the path of (field name, element index or None) to it
Path = tuple[tuple[str, Optional[int]], ...]


def leaves(typedefs: Mapping[str, S.Typedef], tname: str, const: Callable[[object], int]) -> list[tuple[Path, str]]:
    """The leaf fields of a ``tname`` value in Spin's order, with their types."""
    out: list[tuple[Path, str]] = []
    for f in typedefs[tname].fields:
        n = const(f.size) if f.size is not None else None
        for k in ([None] if n is None else range(n)):
            if f.type in typedefs:
                out.extend((((f.name, k),) + rest, t) for rest, t in leaves(typedefs, f.type, const))
            else:
                out.append((((f.name, k),), f.type))
    return out


def created_channels(typedefs: Mapping[str, S.Typedef], tname: str,
                     const: Callable[[object], int]) -> list[tuple[Path, S.VarDecl]]:
    """The initialised ``chan`` leaf fields of a ``tname`` value (``chan c = [n] of {..}``),
    each with its declaration, in the order pan creates their channels: fields depth first,
    an array field element by element (the order of ``leaves``)."""
    out: list[tuple[Path, S.VarDecl]] = []
    for f in typedefs[tname].fields:
        n = const(f.size) if f.size is not None else None
        for k in ([None] if n is None else range(n)):
            if f.type in typedefs:
                out.extend((((f.name, k),) + rest, d) for rest, d in created_channels(typedefs, f.type, const))
            elif f.type == "chan" and isinstance(f.init, S.ChanInit):
                out.append((((f.name, k),), f))
    return out


def flat_types(typedefs: Mapping[str, S.Typedef], types, const: Callable[[object], int]) -> tuple[str, ...]:
    """A channel's field types with each record type replaced by its leaf types."""
    out: list[str] = []
    for t in types:
        if t in typedefs:
            out.extend(lt for _, lt in leaves(typedefs, t, const))
        else:
            out.append(t)
    return tuple(out)


def extend(ref: S.VarRef, path: Path) -> S.VarRef:
    """``ref`` followed by the fields of ``path`` (``r`` and ``(n, None), (q, 1)``: ``r.n.q[1]``)."""
    if ref.field is not None:
        return dataclasses.replace(ref, field=extend(ref.field, path))
    tail: Optional[S.VarRef] = None
    for name, k in reversed(path):
        tail = S.VarRef(name, None if k is None else S.Num(k, ref.pos), tail, ref.pos)
    return dataclasses.replace(ref, field=tail)


def record_type(ref: S.VarRef, types: Mapping[str, str], typedefs: Mapping[str, S.Typedef]) -> Optional[str]:
    """The typedef of the value ``ref`` names (a record variable or a record field), or None."""
    t: Optional[str] = types.get(ref.name)
    f = ref.field
    while t in typedefs and f is not None:
        decl = next((x for x in typedefs[t].fields if x.name == f.name), None)
        t = decl.type if decl is not None else None
        f = f.field
    return t if t in typedefs and f is None else None


def expand(body: S.Sequence, types: Mapping[str, str], typedefs: Mapping[str, S.Typedef],
           const: Callable[[object], int], arrays: frozenset[str], error: Callable,
           messages: Mapping[str, tuple[str, ...]] = {}) -> S.Sequence:
    """``body`` with records in sends, receives and polls spelled out, and each ``for (x in
    name)`` made the loop Spin makes of it.  ``types`` maps each name in scope to its declared
    type (``chan`` for channels), ``arrays`` the names declared as arrays (``for (i in a)``
    over an array of channels runs over its indices), ``messages`` the field types of each
    channel declared with ``[n] of { ... }``; ``error(message, pos)`` makes an
    ``InputError``.  A loop over a channel counts with a fresh ``byte`` local
    declared first in the body (Spin's ``_f0r_t3mp`` variables, part of its state vector)."""
    counters: list[S.VarDecl] = []

    def spelled(ref: S.VarRef) -> tuple[S.VarRef, ...]:
        t = record_type(ref, types, typedefs)
        return (ref,) if t is None else tuple(extend(ref, p) for p, _ in leaves(typedefs, t, const))

    def recv_args(args) -> tuple:
        out = []
        for a in args:
            if a.kind == "var" and a.ref is not None and record_type(a.ref, types, typedefs) is not None:
                out.extend(S.RecvArg("var", r, None, a.pos) for r in spelled(a.ref))
            else:
                out.append(a)
        return tuple(out)

    def walk(node):
        if isinstance(node, S.ForIn):
            # Spin 6.5.2: a record variable runs over a channel's messages, any other over
            # an array's indices ("bad arrayname c" for a channel)
            channel = node.array.field is None and types.get(node.array.name) == "chan" and (
                node.array.index is not None or node.array.name not in arrays)
            if record_type(node.var, types, typedefs) is None:
                if channel:
                    raise error(f"bad arrayname {node.array.name}: for (x in channel) needs a record "
                                f"(typedef) variable x, as in Spin", node.array.pos)
            elif not channel:
                raise error(f"for ({node.var.name} in {node.array.name}): {node.var.name} is a record, so "
                            f"{node.array.name} must name one channel, as in Spin", node.array.pos)
            elif node.array.name in messages and messages[node.array.name] != (
                    record_type(node.var, types, typedefs),):
                raise error(f"bad channel type {node.array.name} in for: its messages must be one "
                            f"{record_type(node.var, types, typedefs)}, as Spin requires", node.array.pos)
            if channel:
                counter = S.VarRef(f"_for{len(counters)}", None, None, node.pos)
                counters.append(S.VarDecl("byte", counter.name, None, None, None, False, node.pos))
                node = S.for_channel(node, counter, spelled(node.var))
            else:
                node = S.for_array(node)
        if isinstance(node, S.Send):
            node = dataclasses.replace(node, args=tuple(x for a in node.args for x in (
                spelled(a) if isinstance(a, S.VarRef) else (a,))))
        elif isinstance(node, (S.Recv, S.Poll)):
            node = dataclasses.replace(node, args=recv_args(node.args))
        if dataclasses.is_dataclass(node) and not isinstance(node, (S.Span, type)):
            return dataclasses.replace(node, **{f.name: walk(getattr(node, f.name)) for f in dataclasses.fields(node)})
        if isinstance(node, tuple):
            return tuple(walk(x) for x in node)
        return node

    out = walk(body)
    if counters:
        out = dataclasses.replace(out, stmts=(S.Decl(tuple(counters), body.pos),) + out.stmts)
    return out


def scope_types(global_decls, body: S.Sequence, params) -> tuple[dict[str, str], frozenset[str],
                                                                   dict[str, tuple[str, ...]]]:
    """Each name a process body sees with its declared type, those declared as arrays, and
    the message types of those declared as channels: globals, then its parameters and
    locals (Spin's locals have the whole proctype as scope)."""
    types = {d.name: d.type for d in global_decls}
    messages = {d.name: tuple(d.init.types) for d in global_decls if isinstance(d.init, S.ChanInit)}
    arrays = {d.name for d in global_decls if d.size is not None}
    types.update({p.name: p.type for p in params})
    arrays.difference_update(p.name for p in params)

    def walk(node):
        if isinstance(node, S.VarDecl):
            types[node.name] = node.type
            messages.pop(node.name, None)
            if isinstance(node.init, S.ChanInit):
                messages[node.name] = tuple(node.init.types)
            if node.size is not None:
                arrays.add(node.name)
            else:
                arrays.discard(node.name)
        elif dataclasses.is_dataclass(node) and not isinstance(node, (S.Span, type)):
            for f in dataclasses.fields(node):
                walk(getattr(node, f.name))
        elif isinstance(node, tuple):
            for x in node:
                walk(x)

    walk(body)
    for p in params:
        messages.pop(p.name, None)
    return types, frozenset(arrays), messages
