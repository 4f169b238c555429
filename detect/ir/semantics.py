"""Reference interpreter of the IR: the meaning every other stage must agree with.

Slow and plain on purpose: the SSA/CSP translation and the compiled explorer are tested
against it.  See ``detect.ir`` for the semantics it implements.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterator, Mapping, Optional

from detect.ir.model import initial_states as model_initial_states
from detect.ir import (
    Assert, Assign, Binary, Const, Expr, If, Index, Ite, Name, SequentialModel, Stmt,
    Summand, ToolBound, Unary, While, slot_offsets,
)


class Fault(Exception):
    """A run-time error of the model (see ``detect.ir``): reported, never a crash.  ``bound``:
    the ``ToolBound`` reached when the error is a bound of ours, not the model's."""

    def __init__(self, message: str, bound: Optional[ToolBound] = None):
        super().__init__(message)
        self.bound = bound


def assert_message(text: str, bound: Optional[ToolBound] = None) -> str:
    """What a failed ``Assert`` with ``text`` says (the one wording of every explorer): at a
    bound of ours (``bound``) the text alone, for no assertion of the model failed."""
    if bound is not None:
        return text or f"{bound} reached"
    return f"assertion violated: {text}" if text else "assertion violated"


def c_div(a: int, b: int) -> int:
    if b == 0:
        raise Fault("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_mod(a: int, b: int) -> int:
    if b == 0:
        raise Fault("modulo by zero")
    return a - b * c_div(a, b)


def apply_binary(op: str, a: int, b: int) -> int:
    """``a op b`` with C semantics; the single definition of every binary operator."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return c_div(a, b)
    if op == "%":
        return c_mod(a, b)
    if op == "==":
        return int(a == b)
    if op == "!=":
        return int(a != b)
    if op == "<":
        return int(a < b)
    if op == "<=":
        return int(a <= b)
    if op == ">":
        return int(a > b)
    if op == ">=":
        return int(a >= b)
    if op == "&&":
        return int(bool(a) and bool(b))
    if op == "||":
        return int(bool(a) or bool(b))
    if op == "min":
        return min(a, b)
    if op == "max":
        return max(a, b)
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if op == "<<":
        if b < 0 or b > 64:
            raise Fault(f"shift by {b}")
        return a << b
    if op == ">>":
        if b < 0 or b > 64:
            raise Fault(f"shift by {b}")
        return a >> b
    raise ValueError(f"unknown operator {op!r}")


def apply_unary(op: str, a: int) -> int:
    if op == "-":
        return -a
    if op == "!":
        return int(not a)
    raise ValueError(f"unknown operator {op!r}")


@dataclass
class Env:
    """Mutable evaluation environment: the state being built, locals and temporaries."""

    model: SequentialModel
    offsets: Mapping[str, int]
    state: list[int]
    scope: dict[str, int]
    #: when given, every value written to a variable is added here, by variable name (domain
    #: narrowing asks which values steps write on the way: ``detect.transform.reachable``)
    written: Optional[dict[str, set[int]]] = None

    def read(self, name: str) -> int:
        if name in self.scope:
            return self.scope[name]
        if name in self.offsets:
            return self.state[self.offsets[name]]
        raise Fault(f"{name} read before it is assigned")

    def element(self, array: str, k: int) -> int:
        var = self.model.variable(array)
        if not 0 <= k < var.length:
            raise Fault(f"index {k} out of bounds for {array}[{var.length}]")
        return self.offsets[array] + k


def evaluate(e: Expr, env: Env) -> int:
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Name):
        return env.read(e.name)
    if isinstance(e, Index):
        return env.state[env.element(e.array, evaluate(e.index, env))]
    if isinstance(e, Unary):
        return apply_unary(e.op, evaluate(e.operand, env))
    if isinstance(e, Binary):
        # && and || short-circuit, as in every source language we read.
        if e.op == "&&":
            return int(bool(evaluate(e.left, env)) and bool(evaluate(e.right, env)))
        if e.op == "||":
            return int(bool(evaluate(e.left, env)) or bool(evaluate(e.right, env)))
        return apply_binary(e.op, evaluate(e.left, env), evaluate(e.right, env))
    if isinstance(e, Ite):
        return evaluate(e.then if evaluate(e.cond, env) else e.else_, env)
    raise ValueError(f"unknown expression {e!r}")


def execute(stmts: tuple[Stmt, ...], env: Env) -> None:
    for st in stmts:
        if isinstance(st, Assign):
            value = evaluate(st.value, env)
            if isinstance(st.target, Index):
                slot = env.element(st.target.array, evaluate(st.target.index, env))
                _check_domain(env, st.target.array, value, slot)
                env.state[slot] = value
            elif st.target.name in env.offsets:
                _check_domain(env, st.target.name, value, env.offsets[st.target.name])
                env.state[env.offsets[st.target.name]] = value
            else:
                env.scope[st.target.name] = value
        elif isinstance(st, If):
            execute(st.then if evaluate(st.cond, env) else st.else_, env)
        elif isinstance(st, While):
            rounds = 0
            while evaluate(st.cond, env):
                rounds += 1
                if rounds > env.model.loop_bound:
                    raise Fault(f"loop ran more than {env.model.loop_bound} rounds", env.model.loop_tool_bound)
                execute(st.body, env)
        elif isinstance(st, Assert):
            if not evaluate(st.cond, env):
                raise Fault(assert_message(st.text, st.bound), st.bound)
        else:
            raise ValueError(f"unknown statement {st!r}")


def _check_domain(env: Env, var_name: str, value: int, slot: int) -> None:
    if env.written is not None:
        env.written.setdefault(var_name, set()).add(value)
    var = env.model.variable(var_name)
    if value not in var.domain:
        k = slot - env.offsets[var_name]
        raise Fault(f"value {value} written to {var.element_name(k)} is outside its domain")


def initial_states(model: SequentialModel) -> Iterator[tuple[int, ...]]:
    """Every initial state (``model.initial``, or the product of the per-slot sets in
    lexicographic order) that satisfies the model's assumptions."""
    if not model.assumptions:
        return model_initial_states(model)
    return (s for s in model_initial_states(model) if assumed(model, s))


def assumed(model: SequentialModel, state: tuple[int, ...]) -> bool:
    """Whether ``state`` satisfies every one of ``model.assumptions`` (a fault while
    evaluating one counts as false: the state is discarded)."""
    if not model.assumptions:
        return True
    env = Env(model, slot_offsets(model), list(state), {})
    try:
        return all(evaluate(a.condition, env) for a in model.assumptions)
    except Fault:
        return False


@dataclass(frozen=True)
class Step:
    """One transition out of a state: ``target`` is ``None`` when it faults (``fault`` says why;
    ``bound``: the ``ToolBound`` reached when that is a bound of ours, not the model's error)."""

    summand: int
    binding: tuple[int, ...]
    event: str
    target: tuple[int, ...] | None
    fault: str | None = None
    bound: ToolBound | None = None


def event_label(s: Summand, env: Env) -> str:
    parts = [s.event.name] + [str(evaluate(a, env)) for a in s.event.args]
    return ".".join(parts)


def steps(model: SequentialModel, state: tuple[int, ...],
          written: Optional[dict[str, set[int]]] = None, discard: bool = True) -> Iterator[Step]:
    """All transitions of ``state``: summands in order, locals in lexicographic order; a
    step whose target violates an assumption is left out (kept with ``discard`` false).
    ``written``: see ``Env.written``."""
    offsets = slot_offsets(model)
    for i, s in enumerate(model.summands):
        for binding in itertools.product(*(loc.domain for loc in s.locals)):
            scope = {loc.name: val for loc, val in zip(s.locals, binding)}
            env = Env(model, offsets, list(state), scope, written)
            try:
                if not evaluate(s.guard, env):
                    continue
                label = event_label(s, env)
                execute(s.program, env)
            except Fault as fault:
                yield Step(i, binding, s.event.name, None, str(fault), fault.bound)
                continue
            target = tuple(env.state)
            if discard and model.assumptions and not assumed(model, target):
                continue
            yield Step(i, binding, label, target)


def discarded_move(model: SequentialModel, state: tuple[int, ...]) -> bool:
    """Whether a step of ``state`` changes it into a state an assumption discards: Rumur's
    deadlock check counts it as a move (the state is no deadlock)."""
    return bool(model.assumptions) and any(
        st.target is not None and st.target != state and not assumed(model, st.target)
        for st in steps(model, state, discard=False))


def is_terminal(model: SequentialModel, state: tuple[int, ...]) -> bool:
    """Whether ``state`` satisfies ``model.terminal`` (a dead end that does is a terminal state,
    not a deadlock); false without a terminal condition or when evaluating it faults."""
    if model.terminal is None:
        return False
    env = Env(model, slot_offsets(model), list(state), {})
    try:
        return bool(evaluate(model.terminal, env))
    except Fault:
        return False


def reference_state_space(model: SequentialModel, max_states: int = 1_000_000):
    """Breadth-first reachable states and transitions (the oracle for tests).

    Returns ``(states, transitions, faults)`` where ``transitions`` is a set of
    ``(source, target)`` pairs and ``faults`` a set of states with a faulting step.
    """
    init = list(initial_states(model))
    seen = set(init)
    frontier = list(init)
    transitions: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    faults: set[tuple[int, ...]] = set()
    while frontier:
        nxt = []
        for state in frontier:
            for step in steps(model, state):
                if step.target is None:
                    faults.add(state)
                    continue
                transitions.add((state, step.target))
                if step.target not in seen:
                    if len(seen) >= max_states:
                        raise RuntimeError(f"more than {max_states} states")
                    seen.add(step.target)
                    nxt.append(step.target)
        frontier = nxt
    return seen, transitions, faults
