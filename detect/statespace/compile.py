"""Compile a ``SequentialModel`` to Python functions with the reference interpreter's meaning.

``compile_model`` generates Python source once per model and ``exec``s it.  The result has

* ``steps(state)``: every transition of ``state`` as ``detect.ir.semantics.Step`` objects, in
  the interpreter's order (summands in order, locals lexicographically), with the same event
  labels, successors and fault messages as ``detect.ir.semantics.steps`` -- used for traces,
  fault reports and the soundness checker;
* ``successors(state)``: the hot path of the explorer, a list with one entry per enabled
  summand instance: the successor tuple, or ``None`` for an instance that faults.  No labels
  are built here, which is what makes it fast;
* ``terminal(state)`` and ``conditions[i](state)``: the model's ``terminal`` predicate and
  each assertion's condition; a fault while evaluating one counts as *false*.

Invariant: for every state ``s`` (in or out of the reachable set),
``[st.target for st in steps(s)] == successors(s)`` and ``list(steps(s)) ==
list(semantics.steps(model, s))``.  The tests check both on random models.

Why generate source: a tree-walking interpreter spends most of its time dispatching on node
types; generated code lets CPython run each guard and assignment as straight-line bytecode.
Evaluation order (operands left to right, value before index in an assignment, index bounds
before the domain check) follows ``detect.ir.semantics`` so that even fault messages agree.
"""
from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterator, Optional, Sequence

from detect.ir import (
    Assert, Assign, Binary, Const, Expr, If, Index, Ite, ModelError, Name, SequentialModel,
    Stmt, Summand, ToolBound, Unary, While, left_spine, slot_offsets, validate,
)
from detect.ir.model import initial_states as model_initial_states
from detect.ir.semantics import Env, Fault, Step, apply_binary, assert_message, c_div, c_mod, evaluate
from detect.ir.walk import assigned_names, may_fault, names_read, program_names_read, subexpressions

State = tuple[int, ...]

_COMPARISONS = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_ARITHMETIC = {"+": "+", "-": "-", "*": "*", "&": "&", "|": "|", "^": "^"}


@dataclass(frozen=True)
class PythonCode:
    """The functions ``compile_model`` generated for one model, and their source.

    ``successors`` and the predicates are compiled at once; the per-summand ``steps_i``
    (traces, fault reports, per-step checks) only when first asked for: they are half of
    the source, and compiling it was a sixth of a large model's load (calculator.pml's
    1,552 summands, compiled four times as its domains are settled)."""

    successors: Callable[[State], list]
    terminal: Callable[[State], bool]
    conditions: tuple[Callable[[State], bool] | None, ...]
    #: the source of ``successors`` and the predicates
    main_source: str
    #: the constants the source refers to (those of ``steps_i`` added when they are compiled)
    constants: dict
    #: ``(summand_steps, their source)``, computed once on the first call
    stepping: Callable[[], tuple[tuple, str]] = field(repr=False, compare=False)
    #: whether a state satisfies the model's assumptions, and ``successors`` before the
    #: targets violating one are left out (both ``successors`` itself without assumptions)
    assumed: Callable[[State], bool] = field(default=lambda s: True, repr=False, compare=False)
    raw_successors: Optional[Callable[[State], list]] = field(default=None, repr=False, compare=False)

    @property
    def summand_steps(self) -> tuple[Callable[[State], Iterator[Step]], ...]:
        return self.stepping()[0]

    @property
    def steps(self) -> Callable[[State], Iterator[Step]]:
        summand_steps = self.summand_steps

        def steps(state: State) -> Iterator[Step]:
            for one in summand_steps:
                yield from one(state)
        return steps

    @property
    def source(self) -> str:
        """The whole generated source (``steps_i`` included)."""
        return self.main_source + self.stepping()[1]


