"""Sound value-set analysis of a ``SequentialModel``: finite domains for every variable.

For every global the analysis computes a set V over-approximating (a) the values it holds in
every reachable state and (b) every value any assignment writes to it while a summand runs
from a reachable state (including writes later overwritten in the same program, or followed
by a fault).  Two uses:

* ``infer_domains`` for variables declared without a range (PAT's ``var x = 0;``);
* ``narrow_domains`` for typed languages (Promela ``byte``, DVE ``int``): the domain D becomes
  V ∩ D.  From a reachable state, a write of ``w`` faults under D iff ``w ∉ D``; if ``w ∈ D``
  then ``w ∈ V`` by (b), so it does not fault under V ∩ D either.  Every run from a reachable
  state is therefore the same under both domains, and by induction from the (unchanged)
  initial states so are the reachable states, transitions and faults.  The coloured graph
  only gets the literals that can occur.

**The abstract domain.**  *Keys* are scalar globals (their name) and array cells
(``(array, k)``).  A key ``p`` is a *location* when every assignment to it writes a constant and
some guard has a top-level conjunct ``p == c`` (program counters of Promela/DVE processes;
nothing here knows about front ends).  The analysis keeps

* ``flat[k]``: values key ``k`` may hold in reachable states;
* ``written[k]``: values written to ``k`` (property (b)); V of a variable is the union of
  ``flat`` and ``written`` over its keys;
* ``at[p][c][k]``: values key ``k`` may hold in reachable states with ``p = c`` (absent ``c``:
  no reachable state has ``p = c``).

**Invariant** I(s) for a reachable state s: ``s[k] ∈ flat[k]`` and ``s[k] ∈ at[p][s[p]][k]`` for
every location ``p`` and key ``k``.  Each value set is either a frozenset or ``None`` ("any value
of the declared domain"; only for non-inferred variables).  It holds for every initial state,
since ``at[p][c]`` starts as the initial values of every key for each initial ``c``.

**Transfer.**  For a summand, let F be the locations fixed by its guard (``p == c`` conjuncts).
From any reachable s enabling it, ``s[p] = c`` for p ∈ F, so by I(s) the start environment
``env[k] = ⋂_{p∈F} at[p][c_p][k]`` (``flat[k]`` when F is empty) contains ``s[k]``; refining it
by the guard keeps that true.  The program is run abstractly: strong updates of scalars and
temporaries, strong updates of a cell when its index is a single value, weak otherwise;
``If`` branches are refined by the condition and joined; a ``While`` is followed round by
round, then (once a round adds nothing to the rounds before) iterated with the rounds
joined, ``loop_bound + 1`` rounds in all at most (more concrete rounds are a fault;
``_loop``); ``Assert`` refines.  Faulting
paths only lose values.  Every value assigned is recorded in ``written`` (this gives (b)), and
the final environment ``post`` contains ``s'[k]`` for every successor ``s'``.  Then, to
re-establish I(s'):

* ``flat[k] ∪= post[k]`` for every key the program may write (others are unchanged);
* a location p the program may write: ``s'[p] ∈ post[p]``, so ``at[p][c'][k] ∪= post[k]`` for
  every ``c' ∈ post[p]`` and every key ``k``;
* a location p it never writes: ``s'[p] = s[p] ∈ env[p]``, and keys it does not write keep
  their values, which I(s) already covers; so ``at[p][c][k] ∪= post[k]`` for ``c ∈ env[p]`` and
  the written keys ``k`` only.  This rule is what makes the analysis location-sensitive: a
  process step leaves the (pc, local) pairs of the other processes alone.

All sets only grow, and the final V is read once nothing changes; every rule above adds a
superset of what I(s') needs, so I holds for every reachable state (induction on the length
of a path), and (b) holds because each write happens in a run from a reachable state whose
start environment the abstract run over-approximates.

**Precision.**  Expressions are evaluated over operand value sets, except that a leaf (name
or array cell expression) occurring more than once is enumerated, so ``(t-1) | (t==255)*255``
sees one ``t`` at a time; ``c ? a : b`` refines its branches by ``c``.  **Termination.**  A set
that grows more than ``_WIDEN_AFTER`` times has each end that grew extended to the next
constant of the model (±1) or declared bound, and becomes ``None`` past ``limit`` (or
``Unbounded`` for inferred variables, unless the caller lets the analysis give them up: then
they are top from there on, in every set a write grows); as declared domains are finite and
inferred sets are capped, every set stabilises; summands are re-run only when the part of
the abstract state they read has changed.  **Cost.**  A re-run handles only what changed since
the summand's last run (``_Plan``): a model with long channel buffers has thousands of keys,
of which one step reads or changes a few, and a pass looking at every key made the analysis
quadratic in the buffer length (sort.pml with 255-cell buffers: ~50 CPU s, now ~8).
"""
from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import operator
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Optional, Union

from detect.ir import (
    Assert, Assign, Binary, Const, Expr, If, Index, Ite, Name, SequentialModel, Unary,
    While,
)
from detect.ir.semantics import Fault, apply_binary, apply_unary
from detect.ir.walk import (
    distinct_subexpressions, fold, map_expr, map_program, program_expressions, statements,
    subexpressions,
)

#: ``None`` stands for "too many values to track" (top of the lattice).
ValueSet = Optional[frozenset]
#: A scalar global's name, a temporary's or local's name, or an array cell ``(array, k)``.
Key = Union[str, tuple]
_EMPTY: frozenset = frozenset()

