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
A program counter keeps its values where a generator only moves whole blocks of one proctype
(pan numbers the processes of a proctype alike); where a generator renames pc values
(symmetric options inside one process) they are carried into pan's numbering through the
pairing of our automata with pan's (``panmap``; ``export_verifier`` runs Spin first), and a
generator whose renaming is no automorphism of pan's automaton is dropped.

Canonical form: the native explorer's own C canonicaliser (``canon.c``, written with this
group's tables by ``detect.statespace.native.canon.canonicaliser_c``; pan's fields are
gathered into its state and scattered back).  ``--strategy exact``: sorting whole process
blocks when the group is the symmetric group on the processes of one proctype and renames
no value (``sort``); else S_m on pids (``PermutedPids``: blocks moved with their pids, pid
values and channel identities renamed) when the group is of that shape on pan's fields; else
(and ``enumerate``) the least image over every element of the group (enumerated from the
detected generators, at most ``ELEMENT_LIMIT``).  Each stores the image of the real state
under a group element, so two states are merged only if the group maps one onto the other
(soundness rests on the generators alone); exactness (one state per orbit) is checked by
the tests: Spin's "states, stored" from ``sympan`` equals ``reduced_spin_stored``, the
orbits of the states plain pan stores.  The search itself runs on the real states, so
trails replay in Spin.
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
from detect.statespace.native.canon import CanonTables, canonicaliser_c, gathered as gathered_on

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
    #: the group as S_m on pids (``_pids_spec``): (per pid its block of fields, the fixed
    #: fields naming pids, per field its (value, pid) pairs), or None; then ``elements`` is empty
    pids_spec: Optional[tuple[tuple[tuple[int, ...], ...], tuple[int, ...],
                              tuple[tuple[tuple[int, int], ...], ...]]] = None
    #: the claim pan runs with (pan's ``procname`` of it: an ``ltl`` block's name or
    #: ``:never:``), whose propositions the group fixes; None: no claim
    claim: Optional[str] = None
    #: the acting generators, in the gather form of ``elements``
    generators: tuple[tuple[tuple[int, int], ...], ...] = ()
    #: the generators left out (renaming program counters as pan's automata do not allow), why
    dropped: tuple[str, ...] = ()
    #: the pc fields whose values are pan's state numbers through ``panmap`` (process names)
    pc_mapped: tuple[str, ...] = ()
    #: the detected group's acting generators kept (indices into ``group.acting_points``)
    kept: tuple[int, ...] = ()
    #: with ``pc_mapped``: Spin's statement merging "on", "off (-o3 asked)", or why it was
    #: turned off (``_pan_automata``)
    merging: str = ""

    def canonical_form(self) -> str:
        """How states are made canonical (the native explorer's canonicaliser, ``canon.c``)."""
        return _canon_tables(self).describe()

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
                  element_limit: int = ELEMENT_LIMIT, pan: Optional[dict] = None,
                  pan_run: Optional[dict] = None) -> SpinSymmetry:
    """The detected group (its acting generators only) on pan's vector, or ``SpinExportError``
    saying why the model is outside what the export supports.

    A generator renaming a program counter (symmetric branches inside a process) needs pan's
    automata (``pan``: ``panmap.read_automata``, from ``spin -a`` and ``pan -d``); without
    them ``PcRenamingNeeded`` says so (``export_verifier`` then runs Spin and calls again).
    With them, each such generator is kept only where ``panmap`` pairs our program counters
    with pan's states and its renaming is an automorphism of pan's automaton (of ``pan``, and
    of ``pan_run`` -- the automata pan runs with statement merging, numbered as ``pan``'s:
    ``panmap.same_numbering`` -- where given); the others are
    dropped (``SpinSymmetry.dropped`` says which and why), the kept ones generating a
    subgroup of the detected group (so each of its elements is a verified automorphism).

    Why one function: each generator is checked field by field (processes, queues, globals)
    in one pass that also collects the pids and channels moved, then the elements are
    enumerated on the fields those checks validated."""
    from detect.symmetry.permgroup import permutation_group

    if strategy not in STRATEGIES:
        raise SpinExportError(f"unknown strategy '{strategy}'; choose one of {', '.join(STRATEGIES)}")
    acting = _acting(model, group, source_text, pan, pan_run)
    group, gens, moves, labels, dropped, kept_ids = (acting.group, acting.gens, acting.moves, acting.labels,
                                                     acting.dropped, acting.kept)
    slots, fields, hidden, pts, proctype_of = acting.slots, acting.fields, acting.hidden, acting.pts, acting.proctype_of
    claim = _claim_slots(model)
    moved_pids: set[int] = set()
    moved_chans: set[int] = set()
    twins: set[tuple[str, str]] = set()
    for pid_map, chan_map, twins_g, pc_moves, _, _ in moves:
        moved_pids |= {p for p, q in pid_map.items() if p != q}
        moved_chans |= {c for c, d in chan_map.items() if c != d}
        # proctypes whose automata were paired with pan's are checked there, not by ``_twins_alike``
        twins |= {tuple(sorted((fields[k].proctype, fields[t].proctype))) for k, t, _ in pc_moves
                  if fields[k].proctype != fields[t].proctype and not (k in labels and t in labels)}
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

    def gathered(g) -> tuple[tuple[int, int], ...]:
        """The point permutation g on the kept fields, in gather form (``SpinSymmetry``)."""
        image = gathered_on(g, pts.pairs, kept, maps)
        if image is None:
            raise SpinExportError("not supported yet: a group element maps a variable pan stores onto one it "
                                  "does not, or splits its values")
        return image

    generators = tuple(gathered(g) for g in gens)
    pids_spec = None
    if blocks is None and strategy == "exact":
        pids_spec = _pids_spec(model, group, gens, pts, position, [fields[k] for k in kept])
    elements = []
    if blocks is None and pids_spec is None:
        if order > element_limit:
            raise SpinExportError(f"the group has {order:,} elements (more than {element_limit:,} to apply to "
                                  "every state); not supported yet")
        elements = [gathered(g) for g in sym.elements()]
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
        blocks, initial, tuple(sorted(twins)), pids_spec, claim_name, generators, tuple(dropped),
        tuple(sorted(slots[k].variable.rsplit(".", 1)[0] for k in labels)), tuple(kept_ids))


