"""SSA translation of a ``SequentialModel`` into a CSP of small table constraints (seed 002, IV-B).

Every summand becomes a set of constraints over four kinds of variables:

* ``pre``  -- one per state slot, shared by all summands (the state before a step);
* ``post`` -- one per state slot, shared by all summands (the state after);
* ``local`` -- the summand's ``sum`` variables;
* ``aux``  -- SSA versions and flattened sub-expressions, private to the summand.

Invariant (exactness): for every summand k, the projection onto (pre, locals, post) of the
solutions of k's constraints, together with k's *frames* (slots it leaves unchanged:
``post = pre``), is exactly the set of fault-free steps of k in the reference interpreter
(``detect.ir.semantics``).  A step that faults has no solution.  ``init`` constraints (unary,
on ``pre``) allow exactly the initial states.

How exactness survives flattening: expressions are flattened into functional constraints
``t = op(a, b)`` whose tables are computed by enumeration.  A constraint that excludes some
inputs (division by zero, an index out of bounds, a value outside a domain, a false
``assert``) is *partial*; inside a branch or a short-circuited operand it is *guarded* by the
branch's condition ``g`` (it applies only where ``g != 0``), so it only bites where the
interpreter would evaluate it.  Copy propagation keeps SSA names as operands (constants or
variables), so ``x := y`` costs nothing, and the last SSA version of a slot is merged into
its ``post`` variable.

How the graph stays small and symmetric: a constraint may be guarded by one literal
(``Constraint.guard``), so array element k is read as ``[i = k] -> t = a[k]``, a write or φ
as two guarded copies, and a partial constraint as guarded by ``g = 0`` being false; chains
of ``&&``/``||`` and of one associative, commutative operator become one n-ary constraint
(``junction``, ``commutative``) rather than a chain that would single out its last operand
(past ``JUNCTION_OPERANDS``, a gate without a table).

How the translation stays independent of how the model is written (issue 25): a nested
expression over few total reads is one table, the graph of the function it computes
(``tabulated``); an auxiliary defined totally by its constraints records its table over the
*base* variables it depends on (``define``), so a constraint over such values, a post value
above all, is written over the bases when they are few (``flat_emit``), and definitions
nobody reads any more are dropped (``_live``); an index check never violated where its
branch is taken is a total function (``never_outside``), and a fault point that can never
be reached where it faults is dropped (``impossible_point``).  A context drops the
conditions another of its conditions implies (``prune``), so ``a || b || c`` with exclusive
operands does not depend on their order.
"""
from __future__ import annotations

import itertools
import math
import operator
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from detect.ir import (
    Assert, Assign, Binary, Const, Expr, If, Index, Ite, Name, SequentialModel, Slot, Stmt,
    Summand, Unary, While, literal_marks, may_fault, slot_offsets, state_slots,
)
from detect.ir.pretty import show_expr
from detect.ir.semantics import Env, Fault, apply_binary, apply_unary, evaluate
from detect.ir.walk import (
    Renaming, children, fold, names_below, program_shape, shape, statements, substitute,
)

PRE, POST, LOCAL, AUX = "pre", "post", "local", "aux"
#: Most operands of one n-ary ``&&``/``||`` constraint (its table has 2^n rows).
JUNCTION_OPERANDS = 12
#: Associative, commutative operators that never fault: chains of them become one constraint.
_COMMUTATIVE = frozenset({"+", "*", "min", "max", "&", "|", "^"})
#: Most input combinations of one such n-ary constraint.
COMMUTATIVE_ROWS = 4096
#: Most input combinations of a nested expression translated as one function table
#: (``_Builder.tabulated``).
TABULATE_ROWS = 256
#: Most combinations of the base variables a constraint is rewritten over when its operands
#: are functions of them (``_Builder.flat_emit``): small, since the guarded copies it
#: replaces stay linear in the domains.
FLATTEN_ROWS = 16


@dataclass(frozen=True)
class CspVariable:
    name: str
    domain: tuple[int, ...]
    role: str
    slot: int = -1  # state slot, for pre/post
    summand: int = -1  # owning summand, for local/aux
    fault: bool = False  # a local/aux of the summand's fault relation


@dataclass(frozen=True)
class Constraint:
    """Allowed assignments ``tuples`` over ``scope`` (distinct variable indices).

    A *guarded* constraint ``guard = (g, value, holds)`` only applies where the literal
    ``g = value`` is true (``holds``) or false (not ``holds``); ``g`` is never in ``scope``.
    It stands for the table over ``(g,) + scope`` that allows everything where the guard is
    off, without writing that table out: an array element read through index ``i`` is
    ``[i = k] -> t = a[k]`` (|D| tuples instead of 2|D|^2 + |dom i|), and a partial constraint
    in a branch is guarded by ``[g = 0]`` being false.
    """

    scope: tuple[int, ...]
    tuples: tuple[tuple[int, ...], ...]
    summand: int  # -1 for init constraints
    text: str
    guard: "tuple[int, int, bool] | None" = None
    #: part of the summand's fault relation (see ``Csp.faulting``), not of its steps: ``0``
    #: its body, ``r >= 1`` the requirements of its fault point ``r``.
    fault: int = -1
    #: ``"&&"`` or ``"||"``: the last variable of ``scope`` is the conjunction (disjunction)
    #: of the others' truth values, which ``tuples`` spells out (2^n rows); the graph may
    #: draw it as a gate instead (``detect.symmetry.graph``).  With no ``tuples`` (more
    #: operands than a table takes, all of domain {0, 1}) the gate is the only definition.
    #: ``""``: just a table.
    gate: str = ""
    #: ``"<"``, ``"<="``, ``"=="`` or ``"!="``: a comparison given by its operator, not by a
    #: table (``tuples`` is empty), for operands too wide for one (``_Builder.compared``):
    #: with two variables in ``scope`` ``scope[0] op scope[1]`` must hold, with three
    #: ``scope[2]`` is its truth value.  The graph draws it as a node of the operator with
    #: ordered argument ports and pins its variables' values (``detect.symmetry.graph``).
    relation: str = ""

    @property
    def variables(self) -> tuple[int, ...]:
        """Every variable the constraint reads: its scope, then its guard's variable."""
        return self.scope if self.guard is None else self.scope + (self.guard[0],)


@dataclass(frozen=True)
class Csp:
    variables: tuple[CspVariable, ...]
    constraints: tuple[Constraint, ...]
    #: ``(summand, slot)``: the summand leaves the slot unchanged (constraint ``post = pre``).
    frames: tuple[tuple[int, int], ...]
    #: summands present in the CSP (those that can never take a step are left out).
    summands: tuple[int, ...]
    slots: tuple[Slot, ...]
    pre: tuple[int, ...]
    post: tuple[int, ...]
    #: summand index -> why it was left out (guard constant false, always faults).
    dead: tuple[tuple[int, str], ...] = ()
    #: ``(summand, event name without element indices)`` for every present summand when the
    #: model's event names are observable (``SequentialModel.observable_events``); the graph
    #: colours summands by it.
    events: tuple[tuple[int, str], ...] = ()
    #: ``(summand, kinds)``: the summand can fault, at ``n = len(kinds)`` fault points of those
    #: kinds (``FAULT_KINDS``).  Its fault relation is over pre-state, local and private aux
    #: variables: the *body* (constraints with ``fault == 0``) and, for some point ``r`` in
    #: 1..n, that point's requirements (``fault == r``: reached, and the operation there
    #: faults).  It allows exactly the (pre, locals) where
    #: the summand is enabled and its step faults (guard, event arguments or program).  The
    #: graph hangs the body off a node of its own colour and each point's requirements off a
    #: point node joined to it, so every automorphism maps faulting steps to faulting steps.
    faulting: tuple[tuple[int, tuple[str, ...]], ...] = ()
    #: ``(slot, value, marks)``: the literal ``slot = value`` carries the model's marks
    #: (``SequentialModel.marks``: Promela's end, accept and progress labels); the graph
    #: colours its pre- and post-literal nodes by them.
    marks: tuple[tuple[int, int, str], ...] = ()


class TableTooLarge(Exception):
    """A constraint's allowed-assignment table would exceed the limit."""

    def __init__(self, text: str, size: int, limit: int, origin: str, note: str = "", widest: str = ""):
        what = f"{widest}: bound it (a guard, a smaller type or a declared range)" if widest else \
            "narrow the domains involved"
        super().__init__(
            f"{origin}: constraint {text} would have {size} allowed assignments "
            f"(limit {limit}); {what} or raise --table-limit"
            + (f" ({note})" if note else "")
        )
        self.text, self.size, self.limit, self.origin = text, size, limit, origin
        self.widest = widest

    def located(self, path: str) -> str:
        """The message as one located line: ``file:line:column:`` of the step the constraint
        comes from when its origin has all three, else ``path:`` before the origin's text."""
        message = str(self)
        first = self.origin.first() if hasattr(self.origin, "first") else None
        if first is None or not (first.file and first.line and first.column):
            return f"{path}: {message}"
        body = message[len(str(self.origin)) + 2:]
        joint = f" (the joint step {self.origin})" if len(self.origin.locations) > 1 else ""
        return f"{first.file}:{first.line}:{first.column}: {body}{joint}"

    def noted(self, note: str) -> "TableTooLarge":
        """The same error, saying why the fallback did not apply either."""
        return TableTooLarge(self.text, self.size, self.limit, self.origin, note, self.widest)


@dataclass(frozen=True)
class K:
    """A constant operand."""

    value: int


Operand = "int | K"  # a CSP variable index or a constant


def _picks(operands: Sequence, scope: Sequence[int]) -> list[tuple[bool, int]]:
    """Per operand, how to read it off an assignment of ``scope``: (True, the constant) or
    (False, its position in the assignment)."""
    position = {v: i for i, v in enumerate(scope)}
    return [(True, o.value) if isinstance(o, K) else (False, position[o]) for o in operands]


class _Dead(Exception):
    """The summand can never take a step (guard false or an unconditional fault)."""


@dataclass
class _Summand:
    """Mutable per-summand translation state (internal to ``translate``)."""

    index: int
    origin: str
    cur: dict  # slot -> operand
    temps: dict  # temporary name -> operand
    constraints: list = field(default_factory=list)
    ctx_cache: dict = field(default_factory=dict)
    #: element reads already translated: ``(array, index operand, elements) -> aux``, so
    #: two reads of the same cell through the same SSA versions are one operand (what a
    #: condition on one implies about the other is then known, ``facts``)
    reads: dict = field(default_factory=dict)
    #: total functions as emitted: ``aux -> (operands, fn)`` (``_implied_inside``)
    direct: dict = field(default_factory=dict)
    #: fault mode: translating the summand's fault relations.  Partial operations are made
    #: total (a faulting input allows any value) and each records a *fault point*
    #: ``(context operands, operands, faults)``: reached where every context operand is
    #: nonzero, faulting where ``faults(*operands)``.
    faulting: bool = False
    points: list = field(default_factory=list)
    #: steps: some operation met a value where it is partial (a function faulting on some
    #: input, a range check some value fails, a path that always faults).  When none did,
    #: every evaluation of the summand is total on its operands' values (the translation's
    #: domains contain every value a step reads), so a summand whose guard, labels and
    #: statements cannot fault otherwise has no fault relation (``_Builder.never_faults``).
    partial: bool = False
    #: ``(operand, nonzero)`` -> {variable: values}: what the operand being nonzero (zero)
    #: implies of other variables, read off the total functions that define it (every
    #: solution satisfies those); see ``_Builder.facts``.
    facts: dict = field(default_factory=dict)
    #: ``(a, b)`` -> ``_Builder.implies(a, b)``.  An operand's facts are fixed when it is
    #: defined, before any context holds it, so the answer never changes.  ``prune`` asks
    #: every pair of a context, and a loop's round k has a context of k conditions extending
    #: round k-1's: without the cache a Promela d_step loop the value analysis cannot bound
    #: asked O(k^3) pairs (256 rounds: more than 5 minutes of translation).
    implied: dict = field(default_factory=dict)
    #: aux -> ``(bases, table)``: the aux as a total function of *base* variables (pre-state,
    #: locals, auxiliaries without a definition), ``table[base values] = value``; see
    #: ``_Builder.define``.  Steps only (not the fault relation).
    defs: dict = field(default_factory=dict)
    #: position in ``constraints`` -> the aux it defines totally (removable when unread).
    defining: dict = field(default_factory=dict)
    #: ``defs``, and for the values a partial operation or a range check gives (and what is
    #: computed from them) their value wherever no fault happened and their context holds
    #: (any value elsewhere), over the bases those are functions of: for ``never_entered``
    #: only, which asks about runs that reach a loop's round, where that is their value.
    shadow: dict = field(default_factory=dict)
    #: the variables whose ``shadow`` entry is not their ``defs`` entry
    shadow_only: set = field(default_factory=set)


#: Skip the fault relation of a summand whose steps met no partial operation and that cannot
#: fault otherwise (``_Builder.never_faults``); tests turn it off to check that the CSP is the
#: same without the shortcut.
FAULTS_FROM_STEPS = True