_PRODUCT_LIMIT = 200_000
#: Largest number of combinations enumerated to evaluate repeated leaves exactly.
_ENUMERATE_LIMIT = 4096
#: A value set that has grown this many times is widened (see module docstring).
_WIDEN_AFTER = 64
#: Conditions with more nodes than this are not split into cases when narrowing.
_SPLIT_LIMIT = 40
_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
#: ``apply_binary`` of the operators that never fault (the same values, without its dispatch).
_TOTAL = {"+": operator.add, "-": operator.sub, "*": operator.mul, "min": min, "max": max,
          "&": operator.and_, "|": operator.or_, "^": operator.xor,
          "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y), "<": lambda x, y: int(x < y),
          "<=": lambda x, y: int(x <= y), ">": lambda x, y: int(x > y), ">=": lambda x, y: int(x >= y)}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


class Unbounded(Exception):
    """The values of ``variable`` could not be bounded; ``reason`` names the culprit."""

    def __init__(self, variable: str, reason: str):
        super().__init__(f"{variable}: {reason}")
        self.variable = variable
        self.reason = reason


def _why(st: Assign, limit: int) -> str:
    from detect.ir.pretty import show_stmt

    return f"more than {limit} values, from {show_stmt(st)}"


# ---------------------------------------------------------------------------- static facts


@dataclass(frozen=True)
class _Layout:
    """What the analysis needs to know about the model, computed once.

    ``declared[name]`` is a variable's domain as a set (``None`` for inferred variables, whose
    declared domain is a placeholder); ``thresholds`` are the sorted widening end points;
    ``droppable`` are the strict variables given up (top) instead of raising ``Unbounded``.
    """

    model: SequentialModel
    sizes: dict  # array name -> size
    scalars: frozenset
    declared: dict
    strict: frozenset
    limit: int
    thresholds: tuple
    locations: tuple  # location keys, in a fixed order
    location_set: frozenset
    droppable: frozenset = frozenset()

    def keys_of(self, name: str) -> tuple:
        size = self.sizes.get(name)
        return (name,) if size is None else tuple((name, k) for k in range(size))

    def variable_of(self, key: Key) -> str:
        return key if isinstance(key, str) else key[0]


def _conjuncts(e: Expr) -> list:
    if isinstance(e, Binary) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _location_test(conjunct: Expr) -> Optional[tuple]:
    """``(key, c)`` when ``conjunct`` is ``key == c`` (either side) for a scalar or constant cell."""
    if not (isinstance(conjunct, Binary) and conjunct.op == "=="):
        return None
    left, right = conjunct.left, conjunct.right
    if isinstance(left, Const):
        left, right = right, left
    if not isinstance(right, Const):
        return None
    if isinstance(left, Name):
        return left.name, right.value
    if isinstance(left, Index) and isinstance(left.index, Const):
        return (left.array, left.index.value), right.value
    return None


def _layout(model: SequentialModel, strict: frozenset, limit: int,
            droppable: frozenset = frozenset()) -> _Layout:
    sizes = {v.name: v.size for v in model.variables if v.size is not None}
    scalars = frozenset(v.name for v in model.variables if v.size is None)
    declared = {v.name: None if v.name in strict else frozenset(v.domain) for v in model.variables}
    literals = set()
    for v in model.variables:
        if v.name not in strict:
            literals |= {v.domain[0], v.domain[-1]}
    seen: dict = {}  # the guards' shared parts once (``distinct_subexpressions``)
    for s in model.summands:
        for e in itertools.chain((s.guard,), program_expressions(s.program)):
            literals.update(x.value for x in distinct_subexpressions(e, seen) if isinstance(x, Const))
    thresholds = tuple(sorted({c + d for c in literals for d in (-1, 0, 1)}))

    # Locations: every write is a constant, and some guard tests them against a constant.
    const_only = {name: True for name in scalars | set(sizes)}
    for s in model.summands:
        for st in statements(s.program):
            if isinstance(st, Assign):
                name = st.target.array if isinstance(st.target, Index) else st.target.name
                if name in const_only and not isinstance(st.value, Const):
                    const_only[name] = False
    tested = []
    for s in model.summands:
        for c in _conjuncts(s.guard):
            test = _location_test(c)
            if test is None:
                continue
            key = test[0]
            name = key if isinstance(key, str) else key[0]
            ok = (isinstance(key, str) and name in scalars) or (
                not isinstance(key, str) and name in sizes and 0 <= key[1] < sizes[name])
            if ok and const_only.get(name) and name not in strict and key not in tested:
                tested.append(key)
    return _Layout(model, sizes, scalars, declared, strict, limit, thresholds, tuple(tested),
                   frozenset(tested), droppable)


# ---------------------------------------------------------------------------- evaluation
#
# An environment maps keys (globals, cells, locals, temporaries) to value sets.  ``None`` as a
# whole environment is bottom: no concrete state reaches that point.


def _leaves(e: Expr, out: Counter) -> None:
    """Count the variable reads of ``e``: its ``Name`` and ``Index`` nodes."""
    out.update(x for x in subexpressions(e) if isinstance(x, (Name, Index)))


def _substitute(e: Expr, values: dict) -> Expr:
    """``e`` with each subtree that is a key of ``values`` replaced by that constant."""
    return map_expr(e, lambda x: Const(values[x]) if x in values else None)


def _cells(index_values: ValueSet, array: str, lay: _Layout) -> tuple:
    """Cells an index with these values can select (out-of-bounds indices fault)."""
    size = lay.sizes[array]
    if index_values is None:
        return tuple((array, k) for k in range(size))
    return tuple((array, k) for k in sorted(index_values) if 0 <= k < size)


def _read(key: Key, env: dict) -> ValueSet:
    # A temporary read before it is written faults: no value.
    return env.get(key, frozenset())


def _union(sets) -> ValueSet:
    out: set = set()
    for s in sets:
        if s is None:
            return None
        out |= s
    return frozenset(out)