@dataclass(frozen=True)
class _Acting:
    """The acting generators sympan takes (``spin_symmetry``'s first pass): ``gens`` the kept
    ones, ``moves`` what each does to processes and channels, ``group`` cut down to them,
    ``kept`` their indices into the detected group's ``acting_points``, ``dropped`` why each
    other was left out; ``labels``: per pc slot renamed in pan's numbering, our values -> pan's."""

    group: object
    gens: tuple
    moves: tuple
    labels: dict
    dropped: tuple[str, ...]
    kept: tuple[int, ...]
    slots: tuple
    fields: list
    hidden: set
    pts: object
    proctype_of: dict


def _acting(model: SequentialModel, group, source_text: str, pan: Optional[dict],
            pan_run: Optional[dict] = None) -> _Acting:
    """Each acting generator checked field by field (processes, queues, globals), and where it
    renames program counters against pan's automata (``_pan_renamings``); ``SpinExportError``
    (``PcRenamingNeeded`` without ``pan``) where the model is outside what sympan supports."""
    from detect.ir.points import LiteralPoints

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
    moves = []  # per generator: (pid_map, chan_map, twins, pc moves (slot, target slot, value map), renames pcs)
    for g in gens:
        target, values = _slot_action(g, pts, len(slots))
        target = [k if len(slots[k].domain) == 1 else t for k, t in enumerate(target)]
        pid_map: dict[int, int] = {}
        chan_map: dict[int, int] = {}
        twins_g: set[tuple[str, str]] = set()
        pc_moves: list[tuple[int, int, dict[int, int]]] = []
        renames = False
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
                    twins_g.add(tuple(sorted((a.proctype, b.proctype))))
                if a.member == "_p":
                    pc_moves.append((k, t, values[k]))
                    if any(v != w for v, w in values[k].items()):
                        if pan is None:
                            raise PcRenamingNeeded(_pc_renaming(slots[k].label, slots[t].label, values[k]))
                        renames = True
            if kind_a == "q" and chan_map.setdefault(a.qid, b.qid) != b.qid:
                raise SpinExportError("not supported yet: a generator does not move whole channels")
        if sorted(pid_map.values()) != sorted(pid_map) or sorted(chan_map.values()) != sorted(chan_map):
            raise SpinExportError("not supported yet: a generator moves part of a process or channel")
        moves.append((pid_map, chan_map, twins_g, pc_moves, renames, target))
    labels: dict[int, dict[int, int]] = {}
    dropped: list[str] = []
    kept_ids = list(range(len(gens)))
    if pan is not None and any(m[4] for m in moves):
        keep, labels, dropped = _pan_renamings(model, gens, moves, fields, slots, pan, pts, pan_run)
        kept_ids = keep
        if not keep:
            raise SpinExportError("not supported: no generator renames program counters as pan's automata allow: "
                                  + "; ".join(dropped))
        if len(keep) < len(gens):
            group = _subgroup(group, [gens[i] for i in keep])
            gens = [gens[i] for i in keep]
            moves = [moves[i] for i in keep]
        pts = _relabelled(pts, labels)
    return _Acting(group, tuple(gens), tuple(moves), labels, tuple(dropped), tuple(kept_ids), slots, fields, hidden,
                   pts, proctype_of)


#: the name the first version exported
process_symmetry = spin_symmetry


class PcRenamingNeeded(SpinExportError):
    """A generator renames a program counter: ``spin_symmetry`` needs pan's automata."""


