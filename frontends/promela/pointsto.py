"""Channel points-to: the channel numbers each ``chan``-valued variable may hold.

A ``chan`` variable (an assigned channel name, a ``chan`` parameter or local, a ``chan``
field of a record or of a message) names a channel by its number; an operation on it is
one alternative per channel it may name (``Translator.channel_value``).  Without this
analysis that is every channel of the operation's arity, and in a model that passes
channels around (``LTL/mobile1.pml``: 17 channels) every rendezvous send then meets every
receive.  ``values`` computes, on a lowered model, a set of values per ``chan``-valued
variable (an array: one set for all elements) that contains every value it takes in any
reachable state: the initial values, closed under every assignment of every summand
(run parameters, receives, rendezvous copies, sends into ``chan`` fields of buffers).

Invariant (soundness): the result over-approximates.  An expression the analysis cannot
bound (a variable of a type too wide to enumerate, a set past ``CAP`` values, a name it
does not know) is ``TOP``, "any value", and a variable holding ``TOP`` restricts nothing.

The front end lowers with a guess ``S`` (``lower.lower_with_storage``): operations expand
only over the channels ``S`` allows.  That lowering is exact on every state where each
``chan`` variable is inside ``S``.  If the values computed on it, ``R``, lie inside ``S``,
then ``R`` holds initially and every step from a state inside ``R`` (exact there) stays
inside ``R``: every reachable state is inside ``R``, so the lowering is the model.
Otherwise the guess grows to ``S | R`` and the model is lowered again.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Optional

from detect import ir
from detect.ir import Assert, Assign, Binary, Const, If, Index, Ite, Name, Unary, While
from detect.ir.semantics import Fault, apply_binary, apply_unary

#: "any value": a variable or expression the analysis does not bound
TOP = None
#: sets larger than this become ``TOP`` (the analysis stays cheap; a model with more
#: channels than this gains nothing from it anyway)
CAP = 256

#: rounds over the summands before the analysis gives up (every variable ``TOP``)
MAX_ROUNDS = 64

Values = Optional[frozenset]


def join(a: Values, b: Values) -> Values:
    if a is TOP or b is TOP:
        return TOP
    out = a | b
    return out if len(out) <= CAP else TOP


def inside(a: Values, b: Values) -> bool:
    """Every value of ``a`` is one of ``b``."""
    return b is TOP or (a is not TOP and a <= b)


def values(model: ir.SequentialModel, tracked: Iterable[str], wide: Iterable[str]) -> dict[str, Values]:
    """For each of ``tracked`` (variables of ``model``), a superset of the values it holds
    in every reachable state (``TOP``: unbounded).  ``wide``: variables whose domains in
    ``model`` are placeholders (``int``), read as ``TOP``.

    Why one function: the abstract evaluator, the program walk and the fixpoint share the
    growing sets (``out``) and the change flag; split, they would pass them everywhere."""
    variables = {v.name: v for v in model.variables}
    wanted = {n for n in tracked if n in variables}
    # the variables whose values may flow into a wanted one (channel numbers travel in
    # ``mtype`` variables too: ``LTL/mobile1.pml``); the others read as their domains
    tracked = _feeding(model.summands, wanted) & variables.keys()
    wide = frozenset(wide)
    out: dict[str, Values] = {}
    for n in tracked:
        out[n] = frozenset(x for element in variables[n].init for x in element)
    domains: dict[str, Values] = {}

    def domain(name: str) -> Values:
        if name not in domains:
            v = variables.get(name)
            domains[name] = TOP if v is None or name in wide or len(v.domain) > CAP else frozenset(v.domain)
        return domains[name]

    changed = True

    def store(name: str, value: Values) -> None:
        nonlocal changed
        new = join(out[name], value)
        if new != out[name]:
            out[name] = new
            changed = True

    def evaluate(e, temps: Mapping[str, Values], locals_: Mapping[str, Values]) -> Values:
        if isinstance(e, Const):
            return frozenset((e.value,))
        if isinstance(e, Name):
            n = e.name
            if n in temps:
                return temps[n]
            if n in locals_:
                return locals_[n]
            if n in tracked:
                return out[n]
            return domain(n)
        if isinstance(e, Index):
            return out[e.array] if e.array in tracked else domain(e.array)
        if isinstance(e, Unary):
            a = evaluate(e.operand, temps, locals_)
            if a is TOP:
                return TOP
            return _limit({apply_unary(e.op, x) for x in a})
        if isinstance(e, Binary):
            a = evaluate(e.left, temps, locals_)
            b = evaluate(e.right, temps, locals_) if a is not TOP else TOP
            if a is TOP or b is TOP or len(a) * len(b) > CAP * CAP:
                return TOP
            result = set()
            for x in a:
                for y in b:
                    try:
                        result.add(apply_binary(e.op, x, y))
                    except Fault:  # the step faults here: it assigns nothing
                        pass
            return _limit(result)
        if isinstance(e, Ite):
            c = evaluate(e.cond, temps, locals_)
            if c is not TOP and 0 not in c:
                return evaluate(e.then, temps, locals_)
            if c is not TOP and c == {0}:
                return evaluate(e.else_, temps, locals_)
            return join(evaluate(e.then, temps, locals_), evaluate(e.else_, temps, locals_))
        return TOP

    def run(stmts, temps: dict, locals_) -> dict:
        """Program temporaries after ``stmts`` (each a set), storing into ``out``."""
        for st in stmts:
            if isinstance(st, Assign):
                value = evaluate(st.value, temps, locals_)
                t = st.target
                if isinstance(t, Name):
                    if t.name in tracked:
                        store(t.name, value)
                    elif t.name not in variables:
                        temps = {**temps, t.name: value}
                elif t.array in tracked:
                    store(t.array, value)
            elif isinstance(st, If):
                a = run(st.then, temps, locals_)
                b = run(st.else_, temps, locals_)
                temps = _join_temps(a, b)
            elif isinstance(st, While):
                while True:
                    after = _join_temps(temps, run(st.body, temps, locals_))
                    if after == temps:
                        break
                    temps = after
            elif not isinstance(st, Assert):
                raise TypeError(f"unknown statement {type(st).__name__}")
        return temps

    # only summands that write a tracked variable matter
    relevant = [s for s in model.summands if _writes(s.program, tracked)]
    rounds = 0
    while changed:
        changed = False
        rounds += 1
        if rounds > MAX_ROUNDS:  # a counter climbing one value a round: give up on all
            return {n: TOP for n in wanted}
        for s in relevant:
            locals_ = {loc.name: (frozenset(loc.domain) if len(loc.domain) <= CAP else TOP) for loc in s.locals}
            run(s.program, {}, locals_)
    return {n: out[n] for n in wanted}


def _limit(values: set) -> Values:
    return frozenset(values) if len(values) <= CAP else TOP


def _join_temps(a: dict, b: dict) -> dict:
    # a temporary set on one branch only: unbounded (the lowering never reads one unset,
    # but nothing here needs to rely on that)
    return {n: join(a[n], b[n]) if n in a and n in b else TOP for n in a.keys() | b.keys()}


def _writes(stmts, tracked) -> bool:
    for st in stmts:
        if isinstance(st, Assign):
            t = st.target
            if (t.name if isinstance(t, Name) else t.array) in tracked:
                return True
        elif isinstance(st, If):
            if _writes(st.then, tracked) or _writes(st.else_, tracked):
                return True
        elif isinstance(st, While):
            if _writes(st.body, tracked):
                return True
    return False


def _feeding(summands, wanted: set) -> set:
    """``wanted`` and every name (variable or temporary) an assignment copies or computes
    into one of them, transitively."""
    sources: dict[str, set] = {}

    def note(stmts) -> None:
        for st in stmts:
            if isinstance(st, Assign):
                t = st.target
                sources.setdefault(t.name if isinstance(t, Name) else t.array, set()).update(_names(st.value))
            elif isinstance(st, If):
                note(st.then)
                note(st.else_)
            elif isinstance(st, While):
                note(st.body)

    for s in summands:
        note(s.program)
    out = set(wanted)
    todo = list(wanted)
    while todo:
        for n in sources.get(todo.pop(), ()):
            if n not in out:
                out.add(n)
                todo.append(n)
    return out


def _names(e) -> set:
    """The names ``e``'s value is computed from (an ``Ite``'s condition only selects)."""
    if isinstance(e, Name):
        return {e.name}
    if isinstance(e, Index):
        return {e.array}
    if isinstance(e, Unary):
        return _names(e.operand)
    if isinstance(e, Binary):
        return _names(e.left) | _names(e.right)
    if isinstance(e, Ite):
        return _names(e.then) | _names(e.else_)
    return set()