def _values_of(e: Expr, env: dict, lay: _Layout) -> ValueSet:
    """Values of ``e`` over all concrete environments ``env`` describes (exact for repeated leaves)."""
    if isinstance(e, (Const, Name)):
        return _values_independent(e, env, lay)
    if isinstance(e, Index) and isinstance(e.index, Const):
        # One cell (a channel receive shifts whole buffers this way): no leaves to count.
        return _read((e.array, e.index.value), env) if 0 <= e.index.value < lay.sizes[e.array] else _EMPTY
    counts: Counter = Counter()
    _leaves(e, counts)
    repeated = [leaf for leaf, n in counts.items() if n > 1]
    if repeated:
        choices = [_values_independent(leaf, env, lay) for leaf in repeated]
        total = 1
        for c in choices:
            total = _PRODUCT_LIMIT if c is None else total * max(len(c), 1)
        if total <= _ENUMERATE_LIMIT:
            out: set = set()
            for combo in itertools.product(*(sorted(c) for c in choices)):
                vals = _values_independent(_substitute(e, dict(zip(repeated, combo))), env, lay)
                if vals is None:
                    break
                out |= vals
            else:
                return frozenset(out)
    return _values_independent(e, env, lay)


def _contiguous(values: frozenset) -> bool:
    """``values`` is a range of integers, without gaps."""
    return max(values) - min(values) + 1 == len(values)


def _values_independent(e: Expr, env: dict, lay: _Layout) -> ValueSet:
    """Values of ``e`` treating every occurrence of a leaf as independent."""
    if isinstance(e, Const):
        return frozenset((e.value,))
    if isinstance(e, Name):
        return _read(e.name, env)
    if isinstance(e, Index):
        idx = _values_independent(e.index, env, lay)
        return _union(_read(k, env) for k in _cells(idx, e.array, lay))
    if isinstance(e, Unary):
        a = _values_independent(e.operand, env, lay)
        if a is None:
            return frozenset((0, 1)) if e.op == "!" else None
        return frozenset(apply_unary(e.op, x) for x in a)
    if isinstance(e, Binary):
        if e.op in ("&&", "||"):
            # Short circuit: the right operand is evaluated only where the left one decides nothing.
            left = _values_independent(e.left, env, lay)
            out = set()
            decided = 0 if e.op == "&&" else 1
            if left is None or any(bool(x) == bool(decided) for x in left):
                out.add(decided)
            if left is None or any(bool(x) != bool(decided) for x in left):
                right_env = _assume(e.left, env, lay, e.op == "&&")
                if right_env is not None:
                    right = _values_independent(e.right, right_env, lay)
                    out |= {0, 1} if right is None else {int(bool(y)) for y in right}
            return frozenset(out)
        a, b = _values_independent(e.left, env, lay), _values_independent(e.right, env, lay)
        if a is None or b is None or len(a) * len(b) > _PRODUCT_LIMIT:
            return frozenset((0, 1)) if e.op in _COMPARISONS else None
        if e.op in ("+", "-") and a and b and _contiguous(a) and _contiguous(b):
            # Sums and differences of two ranges are the range of their bounds.
            low, high = (min(a) + min(b), max(a) + max(b)) if e.op == "+" else (min(a) - max(b), max(a) - min(b))
            return frozenset(range(low, high + 1))
        total = _TOTAL.get(e.op)
        if total is not None:
            # The operators that never fault, as one comprehension: products of thousands
            # of values (Spin's calculator.pml) spent most of the analysis in the loop below.
            return frozenset(total(x, y) for x in a for y in b)
        out = set()
        for x in a:
            for y in b:
                try:
                    out.add(apply_binary(e.op, x, y))
                except Fault:
                    pass  # a faulting combination produces no value
        return frozenset(out)
    if isinstance(e, Ite):
        cond = _values_independent(e.cond, env, lay)
        parts = []
        if cond is None or any(cond):
            then_env = _assume(e.cond, env, lay, True)
            if then_env is not None:
                parts.append(_values_independent(e.then, then_env, lay))
        if cond is None or 0 in cond:
            else_env = _assume(e.cond, env, lay, False)
            if else_env is not None:
                parts.append(_values_independent(e.else_, else_env, lay))
        return _union(parts)
    raise ValueError(f"unknown expression {e!r}")


def _leaf_key(e: Expr, env: dict, lay: _Layout) -> Optional[Key]:
    """The key ``e`` reads when it denotes exactly one (a name, or a cell with a known index)."""
    if isinstance(e, Name):
        return e.name
    if isinstance(e, Index):
        idx = _values_independent(e.index, env, lay)
        if idx is not None and len(idx) == 1:
            (k,) = idx
            if 0 <= k < lay.sizes[e.array]:
                return (e.array, k)
    return None


def _comparison_filter(op: str, others: frozenset):
    """Test of ``x``: is ``x op y`` true for some ``y`` in ``others``."""
    if not others:
        return lambda x: False
    if op == "==":
        return others.__contains__
    if op == "!=":
        (only,) = others if len(others) == 1 else (None,)
        return (lambda x: x != only) if len(others) == 1 else (lambda x: True)
    top, bottom = max(others), min(others)
    return {"<": lambda x: x < top, "<=": lambda x: x <= top,
            ">": lambda x: x > bottom, ">=": lambda x: x >= bottom}[op]


@functools.lru_cache(maxsize=65536)
def _size(e: Expr) -> int:
    if isinstance(e, Index):
        return 1 + _size(e.index)
    if isinstance(e, Unary):
        return 1 + _size(e.operand)
    if isinstance(e, Binary):
        return 1 + _size(e.left) + _size(e.right)
    if isinstance(e, Ite):
        return 1 + _size(e.cond) + _size(e.then) + _size(e.else_)
    return 1