def _pan_renamings(model, gens, moves, fields, slots, pan, pts, pan_run=None):
    """``(kept generator indices, labels, dropped)``: the generators whose program-counter
    moves ``panmap`` can carry into pan's numbering and which are automorphisms of pan's
    automata there; ``labels[slot]`` maps our pc values of that slot to pan's states (fresh
    numbers above pan's for values pan has no state for); ``dropped`` says which and why."""
    from detect.export import panmap

    process_of = {p.pid: p for p in model.processes if p.pid is not None}

    def nontrivial(move):
        k, t, v = move
        return k != t or any(a != b for a, b in v.items())

    # the processes whose pcs are renamed, closed under the moves of every generator
    # (and those moved onto a process of another proctype: pan numbers its automaton apart)
    relabel = {fields[x].pid for m in moves for k, t, v in m[3]
               if (m[4] and nontrivial((k, t, v))) or fields[k].proctype != fields[t].proctype for x in (k, t)}
    grown = True
    while grown:
        grown = False
        for m in moves:
            for k, t, v in m[3]:
                pair = {fields[k].pid, fields[t].pid}
                if nontrivial((k, t, v)) and pair & relabel and not pair <= relabel:
                    relabel |= pair
                    grown = True
    phis: dict[int, object] = {}
    for pid in sorted(relabel):
        proc, proctype = process_of.get(pid), next(f.proctype for f in fields if f is not None and f.pid == pid)
        if proc is None or proctype not in pan:
            phis[pid] = f"pan has no automaton of proctype {proctype}"
            continue
        try:
            phis[pid] = (panmap.match(pan[proctype], panmap.our_automaton(model, proc)), proctype)
        except panmap.PcMapError as e:
            phis[pid] = str(e)
    labels: dict[int, dict[int, int]] = {}
    pc_slot = {fields[k].pid: k for m in moves for k, _, _ in m[3]}
    for pid, found in phis.items():
        if isinstance(found, str) or pid not in pc_slot:
            continue
        phi, proctype = found
        k = pc_slot[pid]
        lab = {ours: theirs for theirs, ours in phi.items()}
        fresh = max(pan[proctype].states() | pan[proctype].passed() | {0}) + 1
        for v in slots[k].domain:
            if v not in lab:
                lab[v] = fresh
                fresh += 1
        labels[k] = lab
    names_global, chan_names = _global_names(model)
    keep, dropped = [], []
    for i, (g, m) in enumerate(zip(gens, moves)):
        numbers = _number_renaming(g, m, pts, slots)
        why = _pan_automorphism(i, m, fields, slots, pan, phis, labels, names_global, chan_names, numbers)
        if why is None and pan_run is not None:
            # and of the automata pan runs (statement merging: a merged transition is the chain of
            # -o3's from its first statement, so mapping both maps the chains)
            why = _pan_automorphism(i, m, fields, slots, pan_run, phis, labels, names_global, chan_names, numbers)
            why = None if why is None else f"with statement merging: {why}"
        if why is None:
            keep.append(i)
        else:
            dropped.append(f"generator {i} dropped: {why}")
    return keep, labels, dropped


def _global_names(model):
    """(global variable name -> its slots' variable, channel name -> queue id) for the
    identifiers of pan's statement texts."""
    channels = dict(model.annotation("spin_channels", ()))
    chan_names = {name: ident - 1 for name, ident in channels.items() if "." not in name}
    names = {v.name for v in model.variables if v.owner is None and "." not in v.name}
    return names, chan_names


def _number_renaming(g, m, pts, slots) -> set[tuple[int, int]]:
    """The numbers generator ``g`` (its ``moves`` entry ``m``) renames, as pairs ``(x, y)``:
    the values of each variable but a program counter (ours are not pan's numbers), the index
    of an array element moved onto another of the same array, the pids moved and the channel
    numbers (pan's, from 1) -- what may stand opposite each other in two statement texts of
    pan that the generator maps onto each other."""
    pid_map, chan_map, _, _, _, target = m
    _, values = _slot_action(g, pts, len(slots))
    pairs = {(v, w) for k, vals in enumerate(values) if not slots[k].variable.endswith(".pc")
             for v, w in vals.items() if v != w}
    pairs |= {(slots[k].index, slots[t].index) for k, t in enumerate(target)
              if slots[k].index is not None and slots[t].index is not None and slots[k].index != slots[t].index}
    pairs |= {(p, q) for p, q in pid_map.items() if p != q}
    pairs |= {(c + 1, d + 1) for c, d in chan_map.items() if c != d}
    return pairs


def _pan_automorphism(i, m, fields, slots, pan, phis, labels, names_global, chan_names,
                      numbers: set[tuple[int, int]] = frozenset()) -> Optional[str]:
    """None if generator ``i`` (its ``moves`` entry ``m``) acts on pan's automata as an
    automorphism through the pc labels, else why not."""
    from detect.export import panmap

    pid_map, chan_map, _, pc_moves, _, target = m
    var_images: dict[str, set[str]] = {}
    for k, t in enumerate(target):
        var_images.setdefault(slots[k].variable, set()).add(slots[t].variable)

    def allowed(x: str, y: str) -> bool:
        if x in chan_names:
            return y in chan_names and chan_map.get(chan_names[x], chan_names[x]) == chan_names[y]
        if x in names_global:
            return y in var_images.get(x, {x})
        return y not in chan_names and y not in names_global

    names: dict[str, str] = {}
    for k, t, v in pc_moves:
        p, q = fields[k].pid, fields[t].pid
        if k == t and all(a == b for a, b in v.items()):
            continue
        for pid in (p, q):
            if isinstance(phis.get(pid), str):
                return f"{slots[k].label}: {phis[pid]}"
        if k not in labels and t not in labels:
            if any(a != b for a, b in v.items()):
                return f"{slots[k].label}: pan's automaton not read"
            continue  # whole blocks of alike proctypes moved, pcs as they are (``_twins_alike``)
        if k not in labels or t not in labels:
            return f"{slots[k].label} -> {slots[t].label}: one has pan's numbering, the other not"
        phi_p, type_p = phis[p]
        phi_q, type_q = phis[q]
        # pan's states whose pc no reachable state has (the model's domains are narrowed to the
        # reachable values) are left out: their transitions never fire, on either side
        live_p, live_q = set(slots[k].domain) | {0}, set(slots[t].domain) | {0}
        back = {ours: theirs for theirs, ours in phi_q.items() if ours in live_q}
        sigma = {}
        for s, ours in phi_p.items():
            if ours not in live_p:
                continue
            image = v.get(ours, ours)
            if image not in back:
                return (f"{slots[k].label}: our pc {ours} (pan's state {s}) maps to {image}, which has no state in "
                        f"pan's automaton of {type_q}")
            sigma[s] = back[image]
        if len(set(sigma.values())) != len(sigma):
            return f"{slots[k].label}: the renaming of pan's states is not one to one"
        why = panmap.automorphism(pan[type_p], pan[type_q], sigma, names, allowed, set(back.values()),
                                  numbers=lambda x, y: (x, y) in numbers)
        if why is not None:
            return f"{slots[k].label}: {why}"
    return None