class _Builder:
    def __init__(self, model: SequentialModel, table_limit: int, relations: bool = True):
        self.model = model
        self.limit = table_limit
        self.relations = relations
        self.slots = state_slots(model)
        self.offsets = slot_offsets(model)
        self.sizes = {v.name: v.length for v in model.variables if v.size is not None}
        self.faulting_memo: dict = {}  # ``may_fault``'s, over this model's shared guard parts
        self.overlap_memo: dict = {}  # ``_overlap``'s
        self.sizes_memo: dict = {}  # ``fold``'s, of ``_size``
        # guard conjuncts as translated: ``recorded``'s (None: translate each one)
        self.conjuncts: "dict | None" = {} if SHARE_SUMMANDS and not any(
            _OWN_NAME.match(v.name) for v in model.variables) else None
        self.lengths = {v.name: v.length for v in model.variables}
        self.names_memo: dict = {}  # ``fold``'s, of ``names_below``
        self.tabulated_memo: dict = {}  # ``tabulated``'s
        self.vars: list[CspVariable] = []
        self.constraints: list[Constraint] = []
        self.frames: list[tuple[int, int]] = []
        self.s: _Summand | None = None
        self.pre = tuple(
            self.new_var(f"{s.label}", s.domain, PRE, slot=i) for i, s in enumerate(self.slots)
        )
        self.post = tuple(
            self.new_var(f"{s.label}'", s.domain, POST, slot=i) for i, s in enumerate(self.slots)
        )

    # ------------------------------------------------------------------ variables, tables
    def new_var(self, name, domain, role, slot=-1, summand=-1) -> int:
        fault = self.s is not None and self.s.faulting
        self.vars.append(CspVariable(name, tuple(sorted(set(domain))), role, slot, summand, fault))
        return len(self.vars) - 1

    def aux(self, domain, hint="t") -> int:
        s = self.s
        return self.new_var(f"s{s.index}.{hint}{len(self.vars)}", domain, AUX, summand=s.index)

    def too_large(self, text: str, size: int, scope) -> TableTooLarge:
        """The error for a table over ``scope``, naming its widest state variable (or the
        widest value it computes) so the user knows what to bound."""
        def width(v):
            role = self.vars[v].role
            return (len(self.vars[v].domain), role in (PRE, POST))
        widest = max(scope, key=width, default=None)
        words = ""
        if widest is not None:
            var = self.vars[widest]
            name = self.slots[var.slot].label if var.role in (PRE, POST) else "an intermediate value"
            words = f"{name} ranges over {len(var.domain)} values"
        return TableTooLarge(text, size, self.limit, self.s.origin if self.s else "init", widest=words)

    def dom(self, o) -> tuple[int, ...]:
        return (o.value,) if isinstance(o, K) else self.vars[o].domain

    def emit(self, operands: Sequence, allowed: Callable[..., bool], text: str, ctx=(), guard=None) -> None:
        """Constraint over ``operands`` allowing value tuples where ``allowed(*values)``.

        Constant operands are folded; repeated variables share one column.  If the relation
        excludes some assignment and ``ctx`` is not trivially true, it is relaxed by ``ctx``:
        guarded by ``ctx``'s operand being nonzero, or (when that operand is in the scope)
        relaxed row by row.  ``guard = (g, value, holds)`` restricts the constraint to where
        ``(g = value) == holds``; it is only given with ``ctx = ()``.
        """
        if guard is None and self.s is not None and not self.s.faulting and self.flat_emit(operands, allowed, text, ctx):
            return
        scope: list[int] = []
        for o in operands:
            if not isinstance(o, K) and o not in scope:
                scope.append(o)
        if guard is not None and guard[0] in scope:
            # The relation reads the guard's variable itself: write the guard into the table.
            g, value, holds = guard
            gi, body = operands.index(g), allowed
            guard = None

            def allowed(*values):
                return (values[gi] == value) != holds or body(*values)
        domains = [self.vars[v].domain for v in scope]
        size = 1
        for d in domains:
            size *= len(d)
        if size > self.limit:
            raise self.too_large(text, size, scope)

        picks = _picks(operands, scope)
        direct = len(operands) == len(scope)  # the operands are the scope, in its order
        if allowed is _same and direct and len(scope) == 2:
            # A copy: its tuples are the values both domains have, in the product's order
            # (enumerating the product made guarded copies of bytes most of the time spent).
            second = set(domains[1])
            self._store(scope, domains, size, [(v, v) for v in domains[0] if v in second], text, ctx, guard)
            return
        tuples = []
        for assignment in itertools.product(*domains):
            try:
                ok = allowed(*(assignment if direct else [x if const else assignment[x] for const, x in picks]))
            except Fault:
                ok = False
            if ok:
                tuples.append(assignment)
        self._store(scope, domains, size, tuples, text, ctx, guard)

    def emit_function(self, operands: Sequence, fn: Callable[..., int], t: int, text: str, ctx=(),
                      gate: str = "", results: "dict | None" = None) -> None:
        """``emit(operands + [t], fn(*operands) == t, ...)`` for a fresh variable ``t``,
        enumerating the inputs only (|dom t| times fewer evaluations).  ``results``: ``fn``'s
        value (or ``Fault``) on each tuple of the operands' values, in ``itertools.product``
        order, when the caller has them (``function``)."""
        scope: list[int] = []
        for o in operands:
            if not isinstance(o, K) and o not in scope:
                scope.append(o)
        domains = [self.vars[v].domain for v in scope] + [self.vars[t].domain]
        size = 1
        for d in domains:
            size *= len(d)
        if size > self.limit:
            raise self.too_large(text, size, scope + [t])
        outputs = set(self.vars[t].domain)
        tuples = []
        if results is not None and len(scope) == len(operands):
            # distinct variables, no constants: an input tuple is an assignment of the scope,
            # and ``results`` lists them in the order the loop below would
            for assignment, out in results.items():
                if not isinstance(out, Fault) and out in outputs:
                    tuples.append(assignment + (out,))
            self._store(scope + [t], domains, size, tuples, text, ctx, None, gate)
            return
        picks = _picks(operands, scope)
        for assignment in itertools.product(*domains[:-1]):
            try:
                out = fn(*[x if const else assignment[x] for const, x in picks])
            except Fault:
                continue
            if out in outputs:
                tuples.append(assignment + (out,))
        self._store(scope + [t], domains, size, tuples, text, ctx, None, gate)

    def _store(self, scope, domains, size, tuples, text, ctx, guard, gate: str = "") -> None:
        """Record the table ``tuples`` over ``scope`` (see ``emit``); ``gate`` is kept only
        where the table is stored as it is (not relaxed by a context)."""
        if len(tuples) == size:
            return  # allows everything: no constraint at all
        if guard is not None:
            assert not ctx
            g, value, holds = guard
            on = [x for x in self.vars[g].domain if (x == value) == holds]
            if not on:
                return  # the guard never holds
            if len(on) < len(self.vars[g].domain):
                if not tuples:
                    # The body can never hold: the guard must be off.
                    self.emit([g], lambda x: (x == value) != holds, f"not [{text}]")
                    return
                self.s.constraints.append(
                    Constraint(tuple(scope), tuple(sorted(tuples)), self.s.index, text, guard)
                )
                return
            # The guard always holds: an ordinary constraint.
        g = self.context_var(ctx)
        if g is not None and not isinstance(g, K):
            if g in scope:
                # The relation mentions the context itself: relax row by row.
                gi = scope.index(g)
                tuples = [t for t in tuples if t[gi] != 0] + [
                    a for a in itertools.product(*domains) if a[gi] == 0
                ]
            elif 0 in self.vars[g].domain:
                if not tuples:
                    self.emit([g], lambda x: x == 0, f"not ({text})")
                    return
                self.s.constraints.append(
                    Constraint(tuple(scope), tuple(sorted(tuples)), self.s.index, text, (g, 0, False))
                )
                return
            # else the context operand is never 0: the context always holds.
        elif isinstance(g, K) and g.value == 0:
            return  # unreachable code: nothing to constrain
        if not tuples:
            raise _Dead(f"{text} can never hold")
        self.s.constraints.append(
            Constraint(tuple(scope), tuple(sorted(tuples)), self.s.index, text,
                       gate=gate if g is None or isinstance(g, K) else "")
        )

    def function(self, operands, fn, text, ctx=(), hint="t", gate=""):
        """Operand for ``fn(*operands)``: folded if constant, else an aux with its constraint
        (``gate``: see ``Constraint.gate``)."""
        if all(isinstance(o, K) for o in operands):
            try:
                return K(fn(*(o.value for o in operands)))
            except Fault as fault:
                self.fault(ctx, str(fault))
                return K(0)
        size = 1
        for o in operands:
            size *= len(self.dom(o))
        if size > self.limit:
            raise self.too_large(text, size, [o for o in operands if not isinstance(o, K)])
        # Each input's value (or fault) once: the tables, definitions and facts below read
        # them again, and ``fn`` may be a whole expression's evaluation (``tabulated``).
        results = {}
        for values in itertools.product(*(self.dom(o) for o in operands)):
            try:
                results[values] = fn(*values)
            except Fault as fault:
                results[values] = fault
        outputs = {r for r in results.values() if not isinstance(r, Fault)}
        total = not any(isinstance(r, Fault) for r in results.values())
        if not total:
            self.s.partial = True
        fn = _memo(fn, results)
        if not outputs:
            self.fault(ctx, f"{text} always faults")
            return K(0)
        if not total and self.s.faulting:
            # Fault mode: record where it faults, then go on with a relation that allows
            # every output there (what it holds only matters where the indicator already
            # says "faulted"; no default value, which would single out one value).
            self.indicate(ctx, operands, lambda *xs: _faults(fn, xs), text)
            t = self.aux(outputs, hint)
            self.emit(list(operands) + [t], lambda *xs: _faults(fn, xs[:-1]) or fn(*xs[:-1]) == xs[-1],
                      f"{self.vars[t].name} = {text} (any value where it faults)")
            self.shadow(t, operands, fn)
            return t
        if len(outputs) == 1 and total:
            return K(outputs.pop())
        # The same total function of the same operands already computed in this summand
        # (``pc == 13`` read by several conditions): the same value, so the same variable.
        # Fresh twins with identical constraints would be interchangeable in the graph, each
        # pair a generator of no use: 1,914 of them on 150,000 nodes made TopSPIN's email5
        # take 13 GiB and email6 never finish (issue 28).
        table = tuple(None if isinstance(r, Fault) else r for r in results.values())
        key = ("function", tuple(operands), table, gate) if total else None
        if key is not None and key in self.s.ctx_cache:
            return self.s.ctx_cache[key]
        t = self.aux(outputs, hint)
        if key is not None:
            self.s.ctx_cache[key] = t

        # A total function needs no relaxation by its context: t has exactly one value for
        # every input, so the constraint cuts no (pre, locals, post) assignment away.
        start = len(self.s.constraints)
        self.emit_function(list(operands), fn, t, f"{self.vars[t].name} = {text}", () if total else ctx, gate,
                           results)
        if total:
            self._learn(t, operands, fn, results)
            self.define(t, operands, fn, start, results)
            self.s.direct[t] = (tuple(operands), fn)
        else:
            self.shadow(t, operands, fn)
        return t

    def guarded_copy(self, guard, target: int, source, text: str) -> None:
        """``[guard] -> target = source``."""
        self.emit([target, source], _same, text, guard=guard)

    def choice(self, guard, a, b, text: str, hint: str):
        """Operand equal to ``a`` where ``guard`` holds and to ``b`` elsewhere (φ, writes).

        Two guarded copies instead of one table over (guard variable, a, b, result): the
        guard's variable enters only as one literal, so the graph stays linear in the domains.
        """
        if a == b:
            return a
        g, value, holds = guard
        on = [x for x in self.vars[g].domain if (x == value) == holds]
        if not on:
            return b
        if len(on) == len(self.vars[g].domain):
            return a
        values = set(self.dom(a)) | set(self.dom(b))
        if len(values) == 1:
            return K(values.pop())
        t = self.aux(values, hint)
        name = self.vars[t].name
        start = len(self.s.constraints)
        self.guarded_copy(guard, t, a, f"{name} = {text} when {self._guard_text(guard)}")
        self.guarded_copy((g, value, not holds), t, b, f"{name} = {text} otherwise")
        self.define(t, [g, a, b], lambda gv, av, bv: av if (gv == value) == holds else bv, start)
        return t

    def _guard_text(self, guard) -> str:
        g, value, holds = guard
        return f"{self.vars[g].name} {'=' if holds else '!='} {value}"

    def fault(self, ctx, why: str, kind: str = "arithmetic") -> None:
        """The current path always faults: its context must be false (in fault mode: the
        context is an indicator)."""
        self.s.partial = True
        g = self.context_var(ctx)
        if self.s.faulting:
            self.s.points.append((self.prune(ctx), (), None, kind))
            return
        if g is None:
            raise _Dead(why)
        if isinstance(g, K):
            if g.value:
                raise _Dead(why)
            return
        self.emit([g], lambda v: v == 0, f"not ({why})", ())

    def indicate(self, ctx, operands, faults: Callable[..., bool], text: str, kind: str = "arithmetic") -> None:
        """Fault mode: record the fault point "reached under ``ctx``, faults where
        ``faults(*operands)``" (``text`` names it; ``kind``, one of ``FAULT_KINDS``, is what
        the user is told: a symmetry maps it to a point of the same kind)."""
        self.s.points.append((self.prune(ctx), tuple(operands), (faults, text), kind))

    # ------------------------------------------------------------------ implications
    def facts(self, o, nonzero: bool) -> dict:
        """{variable: values} that every solution with ``o`` nonzero (``nonzero``) or zero
        gives those variables: ``o``'s own values, and what the total functions defining ``o``
        imply (``_learn``).  Sound, not complete: missing facts only prune less."""
        if isinstance(o, K):
            return {}
        own = {o: frozenset(v for v in self.dom(o) if bool(v) == nonzero)}
        return _meet(own, self.s.facts.get((o, nonzero), {}))

    def _learn(self, t: int, operands, fn, results: "dict | None" = None) -> None:
        """Record what ``t = fn(*operands)`` (total) implies when ``t`` is nonzero or zero,
        for a function of one variable (``x == 3``, ``!b``, ``bool(x)``); ``results`` as
        ``define`` takes them."""
        variables = {o for o in operands if not isinstance(o, K)}
        if len(variables) != 1:
            return
        x = variables.pop()
        by_truth = {True: set(), False: set()}
        where = [k for k, o in enumerate(operands) if o == x]
        if results is not None and len(where) == 1:
            # x in one place, constants elsewhere: one entry of ``results`` per value of x
            k = where[0]
            for values, r in results.items():
                by_truth[bool(r)].add(values[k])
        else:
            # (one argument list refilled per value: a generator per value was a tenth of the
            # translation of Spin's leader.pml)
            args = [None if o == x else o.value for o in operands]
            for v in self.dom(x):
                for k in where:
                    args[k] = v
                by_truth[bool(fn(*args))].add(v)
        for truth, values in by_truth.items():
            implied = {x: frozenset(values)}
            if values and all(v != 0 for v in values):
                implied = _meet(implied, self.facts(x, True))
            elif values == {0}:
                implied = _meet(implied, self.facts(x, False))
            self.s.facts[(t, truth)] = implied

    def _learn_junction(self, r: int, values, op: str) -> None:
        """``r = &&(values)`` is nonzero only where every value is; ``r = ||(values)`` is zero
        only where every value is zero."""
        nonzero = op == "&&"
        implied: dict = {}
        for v in values:
            implied = _meet(implied, self.facts(v, nonzero))
        self.s.facts[(r, nonzero)] = implied

    def implies(self, a, b) -> bool:
        """Every solution with ``a`` nonzero has ``b`` nonzero (as far as the facts tell)."""
        known = self.s.implied.get((a, b))
        if known is None:
            fa, fb = self.facts(a, True), self.facts(b, False)
            known = self.s.implied[(a, b)] = any(not (fa[x] & fb[x]) for x in fa.keys() & fb.keys())
        return known

    def prune(self, ctx) -> tuple:
        """``ctx`` without the operands another one of it implies: the same conjunction.

        A context is a path's conditions in the order the program tests them: ``a || b || c``
        evaluates ``c`` where ``a`` and ``b`` did not decide.  When ``c`` is
        ``_atomic == 3 && ...`` and ``b`` is ``_atomic == 2 && ...``, a fault point in ``c``
        is reached under ``_atomic == 3``, which already rules ``b`` out: dropping "not b"
        keeps the meaning and makes the constraint independent of the order the operands are
        written in, which a symmetry permutes (TopSPIN's peterson3, issue 25)."""
        ops = tuple(ctx)
        key = ("prune",) + ops
        cache = self.s.ctx_cache
        if key in cache:
            return cache[key]
        # Only an operand whose facts when nonzero share a variable with o's facts when zero
        # can imply o (``implies``): indexed by those variables, a context of k conditions on
        # k different variables (an unrolled loop's rounds) asks O(k) pairs, not O(k^2).
        by_variable: dict = {}
        for m, other in enumerate(ops):
            if not isinstance(other, K):
                for x in self.facts(other, True):
                    by_variable.setdefault(x, []).append(m)
        dropped: set[int] = set()
        for j, o in enumerate(ops):
            if isinstance(o, K):
                continue
            for m in {m for x in self.facts(o, False) for m in by_variable.get(x, ())}:
                other = ops[m]
                if m != j and m not in dropped and other != o and self.implies(other, o):
                    dropped.add(j)
                    break
        result = tuple(o for j, o in enumerate(ops) if j not in dropped)
        cache[key] = result
        return result

    def context_var(self, ctx):
        """``None`` for the trivially true context, else an operand that is nonzero iff it holds."""
        ops = [o for o in self.prune(ctx) if not (isinstance(o, K) and o.value != 0)]
        if not ops:
            return None
        if any(isinstance(o, K) for o in ops):
            return K(0)
        key = tuple(ops)
        cache = self.s.ctx_cache
        if key in cache:
            return cache[key]
        if len(ops) == 1:
            g = ops[0]
        elif len(set(ops)) <= JUNCTION_OPERANDS:
            # One n-ary conjunction, like ``junction``: a chain would single out the last
            # condition, e.g. the operand after two others in ``a && b && c[i] == 1``.
            g = self.function(sorted(set(ops)), lambda *xs: int(all(xs)), "ctx", (), "g")
        else:
            g = self.gate(sorted(set(ops)), "&&", "ctx", "g")
        cache[key] = g
        return g

    def gate(self, operands, op: str, text: str, hint: str) -> int:
        """A fresh ``t`` with ``t = op(operands)`` (``&&`` or ``||`` of their truth values),
        for more operands than a table takes (2^n rows): a constraint with ``gate`` set and no
        tuples, which the graph draws as a gate (linear in n) and ``_Check`` evaluates.  A
        chain of binary constraints instead would single out its last operands: German's
        protocol's ``OthersShare`` over 13 caches found 2 of 13! (issue 25)."""
        inputs = []
        for o in dict.fromkeys(operands):  # && and || are idempotent: one column each
            if self.dom(o) != (0, 1):
                o = self.function([o], lambda x: int(bool(x)), f"bool({self._show(o)})", (), hint)
            if isinstance(o, K):
                if bool(o.value) == (op == "||"):
                    return K(int(op == "||"))  # decides, whatever the others hold
                continue
            if o not in inputs:
                inputs.append(o)
        if len(inputs) <= 1:
            return inputs[0] if inputs else K(int(op == "&&"))
        t = self.aux((0, 1), hint)
        start = len(self.s.constraints)
        self.s.constraints.append(Constraint(tuple(inputs) + (t,), (), self.s.index,
                                             f"{self.vars[t].name} = {text}", gate=op))
        self._learn_junction(t, inputs, op)
        decide = all if op == "&&" else any
        self.define(t, inputs, lambda *xs: int(decide(x != 0 for x in xs)), start)
        return t

    # ------------------------------------------------------------------ composition
    def _composed(self, operands, limit: int = 0, defs: "dict | None" = None):
        """``(bases, getters)``: the base variables the non-constant ``operands`` are total
        functions of (``_Summand.defs``; a variable without a definition is its own base),
        and per operand a function of the bases' values giving its value; None past
        ``TABULATE_ROWS`` combinations of the bases."""
        defs = self.s.defs if defs is None else defs
        bases: list[int] = []
        parts = []
        for o in operands:
            if isinstance(o, K):
                parts.append(o)
                continue
            d = defs.get(o)
            own = d[0] if d else (o,)
            parts.append((o, own, d[1] if d else None))
            for b in own:
                if b not in bases:
                    bases.append(b)
        rows = 1
        for b in bases:
            rows *= len(self.vars[b].domain)
        if rows > (limit or TABULATE_ROWS):
            return None
        position = {b: n for n, b in enumerate(bases)}
        getters = []
        for part in parts:
            if isinstance(part, K):
                getters.append(lambda bv, v=part.value: v)
                continue
            o, own, table = part
            ids = tuple(position[b] for b in own)
            if table is None:
                getters.append(operator.itemgetter(ids[0]))
            elif len(ids) == 1:
                getters.append(lambda bv, j=ids[0], table=table: table[(bv[j],)])
            else:  # (itemgetter of several positions gives their tuple: the table's key)
                getters.append(lambda bv, key=operator.itemgetter(*ids), table=table: table[key(bv)])
        return bases, getters

    def define(self, t: int, operands, f, start: int, results: "dict | None" = None) -> None:
        """Record that ``t = f(*operands)`` (total) is defined by the constraints from
        position ``start`` on (removable when nothing reads ``t``), and ``t``'s table over
        its bases when they are few (``_composed``); ``results``: ``f``'s values over the
        product of the operands' domains, when the caller has them (``function``)."""
        if not self.s.faulting:  # (the fault relation's body is sliced by ``_slice``)
            for pos in range(start, len(self.s.constraints)):
                if t in self.s.constraints[pos].scope:
                    self.s.defining[pos] = t
        table = self._table(t, operands, f, results=results)
        if table is not None:
            self.s.defs[t] = table
        if any(o in self.s.shadow_only for o in operands if not isinstance(o, K)):
            self.shadow(t, operands, f)  # over the shadow's bases, which go through range checks
        elif table is not None:
            self.s.shadow[t] = table

    def _table(self, t: int, operands, f, defs: "dict | None" = None, default=None, results=None):
        """``(bases, table)`` of ``t = f(*operands)`` over the bases of ``operands``
        (``_composed`` over ``defs``), or None; where ``f`` faults, ``default`` (None: no
        table at all).  ``results``: ``f``'s values (no ``Fault``) on the product of the
        operands' domains, read instead of calling ``f``."""
        composed = self._composed(operands, defs=defs)
        if composed is None:
            return None
        bases, getters = composed
        own = not any(o in (self.s.defs if defs is None else defs) for o in operands)
        if list(bases) == list(operands) and own:
            getters = None  # each operand its own base: the row holds the arguments
        if results is not None and own and len(bases) == sum(not isinstance(o, K) for o in operands):
            # Distinct variables and constants, none with a definition: the bases' product is
            # the operands' (a constant has one value), in the same order, so the table is
            # ``results`` with the constants' columns left out.  (Computing it again was a
            # fifth of the translation of Spin's leader.pml.)
            columns = [j for j, o in enumerate(operands) if not isinstance(o, K)]
            if len(columns) == len(operands):
                table = dict(results)
            else:
                table = {tuple(values[j] for j in columns): r for values, r in results.items()}
            if set(table.values()) <= set(self.vars[t].domain):
                return tuple(bases), table
            return None
        table = {}
        if results is not None and getters is not None:
            # the operands' values from the bases', then ``results``, not ``f``, read (a total
            # function's: no ``Fault`` among them)
            lookup = results.get
            try:
                for bv in itertools.product(*(self.vars[b].domain for b in bases)):
                    args = tuple([get(bv) for get in getters])
                    value = lookup(args, _ABSENT)
                    table[bv] = f(*args) if value is _ABSENT else value
            except (Fault, KeyError, IndexError):
                return None
            if set(table.values()) <= set(self.vars[t].domain):
                return tuple(bases), table
            return None
        try:
            for bv in itertools.product(*(self.vars[b].domain for b in bases)):
                try:
                    table[bv] = f(*bv) if getters is None else f(*[get(bv) for get in getters])
                except Fault:
                    if default is None:
                        raise
                    table[bv] = default
        except (Fault, KeyError, IndexError):
            return None
        # one set test, not a scan of the domain tuple per entry
        if set(table.values()) <= set(self.vars[t].domain):
            return tuple(bases), table
        return None

    def shadow(self, t: int, operands, f) -> None:
        """Record ``t``'s value as ``f(*operands)`` where that does not fault (see
        ``_Summand.shadow``)."""
        table = self._table(t, operands, f, self.s.shadow, self.vars[t].domain[0])
        if table is not None:
            self.s.shadow[t] = table
            self.s.shadow_only.add(t)

    def flat_emit(self, operands, allowed, text: str, ctx) -> bool:
        """``emit`` over the base variables of ``operands`` and of the context (a relation
        that holds where the context does not), when some operand has a definition: the
        constraint then reads the pre-state and locals, whatever way the values were
        computed.  False (nothing emitted) when it does not apply."""
        g = self.context_var(ctx) if ctx else None
        if isinstance(g, K):
            if g.value == 0:
                return True  # unreachable: nothing to constrain
            g = None
        listed = list(operands) + ([g] if g is not None else [])
        if not any(not isinstance(o, K) and o in self.s.defs for o in listed):
            return False
        composed = self._composed(listed, FLATTEN_ROWS)
        if composed is None:
            return False
        bases, getters = composed
        n = len(operands)

        def holds(*bv):
            if g is not None and getters[n](bv) == 0:
                return True
            return allowed(*(get(bv) for get in getters[:n]))

        self.emit(bases, holds, text)
        return True

    def impossible_point(self, ctx, operands, test) -> bool:
        """Fault mode: whether no values of the bases the point's context and operands are
        functions of both reach the point and fault there (``i != 2`` and ``i + 1 = 3``),
        so the point can go: the relation is the same without it, and an impossible point
        would still single out values in the graph."""
        ops = [o for o in ctx]
        listed = ops + list(operands)
        if not any(not isinstance(o, K) and o in self.s.defs for o in listed):
            return False
        composed = self._composed(listed)
        if composed is None:
            return False
        bases, getters = composed
        n = len(ops)
        for bv in itertools.product(*(self.vars[b].domain for b in bases)):
            if all(get(bv) != 0 for get in getters[:n]):
                if test is None:
                    return False
                try:
                    if test[0](*(get(bv) for get in getters[n:])):
                        return False
                except Fault:
                    return False
        return True

    def never_entered(self, c, ctx) -> bool:
        """Whether no values of the bases the loop condition ``c`` and the context ``ctx``
        (the rounds entered so far, and the loop's own context) are functions of make them
        all nonzero, so the round is never entered (``_composed``, over at most
        ``TABULATE_ROWS`` combinations; False when it cannot tell).  The functions
        (``_Summand.shadow``) are the values of every run that reaches the round, which has
        not faulted and has every context operand nonzero, so where none of the bases'
        values does, no run enters it: sound for the steps and the fault relation alike."""
        listed = [o for o in ctx if not isinstance(o, K)] + [c]
        if not any(o in self.s.shadow for o in listed):
            return False
        composed = self._composed(listed, defs=self.s.shadow)
        if composed is None:
            return False
        bases, getters = composed
        for bv in itertools.product(*(self.vars[b].domain for b in bases)):
            if all(get(bv) != 0 for get in getters):
                return False
        return True

    def never_outside(self, o, allowed: set, ctx) -> bool:
        """Whether ``o`` is in ``allowed`` wherever the context holds (steps only, on the
        bases ``o`` and the context are functions of)."""
        if self.s.faulting or isinstance(o, K) or o not in self.s.defs:
            return False
        g = self.context_var(ctx) if ctx else None
        if isinstance(g, K):
            return g.value == 0
        composed = self._composed([o] + ([g] if g is not None else []))
        if composed is None:
            return False
        bases, getters = composed
        for bv in itertools.product(*(self.vars[b].domain for b in bases)):
            if (g is None or getters[1](bv) != 0) and getters[0](bv) not in allowed:
                return False
        return True

    def _implied_inside(self, o, allowed: set, ctx) -> bool:
        """Whether the context keeps ``o`` in ``allowed``: by the facts its conditions imply
        (``facts``), on ``o`` itself or on the operands of the total function defining it,
        or by one condition over the bases both are functions of.  Sound, not complete;
        emits nothing, unlike ``never_outside``, whose whole context is often a function of
        too many bases."""
        if isinstance(o, K):
            return False
        known: dict = {}
        for c in ctx:
            known = _meet(known, self.facts(c, True))
        if o in known and known[o] <= allowed:
            return True
        if o in self.s.direct:
            # o = fn(operands): its values where the operands hold what the context implies
            operands, fn = self.s.direct[o]
            choices = [(x.value,) if isinstance(x, K) else tuple(known.get(x, self.dom(x))) for x in operands]
            if math.prod(len(c) for c in choices) <= COMMUTATIVE_ROWS:
                try:
                    if all(fn(*xs) in allowed for xs in itertools.product(*choices)):
                        return True
                except Fault:
                    pass
        if o not in self.s.defs:
            return False
        for c in ctx:
            if isinstance(c, K) or c not in self.s.defs:
                continue
            composed = self._composed([o, c])
            if composed is None:
                continue
            bases, (value, holds) = composed
            if all(holds(bv) == 0 or value(bv) in allowed
                   for bv in itertools.product(*(self.vars[b].domain for b in bases))):
                return True
        return False

    def shifted_index(self, index: Expr, length: int, ctx):
        """``(o, cell)`` when ``index`` is ``x + c``, ``c + x`` or ``x - c`` for a constant c and
        a non-constant operand o whose every value v selects the in-range cell ``cell[v]``.
        The cells are then read and written under the literals of o itself, with no
        auxiliary for the sum: ``a[t]`` and ``a[t + 3]`` (a CSP# family nested in another,
        linearised per outer index) translate alike, so the summands of the outer
        processes stay interchangeable in the graph (issue 13)."""
        if not (isinstance(index, Binary) and index.op in ("+", "-")):
            return None
        if isinstance(index.right, Const):
            inner, c = index.left, index.right.value
            shift = c if index.op == "+" else -c
        elif isinstance(index.left, Const) and index.op == "+":
            inner, shift = index.right, index.left.value
        else:
            return None
        o = self.term(inner, ctx)
        if isinstance(o, K):
            return None
        cell = {v: v + shift for v in self.dom(o)}
        if not all(0 <= k < length for k in cell.values()):
            return None
        return o, cell

    def checked(self, o, domain, ctx, what: str):
        """``o`` restricted to ``domain`` (a fault outside it)."""
        allowed = set(domain)
        d = self.dom(o)
        if set(d) <= allowed:
            return o
        self.s.partial = True
        if isinstance(o, K):
            self.fault(ctx, f"{what}: value {o.value} outside {domain[0]}..{domain[-1]}", _checked_kind(what))
            return K(domain[0])
        inside = [x for x in d if x in allowed]
        if not inside:
            self.fault(ctx, f"{what}: always outside its range", _checked_kind(what))
            return K(domain[0])
        if self.s.faulting:
            self.indicate(ctx, [o], lambda a: a not in allowed, f"{what} in range", _checked_kind(what))
            t = self.aux(inside, "c")
            self.emit([o, t], lambda a, b: a == b or a not in allowed,
                      f"{self.vars[t].name} = {what} (any value where it is out of range)")
            self.shadow(t, [o], lambda a: a if a in allowed else inside[0])
            return t
        if self.never_outside(o, allowed, ctx):
            # Where the path is taken, o is always in range; elsewhere its value is masked
            # (φ) or only read by constraints the path's context relaxes.  A total function
            # then reads it as well as the partial one, and can be composed away.
            low = inside[0]
            return self.function([o], lambda a: a if a in allowed else low, f"{what} in range", (), "c")
        # The same check of the same operand in the same context (``c.f0[i]`` and ``c.f1[i]``
        # of one receive) is one variable: equal to ``o`` where the context holds, and read
        # only under it (see ``never_outside``), so twins would differ only where nothing
        # reads them, and would only add graph generators swapping them.
        # Keyed by the values kept, not by the range: checks of one subscript against arrays
        # of different lengths (``Procs[h]`` and ``Homes[h]`` with h a Home) whose ranges
        # keep the same values emit the same constraint (eadash.m: 145 of 179 generators
        # swapped such twins, each a 782,536-long list).
        key = ("checked", o, tuple(inside), self.context_var(ctx))
        if key in self.s.ctx_cache:
            return self.s.ctx_cache[key]
        t = self.aux(inside, "c")
        # (t's domain is within ``allowed``: t = o holds only where o is in range.)
        self.emit([o, t], _same, f"{self.vars[t].name} = {what} in range", ctx)
        self.shadow(t, [o], lambda a: a if a in allowed else inside[0])
        self.s.ctx_cache[key] = t
        return t

    # ------------------------------------------------------------------ expressions
    def term(self, e: Expr, ctx) -> "int | K":
        s = self.s
        if isinstance(e, Const):
            return K(e.value)
        if isinstance(e, Name):
            if e.name in s.temps:
                return s.temps[e.name]
            if e.name in self.offsets:
                return s.cur[self.offsets[e.name]]
            raise ValueError(f"{s.origin}: {e.name} read before it is assigned")
        if isinstance(e, Index):
            var = self.model.variable(e.array)
            base = self.offsets[e.array]
            shifted = self.shifted_index(e.index, var.length, ctx)
            if shifted is not None:
                i, cell = shifted
            else:
                i = self.checked(self.term(e.index, ctx), tuple(range(var.length)), ctx, f"index of {e.array}")
                if isinstance(i, K):
                    return s.cur[base + i.value]
                cell = {k: k for k in self.dom(i)}
            elements = {k: s.cur[base + cell[k]] for k in self.dom(i)}
            if len(set(elements.values())) == 1:
                return next(iter(elements.values()))
            key = (e.array, i, tuple(sorted(elements.items())))
            if key in s.reads:
                return s.reads[key]
            # Element k is read under the guard literal i = k (no selector variable: the
            # literal itself is the guard, see ``Constraint``).
            t = self.aux(set().union(*(self.dom(o) for o in elements.values())), "r")
            start = len(s.constraints)
            for k, o in elements.items():
                self.guarded_copy(
                    (i, k, True), t, o,
                    f"({self._show(i)} = {k}) -> {self.vars[t].name} = {e.array}[{cell[k]}]",
                )
            keys = {k: n for n, k in enumerate(elements)}
            self.define(t, [i] + list(elements.values()), lambda iv, *els: els[keys[iv]], start)
            s.reads[key] = t
            return t
        if isinstance(e, (Unary, Binary, Ite)) and (
                not (isinstance(e, Binary) and (e.op in ("&&", "||") or e.op in _COMMUTATIVE))
                or self._overlap(e)):
            t = self.tabulated(e, ctx)
            if t is not None:
                return t
        if isinstance(e, Unary):
            a = self.term(e.operand, ctx)
            return self.function([a], lambda x: apply_unary(e.op, x), f"{e.op}{self._show(a)}", ctx)
        if isinstance(e, Binary):
            if e.op in ("&&", "||"):
                return self.junction(e, ctx)
            if e.op in _COMMUTATIVE:
                return self.commutative(e, ctx)
            a = self.term(e.left, ctx)
            b = self.term(e.right, ctx)
            op = e.op
            if op in _ORDER:
                t = self.compared(a, b, op, f"{self._show(a)} {op} {self._show(b)}")
                if t is not None:
                    return t
            return self.function(
                [a, b], lambda x, y: apply_binary(op, x, y),
                f"{self._show(a)} {op} {self._show(b)}", ctx,
            )
        if isinstance(e, Ite):
            c = self.term(e.cond, ctx)
            if isinstance(c, K):
                return self.term(e.then if c.value else e.else_, ctx)
            a = self.term(e.then, ctx + (c,))
            b = self.term(e.else_, ctx + (self.negate(c),))
            return self.phi(c, a, b)
        raise ValueError(f"unknown expression {e!r}")

    def _overlap(self, e: Binary) -> bool:
        """``_operands_overlap`` of the chain ``e``, once per expression object: every guard
        of a Promela model carries the same atomic-turn condition (a third of the chains
        Spin's leader.pml translates, each walked in full)."""
        hit = self.overlap_memo.get(id(e))
        if hit is None:
            hit = self.overlap_memo[id(e)] = (e, _operands_overlap(_chain_operands(e)))  # (e kept: its id stays its)
        return hit[1]

    def tabulated(self, e: Expr, ctx):
        """``e`` as ONE function constraint over the values it reads, or None.

        Applies when ``e`` nests operators (a single one is a function constraint anyway),
        reads only variables and array elements that cannot fault (a constant subscript, or
        a variable or a variable plus a constant whose every value is within bounds), never
        faults itself, and its reads have at most ``TABULATE_ROWS`` combinations.  The table
        is then the graph of the function ``e`` computes, whatever way it is written:
        ``i = N-1 ? 0 : i+1`` and ``(i+1) % N`` give the same constraint, where a
        translation by structure singles out the constant 0 in a φ and hides a ring's
        rotations (issue 25).  Exact: the reads are total, so reading them first changes
        nothing, and ``e`` is total on them.  Nothing is emitted unless it applies."""
        if all(isinstance(c, (Const, Name)) for c in children(e)):
            return None  # one operator over leaves: already one function constraint
        leaves: dict = {}  # leaf -> the values it may read
        strict = _strict(e)
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, Index):
                if x not in leaves:
                    values = self._total_read_values(x, ctx)
                    if values is None:
                        if x not in strict:
                            return None
                        # A read that may fault but that ``e`` always evaluates: reading it
                        # first (with its own fault point, as ``term`` translates it) changes
                        # nothing, and ``e`` is a function of its value: the flattened
                        # subscript ``h in range ? h * 2 + c[..] : -1`` over every ``h``
                        # collides by structure (1*2+2 = 2*2+0), as one table it does not.
                        base = self.offsets[x.array]
                        values = tuple(sorted(set().union(*(
                            self.dom(self.s.cur[base + k]) for k in range(self.model.variable(x.array).length)))))
                    leaves[x] = values
            elif isinstance(x, Name):
                leaves.setdefault(x, self.dom(self.term(x, ctx)))
            else:
                stack.extend(children(x))
        rows = 1
        for values in leaves.values():
            rows *= len(values)
        if rows > TABULATE_ROWS:
            return None
        order = list(leaves)
        # e's values depend on e and its leaves' values only: computed once per expression
        # object (the atomic-turn condition every guard carries, Spin's leader.pml)
        key = (id(e), tuple(leaves[leaf] for leaf in order))
        hit = self.tabulated_memo.get(key)
        if hit is None or hit[0] is not e:
            hit = self.tabulated_memo[key] = (e,) + self._tabulate(e, order, leaves)
        _, names, value, computed = hit
        if computed is None:
            return None  # partial: translated by structure, each fault where it occurs
        operands = {leaf: self.term(leaf, ctx) for leaf in order}
        inputs = list(dict.fromkeys(o for o in operands.values() if not isinstance(o, K)))
        position = {o: n for n, o in enumerate(inputs)}
        picks = [(True, o.value) if isinstance(o, K) else (False, position[o]) for o in operands.values()]

        def fn(*xs):
            key = tuple(x if const else xs[x] for const, x in picks)
            if key in computed:
                return computed[key]
            return value({names[leaf].name: v for leaf, v in zip(order, key)})

        return self.function(inputs, fn, show_expr(e), ctx)

    def _tabulate(self, e: Expr, order: list, leaves: dict) -> tuple:
        """``(leaf names, evaluation, values)`` for ``tabulated``: ``e`` with its leaves
        renamed, evaluated over their names' values, and its value for every combination of
        the leaves' values (None where it faults on one)."""
        names = {leaf: Name(f"\0{n}") for n, leaf in enumerate(order)}
        body = substitute(e, names)

        def value(scope):
            return evaluate(body, Env(self.model, {}, [], scope))

        computed = {}  # the leaves' values -> e's value, evaluated once each
        for values in itertools.product(*(leaves[leaf] for leaf in order)):
            try:
                computed[values] = value({names[leaf].name: v for leaf, v in zip(order, values)})
            except Fault:
                return names, value, None
        return names, value, computed

    def _total_read_values(self, x: Index, ctx):
        """The values ``x`` may read when it can never fault and its subscript is a
        constant, a variable or a variable plus or minus a constant (else None); emits
        nothing."""
        var = self.model.variable(x.array)
        index, shift = x.index, 0
        if isinstance(index, Binary) and index.op in ("+", "-") and isinstance(index.right, Const):
            index, shift = index.left, index.right.value if index.op == "+" else -index.right.value
        elif isinstance(index, Binary) and index.op == "+" and isinstance(index.left, Const):
            index, shift = index.right, index.left.value
        if isinstance(index, Const):
            cells = {index.value + shift}
        elif isinstance(index, (Name, Ite)):
            # (an Ite: a flattened subscript ``h in range ? h + a : -1``, itself tabulated)
            o = self.term(index, ctx)
            cells = {v + shift for v in self.dom(o)}
            inside = {v for v in self.dom(o) if 0 <= v + shift < var.length}
            if len(inside) < len(cells) and inside and self._implied_inside(o, inside, ctx):
                # Out-of-range subscripts never occur where the context holds (a union value
                # bound by an Alias under ``IsMember``): the read is total there, so the
                # expression is tabulated over the in-range cells, not translated by
                # structure, whose flattened-index arithmetic on the impossible values
                # collides (``a * 2 + c``) and hides the scalarset's permutations.
                cells = {v + shift for v in inside}
        else:
            return None
        if not all(0 <= k < var.length for k in cells):
            return None
        base = self.offsets[x.array]
        return tuple(sorted(set().union(*(self.dom(self.s.cur[base + k]) for k in cells))))

    def junction(self, e: Binary, ctx):
        """``e1 && e2 && ... && en`` (or ``||``) as ONE n-ary constraint over the operands'
        truth values, not a chain of binary ones: a chain ``(b1 && b2) && b3`` lets an
        automorphism swap only b1 and b2, so ``x[0] == 1 && x[1] == 1 && x[2] == 1`` would
        hide the symmetry of three processes.  Exact under short-circuiting: operand i is
        translated in the context "operands 1..i-1 did not decide" (its partial constraints
        only bite there), and the first deciding operand fixes the result whatever the later,
        unevaluated ones hold.  Above ``JUNCTION_OPERANDS`` operands the table (2^n rows)
        would be too big, and the constraint is a gate without a table (``gate``)."""
        op = e.op
        parts = _chain_operands(e)
        values: list[int] = []
        context = ctx
        for part in parts:
            o = self.term(part, context)
            if isinstance(o, K):
                if bool(o.value) == (op == "||"):
                    return K(int(op == "||"))  # decided: the rest is never evaluated
                continue
            b = o if set(self.dom(o)) <= {0, 1} else self.function(
                [o], lambda x: int(bool(x)), f"bool({self._show(o)})", ctx)
            if isinstance(b, K):
                if bool(b.value) == (op == "||"):
                    return K(int(op == "||"))
                continue
            values.append(b)
            # Every operand gets its "did not decide" operand, the last one too, so that the
            # operands stay alike in the graph.
            context = context + ((b if op == "&&" else self.negate(b)),)
        if not values:
            return K(int(op == "&&"))
        if len(values) == 1:
            return values[0]
        decide = all if op == "&&" else any
        if len(values) > JUNCTION_OPERANDS:
            return self.gate(values, op, f" {op} ".join(self._show(v) for v in values), "t")
        r = self.function(values, lambda *xs: int(decide(xs)),
                          f" {op} ".join(self._show(v) for v in values), ctx, gate=op)
        if not isinstance(r, K):
            self._learn_junction(r, values, op)
        return r

    def commutative(self, e: Binary, ctx):
        """A chain of one associative, commutative, total operator (``a + b + c``, ``min``,
        ``&``...) as one n-ary constraint when its table stays small (at most
        ``COMMUTATIVE_ROWS`` input combinations): a binary chain would single out the last
        operand (``(p0 != 0) + (p1 != 0) + (p2 != 0)``, a process count, would only let
        processes 0 and 1 swap).  Constants are folded into one; otherwise pairwise."""
        op = e.op
        operands = [self.term(part, ctx) for part in _chain_operands(e)]
        constants = [o.value for o in operands if isinstance(o, K)]
        variables = [o for o in operands if not isinstance(o, K)]

        def combine(values):
            acc = values[0]
            for v in values[1:]:
                acc = apply_binary(op, acc, v)
            return acc

        rows = 1
        for v in variables:
            rows *= len(self.dom(v))
        if len(variables) >= 3 and rows <= COMMUTATIVE_ROWS:
            fixed = (K(combine(constants)),) if constants else ()
            listed = list(fixed) + variables
            return self.function(listed, lambda *xs: combine(xs),
                                 f" {op} ".join(self._show(o) for o in listed), ctx)
        acc = operands[0]
        for o in operands[1:]:
            acc = self.function([acc, o], lambda x, y: apply_binary(op, x, y),
                                f"{self._show(acc)} {op} {self._show(o)}", ctx)
        return acc

    def _wide(self, a, b, results: int) -> bool:
        """``a`` and ``b`` are two variables whose comparison's table (``results`` values of
        its own) would exceed the table limit."""
        if not self.relations or isinstance(a, K) or isinstance(b, K) or a == b:
            return False
        return len(self.dom(a)) * len(self.dom(b)) * results > self.limit

    def compared(self, a, b, op: str, text: str):
        """A fresh ``t = (a op b)`` for a comparison of two variables too wide for a table,
        as one ``Constraint.relation`` (None, nothing emitted, when the table fits: the
        table stays the translation wherever it can be one).  Total, so never relaxed."""
        da, db = self.dom(a), self.dom(b)
        outputs = _comparison_values(op, da, db)
        if not self._wide(a, b, len(outputs)):
            return None
        if len(outputs) == 1:
            return K(outputs[0])
        t = self.aux(outputs)
        start = len(self.s.constraints)
        left, right, canonical = (b, a, _SWAPPED[op]) if op in _SWAPPED else (a, b, op)
        self.s.constraints.append(Constraint((left, right, t), (), self.s.index,
                                             f"{self.vars[t].name} = {text}", relation=canonical))
        self.define(t, [a, b], lambda x, y: apply_binary(op, x, y), start)
        return t

    def related(self, a, b, op: str, text: str, ctx) -> bool:
        """Require ``a op b`` of two variables too wide for a table as one
        ``Constraint.relation``, relaxed where the context does not hold (guarded by the
        context's operand being nonzero); False (nothing emitted) where a table fits or
        the context's operand is one of the two."""
        if not self._wide(a, b, 1):
            return False
        g = self.context_var(ctx)
        if isinstance(g, K):
            if g.value == 0:
                return True  # unreachable code: nothing to constrain
            g = None
        if g in (a, b):
            return False
        guard = (g, 0, False) if g is not None and 0 in self.dom(g) else None
        if _comparison_values(op, self.dom(a), self.dom(b)) == [1]:
            return True  # always holds: no constraint at all
        left, right, canonical = (b, a, _SWAPPED[op]) if op in _SWAPPED else (a, b, op)
        self.s.constraints.append(Constraint((left, right), (), self.s.index, text, guard,
                                             relation=canonical))
        return True

    def negate(self, o):
        return self.function([o], lambda x: int(not x), f"!{self._show(o)}")

    def _show(self, o) -> str:
        return str(o.value) if isinstance(o, K) else self.vars[o].name

    def require(self, e: Expr, ctx) -> None:
        """Constrain ``e`` to be true (a guard conjunct or an assertion)."""
        if isinstance(e, Binary) and e.op == "&&":
            # Splitting is exact: the right conjunct is evaluated only where the left holds,
            # and every solution has the left true.
            self.require(e.left, ctx)
            self.require(e.right, ctx)
            return
        if not ctx and self.conjuncts is not None and fold(e, _size, self.sizes_memo) >= CONJUNCT_NODES:
            self.recorded(e)
            return
        self._require(e, ctx)

    def _require(self, e: Expr, ctx) -> None:
        """``require`` of a conjunct (no ``&&`` at its top)."""
        negated = False
        inner = e
        if isinstance(e, Unary) and e.op == "!" and isinstance(e.operand, Binary):
            negated, inner = True, e.operand
        if isinstance(inner, Binary) and inner.op in ("==", "!=", "<", "<=", ">", ">="):
            a = self.term(inner.left, ctx)
            b = self.term(inner.right, ctx)
            op = inner.op
            text = f"{'!' if negated else ''}({show_expr(inner)})"
            if self.related(a, b, _NEGATED[op] if negated else op, text, ctx):
                return
            self.emit([a, b], lambda x, y: apply_binary(op, x, y) != negated, text, ctx)
            return
        o = self.term(e, ctx)
        self.emit([o], lambda x: x != 0, show_expr(e), ctx)

    # ------------------------------------------------------------------ shared conjuncts
    def recorded(self, e: Expr) -> None:
        """``_require(e, ())`` for a large guard conjunct, replayed where it was recorded.

        Every guard of a Promela model carries the same atomic-turn condition (over every
        process's location: Spin's leader.pml, 533 summands, two thirds of its constraints).
        Translated where the summand's state is *pristine* for ``e`` (``_pristine``), it
        depends on ``e``, the translation mode and the domains only: it reads the summand's
        state through the state variables ``e`` names, each still its pre-state variable,
        and through cache entries keyed by operands, none of which over those pre-state
        variables alone exists but pure ones (a ``prune`` of them, a one-operand context), so
        every other operand it meets is one it made.  Its additions (variables, constraints, cache
        and fact entries, definitions, fault points) are then the recorded ones with the
        recording's fresh variables renumbered to fresh ones in the same order, and their
        names (in texts too) made this summand's, as ``_Sharing`` renames."""
        s = self.s
        key = (e, s.faulting)
        record = self.conjuncts.get(key)
        if not self._pristine(e):
            self._require(e, ())
            return
        if record is not None:
            self._replay_conjunct(record)
            return
        before = (len(self.vars), len(s.constraints), len(s.ctx_cache), len(s.reads), len(s.facts),
                  len(s.defs), len(s.shadow), len(s.direct), len(s.defining), len(s.points), set(s.shadow_only))
        partial, s.partial = s.partial, False
        self._require(e, ())
        mark, start, *sizes, shadow_only = before
        tails = [tuple(itertools.islice(d.items(), n, None)) for d, n in
                 zip((s.ctx_cache, s.reads, s.facts, s.defs, s.shadow, s.direct, s.defining), sizes)]
        record = _Conjunct(
            s.index, mark, tuple(self.vars[mark:]), tuple(s.constraints[start:]), start, *tails,
            tuple(s.points[sizes[-1]:]), tuple(t for t in s.shadow_only if t not in shadow_only), s.partial)
        state, top = 2 * len(self.slots), len(self.vars)
        if all(o is None or isinstance(o, K) or o < state or mark <= o < top for o in _recorded_operands(record)):
            self.conjuncts[key] = record  # (else not as ``_pristine`` promised: not recorded)
        s.partial = partial or s.partial

    def _pristine(self, e: Expr) -> bool:
        """Whether ``e`` reads state variables only, each still its pre-state variable, and
        no cache entry over those pre-state variables alone holds an operand made before
        (see ``recorded``): ``e``'s translation meets no other operand but its own, so only
        such an entry could be looked up."""
        s = self.s
        read = set()
        for name in fold(e, names_below, self.names_memo):
            if name in s.temps or name not in self.offsets:
                return False
            base = self.offsets[name]
            for k in range(base, base + self.lengths[name]):
                if s.cur[k] != self.pre[k]:
                    return False
                read.add(self.pre[k])

        def over_state(operands) -> bool:
            return all(o is None or isinstance(o, K) or o in read for o in operands)

        for key, value in s.ctx_cache.items():
            if not key or not isinstance(key[0], str):
                if len(key) > 1 and over_state(key):
                    return False  # a context conjunction made before
            elif key[0] == "function" and over_state(key[1]):
                return False
            elif key[0] == "checked" and over_state((key[1], key[3])):
                return False
        return not any(over_state((i,) + tuple(o for _, o in elements)) for _, i, elements in s.reads)

    def _replay_conjunct(self, r: "_Conjunct") -> None:
        s = self.s
        base = len(self.vars)
        shift = base - r.mark
        mark = r.mark
        # (a recorded conjunct reads only state variables, below ``mark``, and its own)

        def v(x):
            return x + shift if x >= mark else x

        # (an operand is a variable's index, an int, or a constant ``K`` or None: the class
        # test is isinstance's, at a third of the cost on mobile1.pml's 400,000 calls)
        def o(x):
            return x + shift if x.__class__ is int and x >= mark else x

        def ops(xs):
            return tuple([x + shift if x.__class__ is int and x >= mark else x for x in xs])

        names = {}
        for k, var in enumerate(r.variables):
            name = _renamed_variable(var, r.summand, s.index, r.mark + k, base + k)
            names[var.name] = name
            self.vars.append(CspVariable(name, var.domain, var.role, var.slot, s.index, var.fault))
        start = len(s.constraints)
        index, text = s.index, _Sharing._text
        s.constraints.extend([Constraint(
            tuple([x + shift if x >= mark else x for x in c.scope]), c.tuples, index, text(c.text, names),
            c.guard and (v(c.guard[0]),) + c.guard[1:], c.fault, c.gate, c.relation) for c in r.constraints])
        for key, value in r.ctx_cache:
            if not isinstance(key[0], str):
                s.ctx_cache[ops(key)] = o(value)
            elif key[0] == "function":
                s.ctx_cache[(key[0], ops(key[1])) + key[2:]] = v(value)
            elif key[0] == "prune":
                s.ctx_cache[("prune",) + ops(key[1:])] = ops(value)
            else:  # "checked"
                s.ctx_cache[(key[0], o(key[1]), key[2], o(key[3]))] = v(value)
        for (array, i, elements), t in r.reads:
            s.reads[(array, o(i), tuple((k, o(x)) for k, x in elements))] = v(t)
        for (t, truth), implied in r.facts:
            s.facts[(v(t), truth)] = {v(x): values for x, values in implied.items()}
        for t, (bases, table) in r.defs:
            s.defs[v(t)] = (ops(bases), table)
        for t, (bases, table) in r.shadow:
            s.shadow[v(t)] = (ops(bases), table)
        for t, (operands, fn) in r.direct:
            s.direct[v(t)] = (ops(operands), fn)
        for pos, t in r.defining:
            s.defining[pos - r.start + start] = v(t)
        for ctx, operands, test, kind in r.points:
            s.points.append((ops(ctx), ops(operands), test, kind))
        s.shadow_only.update(v(t) for t in r.shadow_only)
        s.partial = s.partial or r.partial

    # ------------------------------------------------------------------ statements
    def run(self, stmts: Sequence[Stmt], ctx) -> None:
        s = self.s
        for st in stmts:
            if isinstance(st, Assign):
                value = self.term(st.value, ctx)
                target = st.target
                if isinstance(target, Name) and target.name not in self.offsets:
                    s.temps[target.name] = value
                    continue
                array = target.array if isinstance(target, Index) else target.name
                var = self.model.variable(array)
                base = self.offsets[array]
                value = self.checked(value, var.domain, ctx, f"value written to {array}")
                if isinstance(target, Name):
                    s.cur[base] = value
                    continue
                shifted = self.shifted_index(target.index, var.length, ctx)
                if shifted is not None:
                    i, cell = shifted
                else:
                    i = self.checked(self.term(target.index, ctx), tuple(range(var.length)), ctx,
                                     f"index of {array}")
                    if isinstance(i, K):
                        s.cur[base + i.value] = value
                        continue
                    cell = {k: k for k in self.dom(i)}
                for k in self.dom(i):
                    old = s.cur[base + cell[k]]
                    s.cur[base + cell[k]] = self.choice(
                        (i, k, True), value, old,
                        f"({self._show(i)} = {k}) ? {self._show(value)} : {self._show(old)}",
                        "w",
                    )
            elif isinstance(st, If):
                c = self.term(st.cond, ctx)
                if isinstance(c, K):
                    self.run(st.then if c.value else st.else_, ctx)
                    continue
                self.branch(c, lambda: self.run(st.then, ctx + (c,)),
                            lambda nc: self.run(st.else_, ctx + (nc,)))
            elif isinstance(st, While):
                self.loop(st, ctx)
            elif isinstance(st, Assert):
                if s.faulting:
                    # a bound of ours is its own kind: a symmetry must not map a step cut by
                    # it to the model's own error (the verdicts differ: undecided, violated)
                    self.indicate(ctx, [self.term(st.cond, ctx)], lambda x: x == 0, show_expr(st.cond),
                                  "assert" if st.bound is None else "bound")
                else:
                    self.require(st.cond, ctx)
            else:
                raise ValueError(f"unknown statement {st!r}")

    def branch(self, c, run_then, run_else) -> None:
        """Run both branches from the same SSA state and merge with φ(c, then, else)."""
        s = self.s
        cur0, temps0 = dict(s.cur), dict(s.temps)
        run_then()
        cur1, temps1 = s.cur, s.temps
        s.cur, s.temps = dict(cur0), dict(temps0)
        nc = self.negate(c)
        run_else(nc)
        cur2, temps2 = s.cur, s.temps
        merged_cur = {}
        for slot in cur0:
            a, b = cur1[slot], cur2[slot]
            merged_cur[slot] = a if a == b else self.phi(c, a, b)
        merged_temps = {}
        for name in set(temps1) & set(temps2):
            a, b = temps1[name], temps2[name]
            merged_temps[name] = a if a == b else self.phi(c, a, b)
        s.cur, s.temps = merged_cur, merged_temps

    def phi(self, c, a, b):
        """φ(c, a, b): ``a`` where ``c`` is nonzero, else ``b``."""
        if isinstance(c, K):
            return a if c.value else b
        return self.choice((c, 0, False), a, b, f"φ({self._show(c)}, {self._show(a)}, {self._show(b)})", "p")

    def loop(self, st: While, ctx) -> None:
        """Unroll ``st`` up to ``loop_bound`` rounds: where the condition ``c`` is not a
        constant, the rest of the loop runs in the branch where it holds, and the levels are
        merged innermost first with φ(c, then, unchanged), as ``branch`` merges an ``If``
        (so a counter stays a constant within its round).  The levels are kept on a list,
        not the Python stack, so CMurphi's bound of 1000 rounds does not recurse 1000 deep."""
        s = self.s
        bound = self.model.loop_bound
        levels = []  # (c, cur, temps) before each round entered under the symbolic c
        for rounds in range(bound + 1):
            c = self.term(st.cond, ctx)
            if isinstance(c, K) and not c.value:
                break
            if not isinstance(c, K) and self.never_entered(c, ctx):
                # No pre-state that reaches this round without a fault enters it (the value
                # analysis bounded the loop's variables): unrolling stops as for a constant
                # false condition, where CSP# and Promela loops once ran all 256 rounds.
                break
            if rounds == bound:
                self.fault(ctx if isinstance(c, K) else ctx + (c,),
                           f"loop ran more than {bound} rounds", "loop")
                break
            if not isinstance(c, K):
                levels.append((c, dict(s.cur), dict(s.temps)))
                ctx = ctx + (c,)
            self.run(st.body, ctx)
        for c, cur0, temps0 in reversed(levels):
            self.negate(c)  # as ``branch`` makes it for its else side: the same graph as before
            cur1, temps1 = s.cur, s.temps
            s.cur = {slot: cur1[slot] if cur1[slot] == cur0[slot] else self.phi(c, cur1[slot], cur0[slot])
                     for slot in cur0}
            s.temps = {name: temps1[name] if temps1[name] == temps0[name] else self.phi(c, temps1[name], temps0[name])
                       for name in set(temps1) & set(temps0)}

    # ------------------------------------------------------------------ summands
    def summand(self, index: int, summand: Summand) -> str | None:
        """Translate one summand; returns why it is dead, or None."""
        cur = {k: self.pre[k] for k in range(len(self.slots))}
        temps = {}
        for loc in summand.locals:
            if len(loc.domain) == 1:
                temps[loc.name] = K(loc.domain[0])
        self.s = _Summand(index, summand.where(index), cur, temps)
        mark = len(self.vars)
        for loc in summand.locals:
            if loc.name not in temps:
                temps[loc.name] = self.new_var(f"s{index}.{loc.name}", loc.domain, LOCAL, summand=index)
        try:
            self.require(summand.guard, ())
            for arg in summand.event.args:
                if may_fault(arg, self.sizes, self.faulting_memo):
                    self.term(arg, ())  # the label is computed before the program: it may fault
            self.run(summand.program, ())
        except _Dead as dead:
            del self.vars[mark:]
            return str(dead)
        frames = []
        substitute = {}
        for k in range(len(self.slots)):
            o = self.s.cur[k]
            if o == self.pre[k]:
                frames.append((index, k))
            elif (
                not isinstance(o, K) and self.vars[o].role == AUX and o not in substitute
                and set(self.vars[o].domain) <= set(self.slots[k].domain)
                and not (o in self.s.defs and self._composed([o, self.post[k]], FLATTEN_ROWS))
            ):
                # The last SSA version of slot k *is* its post-state value: merge them.
                substitute[o] = self.post[k]
            else:
                # (An aux with a definition over few bases becomes one table over them.)
                self.emit([o, self.post[k]], _same, f"{self.slots[k].label}' = {self._show(o)}")
        for c in _live(self.s.constraints, self.s.defining, set(substitute)):
            scope = tuple(substitute.get(v, v) for v in c.scope)
            guard = c.guard and (substitute.get(c.guard[0], c.guard[0]),) + c.guard[1:]
            self.constraints.append(Constraint(scope, c.tuples, c.summand, c.text, guard, gate=c.gate,
                                               relation=c.relation))
        self.frames.extend(frames)
        return None

    def never_faults(self, summand: Summand) -> bool:
        """Whether ``summand``, just translated as steps with no partial operation met
        (``_Summand.partial`` false), can never fault: its guard and labels cannot fault
        (``may_fault``), and it has no assertion and no loop (whose bound faults).  Its
        steps' translation met every operation its fault relation would, on the same
        operand values (the guard is required in both), so its fault relation is empty."""
        if may_fault(summand.guard, self.sizes, self.faulting_memo) or any(
                may_fault(arg, self.sizes, self.faulting_memo) for arg in summand.event.args):
            return False
        return not any(isinstance(st, (Assert, While)) for st in statements(summand.program))

    def fault_relations(self, index: int, summand: Summand) -> tuple[str, ...]:
        """Translate summand ``index``'s fault relation (see ``Csp.faulting``); the kinds of
        its fault points (none when the summand can never fault).

        A guard that cannot fault is required, as for the steps.  One that may fault is
        computed as a value ``g`` (its own evaluation's faults count), and the event
        arguments and the program run in the context ``g``.  Every partial operation
        is a fault point, whose requirements are its context and its fault.  Values are
        exact up to the first fault, so "the body and some point's requirements" holds
        exactly where the step faults.  The body keeps only the constraints the points'
        requirements depend on: a dropped one defines an unused auxiliary totally, so
        dropping it does not change the relation.
        """
        temps = {loc.name: K(loc.domain[0]) for loc in summand.locals if len(loc.domain) == 1}
        self.s = _Summand(index, summand.where(index),
                          {k: self.pre[k] for k in range(len(self.slots))}, temps, faulting=True)
        mark = len(self.vars)
        for loc in summand.locals:
            if loc.name not in temps:
                temps[loc.name] = self.new_var(f"s{index}!.{loc.name}", loc.domain, LOCAL, summand=index)
        try:
            if may_fault(summand.guard, self.sizes, self.faulting_memo):
                ctx = (self.term(summand.guard, ()),)
                roots = 0
            else:
                self.require(summand.guard, ())
                ctx, roots = (), len(self.s.constraints)
            for arg in summand.event.args:
                self.term(arg, ctx)
            self.run(summand.program, ctx)
        except _Dead:
            del self.vars[mark:]
            return ()
        # Each fault point's requirements: its context operands nonzero, its operands faulting.
        body = len(self.s.constraints)
        requirements = []
        for ctx, operands, test, kind in self.s.points:
            if self.impossible_point(ctx, operands, test):
                continue  # never reached where it faults
            start = len(self.s.constraints)
            try:
                for c in ctx:
                    self.emit([c], lambda x: x != 0, f"reached ({self._show(c)})")
                if test is not None:
                    faults, text = test
                    self.emit(list(operands), lambda *xs, f=faults: bool(f(*xs)), f"faults: {text}")
            except _Dead:
                del self.s.constraints[start:]
                continue  # never reached, or never faults
            requirements.append((kind, range(start, len(self.s.constraints))))
        points = []
        seen = set()
        for kind, own in requirements:
            point = (kind, [self.s.constraints[pos] for pos in own])
            # Two points with the same requirements are one point, whatever their texts say
            # (the checks of ``c.f0[i]`` and ``c.f1[i]`` fault at the same ``i``): twins
            # would only add generators that swap them.
            same = (kind, tuple((c.scope, c.tuples, c.guard, c.gate) for c in point[1]))
            if same not in seen:
                seen.add(same)
                points.append(point)
        if not points:
            del self.vars[mark:]
            return ()
        kept = _slice(self.s.constraints[:body], roots, [c for _, point in points for c in point])
        self.constraints.extend(_in_fault(c, 0) for c in kept)
        for r, (_, point) in enumerate(points, 1):
            self.constraints.extend(_in_fault(c, r) for c in point)
        return tuple(kind for kind, _ in points)

    def init(self) -> None:
        for k, slot in enumerate(self.slots):
            var = self.model.variable(slot.variable)
            allowed = set(var.init[slot.index])
            if allowed != set(slot.domain):
                self.constraints.append(Constraint(
                    (self.pre[k],), tuple((v,) for v in sorted(allowed)), -1,
                    f"init {slot.label} in {sorted(allowed)}",
                ))
        if self.model.initial is not None:
            # Listed initial states: one table over the slots that differ between them, so
            # an automorphism maps the set of initial states onto itself (not merely the
            # product of the per-slot sets above).
            varying = [k for k in range(len(self.slots))
                       if len({state[k] for state in self.model.initial}) > 1]
            if varying:
                rows = tuple(sorted({tuple(state[k] for k in varying) for state in self.model.initial}))
                self.constraints.append(Constraint(
                    tuple(self.pre[k] for k in varying), rows, -1,
                    f"init: one of {len(rows)} listed states over {len(varying)} slots",
                ))