def _restrict(env: dict, key: Key, keep) -> Optional[dict]:
    current = env.get(key)
    if current is None:
        return env
    kept = frozenset(x for x in current if keep(x))
    if kept == current:
        return env
    if not kept:
        return None
    return {**env, key: kept}


def _join_env(a: Optional[dict], b: Optional[dict]) -> Optional[dict]:
    """Least upper bound; a key missing on one side (a temporary not yet written there) would
    fault if read on that side, so the other side's values suffice."""
    if a is None:
        return b
    if b is None or a is b:
        return a
    # Only the pairs of ``b`` that ``a`` lacks change anything (the two sides of a branch
    # mostly share their values, often as the same objects); the set difference of the items
    # views finds them in C, where a loop over every key (thousands of SSA temporaries)
    # made this join most of the value analysis of CMurphi's adash.m.
    changed = b.items() - a.items()
    if not changed:
        return a
    out = dict(a)
    for k, y in changed:
        x = out.get(k, frozenset())
        out[k] = None if x is None or y is None else x | y
    return out


def _assume(cond: Expr, env: Optional[dict], lay: _Layout, holds: bool) -> Optional[dict]:
    """``env`` narrowed to the states where ``cond`` evaluates to ``holds``; ``None`` if none."""
    if env is None:
        return None
    if isinstance(cond, Const):
        return env if bool(cond.value) == holds else None
    if isinstance(cond, Unary) and cond.op == "!":
        return _assume(cond.operand, env, lay, not holds)
    if isinstance(cond, Binary):
        if (cond.op == "&&" and holds) or (cond.op == "||" and not holds):
            return _assume(cond.right, _assume(cond.left, env, lay, holds), lay, holds)
        if cond.op in ("&&", "||"):
            # (a && b) false: a false, or a true and b false.  (a || b) true: a, or !a and b.
            # Splitting cases costs time quadratic (or worse) in the condition's size, and
            # not narrowing is always sound, so only small conditions are split.
            if _size(cond) > _SPLIT_LIMIT:
                return env
            first = _assume(cond.left, env, lay, holds)
            second = _assume(cond.right, _assume(cond.left, env, lay, not holds), lay, holds)
            return _join_env(first, second)
        if cond.op in _COMPARISONS:
            op = cond.op if holds else _NEGATE[cond.op]
            for left, right, o in ((cond.left, cond.right, op), (cond.right, cond.left, _FLIP[op])):
                key = _leaf_key(left, env, lay)
                if key is None or env.get(key) is None:
                    continue
                others = _values_of(right, env, lay)
                if others is None or len(others) * len(env[key]) > _PRODUCT_LIMIT:
                    continue
                env = _restrict(env, key, _comparison_filter(o, others))
                if env is None:
                    return None
            return env
    key = _leaf_key(cond, env, lay)
    if key is not None:
        return _restrict(env, key, lambda x: bool(x) == holds)
    vals = _values_of(cond, env, lay)
    if vals is not None and not any(bool(x) == holds for x in vals):
        return None
    return env


@dataclass
class _Run:
    """Collector for one abstract run: values written to globals, and one writer per key."""

    written: dict  # key -> ValueSet
    writer: dict  # key -> Assign


def _store(key: Key, vals: ValueSet, lay: _Layout, run: _Run, st: Assign) -> ValueSet:
    """Values that can be stored in global ``key`` (out-of-domain writes are faults)."""
    declared = lay.declared[lay.variable_of(key)]
    if declared is not None:
        vals = declared if vals is None else vals & declared
        if len(vals) > lay.limit:
            vals = None
    prev = run.written.get(key, frozenset())
    run.written[key] = None if vals is None or prev is None else prev | vals
    run.writer.setdefault(key, st)
    return vals


def _exec(stmts, env: Optional[dict], lay: _Layout, run: _Run) -> Optional[dict]:
    # ``env`` may be shared with the caller or another branch, so it is copied before an
    # assignment changes it -- once per run of consecutive assignments, not once each (a
    # channel receive shifting L cells would otherwise copy L times).
    owned = False
    for st in stmts:
        if env is None:
            return None
        if isinstance(st, Assign):
            vals = _values_of(st.value, env, lay)
            if vals is not None and not vals:
                return None  # every evaluation faults
            if isinstance(st.target, Index):
                index = st.target.index
                index_values = frozenset((index.value,)) if isinstance(index, Const) else _values_of(index, env, lay)
                cells = _cells(index_values, st.target.array, lay)
                if not cells:
                    return None
                stored = {c: _store(c, vals, lay, run, st) for c in cells}
                if not owned:
                    env, owned = dict(env), True
                if len(cells) == 1:
                    env[cells[0]] = stored[cells[0]]
                else:
                    for c in cells:
                        old = env.get(c)
                        env[c] = None if old is None or stored[c] is None else old | stored[c]
            else:
                name = st.target.name
                if name in lay.scalars:
                    vals = _store(name, vals, lay, run, st)
                if not owned:
                    env, owned = dict(env), True
                env[name] = vals
            continue
        owned = False  # the branches below return environments they may share
        if isinstance(st, If):
            then_env = _exec(st.then, _assume(st.cond, env, lay, True), lay, run)
            else_env = _exec(st.else_, _assume(st.cond, env, lay, False), lay, run)
            env = _join_env(then_env, else_env)
        elif isinstance(st, While):
            env = _loop(st, env, lay, run)
        elif isinstance(st, Assert):
            env = _assume(st.cond, env, lay, True)
        else:
            raise ValueError(f"unknown statement {st!r}")
    return env


