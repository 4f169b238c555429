"""The LTL -> Büchi tableau translator (Gerth, Peled, Vardi, Wolper, PSTV 1995), pure: formulas
as nested tuples over propositions ``0..n-1`` (``detect.checking.buchi``'s docstring has the
syntax and why the translator is our own).  It sits in ``detect.ir`` so that front ends (the
Promela ``ltl`` blocks Spin's translator refuses: ``X``) and the checkers both use it.

An automaton reads one letter (the set of true propositions) per step: ``transitions[q]``
lists ``(positive, negative, q2)``: from ``q``, reading a letter holding every proposition of
``positive`` and none of ``negative``, go to ``q2``.  A word is accepted iff some run visits
``accepting`` states infinitely often.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

Formula = tuple


@dataclass(frozen=True)
class Buchi:
    """States ``0..states-1``; ``initial`` is one state (module docstring for the rest)."""

    states: int
    initial: int
    accepting: frozenset[int]
    transitions: tuple[tuple[tuple[frozenset[int], frozenset[int], int], ...], ...]

    def moves(self, q: int, letter: frozenset[int]) -> list[int]:
        """The states ``q`` goes to reading ``letter`` (the true propositions)."""
        return [q2 for pos, neg, q2 in self.transitions[q] if pos <= letter and not (neg & letter)]


def negate(f: Formula) -> Formula:
    return ("!", f)


def nnf(f: Formula, positive: bool = True) -> Formula:
    """Negation normal form over ``ap``/``!ap``, ``true``, ``false``, ``&&``, ``||``, ``X``,
    ``U``, ``R`` (``[] f`` = ``false R f``, ``<> f`` = ``true U f``)."""
    op = f[0]
    if op == "ap":
        return f if positive else ("!", f)
    if op == "true":
        return f if positive else ("false",)
    if op == "false":
        return f if positive else ("true",)
    if op == "!":
        return nnf(f[1], not positive)
    if op in ("&&", "||"):
        dual = op if positive else ("||" if op == "&&" else "&&")
        return (dual, nnf(f[1], positive), nnf(f[2], positive))
    if op == "->":
        return nnf(("||", ("!", f[1]), f[2]), positive)
    if op == "<->":
        return nnf(("||", ("&&", f[1], f[2]), ("&&", ("!", f[1]), ("!", f[2]))), positive)
    if op == "X":
        return ("X", nnf(f[1], positive))
    if op == "U":
        return ("U" if positive else "R", nnf(f[1], positive), nnf(f[2], positive))
    if op == "R":
        return ("R" if positive else "U", nnf(f[1], positive), nnf(f[2], positive))
    if op == "[]":
        return nnf(("R", ("false",), f[1]), positive)
    if op == "<>":
        return nnf(("U", ("true",), f[1]), positive)
    raise ValueError(f"not an LTL operator: {op!r}")


# ------------------------------------------------------------------------ the tableau

@lru_cache(maxsize=256)
def translate(f: Formula) -> Buchi:
    """A Büchi automaton accepting exactly the words satisfying ``f`` (GPVW tableau)."""
    g = nnf(f)
    nodes: list[dict] = []  # each: incoming (set of ids, -1 = init), old, next
    known: dict = {}  # (old, next) -> its node
    counter = [0]

    def is_literal(h):
        return h[0] in ("ap", "true", "false") or (h[0] == "!" and h[1][0] == "ap")

    def contradicts(h, old):
        if h[0] == "false":
            return True
        if h[0] == "ap":
            return ("!", h) in old
        if h[0] == "!":
            return h[1] in old
        return False

    def expand(incoming: set, new: set, old: frozenset, nxt: frozenset, ident: int) -> None:
        work = [(incoming, set(new), set(old), set(nxt))]
        while work:
            inc, new, old, nxt = work.pop()
            if not new:
                key = (frozenset(old), frozenset(nxt))
                nd = known.get(key)
                if nd is not None:
                    nd["incoming"] |= inc
                else:
                    counter[0] += 1
                    me = counter[0]
                    known[key] = {"id": me, "incoming": set(inc), "old": key[0], "next": key[1]}
                    nodes.append(known[key])
                    work.append(({me}, set(nxt), set(), set()))
                continue
            h = new.pop()
            if h in old:
                work.append((inc, new, old, nxt))
                continue
            if is_literal(h):
                if contradicts(h, old):
                    continue
                work.append((inc, new, old | {h}, nxt))
                continue
            op = h[0]
            if op == "&&":
                work.append((inc, new | ({h[1], h[2]} - old), old | {h}, nxt))
            elif op == "X":
                work.append((inc, new, old | {h}, nxt | {h[1]}))
            else:
                if op == "||":
                    one, one_next, two = {h[1]}, set(), {h[2]}
                elif op == "U":
                    one, one_next, two = {h[1]}, {h}, {h[2]}
                else:  # R
                    one, one_next, two = {h[2]}, {h}, {h[1], h[2]}
                work.append((set(inc), new | (one - old), old | {h}, nxt | one_next))
                work.append((set(inc), new | (two - old), old | {h}, set(nxt)))

    expand({-1}, {g}, frozenset(), frozenset(), 0)
    return _automaton(nodes)


def _automaton(nodes: list[dict]) -> Buchi:
    """The tableau's nodes as a degeneralised Büchi automaton with an initial state 0."""
    untils = sorted({h for nd in nodes for h in nd["old"] if h[0] == "U"}, key=repr)
    ids = {nd["id"]: i + 1 for i, nd in enumerate(nodes)}  # state 0: the initial state
    fair = [frozenset(ids[nd["id"]] for nd in nodes if u not in nd["old"] or u[2] in nd["old"]) for u in untils]

    def label(nd) -> tuple[frozenset[int], frozenset[int]]:
        pos = frozenset(h[1] for h in nd["old"] if h[0] == "ap")
        neg = frozenset(h[1][1] for h in nd["old"] if h[0] == "!" and h[1][0] == "ap")
        return pos, neg

    edges: dict[int, list] = {0: []}
    for nd in nodes:
        me = ids[nd["id"]]
        edges.setdefault(me, [])
        pos, neg = label(nd)
        for src in nd["incoming"]:
            edges.setdefault(0 if src == -1 else ids[src], []).append((pos, neg, me))
    n = len(nodes) + 1
    # the initial state visits no acceptance set: it is never on a cycle
    k = len(fair)
    if k == 0:
        trans = tuple(tuple(edges.get(q, ())) for q in range(n))
        return Buchi(n, 0, frozenset(range(1, n)), trans)
    # degeneralise: (q, i) waits for set i; leaving a state of set i moves to i + 1
    def num(q, i):
        return q * k + i

    trans_list: list[list] = [[] for _ in range(n * k)]
    for q in range(n):
        for i in range(k):
            j = (i + 1) % k if q in fair[i] else i
            for pos, neg, q2 in edges.get(q, ()):
                trans_list[num(q, i)].append((pos, neg, num(q2, j)))
    accepting = frozenset(num(q, 0) for q in fair[0])
    return Buchi(n * k, num(0, 0), accepting, tuple(tuple(t) for t in trans_list))