def _relabelled(pts, labels: dict[int, dict[int, int]]):
    """``pts`` with the values of the pc slots in ``labels`` renamed to pan's state numbers
    (the points themselves, and so every permutation of them, unchanged)."""
    from detect.ir.points import LiteralPoints

    pairs = tuple((k, labels[k][v]) if k in labels else (k, v) for k, v in pts.pairs)
    return LiteralPoints(pairs, {pair: p for p, pair in enumerate(pairs)}, pts.slot_points)


def _subgroup(group, kept_points):
    """``group`` (a ``SymmetryGroup``) cut down to the acting generators ``kept_points``."""
    from detect.symmetry.group import group_order

    kept = set(kept_points)
    pairs = [(g, p) for g, p in zip(group.generators, group.points) if g.inert or tuple(p) in kept]
    return replace(group, generators=tuple(g for g, _ in pairs), points=tuple(p for _, p in pairs),
                   order=group_order([p for g, p in pairs if not g.inert]))


def _pc_renaming(source: str, target: str, values: dict[int, int]) -> str:
    """The refusal of a generator renaming program counters, in one line: which process and
    which of our pc values (the corpus's cases -- snoopy's bus, TopSPIN's mailer, diskhead's
    disk_sched -- swap the states of symmetric branches inside one process)."""
    moved = ", ".join(f"{v}->{w}" for v, w in sorted(values.items()) if v != w)
    where = f"of {source} within its own automaton" if source == target else f"from {source} to {target}"
    return (f"not supported yet: a generator renames the program counter {where} (our pc {moved}); pan numbers "
            "that automaton's states its own way (statement merging, atomic chains, inlines expanded twice on "
            "one line) and the export has no map from our program counters to pan's")


def _pids_spec(model, group, gens, pts, position: dict[int, int], fields: Sequence[Field]):
    """The group as S_m on pids (``PermutedPids``, the native explorer's ``canon_pids``) on
    the fields: ``(blocks, fixed, pid_of)`` with field indices, or None where it is not of
    that shape on pan's vector (a moved slot pan lacks, a program counter naming pids).
    Constant slots (one value) drop out of the blocks: they are the same in every block."""
    from detect.checking.reduce import slot_order
    from detect.checking.scalarset import permuted_pids
    from detect.symmetry.permgroup import permutation_group

    spec = permuted_pids(gens, group.order, pts, slot_order(permutation_group(gens, len(pts.pairs)), pts))
    if spec is None:
        return None
    width = len(spec.blocks[0])
    keep = [pos for pos in range(width) if any(b[pos] in position for b in spec.blocks)]
    if any(b[pos] not in position for b in spec.blocks for pos in keep):
        return None
    blocks = tuple(tuple(position[b[pos]] for pos in keep) for b in spec.blocks)
    fixed = tuple(position[k] for k in spec.fixed if k in position)
    pid_of = [()] * len(fields)
    for k, f in position.items():
        pid_of[f] = tuple(spec.pid_of[k])
        if pid_of[f] and fields[f].member == "_p":
            return None
    if not keep:
        return None
    return blocks, fixed, tuple(pid_of)


#: the name the first version exported
process_symmetry = spin_symmetry


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
#: TRIX keeps each process and channel in a vector of its own, outside ``now`` (``proc_offset``
#: and ``q_offset`` do not address them): the fields cannot be read or written where sympan
#: looks (measured: 2,608 states stored on a ring whose orbits are 1,120 -- not exact)
_UNSUPPORTED = ("#if defined(TRIX)\n"
                "#error \"symdetect sympan: TRIX keeps processes and channels outside now, which sympan canonicalises; "
                "build without TRIX\"\n#endif\n")
#: BFS_PAR's store (pan.p, which pan.c includes): wrapped as pan.c's own stores
_BFS_PAR_STORE = ("bfs_do_store((char *)&now, vsize)",
                  "(sym_in(), sym_r = bfs_do_store((char *)&now, vsize), sym_out(), sym_r)")


def _common_code(claim: Optional[str]) -> str:
    """C shared by every strategy: the store wrappers (``now`` is swapped for its canonical form
    around pan's own store, so every store -- hash table, COLLAPSE, HC, BITSTATE, the multi-core
    ones -- sees the canonical vector) and the nested search's seed test.

    Why one function: one C template (the wrappers share its buffers and its start check)."""
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
#ifdef BFS_PAR
	if (who_am_i != 0) return; /* the workers forked from the root start from states handed over */
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


def _canon_tables(sym: SpinSymmetry) -> CanonTables:
    """The group on the fields as the tables of the native explorer's canonicaliser
    (``canon.c``): sorted blocks, S_m on pids, or every element."""
    n = len(sym.fields)
    if sym.blocks is not None:
        per = [sorted((fd.member, f) for f, fd in enumerate(sym.fields) if fd.pid == p) for p in sym.blocks[1]]
        if len({tuple(member for member, _ in b) for b in per}) != 1:
            raise SpinExportError("pan's blocks of the sorted processes have different fields")
        return CanonTables(n, blocks=tuple(tuple(f for _, f in b) for b in per))
    if sym.pids_spec is not None:
        blocks, fixed, pid_of = sym.pids_spec
        return CanonTables(n, pid_blocks=blocks, pid_fixed=fixed, pid_of=pid_of)
    return CanonTables(n, elements=sym.elements, maps=sym.maps)