@dataclass(frozen=True)
class CompiledModel:
    """The executable form of one (valid) model (see the module docstring for the invariants).

    The Python code is generated on first use: the native explorer needs it only for traces
    and fault reports, and generating it is ~15 ms of a small model's start-up; ``terminal``
    and ``conditions`` alone (the reduced explorer's invariance checks) generate only those."""

    model: SequentialModel
    #: the code to use instead of generating it (a test's instrumented successor function)
    supplied: Optional[PythonCode] = field(default=None, repr=False, compare=False)

    @cached_property
    def code(self) -> PythonCode:
        return self.supplied if self.supplied is not None else _python_code(self.model)

    @property
    def successors(self) -> Callable[[State], list]:
        return self.code.successors

    @property
    def steps(self) -> Callable[[State], Iterator[Step]]:
        return self.code.steps

    @property
    def summand_steps(self) -> tuple[Callable[[State], Iterator[Step]], ...]:
        return self.code.summand_steps

    @cached_property
    def _predicates(self) -> tuple[Callable[[State], bool], tuple]:
        if "code" in self.__dict__:
            return self.code.terminal, self.code.conditions
        return _predicates(self.model)

    @property
    def terminal(self) -> Callable[[State], bool]:
        return self._predicates[0]

    @property
    def conditions(self) -> tuple[Callable[[State], bool] | None, ...]:
        return self._predicates[1]

    @property
    def source(self) -> str:
        return self.code.source

    @property
    def constants(self) -> dict:
        return self.code.constants

    def initial_states(self) -> Iterator[State]:
        """Every initial state: ``model.initial``, or the product of the per-slot ``init`` sets,
        less those an assumption discards."""
        if not self.model.assumptions:
            return model_initial_states(self.model)
        assumed = self.code.assumed
        return (s for s in model_initial_states(self.model) if assumed(s))

    def discarded_move(self, state: State) -> bool:
        """Whether a step of ``state`` changes it into a state an assumption discards (Rumur
        counts it as a move: ``state`` is no deadlock).  Asked only of states found stuck."""
        if not self.model.assumptions:
            return False
        assumed = self.code.assumed
        return any(t is not None and t != state and not assumed(t) for t in self.code.raw_successors(state))


# ------------------------------------------------------------------------ run-time helpers
# Only the fault paths call these, so their cost does not matter.

def _unassigned(name: str) -> int:
    raise Fault(f"{name} read before it is assigned")


def _out_of_bounds(k: int, array: str, length: int) -> int:
    raise Fault(f"index {k} out of bounds for {array}[{length}]")


def _outside(value: int, element: str) -> None:
    raise Fault(f"value {value} written to {element} is outside its domain")


def _loop_fault(bound: int, option: Optional[ToolBound] = None) -> None:
    raise Fault(f"loop ran more than {bound} rounds", option)


def _assert_fault(text: str, bound: Optional[ToolBound] = None) -> None:
    raise Fault(assert_message(text, bound), bound)


def _shl(a: int, b: int) -> int:
    return apply_binary("<<", a, b)


def _shr(a: int, b: int) -> int:
    return apply_binary(">>", a, b)


class _Unset:
    """Marks a program temporary that has not been assigned yet in this summand instance."""

    def __repr__(self) -> str:
        return "_UNSET"


_RUNTIME = {
    "_Fault": Fault, "_Step": Step, "_cdiv": c_div, "_cmod": c_mod, "_shl": _shl, "_shr": _shr,
    "_unassigned": _unassigned, "_oob": _out_of_bounds, "_outside": _outside,
    "_loop_fault": _loop_fault, "_assert_fault": _assert_fault, "_UNSET": _Unset(),
    "_ONCE": (None,), "ToolBound": ToolBound,
}

# ------------------------------------------------------------------------ code generation


