"""From graph automorphisms to symmetries of states: literal permutations, order, kinds, words.

The state group is the action of Aut(graph) on the *pre-state literals* (one point per slot and
value).  Its order is computed with sympy's Schreier–Sims on the moved points only (sympy is
fine on a few hundred points; the whole graph can have 10^5).

A generator is a *process* symmetry when it moves variables (array elements or whole
per-process variables) and permutes values, if at all, the way it permutes processes
(pid-valued data); a *data* symmetry when it maps every variable to itself and permutes
values; *mixed* otherwise.  Where a mixed generator's process part is itself in the group,
it is split into a process and a data generator, which is what users read most easily.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from sympy.combinatorics import Permutation, PermutationGroup

from .graph import ColouredGraph
from .ir import SequentialModel, Slot, state_slots
from .perm import StatePermutation

PROCESS, DATA, MIXED = "process", "data", "mixed"


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


def _variable_map(sigma: StatePermutation, slots: Sequence[Slot]) -> dict:
    return {slots[k].variable: slots[t].variable for k, t in enumerate(sigma.target)}


def _process_permutation(sigma: StatePermutation, model: SequentialModel, slots):
    """(kind of moves, permutation) of processes: array indices or owners, or None."""
    index_map: dict[int, int] = {}
    owner_map: dict[str, str] = {}
    owners = {v.name: v.owner for v in model.variables}
    consistent = True
    for k, t in enumerate(sigma.target):
        a, b = slots[k], slots[t]
        if a.variable == b.variable:
            if a.index != b.index:
                if index_map.get(a.index, b.index) != b.index:
                    consistent = False
                index_map[a.index] = b.index
        else:
            oa, ob = owners.get(a.variable), owners.get(b.variable)
            if oa is not None and ob is not None:
                if owner_map.get(oa, ob) != ob:
                    consistent = False
                owner_map[oa] = ob
            else:
                owner_map[a.variable] = b.variable
    return index_map, owner_map, consistent


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
    if len(cycles) == 1 and len(cycles[0]) == 2:
        a, b = cycles[0]
        return f"swap {noun} {a}↔{b}"
    if len(cycles) == 1:
        c = cycles[0]
        return f"rotate {noun} " + "→".join(map(str, c + [c[0]]))
    return f"permute {noun} " + " ".join("(" + "→".join(map(str, c + [c[0]])) + ")" for c in cycles)


def _owner_number(owner: str):
    """The process number in an owner name (``P_3``, ``user[2]``), or None."""
    match = re.search(r"(\d+)\D*$", owner)
    return int(match.group(1)) if match else None


def _pid_like(value_map: dict, process: dict) -> bool:
    """Whether ``value_map`` permutes pid values the way ``process`` permutes processes,
    up to a constant offset (``id = pid + 1``): v ↦ process(v - c) + c."""
    if not process:
        return False
    for c in range(-2, 3):
        if all(a - c in process and process[a - c] + c == b for a, b in value_map.items()):
            return True
    return False


def classify(sigma: StatePermutation, model: SequentialModel, slots) -> tuple[str, str]:
    """(kind, description in words) of one state permutation."""
    index_map, owner_map, consistent = _process_permutation(sigma, model, slots)
    moves_variables = any(t != k for k, t in enumerate(sigma.target))
    # Value permutations per variable (merged over its elements when they agree).
    value_maps: dict[str, list[dict]] = {}
    for k, m in enumerate(sigma.values):
        if any(a != b for a, b in m.items()):
            value_maps.setdefault(slots[k].variable, []).append({a: b for a, b in m.items() if a != b})
    process_numbers = dict(index_map)
    if owner_map and not index_map:
        for a, b in owner_map.items():
            na, nb = _owner_number(a), _owner_number(b)
            if na is not None and nb is not None:
                process_numbers[na] = nb
    pid_like = all(_pid_like(m, process_numbers) for maps in value_maps.values() for m in maps)
    moved = sorted({slots[k].variable for k, t in enumerate(sigma.target) if t != k}, key=_natural)
    parts = []
    if moves_variables:
        arrays = [name for name in moved if model.variable(name).size is not None]
        if index_map and consistent and not owner_map:
            what = ", ".join(f"{a}[]" for a in arrays)
            parts.append(f"{_describe_permutation(index_map, 'processes')} ({what})")
        elif owner_map and consistent:
            parts.append(_describe_permutation(owner_map, "processes") + f" ({', '.join(moved)})")
        else:
            parts.append("permute variables " + ", ".join(moved))
    data_parts = []
    if value_maps and not (moves_variables and pid_like):
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
            data_parts.append(f"{_describe_permutation(maps[0], 'values')} of {where}")
    if moves_variables and (not value_maps or pid_like) and consistent:
        kind = PROCESS
        text = "process symmetry: " + parts[0]
        if value_maps:
            text += " (pid-valued data permuted alike)"
    elif not moves_variables:
        kind = DATA
        text = "data symmetry: " + "; ".join(data_parts)
    else:
        kind = MIXED
        text = "mixed symmetry: " + "; ".join(parts + data_parts)
    return kind, text


def literal_cycles(images: Sequence[int], literals: Sequence[str]) -> tuple[tuple[str, ...], ...]:
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
    model: SequentialModel, graph: ColouredGraph, node_generators, split: bool = True
) -> SymmetryGroup:
    slots = state_slots(model)
    pts = _points(slots)
    literals = tuple(f"{slots[k].label}={v}" for k, v in pts.pairs)
    raw = []
    for images in literal_permutations(graph, node_generators, pts):
        if any(p != q for p, q in enumerate(images)) and images not in raw:
            raw.append(images)
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