def simplify(aut: Buchi) -> Buchi:
    """An automaton with ``aut``'s language and usually far fewer states (the tableau's
    degeneralised automaton repeats itself): states from which no accepting cycle is
    reachable are dropped, then states with the same acceptance and the same moves into the
    same classes are merged, until stable (a bisimulation that respects acceptance).  The
    initial state keeps number 0; with no accepting cycle at all, a single state without
    moves (the empty language)."""
    succ = [{q2 for _, _, q2 in aut.transitions[q]} for q in range(aut.states)]

    def reach(q: int) -> set[int]:
        seen, todo = set(), list(succ[q])
        while todo:
            r = todo.pop()
            if r not in seen:
                seen.add(r)
                todo.extend(succ[r])
        return seen

    on_cycle = {q for q in aut.accepting if q in reach(q)}
    live = {q for q in range(aut.states) if q in on_cycle or reach(q) & on_cycle}
    if aut.initial not in live:
        return Buchi(1, 0, frozenset(), ((),))
    cls = {q: int(q in aut.accepting) for q in live}
    while True:
        sig = {q: (q in aut.accepting, frozenset((pos, neg, cls[q2]) for pos, neg, q2 in aut.transitions[q]
                                                  if q2 in live)) for q in live}
        numbering: dict = {}
        new = {q: numbering.setdefault(sig[q], len(numbering)) for q in sorted(live, key=lambda r: r != aut.initial)}
        if len(numbering) == len(set(cls.values())):
            break
        cls = new
    cls = new  # the initial state's class is 0 (numbered first)
    trans: list[set] = [set() for _ in numbering]
    for q in live:
        for pos, neg, q2 in aut.transitions[q]:
            if q2 in live:
                trans[cls[q]].add((pos, neg, cls[q2]))
    accepting = frozenset(cls[q] for q in live if q in aut.accepting)
    return Buchi(len(numbering), 0, accepting,
                 tuple(tuple(sorted(t, key=lambda m: (sorted(m[0]), sorted(m[1]), m[2]))) for t in trans))