class _Scope:
    """Name resolution and fresh-name supply while compiling one summand (or condition)."""

    def __init__(self, model: SequentialModel, locals_: Sequence[str], copied_locals: set[str],
                 bindings: Sequence[tuple[int, ...]] = ((),)):
        self.model = model
        self.offsets = slot_offsets(model)
        self.variables = {v.name: v for v in model.variables}
        self.locals = set(locals_)
        self.local_order = tuple(locals_)
        self.copied_locals = copied_locals
        self.counter = 0
        self.bindings = tuple(bindings)
        #: expression -> (Python name, its value under each binding), in creation order.
        self.hoisted: dict[Expr, tuple[str, tuple[int, ...]]] = {}

    def hoist(self, e: Expr) -> str | None:
        """Source for ``e`` if it depends only on (unassigned) locals and never faults.

        Such an expression is evaluated here once per binding, and the generated loop reads
        the precomputed value (``H<n>``) or, if it is the same for all bindings, a literal.
        The ``%`` in ``pc[(i + 1) % N]`` is the typical case; it would otherwise be a
        helper call per guard evaluation.
        """
        if e in self.hoisted:
            return self.hoisted[e][0]
        names = names_read(e)
        if not names <= self.locals - self.copied_locals or _has_index(e):
            return None
        values = []
        for binding in self.bindings:
            env = Env(self.model, self.offsets, [], dict(zip(self.local_order, binding)))
            try:
                values.append(evaluate(e, env))
            except Fault:
                return None
        if len(set(values)) == 1:
            return f"({values[0]})"
        name = self.fresh("H")
        self.hoisted[e] = (name, tuple(values))
        return name

    def static_slot(self, array: str, index: Expr) -> str | None:
        """Source for the state position of ``array[index]`` when ``index`` depends only on
        locals and is in bounds for every binding, so no run-time bounds check is needed."""
        if not names_read(index) <= self.locals - self.copied_locals or _has_index(index):
            return None
        length = self.variables[array].length
        for binding in self.bindings:
            env = Env(self.model, self.offsets, [], dict(zip(self.local_order, binding)))
            try:
                if not 0 <= evaluate(index, env) < length:
                    return None
            except Fault:
                return None
        return self.hoist(Binary("+", Const(self.offsets[array]), index))

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def local_name(self, name: str) -> str:
        # A local the program assigns is copied out of the loop variable first, so that the
        # assignment cannot leak into the next binding of an inner loop.
        return f"L_{_ident(name)}" if name in self.copied_locals else f"B_{_ident(name)}"


def _ident(name: str) -> str:
    """``name`` as part of a Python identifier, injectively: ``_`` doubles and any other
    character that cannot appear in one (DVE's ``c.v0``, ``P_0.x``) becomes ``_xHH_``."""
    return "".join(
        "__" if ch == "_" else ch if ch.isascii() and ch.isalnum() else f"_x{ord(ch):02x}_"
        for ch in name
    )


def _expr(e: Expr, sc: _Scope, st: str, defined: frozenset[str], cond: bool = False) -> str:
    """Python source for ``e`` reading the state from variable ``st``.

    ``cond=True`` may return any truthy/falsy value (saves int conversions in guards);
    otherwise the result is an ``int``.  ``defined`` holds temporaries certainly assigned.
    """
    if isinstance(e, Const):
        return f"({e.value})" if e.value < 0 else str(e.value)
    if isinstance(e, Name):
        if e.name in sc.locals:
            return sc.local_name(e.name)
        var = sc.variables.get(e.name)
        if var is not None:
            return f"{st}[{sc.offsets[e.name]}]"
        if e.name in defined:
            return f"T_{_ident(e.name)}"
        t = f"T_{_ident(e.name)}"
        return f"({t} if {t} is not _UNSET else _unassigned({e.name!r}))"
    if isinstance(e, Index):
        var = sc.variables[e.array]
        off, n = sc.offsets[e.array], var.length
        if isinstance(e.index, Const):
            k = e.index.value
            if 0 <= k < n:
                return f"{st}[{off + k}]"
            return f"_oob({k}, {e.array!r}, {n})"
        slot = sc.static_slot(e.array, e.index)
        if slot is not None:
            return f"{st}[{slot}]"
        k = sc.fresh("_k")
        index = _expr(e.index, sc, st, defined)
        return f"({st}[{off} + {k}] if 0 <= ({k} := {index}) < {n} else _oob({k}, {e.array!r}, {n}))"
    if isinstance(e, (Unary, Binary, Ite)):
        hoisted = sc.hoist(e)
        if hoisted is not None:
            return hoisted
    if isinstance(e, Unary):
        if e.op == "-":
            return f"(-{_expr(e.operand, sc, st, defined)})"
        inner = _expr(e.operand, sc, st, defined, cond=True)
        return f"(not {inner})" if cond else f"(0 if {inner} else 1)"
    if isinstance(e, Binary):
        if e.op in ("&&", "||"):
            word = "and" if e.op == "&&" else "or"
            parts = [_expr(x, sc, st, defined, cond=True) for x in left_spine(e)]
            test = "(" + f" {word} ".join(parts) + ")"
            return test if cond else f"(1 if {test} else 0)"
        if e.op in _ARITHMETIC and isinstance(e.left, Binary) and e.left.op == e.op:
            # A long left-nested chain (front ends build sums and conjunctions this way) is
            # emitted flat: Python evaluates it in the same order and CPython's parser
            # refuses more than 200 nested parentheses.
            parts = [_expr(x, sc, st, defined) for x in left_spine(e)]
            return "(" + f" {_ARITHMETIC[e.op]} ".join(parts) + ")"
        left = _expr(e.left, sc, st, defined)
        right = _expr(e.right, sc, st, defined)
        if e.op in _COMPARISONS:
            test = f"({left} {_COMPARISONS[e.op]} {right})"
            return test if cond else f"(1 if {test} else 0)"
        if e.op in _ARITHMETIC:
            return f"({left} {_ARITHMETIC[e.op]} {right})"
        helper = {"/": "_cdiv", "%": "_cmod", "<<": "_shl", ">>": "_shr", "min": "min",
                  "max": "max"}[e.op]
        return f"{helper}({left}, {right})"
    if isinstance(e, Ite):
        test = _expr(e.cond, sc, st, defined, cond=True)
        then = _expr(e.then, sc, st, defined, cond)
        else_ = _expr(e.else_, sc, st, defined, cond)
        return f"({then} if {test} else {else_})"
    raise ValueError(f"unknown expression {e!r}")


