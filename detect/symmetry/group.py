"""From graph automorphisms to symmetries of states: literal permutations, order, kinds, words.

The state group is the action of Aut(graph) on the *pre-state literals* (one point per slot and
value).  Its order is computed with sympy's Schreier–Sims on the moved points only (sympy is
fine on a few hundred points; the whole graph can have 10^5).  Beyond ``SYMPY_POINTS`` moved
points (a ring of 1,000 processes moves 6,000; sympy then takes minutes and gigabytes) the
order is |Aut(graph)| / |K| instead, K the kernel of the action: the automorphisms fixing every
pre-state literal, which the automorphism engine counts on the graph with each of those nodes
coloured apart (``action_order``); mixed generators are then left unsplit.

A generator is a *process* symmetry when it moves whole processes (see ``_moves``) and
permutes values, if at all, the way it permutes processes (pid-valued data); a *variable*
symmetry when it moves variables or array elements that are not whole processes (two
elements of a channel buffer, two constant variables) and no values; a *data* symmetry when
it maps every variable to itself and permutes values; *mixed* otherwise.  Where a mixed generator's process part is itself in the group,
it is split into a process and a data generator, which is what users read most easily.

Which variables belong to which process, and the number (pid) the model's data uses for
each, are facts of the IR (``Variable.owner``, ``SequentialModel.processes``); only the
offset between a pid and how the data stores it (``pid + 1``) is searched for.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Sequence

from sympy.combinatorics import Permutation, PermutationGroup

from detect.symmetry.automorphisms import automorphisms
from detect.symmetry.graph import ColouredGraph
from detect.ir import SequentialModel, Slot, literal_label, state_slots
from detect.symmetry.perm import StatePermutation

PROCESS, VARIABLE, DATA, MIXED = "process", "variable", "data", "mixed"


@dataclass(frozen=True)
class Generator:
    permutation: StatePermutation
    kind: str
    description: str
    #: cycles on literals, each a tuple of ``"var[idx]=value"`` strings
    cycles: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class SymmetryGroup:
    generators: tuple[Generator, ...]
    order: int
    #: point ``p`` of the literal permutations is literal ``literals[p]``
    literals: tuple[str, ...]
    #: generators as permutations of literal points (images), same order as ``generators``
    points: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class _Points:
    slots: tuple[Slot, ...]
    index: dict  # (slot, value) -> point
    pairs: tuple[tuple[int, int], ...]  # point -> (slot, value)


def _points(slots: Sequence[Slot]) -> _Points:
    index, pairs = {}, []
    for k, slot in enumerate(slots):
        for value in slot.domain:
            index[(k, value)] = len(pairs)
            pairs.append((k, value))
    return _Points(tuple(slots), index, tuple(pairs))


def literal_permutations(graph: ColouredGraph, node_generators, pts: _Points) -> list[tuple[int, ...]]:
    """Each graph generator restricted to pre-state literals, as an image list on points."""
    node_to_point = {}
    for k, lits in enumerate(graph.pre_literal):
        for value, node in lits.items():
            node_to_point[node] = pts.index[(k, value)]
    result = []
    for g in node_generators:
        images = []
        for p, (k, value) in enumerate(pts.pairs):
            image = node_to_point.get(g[graph.pre_literal[k][value]])
            if image is None:
                raise AssertionError("automorphism moved a pre-state literal off the pre-state literals")
            images.append(image)
        result.append(tuple(images))
    return result


def to_state_permutation(images: Sequence[int], pts: _Points) -> StatePermutation:
    n = len(pts.slots)
    target = [-1] * n
    values: list[dict] = [dict() for _ in range(n)]
    for p, q in enumerate(images):
        k, a = pts.pairs[p]
        k2, b = pts.pairs[q]
        if target[k] not in (-1, k2):
            raise AssertionError("literal permutation splits a variable")
        target[k] = k2
        values[k][a] = b
    return StatePermutation(tuple(target), tuple(values))


def group_order(point_generators: Sequence[Sequence[int]]) -> int:
    """Order of the group generated, via sympy on the moved points only."""
    moved = sorted({p for g in point_generators for p, q in enumerate(g) if p != q})
    if not moved:
        return 1
    relabel = {p: i for i, p in enumerate(moved)}
    perms = [Permutation([relabel[g[p]] for p in moved]) for g in point_generators]
    return int(PermutationGroup(perms).order())


#: Most moved points whose group order sympy computes (see the module docstring).
SYMPY_POINTS = 500


def action_order(graph: ColouredGraph, aut_order: int, engine: str = "auto") -> int:
    """The order of Aut(graph)'s action on the pre-state literals, ``aut_order`` = |Aut(graph)|:
    |Aut(graph)| / |K| with K the automorphisms fixing every pre-state literal node (the
    kernel of the action), counted on the graph with each of those nodes a colour of its own."""
    points = sorted(node for lits in graph.pre_literal for node in lits.values())
    colour = list(graph.colour)
    base = len(graph.colour_keys)
    for i, node in enumerate(points):
        colour[node] = base + i
    apart = dataclasses.replace(graph, colour=tuple(colour),
                                colour_keys=graph.colour_keys + tuple(f"~point {i}" for i in range(len(points))))
    kernel = automorphisms(apart, engine).order
    return aut_order // kernel


@dataclass(frozen=True)
class _Moves:
    """How a state permutation moves slots, read as processes where it can be.

    ``index_maps``: per array, element -> element for elements it keeps in the array;
    ``variable_map``: variable -> variable for slots moved to another variable;
    ``processes``: process -> process when the moves are exactly a permutation of processes
    (see ``_moves``), else None; ``owners``: whether processes are owners (names) rather
    than array indices (numbers).
    """

    index_maps: dict
    variable_map: dict
    processes: "dict | None"
    owners: bool


def _moves(sigma: StatePermutation, model: SequentialModel, slots) -> _Moves:
    """Classify the slot moves of ``sigma``.

    A model whose variables have owners (Promela and DVE processes) has processes = owners: a
    move is a process move when a bijection of owners maps *every* variable of each moved
    owner onto the corresponding variable of its image (arrays indexed by pid and shared
    variables may move along, by the processes' pids, ``_pids``).  A model without owners (CSP# families, linearised into arrays indexed by the
    process number) has processes = array indices: one index map shared by every array that
    moves.  Anything else (elements of one channel buffer, two unrelated variables) only
    permutes variables.
    """
    index_maps: dict[str, dict[int, int]] = {}
    variable_map: dict[str, str] = {}
    element_ok = True
    for k, t in enumerate(sigma.target):
        a, b = slots[k], slots[t]
        if a.variable == b.variable:
            if a.index != b.index:
                index_maps.setdefault(a.variable, {})[a.index] = b.index
        else:
            if variable_map.setdefault(a.variable, b.variable) != b.variable:
                element_ok = False
            if a.index != b.index:
                element_ok = False
    owner = {v.name: v.owner for v in model.variables}
    shared_index = None
    if index_maps:
        # One process permutation read through every array, each array indexed by the
        # process number plus a constant of its own (``inside[i + 1]``).
        maps = sorted(index_maps.values(), key=lambda m: min(m))
        if all(_same_up_to_offset(m, maps[0]) for m in maps):
            shared_index = maps[0]
    if not variable_map:
        if any(owner.values()) or shared_index is None:
            return _Moves(index_maps, variable_map, None, False)
        return _Moves(index_maps, variable_map, dict(shared_index), False)
    owner_map: dict[str, str] = {}
    whole = element_ok
    for a, b in variable_map.items():
        oa, ob = owner[a], owner[b]
        if oa is None and ob is None:
            continue  # shared data moving along with the processes (hanoi's pegs b, c)
        if oa is None or ob is None or oa == ob or owner_map.setdefault(oa, ob) != ob:
            whole = False
            break
    if whole:
        whole = bool(owner_map)
    if whole:
        images = set(owner_map.values())
        whole = len(images) == len(owner_map) and images == set(owner_map)
    if whole:
        for v in model.variables:
            if v.owner in owner_map and v.name not in variable_map:
                whole = False  # a variable of a moved process stays behind
    if whole and index_maps:
        pid = _pids(model)
        numbers = {pid.get(a): pid.get(b) for a, b in owner_map.items()}
        # Arrays move along with the processes: by the processes' pids when they have pids
        # (P_0, user[2]), else by one shared index map (DVE processes A, B).
        whole = shared_index is not None and (
            None in numbers or None in numbers.values() or _same_up_to_offset(shared_index, numbers))
    return _Moves(index_maps, variable_map, owner_map if whole else None, True)


def _cycles_of(mapping: dict) -> list[list]:
    seen, cycles = set(), []
    for start in sorted(mapping, key=_natural):
        if start in seen or mapping[start] == start:
            continue
        cycle, x = [], start
        while x not in seen:
            seen.add(x)
            cycle.append(x)
            x = mapping[x]
        cycles.append(cycle)
    return cycles


def _natural(x):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(x))]


def _describe_permutation(mapping: dict, noun: str) -> str:
    if set(mapping) != set(mapping.values()):
        # A bijection between two different value sets (variables with different domains).
        pairs = ", ".join(f"{a}→{b}" for a, b in sorted(mapping.items(), key=lambda p: _natural(p[0])))
        return f"map {noun} {pairs}"
    cycles = _cycles_of(mapping)
    if cycles and all(len(c) == 2 for c in cycles):
        return f"swap {noun} " + ", ".join(f"{a}↔{b}" for a, b in cycles)
    if len(cycles) == 1:
        c = cycles[0]
        return f"rotate {noun} " + "→".join(map(str, c + [c[0]]))
    return f"permute {noun} " + " ".join("(" + "→".join(map(str, c + [c[0]])) + ")" for c in cycles)


def _pids(model: SequentialModel) -> dict:
    """Process name -> the number the model's data uses for it (``Process.pid``, None when
    it has none).

    Fallback for models built by hand without ``processes`` (tests): the trailing number of
    each owner name (``P_3``, ``user[2]``), which is what the front ends' pids are."""
    if model.processes:
        return {p.name: p.pid for p in model.processes}
    owners = {v.owner for v in model.variables if v.owner is not None}
    return {o: int(m.group(1)) if (m := re.search(r"(\d+)\D*$", o)) else None for o in owners}


