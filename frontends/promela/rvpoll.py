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
stutter move ignore it)."""
from __future__ import annotations

from detect.ir import Assert, Assign, Binary, Const, Expr, If, Index, Ite, Name, Unary, While
from detect.ir import walk
from detect.ir.build import conj, disj, fold, neg

RV_POLL = "__rvpoll__"
ERROR = "error to poll rendezvous channel"
_FALSE = Const(0)


def polls(e: Expr, names: frozenset = frozenset((RV_POLL,))) -> bool:
    """``e`` reads a poll of a rendezvous channel (or another of the placeholders ``names``
    standing for an evaluation where pan reports an error, as ``enabled`` has them)."""
    return not names.isdisjoint(walk.names_read(e))


def polls_program(stmts: tuple, names: frozenset = frozenset((RV_POLL,))) -> bool:
    """Some expression of program ``stmts`` reads a placeholder of ``names``."""
    return any(polls(e, names) for e in walk.program_expressions(stmts))


def unpolled(e: Expr, names: frozenset = frozenset((RV_POLL,))) -> Expr:
    """``e`` with every poll of a rendezvous channel (placeholder of ``names``) false."""
    if not polls(e, names):
        return e
    return walk.map_expr(e, {Name(n): _FALSE for n in names}.get, fold)


def evaluated(e: Expr, name: str = RV_POLL, others: frozenset = frozenset()) -> Expr:
    """Where evaluating ``e`` evaluates a poll of a rendezvous channel (placeholder
    ``name``; the placeholders ``others`` read as false) -- C's short circuits as pan's
    generated code has them; FALSE where it has none."""
    if not polls(e, frozenset((name,))):
        return _FALSE
    if e == Name(name):
        return Const(1)
    every = others | {name}
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


def unpolled_program(stmts: tuple, errors: tuple = ((RV_POLL, ERROR),)) -> tuple:
    """``stmts`` with every poll of a rendezvous channel false, each statement that
    evaluates one preceded by the fault pan reports there (``errors``: the placeholders
    and the error of each)."""
    names = frozenset(n for n, _ in errors)

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
            out.append(Assert(clean(st.cond), st.text))
        else:
            out.append(st)
    return tuple(out)
