"""Location-sensitive value sets of process locals, to give them small sound domains.

``detect.domains.narrow_domains`` is flow-insensitive: in ``do :: l < N -> ...; l = l + 1 od``
the guard ``l < N`` and the increment are different steps, so it cannot bound ``l`` and a
``byte l`` keeps 256 values (and tables like ``level[i] >= l`` grow past the CSP limit).  The
Promela lowering gives every instance ``X`` a program counter ``X.pc``, so an abstract
interpretation over (pc value -> value sets of X's locals) recovers the bound.

Soundness: the abstract state of ``X`` at pc value ``p`` over-approximates the values of X's
locals in every reachable state with ``X.pc = p``.  Every summand that writes X's locals or
its pc is run abstractly from each abstract location it can start from (only ``p = c`` when
its guard has the conjunct ``X.pc == c``, every known location otherwise); every other
variable is read as its whole declared domain.  Value sets only grow and are bounded by the
declared domains, so the fixpoint is reached.  A local's domain becomes the union of its sets
and of every value any step writes to it (a value overwritten later in the same step is
written too): no reachable step writes a value outside it, so nothing reachable changes.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from detect import ir
from detect.domains import _Analysis, _eval, _refine, _run  # the shared value-set evaluator
from detect.ir import Binary, Const, Index, Name


def _conjuncts(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, Binary) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _pc_test(guard: ir.Expr, pc: str) -> Optional[int]:
    """``c`` when ``guard`` has the top-level conjunct ``pc == c``."""
    for c in _conjuncts(guard):
        if isinstance(c, Binary) and c.op == "==" and c.left == Name(pc) and isinstance(c.right, Const):
            return c.right.value
    return None


def _written(stmts) -> set[str]:
    out: set[str] = set()
    for st in stmts:
        if isinstance(st, ir.Assign):
            out.add(st.target.array if isinstance(st.target, Index) else st.target.name)
        elif isinstance(st, ir.If):
            out |= _written(st.then) | _written(st.else_)
        elif isinstance(st, ir.While):
            out |= _written(st.body)
    return out


def _after(name: str, before: frozenset, env: dict, writes: dict, domain: frozenset) -> frozenset:
    """Value set of ``name`` after an abstract run: strong when the run's final environment
    knows it, else before ∪ writes (it may or may not have been written); unknown = domain."""
    if name in env and env[name] is not None:
        return env[name] & domain
    if name in writes:
        w = writes[name]
        return domain if w is None else (before | w) & domain
    return before


def local_ranges(model: ir.SequentialModel, owner: str, pc: str) -> dict[str, frozenset]:
    """Over-approximated values of each local of ``owner`` (see module docstring)."""
    declared = {v.name: frozenset(v.domain) for v in model.variables}
    locals_ = [v for v in model.variables if v.owner == owner and v.name != pc]
    names = {v.name for v in locals_}
    mine = names | {pc}
    start = {v.name: frozenset(x for allowed in v.init for x in allowed) for v in locals_}
    states: dict[int, dict[str, frozenset]] = {}
    for p in model.variable(pc).init[0]:
        states[p] = dict(start)
    relevant = [(s, _pc_test(s.guard, pc)) for s in model.summands if _written(s.program) & mine]
    passing = {n: frozenset() for n in names}
    changed = True
    while changed:
        changed = False
        for s, test in relevant:
            for p in ([test] if test is not None else list(states)):
                if p not in states:
                    continue
                values = dict(declared)
                values.update(states[p])
                values[pc] = frozenset((p,))
                an = _Analysis(model, 1 << 30, frozenset(), values, {})
                env = {loc.name: frozenset(loc.domain) for loc in s.locals}
                env = _refine(s.guard, env, an, True)
                if any(v is not None and not v for v in env.values()):
                    continue  # the guard cannot hold here
                writes: dict = {}
                env = _run(s.program, env, an, writes)
                for n in names & writes.keys():
                    # A value written and overwritten within one step must be in the domain too
                    # (writing outside the domain is a fault).
                    w = writes[n]
                    passing[n] = passing[n] | (declared[n] if w is None else w & declared[n])
                targets = _after(pc, frozenset((p,)), env, writes, declared[pc])
                new = {n: _after(n, values[n], env, writes, declared[n]) for n in names}
                for q in targets:
                    old = states.get(q)
                    merged = new if old is None else {n: old[n] | new[n] for n in names}
                    if merged != old:
                        states[q] = merged
                        changed = True
    out = dict(passing)
    for env in states.values():
        for n in names:
            out[n] |= env[n]
    return out


def narrow_locals(model: ir.SequentialModel) -> ir.SequentialModel:
    """``model`` with every process local's domain cut to its ``local_ranges`` values."""
    ranges: dict[str, frozenset] = {}
    for v in model.variables:
        if v.owner is not None and v.name.endswith(".pc"):
            ranges.update(local_ranges(model, v.owner, v.name))
    variables = []
    for v in model.variables:
        if v.name in ranges:
            initial = {x for allowed in v.init for x in allowed}
            kept = tuple(x for x in v.domain if x in ranges[v.name] or x in initial)
            v = dataclasses.replace(v, domain=kept)
        variables.append(v)
    return dataclasses.replace(model, variables=tuple(variables))
