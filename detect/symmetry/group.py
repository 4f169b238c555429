"""From graph automorphisms to symmetries of states: literal permutations, order, kinds, words.

The state group is the action of Aut(graph) on the *pre-state literals* (one point per slot and
value).  Its orders are |Aut| divided by a kernel's order, which the engine counts
(``symmetry_group``); ``group_order`` computes orders of literal permutations by
Schreier–Sims (``detect.symmetry.permgroup``) on the moved points only, one direct factor at a
time (generators whose moved points are disjoint commute; fine on a few hundred points and
generators).

The *headline* is the group's action on the states the value analysis allows
(``detect.transform.domains.held_values``: per slot, a superset of the values reachable
states hold, and slots a program counter ties).  Its points are the literals those states
can hold, closed under the group, with literals that every reachable state holds both or
neither of merged (``held_points``).  A group element fixing every point fixes every
reachable state, so the headline is at least the order of the action on the reachable
states, and equal to it when the analysis is exact.  Slots that hold the same value in
every reachable state (``detect.transform.agreement``: an inductive equality invariant)
share their literals' points too, so swapping them is inert.  Generators acting trivially on the
points are *inert*: they swap values never held (a 120-cell array written in 21 cells swaps
the values and places of the other 99 freely) or variables that always agree.  They are
still automorphisms and still reported, apart.

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

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from detect.symmetry.automorphisms import Automorphisms, stabiliser_orders
from detect.symmetry.graph import ColouredGraph
from detect.ir import SequentialModel, Slot, literal_label, state_slots
from detect.symmetry.perm import StatePermutation
from detect.symmetry.permgroup import PermutationGroup, permutation_group
from detect.transform.agreement import agreeing_slots
from detect.transform.domains import HeldValues, held_values

PROCESS, VARIABLE, DATA, MIXED = "process", "variable", "data", "mixed"


@dataclass(frozen=True)
class Generator:
    permutation: StatePermutation
    kind: str
    description: str
    #: cycles on literals, each a tuple of ``"var[idx]=value"`` strings
    cycles: tuple[tuple[str, ...], ...]
    #: fixes every state the value analysis allows (module docstring)
    inert: bool = False


@dataclass(frozen=True)
class SymmetryGroup:
    """Generators acting on states first, then the inert ones."""

    generators: tuple[Generator, ...]
    #: the headline: the order of the group's action on the states the value analysis allows
    order: int
    #: point ``p`` of the literal permutations is literal ``literals[p]``
    literals: tuple[str, ...]
    #: generators as permutations of literal points (images), same order as ``generators``
    points: tuple[tuple[int, ...], ...]
    #: the order on all literals, inert generators included
    full_order: int

    @property
    def acting(self) -> tuple[Generator, ...]:
        """The generators that are not inert (what reduction uses)."""
        return tuple(g for g in self.generators if not g.inert)

    @property
    def acting_points(self) -> tuple[tuple[int, ...], ...]:
        return tuple(images for g, images in zip(self.generators, self.points) if not g.inert)

    @property
    def inert(self) -> tuple[Generator, ...]:
        return tuple(g for g in self.generators if g.inert)


@dataclass(frozen=True)
class _Points:
    slots: tuple[Slot, ...]
    index: dict  # (slot, value) -> point
    pairs: tuple[tuple[int, int], ...]  # point -> (slot, value)
    #: per slot, its identity value map, shared by every permutation that fixes the slot's
    #: literals (value maps are never changed once built)
    identity: tuple[dict, ...] = ()


def _points(slots: Sequence[Slot]) -> _Points:
    index, pairs = {}, []
    for k, slot in enumerate(slots):
        for value in slot.domain:
            index[(k, value)] = len(pairs)
            pairs.append((k, value))
    return _Points(tuple(slots), index, tuple(pairs), tuple({v: v for v in slot.domain} for slot in slots))


def literal_permutations(graph: ColouredGraph, node_generators, pts: _Points) -> list[tuple[int, ...]]:
    """Each graph generator restricted to pre-state literals, as an image list on points."""
    node_to_point = {}
    for k, lits in enumerate(graph.pre_literal):
        for value, node in lits.items():
            node_to_point[node] = pts.index[(k, value)]
    nodes = [graph.pre_literal[k][value] for k, value in pts.pairs]
    result = []
    for g in node_generators:
        try:
            result.append(tuple([node_to_point[g[node]] for node in nodes]))
        except KeyError:
            raise AssertionError("automorphism moved a pre-state literal off the pre-state literals") from None
    return result


def to_state_permutation(images: Sequence[int], pts: _Points) -> StatePermutation:
    n = len(pts.slots)
    target = list(range(n))
    values: list[dict] = list(pts.identity) if pts.identity else [{v: v for v in s.domain} for s in pts.slots]
    # Only the slots with a moved literal need a map of their own (thousands of generators
    # over thousands of literals each move a handful).
    touched = sorted({pts.pairs[p][0] for p, q in enumerate(images) if p != q})
    for k in touched:
        mapping, image_slot = {}, None
        for value in pts.slots[k].domain:
            k2, b = pts.pairs[images[pts.index[(k, value)]]]
            if image_slot not in (None, k2):
                raise AssertionError("literal permutation splits a variable")
            image_slot = k2
            mapping[value] = b
        target[k], values[k] = image_slot, mapping
    return StatePermutation(tuple(target), tuple(values))


def _factors(point_generators: Sequence[Sequence[int]]) -> list[list[int]]:
    """Indices of the non-identity generators, grouped so that different groups move disjoint
    sets of points (the connected components of "moves a point in common").  The group is
    the direct product of the groups the factors generate."""
    parent: dict[int, int] = {}

    def find(p: int) -> int:
        while parent.setdefault(p, p) != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    firsts = []
    for g in point_generators:
        moved = [p for p, q in enumerate(g) if p != q]
        firsts.append(moved[0] if moved else None)
        root = find(moved[0]) if moved else None
        for p in moved[1:]:
            other = find(p)
            if other != root:
                parent[other] = root
    factors: dict[int, list[int]] = {}
    for i, first in enumerate(firsts):
        if first is not None:
            factors.setdefault(find(first), []).append(i)
    return list(factors.values())


def _group_on_moved(point_generators: Sequence[Sequence[int]]) -> tuple[PermutationGroup, dict]:
    """The group of ``point_generators`` on their moved points only, with the relabelling
    point -> its point there."""
    moved = sorted({p for g in point_generators for p, q in enumerate(g) if p != q})
    relabel = {p: i for i, p in enumerate(moved)}
    return permutation_group([[relabel[g[p]] for p in moved] for g in point_generators], len(moved)), relabel


def group_order(point_generators: Sequence[Sequence[int]]) -> int:
    """Order of the group generated: the product over its direct factors (``_factors``), each
    on its moved points only."""
    order = 1
    for factor in _factors(point_generators):
        order *= _group_on_moved([point_generators[i] for i in factor])[0].order()
    return order


#: Largest number of generators of the factors a membership test builds a group of.
_MEMBERSHIP_LIMIT = 200


class _Membership:
    """Membership in the group generated by ``point_generators``, tested in the product of
    the direct factors an element touches (groups built once per set of factors);
    "no" when those factors have more than ``_MEMBERSHIP_LIMIT`` generators."""

    def __init__(self, point_generators: Sequence[Sequence[int]]):
        self.generators = point_generators
        self.factors = _factors(point_generators)
        self.factor_of = {p: f for f, factor in enumerate(self.factors)
                          for i in factor for p, q in enumerate(point_generators[i]) if p != q}
        self.groups: dict[frozenset, tuple[PermutationGroup, dict]] = {}

    def contains(self, images: Sequence[int]) -> bool:
        moved = [p for p, q in enumerate(images) if p != q]
        if any(p not in self.factor_of for p in moved):
            return False
        touched = frozenset(self.factor_of[p] for p in moved)
        if not touched:
            return True
        if sum(len(self.factors[f]) for f in touched) > _MEMBERSHIP_LIMIT:
            return False  # too dear to decide; callers only lose a simplification
        if touched not in self.groups:
            gens = [self.generators[i] for f in sorted(touched) for i in self.factors[f]]
            self.groups[touched] = _group_on_moved(gens)
        group, relabel = self.groups[touched]
        inverse = {i: p for p, i in relabel.items()}
        return group.contains([relabel[images[inverse[i]]] for i in range(len(relabel))])


def held_points(point_generators: Sequence[Sequence[int]], pts: _Points, held: HeldValues,
                agree: Sequence[Sequence[int]] = ()) -> dict[int, int]:
    """The headline's points (module docstring): literal point -> the point it belongs to, for
    the literals some allowed state holds and their images under the group.

    Two literals share a point only when every reachable state holds both or neither: the
    literals of slots that hold one value, the literals of one value in slots that always
    agree (``agree``, classes of slots), and the literals that one location's values fix
    in tied slots (``HeldValues.determined``).  The literal set is closed under the
    generators, so each generator permutes it slot by slot, and slots holding one value go
    to slots holding one value.  If some generator does not map points onto points, only the
    first kind of sharing is kept (always well defined)."""
    closure = {pts.index[(k, v)] for k, values in enumerate(held.values) for v in values}
    queue = list(closure)
    for p in queue:
        for g in point_generators:
            q = g[p]
            if q not in closure:
                closure.add(q)
                queue.append(q)
    held_by: dict[int, list[int]] = {}
    for p in sorted(closure):
        held_by.setdefault(pts.pairs[p][0], []).append(p)
    single = [ps[0] for ps in held_by.values() if len(ps) == 1]
    merged = {p: p for p in closure}

    def find(p: int) -> int:
        while merged[p] != p:
            merged[p] = merged[merged[p]]
            p = merged[p]
        return p

    def union(ps) -> None:
        root = find(ps[0])
        for q in ps[1:]:
            merged[find(q)] = root

    if single:
        union(single)
    constants_only = dict(merged)
    # Slots that agree in every reachable state (``agree``): each value is held by all of
    # them or by none.
    for slots in agree:
        common = frozenset.intersection(*(held.values[k] for k in slots))
        for value in common:
            members = [pts.index[(k, value)] for k in slots if (k, value) in pts.index]
            members = [p for p in members if p in merged]
            if len(members) > 1:
                union(members)
    # Tied slots: one location's value c fixes each of them, through the same partition.
    by_partition: dict[tuple, list[tuple[int, dict]]] = {}
    for k, fixes in enumerate(held.determined):
        for location, pairs in fixes:
            blocks: dict[int, list[int]] = {}
            for c, v in pairs:
                blocks.setdefault(v, []).append(c)
            key = (location, tuple(sorted(tuple(b) for b in blocks.values())))
            by_partition.setdefault(key, []).append((k, {c: v for c, v in pairs}))
    for (_location, partition), fixed in by_partition.items():
        if len(fixed) < 2:
            continue
        for block in partition:
            union([pts.index[(k, value_at[block[0]])] for k, value_at in fixed])
    point = {p: find(p) for p in closure}
    members: dict[int, list[int]] = {}
    for p, x in point.items():
        members.setdefault(x, []).append(p)
    shared = [ps for ps in members.values() if len(ps) > 1]
    for g in point_generators:
        if any(len({point[g[p]] for p in ps}) > 1 for ps in shared):
            merged = constants_only
            return {p: find(p) for p in closure}
    return point


def _moved_slots_of(point_generators: Sequence[Sequence[int]], pts: _Points) -> set[int]:
    """The slots some generator moves to another slot."""
    return {pts.pairs[p][0] for g in point_generators for p, q in enumerate(g)
            if pts.pairs[p][0] != pts.pairs[q][0]}


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
    # Slots whose value map moves a value (keys and values compared as lists: C speed, for
    # thousands of generators over thousands of literals).
    permuted = [k for k, m in enumerate(sigma.values) if list(m) != list(m.values())]
    for k in permuted:
        m = sigma.values[k]
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
                where = ", ".join(slots[k].label for k in permuted if slots[k].variable == name)
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
    for p in [p for p, q in enumerate(images) if p != q]:
        if p in seen:
            continue
        cycle, q = [], p
        while q not in seen:
            seen.add(q)
            cycle.append(literals[q])
            q = images[q]
        cycles.append(tuple(cycle))
    return tuple(cycles)


def _split_mixed(images, pts: _Points, members: _Membership):
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
    if not members.contains(part):
        return None
    inverse = [0] * len(part)
    for p, q in enumerate(part):
        inverse[q] = p
    # images = part ∘ rest, i.e. apply rest first then part: rest = part⁻¹ ∘ images
    rest = tuple(inverse[images[p]] for p in range(len(images)))
    return tuple(part), rest


def symmetry_group(
    model: SequentialModel, graph: ColouredGraph, aut: Automorphisms, split: bool = True,
    held: Optional[HeldValues] = None,
) -> SymmetryGroup:
    """The state group of the graph automorphisms ``aut``.  ``held``: what the value analysis
    proves of reachable states (``held_values(model)`` when not given).

    Both orders are |Aut| divided by the order of a kernel, which the engine counts on the
    graph with the literal nodes recoloured (``stabiliser_orders``): Schreier–Sims is
    hopeless on thousands of generators (a 120-cell array whose 99 unwritten cells may swap
    values and places freely), while counting with a finer colouring is what the engine
    does best."""
    slots = state_slots(model)
    pts = _points(slots)
    literals = tuple(literal_label(slots[k], v) for k, v in pts.pairs)
    raw = []
    seen = set()
    for images in literal_permutations(graph, aut.generators, pts):
        if any(p != q for p, q in enumerate(images)) and images not in seen:
            seen.add(images)
            raw.append(images)
    sigmas = {images: to_state_permutation(images, pts) for images in raw}
    kinds = {images: classify(sigma, model, slots) for images, sigma in sigmas.items()}
    if split and any(kind == MIXED for kind, _ in kinds.values()):
        members = _Membership(raw)
        refined: list = []
        for images in raw:
            pieces = [images]
            if kinds[images][0] == MIXED:
                halves = _split_mixed(images, pts, members)
                if halves is not None:
                    pieces = [h for h in halves if any(p != q for p, q in enumerate(h))]
            refined.extend(piece for piece in pieces if piece not in refined)
        raw = refined
    # Only generators need the points; the value analysis behind them can cost as much as the
    # narrowing did (a model with long channel buffers), so a trivial group skips it.
    point = held_points(raw, pts, held_values(model) if held is None else held,
                        agreeing_slots(model, _moved_slots_of(raw, pts))) if raw else {}
    inert = [all(point[images[p]] == x for p, x in point.items()) for images in raw]
    full_order = order = 1
    if raw:
        pre = {node: p for k, lits in enumerate(graph.pre_literal) for p, node in
               ((pts.index[(k, value)], node) for value, node in lits.items())}
        markings = [pre] if all(inert) else [pre, {node: point[p] for node, p in pre.items() if p in point}]
        kernels = stabiliser_orders(graph, markings)
        # exact integers: a kernel is a subgroup, so its order divides |Aut|
        if any(aut.order % k for k in kernels):
            raise ArithmeticError(f"kernel orders {kernels} do not all divide |Aut| = {aut.order}")
        full_order = aut.order // kernels[0]
        order = 1 if all(inert) else aut.order // kernels[1]
    generators = []
    for images, dead in zip(raw, inert):
        sigma = sigmas.get(images) or to_state_permutation(images, pts)
        kind, text = kinds.get(images) or classify(sigma, model, slots)
        generators.append(Generator(sigma, kind, text, literal_cycles(images, literals), dead))
    ranked = sorted(range(len(raw)), key=lambda i: inert[i])  # stable: acting ones first
    return SymmetryGroup(tuple(generators[i] for i in ranked), order, literals,
                         tuple(raw[i] for i in ranked), full_order)