#: Translate a summand that is an earlier one with state variables renamed (the same step of
#: another instance of a process) by renaming the earlier one's translation (``_Sharing``);
#: tests turn it off to check that the CSP is the same without.
SHARE_SUMMANDS = True

#: Most summands of one shape kept to rename (each later one of that shape is compared with
#: each): many alike that are no renamings of each other would otherwise cost n^2 / 2.
TEMPLATES = 2
#: Comparisons after which renaming stops when fewer than a quarter found one.
GIVE_UP_AFTER = 64

#: A name as the constraints' texts show it: the texts are renamed token by token.
_TOKEN = re.compile(r"[A-Za-z_][\w.]*(?:!\.[\w.]+)?")
#: ``_TOKEN`` as one group: ``split`` gives the text between tokens at even places and the
#: tokens at odd ones, the matches ``sub`` makes
_TOKEN_SPLIT = re.compile(f"({_TOKEN.pattern})")
#: text -> ``_TOKEN_SPLIT.split(text)``, a pure function's memo (emptied after each ``translate``)
_TEXT_PIECES: dict[str, list[str]] = {}
#: Names the translation gives its own variables (``s12.t345``, ``s12!.x``): no model name
#: may look like one for texts to be renamed token by token.
_OWN_NAME = re.compile(r"s\d+!?\.")