def _pid_like(value_map: dict, process: dict) -> bool:
    """Whether ``value_map`` permutes pid values the way ``process`` permutes processes,
    up to a constant offset (``id = pid + 1``): v ↦ process(v - c) + c.

    ``process`` maps the processes' numbers (``Process.pid``, or a family's array indices);
    the offset is how the model's *data* encodes a process (Promela's ``_pid - 1`` when
    ``init`` is pid 0, a CSP# family over ``1..N`` stored in arrays from 0), which no
    front end can know, so it stays a small search."""
    if not process:
        return False
    for c in range(-2, 3):
        if all(a - c in process and process[a - c] + c == b for a, b in value_map.items()):
            return True
    return False


def _moved_slots(sigma: StatePermutation, model: SequentialModel, slots) -> dict:
    """Slot label -> slot label for slots moved to another variable, a whole array written
    ``a[]`` when all its elements go to the same elements of one other array."""
    by_pair: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for k, t in enumerate(sigma.target):
        a, b = slots[k], slots[t]
        if a.variable != b.variable:
            by_pair.setdefault((a.variable, b.variable), []).append((k, t))
    mapping = {}
    for (a, b), pairs in by_pair.items():
        va, vb = model.variable(a), model.variable(b)
        if (va.size is not None and va.length == vb.length == len(pairs)
                and all(slots[k].index == slots[t].index for k, t in pairs)):
            mapping[f"{a}[]"] = f"{b}[]"
        else:
            mapping.update((slots[k].label, slots[t].label) for k, t in pairs)
    return mapping