def _loop(st: While, env: dict, lay: _Layout, run: _Run) -> Optional[dict]:
    """The environment after ``st`` from ``env``.  A concrete run makes at most
    ``loop_bound`` rounds (more fault), so covering the states after 0 .. ``loop_bound + 1``
    rounds covers every exit.

    First the rounds are followed one by one (*unrolled*): ``e_{k+1}`` is the body's run from
    ``e_k`` where the condition holds, and the exit joins each ``e_k`` where it fails.  By
    induction ``e_k`` holds every state after k rounds, so this is sound, and it is exact for
    a counted loop: ``do :: j <= 1 -> ... cnt++; j++ od`` leaves after 3 rounds with cnt
    grown by at most 3, where joining the rounds at the head loses the link between j and
    cnt and lets cnt climb for all ``loop_bound`` rounds (Spin's life.pml: nested counted
    loops in a d_step; the analysis did not finish).  When a round brings nothing new to
    the join of those before (a loop going round in circles), it goes on as the classic
    iteration from that join, which then reaches its fixpoint at once: the join holds
    every state after the rounds so far, and each further joined round adds the next."""
    bound = lay.model.loop_bound + 1
    exits: Optional[dict] = None
    seen = env  # the join of e_0 .. e_k
    current = env
    for rounds in range(bound):
        exits = _join_env(exits, _assume(st.cond, current, lay, False))
        inside = _assume(st.cond, current, lay, True)
        if inside is None:
            return exits  # no state goes round again
        current = _exec(st.body, inside, lay, run)
        if current is None:
            return exits
        joined = _join_env(seen, current)
        if joined == seen:
            break  # nothing new: the classic iteration from ``seen`` below
        seen = joined
    else:
        return _join_env(exits, _assume(st.cond, current, lay, False))
    current = seen
    for _ in range(bound - rounds):
        body = _exec(st.body, _assume(st.cond, current, lay, True), lay, run)
        joined = _join_env(current, body)
        if joined == current:
            break
        current = joined
    return _join_env(exits, _assume(st.cond, current, lay, False))


# ---------------------------------------------------------------------------- the fixpoint


@dataclass
class _State:
    """The abstract state of the module docstring plus bookkeeping for widening and re-runs."""

    flat: dict  # key -> ValueSet
    written: dict  # key -> ValueSet (values assigned)
    at: dict  # location key -> {c -> {key -> ValueSet}}
    growth: Counter
    version: Counter  # ("flat",) / ("at", p, c) / ("locations",) -> change count
    #: droppable variables given up so far, in the order found -> why (as ``Unbounded.reason``)
    dropped: dict = dataclasses.field(default_factory=dict)
    #: ("flat",) / ("at", p, c) -> the keys whose set there changed, in order (``_Plan.seen``)
    changes: dict = dataclasses.field(default_factory=dict)
    #: what the fixpoint cost, for tests: passes over the summands, summands run, and key
    #: values looked at (run through a program, or tested against a bucket)
    rounds: int = 0
    transfers: int = 0
    evaluations: int = 0


def _widen(old: frozenset, new: frozenset, key: Key, lay: _Layout) -> ValueSet:
    """``new`` extended, at each end where it grew past ``old``, to the next threshold (a model
    constant ±1 or a declared bound); ``None`` when that adds more than ``limit`` values.
    Growth between the ends is left alone: it is bounded by the ends, and filling the gap
    would turn a timer's {0..18, 255} into 0..255."""
    th = lay.thresholds
    added: list = []
    if old and min(new) < min(old):
        i = bisect.bisect_right(th, min(new) - 1) - 1
        if i < 0:
            return None
        added.append((th[i], min(new)))
    if old and max(new) > max(old):
        i = bisect.bisect_left(th, max(new) + 1)
        if i >= len(th):
            return None
        added.append((max(new) + 1, th[i] + 1))
    if sum(hi - lo for lo, hi in added) > lay.limit:
        return None
    out = set(new)
    for lo, hi in added:
        out.update(range(lo, hi))
    declared = lay.declared[lay.variable_of(key)]
    return frozenset(out) if declared is None else frozenset(out) & declared


def _merge(store: dict, key: Key, vals: ValueSet, lay: _Layout, state: _State, where,
           why: Optional[Assign]) -> bool:
    """``store[key] ∪= vals`` with widening and the size limit; True when it changed."""
    old = store.get(key, _EMPTY)
    if old is None or (vals is not None and vals <= old and len(old) <= lay.limit):
        return False  # nothing new (the common case: no union built)
    name = lay.variable_of(key)
    if name in state.dropped:
        vals = None  # given up: a store it grows becomes top at once, not after its own climb
    new = None if vals is None else old | vals
    if new is not None and new != old and key not in lay.location_set:
        # Locations hold only the constants assigned to them: they need no widening.
        state.growth[(where, key)] += 1
        if state.growth[(where, key)] > _WIDEN_AFTER:
            new = _widen(old, new, key, lay)
    if new is not None and len(new) > lay.limit:
        new = None
    if new == old:
        return False
    if new is None and name in lay.strict and name not in state.dropped:
        reason = f"more than {lay.limit} values" if why is None else _why(why, lay.limit)
        if name not in lay.droppable:
            raise Unbounded(name, reason)
        state.dropped[name] = reason
    store[key] = new
    return True


def _meet(a: ValueSet, b: ValueSet) -> ValueSet:
    if a is None:
        return b
    if b is None:
        return a
    return a & b