#: Guard conjuncts of at least this many nodes are translated once and replayed
#: (``_Builder.recorded``).
CONJUNCT_NODES = 24


def _recorded_operands(r: "_Conjunct"):
    """Every variable a ``_Conjunct`` names, wherever its additions hold one."""
    for c in r.constraints:
        yield from c.variables
    for key, value in r.ctx_cache:
        if not isinstance(key[0], str):
            yield from key
            yield value
        elif key[0] == "function":
            yield from key[1]
            yield value
        elif key[0] == "prune":
            yield from key[1:]
            yield from value
        else:  # "checked"
            yield from (key[1], key[3], value)
    for (_, i, elements), t in r.reads:
        yield from (i, t)
        yield from (x for _, x in elements)
    for (t, _), implied in r.facts:
        yield t
        yield from implied
    for t, (bases, _) in r.defs + r.shadow:
        yield t
        yield from bases
    for t, (operands, _) in r.direct:
        yield t
        yield from operands
    for _, t in r.defining:
        yield t
    for ctx, operands, _, _ in r.points:
        yield from ctx
        yield from operands
    yield from r.shadow_only


def _size(x: Expr, below: tuple) -> int:
    return 1 + sum(below)


@dataclass(frozen=True)
class _Conjunct:
    """What translating a guard conjunct added to summand ``summand``'s state: its variables
    from ``mark`` on, its constraints (the first at position ``start``), the new entries of
    its caches, facts, definitions and fault points, and whether it met a partial operation
    (``_Builder.recorded``)."""

    summand: int
    mark: int
    variables: tuple
    constraints: tuple
    start: int
    ctx_cache: tuple
    reads: tuple
    facts: tuple
    defs: tuple
    shadow: tuple
    direct: tuple
    defining: tuple
    points: tuple
    shadow_only: tuple
    partial: bool


