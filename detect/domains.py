"""Sound value-set analysis of a ``SequentialModel``: finite domains for every variable.

The analysis over-approximates, for each global, the set of values it can ever hold: its
initial values plus every value any assignment can write, evaluated over the value sets of
the operands.  Guards are used only to *narrow* a summand's view of variables compared with
constants (``x < 5``), which keeps counters bounded by their guards small and stays sound,
because a summand runs only where its guard holds.

Two uses:

* ``infer_domains`` for variables declared without a range (PAT's ``var x = 0;``);
* ``narrow_domains`` for typed languages (Promela ``byte``, DVE ``int``): the domain D becomes
  V ∩ D.  Every value a program writes is in V by construction, so a write is outside D iff it
  is outside V ∩ D: the LTS, faults included, is unchanged, but the coloured graph gets only
  the literals that can occur.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable, Optional

from .ir import (
    Assert, Assign, Binary, Const, Expr, If, Index, Ite, Name, SequentialModel, Stmt, Unary,
    Variable, While,
)
from .semantics import Fault, apply_binary, apply_unary

#: ``None`` stands for "too many values to track" (top of the lattice).
ValueSet = Optional[frozenset]

_PRODUCT_LIMIT = 200_000


class Unbounded(Exception):
    """The values of ``variable`` could not be bounded; ``reason`` names the culprit."""

    def __init__(self, variable: str, reason: str):
        super().__init__(f"{variable}: {reason}")
        self.variable = variable
        self.reason = reason


@dataclass
class _Analysis:
    model: SequentialModel
    limit: int
    unbounded_ok: frozenset  # variables that may grow past ``limit`` (they fall back to their domain)
    values: dict  # global name -> ValueSet
    reasons: dict  # global name -> text of an assignment that grew it

    def read_global(self, name: str) -> ValueSet:
        return self.values[name]


def _show(e: Expr) -> str:
    from .pretty import show_expr

    return show_expr(e)


def _eval(e: Expr, env: dict, an: _Analysis) -> ValueSet:
    if isinstance(e, Const):
        return frozenset((e.value,))
    if isinstance(e, Name):
        if e.name in env:
            return env[e.name]
        if e.name in an.values:
            return an.values[e.name]
        return None  # a temporary read before it is written: unknown
    if isinstance(e, Index):
        return an.values.get(e.array)
    if isinstance(e, Unary):
        a = _eval(e.operand, env, an)
        if a is None:
            return frozenset((0, 1)) if e.op == "!" else None
        return frozenset(apply_unary(e.op, x) for x in a)
    if isinstance(e, Binary):
        if e.op in ("==", "!=", "<", "<=", ">", ">=", "&&", "||"):
            # Comparisons are 0/1 whatever their operands; evaluate them only to stay precise.
            a, b = _eval(e.left, env, an), _eval(e.right, env, an)
            if a is None or b is None or len(a) * len(b) > _PRODUCT_LIMIT:
                return frozenset((0, 1))
        else:
            a, b = _eval(e.left, env, an), _eval(e.right, env, an)
            if a is None or b is None or len(a) * len(b) > _PRODUCT_LIMIT:
                return None
        out = set()
        for x in a:
            for y in b:
                try:
                    out.add(apply_binary(e.op, x, y))
                except Fault:
                    pass  # a faulting combination writes nothing
        return frozenset(out)
    if isinstance(e, Ite):
        t, f = _eval(e.then, env, an), _eval(e.else_, env, an)
        return None if t is None or f is None else t | f
    raise ValueError(f"unknown expression {e!r}")


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def _refine(cond: Expr, env: dict, an: _Analysis, holds: bool) -> dict:
    """Narrow ``env`` by the knowledge that ``cond`` is ``holds``; only ``name op const`` facts."""
    if isinstance(cond, Unary) and cond.op == "!":
        return _refine(cond.operand, env, an, not holds)
    if isinstance(cond, Binary):
        if (cond.op == "&&" and holds) or (cond.op == "||" and not holds):
            return _refine(cond.right, _refine(cond.left, env, an, holds), an, holds)
        if cond.op in _FLIP:
            op, left, right = cond.op, cond.left, cond.right
            if isinstance(left, Const) and isinstance(right, Name):
                op, left, right = _FLIP[op], right, left
            if isinstance(left, Name) and isinstance(right, Const):
                if not holds:
                    op = _NEGATE[op]
                current = env[left.name] if left.name in env else an.values.get(left.name)
                if current is None:
                    return env
                kept = frozenset(x for x in current if apply_binary(op, x, right.value))
                return {**env, left.name: kept}
    return env


def _run(stmts: tuple[Stmt, ...], env: dict, an: _Analysis, writes: dict) -> dict:
    """Abstractly run ``stmts``; collect global writes into ``writes``; return the temporaries."""
    for st in stmts:
        if isinstance(st, Assign):
            vals = _eval(st.value, env, an)
            name = st.target.array if isinstance(st.target, Index) else st.target.name
            if name in an.values:
                prev = writes.get(name, frozenset())
                writes[name] = None if vals is None or prev is None else prev | vals
                writes.setdefault("__why__" + name, st)
                # A later read of a scalar global in this program sees the written value.
                if isinstance(st.target, Name):
                    env = {**env, name: vals}
            else:
                env = {**env, name: vals}
        elif isinstance(st, If):
            then_env = _run(st.then, _refine(st.cond, env, an, True), an, writes)
            else_env = _run(st.else_, _refine(st.cond, env, an, False), an, writes)
            env = _join(then_env, else_env)
        elif isinstance(st, While):
            # Iterate the body to a fixpoint of the temporaries (bounded by the loop bound).
            current = env
            for _ in range(an.model.loop_bound + 1):
                body_env = _run(st.body, _refine(st.cond, current, an, True), an, writes)
                joined = _join(current, body_env)
                if joined == current:
                    break
                current = joined
            env = _refine(st.cond, current, an, False)
        elif isinstance(st, Assert):
            env = _refine(st.cond, env, an, True)
    return env


def _join(a: dict, b: dict) -> dict:
    out = {}
    for k in set(a) | set(b):
        x, y = a.get(k), b.get(k)
        if k not in a or k not in b:
            out[k] = None  # assigned on one path only: unknown on the other
        else:
            out[k] = None if x is None or y is None else x | y
    return out


def _analyse(model: SequentialModel, names: frozenset, limit: int, strict: frozenset) -> dict:
    """Fixpoint of global value sets.  Variables in ``strict`` raise ``Unbounded`` past ``limit``."""
    values: dict = {}
    for v in model.variables:
        values[v.name] = frozenset(x for allowed in v.init for x in allowed)
    an = _Analysis(model, limit, frozenset(), values, {})
    declared = {v.name: frozenset(v.domain) for v in model.variables if v.name not in names}
    changed = True
    rounds = 0
    while changed:
        changed = False
        rounds += 1
        for s in model.summands:
            env = {loc.name: frozenset(loc.domain) for loc in s.locals}
            env = _refine(s.guard, env, an, True)
            writes: dict = {}
            _run(s.program, env, an, writes)
            for name, vals in writes.items():
                if name.startswith("__why__"):
                    continue
                old = values[name]
                if old is None:
                    continue
                if vals is not None and name in declared:
                    vals = vals & declared[name]  # out-of-domain writes are faults, not values
                new = None if vals is None else old | vals
                if new is not None and len(new) > limit:
                    new = None
                if new is None and name in strict:
                    raise Unbounded(name, _why(writes["__why__" + name], limit))
                if new != old:
                    values[name] = new
                    changed = True
    return values


def _why(st: Assign, limit: int) -> str:
    from .pretty import show_stmt

    return f"more than {limit} values, from {show_stmt(st)}"


def infer_domains(
    model: SequentialModel, names: Iterable[str], limit: int = 4096
) -> SequentialModel:
    """``model`` with the domains of ``names`` replaced by their inferred value sets.

    The variables in ``names`` must have been built with a placeholder domain holding at least
    their initial values.  Raises ``Unbounded`` when a set would exceed ``limit``.
    """
    names = frozenset(names)
    if not names:
        return model
    values = _analyse(model, names, limit, strict=names)
    variables = tuple(
        dataclasses.replace(v, domain=tuple(sorted(values[v.name]))) if v.name in names else v
        for v in model.variables
    )
    return dataclasses.replace(model, variables=variables)


def narrow_domains(model: SequentialModel, limit: int = 4096) -> SequentialModel:
    """``model`` with every domain D replaced by V ∩ D (see module docstring)."""
    values = _analyse(model, frozenset(), limit, strict=frozenset())
    variables = []
    for v in model.variables:
        vals = values[v.name]
        if vals is None:
            variables.append(v)
            continue
        kept = tuple(x for x in v.domain if x in vals)
        variables.append(dataclasses.replace(v, domain=kept))
    return dataclasses.replace(model, variables=tuple(variables))


def expression_values(e: Expr, model: SequentialModel, scope: dict) -> ValueSet:
    """Possible values of ``e`` given domains of globals and ``scope`` (name -> value set)."""
    values = {v.name: frozenset(v.domain) for v in model.variables}
    an = _Analysis(model, 1 << 30, frozenset(), values, {})
    return _eval(e, dict(scope), an)
