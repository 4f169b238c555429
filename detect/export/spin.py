"""``symdetect spin``: a Spin verifier that stores each state in canonical form under the
detected group (TopSPIN's ``sympan`` idea, for Spin 6.5).

Each of our state slots that pan's state vector ``now`` has is a *field*: a global
(``now.flag[2]``), a member of a process block (``((P0 *)(v + proc_offset[pid]))->k``; our
``pc`` is pan's ``_p``) or of a queue (``Qlen``, ``contents[i].fld<j>`` at ``q_offset``).  A
detected generator permutes our literal points ``(slot, value)``; on the fields it is a
permutation with a value renaming per field (pid values, channel identities, data
symmetries), which moves process blocks of one proctype onto each other (pids permuted),
queues onto queues of the same shape (channels permuted) and globals among globals.  What
pan keeps that we have no slot for stays where it is: ``_pid``, ``_t``, a queue's type, and
the constants our front end folded (a process's channel parameters, constant locals) -- each
is the same at a position in every reachable state, so the image has the position's value.

Canonical form (``--strategy exact``): the least image, field by field, over every element
of the group (enumerated from the detected generators, at most ``ELEMENT_LIMIT``); the
fast path sorts whole process blocks when the group is the symmetric group on the processes
of one proctype and renames no value (``sort``).  Either way the stored vector is the image
of the real state under a group element, so two states are merged only if the group maps
one onto the other (soundness rests on the generators alone); exactness (one state per
orbit) is checked by the tests: Spin's "states, stored" from ``sympan`` equals
``reduced_spin_stored``, the orbits of the states plain pan stores.  The search itself runs
on the real states, so trails replay in Spin.
"""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from detect.ir import SequentialModel, state_slots

GCC = "gcc -O2 -DSAFETY -DNOREDUCE -o sympan sympan.c"
GCC_POR = "gcc -O2 -DSAFETY -o sympan sympan.c"
#: with a claim: acceptance cycles (``-a``), partial-order reduction on
GCC_CLAIM = "gcc -O2 -o sympan sympan.c"
RUN = "./sympan -m100000"
#: at most this many group elements are applied to each stored state
ELEMENT_LIMIT = 50_000
STRATEGIES = ("exact", "enumerate", "sort")


class SpinExportError(Exception):
    """The model is outside the supported case, or Spin failed: ``str`` is one line."""


@dataclass(frozen=True)
class Field:
    """Our slot ``slot`` in pan's vector: ``member`` of the global ``State`` (``pid`` and
    ``qid`` None), of process ``pid``'s block (proctype ``proctype``) or of queue ``qid``."""

    slot: int
    member: str
    pid: Optional[int] = None
    proctype: Optional[str] = None
    qid: Optional[int] = None


@dataclass(frozen=True)
class SpinSymmetry:
    """The group on pan's fields.  ``elements[e]`` in gather form: image field ``f`` is
    ``maps[m](x[src])`` for ``(src, m) = elements[e][f]`` (map 0 is the identity; map ``m``
    is ``(lo, table)``: ``table[v - lo]`` for ``lo <= v < lo + len(table)``, else ``v``).
    ``blocks`` (sorting fast path): the pids whose whole blocks the group permutes as S_n."""

    order: int
    fields: tuple[Field, ...]
    elements: tuple[tuple[tuple[int, int], ...], ...]
    maps: tuple[tuple[int, tuple[int, ...]], ...]
    pids: tuple[int, ...]
    proctypes: tuple[str, ...]
    channels: int
    blocks: Optional[tuple[str, tuple[int, ...]]] = None
    #: per field, its value in our initial state (None: a program counter, numbered
    #: differently in pan): sympan checks pan's initial state against it
    initial: tuple[Optional[int], ...] = ()
    #: pairs of distinct proctypes whose processes the group maps onto each other
    twins: tuple[tuple[str, str], ...] = ()
    #: segmented canonical form (``_segments``): (pids, per pid its key fields, element
    #: index by the Lehmer rank of its permutation of those pids), or None
    segments: Optional[tuple[tuple[int, ...], tuple[tuple[int, ...], ...], tuple[int, ...]]] = None
    #: the claim pan runs with (pan's ``procname`` of it: an ``ltl`` block's name or
    #: ``:never:``), whose propositions the group fixes; None: no claim
    claim: Optional[str] = None

    def describe(self) -> str:
        moved = f"pids {', '.join(map(str, self.pids))} ({', '.join(self.proctypes)})" if self.pids else "no process"
        chans = f", {self.channels} channels" if self.channels else ""
        return f"group of order {self.order:,} on pan's vector: {moved}{chans}"


_FORBIDDEN = [
    (re.compile(r"\b_last\b"), "it reads _last"),
    (re.compile(r"\b(c_code|c_expr|c_state|c_track|c_decl)\b"), "it has embedded C code"),
]


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


def check_source(source_text: str) -> None:
    """``SpinExportError`` if the Promela text has a construct the export excludes (cheap:
    run before detection)."""
    text = _strip_comments(source_text)
    for pattern, why in _FORBIDDEN:
        if pattern.search(text):
            raise SpinExportError(f"not supported yet: {why}")


def _claim_slots(model: SequentialModel) -> set[int]:
    """The slots of the never claim (its process's variables and the product's bookkeeping,
    ``claim.HIDDEN``): pan keeps the claim in process 0's block, which no element may move."""
    from frontends.promela.claim import HIDDEN

    claims = {p.name for p in model.processes if p.pid is None and p.family == "never"}
    return {k for k, sl in enumerate(state_slots(model))
            if sl.variable in HIDDEN or model.variable(sl.variable).owner in claims}