@dataclass(frozen=True)
class _Part:
    """What translating one half of a summand (its steps, or its fault relation) added to the
    builder: its new variables from index ``mark`` on, its constraints, and its result (the
    steps: why the summand is dead or None; the fault relation: its points' kinds)."""

    mark: int
    variables: tuple[CspVariable, ...]
    constraints: tuple[Constraint, ...]
    result: object
    #: the steps: ``_Summand.partial``, and the slots not framed
    partial: bool = False
    changed: frozenset = frozenset()


@dataclass(frozen=True)
class _Template:
    """A summand translated the long way; ``faults`` None where its fault relation was skipped."""

    index: int
    summand: Summand
    steps: _Part
    faults: "_Part | None"


class _Sharing:
    """Summand translation with reuse (internal to ``translate``).

    Invariant: the CSP is the one ``_Builder.summand`` and ``fault_relations`` give summand by
    summand.  A summand B equal to an earlier template A up to a one-to-one renaming ρ of the
    state variables it reads and writes (``Renaming``: same structure, constants, locals and
    temporaries; each renamed variable of the same domain and length as its image) translates
    to A's constraints with ρ applied to the pre- and post-state variables, A's private
    variables replaced by fresh ones in the same order, and the names in texts renamed: the
    translation reads a state variable only through its name, its domain and length, and the
    order of variable numbers (sorted contexts, the newest scope variable), which ρ keeps
    when it keeps the order of the variables' slots (checked), while fresh variables keep
    their relative order and stay above every state variable.  Spin's leader.pml at N=3
    translates 7 instances of one proctype, each of 72 summands: one is translated, six are
    renamed (issue 28)."""

    def __init__(self, b: "_Builder", enabled: bool):
        self.b = b
        self.enabled = enabled and not any(_OWN_NAME.match(v.name) for v in b.model.variables)
        self.variables = {v.name: v for v in b.model.variables}
        self.shapes: dict = {}  # ``shape``'s memo
        self.names: dict = {}  # ``Renaming``'s memo
        self.templates: dict = {}  # shape key -> templates
        self.attempts = self.hits = 0  # comparisons with a template, and renamings found

    def translate(self, i: int, s: Summand) -> tuple:
        """``(why dead or None, fault kinds)`` of summand ``i``, its constraints added."""
        if not self.enabled:
            return self._fresh(i, s, None)
        key = (tuple(loc.domain for loc in s.locals), shape(s.guard, self.shapes),
               tuple(shape(a, self.shapes) for a in s.event.args), program_shape(s.program, self.shapes))
        for t in self.templates.get(key, ()):
            self.attempts += 1
            renamed = self._renaming(t.summand, s)
            if renamed is not None:
                done = self._replay(t, i, s, *renamed)
                if done is not None:
                    self.hits += 1
                    return done
        if self.attempts >= GIVE_UP_AFTER and self.hits * 4 < self.attempts:
            # Summands alike in shape that are mostly no renamings of each other (each
            # guard reads every other process's location: LTL/mobile2.pml, 8,489 summands,
            # 16 renamings in 55,000 comparisons): comparing costs more than it saves.
            self.enabled = False
        return self._fresh(i, s, key)

    def _fresh(self, i: int, s: Summand, key) -> tuple:
        b = self.b
        mark, start, framed = len(b.vars), len(b.constraints), len(b.frames)
        why = b.summand(i, s)
        partial = b.s.partial
        kept = {k for _, k in b.frames[framed:]}
        steps = _Part(mark, tuple(b.vars[mark:]), tuple(b.constraints[start:]), why, partial,
                      frozenset(k for k in range(len(b.slots)) if k not in kept))
        faults = None
        if self._needs_faults(why, partial, s):
            mark, start = len(b.vars), len(b.constraints)
            kinds = b.fault_relations(i, s)
            faults = _Part(mark, tuple(b.vars[mark:]), tuple(b.constraints[start:]), kinds)
        if key is not None and len(self.templates.setdefault(key, [])) < TEMPLATES:
            self.templates[key].append(_Template(i, s, steps, faults))
        return why, faults.result if faults else ()

    def _needs_faults(self, why, partial: bool, s: Summand) -> bool:
        # (a summand whose fault relation would be empty skips the translation's second half)
        return not (why is None and not partial and FAULTS_FROM_STEPS and self.b.never_faults(s))

    def _renaming(self, a: Summand, s: Summand):
        """``(slot map, name map)`` taking summand ``a`` to ``s`` (see the class), or None."""
        if a.locals != s.locals or len(a.event.args) != len(s.event.args):
            return None
        r = Renaming(self.names)
        if not (r.expr(a.guard, s.guard) and all(r.expr(x, y) for x, y in zip(a.event.args, s.event.args))
                and r.program(a.program, s.program)):
            return None
        offsets = self.b.offsets
        local = {loc.name for loc in a.locals}
        touched, renamed = [], {}
        for x, y in r.pairs.items():
            if _OWN_NAME.match(x) or _OWN_NAME.match(y):
                return None
            if x != y:
                if x not in offsets or y not in offsets or x in local or y in local \
                        or not (_TOKEN.fullmatch(x) and _TOKEN.fullmatch(y)) or x.isalpha() or y.isalpha():
                    return None  # (an alphabetic name could be a word of a text)
                vx, vy = self.variables[x], self.variables[y]
                if vx.domain != vy.domain or vx.size != vy.size:
                    return None
                renamed[x] = y
            if x in offsets and x not in local:
                touched.append((offsets[x], offsets[y], self.variables[x].length))
        touched.sort()
        if any(p[1] >= q[1] for p, q in zip(touched, touched[1:])):
            return None  # ρ would reorder the variables' numbers
        return {x + j: y + j for x, y, n in touched for j in range(n)}, renamed

    def _replay(self, t: _Template, i: int, s: Summand, slots: dict, renamed: dict):
        """Add ``t``'s translation renamed to summand ``i`` (see the class); None, nothing
        added, where some part of it falls outside what a renaming covers."""
        b = self.b
        steps = self._renamed(t.steps, t.index, i, len(b.vars), slots, renamed)
        if steps is None:
            return None
        variables, constraints = steps
        why = t.steps.result
        if why is not None:
            why = self._text(why, renamed)
        elif not t.steps.changed <= slots.keys():
            return None
        b.vars.extend(variables)
        b.constraints.extend(constraints)
        if why is None:
            changed = {slots[k] for k in t.steps.changed}
            b.frames.extend((i, k) for k in range(len(b.slots)) if k not in changed)
        if not self._needs_faults(why, t.steps.partial, s):
            return why, ()
        faults = None if t.faults is None else self._renamed(t.faults, t.index, i, len(b.vars), slots, renamed)
        if faults is None:
            return why, b.fault_relations(i, s)
        b.vars.extend(faults[0])
        b.constraints.extend(faults[1])
        return why, t.faults.result

    def _renamed(self, part: _Part, a: int, i: int, base: int, slots: dict, renamed: dict):
        """``part`` of summand ``a`` as summand ``i``'s: its variables (the first numbered
        ``base``) and constraints; None where it reads a slot ``slots`` does not map or
        names a variable unlike the translation's own names."""
        n = len(self.b.slots)
        names = dict(renamed)
        variables = []
        for k, var in enumerate(part.variables):
            name = _renamed_variable(var, a, i, part.mark + k, base + k)
            if name is None or var.summand != a or not _TOKEN.fullmatch(var.name):
                return None
            names[var.name] = name
            variables.append(CspVariable(name, var.domain, var.role, var.slot, i, var.fault))
        top = part.mark + len(part.variables)

        def number(v: int) -> int:
            if part.mark <= v < top:
                return base + v - part.mark
            slot = v if v < n else v - n
            if v >= 2 * n or slot not in slots:
                raise KeyError(v)
            return slots[slot] + (v - slot)

        try:
            constraints = [
                Constraint(tuple(number(v) for v in c.scope), c.tuples, i, self._text(c.text, names),
                           c.guard and (number(c.guard[0]),) + c.guard[1:], c.fault, c.gate, c.relation)
                for c in part.constraints]
        except KeyError:
            return None
        return variables, constraints

    @staticmethod
    def _text(text: str, names: dict) -> str:
        """``text`` with each name token renamed by ``names`` (``_TOKEN.sub``'s result).

        Why split and memoised: a recorded conjunct's texts are renamed again at every replay
        (Spin's LTL/mobile1.pml: 111,000 texts, a regex callback per token)."""
        pieces = _TEXT_PIECES.get(text)
        if pieces is None:
            pieces = _TEXT_PIECES[text] = _TOKEN_SPLIT.split(text)
        if len(pieces) == 1:
            return text
        get = names.get
        out = pieces[:]
        for k in range(1, len(out), 2):
            out[k] = get(out[k], out[k])
        return "".join(out)


