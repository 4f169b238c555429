"""LTL -> Büchi automata: an in-project tableau translator, its lasso semantics, Spin's for tests.

Formulas are nested tuples over propositions numbered ``0..n-1`` (``detect.ir.TemporalProperty``):
``("ap", k)``, ``("true",)``, ``("false",)``, ``("!", f)``, ``("&&", f, g)``, ``("||", f, g)``,
``("->", f, g)``, ``("<->", f, g)``, ``("X", f)``, ``("U", f, g)``, ``("R", f, g)``, ``("[]", f)``,
``("<>", f)``.

Why a translator of our own: Spin's ``spin -f`` is the reference, but the Spin installed here
(6.5.2, as Debian builds it) refuses ``X`` ("expected predicate, saw 'X'"), which PAT accepts
and third-party PAT files use (``[](increment -> X(consensus))``).  ``translate`` is the
tableau construction of Gerth, Peled, Vardi and Wolper (PSTV 1995) on the negation normal
form, degeneralised with a counter; ``tests/test_csp_ltl.py`` and ``results/ltl_translator.py``
compare its language with ``holds_on_lasso`` (the definition of LTL on ultimately periodic
words) on random formulas and lassos, and with Spin's automaton where Spin translates.

An automaton reads one letter (the set of true propositions) per step: ``transitions[q]``
lists ``(positive, negative, q2)``: from ``q``, reading a letter holding every proposition of
``positive`` and none of ``negative``, go to ``q2``.  A word is accepted iff some run visits
``accepting`` states infinitely often.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from typing import Callable, Optional, Sequence

from detect.ir.tableau import Buchi, Formula, negate, nnf, translate  # noqa: F401 (re-exported)

# ------------------------------------------------------------------------ formulas

def propositions(f: Formula) -> set[int]:
    if f[0] == "ap":
        return {f[1]}
    return set().union(*(propositions(g) for g in f[1:] if isinstance(g, tuple)))


def show(f: Formula, names: Optional[Sequence[str]] = None) -> str:
    """``f`` in Spin's syntax, fully parenthesised (propositions ``p<k>`` or ``names[k]``)."""
    op = f[0]
    if op == "ap":
        return names[f[1]] if names is not None else f"p{f[1]}"
    if op in ("true", "false"):
        return op
    if op in ("!", "X", "[]", "<>"):
        return f"{op}({show(f[1], names)})"
    word = {"R": "V"}.get(op, op)
    return f"({show(f[1], names)} {word} {show(f[2], names)})"


def operators(f: Formula) -> set[str]:
    """The operators ``f`` uses."""
    if f[0] in ("ap", "true", "false"):
        return {f[0]}
    return {f[0]}.union(*(operators(g) for g in f[1:] if isinstance(g, tuple)))


def syntactically_safe(f: Formula) -> bool:
    """Whether ``f``'s negation normal form has no until (``<>`` is ``true U``): PAT's
    ``LivenessChecking.HasSyntaxSafeOperator`` on the tree its ltl2ba parser builds, where
    negations are pushed to the propositions, ``[]`` is ``false V``, ``<>`` is ``true U`` and
    ``->``/``<->`` are rewritten away (``PAT.Common/Classes/BA/LTL2BA/parse.cs``)."""
    return "U" not in operators(nnf(f))


def live_states(aut: "Buchi") -> frozenset[int]:
    """The states with a non-empty language: from each, some accepting state on a cycle is
    reachable (letters unrestricted: every transition label is a consistent cube)."""
    from detect.checking.cycles import cyclic_components

    succ = [frozenset(q2 for _, _, q2 in aut.transitions[q]) for q in range(aut.states)]
    good = set()
    for component in cyclic_components(succ):
        if any(q in aut.accepting for q in component):
            good |= set(component)
    changed = True
    while changed:
        changed = False
        for q in range(aut.states):
            if q not in good and succ[q] & good:
                good.add(q)
                changed = True
    return frozenset(good)


# ------------------------------------------------------------------------ lasso semantics

def holds_on_lasso(f: Formula, word: Sequence[frozenset[int]], loop: int) -> bool:
    """Whether ``word[0..loop-1] (word[loop..])^ω`` satisfies ``f`` (the definition, by
    fixpoints over the positions of the lasso: least for ``U``, greatest for ``R``)."""
    n = len(word)
    succ = [i + 1 if i + 1 < n else loop for i in range(n)]

    def values(g: Formula) -> list[bool]:
        op = g[0]
        if op == "ap":
            return [g[1] in word[i] for i in range(n)]
        if op == "true":
            return [True] * n
        if op == "false":
            return [False] * n
        if op == "!":
            return [not v for v in values(g[1])]
        if op in ("&&", "||", "->", "<->"):
            a, b = values(g[1]), values(g[2])
            fn = {"&&": lambda x, y: x and y, "||": lambda x, y: x or y,
                  "->": lambda x, y: (not x) or y, "<->": lambda x, y: x == y}[op]
            return [fn(x, y) for x, y in zip(a, b)]
        if op == "X":
            a = values(g[1])
            return [a[succ[i]] for i in range(n)]
        if op in ("[]", "<>"):
            return values(("R", ("false",), g[1]) if op == "[]" else ("U", ("true",), g[1]))
        a, b = values(g[1]), values(g[2])
        until = op == "U"
        cur = [not until] * n
        for _ in range(n + 1):
            if until:
                cur = [b[i] or (a[i] and cur[succ[i]]) for i in range(n)]
            else:
                cur = [b[i] and (a[i] or cur[succ[i]]) for i in range(n)]
        return cur

    return values(f)[0]