def _fields(model: SequentialModel) -> tuple[list[Optional[Field]], set[int]]:
    """Per slot its pan field (None for the hidden ones and the claim's), and those slots."""
    slots = state_slots(model)
    hidden_vars = set(model.annotation("spin_hidden", ()))
    channels = dict(model.annotation("spin_channels", ()))
    by_name = {p.name: p for p in model.processes}
    claim = _claim_slots(model)
    out: list[Optional[Field]] = []
    hidden: set[int] = set()
    for k, sl in enumerate(slots):
        var = model.variable(sl.variable)
        if sl.variable in hidden_vars or k in claim:
            out.append(None)
            hidden.add(k)
            continue
        index = f"[{sl.index}]" if var.size is not None else ""
        prefix, dot, rest = sl.variable.rpartition(".")
        if dot and prefix in channels:
            qid = channels[prefix] - 1
            if rest == "len":
                out.append(Field(k, "Qlen", qid=qid))
            elif re.fullmatch(r"f\d+", rest):
                out.append(Field(k, f"contents[{sl.index}].fld{rest[1:]}", qid=qid))
            else:
                raise SpinExportError(f"not supported yet: the channel slot {sl.label}")
            continue
        # a structure's field (``board.c``, flattened row-major) is ``@path#index``, resolved
        # against pan.h's declarations (``_resolve``)
        if var.owner is not None:
            proc = by_name[var.owner]
            local = sl.variable.split(".", 1)[1] if "." in sl.variable else ""
            if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", local) or proc.pid is None:
                raise SpinExportError(f"not supported yet: the process variable {sl.label}")
            member = "_p" if local == "pc" else local + index if "." not in local else f"@{local}#{sl.index}"
            proctype = ":init:" if proc.family == "init" else proc.family
            out.append(Field(k, member, pid=proc.pid, proctype=proctype))
            continue
        if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", sl.variable):
            raise SpinExportError(f"not supported yet: the global {sl.label} (a channel whose number is not "
                                  "fixed or a claim variable)")
        out.append(Field(k, sl.variable + index if "." not in sl.variable else f"@{sl.variable}#{sl.index}"))
    return out, hidden


def _slot_action(g: Sequence[int], pts, nslots: int) -> tuple[list[int], list[dict[int, int]]]:
    """The slot permutation and value renaming of the point permutation ``g``."""
    target = [-1] * nslots
    values: list[dict[int, int]] = [dict() for _ in range(nslots)]
    for p, (k, v) in enumerate(pts.pairs):
        k2, v2 = pts.pairs[g[p]]
        if target[k] not in (-1, k2):
            raise SpinExportError("not supported yet: a generator splits a variable's values over several "
                                  "variables")
        target[k] = k2
        values[k][v] = v2
    return target, values


def spin_symmetry(model: SequentialModel, group, source_text: str = "", strategy: str = "exact",
                  element_limit: int = ELEMENT_LIMIT) -> SpinSymmetry:
    """The detected group (its acting generators only) on pan's vector, or ``SpinExportError``
    saying why the model is outside what the export supports.

    Why one function: each generator is checked field by field (processes, queues, globals)
    in one pass that also collects the pids and channels moved, then the elements are
    enumerated on the fields those checks validated."""
    from detect.ir.points import LiteralPoints
    from detect.symmetry.permgroup import permutation_group

    if strategy not in STRATEGIES:
        raise SpinExportError(f"unknown strategy '{strategy}'; choose one of {', '.join(STRATEGIES)}")
    check_source(source_text)
    if group.order == 1:
        raise SpinExportError("no symmetry detected (group order 1): nothing to reduce")
    slots = state_slots(model)
    fields, hidden = _fields(model)
    claim = _claim_slots(model)
    pts = LiteralPoints.of(model)
    gens = [tuple(g) for g in group.acting_points]
    # The group was detected on the product with the claim (its propositions' stabiliser):
    # each element must fix the claim's state, which stays out of the permutation.
    for g in gens:
        if any(pts.pairs[g[p]] != (k, v) for p, (k, v) in enumerate(pts.pairs) if k in claim):
            raise SpinExportError("not supported: a generator moves the never claim's state")
    proctype_of = {f.pid: f.proctype for f in fields if f is not None and f.pid is not None}
    moved_pids: set[int] = set()
    moved_chans: set[int] = set()
    twins: set[tuple[str, str]] = set()
    for g in gens:
        target, values = _slot_action(g, pts, len(slots))
        target = [k if len(slots[k].domain) == 1 else t for k, t in enumerate(target)]
        pid_map: dict[int, int] = {}
        chan_map: dict[int, int] = {}
        for k, t in enumerate(target):
            if (k in hidden) != (t in hidden):
                raise SpinExportError("not supported yet: a generator moves a variable pan does not store")
            if k in hidden or len(slots[k].domain) == 1:
                continue
            a, b = fields[k], fields[t]
            kind_a = "p" if a.pid is not None else "q" if a.qid is not None else "g"
            kind_b = "p" if b.pid is not None else "q" if b.qid is not None else "g"
            if kind_a != kind_b or (kind_a != "g" and a.member != b.member):
                raise SpinExportError(f"not supported yet: a generator maps {slots[k].label} to {slots[t].label}")
            if kind_a == "p":
                # Fields of a process may stay while its program counter moves (Book_1991/p319:
                # stations rotate, each keeping its parameter ``id``, the data it indexes rotating
                # with them): an element is a permutation of fields either way.  The processes
                # moved are those whose program counters move; those must be a permutation.
                if a.member == "_p" and pid_map.setdefault(a.pid, b.pid) != b.pid:
                    raise SpinExportError("not supported yet: a generator does not move whole processes onto "
                                          "each other")
                if a.proctype != b.proctype:
                    # BEEM's style: one proctype per process; pan's must then be alike (``_twins_alike``)
                    twins.add(tuple(sorted((a.proctype, b.proctype))))
                if a.member == "_p" and any(v != w for v, w in values[k].items()):
                    raise SpinExportError("not supported yet: a generator renames program counters")
            if kind_a == "q" and chan_map.setdefault(a.qid, b.qid) != b.qid:
                raise SpinExportError("not supported yet: a generator does not move whole channels")
        if sorted(pid_map.values()) != sorted(pid_map) or sorted(chan_map.values()) != sorted(chan_map):
            raise SpinExportError("not supported yet: a generator moves part of a process or channel")
        moved_pids |= {p for p, q in pid_map.items() if p != q}
        moved_chans |= {c for c, d in chan_map.items() if c != d}
    sym = permutation_group(gens, len(pts.pairs))
    order = sym.order()
    blocks = _sorted_blocks(model, group, fields, moved_pids, moved_chans) if strategy in ("exact", "sort") else None
    if strategy == "sort" and blocks is None:
        raise SpinExportError("--strategy sort needs the symmetric group on whole processes of one proctype, "
                              "renaming no value; use --strategy exact")
    # A slot of one value is a constant: it stays where it is, as pan's other constants.
    kept = [k for k in range(len(slots)) if k not in hidden and len(slots[k].domain) > 1]
    position = {k: f for f, k in enumerate(kept)}
    maps: dict[tuple[int, tuple[int, ...]], int] = {(0, ()): 0}
    elements = []
    if blocks is None:
        if order > element_limit:
            raise SpinExportError(f"the group has {order:,} elements (more than {element_limit:,} to apply to "
                                  "every state); not supported yet")
        for g in sym.elements():
            target, values = _slot_action(g, pts, len(slots))
            image = [(0, 0)] * len(kept)
            for k in kept:
                renamed = {v: w for v, w in values[k].items() if v != w}
                m = 0
                if renamed:
                    lo, hi = min(renamed), max(renamed)
                    table = tuple(renamed.get(v, v) for v in range(lo, hi + 1))
                    m = maps.setdefault((lo, table), len(maps))
                image[position[target[k]]] = (position[k], m)
            elements.append(tuple(image))
    segments = _segments(elements, [fields[k] for k in kept]) if strategy == "exact" and elements else None
    by_id = sorted(maps.items(), key=lambda kv: kv[1])
    from detect.ir.semantics import initial_states

    starts = list(initial_states(model))
    first = starts[0] if len(starts) == 1 else None
    initial = tuple(None if first is None or fields[k].member == "_p" else first[k] for k in kept)
    annotations = dict(model.annotations)
    claim_name = (annotations.get("ltl") or ":never:") if claim else None
    return SpinSymmetry(
        group.order, tuple(fields[k] for k in kept), tuple(elements), tuple(m for m, _ in by_id),
        tuple(sorted(moved_pids)), tuple(sorted({proctype_of[p] for p in moved_pids})), len(moved_chans),
        blocks, initial, tuple(sorted(twins)), segments, claim_name)