def _renamed_variable(var: CspVariable, a: int, i: int, old: int, new: int) -> "str | None":
    """The name the translation of summand ``i`` gives the variable it makes in place of
    ``var`` (numbered ``old``, made by summand ``a``'s), numbered ``new``."""
    if var.role == AUX:
        prefix, number = f"s{a}.", str(old)
        if var.name.startswith(prefix) and var.name.endswith(number) and len(var.name) > len(prefix) + len(number):
            return f"s{i}.{var.name[len(prefix):-len(number)]}{new}"
    elif var.role == LOCAL:
        head = f"s{a}"
        if var.name.startswith((head + ".", head + "!.")):
            return f"s{i}{var.name[len(head):]}"
    return None


def translate(model: SequentialModel, table_limit: int = 100_000, relations: bool = True) -> Csp:
    """The CSP of ``model`` (see the module docstring for the exactness invariant); without
    ``relations``, a comparison too wide for a table is ``TableTooLarge`` (as it once was)."""
    try:
        return _translate(model, table_limit, relations)
    finally:
        _TEXT_PIECES.clear()


def _translate(model: SequentialModel, table_limit: int, relations: bool) -> Csp:
    b = _Builder(model, table_limit, relations)
    sharing = _Sharing(b, SHARE_SUMMANDS)
    dead = []
    present = []
    faulting = []
    for i, s in enumerate(model.summands):
        why, kinds = sharing.translate(i, s)
        if why is None:
            present.append(i)
        else:
            dead.append((i, why))
        if kinds:
            faulting.append((i, kinds))
    b.s = None
    b.init()
    b.constraints = _without_constant_auxiliaries(b.constraints, b.vars)
    used = {v for c in b.constraints for v in c.variables} | set(b.pre) | set(b.post)
    used |= {v for v, var in enumerate(b.vars) if var.role == LOCAL and var.summand in present
             and not var.fault}
    # Drop aux variables merged away into post variables; renumber densely.
    keep = [v for v in range(len(b.vars)) if v in used]
    renumber = {v: i for i, v in enumerate(keep)}
    variables = tuple(b.vars[v] for v in keep)
    constraints = tuple([
        Constraint(tuple([renumber[v] for v in c.scope]), c.tuples, c.summand, c.text,
                   c.guard and (renumber[c.guard[0]],) + c.guard[1:], c.fault, c.gate, c.relation)
        for c in b.constraints
    ])
    return Csp(
        variables=variables,
        constraints=constraints,
        frames=tuple(b.frames),
        summands=tuple(present),
        slots=b.slots,
        pre=tuple(renumber[v] for v in b.pre),
        post=tuple(renumber[v] for v in b.post),
        dead=tuple(dead),
        events=tuple((i, _event_base(model.summands[i].event.name)) for i in present)
        if model.observable_events else (),
        faulting=tuple(faulting),
        marks=tuple(sorted((k, v, m) for (k, v), m in literal_marks(model).items())),
    )


