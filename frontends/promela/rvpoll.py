"""Polls of rendezvous channels, as pan 6.5.2 runs them.

``c?[...]`` on a rendezvous channel holds no message, so it is false; but pan's generated
code evaluates it as ``not_RV(c) && ...``, and ``not_RV`` reports the error "error to poll
rendezvous channel" each time it is evaluated on a rendezvous channel (then the poll is
false and the search goes on).  So the error is reported where pan *tries* the statement:
at the process's location, on its turn, the conditions before the poll holding under C's
short-circuit ``&&``, ``||`` and ``?:`` (``x == 1 && c?[1]`` is tried only where ``x == 1``).
An ``else`` beside it does not evaluate it (pan tries ``else`` on its own flag) and runs.

The lowering writes such a poll as the placeholder ``RV_POLL``; ``evaluated`` is where it
is evaluated, ``unpolled`` the expression with the poll false, ``unpolled_program`` a
program with every poll false, and ``reached`` where running a program evaluates one (a
condition on the state before it).  A step whose guard or program polls becomes that step
with the poll false beside a *probe*: a step that faults where pan evaluates the poll and
never counts as executable (timeout, ``else``, the claim's stutter move ignore it).  So a
poll inside a step's program (``b = c?[1]``, an ``if`` inside ``d_step``) is pan's error
in that state, and the step still completes with the poll false, as pan completes it.

The same machinery carries every other error pan reports where it evaluates an expression
and then goes on: ``len``, ``empty``, ``full`` ... of a ``chan`` variable that names no
channel (0: never assigned) are the placeholder ``UNINIT_CHAN`` ("ref to uninitialized chan
name", pan's ``q_len``/``q_full``).  Each placeholder has its own probe and message
(``probes``); inside a step's program ``UNINIT_CHAN`` faults where it is evaluated."""
from __future__ import annotations

import dataclasses
from detect.ir import Assert, Assign, Binary, Const, Expr, If, Index, Ite, Name, Unary, While
from detect.ir import walk
from detect.ir.build import conj, disj, fold, neg

RV_POLL = "__rvpoll__"
ERROR = "error to poll rendezvous channel"
UNINIT_CHAN = "__uninit_chan__"
#: a ``chan`` value naming a local channel of a removed process, which pan deleted with it
#: (``delq``): pan's ``q_full`` and ``q_zero`` stop at "bad queue" there
DELETED_CHAN = "__deleted_chan__"
#: each placeholder's error, as pan prints it
MESSAGES = {RV_POLL: ERROR, UNINIT_CHAN: "ref to uninitialized chan name",
            DELETED_CHAN: "bad queue (a channel deleted with its process)"}
_FALSE = Const(0)


def _names(names) -> frozenset:
    """``names`` as a set: None is every placeholder of ``MESSAGES``, a string that one."""
    if names is None:
        return frozenset(MESSAGES)
    return frozenset((names,)) if isinstance(names, str) else frozenset(names)


def polls(e: Expr, names=None) -> bool:
    """``e`` reads one of the placeholders ``names`` (default: any of ``MESSAGES``; the
    scheduling adds its own, standing for an evaluation of ``enabled`` where pan reports an
    error)."""
    return not _names(names).isdisjoint(walk.names_read(e))


def polls_program(stmts: tuple, names=None) -> bool:
    """Some expression of program ``stmts`` reads a placeholder of ``names``."""
    return any(polls(e, names) for e in walk.program_expressions(stmts))


def unpolled(e: Expr, names=None) -> Expr:
    """``e`` with every placeholder of ``names`` 0 (a poll of a rendezvous channel false)."""
    names = _names(names)
    if not polls(e, names):
        return e
    return walk.map_expr(e, {Name(n): _FALSE for n in names}.get, fold)


def probes(e: Expr) -> list[tuple[Expr, str]]:
    """For each placeholder ``e`` reads: where evaluating ``e`` evaluates it, and pan's error."""
    return [(evaluated(e, n), m) for n, m in MESSAGES.items() if polls(e, n)]