#: the name the first version exported
process_symmetry = spin_symmetry


def _lehmer(perm: Sequence[int]) -> int:
    """The rank of a permutation of 0..n-1 among all n! (Lehmer code)."""
    n, rank = len(perm), 0
    for i in range(n):
        rank = rank * (n - i) + sum(1 for j in range(i + 1, n) if perm[j] < perm[i])
    return rank


def _segments(elements, fields: Sequence[Field]):
    """TopSPIN's segmented strategy, where it is exact: the group is the symmetric group on
    the pids it moves, an element per permutation.  A pid's *key* is its block's fields that
    no element renames, in member order: an element moving pid p to q carries p's key to q,
    so the images of a state whose keys are sorted along the pids are those by the
    permutations that sort the state's keys -- the least of them is a canonical form, found
    by trying only the permutations within runs of equal keys.  None where it does not apply."""
    moved = sorted({f.pid for e in elements for t, (k, _) in enumerate(e)
                    if fields[t].pid is not None and fields[t].pid != fields[k].pid for f in (fields[t],)})
    n = len(moved)
    if n < 2 or len(elements) != math.factorial(n) or n > 8:
        return None
    place = {p: i for i, p in enumerate(moved)}
    by_rank = [-1] * len(elements)
    for e, image in enumerate(elements):
        perm = [-1] * n
        for t, (k, _) in enumerate(image):
            a, b = fields[k], fields[t]
            if a.pid in place and a.member == "_p":
                perm[place[a.pid]] = place.get(b.pid, -1)
        if sorted(perm) != list(range(n)):
            return None
        r = _lehmer(perm)
        if by_rank[r] != -1:
            return None
        by_rank[r] = e
    # key members: block fields of the moved pids that no element renames, and that every
    # element carries with the program counter (a field left in place is no key)
    renamed = {fields[t].member for image in elements for t, (k, m) in enumerate(image)
               if m and fields[t].pid in place}
    for image in elements:
        moves = {fields[k].pid: fields[t].pid for t, (k, _) in enumerate(image)
                 if fields[k].member == "_p" and fields[k].pid in place}
        for t, (k, _) in enumerate(image):
            a, b = fields[k], fields[t]
            if a.pid in place and moves.get(a.pid) != b.pid:
                renamed.add(a.member)
    keys = []
    for p in moved:
        mine = sorted((f.member, i) for i, f in enumerate(fields) if f.pid == p and f.member not in renamed)
        keys.append(tuple(i for _, i in mine))
    if len({tuple(fields[i].member for i in k) for k in keys}) != 1 or not keys[0]:
        return None
    return tuple(moved), tuple(keys), tuple(by_rank)


def _sorted_blocks(model, group, fields, moved_pids, moved_chans) -> Optional[tuple[str, tuple[int, ...]]]:
    """``(proctype, pids)`` when the group is Sym(pids) moving whole blocks of one proctype,
    with no value renamed and nothing else moved (sorting is then exact), else None."""
    from detect.checking.reduce import slot_order
    from detect.checking.scalarset import aligned_blocks, slot_maps
    from detect.ir.points import LiteralPoints
    from detect.symmetry.permgroup import permutation_group

    if moved_chans or not moved_pids:
        return None
    pts = LiteralPoints.of(model)
    gens = [tuple(g) for g in group.acting_points]
    for g in gens:
        if any(pts.pairs[g[p]][1] != v and fields[k] is not None for p, (k, v) in enumerate(pts.pairs)):
            return None
    maps = slot_maps(gens, pts)
    sym = permutation_group(gens, len(pts.pairs))
    blocks = aligned_blocks(maps, slot_order(sym, pts)) if maps is not None else None
    if blocks is None or sym.order() != math.factorial(len(blocks)):
        return None
    if len({fields[k].proctype for b in blocks for k in b if fields[k] is not None}) != 1:
        return None
    pids = []
    for b in blocks:
        owners = {fields[k].pid if fields[k] is not None else None for k in b}
        if len(owners) != 1 or None in owners:
            return None
        pids.append(owners.pop())
    every = {f.pid for f in fields if f is not None and f.pid in pids}
    if set(pids) != moved_pids or len(every) != len(pids):
        return None
    # the blocks must be whole processes: every field of those pids is in a block
    in_blocks = {k for b in blocks for k in b}
    if any(f is not None and f.pid in moved_pids and f.slot not in in_blocks for f in fields):
        return None
    proctypes = {f.proctype for f in fields if f is not None and f.pid in moved_pids}
    if len(proctypes) != 1:
        return None
    return proctypes.pop(), tuple(sorted(pids))