def _without_constant_auxiliaries(constraints: list, variables: Sequence[CspVariable]) -> list:
    """``constraints`` with every auxiliary of a one-value domain projected out of the tables'
    scopes, and a table left with no column dropped.  The same solutions (such an auxiliary
    holds its one value in every solution, so its column restricts nothing); but two checks
    that keep different single values of the same operands (``Homes[h].Dir.State`` and
    ``.Entries[1]`` of one ``Dst``) become one table, which the graph draws once, instead of
    twins the automorphism search exchanges: 140 of eadash.m's 159 generators at
    RemoteCount=2, each a list as long as the graph (6 GB at RemoteCount=3).  Gates and
    relations keep their scopes (their drawings need every operand); guards are untouched."""
    constant = {v for v, var in enumerate(variables) if var.role == AUX and len(var.domain) == 1}
    if not constant:
        return constraints
    result = []
    for c in constraints:
        if c.gate or c.relation or not c.tuples or not constant.intersection(c.scope):
            result.append(c)
            continue
        keep = [j for j, v in enumerate(c.scope) if v not in constant]
        tuples = tuple(dict.fromkeys(tuple(t[j] for j in keep) for t in c.tuples
                                     if all(t[j] == variables[v].domain[0]
                                            for j, v in enumerate(c.scope) if v in constant)))
        if not tuples:
            result.append(c)  # allows nothing: kept as it was
        elif keep:
            result.append(replace(c, scope=tuple(c.scope[j] for j in keep), tuples=tuples))
        # else: () allowed, the constraint always holds
    return result


