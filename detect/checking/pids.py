"""Seed 001's pid abstraction: states that differ only in the pids given to dynamically
created processes are one state.

Klaudel et al. (ISCIS 2009, ``../shared/seeds/001``) call two states equivalent when a
bijection of pids maps one onto the other and preserves the relations between pids that the
model can observe (parent, elder sibling, ...).  In Spin the relation that matters is
creation order: a new process takes pid ``_nr_pr`` and only the newest process is removed
when it ends, so the pids in use are ``0 .. _nr_pr - 1`` in creation order, and swapping
two processes that may still end changes which of them can be removed -- no reduction is
exact there.  For processes that never end and never read ``_pid``, no relation between
their pids is observable (the seed's Ω* is empty): a front end names them in the model's
annotation ``"anonymous_pids"`` = ``(groups, pid_valued)``, ``groups`` being tuples of
``Process`` names of one definition, ``pid_valued`` the variables that hold a pid (Promela's
``_atomic``), which are relabelled with the processes.

The canonical form (``pid_canonicaliser``) keeps the pids in use and, within each group,
gives the present processes (not all of their slots 0) their states in sorted order.  It is
exact: two states get the same form iff such a relabelling maps one onto the other.

A front end names only processes whose pids it believes unobservable; the explorer does not
trust it: ``pid_swaps`` are the transpositions the canonical form is composed of, each
checked on every expanded state where it applies, as the group's generators are.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from detect.ir import SequentialModel, slot_offsets, state_slots
from detect.statespace.explore import LocalSymmetry

State = tuple[int, ...]


@dataclass(frozen=True)
class AnonymousPids:
    """Per group, per member: its pid and the state positions it owns (one layout per
    group: the members are instances of one definition); ``pid_slots``: positions of the
    pid-valued slots."""

    groups: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]
    pid_slots: tuple[int, ...]


def anonymous_pids(model: SequentialModel) -> Optional[AnonymousPids]:
    """The model's anonymous process groups as state positions (None when it has none).

    A front end's group is split by the members' domains: narrowing gives each slot the
    values reachable states hold there (and folds a slot that holds one value into the
    steps that read it), so members whose slots got different domains -- ``run W(0); run
    W(1)`` always gives pid 1 the argument 0 -- behave alike only on states the narrowed
    model does not describe; only members with equal domains position by position (and
    naming the same pid-valued slots' domains alike) stay interchangeable; members never
    present (every slot always 0) are left out."""
    annotated = model.annotation("anonymous_pids")
    if not annotated:
        return None
    names, pid_valued = annotated
    offsets = slot_offsets(model)
    domains = [slot.domain for slot in state_slots(model)]
    pid_slots = tuple(offsets[v] for v in pid_valued if v in offsets)
    processes = {p.name: p for p in model.processes}
    groups = []
    for group in names:
        members = []
        for name in group:
            p = processes[name]
            # A variable narrowing dropped (constant) is the same in every member.
            members.append((p.pid, tuple(offsets[v] + k for v, k in p.slots if v in offsets)))
        if len({len(positions) for _, positions in members}) != 1:
            raise ValueError(f"anonymous processes {group} own differently shaped states")
        alike: dict[tuple, list] = {}
        for pid, positions in members:
            if all(domains[k] == (0,) for k in positions):
                continue  # never present: nothing to exchange
            signature = (tuple(domains[k] for k in positions), tuple(pid in domains[k] for k in pid_slots))
            alike.setdefault(signature, []).append((pid, positions))
        groups.extend(tuple(same) for same in alike.values() if len(same) > 1)
    if not groups:
        return None
    return AnonymousPids(tuple(groups), pid_slots)


def pid_canonicaliser(abstraction: AnonymousPids) -> Callable[[State], State]:
    """The canonical form of the module docstring: within each group the present members'
    states sorted onto the present members' pids; a pid-valued slot holding a moved pid
    follows it (ties between equal states are broken by whether the slot names them)."""
    groups, pid_slots = abstraction.groups, abstraction.pid_slots

    def canonicalise(s: State) -> State:
        out = list(s)
        renamed: dict[int, int] = {}
        for members in groups:
            present = [(pid, positions) for pid, positions in members if any(s[k] for k in positions)]
            if len(present) < 2:
                continue
            keyed = sorted((tuple(s[k] for k in positions), tuple(s[k] == pid for k in pid_slots), pid)
                           for pid, positions in present)
            for (values, _, old_pid), (new_pid, positions) in zip(keyed, present):
                renamed[old_pid] = new_pid
                for k, v in zip(positions, values):
                    out[k] = v
        for k in pid_slots:
            out[k] = renamed.get(s[k], s[k])
        return tuple(out)

    return canonicalise


def pid_swaps(abstraction: AnonymousPids) -> tuple[LocalSymmetry, ...]:
    """The moves of ``pid_canonicaliser`` as symmetries to check: for two members a < b of a
    group, exchanging their states and the pid values a, b in the pid-valued slots, where a
    and b are present and no member between them is (the swaps of neighbouring present
    members generate every reordering the canonical form makes)."""
    out = []
    for members in abstraction.groups:
        for i, (pid_a, pos_a) in enumerate(members):
            for j in range(i + 1, len(members)):
                pid_b, pos_b = members[j]
                between = tuple(positions for _, positions in members[i + 1:j])
                out.append(LocalSymmetry(_present_pair(pos_a, pos_b, between),
                                         _swap(pos_a, pos_b, pid_a, pid_b, abstraction.pid_slots),
                                         f"swap of anonymous processes with pids {pid_a} and {pid_b}"))
    return tuple(out)


def _present_pair(a: tuple[int, ...], b: tuple[int, ...], between: tuple[tuple[int, ...], ...]
                  ) -> Callable[[State], bool]:
    def applies(s: State) -> bool:
        return (any(s[k] for k in a) and any(s[k] for k in b)
                and not any(s[k] for positions in between for k in positions))

    return applies


def _swap(a: tuple[int, ...], b: tuple[int, ...], pid_a: int, pid_b: int,
          pid_slots: tuple[int, ...]) -> Callable[[State], State]:
    names = {pid_a: pid_b, pid_b: pid_a}

    def apply(s: State) -> State:
        out = list(s)
        for x, y in zip(a, b):
            out[x], out[y] = s[y], s[x]
        for k in pid_slots:
            out[k] = names.get(s[k], s[k])
        return tuple(out)

    return apply