def reduced_spin_stored(model: SequentialModel, group, max_states: int = 1_000_000) -> int:
    """Spin's "states, stored" with states stored up to the group: the orbits of the states
    Spin stores (``spin_counts``: our reachable states where Spin stores, projected on the
    slots pan has).  The least image puts the hidden slots last, so its projection is the
    least image of the projection (our stabiliser-chain canonicaliser, not the C one)."""
    from detect.checking.spin_counts import spin_stored_slots
    from detect.statespace.explore import reachable_graph

    graph = reachable_graph(model, max_states)
    if len(graph.states) >= max_states:
        raise SpinExportError(f"more than {max_states:,} states")
    return len(spin_stored_slots(model, graph.states, group))


_MEMBER = re.compile(r"^\s*(?:struct (\w+)|[a-z][\w ]*?) (\w+)(?:\[(\d+)\])?(?: : \d+)?;", re.M)


def _members(body: str) -> dict[str, tuple[Optional[str], int]]:
    """``name -> (structure type or None, array length or 0)`` of a C struct body."""
    return {m.group(2): (m.group(1), int(m.group(3)) if m.group(3) else 0) for m in _MEMBER.finditer(body)}


def _bodies(pan_h: str) -> dict[str, str]:
    """The bodies of pan.h's structures: ``struct T {...}`` by T, ``typedef struct X {...} X`` by X."""
    out = {}
    for m in re.finditer(r"(?:typedef )?struct (\w+) \{(.*?)\n\}", pan_h, flags=re.S):
        out.setdefault(m.group(1), m.group(2))
    return out


def _resolve(member: str, container: str, bodies: dict[str, str]) -> str:
    """``@a.b.c#n`` inside structure ``container``: the C path of element ``n`` of the
    row-major flattening of every array on the way (``a[i].b[j].c[k]``)."""
    if not member.startswith("@"):
        return member
    path, n = member[1:].split("#")
    index = int(n)
    dims: list[tuple[str, int]] = []
    struct = container
    for name in path.split("."):
        found = _members(bodies.get(struct, "")).get(name)
        if found is None:
            raise SpinExportError(f"pan.h: no member {name} in structure {struct}")
        struct, length = found
        dims.append((name, length))
        struct = struct or ""
    parts = []
    for name, length in reversed(dims):
        if length:
            parts.append(f"{name}[{index % length}]")
            index //= length
        else:
            parts.append(name)
    if index:
        raise SpinExportError(f"pan.h: element {n} of {path} is out of its arrays")
    return ".".join(reversed(parts))


def _struct_names(pan_h: str) -> dict[str, str]:
    return {name: struct for struct, name in re.findall(r"typedef struct (P\d+) \{ /\* (\S+) \*/", pan_h)}


def _queue_types(pan_c: str, pan_h: str) -> list[tuple[int, int, int]]:
    """``(type, fields, slots)`` of every queue type pan.c's ``addqueue`` knows."""
    found = [(int(t), int(f), int(m)) for t, f, m in
             re.findall(r"case (\d+): j = sizeof\(Q\d+\); q_flds\[\d+\] = (\d+); q_max\[\d+\] = (\d+);", pan_c)]
    for t, _, _ in found:
        m = re.search(r"typedef struct Q%d \{\s*(\w+(?: \w+)?) Qlen;" % t, pan_h)
        if m is None or m.group(1) != "uchar":
            raise SpinExportError(f"pan.h: queue type Q{t} has no uchar Qlen (a channel of more than 255 slots?)")
    return found


def _field_code(sym: SpinSymmetry, structs: dict[str, str], queues: list[tuple[int, int, int]],
                bodies: dict[str, str]) -> tuple[str, str]:
    """The bodies of ``sym_get(v, f)`` and ``sym_set(v, f, x)``: one case per field."""
    gets, sets = [], []
    for f, fd in enumerate(sym.fields):
        if fd.member.startswith("@"):
            container = structs.get(fd.proctype, "") if fd.pid is not None else "State"
            fd = Field(fd.slot, _resolve(fd.member, container, bodies), fd.pid, fd.proctype, fd.qid)
        if fd.qid is not None:
            q = f"(v + q_offset[{fd.qid}])"
            cond = f"{fd.qid} < (int) ((State *) v)->_nr_qs"
            m = re.fullmatch(r"contents\[(\d+)\]\.fld(\d+)", fd.member)
            fit = [t for t, nf, slots in queues if m is None or (int(m.group(2)) < nf and int(m.group(1)) < max(1, slots))]
            get = " ".join(f"case {t}: return ((Q{t} *) {q})->{fd.member};" for t in fit)
            put = " ".join(f"case {t}: ((Q{t} *) {q})->{fd.member} = x; break;" for t in fit)
            tag = f"((Q{queues[0][0]} *) {q})->_t" if queues else "0"
            gets.append(f"\tcase {f}: if (!({cond})) return 0; switch ({tag}) {{ {get} }} return 0;")
            sets.append(f"\tcase {f}: if (!({cond})) return; switch ({tag}) {{ {put} }} return;")
        elif fd.pid is not None:
            struct = structs.get(fd.proctype)
            if struct is None:
                raise SpinExportError(f"pan.h has no process structure for proctype {fd.proctype}")
            # with a claim, pan's process 0 is the claim (BASE 1): model pid p is pan's p + BASE
            cond = f"{fd.pid} + BASE < (int) ((State *) v)->_nr_pr"
            lv = f"(({struct} *) (v + proc_offset[{fd.pid} + BASE]))->{fd.member}"
            gets.append(f"\tcase {f}: return ({cond}) ? (int) {lv} : 0;")
            sets.append(f"\tcase {f}: if ({cond}) {lv} = x; return;")
        else:
            lv = f"((State *) v)->{fd.member}"
            gets.append(f"\tcase {f}: return (int) {lv};")
            sets.append(f"\tcase {f}: {lv} = x; return;")
    return "\n".join(gets), "\n".join(sets)