def _canon_code(sym: SpinSymmetry, structs: dict[str, str], queues, bodies: dict[str, str]) -> str:
    """C of ``sym_canon_into``: pan's fields gathered into a state, canonicalised by the
    native explorer's C canonicaliser (``canonicaliser_c``), scattered back; and
    ``sym_check``, the check of pan's initial state against ours."""
    get, put = _field_code(sym, structs, queues, bodies)
    nf = len(sym.fields)
    known_at = [f for f, fd in enumerate(sym.fields) if f < len(sym.initial) and sym.initial[f] is not None
                and (fd.pid is None or fd.pid == 0) and fd.qid is None]
    init = ", ".join(str(sym.initial[f] if f in known_at else 0) for f in range(nf)) or "0"
    known = ", ".join("1" if f in known_at else "0" for f in range(nf)) or "0"
    guard = ""
    if sym.blocks is not None:
        # sorting moves whole blocks: before all exist, a state is stored as it is
        guard = "".join(f"\tif ({p} + BASE >= (int) ((State *) v)->_nr_pr) return;\n" for p in sym.blocks[1])
    return f"""
#include <stdint.h>
typedef int64_t i64;
{canonicaliser_c(_canon_tables(sym), "sym_canon")}
#define SYM_F {nf}
static i64 sym_t[CANON_MAX];

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

static int sym_checked;
static const int sym_init[{max(1, nf)}] = {{{init}}};
static const char sym_known[{max(1, nf)}] = {{{known}}};

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

/* v (a state with pan's current offsets) becomes its canonical form */
static void
sym_canon_into(char *v)
{{	int f;
{guard}	for (f = 0; f < SYM_F; f++)
		sym_t[f] = sym_get(v, f);
	canon_apply(&sym_canon, sym_t);
	for (f = 0; f < SYM_F; f++)
		sym_set(v, f, (int) sym_t[f]);
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
    ``SpinExportError``; checked on the generators): a variable no step reads moves with no
    other, so dropping it leaves each element's action on the rest (the quotient of the
    projection)."""
    if not dead:
        return sym
    if any((k in dead) != (t in dead) for e in sym.generators + sym.elements for t, (k, _) in enumerate(e)):
        raise SpinExportError("not supported: the group maps a variable Spin removed as dead onto one it keeps "
                              "(run with --spin-option=-o2)")
    keep = [f for f in range(len(sym.fields)) if f not in dead]
    at = {f: i for i, f in enumerate(keep)}

    def project(e):
        return tuple((at[e[f][0]], e[f][1]) for f in keep)

    pids_spec = sym.pids_spec
    if pids_spec is not None:
        blocks, fixed, pid_of = pids_spec
        # a block position is one orbit: dead in every block or in none
        blocks = tuple(tuple(at[f] for f in b if f in at) for b in blocks)
        if len({len(b) for b in blocks}) != 1 or not blocks[0]:
            raise SpinExportError("not supported: Spin removed part of the processes' blocks as dead "
                                  "(run with --spin-option=-o2)")
        pids_spec = (blocks, tuple(at[f] for f in fixed if f in at), tuple(pid_of[f] for f in keep))
    initial = tuple(sym.initial[f] for f in keep) if sym.initial else ()
    return replace(sym, fields=tuple(sym.fields[f] for f in keep), elements=tuple(map(project, sym.elements)),
                   generators=tuple(map(project, sym.generators)), initial=initial, pids_spec=pids_spec)


def sympan_source(pan_c: str, pan_h: str, sym: SpinSymmetry, pan_t: str = "", pan_p: str = "") -> str:
    """``pan.c`` with its state store canonicalising (module docstring); ``pan_p`` (BFS_PAR's
    search, which pan.c includes) is written into it with its store wrapped too."""
    _twins_alike(sym, pan_h, pan_t)
    sym = _without(sym, _dead_fields(sym, pan_h))
    if not any(site in pan_c for site, _ in _STORES) or _SEED[0] not in pan_c:
        raise SpinExportError("pan.c has not the state stores of Spin 6.5 (another Spin version?)")
    for site, wrapped in _STORES:
        pan_c = pan_c.replace(site, wrapped)
    pan_c = pan_c.replace(*_SEED)
    include_p = '#include "pan.p"'
    if include_p in pan_c:
        if _BFS_PAR_STORE[0] not in pan_p:
            raise SpinExportError("pan.p has not the BFS_PAR store of Spin 6.5 (another Spin version?)")
        pan_c = pan_c.replace(include_p, pan_p.replace(*_BFS_PAR_STORE), 1)
    # the stack table's lookups under BITSTATE (onstack_zap, onstack_now): canonical keys
    begin = pan_c.find("onstack_zap(void)\n{")
    finish = pan_c.find("return (m == 0);", begin)
    if begin >= 0 and finish >= 0:
        region = pan_c[begin:finish]
        for site, wrapped in _STACK_KEYS:
            region = region.replace(site, wrapped)
        pan_c = pan_c[:begin] + region + pan_c[finish:]
    structs = _struct_names(pan_h)
    body = _canon_code(sym, structs, _queue_types(pan_c, pan_h), _bodies(pan_h))
    how = _canon_tables(sym).describe() + " (the native explorer's canonicaliser, canon.c)"
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
    _run_spin(model_path, defines, out_dir, spin_options)
    with open(os.path.join(out_dir, "pan.h")) as f:
        pan_h = f.read()
    with open(os.path.join(out_dir, "pan.t")) as f:
        pan_t = f.read()
    pan_p = ""
    if os.path.exists(os.path.join(out_dir, "pan.p")):
        with open(os.path.join(out_dir, "pan.p")) as f:
            pan_p = f.read()
    with open(os.path.join(out_dir, "pan.c")) as f:
        source = sympan_source(f.read(), pan_h, sym, pan_t, pan_p)
    path = os.path.join(out_dir, "sympan.c")
    with open(path, "w") as f:
        f.write(source)
    return path


