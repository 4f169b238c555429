"""Permutations acting on states: the form in which symmetries leave the group stage.

A ``StatePermutation`` σ maps slot ``k`` (see ``detect.ir.state_slots``) to slot
``target[k]`` and value ``v`` of slot ``k`` to ``values[k][v]``:

    σ(s)[target[k]] = values[k][s[k]]

Invariant: ``target`` is a permutation of ``range(n)``; each ``values[k]`` is a bijection
from slot ``k``'s domain onto slot ``target[k]``'s domain.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence


@dataclass(frozen=True)
class StatePermutation:
    target: tuple[int, ...]
    values: tuple[Mapping[int, int], ...]

    def apply(self, state: Sequence[int]) -> tuple[int, ...]:
        out = [0] * len(state)
        for k, v in enumerate(state):
            out[self.target[k]] = self.values[k][v]
        return tuple(out)

    def is_identity(self) -> bool:
        return all(t == k for k, t in enumerate(self.target)) and all(
            all(a == b for a, b in m.items()) for m in self.values
        )

    def inverse(self) -> "StatePermutation":
        n = len(self.target)
        target = [0] * n
        values: list[Mapping[int, int]] = [{}] * n
        for k, t in enumerate(self.target):
            target[t] = k
            values[t] = {b: a for a, b in self.values[k].items()}
        return StatePermutation(tuple(target), tuple(values))

    def then(self, other: "StatePermutation") -> "StatePermutation":
        """Apply ``self`` first, then ``other``."""
        target = tuple(other.target[t] for t in self.target)
        values = tuple(
            {a: other.values[self.target[k]][b] for a, b in m.items()}
            for k, m in enumerate(self.values)
        )
        return StatePermutation(target, values)


def identity(domains: Sequence[Sequence[int]]) -> StatePermutation:
    return StatePermutation(
        tuple(range(len(domains))), tuple({v: v for v in d} for d in domains)
    )