def _rows(rows: Sequence[Sequence[int]], width: int = 24) -> str:
    lines = []
    for row in rows:
        cells = [str(x) for x in row] or ["0"]
        lines.append("{" + ",".join(cells) + "}")
    return ",\n".join(lines)


#: pan's calls that store ``now`` (hash table, bitstate, minimised automaton) and our wrappers,
#: which store its canonical form instead (``_COMMON``)
_STORES = [("h_store((char *)&now, vsize)", "sym_h_store(vsize)"),
           ("b_store((char *)&now, vsize)", "sym_b_store(vsize)"),
           ("g_store((char *)&now, vsize, 0)", "sym_g_store(vsize, 0)")]
#: the nested search's test that it is back at its seed (pan.c of Spin 6.5)
_SEED = ("if (!memcmp((char *)&A_Root + delta, \n\t\t\t\t(char *)&now + delta, vsize - delta))",
         "if (sym_seed_match(delta))")
#: pan's stack table under BITSTATE (FULLSTACK's ``onstack_now``/``onstack_zap``): its keys are
#: computed from these, made canonical as the table's entries (``onstack_put`` stores through
#: ``h_store``, wrapped)
_STACK_KEYS = [("compress((char *)&now, vsize)", "compress(sym_canon_copy(), vsize)"),
               ("compact_stack((char *)&now, vsize)", "compact_stack(sym_canon_copy(), vsize)"),
               ("nv = (char *) &now;", "nv = sym_canon_copy();"),
               ("v = (char *) &now;", "v = sym_canon_copy();")]
_UNSUPPORTED = ("#if defined(BFS_PAR) || defined(BFS) || defined(TRIX)\n"
                "#error \"symdetect sympan: build without BFS/BFS_PAR/TRIX (not supported yet)\"\n#endif\n")


def _common_code(claim: Optional[str]) -> str:
    """C shared by every strategy: the store wrappers (``now`` is swapped for its canonical form
    around pan's own store, so every store -- hash table, COLLAPSE, HC, BITSTATE, the multi-core
    ones -- sees the canonical vector) and the nested search's seed test."""
    check = ""
    if claim is not None:
        name = claim.replace("\\", "\\\\").replace('"', '\\"')
        check = f"""
#if defined(VERI) && NCLAIMS>1
	/* the group fixes this claim's propositions only: another claim (-N) needs its own sympan */
	if (strcmp(procname[((Pclaim *) pptr(0))->_t], "{name}") != 0)
	{{	printf("symdetect: this sympan reduces by the symmetries of claim {name}; pan runs claim %s "
		       "(run ./sympan -a -N {name}, or write one for that claim with symdetect spin --ltl)\\n",
		       procname[((Pclaim *) pptr(0))->_t]);
		Uerror("symdetect: another claim than the one analysed");
	}}
#endif"""
    return f"""
static char sym_real[VECTORSZ], sym_buf[VECTORSZ], sym_root[VECTORSZ], sym_rootc[VECTORSZ];
static int sym_started;

/* once, on pan's first stored state (its initial one): what this sympan assumes of the run */
static void
sym_start(void)
{{	if (sym_started) return;
	sym_started = 1;
	if (fairness)
	{{	/* pan's weak fairness counts processes by pid: permuting them is not sound (Bosnacki,
		   SPIN 2003, needs another algorithm) */
		printf("symdetect: weak fairness (-f) is not supported with symmetry reduction\\n");
		Uerror("symdetect: -f with symmetry reduction");
	}}{check}
#if NCORE>1
	if (core_id != 0) return; /* the others start from states handed over */
#endif
	sym_check((char *) &now);
}}

/* now becomes its canonical form; the real state is kept in sym_real */
static void
sym_in(void)
{{	sym_start();
	memcpy(sym_real, (char *) &now, vsize);
	sym_canon_into((char *) &now);
}}

static void
sym_out(void)
{{	memcpy((char *) &now, sym_real, vsize);
}}

/* a copy of now in canonical form (the stack table's keys under BITSTATE) */
static char *
sym_canon_copy(void)
{{	memcpy(sym_buf, (char *) &now, vsize);
	sym_canon_into(sym_buf);
	return sym_buf;
}}

#ifndef SAFETY
/* the nested search is back at its seed when now is in the seed's orbit (pan compares the
   vectors themselves; with states stored up to the group the second search may reach
   another member of the orbit first, which closes a cycle of the quotient: Bosnacki, Dams
   and Holenderski, Symmetric Spin, STTT 4(1) 2002; an accepting cycle of the quotient is
   one of the model when the claim is fixed by the group, Emerson and Sistla 1996) */
static int
sym_seed_match(int delta)
{{	if (A_Root._nr_pr != now._nr_pr || A_Root._nr_qs != now._nr_qs)
		return 0;
	if (memcmp(sym_root, (char *) &A_Root, vsize) != 0)
	{{	memcpy(sym_root, (char *) &A_Root, vsize);
		memcpy(sym_rootc, (char *) &A_Root, vsize);
		sym_canon_into(sym_rootc);
	}}
	return !memcmp(sym_rootc + delta, sym_canon_copy() + delta, vsize - delta);
}}
#endif
"""