@dataclass
class _Plan:
    """One summand as the fixpoint runs it, with what its last complete run (one that reached
    the location rules) saw and did, so that the next run handles only what changed since.

    ``written``: ``writes`` in key order.  ``footprint``: the keys its guard and program
    read or write (every cell of an array they index, locals that shadow a global); a key
    outside it ends a run with its start value.  From the last complete run: ``seen``, for
    each source of the start environment (``("flat",)`` or ``("at", p, c)``), how many entries
    of ``_State.changes`` it had read; ``targets``, for each location, the buckets every key
    (every written key, for a location it does not write) was merged into; ``env`` and
    ``post``, the footprint after the guard and at the end; ``writer`` as in ``_Run``.
    ``empty``: the keys whose start value was empty when last checked (``None``: never
    checked); start values only grow, so no other key can be empty."""

    summand: object
    fixed: dict
    writes: frozenset
    written: tuple
    footprint: frozenset
    seen: dict = dataclasses.field(default_factory=dict)
    targets: dict = dataclasses.field(default_factory=dict)
    env: dict = dataclasses.field(default_factory=dict)
    post: dict = dataclasses.field(default_factory=dict)
    writer: dict = dataclasses.field(default_factory=dict)
    empty: Optional[list] = None


def _reads(x: Expr, below: tuple) -> frozenset:
    """``fold``'s step for the variables an expression reads: ``(True, array)`` for each
    ``Index``, ``(False, name)`` for each ``Name``."""
    own = ((True, x.array),) if isinstance(x, Index) else ((False, x.name),) if isinstance(x, Name) else ()
    if not own and len(below) == 1:
        return below[0]
    out = set(own)
    for b in below:
        out |= b
    return frozenset(out)


def _plan(s, lay: _Layout, order: dict, memo: Optional[dict] = None) -> _Plan:
    """The ``_Plan`` of summand ``s``, before its first run (``order``: key -> position;
    ``memo``: ``fold``'s, shared between the summands of one model)."""
    fixed = {}
    for conj in _conjuncts(s.guard):
        test = _location_test(conj)
        if test is not None and test[0] in lay.location_set and test[0] not in fixed:
            fixed[test[0]] = test[1]
    writes = set()
    footprint = set()
    for st in statements(s.program):
        if isinstance(st, Assign):
            if isinstance(st.target, Index):
                writes.update(lay.keys_of(st.target.array))
            elif st.target.name in lay.scalars:
                writes.add(st.target.name)
    memo = {} if memo is None else memo
    for e in itertools.chain((s.guard,), program_expressions(s.program)):
        for is_index, name in fold(e, _reads, memo):
            if is_index:
                footprint.update(lay.keys_of(name))
            elif name in lay.scalars:
                footprint.add(name)
    footprint |= writes
    footprint.update(loc.name for loc in s.locals if loc.name in lay.scalars)
    return _Plan(s, fixed, frozenset(writes), tuple(sorted(writes, key=order.__getitem__)), frozenset(footprint))


def _fixpoint(model: SequentialModel, strict: frozenset, limit: int,
              droppable: frozenset = frozenset()) -> tuple[_Layout, _State]:
    lay = _layout(model, strict, limit, droppable)
    keys = [k for v in model.variables for k in lay.keys_of(v.name)]
    initial = {}
    for v in model.variables:
        for k, allowed in zip(lay.keys_of(v.name), v.init):
            initial[k] = frozenset(allowed)
    state = _State(dict(initial), {}, {}, Counter(), Counter())
    for p in lay.locations:
        state.at[p] = {c: dict(initial) for c in initial[p]}
        for c in initial[p]:
            state.at[p][c][p] = frozenset((c,))

    order = {k: i for i, k in enumerate(keys)}
    memo: dict = {}
    plans = [_plan(s, lay, order, memo) for s in model.summands]
    last_seen: dict = {}
    changed = True
    while changed:
        changed = False
        state.rounds += 1
        for i, plan in enumerate(plans):
            if plan.fixed:
                signature = tuple(state.version[("at", p, c)] for p, c in plan.fixed.items())
                signature += (state.version[("locations",)],)
            else:
                signature = (state.version[("flat",)], state.version[("locations",)])
            if last_seen.get(i) == signature:
                continue
            last_seen[i] = signature
            if _transfer(plan, keys, order, lay, state):
                changed = True
    return lay, state


def _start(plan: _Plan, keys: list, state: _State):
    """``(sources, start)``: the stores the summand's start environment comes from, and
    ``start(k)``, a key's start value (module docstring); ``None`` when no reachable state
    enables the summand yet (a fixed location's bucket is missing, or a start value empty)."""
    if not plan.fixed:
        return [("flat",)], state.flat.__getitem__
    views = []
    for p, c in plan.fixed.items():
        view = state.at[p].get(c)
        if view is None:
            return None  # no reachable state has p = c (yet)
        views.append(view)

    def start(k):
        vals = views[0][k]
        for view in views[1:]:
            vals = _meet(vals, view[k])
        return vals

    plan.empty = [k for k in (keys if plan.empty is None else plan.empty)
                  if (vals := start(k)) is not None and not vals]
    if plan.empty:
        return None
    return [("at", p, c) for p, c in plan.fixed.items()], start