def _same_up_to_offset(m: dict, reference: dict) -> bool:
    """Whether ``m`` is ``reference`` shifted by a small constant c: m(i + c) = reference(i) + c
    for every i ``reference`` moves, and ``m`` moves nothing else.  (An array indexed by
    ``pid + c``: the offset is in the model's code, not in the IR; see ``_pid_like``.)"""
    moved_m = {a: b for a, b in m.items() if a != b}
    moved_r = {a: b for a, b in reference.items() if a != b}
    return any(
        len(moved_m) == len(moved_r) and all(moved_m.get(a + c) == b + c for a, b in moved_r.items())
        for c in range(-2, 3)
    )


def classify(sigma: StatePermutation, model: SequentialModel, slots) -> tuple[str, str]:
    """(kind, description in words) of one state permutation."""
    moves = _moves(sigma, model, slots)
    moves_variables = bool(moves.index_maps or moves.variable_map)
    # Value permutations per variable (merged over its elements when they agree).
    value_maps: dict[str, list[dict]] = {}
    for k, m in enumerate(sigma.values):
        if any(a != b for a, b in m.items()):
            value_maps.setdefault(slots[k].variable, []).append({a: b for a, b in m.items() if a != b})
    process_numbers = {}
    if moves.processes is not None:
        if moves.owners:
            pid = _pids(model)
            for a, b in moves.processes.items():
                na, nb = pid.get(a), pid.get(b)
                if na is not None and nb is not None:
                    process_numbers[na] = nb
        else:
            process_numbers = dict(moves.processes)
    pid_like = all(_pid_like(m, process_numbers) for maps in value_maps.values() for m in maps)
    moved = sorted(set(moves.index_maps) | set(moves.variable_map), key=_natural)
    parts = []
    if moves.processes is not None:
        what = ", ".join(f"{name}[]" if model.variable(name).size is not None and name in moves.index_maps
                         else name for name in moved)
        parts.append(f"{_describe_permutation(moves.processes, 'processes')} ({what})")
    elif moves_variables:
        for name in sorted(moves.index_maps, key=_natural):
            parts.append(f"{_describe_permutation(moves.index_maps[name], 'elements')} of {name}[]")
        if moves.variable_map:
            parts.append(_describe_permutation(_moved_slots(sigma, model, slots), "variables"))
    data_parts = []
    if value_maps and not (moves.processes is not None and pid_like):
        for name in sorted(value_maps, key=_natural):
            maps = value_maps[name]
            var = model.variable(name)
            every = len(maps) == var.length and all(m == maps[0] for m in maps)
            where = f"{name}[]" if var.size is not None and every else name
            if var.size is not None and not every:
                where = ", ".join(
                    slots[k].label for k, m in enumerate(sigma.values)
                    if slots[k].variable == name and any(a != b for a, b in m.items())
                )
            named = {var.show_value(a): var.show_value(b) for a, b in maps[0].items()}
            data_parts.append(f"{_describe_permutation(named, 'values')} of {where}")
    if moves.processes is not None and (not value_maps or pid_like):
        kind = PROCESS
        text = "process symmetry: " + parts[0]
        if value_maps:
            text += " (pid-valued data permuted alike)"
    elif not moves_variables:
        kind = DATA
        text = "data symmetry: " + "; ".join(data_parts)
    elif not value_maps:
        kind = VARIABLE
        text = "variable symmetry: " + "; ".join(parts)
    else:
        kind = MIXED
        text = "mixed symmetry: " + "; ".join(parts + data_parts)
    return kind, text