def _sorting_code(struct: str, pids: Sequence[int]) -> str:
    n = len(pids)
    return f"""
static int sym_pids[{n}] = {{{", ".join(map(str, pids))}}};
static char sym_block[{n}][sizeof({struct})];
static int sym_cmp(const void *a, const void *b) {{ return memcmp(a, b, sizeof({struct})); }}
static void sym_check(char *v) {{ (void) v; }}
/* v (a state with pan's current offsets) becomes its canonical form: the blocks sorted */
static void
sym_canon_into(char *v)
{{	int i, m = 0; unsigned saved[{n}];
	for (i = 0; i < {n}; i++)
	{{	if (sym_pids[i] + BASE >= (int) ((State *) v)->_nr_pr) continue;
		saved[m] = (({struct} *) (v + proc_offset[sym_pids[i] + BASE]))->_pid;
		memcpy(sym_block[m], v + proc_offset[sym_pids[i] + BASE], sizeof({struct}));
		(({struct} *) sym_block[m])->_pid = 0;
		m++;
	}}
	if (m != {n}) return; /* not all created yet: stored as it is */
	qsort(sym_block, m, sizeof({struct}), sym_cmp);
	for (i = 0; i < m; i++)
	{{	memcpy(v + proc_offset[sym_pids[i] + BASE], sym_block[i], sizeof({struct}));
		(({struct} *) (v + proc_offset[sym_pids[i] + BASE]))->_pid = saved[i];
	}}
}}
"""


def _enumerating_code(sym: SpinSymmetry, structs: dict[str, str], queues, bodies: dict[str, str]) -> str:
    """C of the least image over the elements (or the segmented ones), with the field
    accessors and the check of pan's initial state.

    Why one function: one C template whose tables (elements, value maps, initial values)
    are filled from one ``SpinSymmetry``."""
    get, put = _field_code(sym, structs, queues, bodies)
    nf, ne = len(sym.fields), len(sym.elements)
    offsets, table, lo, length = [], [], [], []
    for m_lo, m_table in sym.maps:
        offsets.append(len(table))
        table.extend(m_table)
        lo.append(m_lo)
        length.append(len(m_table))
    if sym.segments is None:
        visit = "\tfor (e = 0; e < SYM_E; e++) sym_try(e);"
        segmented = ""
    else:
        visit = "\t(void) e; (void) y;\n\tsym_segmented();"
        segmented = _segmented_code(sym.segments)
    known_at = [f for f, fd in enumerate(sym.fields) if f < len(sym.initial) and sym.initial[f] is not None
                and (fd.pid is None or fd.pid == 0) and fd.qid is None]
    init = ", ".join(str(sym.initial[f] if f in known_at else 0) for f in range(nf))
    known = ", ".join("1" if f in known_at else "0" for f in range(nf))
    src = _rows([[s for s, _ in e] for e in sym.elements])
    mid = _rows([[m for _, m in e] for e in sym.elements])
    return f"""
#define SYM_F {nf}
#define SYM_E {ne}
static const unsigned short sym_src[SYM_E][SYM_F] = {{
{src}
}};
static const unsigned short sym_map[SYM_E][SYM_F] = {{
{mid}
}};
static const int sym_lo[{len(lo)}] = {{{", ".join(map(str, lo))}}};
static const int sym_len[{len(lo)}] = {{{", ".join(map(str, length))}}};
static const int sym_off[{len(lo)}] = {{{", ".join(map(str, offsets))}}};
static const int sym_tab[{max(1, len(table))}] = {{{", ".join(map(str, table or [0]))}}};
static int sym_x[SYM_F], sym_best[SYM_F];
static int sym_vm(int m, int x);

/* sym_best becomes element e's image of sym_x when that is less */
static void
sym_try(int e)
{{	int f, y;
	for (f = 0; f < SYM_F; f++)
	{{	y = sym_vm(sym_map[e][f], sym_x[sym_src[e][f]]);
		if (y == sym_best[f]) continue;
		if (y < sym_best[f])
		{{	sym_best[f] = y;
			for (f++; f < SYM_F; f++)
				sym_best[f] = sym_vm(sym_map[e][f], sym_x[sym_src[e][f]]);
		}}
		return;
	}}
}}
{segmented}

static int
sym_get(char *v, int f)
{{	switch (f) {{
{get}
	}}
	return 0;
}}

static void
sym_set(char *v, int f, int x)
{{	switch (f) {{
{put}
	}}
}}

static int
sym_vm(int m, int x)
{{	int i;
	if (!m) return x;
	i = x - sym_lo[m];
	return (i >= 0 && i < sym_len[m]) ? sym_tab[sym_off[m] + i] : x;
}}

/* the least image of v over every element, field by field (elements[0] is the identity) */
static int sym_checked;
static const int sym_init[SYM_F] = {{{init}}};
static const char sym_known[SYM_F] = {{{known}}};

static void
sym_check(char *v)
{{	int f, x;
	if (sym_checked) return;
	/* the first state stored is pan's initial state: it must be ours (same model, same -D) */
	sym_checked = 1;
	for (f = 0; f < SYM_F; f++)
	{{	x = sym_get(v, f);
		if (sym_known[f] && x != sym_init[f])
		{{	printf("symdetect: field %d is %d in pan's initial state, %d in the model symdetect "
			       "analysed (another model or other -D values?)\\n", f, x, sym_init[f]);
			Uerror("symdetect: pan's model differs from the one analysed");
		}}
	}}
}}

static void
sym_canon_into(char *v)
{{	int e, f, y;
	for (f = 0; f < SYM_F; f++)
		sym_x[f] = sym_best[f] = sym_get(v, f);
{visit}
	for (f = 0; f < SYM_F; f++)
		sym_set(v, f, sym_best[f]);
}}
"""


_SETTR = re.compile(r'trans\[(\d+)\]\[(\d+)\]\s*=\s*settr\(\d+,(\d+),(\d+),\d+,\d+,"(?:[^"\\]|\\.)*", '
                    r'(\d+), (\d+), (\d+)\)|T->nxt\s*=\s*settr\(\d+,(\d+),(\d+),\d+,\d+,"(?:[^"\\]|\\.)*", '
                    r'(\d+), (\d+), (\d+)\)')