#: A domain that is not an interval is tested by a set literal, unless it has more values
#: than this and at most ``_FEW_RUNS`` intervals: then interval by interval.
_SET_LITERAL_LIMIT = 256
_FEW_RUNS = 4


def _domain_test(value: str, domain: tuple[int, ...]) -> str:
    """Source of a test that ``value`` lies *outside* ``domain`` (sorted and distinct, an IR
    invariant).  Large domains of few intervals are tested by comparisons: a provisional
    range with a placeholder (-32768..32767 and one value far below) as a set literal would
    be 65,537 constants to compile at every write of the variable."""
    lo, hi = domain[0], domain[-1]
    if len(domain) == hi - lo + 1:
        return f"not ({lo} <= {value} <= {hi})"
    if len(domain) > _SET_LITERAL_LIMIT:
        runs: list[list[int]] = []
        for x in domain:
            if runs and x == runs[-1][1] + 1:
                runs[-1][1] = x
            else:
                runs.append([x, x])
        if len(runs) <= _FEW_RUNS:
            tests = (f"{value} == {a}" if a == b else f"{a} <= {value} <= {b}" for a, b in runs)
            return f"not ({' or '.join(tests)})"
    return f"{value} not in {set(domain)!r}"


def _program(stmts: Sequence[Stmt], sc: _Scope, defined: frozenset[str], indent: str,
             out: list[str]) -> frozenset[str]:
    """Append source for ``stmts`` (state in list ``t``); returns the temporaries then defined."""
    for stmt in stmts:
        if isinstance(stmt, Assign):
            value = _expr(stmt.value, sc, "t", defined)
            target = stmt.target
            if isinstance(target, Index):
                var = sc.variables[target.array]
                off, n = sc.offsets[target.array], var.length
                slot = sc.static_slot(target.array, target.index)
                if slot is not None:
                    # In bounds for every binding: only the domain check remains.
                    if isinstance(stmt.value, Const) and stmt.value.value in var.domain:
                        out.append(f"{indent}t[{slot}] = {value}")
                        continue
                    out.append(f"{indent}_v = {value}")
                    out.append(f"{indent}if {_domain_test('_v', var.domain)}: _outside(_v, "
                               f"{target.array!r} + '[' + str({slot} - {off}) + ']')")
                    out.append(f"{indent}t[{slot}] = _v")
                    continue
                out.append(f"{indent}_v = {value}")
                out.append(f"{indent}_i = {_expr(target.index, sc, 't', defined)}")
                # Constant indices and values are checked here, once, instead of per step.
                if not (isinstance(target.index, Const) and 0 <= target.index.value < n):
                    out.append(f"{indent}if not 0 <= _i < {n}: _oob(_i, {target.array!r}, {n})")
                if not (isinstance(stmt.value, Const) and stmt.value.value in var.domain):
                    out.append(f"{indent}if {_domain_test('_v', var.domain)}: "
                               f"_outside(_v, {target.array!r} + '[' + str(_i) + ']')")
                out.append(f"{indent}t[{off} + _i] = _v")
            elif target.name in sc.variables:
                var = sc.variables[target.name]
                off = sc.offsets[target.name]
                if isinstance(stmt.value, Const) and stmt.value.value in var.domain:
                    out.append(f"{indent}t[{off}] = {value}")
                else:
                    out.append(f"{indent}_v = {value}")
                    out.append(f"{indent}if {_domain_test('_v', var.domain)}: "
                               f"_outside(_v, {var.name!r})")
                    out.append(f"{indent}t[{off}] = _v")
            elif target.name in sc.locals:
                out.append(f"{indent}{sc.local_name(target.name)} = {value}")
            else:
                out.append(f"{indent}T_{_ident(target.name)} = {value}")
                defined = defined | {target.name}
        elif isinstance(stmt, If):
            out.append(f"{indent}if {_expr(stmt.cond, sc, 't', defined, cond=True)}:")
            then_defined = _program(stmt.then, sc, defined, indent + "    ", out)
            out.append(f"{indent}    pass")
            out.append(f"{indent}else:")
            else_defined = _program(stmt.else_, sc, defined, indent + "    ", out)
            out.append(f"{indent}    pass")
            defined = then_defined & else_defined
        elif isinstance(stmt, While):
            rounds = sc.fresh("_r")
            out.append(f"{indent}{rounds} = 0")
            out.append(f"{indent}while {_expr(stmt.cond, sc, 't', defined, cond=True)}:")
            out.append(f"{indent}    {rounds} += 1")
            out.append(f"{indent}    if {rounds} > {sc.model.loop_bound}: "
                       f"_loop_fault({sc.model.loop_bound}, {sc.model.loop_tool_bound!r})")
            # The body may run zero times, so what it assigns is not certainly defined after;
            # each round starts from at least the entry set, which is what we compile with.
            _program(stmt.body, sc, defined, indent + "    ", out)
        elif isinstance(stmt, Assert):
            test = _expr(stmt.cond, sc, "t", defined, cond=True)
            out.append(f"{indent}if not {test}: _assert_fault({stmt.text!r}, {stmt.bound!r})")
        else:
            raise ValueError(f"unknown statement {stmt!r}")
    return defined