def accepts_lasso(aut: Buchi, word: Sequence[frozenset[int]], loop: int) -> bool:
    """Whether ``aut`` accepts the lasso word (an accepting cycle in its product with it:
    a strongly connected component with a cycle through an accepting state)."""
    from detect.checking.cycles import cyclic_components

    n = len(word)
    succ = [i + 1 if i + 1 < n else loop for i in range(n)]
    index = {(0, aut.initial): 0}
    nodes = [(0, aut.initial)]
    successors: list[frozenset[int]] = []
    while len(successors) < len(nodes):
        i, q = nodes[len(successors)]
        out = set()
        for q2 in aut.moves(q, word[i]):
            x = (succ[i], q2)
            k = index.get(x)
            if k is None:
                k = index[x] = len(nodes)
                nodes.append(x)
            out.add(k)
        successors.append(frozenset(out))
    return any(nodes[k][1] in aut.accepting for component in cyclic_components(successors) for k in component)


# ------------------------------------------------------------------------ Spin's, for tests

def spin_buchi(f: Formula, spin: Optional[str] = None, timeout: float = 60.0) -> Optional[Buchi]:
    """The automaton of Spin's ``spin -f`` for ``f`` (its never claim read back), or None when
    Spin is missing, refuses the formula (``X`` in Spin as Debian builds it) or takes more
    than ``timeout`` seconds."""
    spin = spin or shutil.which("spin")
    if spin is None:
        return None
    try:
        run = subprocess.run([spin, "-f", show(f)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if "never" not in run.stdout:
        return None
    return read_claim(run.stdout)


def read_claim(text: str) -> Buchi:
    """A never claim as ``spin -f`` writes it, as a ``Buchi``: ``accept`` labels accept, an
    ``atomic { g -> assert(..) }`` goes to ``accept_all``, whose ``skip`` loops on true."""
    body = text[text.index("{") + 1:text.rindex("}")]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    states: list[str] = []
    options: dict[str, list[tuple[str, str]]] = {}
    aliases: dict[str, str] = {}
    accepting_names: set[str] = set()
    current: list[str] = []  # labels naming the block being read (stacked labels: one state)
    for raw in body.splitlines():
        line = raw.strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z_]\w*)\s*:", line)
        if m:
            label = m.group(1)
            if not current:
                states.append(label)
                options[label] = []
            current.append(label)
            aliases[label] = current[0]
            if label.startswith("accept"):
                accepting_names.add(current[0])
            continue
        name = states[-1]
        atomic = re.fullmatch(r"::\s*atomic\s*\{\s*(.*?)\s*->\s*assert\(.*\)\s*\}", line)
        goto = re.fullmatch(r"::\s*(.*?)\s*->\s*goto\s+(\w+)", line)
        if atomic:
            options[name].append((atomic.group(1), "accept_all"))
        elif goto:
            options[name].append((goto.group(1), goto.group(2)))
        elif re.fullmatch(r"::\s*\(?\s*(false|0)\s*\)?", line):
            pass  # an option that never runs
        elif line == "skip":
            options[name].append(("1", name))
        elif line not in ("od;", "fi;", "do", "if", "false;"):
            raise ValueError(f"unexpected never-claim line: {line!r}")
        if line in ("od;", "fi;", "skip", "false;"):
            current = []
    if "accept_all" not in aliases and any(t == "accept_all" for opts in options.values() for _, t in opts):
        states.append("accept_all")
        aliases["accept_all"] = "accept_all"
        accepting_names.add("accept_all")
        options["accept_all"] = [("1", "accept_all")]
    index = {nm: i for i, nm in enumerate(states)}
    accepting = {index[nm] for nm in accepting_names}
    trans = []
    for nm in states:
        row = []
        for guard, target in options[nm]:
            for pos, neg in _guard_cubes(guard):
                row.append((pos, neg, index[aliases.get(target, target)]))
        trans.append(tuple(row))
    initial = index[aliases.get("T0_init", states[0])] if "T0_init" in aliases else 0
    return Buchi(len(states), initial, frozenset(accepting), tuple(trans))


def _guard_cubes(guard: str) -> list[tuple[frozenset[int], frozenset[int]]]:
    """A Spin guard over ``p<k>`` as a list of cubes (its satisfying assignments over the
    propositions it names, each a cube: exact but fine for the few a guard names)."""
    names = sorted({int(x) for x in re.findall(r"\bp(\d+)\b", guard)})
    py = (guard.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
          .replace("true", "True").replace("false", "False"))
    py = re.sub(r"\bp(\d+)\b", r"v[\1]", py)
    fn: Callable = eval("lambda v: " + py)  # noqa: S307 - text written by Spin from our formula
    out = []
    for bits in range(1 << len(names)):
        v = {p: bool(bits >> i & 1) for i, p in enumerate(names)}
        if fn(v):
            out.append((frozenset(p for p in names if v[p]), frozenset(p for p in names if not v[p])))
    return out