def _shapes(pan_t: str) -> dict[int, list[tuple]]:
    """Per proctype number, its transitions in pan.t without texts, ids and move cases:
    (state, atomic flags, target, guard kind, types) -- the same list means the same
    automaton, state numbers included."""
    out: dict[int, list[tuple]] = {}
    current = None
    for m in _SETTR.finditer(pan_t):
        if m.group(1) is not None:
            current = int(m.group(1))
            out.setdefault(current, []).append((int(m.group(2)),) + tuple(int(x) for x in m.group(3, 4, 5, 6, 7)))
        elif current is not None:
            out[current].append(("nxt",) + tuple(int(x) for x in m.group(8, 9, 10, 11, 12)))
    return out


def _twins_alike(sym: SpinSymmetry, pan_h: str, pan_t: str) -> None:
    """``SpinExportError`` unless every two proctypes the group identifies have one block
    layout and one automaton in pan (so moving a block moves its ``_p`` to the same place)."""
    if not sym.twins:
        return
    structs = _struct_names(pan_h)
    bodies = _bodies(pan_h)
    shapes = _shapes(pan_t)
    for a, b in sym.twins:
        sa, sb = structs.get(a), structs.get(b)
        if sa is None or sb is None:
            raise SpinExportError(f"pan.h has no process structure for proctype {a if sa is None else b}")
        la = re.sub(r"/\*.*?\*/", "", bodies.get(sa, ""))
        lb = re.sub(r"/\*.*?\*/", "", bodies.get(sb, ""))
        if la != lb or not shapes.get(int(sa[1:])) or shapes.get(int(sa[1:])) != shapes.get(int(sb[1:])):
            raise SpinExportError(f"not supported: the group maps processes of proctype {a} onto {b}, whose "
                                  "state blocks or automata differ in pan")


def _segmented_code(segments) -> str:
    """C of ``_segments``' strategy: sort the moved pids by key, try the permutations within
    runs of equal keys."""
    pids, keys, by_rank = segments
    n, k = len(pids), len(keys[0])
    return f"""
#define SYM_N {n}
#define SYM_K {k}
static const unsigned short sym_keyf[SYM_N][SYM_K] = {{
{_rows(keys)}
}};
static const int sym_byrank[{len(by_rank)}] = {{{", ".join(map(str, by_rank))}}};
static int sym_ord[SYM_N], sym_pi[SYM_N], sym_used[SYM_N], sym_slo[SYM_N], sym_shi[SYM_N];

static int
sym_keycmp(int a, int b)
{{	int j;
	for (j = 0; j < SYM_K; j++)
		if (sym_x[sym_keyf[a][j]] != sym_x[sym_keyf[b][j]])
			return sym_x[sym_keyf[a][j]] < sym_x[sym_keyf[b][j]] ? -1 : 1;
	return 0;
}}

static void
sym_place(int q)
{{	int j, i, r;
	if (q == SYM_N)
	{{	for (r = 0, i = 0; i < SYM_N; i++)
		{{	int less = 0;
			for (j = i + 1; j < SYM_N; j++) less += sym_pi[j] < sym_pi[i];
			r = r * (SYM_N - i) + less;
		}}
		sym_try(sym_byrank[r]);
		return;
	}}
	for (j = sym_slo[q]; j <= sym_shi[q]; j++)
	{{	i = sym_ord[j];
		if (sym_used[i]) continue;
		sym_used[i] = 1; sym_pi[i] = q;
		sym_place(q + 1);
		sym_used[i] = 0;
	}}
}}

/* the least image over the elements that sort the keys (position q takes a process whose
   key is the q-th least) */
static void
sym_segmented(void)
{{	int i, j, t;
	for (i = 0; i < SYM_N; i++) {{ sym_ord[i] = i; sym_used[i] = 0; }}
	for (i = 1; i < SYM_N; i++)
		for (j = i; j > 0 && sym_keycmp(sym_ord[j - 1], sym_ord[j]) > 0; j--)
		{{	t = sym_ord[j]; sym_ord[j] = sym_ord[j - 1]; sym_ord[j - 1] = t; }}
	for (i = 0; i < SYM_N; i = j)
	{{	for (j = i + 1; j < SYM_N && sym_keycmp(sym_ord[i], sym_ord[j]) == 0; j++) ;
		for (t = i; t < j; t++) {{ sym_slo[t] = i; sym_shi[t] = j - 1; }}
	}}
	/* the identity need not sort the keys: start from the first sorting element */
	for (i = 0; i < SYM_N; i++) sym_pi[sym_ord[i]] = i;
	{{	int r = 0, less;
		for (i = 0; i < SYM_N; i++)
		{{	less = 0;
			for (j = i + 1; j < SYM_N; j++) less += sym_pi[j] < sym_pi[i];
			r = r * (SYM_N - i) + less;
		}}
		for (i = 0; i < SYM_F; i++)
			sym_best[i] = sym_vm(sym_map[sym_byrank[r]][i], sym_x[sym_src[sym_byrank[r]][i]]);
	}}
	sym_place(0);
}}
"""


def _dead_fields(sym: SpinSymmetry, pan_h: str) -> set[int]:
    """The fields pan's vector lacks: variables Spin's dead-variable elimination removed
    (written, never read; ``spin -o2`` keeps them)."""
    bodies = _bodies(pan_h)
    structs = _struct_names(pan_h)
    dead = set()
    for f, fd in enumerate(sym.fields):
        if fd.qid is not None:
            continue
        body = bodies.get("State", "") if fd.pid is None else bodies.get(structs.get(fd.proctype, ""), "")
        name = re.match(r"@?(\w+)", fd.member).group(1)
        if name not in _members(body) and name != "_p":
            dead.add(f)
    return dead