def _writes_state(stmts: Sequence[Stmt], globals_: set[str]) -> bool:
    for stmt in stmts:
        if isinstance(stmt, Assign):
            if isinstance(stmt.target, Index) or stmt.target.name in globals_:
                return True
        elif isinstance(stmt, If):
            if _writes_state(stmt.then, globals_) or _writes_state(stmt.else_, globals_):
                return True
        elif isinstance(stmt, While) and _writes_state(stmt.body, globals_):
            return True
    return False


def _stmt_names(stmts: Sequence[Stmt]) -> set[str]:
    """Every name a program reads or assigns."""
    return program_names_read(stmts) | assigned_names(stmts)


def _summand_body(index: int, s: Summand, model: SequentialModel, labels: bool,
                  indent: str, constants: dict[str, object]) -> list[str]:
    """Source of the loop over one summand's instances.

    With ``labels`` the body yields ``Step`` objects (generator form); otherwise it appends
    successors (``None`` for a fault) to the list ``out``.  The loop runs over one row per
    binding of the locals (lexicographic, as in the interpreter); each row also carries the
    hoisted values (``_Scope.hoist``), stored in ``constants`` under ``ROWS_<kind><index>``.
    """
    globals_ = {v.name for v in model.variables}
    local_names = [loc.name for loc in s.locals]
    assigned = assigned_names(s.program)
    copied = {n for n in local_names if n in assigned}
    bindings = list(itertools.product(*(loc.domain for loc in s.locals)))
    sc = _Scope(model, local_names, copied, bindings)
    temps = sorted(
        (_stmt_names(s.program) | names_read(s.guard)
         | set().union(*(names_read(a) for a in s.event.args)))
        - globals_ - set(local_names)
    )
    ind = indent + "    "
    body = ind + "    "
    lines: list[str] = [f"{ind}try:"]
    for name in temps:
        lines.append(f"{body}T_{_ident(name)} = _UNSET")
    for name in sorted(copied):
        lines.append(f"{body}L_{_ident(name)} = B_{_ident(name)}")
    if not (isinstance(s.guard, Const) and s.guard.value):
        lines.append(f"{body}if not {_expr(s.guard, sc, 's', frozenset(), cond=True)}: continue")
    if labels:
        label = repr(s.event.name)
        for arg in s.event.args:
            label += f" + '.' + str({_expr(arg, sc, 's', frozenset())})"
        lines.append(f"{body}_label = {label}")
    else:
        # No label is built here, but an argument that can fault still makes the step fault.
        for arg in s.event.args:
            if _may_fault(arg, sc):
                lines.append(f"{body}{_expr(arg, sc, 's', frozenset())}")
    writes = _writes_state(s.program, globals_)
    if writes:
        lines.append(f"{body}t = list(s)")
        _program(s.program, sc, frozenset(), body, lines)
    elif s.program:
        # A program that writes no global still runs: it may fault (asserts, bad reads).
        lines.append(f"{body}t = s")
        _program(s.program, sc, frozenset(), body, lines)
    lines.append(f"{body}pass")  # the body may be otherwise empty
    binding = "(" + "".join(f"B_{_ident(n)}, " for n in local_names) + ")"
    lines.append(f"{ind}except _Fault as _f:")
    if labels:
        lines.append(f"{body}yield _Step({index}, {binding}, {s.event.name!r}, None, str(_f), _f.bound)")
    else:
        lines.append(f"{body}out.append(None)")
    lines.append(f"{body}continue")
    successor = "tuple(t)" if writes else "s"
    if labels:
        lines.append(f"{ind}yield _Step({index}, {binding}, _label, {successor})")
    else:
        lines.append(f"{ind}out.append({successor})")

    hoisted = list(sc.hoisted.values())
    columns = [f"B_{_ident(n)}" for n in local_names] + [name for name, _ in hoisted]
    if not columns:
        header = f"{indent}for _ in _ONCE:"
    else:
        rows_name = f"ROWS_{'L' if labels else 'S'}{index}"
        constants[rows_name] = tuple(
            tuple(binding) + tuple(values[k] for _, values in hoisted)
            for k, binding in enumerate(bindings)
        )
        header = f"{indent}for {', '.join(columns)}, in {rows_name}:"
    return [header] + lines