def _run_spin(model_path: str, defines: Sequence[str], out_dir: str, spin_options: Sequence[str] = ()) -> None:
    """``spin [spin_options] -a`` on the model (a copy in ``out_dir`` with ``defines``) in ``out_dir``."""
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


class SpinReading:
    """Spin's output for one model, defines and options, read once per run
    (``spin_reading``): ``text(name)`` a file Spin wrote (pan.c, pan.h, pan.m, pan.t),
    ``automata()`` what ``pan -d`` prints, read by ``panmap.read_automata`` (pan.c compiled
    once).  A cache entry, not a value: its directory lives until the process exits."""

    def __init__(self, directory: str):
        self.directory = directory
        self._texts: dict[str, str] = {}
        self._automata: Optional[dict] = None

    def text(self, name: str) -> str:
        if name not in self._texts:
            path = os.path.join(self.directory, name)
            self._texts[name] = ""
            if os.path.exists(path):
                with open(path) as f:
                    self._texts[name] = f.read()
        return self._texts[name]

    def automata(self) -> dict:
        if self._automata is None:
            self._automata = _read_automata(self.directory)
        return self._automata


_READINGS: dict[tuple, SpinReading] = {}


def spin_reading(model_path: str, defines: Sequence[str], spin_options: Sequence[str]) -> SpinReading:
    """``spin [spin_options] -a`` on the model, in a directory of its own, run once per
    process for the same file (path, size, modification time), defines and options: the
    counts (``--spin-states --spin-merging``), sympan's group and the export each ask for
    the same automata (``SpinExportError`` where Spin fails)."""
    import atexit
    import tempfile

    st = os.stat(model_path)
    key = (os.path.abspath(model_path), st.st_size, st.st_mtime_ns, tuple(defines), tuple(spin_options))
    if key not in _READINGS:
        directory = tempfile.mkdtemp(prefix="symdetect-spin-")
        atexit.register(shutil.rmtree, directory, True)
        _run_spin(model_path, defines, directory, spin_options)
        _READINGS[key] = SpinReading(directory)
    return _READINGS[key]


#: Spin's options that turn its data-flow optimisation off (dead locals are then not reset);
#: ``-o2`` also keeps write-only globals in the state vector
NO_DATAFLOW = ("-o1", "-o2")


def _reset_table(model: SequentialModel, proc, pan, resets: dict) -> tuple[str, dict]:
    """``(pc, table)``: per step of ``proc`` (``(src, dst, line)``, as ``panmap.our_automaton``
    reads it) the assignments of the resets pan makes after the statement paired with it
    (``panmap.match``); ``PcMapError`` where that is not one set per step."""
    from detect.export import panmap
    from detect.ir import Assign, Const, Name

    ours = panmap.our_automaton(model, proc)
    phi = panmap.match(pan, ours)
    table: dict[tuple[int, int, int], tuple] = {}
    for e in pan.edges:
        assigned = []
        for name, value in resets.get(e.tr, ()):
            var = [v.name for v in model.variables
                   if v.owner == proc.name and v.name.split(".", 1)[-1] == name and v.size is None]
            if len(var) != 1:
                raise panmap.PcMapError(f"pan resets the dead variable {name} of {pan.proctype}, which our model has "
                                        "no variable for (a constant)")
            assigned.append(Assign(Name(var[0]), Const(value)))
        if assigned and e.flags[:1] == "D":
            raise panmap.PcMapError(f"pan resets a dead variable inside a d_step of {pan.proctype}")
        paired = [step for step in ours.edges
                  if (step[0], step[1]) == (phi.get(e.src), phi.get(e.dst)) and e.line in (None, step[2])]
        if assigned and not paired:
            raise panmap.PcMapError(f"pan's transition {e.src}->{e.dst} of {pan.proctype} resets a dead variable "
                                    "and pairs with no step of ours")
        for step in paired:
            if table.setdefault(step, tuple(assigned)) != tuple(assigned):
                raise panmap.PcMapError(f"pan's transitions {e.src}->{e.dst} of {pan.proctype} pair with one "
                                        "step of ours and reset different variables")
    return ours.pc, table


@dataclass(frozen=True)
class PanDataflow:
    """``model`` as pan built with ``options`` runs it (``pan_dataflow``), the options the
    export and counts use, and ``note``: one line saying what was modelled, or why Spin's
    data-flow optimisation was turned off (``-o1 -o2`` added)."""

    model: SequentialModel
    options: tuple[str, ...]
    note: str = ""