def _without(sym: SpinSymmetry, dead: set[int]) -> SpinSymmetry:
    """``sym`` on the fields but ``dead``, which must be a union of orbits of fields (else
    ``SpinExportError``): a variable no step reads moves with no other, so dropping it
    leaves each element's action on the rest (the quotient of the projection)."""
    if not dead:
        return sym
    if any((k in dead) != (t in dead) for e in sym.elements for t, (k, _) in enumerate(e)):
        raise SpinExportError("not supported: the group maps a variable Spin removed as dead onto one it keeps "
                              "(run with --spin-option=-o2)")
    keep = [f for f in range(len(sym.fields)) if f not in dead]
    at = {f: i for i, f in enumerate(keep)}
    elements = tuple(tuple((at[e[f][0]], e[f][1]) for f in keep) for e in sym.elements)
    segments = sym.segments
    if segments is not None:
        pids, keys, by_rank = segments
        keys = tuple(tuple(at[k] for k in key if k in at) for key in keys)
        segments = (pids, keys, by_rank) if all(keys) else None
    initial = tuple(sym.initial[f] for f in keep) if sym.initial else ()
    return replace(sym, fields=tuple(sym.fields[f] for f in keep), elements=elements, initial=initial,
                   segments=segments)


def sympan_source(pan_c: str, pan_h: str, sym: SpinSymmetry, pan_t: str = "") -> str:
    """``pan.c`` with its state store canonicalising (module docstring)."""
    _twins_alike(sym, pan_h, pan_t)
    if sym.blocks is None:
        sym = _without(sym, _dead_fields(sym, pan_h))
    if not any(site in pan_c for site, _ in _STORES) or _SEED[0] not in pan_c:
        raise SpinExportError("pan.c has not the state stores of Spin 6.5 (another Spin version?)")
    for site, wrapped in _STORES:
        pan_c = pan_c.replace(site, wrapped)
    pan_c = pan_c.replace(*_SEED)
    # the stack table's lookups under BITSTATE (onstack_zap, onstack_now): canonical keys
    begin = pan_c.find("onstack_zap(void)\n{")
    finish = pan_c.find("return (m == 0);", begin)
    if begin >= 0 and finish >= 0:
        region = pan_c[begin:finish]
        for site, wrapped in _STACK_KEYS:
            region = region.replace(site, wrapped)
        pan_c = pan_c[:begin] + region + pan_c[finish:]
    structs = _struct_names(pan_h)
    if sym.blocks is not None:
        proctype, pids = sym.blocks
        if proctype not in structs:
            raise SpinExportError(f"pan.h has no process structure for proctype {proctype}")
        body = _sorting_code(structs[proctype], pids)
        how = f"sorting the blocks of pids {', '.join(map(str, pids))} ({proctype})"
    else:
        body = _enumerating_code(sym, structs, _queue_types(pan_c, pan_h), _bodies(pan_h))
        how = (f"least image over the elements that sort the keys of pids {', '.join(map(str, sym.segments[0]))}"
               if sym.segments else f"least image over the {len(sym.elements):,} elements")
    code = (f"\n/* symdetect: states are stored in canonical form under the detected {sym.describe()}:\n"
            f"   {how}. */\n" + _UNSUPPORTED + body + _common_code(sym.claim))
    # Declared after pan.h (``now``, the structures) and before the first store.
    head = '#include "pan.h"\n'
    if head not in pan_c:
        raise SpinExportError("pan.c does not include pan.h (another Spin version?)")
    # macros, so that a store pan does not have in this build (h_store under BITSTATE) is not named
    decls = ("static void sym_in(void);\nstatic void sym_out(void);\nstatic int sym_r;\n"
             "#define sym_h_store(n) (sym_in(), sym_r = h_store((char *) &now, (n)), sym_out(), sym_r)\n"
             "#define sym_b_store(n) (sym_in(), sym_r = b_store((char *) &now, (n)), sym_out(), sym_r)\n"
             "#define sym_g_store(n, p) (sym_in(), sym_r = g_store((char *) &now, (n), (p)), sym_out(), sym_r)\n"
             "static char *sym_canon_copy(void);\n#ifndef SAFETY\nstatic int sym_seed_match(int);\n#endif\n")
    pan_c = pan_c.replace(head, head + decls, 1)
    return pan_c + code


def write_verifier(model_path: str, defines: Sequence[str], out_dir: str, sym: SpinSymmetry,
                   spin_options: Sequence[str] = ()) -> str:
    """Run ``spin [spin_options] -a`` in ``out_dir`` and write ``sympan.c`` beside pan.c;
    returns its path.  (Spin's own optimisations -- dead variables, statement merging -- treat
    processes of one proctype alike, so they keep the symmetry.)"""
    spin = shutil.which("spin")
    if spin is None:
        raise SpinExportError("spin is not installed (it writes pan.c)")
    os.makedirs(out_dir, exist_ok=True)
    source_path = os.path.abspath(model_path)
    with open(model_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    if defines or not re.search(r"^\s*#\s*include", text, flags=re.M):
        # Spin reads a copy in out_dir, the file trails replay on (pan -r, spin -t -p look
        # for the trail beside the model); our -D replaces the model's #define there (cpp
        # would let the file win).  A model with #include is read where it is, unless -D.
        for d in defines:
            name, _, value = d.partition("=")
            text = re.sub(rf"^(\s*#\s*define\s+{re.escape(name.strip())})\b.*$", rf"\g<1> {value.strip()}", text,
                          flags=re.M)
        source_path = os.path.join(os.path.abspath(out_dir), os.path.basename(model_path))
        if os.path.abspath(model_path) != source_path:
            with open(source_path, "w") as f:
                f.write(text)
        elif defines:
                raise SpinExportError("-o names the model's own directory: with -D, give another one")
        source_path = os.path.basename(model_path)
    run = subprocess.run([spin, *spin_options, "-a", source_path],
                         cwd=out_dir, capture_output=True, text=True, timeout=300)
    if run.returncode != 0 or not os.path.exists(os.path.join(out_dir, "pan.c")):
        lines = (run.stdout + run.stderr).strip().splitlines()
        raise SpinExportError(f"spin -a failed: {lines[-1] if lines else 'exit %d' % run.returncode}")
    with open(os.path.join(out_dir, "pan.h")) as f:
        pan_h = f.read()
    with open(os.path.join(out_dir, "pan.t")) as f:
        pan_t = f.read()
    with open(os.path.join(out_dir, "pan.c")) as f:
        source = sympan_source(f.read(), pan_h, sym, pan_t)
    path = os.path.join(out_dir, "sympan.c")
    with open(path, "w") as f:
        f.write(source)
    return path