def _transfer(plan: _Plan, keys: list, order: dict, lay: _Layout, state: _State) -> bool:
    """Apply one summand's rules (module docstring); True when the abstract state grew.

    What a run costs is what changed since the plan's last complete run, not the number of
    keys: only the footprint's keys go through the program, and not at all when none of
    their start values changed (the run would be the last one again); a bucket that run
    merged every key into gets only the keys whose value changed since (it holds the others
    already: sets only grow).  Every merge skipped is one that cannot change a set, and the
    others are made in the order of a run over every key, so the result is the plain rules'."""
    state.transfers += 1
    begin = _start(plan, keys, state)
    if begin is None:
        return False
    sources, start = begin
    seen = {src: len(state.changes.get(src, ())) for src in sources}
    fresh: set = set()
    if plan.seen:
        for src in sources:
            fresh.update(state.changes.get(src, ())[plan.seen[src]:seen[src]])
    changed = False
    if plan.seen and fresh.isdisjoint(plan.footprint):
        # The footprint starts as in the last complete run, so the run is that one again
        # and its merges into ``written`` and ``flat`` change nothing.
        env, post, writer = plan.env, plan.post, plan.writer
    else:
        env = {k: start(k) for k in plan.footprint}
        state.evaluations += len(env)
        for loc in plan.summand.locals:
            env[loc.name] = frozenset(loc.domain)
        env = _assume(plan.summand.guard, env, lay, True)
        if env is None:
            return False
        run = _Run({}, {})
        post = _exec(plan.summand.program, env, lay, run)
        writer = run.writer
        for k, vals in run.written.items():
            if _merge(state.written, k, vals, lay, state, "written", writer.get(k)):
                changed = True
        if post is None:
            return changed
        for k in plan.writes:
            if _merge(state.flat, k, post[k], lay, state, "flat", writer.get(k)):
                state.version[("flat",)] += 1
                state.changes.setdefault(("flat",), []).append(k)
                changed = True
    if _locations(plan, env, post, writer, start, fresh, keys, order, lay, state):
        changed = True
    plan.seen, plan.env, plan.post, plan.writer = seen, env, post, writer
    return changed


def _locations(plan: _Plan, env: dict, post: dict, writer: dict, start, fresh: set, keys: list,
               order: dict, lay: _Layout, state: _State) -> bool:
    """The location rules of one run (module docstring) with ``env`` and ``post`` its
    footprint after the guard and at the end; records the buckets merged into in
    ``plan.targets``.  True when a bucket grew or was added."""
    writes = plan.writes
    # Start values outside the footprint that the rules need, read before a merge below
    # changes a source: the location targets, and every key if a written location reaches
    # a bucket not merged into last time, else the keys changed since.
    fixed_at = {p: env[p] if p in plan.footprint else start(p) for p in lay.locations if p not in writes}
    if any(c not in plan.targets.get(p, ()) for p in lay.locations if p in writes for c in post[p]):
        outside = {k: start(k) for k in keys if k not in plan.footprint}
    else:
        outside = {k: start(k) for k in fresh if k not in plan.footprint}
    previous = plan.post
    moved = [k for k in plan.footprint if k not in previous or post[k] != previous[k]]
    delta = sorted([*moved, *outside], key=order.__getitem__)
    delta_written = [k for k in delta if k in writes]
    limit = lay.limit
    changed = False
    targets_now = {}
    for p in lay.locations:
        if p in writes:
            targets, every_key, changed_keys = post[p], keys, delta
        elif writes:
            targets, every_key, changed_keys = fixed_at[p], plan.written, delta_written
        else:
            continue
        if not targets:
            continue
        done = plan.targets.get(p, ())
        targets_now[p] = targets
        for c in sorted(targets):
            bucket = state.at[p].get(c)
            if bucket is None:
                bucket = state.at[p][c] = {k: frozenset() for k in keys}
                bucket[p] = frozenset((c,))
                state.version[("locations",)] += 1
                changed = True
            grew = []
            updated = changed_keys if c in done else every_key
            state.evaluations += len(updated)
            for k in updated:
                if k == p:
                    continue
                vals = post[k] if k in post else outside[k]
                old = bucket.get(k, _EMPTY)
                # Most values are known at the target already: ``_merge``'s first test,
                # inlined (the call dominated the analysis of large models).
                if old is None or (vals is not None and vals <= old and len(old) <= limit):
                    continue
                if _merge(bucket, k, vals, lay, state, ("at", p, c), writer.get(k)):
                    grew.append(k)
            if grew:
                state.version[("at", p, c)] += 1
                state.changes.setdefault(("at", p, c), []).extend(grew)
                changed = True
    plan.targets = targets_now
    return changed


def _substitute_stmts(stmts, values: dict) -> tuple:
    return map_program(stmts, lambda x: Const(values[x]) if x in values else None)


def propagate_constants(model: SequentialModel, analysis: ValueAnalysis) -> SequentialModel:
    """``model`` (the one ``analysis`` was computed for) with a read of a process's scalar (``owner`` set) replaced by a constant in a
    summand whose start environment (module docstring, before the guard) holds one value of
    it, when the summand never writes it.

    Every reachable state enabling the summand has its fixed locations at their values, so
    by I(s) it has that value; the guard keeps its location conjuncts, so from a reachable
    state it holds exactly when before and the program runs the same.  The reachable LTS is
    unchanged.  This is what lets ``run user(0); run user(1)`` be symmetric: after start-up
    ``user_1.i`` is 0 wherever user 1 steps, so ``cnt[user_1.i]`` becomes ``cnt[0]`` and the
    processes differ only in which cell they touch, not in a parameter whose initial value
    (0 for every instance) would single out the instance whose parameter stays 0 (issue 13).
    """
    lay, state = analysis.layout, analysis.fixpoint
    owned = [v.name for v in model.variables if v.owner is not None and v.size is None
             and v.name not in lay.location_set]
    if not owned:
        return model
    summands = []
    changed = False
    for s in model.summands:
        fixed = {}
        for conj in _conjuncts(s.guard):
            test = _location_test(conj)
            if test is not None and test[0] in lay.location_set and test[0] not in fixed:
                fixed[test[0]] = test[1]
        views = [state.at[p].get(c) for p, c in fixed.items()]
        if not fixed or any(view is None for view in views):
            summands.append(s)
            continue
        written = {st.target.name for st in statements(s.program)
                   if isinstance(st, Assign) and isinstance(st.target, Name)}
        values = {}
        for name in owned:
            if name in written or name in fixed:
                continue
            vals = views[0][name]
            for view in views[1:]:
                vals = _meet(vals, view[name])
            if vals is not None and len(vals) == 1:
                values[Name(name)] = next(iter(vals))
        if values:
            s = dataclasses.replace(
                s, guard=_substitute(s.guard, values), program=_substitute_stmts(s.program, values),
                event=dataclasses.replace(s.event, args=tuple(_substitute(a, values) for a in s.event.args)))
            changed = True
        summands.append(s)
    return dataclasses.replace(model, summands=tuple(summands)) if changed else model