def _has_index(e: Expr) -> bool:
    return any(isinstance(x, Index) for x in subexpressions(e))


def _may_fault(e: Expr, sc: _Scope) -> bool:
    """Whether evaluating ``e`` can raise a fault (a cheap, conservative syntactic test):
    ``may_fault``, or a name that is neither a local nor a variable (an unset temporary)."""
    # Only the arrays ``e`` indexes: this runs per event argument of every summand.
    sizes = {x.array: sc.variables[x.array].length for x in subexpressions(e) if isinstance(x, Index)}
    return may_fault(e, sizes) or any(
        isinstance(x, Name) and x.name not in sc.locals and x.name not in sc.variables
        for x in subexpressions(e))


def _condition_source(name: str, e: Expr, model: SequentialModel) -> list[str]:
    """A function ``name(s) -> bool``; a fault while evaluating counts as false."""
    sc = _Scope(model, (), set())
    temps = sorted(names_read(e) - {v.name for v in model.variables})
    lines = [f"def {name}(s):", "    try:"]
    lines += [f"        T_{_ident(t)} = _UNSET" for t in temps]
    lines.append(f"        return bool({_expr(e, sc, 's', frozenset(), cond=True)})")
    lines += ["    except _Fault:", "        return False"]
    return lines


def model_source(model: SequentialModel) -> tuple[str, dict[str, object]]:
    """The generated Python source and the constants (binding rows) it refers to."""
    constants: dict[str, object] = {}
    return _successors_source(model, constants) + _steps_source(model, constants), constants


def _successors_source(model: SequentialModel, constants: dict) -> str:
    """``successors`` and the predicates (``_predicate_lines``)."""
    lines = ["def successors(s):", "    out = []"]
    for i, s in enumerate(model.summands):
        lines += _summand_body(i, s, model, False, "    ", constants)
    lines.append("    return out")
    lines.append("")
    lines += _predicate_lines(model)
    return "\n".join(lines) + "\n"


def _steps_source(model: SequentialModel, constants: dict) -> str:
    """One generator ``steps_i`` per summand."""
    lines = []
    for i, s in enumerate(model.summands):
        lines.append("")
        lines.append(f"def steps_{i}(s):")
        lines += _summand_body(i, s, model, True, "    ", constants)
        lines.append("    return")
        lines.append("    yield")
    return "\n".join(lines) + "\n"