def literal_cycles(images: Sequence[int], literals: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """The cycles of the permutation ``images`` (0-based) that move something, each from its
    smallest point, the points named by ``literals``."""
    seen, cycles = set(), []
    for p in range(len(images)):
        if p in seen or images[p] == p:
            continue
        cycle, q = [], p
        while q not in seen:
            seen.add(q)
            cycle.append(literals[q])
            q = images[q]
        cycles.append(tuple(cycle))
    return tuple(cycles)


def _split_mixed(images, pts: _Points, group: PermutationGroup, relabel, moved):
    """Split a mixed generator into (variable part, value part) when both lie in the group."""
    sigma = to_state_permutation(images, pts)
    # The variable part keeps the slot map and drops value maps (identity on values).
    part = []
    for p, (k, a) in enumerate(pts.pairs):
        t = sigma.target[k]
        q = pts.index.get((t, a))
        if q is None:
            return None
        part.append(q)
    if any(p not in relabel and part[p] != p for p in range(len(part))):
        return None
    if not group.contains(Permutation([relabel[part[p]] for p in moved])):
        return None
    inverse = [0] * len(part)
    for p, q in enumerate(part):
        inverse[q] = p
    # images = part ∘ rest, i.e. apply rest first then part: rest = part⁻¹ ∘ images
    rest = tuple(inverse[images[p]] for p in range(len(images)))
    return tuple(part), rest


def symmetry_group(
    model: SequentialModel, graph: ColouredGraph, node_generators, split: bool = True,
    aut_order: "int | None" = None, engine: str = "auto",
) -> SymmetryGroup:
    """The state group of the automorphisms ``node_generators`` of ``graph``; given
    ``aut_order`` (|Aut(graph)|), an action on more than ``SYMPY_POINTS`` moved points gets
    its order from ``engine`` (``action_order``) and keeps its mixed generators whole."""
    slots = state_slots(model)
    pts = _points(slots)
    literals = tuple(literal_label(slots[k], v) for k, v in pts.pairs)
    raw = []
    for images in literal_permutations(graph, node_generators, pts):
        if any(p != q for p, q in enumerate(images)) and images not in raw:
            raw.append(images)
    many = len({p for g in raw for p, q in enumerate(g) if p != q}) > SYMPY_POINTS
    if many and aut_order is not None:
        order, split = action_order(graph, aut_order, engine), False
    else:
        order = group_order(raw)
    if split and raw:
        moved = sorted({p for g in raw for p, q in enumerate(g) if p != q})
        relabel = {p: i for i, p in enumerate(moved)}
        group = PermutationGroup([Permutation([relabel[g[p]] for p in moved]) for g in raw])
        refined = []
        for images in raw:
            kind, _ = classify(to_state_permutation(images, pts), model, slots)
            pieces = [images]
            if kind == MIXED:
                halves = _split_mixed(images, pts, group, relabel, moved)
                if halves is not None:
                    pieces = [h for h in halves if any(p != q for p, q in enumerate(h))]
            for piece in pieces:
                if piece not in refined:
                    refined.append(piece)
        raw = refined
    generators = []
    for images in raw:
        sigma = to_state_permutation(images, pts)
        kind, text = classify(sigma, model, slots)
        generators.append(Generator(sigma, kind, text, literal_cycles(images, literals)))
    return SymmetryGroup(tuple(generators), order, literals, tuple(raw))