def pan_dataflow(model_path: str, defines: Sequence[str], model: SequentialModel,
                 spin_options: Sequence[str] = ()) -> PanDataflow:
    """``model`` with what Spin's data-flow optimisations (on by default) do to pan's states:
    each dead local pan resets after a statement (``panmap.dead_resets``) is reset to the
    same value by our step paired with that statement (``panmap.match`` on ``-o3``'s
    automata: pan resets alike with and without statement merging), and the write-only
    globals pan keeps out of its vector (``panmap.hidden_globals``) are added to the
    ``spin_hidden`` slots.  Counting this model's states is counting pan's; detecting on it
    gives a group that maps reset variables alike (the resets are steps of the model), so
    sympan's canonical form stays sound.  Where pan's resets cannot be paired with our steps
    (an automaton that does not pair, a reset inside a d_step, a variable our front end
    folded to a constant), the options get ``-o1 -o2`` (no resets, nothing hidden) and the
    note says why.  Unchanged with ``-o1`` or ``-o2`` asked."""
    from detect.export import panmap

    options = tuple(spin_options)
    if any(o in options for o in NO_DATAFLOW):
        return PanDataflow(model, options)
    try:
        plain = spin_reading(model_path, defines, tuple(o for o in options if o != "-o3") + ("-o3",))
        resets = panmap.dead_resets(plain.text("pan.m"))
        hidden = [h for h in panmap.hidden_globals(plain.text("pan.h"))
                  if any(v.name == h and v.owner is None for v in model.variables)]
        if not resets and not hidden:
            return PanDataflow(model, options)
        automata = plain.automata() if resets else {}
        lost = sorted(set(resets) - {e.tr for a in automata.values() for e in a.edges})
        if lost:
            raise panmap.PcMapError(f"pan's transition {lost[0]} resets a dead variable and is in no automaton of "
                                    "pan -d's read")
        tables: dict[str, tuple[str, dict]] = {}  # process name -> (pc, our (src, dst, line) -> assignments)
        for proc in model.processes:
            if proc.pid is None:
                continue
            pan = automata.get(":init:" if proc.family == "init" else proc.family)
            if pan is not None and any(e.tr in resets for e in pan.edges):
                tables[proc.name] = _reset_table(model, proc, pan, resets)
        by_name = {p.name: p for p in model.processes}
        summands = []
        count = 0
        for su in model.summands:
            extra: list = []
            for owner in su.owners:
                if owner not in tables:
                    continue
                pc, table = tables[owner]
                step = panmap.step_of(su, by_name[owner], pc)
                extra += list(table.get(step, ())) if step is not None else []
            count += bool(extra)
            summands.append(replace(su, program=su.program + tuple(extra)) if extra else su)
        notes = dict(model.annotations)
        notes["spin_dataflow"] = options  # the options whose resets the model has (``export_verifier``)
        if hidden:
            notes["spin_hidden"] = tuple(notes.get("spin_hidden", ())) + tuple(hidden)
        said = []
        if count:
            n = sum(len(r) for r in resets.values())
            said.append(f"{n} dead-variable reset{'s' if n != 1 else ''} of pan's on {count} of our steps")
        if hidden:
            said.append(f"write-only globals kept out of pan's vector: {', '.join(hidden)}")
        return PanDataflow(replace(model, summands=tuple(summands), annotations=tuple(notes.items())), options,
                           "Spin's data-flow optimisation modelled: " + "; ".join(said))
    except panmap.PcMapError as e:
        return PanDataflow(model, options + NO_DATAFLOW,
                           f"Spin's data-flow optimisation turned off (-o1 -o2): {e}")
    except (OSError, subprocess.SubprocessError) as e:
        return PanDataflow(model, options + NO_DATAFLOW,
                           f"Spin's data-flow optimisation turned off (-o1 -o2): pan -d failed: {e}")


@dataclass(frozen=True)
class PanAutomata:
    """pan's automata for ``panmap``: ``paired`` (Spin run with ``-o3``, every statement a
    transition: the ones our pcs are paired with), ``run`` (the ones pan runs with the options
    asked; None: ``paired``), ``options`` (Spin's for sympan) and ``note`` (one line: why
    statement merging was turned off, or "")."""

    paired: dict
    run: Optional[dict]
    options: tuple[str, ...]
    note: str = ""


def _read_automata(out_dir: str) -> dict:
    from detect.export import panmap

    with open(os.path.join(out_dir, "pan.t")) as f:
        pan_t = f.read()
    with open(os.path.join(out_dir, "pan.c")) as f:
        pan_c = f.read()
    return panmap.read_automata(panmap.pan_dump(out_dir), pan_t, pan_c)


def _pan_automata(model_path: str, defines: Sequence[str], spin_options: Sequence[str]) -> PanAutomata:
    """pan's automata: Spin run with ``-o3``, and with the options asked (statement merging
    on unless ``-o3``: Spin's default), each once per run (``spin_reading``).  Merging keeps
    pan's state numbers and skips some states (``panmap.same_numbering``), so our pcs are
    paired with ``-o3``'s automata and the generators checked on both; where a merged
    automaton is not numbered as ``-o3``'s, merging is turned off (``-o3``) and the note says
    why."""
    from detect.export import panmap

    options = tuple(spin_options)
    try:
        if "-o3" in options:
            return PanAutomata(spin_reading(model_path, defines, options).automata(), None, options)
        paired = spin_reading(model_path, defines, options + ("-o3",)).automata()
        run = spin_reading(model_path, defines, options).automata()
        why = next((f"{name}: {w}" for name, a in paired.items()
                    for w in [panmap.same_numbering(run[name], a) if name in run else "not in pan's merged automata"]
                    if w is not None), None)
        if why is None:
            return PanAutomata(paired, run, options)
        return PanAutomata(paired, None, options + ("-o3",),
                           f"statement merging turned off (-o3): {why}")
    except panmap.PcMapError as e:
        raise SpinExportError(str(e)) from None


