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
in that state, and the step still completes with the poll false, as pan completes it."""
from __future__ import annotations

from detect.ir import Assert, Assign, Binary, Const, Expr, If, Index, Ite, Name, Unary, While
from detect.ir import walk
from detect.ir.build import conj, disj, fold, neg

RV_POLL = "__rvpoll__"
ERROR = "error to poll rendezvous channel"
_FALSE = Const(0)


def polls(e: Expr) -> bool:
    """``e`` reads a poll of a rendezvous channel."""
    return RV_POLL in walk.names_read(e)


def unpolled(e: Expr) -> Expr:
    """``e`` with every poll of a rendezvous channel false."""
    if not polls(e):
        return e
    return walk.map_expr(e, {Name(RV_POLL): _FALSE}.get, fold)


def evaluated(e: Expr) -> Expr:
    """Where evaluating ``e`` evaluates a poll of a rendezvous channel (C's short circuits
    as pan's generated code has them); FALSE where it has none."""
    if not polls(e):
        return _FALSE
    if e == Name(RV_POLL):
        return Const(1)
    if isinstance(e, Binary) and e.op in ("&&", "||"):
        left = unpolled(e.left)
        goes_on = left if e.op == "&&" else neg(left)
        return disj(evaluated(e.left), conj(goes_on, evaluated(e.right)))
    if isinstance(e, Ite):
        cond = unpolled(e.cond)
        return disj(evaluated(e.cond), conj(cond, evaluated(e.then)), conj(neg(cond), evaluated(e.else_)))
    if isinstance(e, Binary):
        return disj(evaluated(e.left), evaluated(e.right))
    if isinstance(e, Unary):
        return evaluated(e.operand)
    if isinstance(e, Index):
        return evaluated(e.index)
    return Const(1)  # any other expression reading it: evaluated whenever it is


def unpolled_program(stmts: tuple) -> tuple:
    """``stmts`` with every poll of a rendezvous channel false (pan goes on past its error)."""
    out: list = []
    for st in stmts:
        if isinstance(st, Assign):
            target = Index(st.target.array, unpolled(st.target.index)) if isinstance(st.target, Index) else st.target
            out.append(Assign(target, unpolled(st.value)))
        elif isinstance(st, If):
            out.append(If(unpolled(st.cond), unpolled_program(st.then), unpolled_program(st.else_)))
        elif isinstance(st, While):
            out.append(While(unpolled(st.cond), unpolled_program(st.body)))
        elif isinstance(st, Assert):
            out.append(Assert(unpolled(st.cond), st.text))
        else:
            out.append(st)
    return tuple(out)


def program_polls(stmts: tuple) -> bool:
    """Some statement of ``stmts`` (at any depth) reads a poll of a rendezvous channel."""
    return any(polls(e) for st in walk.statements(stmts) for e in walk.own_expressions(st))


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