def evaluated(e: Expr, name: str = RV_POLL, others: frozenset = frozenset()) -> Expr:
    """Where evaluating ``e`` evaluates the placeholder ``name`` (a poll of a rendezvous
    channel by default; C's short circuits as pan's generated code has them), the
    placeholders ``others`` -- and every other one of ``MESSAGES`` -- read as 0; FALSE where
    it has none."""
    if not polls(e, name):
        return _FALSE
    if e == Name(name):
        return Const(1)
    every = others | {name} | frozenset(MESSAGES)
    if isinstance(e, Binary) and e.op in ("&&", "||"):
        left = unpolled(e.left, every)
        goes_on = left if e.op == "&&" else neg(left)
        return disj(evaluated(e.left, name, others), conj(goes_on, evaluated(e.right, name, others)))
    if isinstance(e, Ite):
        cond = unpolled(e.cond, every)
        return disj(evaluated(e.cond, name, others), conj(cond, evaluated(e.then, name, others)),
                    conj(neg(cond), evaluated(e.else_, name, others)))
    if isinstance(e, Binary):
        return disj(evaluated(e.left, name, others), evaluated(e.right, name, others))
    if isinstance(e, Unary):
        return evaluated(e.operand, name, others)
    if isinstance(e, Index):
        return evaluated(e.index, name, others)
    return Const(1)  # any other expression reading it: evaluated whenever it is


def unpolled_program(stmts: tuple, errors: tuple = ((UNINIT_CHAN, MESSAGES[UNINIT_CHAN]),)) -> tuple:
    """``stmts`` with every placeholder 0 (a poll of a rendezvous channel false: pan goes on
    past its error, and the step completes beside its probe, ``reached``), each statement
    that evaluates one of ``errors`` (the placeholders and the error of each: by default a
    ``chan`` variable naming no channel) preceded by the fault pan reports there."""
    names = frozenset(n for n, _ in errors) | frozenset(MESSAGES)

    def check(e: Expr) -> tuple:
        out: tuple = ()
        for name, text in errors:
            where = evaluated(e, name, names - {name})
            out += () if where == _FALSE else (Assert(neg(where), text),)
        return out

    def clean(e: Expr) -> Expr:
        return unpolled(e, names)

    out: list = []
    for st in stmts:
        if isinstance(st, Assign):
            out += check(st.value) + check(st.target.index if isinstance(st.target, Index) else _FALSE)
            target = Index(st.target.array, clean(st.target.index)) if isinstance(st.target, Index) else st.target
            out.append(Assign(target, clean(st.value)))
        elif isinstance(st, If):
            out += check(st.cond)
            out.append(If(clean(st.cond), unpolled_program(st.then, errors), unpolled_program(st.else_, errors)))
        elif isinstance(st, While):
            # the condition is evaluated before each round
            out += check(st.cond)
            out.append(While(clean(st.cond), unpolled_program(st.body, errors) + check(st.cond)))
        elif isinstance(st, Assert):
            out += check(st.cond)
            out.append(dataclasses.replace(st, cond=clean(st.cond)))
        else:
            out.append(st)
    return tuple(out)


def program_polls(stmts: tuple) -> bool:
    """Some statement of ``stmts`` (at any depth) reads a poll of a rendezvous channel."""
    return polls_program(stmts, RV_POLL)


def reached(stmts: tuple) -> Expr | None:
    """Where running ``stmts`` (every poll false) evaluates a poll of a rendezvous channel:
    a condition on the state before them, the assignments on the way substituted (a
    weakest precondition); FALSE where it never does.  None where a loop runs before or
    around such a poll (its rounds are not unrolled)."""
    return _back(stmts, _FALSE)


def _back(stmts: tuple, after: Expr | None) -> Expr | None:
    """Where running ``stmts`` evaluates a poll, or then ``after`` holds."""
    for st in reversed(stmts):
        if after is None:
            return None
        after = _before(st, after)
    return after


def _before(st, after: Expr) -> Expr | None:
    if isinstance(st, Assign):
        here = disj(evaluated(st.value), evaluated(st.target.index) if isinstance(st.target, Index) else _FALSE)
        return disj(here, _assigned(after, st))
    if isinstance(st, If):
        cond = unpolled(st.cond)
        then, else_ = _back(st.then, after), _back(st.else_, after)
        if then is None or else_ is None:
            return None
        return disj(evaluated(st.cond), disj(conj(cond, then), conj(neg(cond), else_)))
    if isinstance(st, While):
        if after == _FALSE and not polls(st.cond) and not program_polls(st.body):
            return _FALSE
        return None
    if isinstance(st, Assert):  # pan goes on past a failed assertion (its error is the state's anyway)
        return disj(evaluated(st.cond), after)
    return None


def _assigned(e: Expr, st: Assign) -> Expr:
    """``e`` read before ``st`` runs: its reads of the target replaced by the value stored."""
    if e == _FALSE:
        return e
    value = unpolled(st.value)
    if not isinstance(st.target, Index):
        return walk.map_expr(e, {st.target: value}.get, fold)
    array, where = st.target.array, unpolled(st.target.index)

    def element(x: Expr) -> Expr | None:
        if isinstance(x, Index) and x.array == array:
            index = walk.map_expr(x.index, element, fold)
            return Ite(Binary("==", index, where), value, Index(array, index))
        return None
    return walk.map_expr(e, element, fold)