def _predicate_lines(model: SequentialModel) -> list[str]:
    """The functions ``terminal`` and ``condition_i`` (one per assertion with a condition)."""
    lines = _condition_source("terminal", model.terminal or Const(0), model)
    for i, a in enumerate(model.assertions):
        if a.condition is not None:
            lines.append("")
            lines += _condition_source(f"condition_{i}", a.condition, model)
    return lines


class NestedTooDeeply(ModelError):
    """A valid model whose expressions nest beyond what CPython compiles: a limit of this
    tool that the user can work around (a smaller parameter), not a front-end bug."""


def compile_model(model: SequentialModel) -> CompiledModel:
    """Validate ``model`` (``ModelError`` if it breaks an IR invariant) and compile it; the
    Python code is generated when first used (``NestedTooDeeply`` then)."""
    validate(model)
    return CompiledModel(model)


def _python_code(model: SequentialModel) -> PythonCode:
    constants: dict[str, object] = {}
    source = _nesting_checked(lambda: _successors_source(model, constants))
    namespace = _executed(model, source, constants)

    @functools.lru_cache(maxsize=None)
    def stepping() -> tuple[tuple, str]:
        # into the same constants (their names differ: ROWS_L<i>, not ROWS_S<i>), so that
        # ``source`` runs with ``constants`` once it has been read
        text = _nesting_checked(lambda: _steps_source(model, constants))
        space = _executed(model, text, constants)
        return tuple(space[f"steps_{i}"] for i in range(len(model.summands))), text

    successors = raw = namespace["successors"]
    assumed = lambda s: True  # noqa: E731
    if model.assumptions:
        # Rumur's global assumptions: a target violating one is discarded (a fault while
        # evaluating one discards it too).  Only models with assumptions pay for the filter.
        conjunction = model.assumptions[0].condition
        for a in model.assumptions[1:]:
            conjunction = Binary("&&", conjunction, a.condition)
        assumed = _executed(model, "\n".join(_condition_source("assumed", conjunction, model)) + "\n",
                            {})["assumed"]

        def successors(state: State) -> list:
            return [t for t in raw(state) if t is None or assumed(t)]

        steps_only = stepping

        @functools.lru_cache(maxsize=None)
        def stepping() -> tuple[tuple, str]:
            one, text = steps_only()
            return tuple(_filtered_steps(f, assumed) for f in one), text

    return PythonCode(
        successors=successors,
        terminal=namespace["terminal"],
        conditions=_conditions(model, namespace),
        main_source=source,
        constants=constants,
        stepping=stepping,
        assumed=assumed,
        raw_successors=raw,
    )


def _filtered_steps(summand_steps, assumed):
    """``summand_steps`` less the steps whose target an assumption discards."""
    def steps(state: State) -> Iterator[Step]:
        return (st for st in summand_steps(state) if st.target is None or assumed(st.target))
    return steps


def _predicates(model: SequentialModel) -> tuple[Callable[[State], bool], tuple]:
    """``terminal`` and ``conditions`` alone: what the reduced explorer's invariance checks
    evaluate in Python while the native explorer runs the transitions."""
    lines = _nesting_checked(lambda: _predicate_lines(model))
    namespace = _executed(model, "\n".join(lines) + "\n", {})
    return namespace["terminal"], _conditions(model, namespace)


def _conditions(model: SequentialModel, namespace: dict) -> tuple:
    return tuple(namespace[f"condition_{i}"] if a.condition is not None else None
                 for i, a in enumerate(model.assertions))


def _nesting_checked(generate):
    try:
        return generate()
    except (RecursionError, MemoryError) as e:
        raise _too_deep(e) from None


def _executed(model: SequentialModel, source: str, constants: dict) -> dict:
    """The namespace of ``source`` run with the run-time helpers and ``constants``."""
    try:
        code = compile(source, f"<compiled {model.name or 'model'}>", "exec")
    except (RecursionError, SyntaxError, MemoryError) as e:
        raise _too_deep(e) from None
    namespace = dict(_RUNTIME)
    namespace.update(constants)
    exec(code, namespace)
    return namespace


def _too_deep(e: BaseException) -> NestedTooDeeply:
    # Only nesting beyond CPython's limits gets here (e.g. 200 nested right operands).
    why = str(e) or {RecursionError: "nesting beyond Python's recursion limit",
                     MemoryError: "out of memory while compiling"}.get(type(e), type(e).__name__)
    return NestedTooDeeply(f"model too deeply nested to compile ({type(e).__name__}: {why})")