def export_verifier(model_path: str, defines: Sequence[str], out_dir: str, model: SequentialModel, group,
                    source_text: str, strategy: str = "exact",
                    spin_options: Sequence[str] = ()) -> tuple[SpinSymmetry, str, tuple[str, ...]]:
    """``spin_symmetry`` and ``write_verifier`` in one: ``(symmetry, sympan.c's path, the
    options Spin was run with)``.  Where a generator renames a program counter, Spin is run
    first and pan's automata read (``_pan_automata``; ``SpinSymmetry.merging`` says whether
    statement merging stayed on, and if not why).

    ``model`` and ``group`` must be pan's: where Spin's data-flow optimisation is on (no
    ``-o1``/``-o2``) and changes pan's states but ``model`` has not its resets
    (``pan_dataflow`` was not applied before detection), the group need not map reset
    variables alike, so Spin is run with ``-o1 -o2`` (the options returned say so)."""
    if not any(o in spin_options for o in NO_DATAFLOW) and model.annotation("spin_dataflow") is None:
        if pan_dataflow(model_path, defines, model, spin_options).model is not model:
            spin_options = tuple(spin_options) + NO_DATAFLOW
    try:
        sym = spin_symmetry(model, group, source_text, strategy)
    except PcRenamingNeeded:
        automata = _pan_automata(model_path, defines, spin_options)
        spin_options = automata.options
        sym = spin_symmetry(model, group, source_text, strategy, pan=automata.paired, pan_run=automata.run)
        sym = replace(sym, merging=automata.note or ("on" if "-o3" not in spin_options else "off (-o3 asked)"))
    return sym, write_verifier(model_path, defines, out_dir, sym, spin_options), tuple(spin_options)


def merged_pcs(model_path: str, defines: Sequence[str], model: SequentialModel,
               spin_options: Sequence[str] = ()) -> dict[str, frozenset[int]]:
    """Per program counter of ``model`` (a process's ``.pc``), our values at which pan with
    statement merging (Spin's default, ``spin_options`` less ``-o3``) never is: the states its
    merged transitions pass over (``SpinExportError`` where pan also enters one otherwise).  Spin
    is run with and without ``-o3`` (``spin_reading``: once per run); every process's automaton is paired with ``-o3``'s (``panmap.match``) and each
    merged automaton checked to be numbered as ``-o3``'s (``panmap.same_numbering``);
    ``SpinExportError`` where either fails (the count cannot say which states merging skips)."""
    from detect.export import panmap

    options = tuple(o for o in spin_options if o != "-o3")
    try:
        plain = spin_reading(model_path, defines, options + ("-o3",)).automata()
        merged = spin_reading(model_path, defines, options).automata()
        out: dict[str, frozenset[int]] = {}
        for proc in model.processes:
            if proc.pid is None:
                continue  # a never claim: pan's process 0, not ours to pair
            proctype = ":init:" if proc.family == "init" else proc.family
            if proctype not in plain or proctype not in merged:
                raise SpinExportError(f"pan has no automaton of proctype {proctype}")
            why = panmap.same_numbering(merged[proctype], plain[proctype])
            if why is not None:
                raise SpinExportError(why)
            skipped = panmap.passed_over(merged[proctype], plain[proctype])
            if not skipped:
                continue  # nothing merged away: no pairing needed
            entered = sorted(skipped & merged[proctype].states())
            if entered:
                # pan has such a state when it enters it otherwise: whether a state of ours with
                # a process there is pan's depends on the step that led there, not on the state
                raise SpinExportError(f"statement merging passes over pan's state {entered[0]} of {proctype}, which "
                                      "another transition enters: the states merging skips are not a set of pcs")
            ours = panmap.our_automaton(model, proc)
            phi = panmap.match(plain[proctype], ours)
            values = frozenset(phi[x] for x in skipped if x in phi)
            if values:
                out[ours.pc] = values
        return out
    except panmap.PcMapError as e:
        raise SpinExportError(str(e)) from None
    except (OSError, subprocess.SubprocessError) as e:
        raise SpinExportError(f"Spin failed: {e}") from None


@dataclass(frozen=True)
class SympanGroup:
    """The group ``symdetect spin``'s verifier reduces by: ``group``, the detected one cut down
    to the generators kept (a generator renaming program counters is kept only if it is an
    automorphism of pan's automata), ``dropped`` why each other was left out; ``note`` (one
    line) where sympan's group could not be settled -- Spin or gcc absent, the model refused
    -- and ``group`` is then the detected one."""

    group: object
    dropped: tuple[str, ...] = ()
    note: str = ""


def sympan_group(model_path: str, defines: Sequence[str], model: SequentialModel, group, source_text: str,
                 spin_options: Sequence[str] = ()) -> SympanGroup:
    """The group sympan reduces by (``explore --spin-states`` counts its orbits, so that its
    count is sympan's "states, stored"): Spin is run, in a directory of its own, only where a
    generator renames program counters."""
    try:
        try:
            return SympanGroup(_acting(model, group, source_text, None).group)
        except PcRenamingNeeded:
            automata = _pan_automata(model_path, defines, spin_options)
            acting = _acting(model, group, source_text, automata.paired, automata.run)
            return SympanGroup(acting.group, acting.dropped)
    except SpinExportError as e:
        return SympanGroup(group, (), f"the detected group (sympan's could not be settled: {e})")
    except (OSError, subprocess.SubprocessError) as e:
        return SympanGroup(group, (), f"the detected group (sympan's could not be settled: Spin failed: {e})")


def kept_group(group, sym: SpinSymmetry):
    """The detected ``group`` cut down to the generators ``sym`` kept (all, unless some renamed
    program counters as pan's automata do not allow): the group sympan reduces by, for our
    count of its orbits (``spin_counts.spin_stored_count``)."""
    if len(sym.kept) == len(group.acting_points):
        return group
    return _subgroup(group, [group.acting_points[i] for i in sym.kept])