def _in_fault(c: Constraint, r: int) -> Constraint:
    """``replace(c, fault=r)``, without ``replace``'s field-by-field introspection."""
    return Constraint(c.scope, c.tuples, c.summand, c.text, c.guard, r, c.gate, c.relation)


def _live(constraints: list, defining: dict, read: set) -> list:
    """``constraints`` without the total definitions (``defining``: position -> the aux it
    defines) of auxiliaries that nothing else reads (``read``: read from outside, such as
    merged into a post variable).  Dropping one keeps the solutions' projection on the
    pre-state, locals and post-state: it allows some value of its aux for every input."""
    live = set(read)
    for pos, c in enumerate(constraints):
        if pos not in defining:
            live.update(c.variables)
    by_var: dict = {}
    for pos, t in defining.items():
        by_var.setdefault(t, []).append(pos)
    keep: set = set()
    stack = [v for v in live if v in by_var]
    while stack:
        for pos in by_var.get(stack.pop(), ()):
            if pos in keep:
                continue
            keep.add(pos)
            for u in constraints[pos].variables:
                if u not in live:
                    live.add(u)
                    stack.append(u)
    return [c for pos, c in enumerate(constraints) if pos not in defining or pos in keep]


def _strict(e: Expr) -> set:
    """The subexpressions every evaluation of ``e`` evaluates (not behind a short circuit or
    a branch of ``?:``)."""
    out = {e}
    if isinstance(e, Index):
        out |= _strict(e.index)
    elif isinstance(e, Unary):
        out |= _strict(e.operand)
    elif isinstance(e, Binary):
        out |= _strict(e.left)
        if e.op not in ("&&", "||"):
            out |= _strict(e.right)
    elif isinstance(e, Ite):
        out |= _strict(e.cond)
    return out


def _meet(a: dict, b: dict) -> dict:
    """Both sets of facts: per variable, the values both allow."""
    if not b:
        return a
    out = dict(a)
    for x, values in b.items():
        out[x] = out[x] & values if x in out else values
    return out


def _event_base(name: str) -> str:
    """An event's name without element indices (``d[1]!`` -> ``d!``): an index is renamed
    with the processes it names, like an event argument."""
    return re.sub(r"\[[^\]]*\]", "", name)


#: The comparisons ``Constraint.relation`` draws; ``>`` and ``>=`` as ``<`` and ``<=`` of the
#: operands swapped, so the constraint does not depend on how the comparison is written.
_ORDER = frozenset({"==", "!=", "<", "<=", ">", ">="})
_SWAPPED = {">": "<", ">=": "<="}
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def _comparison_values(op: str, da: Sequence[int], db: Sequence[int]) -> list[int]:
    """The truth values ``a op b`` takes over ``a`` in ``da``, ``b`` in ``db`` (sorted
    domains), without enumerating the pairs."""
    lo_a, hi_a, lo_b, hi_b = da[0], da[-1], db[0], db[-1]
    if op in _SWAPPED:
        return _comparison_values(_SWAPPED[op], db, da)
    if op == "<":
        can = {1: lo_a < hi_b, 0: hi_a >= lo_b}
    elif op == "<=":
        can = {1: lo_a <= hi_b, 0: hi_a > lo_b}
    else:
        meet = bool(set(da) & set(db))
        differ = not (len(da) == len(db) == 1 and da == db)
        can = {1: meet, 0: differ} if op == "==" else {1: differ, 0: meet}
    return [v for v in (0, 1) if can[v]]


def relation_holds(op: str, values: Sequence[int]) -> bool:
    """Whether ``values`` satisfy a ``Constraint.relation`` ``op`` (two values: the
    comparison holds; three: the third is its truth value)."""
    truth = apply_binary(op, values[0], values[1])
    return truth != 0 if len(values) == 2 else values[2] == truth


#: What a fault point's fault is, as the user is told: a failed assertion, an index out of
#: bounds, a value outside its variable's range, an arithmetic fault (division or remainder
#: by zero, a shift out of range), or a loop past its bound.
FAULT_KINDS = ("assert", "index", "range", "arithmetic", "loop", "bound")


def _checked_kind(what: str) -> str:
    return "index" if what.startswith("index of") else "range"


def _same(a: int, b: int) -> bool:
    """The relation of a copy (``emit`` lists its tuples without enumerating the product)."""
    return a == b


_ABSENT = object()  # (a key missing from a table)


def _memo(fn, results: dict):
    """``fn`` reading ``results`` (arguments -> value, or the ``Fault`` it raised) first."""
    def lookup(*values):
        try:
            r = results[values]
        except KeyError:
            return fn(*values)
        if isinstance(r, Fault):
            raise Fault(*r.args)  # a fresh one: re-raising one instance grows its traceback
        return r
    return lookup


def _faults(fn, values) -> bool:
    try:
        fn(*values)
    except Fault:
        return True
    return False


def _slice(body: list, roots: int, required: list) -> list:
    """A fault relation's body: the first ``roots`` constraints of ``body`` (a guard's
    requirement) and the definitions in ``body`` that they and the ``required`` constraints
    depend on.  Every constraint of ``body`` after the roots defines one auxiliary, its newest
    scope variable, totally (partial functions allow any value where they fault; guarded
    copies cover every guard value), so a definition nobody reads can go."""
    keep = set(range(roots))
    defs: dict[int, list[int]] = {}
    for pos in range(roots, len(body)):
        defs.setdefault(max(body[pos].scope), []).append(pos)
    stack = list({v for c in [body[pos] for pos in keep] + required for v in c.variables})
    seen = set(stack)
    while stack:
        for pos in defs.get(stack.pop(), ()):
            if pos not in keep:
                keep.add(pos)
                for v in body[pos].variables:
                    if v not in seen:
                        seen.add(v)
                        stack.append(v)
    return [body[pos] for pos in sorted(keep)]


def _support(e: Expr) -> tuple[set, set, set]:
    """What ``e`` reads: names (subscripts included), array elements ``(a, k)`` read through
    a constant subscript, and arrays read through another."""
    names, elements, arrays = set(), set(), set()
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Name):
            names.add(x.name)
        elif isinstance(x, Index):
            if isinstance(x.index, Const):
                elements.add((x.array, x.index.value))
            else:
                arrays.add(x.array)
        stack.extend(children(x))
    return names, elements, arrays


def _operands_overlap(parts: Sequence[Expr]) -> bool:
    """Two of ``parts`` may read the same variable or element (``p == 2 || !(p == 2)``,
    ``x[i] == 1 && x[0] == 0``): a gate or an n-ary table over their separate values would
    not see how they depend on each other."""
    supports = [_support(part) for part in parts]
    for i, (n1, e1, a1) in enumerate(supports):
        for n2, e2, a2 in supports[:i]:
            if n1 & n2 or e1 & e2 or a1 & (a2 | {a for a, _ in e2}) or a2 & {a for a, _ in e1}:
                return True
    return False


def _chain_operands(e: Binary) -> list[Expr]:
    """The operands of a chain of ``e.op`` (``a op b op c`` in any bracketing), in order."""
    parts: list[Expr] = []

    def flatten(x: Expr) -> None:
        if isinstance(x, Binary) and x.op == e.op:
            flatten(x.left)
            flatten(x.right)
        else:
            parts.append(x)

    flatten(e)
    return parts


class _Check:
    """A constraint as a test on an assignment (dict variable -> value)."""

    def __init__(self, c: Constraint):
        self.scope, self.table, self.guard = c.scope, set(c.tuples), c.guard
        self.variables = c.variables
        self.gate = c.gate if c.gate and not c.tuples else ""  # a gate without a table
        self.relation = c.relation

    def __call__(self, env: dict) -> bool:
        if self.guard is not None:
            g, value, holds = self.guard
            if (env[g] == value) != holds:
                return True
        if self.relation:
            return relation_holds(self.relation, [env[u] for u in self.scope])
        if self.gate:
            *inputs, result = self.scope
            decide = all if self.gate == "&&" else any
            return env[result] == int(decide(env[u] != 0 for u in inputs))
        return tuple(env[u] for u in self.scope) in self.table


class SearchTooLarge(Exception):
    """``solutions_of_summand`` exceeded its node budget."""


def fault_states_of_summand(csp: Csp, summand: int, budget: int = 200_000) -> set:
    """All pre-states allowed by one summand's fault relation (empty when it cannot fault).
    For tests on small models only (see ``solutions_of_summand``)."""
    return {pre for s, kinds in csp.faulting if s == summand for r in range(1, len(kinds) + 1)
            for pre, _ in solutions_of_summand(csp, summand, budget, fault=r)}


def solutions_of_summand(csp: Csp, summand: int, budget: int = 200_000, fault: int = -1):
    """All (pre, post) state pairs allowed by one summand's constraints and frames (with
    ``fault >= 1``: by its fault relation's body and point ``fault``, with post = pre).

    For each pre-state, a memoised search over the private and post-state variables: the
    sub-search from position i depends only on the assigned variables that later checks
    read, so free auxiliaries do not multiply the work.  For tests on small models only:
    raises ``SearchTooLarge`` past ``budget`` search nodes.
    """
    cons = [c for c in csp.constraints if c.summand == summand
            and (c.fault == fault or (fault >= 1 and c.fault == 0))]
    frames = set(range(len(csp.slots))) if fault >= 0 else {slot for (s, slot) in csp.frames if s == summand}
    nslots = len(csp.slots)
    pre_vars = set(csp.pre)
    private = sorted({v for c in cons for v in c.variables if csp.variables[v].role in (LOCAL, AUX)})
    free_slots = [k for k in range(nslots) if k not in frames]
    order = private + [csp.post[k] for k in free_slots]
    position = {v: i for i, v in enumerate(order)}
    checks: list[list] = [[] for _ in order]
    early = []  # constraints over pre-state variables only
    for c in cons:
        last = max((position[v] for v in c.variables if v in position), default=-1)
        (checks[last] if last >= 0 else early).append(_Check(c))
    # live[i]: variables assigned before position i that a check at position >= i reads.
    live = []
    for i in range(len(order) + 1):
        needed = {v for j in range(i, len(order)) for check in checks[j] for v in check.variables}
        live.append(tuple(v for v in order[:i] if v in needed))
    found = set()
    visited = 0
    for pre in itertools.product(*(slot.domain for slot in csp.slots)):
        env = {csp.pre[k]: pre[k] for k in range(nslots)}
        if not all(check(env) for check in early):
            continue
        memo: dict = {}

        def search(i: int) -> frozenset:
            nonlocal visited
            key = (i, tuple(env[v] for v in live[i]))
            if key in memo:
                return memo[key]
            visited += 1
            if visited > budget:
                raise SearchTooLarge(f"more than {budget} search nodes")
            if i == len(order):
                result = frozenset([()])
            else:
                v = order[i]
                out = set()
                for value in csp.variables[v].domain:
                    env[v] = value
                    if all(check(env) for check in checks[i]):
                        rest = search(i + 1)
                        if v in pre_vars or csp.variables[v].role != POST:
                            out |= rest
                        else:
                            out |= {(value,) + r for r in rest}
                del env[v]
                result = frozenset(out)
            memo[key] = result
            return result

        for posts in search(0):
            post = list(pre)
            for k, value in zip(free_slots, posts):
                post[k] = value
            found.add((pre, tuple(post)))
    return found