@dataclass(frozen=True)
class ValueAnalysis:
    """The analysis of one model: ``values`` maps every variable to V (``None``: more than the
    limit); ``layout`` and ``fixpoint`` (the final abstract state of the module docstring) are
    what ``propagate_constants`` reads.  Nothing changes the fixpoint once it is returned."""

    values: dict  # variable name -> ValueSet
    layout: _Layout
    fixpoint: _State


def variable_values(model: SequentialModel, limit: int, strict: frozenset = frozenset(),
                    droppable: frozenset = frozenset()) -> ValueAnalysis:
    """The value analysis of ``model``: V for every variable, ``None`` past ``limit`` values.

    Raises ``Unbounded`` when a variable in ``strict`` (one whose declared domain is a
    placeholder, see ``infer_domains``) would hold more than ``limit`` values, unless it is
    ``droppable``: then its V is ``None``, the analysis goes on with it as top, and
    ``fixpoint.dropped`` names it with the reason.  Values computed with dropped variables
    are sound but may be coarser than those of a fresh analysis of a model in which those
    variables have a declared domain."""
    lay, state = _fixpoint(model, strict, limit, droppable)
    out = {}
    for v in model.variables:
        parts = []
        for k in lay.keys_of(v.name):
            parts.append(state.flat.get(k, frozenset()))
            parts.append(state.written.get(k, frozenset()))
        vals = _union(parts)
        if vals is not None and len(vals) > limit:
            vals = None
        if vals is None and v.name in strict and v.name not in state.dropped:
            if v.name not in droppable:
                raise Unbounded(v.name, f"more than {limit} values")
            state.dropped[v.name] = f"more than {limit} values"
        out[v.name] = vals
    return ValueAnalysis(out, lay, state)


@dataclass(frozen=True)
class HeldValues:
    """What the analysis proves of the values of reachable states, per state slot
    (``state_slots`` order).

    ``values[k]``: a subset of slot ``k``'s domain holding its value in every reachable
    state.  ``determined[k]``: the locations that fix slot ``k``'s value, each as
    ``(location slot, ((c, v), ...))``: every reachable state whose location is at ``c`` has
    ``v`` in slot ``k``, and every reachable state has its location at one of the ``c``
    listed.  (So slots fixed by one location through the same partition of its values are
    *tied*: in reachable states each one's value determines the other's.)"""

    values: tuple[frozenset, ...]
    determined: tuple[tuple[tuple[int, tuple[tuple[int, int], ...]], ...], ...]


def held_values(model: SequentialModel, limit: int = 4096) -> HeldValues:
    """``HeldValues`` from the fixpoint: by the invariant I(s), slot ``k`` of a reachable
    state holds a value of ``flat[k]`` and of ``at[p][s[p]][k]`` for every location ``p``.
    Values a step writes and overwrites before it ends (a received message reset at once)
    are held nowhere.

    ``model`` is the narrowed one, so this is a second fixpoint, not the narrowing's: that
    one, of the model before narrowing, holds here too (same reachable states) but differs,
    mostly coarser, where the narrowed domains cut writes or constants were propagated: 10 of
    the 62 bundled and corpus models narrowing analyses would get other held values."""
    lay, state = _fixpoint(model, frozenset(), limit)
    keys = [k for v in model.variables for k in lay.keys_of(v.name)]
    slot_of = {key: i for i, key in enumerate(keys)}
    values = []
    for v in model.variables:
        for key in lay.keys_of(v.name):
            flat = state.flat.get(key, frozenset())
            values.append(frozenset(v.domain) if flat is None else frozenset(flat) & frozenset(v.domain))
    determined: list[list] = [[] for _ in keys]
    for p in lay.locations:
        # Location values some reachable state may have: views with no empty value set.
        views = {c: view for c, view in state.at[p].items()
                 if all(vals is None or vals for vals in view.values())}
        for i, key in enumerate(keys):
            at = [view.get(key) for view in views.values()]
            if any(vals is None for vals in at):
                continue
            values[i] = values[i] & frozenset().union(*at)
            if all(len(vals) == 1 for vals in at):
                determined[i].append((slot_of[p], tuple(sorted((c, next(iter(view[key])))
                                                               for c, view in views.items()))))
    return HeldValues(tuple(values), tuple(tuple(d) for d in determined))


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
    values = variable_values(model, limit, strict=names).values
    variables = tuple(
        dataclasses.replace(v, domain=tuple(sorted(values[v.name]))) if v.name in names else v
        for v in model.variables
    )
    return dataclasses.replace(model, variables=variables)


def narrow_domains(model: SequentialModel, limit: int = 4096) -> SequentialModel:
    """``model`` with every domain D replaced by V ∩ D (see module docstring), and reads of
    process scalars that are constant where a summand runs replaced by that constant
    (``propagate_constants``)."""
    analysis = variable_values(model, limit)
    values = analysis.values
    model = propagate_constants(model, analysis)
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
    lay = _layout(model, frozenset(), 1 << 30)
    env: dict = {}
    for v in model.variables:
        for k in lay.keys_of(v.name):
            env[k] = frozenset(v.domain)
    env.update(scope)
    return _values_of(e, env, lay)
