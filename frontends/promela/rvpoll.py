"""Polls of rendezvous channels, as pan 6.5.2 runs them.

``c?[...]`` on a rendezvous channel holds no message, so it is false; but pan's generated
code evaluates it as ``not_RV(c) && ...``, and ``not_RV`` reports the error "error to poll
rendezvous channel" each time it is evaluated on a rendezvous channel (then the poll is
false and the search goes on).  So the error is reported where pan *tries* the statement:
at the process's location, on its turn, the conditions before the poll holding under C's
short-circuit ``&&``, ``||`` and ``?:`` (``x == 1 && c?[1]`` is tried only where ``x == 1``).
An ``else`` beside it does not evaluate it (pan tries ``else`` on its own flag) and runs.

The lowering writes such a poll as the placeholder ``RV_POLL``; ``evaluated`` is where it
is evaluated, ``unpolled`` the expression with the poll false, and ``unpolled_program`` a
program with the poll false that faults (``ERROR``) where it evaluates one.  A step whose
guard polls becomes that step with the poll false beside a *probe*: a step that faults
where pan evaluates the poll and never counts as executable (timeout, ``else``, the claim's
stutter move ignore it).

The same machinery carries every other error pan reports where it evaluates an expression
and then goes on: ``len``, ``empty``, ``full`` ... of a ``chan`` variable that names no
channel (0: never assigned) are the placeholder ``UNINIT_CHAN`` ("ref to uninitialized chan
name", pan's ``q_len``/``q_full``).  Each placeholder has its own probe and message
(``probes``)."""
from __future__ import annotations

from detect.ir import Assert, Assign, Binary, Const, Expr, If, Index, Ite, Name, Unary, While
from detect.ir import walk
from detect.ir.build import conj, disj, fold, neg

RV_POLL = "__rvpoll__"
ERROR = "error to poll rendezvous channel"
UNINIT_CHAN = "__uninit_chan__"
#: each placeholder's error, as pan prints it
MESSAGES = {RV_POLL: ERROR, UNINIT_CHAN: "ref to uninitialized chan name"}
_FALSE = Const(0)


def polls(e: Expr, name: str | None = None) -> bool:
    """``e`` reads the placeholder ``name`` (default: any of ``MESSAGES``)."""
    read = walk.names_read(e)
    return name in read if name else any(n in read for n in MESSAGES)


def unpolled(e: Expr) -> Expr:
    """``e`` with every placeholder 0 (a poll of a rendezvous channel false)."""
    if not polls(e):
        return e
    return walk.map_expr(e, {Name(n): _FALSE for n in MESSAGES}.get, fold)


def probes(e: Expr) -> list[tuple[Expr, str]]:
    """For each placeholder ``e`` reads: where evaluating ``e`` evaluates it, and pan's error."""
    return [(evaluated(e, n), m) for n, m in MESSAGES.items() if polls(e, n)]


def evaluated(e: Expr, name: str = RV_POLL) -> Expr:
    """Where evaluating ``e`` evaluates the placeholder ``name`` (a poll of a rendezvous
    channel by default; C's short circuits as pan's generated code has them); FALSE where
    it has none."""
    if not polls(e, name):
        return _FALSE
    if e == Name(name):
        return Const(1)
    if isinstance(e, Binary) and e.op in ("&&", "||"):
        left = unpolled(e.left)
        goes_on = left if e.op == "&&" else neg(left)
        return disj(evaluated(e.left, name), conj(goes_on, evaluated(e.right, name)))
    if isinstance(e, Ite):
        cond = unpolled(e.cond)
        return disj(evaluated(e.cond, name), conj(cond, evaluated(e.then, name)), conj(neg(cond), evaluated(e.else_, name)))
    if isinstance(e, Binary):
        return disj(evaluated(e.left, name), evaluated(e.right, name))
    if isinstance(e, Unary):
        return evaluated(e.operand, name)
    if isinstance(e, Index):
        return evaluated(e.index, name)
    return Const(1)  # any other expression reading it: evaluated whenever it is


def unpolled_program(stmts: tuple) -> tuple:
    """``stmts`` with every poll of a rendezvous channel false, each statement that
    evaluates one preceded by the fault pan reports there."""
    out: list = []
    for st in stmts:
        if isinstance(st, Assign):
            out += _check(st.value) + _check(st.target.index if isinstance(st.target, Index) else _FALSE)
            target = Index(st.target.array, unpolled(st.target.index)) if isinstance(st.target, Index) else st.target
            out.append(Assign(target, unpolled(st.value)))
        elif isinstance(st, If):
            out += _check(st.cond)
            out.append(If(unpolled(st.cond), unpolled_program(st.then), unpolled_program(st.else_)))
        elif isinstance(st, While):
            # the condition is evaluated before each round
            out += _check(st.cond)
            out.append(While(unpolled(st.cond), unpolled_program(st.body) + _check(st.cond)))
        elif isinstance(st, Assert):
            out += _check(st.cond)
            out.append(Assert(unpolled(st.cond), st.text))
        else:
            out.append(st)
    return tuple(out)


def _check(e: Expr) -> tuple:
    """The faults where evaluating ``e`` evaluates a placeholder (none where it cannot)."""
    return tuple(Assert(neg(where), message) for where, message in probes(e) if where != _FALSE)
