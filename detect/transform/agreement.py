"""Slots that hold the same value in every reachable state (an equality invariant).

``agreeing_slots`` refines a partition of the state slots until every summand keeps it:
two slots stay in one class only if they start with the same single value and every step
from a state where each class agrees writes the same value to both (or leaves both alone).
That is an inductive invariant, so it holds in every reachable state.

A step is read symbolically: each slot's value after the program is a term over the
pre-state (a slot standing for its whole class), the summand's locals and constants, built
by structure (``x := y + 1`` gives ``+(class of y, 1)``; a branch gives ``ite(c, a, b)``
where the two sides differ; a write through a variable index gives each element
``ite(i == k, v, old)``; a loop makes what it writes unknown).  Two slots agree after the
step when their terms are equal.  Equal terms mean equal values; different terms only
split a class, which is always sound.

The headline group order (``detect.symmetry.group.held_points``) uses it: a swap of two
elements that always agree fixes every reachable state (TopSPIN's
``reordered_larger_struct``: the three elements a ``d_step`` sets together).
"""
from __future__ import annotations

import itertools
from typing import Sequence

from detect.ir import (
    Assert, Assign, Binary, Const, Expr, If, Index, Ite, Name, SequentialModel, Stmt, Unary,
    While, slot_offsets, state_slots,
)
from detect.ir.walk import statements


class _Terms:
    """Hash-consed terms: a term is an int naming a node (a tuple whose sub-terms are ints),
    equal terms the same int.  Comparing or hashing a term is then O(1), where nested tuples
    were compared and hashed through the whole tree below them, shared sub-terms again at
    every use: on CMurphi's adash.m (2 x 3 x 3 channels of 6 messages, variable-index writes)
    the merges after each branch took minutes."""

    def __init__(self):
        self.ids: dict = {}
        self.nodes: list = []

    def __call__(self, *node) -> int:
        i = self.ids.get(node)
        if i is None:
            i = self.ids[node] = len(self.nodes)
            self.nodes.append(node)
        return i


class _Step:
    """One summand's program evaluated to terms (internal to ``agreeing_slots``)."""

    def __init__(self, model: SequentialModel, offsets: dict, rep: Sequence[int], terms: _Terms, fresh):
        self.model, self.offsets, self.t, self.fresh = model, offsets, terms, fresh
        self.cur = {k: terms("pre", r) for k, r in enumerate(rep)}
        self.temps: dict = {}

    def term(self, e: Expr):
        t = self.t
        if isinstance(e, Const):
            return t("const", e.value)
        if isinstance(e, Name):
            if e.name in self.temps:
                return self.temps[e.name]
            if e.name in self.offsets:
                return self.cur[self.offsets[e.name]]
            return t("local", e.name)
        if isinstance(e, Index):
            var = self.model.variable(e.array)
            base = self.offsets[e.array]
            index = self.term(e.index)
            node = t.nodes[index]
            if node[0] == "const":
                k = node[1]
                return self.cur[base + k] if 0 <= k < var.length else self.fresh()
            return t("read", index, tuple(self.cur[base + k] for k in range(var.length)))
        if isinstance(e, Unary):
            return t("unary", e.op, self.term(e.operand))
        if isinstance(e, Binary):
            return t("binary", e.op, self.term(e.left), self.term(e.right))
        if isinstance(e, Ite):
            return t("ite", self.term(e.cond), self.term(e.then), self.term(e.else_))
        return self.fresh()

    def run(self, stmts: Sequence[Stmt]) -> None:
        for st in stmts:
            if isinstance(st, Assign):
                value = self.term(st.value)
                target = st.target
                if isinstance(target, Name):
                    if target.name in self.offsets:
                        self.cur[self.offsets[target.name]] = value
                    else:
                        self.temps[target.name] = value
                    continue
                var = self.model.variable(target.array)
                base = self.offsets[target.array]
                index = self.term(target.index)
                node = self.t.nodes[index]
                if node[0] == "const":
                    if 0 <= node[1] < var.length:
                        self.cur[base + node[1]] = value
                    continue
                t = self.t
                for k in range(var.length):
                    self.cur[base + k] = t("ite", t("binary", "==", index, t("const", k)), value,
                                           self.cur[base + k])
            elif isinstance(st, If):
                c = self.term(st.cond)
                cur0, temps0 = dict(self.cur), dict(self.temps)
                self.run(st.then)
                cur1, temps1 = self.cur, self.temps
                self.cur, self.temps = dict(cur0), dict(temps0)
                self.run(st.else_)
                t = self.t
                self.cur = {k: a if a == self.cur[k] else t("ite", c, a, self.cur[k]) for k, a in cur1.items()}
                self.temps = {n: a if a == self.temps[n] else t("ite", c, a, self.temps[n])
                              for n, a in temps1.items() if n in self.temps}
            elif isinstance(st, While):
                # Whatever the loop writes is unknown after it (each slot on its own).
                written = {x.target.name if isinstance(x.target, Name) else x.target.array
                           for x in statements(st.body) if isinstance(x, Assign)}
                for name in written:
                    if name in self.offsets:
                        var = self.model.variable(name)
                        for k in range(var.length):
                            self.cur[self.offsets[name] + k] = self.fresh()
                    else:
                        self.temps[name] = self.fresh()
            elif isinstance(st, Assert):
                continue
            else:
                raise ValueError(f"unknown statement {st!r}")


def agreeing_slots(model: SequentialModel, candidates: "Sequence[int] | None" = None) -> tuple[tuple[int, ...], ...]:
    """Classes (two slots or more, each sorted) of slots that agree in every reachable
    state (module docstring), among ``candidates`` (default: every slot)."""
    slots = state_slots(model)
    offsets = slot_offsets(model)
    inits = [allowed for v in model.variables for allowed in v.init]
    pool = range(len(slots)) if candidates is None else sorted(set(candidates))
    # Start: same domain, same single initial value.
    start: dict = {}
    for k in pool:
        if len(inits[k]) == 1:
            start.setdefault((slots[k].domain, inits[k][0]), []).append(k)
    classes = [c for c in start.values() if len(c) > 1]
    counter = itertools.count()
    terms = _Terms()

    def fresh() -> int:
        return terms("unknown", next(counter))

    while classes:
        rep = list(range(len(slots)))
        for c in classes:
            for k in c:
                rep[k] = c[0]
        refined = classes
        for summand in model.summands:
            step = _Step(model, offsets, rep, terms, fresh)
            step.run(summand.program)
            split = []
            for c in refined:
                by_term: dict = {}
                for k in c:
                    by_term.setdefault(step.cur[k], []).append(k)
                split.extend(part for part in by_term.values() if len(part) > 1)
            refined = split
            if not refined:
                break
        if refined == classes:
            break
        classes = refined
    return tuple(tuple(c) for c in classes)
