"""Puget's coloured graph of a CSP (seed 002, IV-C), with the links that make it sound.

Nodes: one per CSP variable, one per literal ``var = value``, one per constraint, one per
allowed assignment (tuple) of a constraint of arity >= 2 or of a guarded constraint, one per
summand, one per summand that can fault and one per fault point of it (the fault relation's body hangs off the first, each point's requirements off the second), and
one per frame (a slot a summand leaves unchanged).  Edges: variable–literal,
tuple–literal, tuple–constraint, constraint–summand, guarded constraint–guard literal (the
constraint's colour says whether it applies where the literal holds or where it does not),
frame–summand, frame–pre-variable, and the *links* pre-variable–post-variable and
pre-literal–post-literal of every slot.

Soundness (see ``../shared/notes/method-pitfalls.md``): pre- and post-state nodes have
different colours, and a link is the only edge joining the two, so every automorphism maps
``x`` and ``x'`` alike (σ(x)' = σ(x'), with the same value map).  Constraints hang off their
summand's node, so an automorphism maps the constraints of one summand onto those of one
summand: it maps steps to steps.  A summand's fault relation (its body, and each fault
point's requirements) hangs off nodes of other colours, so it maps faulting steps to
faulting steps: a fault is never mistaken for blocking.  Colours are invariants of the structure only (role, domain
size, arity, table size), never identities, so separately declared processes of the same shape
can be exchanged.  No parallel edges are ever emitted (bliss miscounts with them).
"""
from __future__ import annotations

from dataclasses import dataclass

from detect.symmetry.constraints import AUX, LOCAL, POST, PRE, Csp

VARIABLE, LITERAL, CONSTRAINT, TUPLE, SUMMAND, FRAME, INIT, FAULT, VALUE = (
    "variable", "literal", "constraint", "tuple", "summand", "frame", "init", "fault", "value",
)


@dataclass(frozen=True)
class ColouredGraph:
    """An undirected vertex-coloured simple graph.

    ``colour[v]`` indexes ``colour_keys``, which are sorted, so the ordered partition handed
    to an engine is canonical (pynauty issue #46).  ``edges`` are pairs ``u < v``, sorted,
    without duplicates.
    """

    n: int
    edges: tuple[tuple[int, int], ...]
    colour: tuple[int, ...]
    colour_keys: tuple[str, ...]
    kind: tuple[str, ...]
    label: tuple[str, ...]
    #: ``pre_literal[k]`` maps each value of slot k to its pre-state literal node.
    pre_literal: tuple[dict, ...]

    def dimacs_lines(self):
        """The graph in bliss's DIMACS, a line at a time: ``p edge n m``, then ``n v c``
        (1-based node, colour index) and ``e u v``; the one text the export and the bliss
        tool are given."""
        yield f"p edge {self.n} {len(self.edges)}\n"
        for v, c in enumerate(self.colour):
            yield f"n {v + 1} {c}\n"
        for u, v in self.edges:
            yield f"e {u + 1} {v + 1}\n"

    def colour_classes(self) -> list[list[int]]:
        classes: list[list[int]] = [[] for _ in self.colour_keys]
        for v, c in enumerate(self.colour):
            classes[c].append(v)
        return classes


class _Builder:
    """Nodes (colour key, kind, label each) and edges of the graph being built; a node's
    number is its creation order, so the stages below run in a fixed order."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.kinds: list[str] = []
        self.labels: list[str] = []
        # Edges as integers u·2^32 + v (u < v): a set and a sort of ints are several times
        # faster than of tuples, which matters at 10^6 edges.
        self.edges: set[int] = set()
        self._texts: dict[int, dict] = {}

    def node(self, kind: str, key: str, label: str) -> int:
        self.keys.append(key)
        self.kinds.append(kind)
        self.labels.append(label)
        return len(self.keys) - 1

    def edge(self, u: int, v: int) -> None:
        self.edges.add((u << 32) | v if u < v else (v << 32) | u)

    def literal_texts(self, csp: Csp, v: int) -> dict:
        """``value -> "name=value"`` for CSP variable ``v`` (tuple nodes' labels), made once."""
        texts = self._texts.get(v)
        if texts is None:
            name = csp.variables[v].name
            texts = self._texts[v] = {x: f"{name}={x}" for x in csp.variables[v].domain}
        return texts


def _variables(g: _Builder, csp: Csp) -> tuple[list[int], list[dict]]:
    """A node per CSP variable and per literal; pre and post copies of a slot joined, literal
    to literal.  Returns the variable nodes and, per variable, value -> literal node.

    A literal of a state slot that carries marks (``Csp.marks``: a location's end, accept or
    progress labels) has them in its colour, pre and post alike, so every automorphism maps
    it onto a literal with the same marks and the properties they define are preserved."""
    marks = {(k, value): m for k, value, m in csp.marks}
    var_node, lit_node = [], []
    for n, var in enumerate(csp.variables):
        v = g.node(VARIABLE, f"1 variable {var.role} |D|={len(var.domain)}", var.name)
        var_node.append(v)
        # the literal nodes in one go, numbered in the domain's order after v
        first = v + 1
        rows = range(first, first + len(var.domain))
        key = f"2 literal {var.role}"
        if var.role in (PRE, POST) and marks:
            g.keys.extend([key + (f" marks={mark}" if mark else "") for mark in
                           (marks.get((var.slot, value)) for value in var.domain)])
        else:
            g.keys.extend([key] * len(rows))
        g.kinds.extend([LITERAL] * len(rows))
        texts = g.literal_texts(csp, n)
        g.labels.extend([texts[value] for value in var.domain])
        g.edges.update([(v << 32) | lit for lit in rows])
        lit_node.append(dict(zip(var.domain, rows)))
    for k in range(len(csp.slots)):
        pre, post = csp.pre[k], csp.post[k]
        g.edge(var_node[pre], var_node[post])
        for value, lit in lit_node[pre].items():
            g.edge(lit, lit_node[post][value])
    return var_node, lit_node


def _fault_nodes(g: _Builder, csp: Csp) -> dict:
    """(summand, 0) -> the node of its fault relation's body, (summand, r) -> fault point r."""
    # A summand's fault relation hangs off a node of its own colour, so automorphisms map
    # faulting steps to faulting steps, never to blocked ones.
    # The body hangs off the fault node, each fault point's requirements off a point node
    # joined to it: the relation is "the body and some point's requirements".
    fault_node = {}
    for s, point_kinds in csp.faulting:
        fault_node[s, 0] = g.node(FAULT, "0 summand faults", f"summand {s} faults")
        for r, kind in enumerate(point_kinds, 1):
            # The point's kind (an assertion, an index out of bounds...) is what the user is
            # told: symmetric faults are faults of one kind.
            fault_node[s, r] = g.node(FAULT, f"0 summand fault point {kind}",
                                      f"summand {s} fault point {r} ({kind})")
            g.edge(fault_node[s, r], fault_node[s, 0])
    return fault_node


def _is_gate(csp: Csp, c) -> bool:
    """``c`` is an n-ary ``&&``/``||`` (``Constraint.gate``) over operands of domain {0, 1}
    and a result that can be 0 and 1: drawn as a gate, not as its 2^n tuples."""
    *inputs, result = c.scope
    if c.gate and not c.tuples:
        return True  # a gate without a table (``Constraint.gate``): operands and result in {0, 1}
    return bool(c.gate) and c.summand >= 0 and all(csp.variables[v].domain == (0, 1) for v in inputs) \
        and {0, 1} <= set(csp.variables[result].domain)


def _gate(g: _Builder, csp: Csp, c, cn: int, lit_node: list[dict]) -> None:
    """The gate of ``_is_gate``: the constraint node joined to each operand's literal "= 1",
    and through two port nodes (of their own colours) to the result's "= 1" and "= 0".  An
    automorphism maps the node onto a gate of the same operator and arity, the operands'
    "= 1" literals onto the operands' (so their "= 0" too: two values) and the result's 0
    and 1 onto the result's 0 and 1: it preserves "result = op(operands)", and the result's
    other values, excluded by the table, stay excluded.  Linear in n, where the table's
    tuple nodes made the Peterson family's graphs large (2^11 rows at 12 users)."""
    *inputs, result = c.scope
    for v in inputs:
        g.edge(cn, lit_node[v][1])
    for value in (0, 1):
        port = g.node(TUPLE, f"4 gate {c.gate} result={value}", f"{csp.variables[result].name}={value}")
        g.edge(port, cn)
        g.edge(port, lit_node[result][value])


#: The role of each argument of a ``Constraint.relation`` (its port's colour): the two sides
#: of ``<`` and ``<=`` differ, those of ``==`` and ``!=`` do not; a third is the truth value.
_ROLES = {"<": ("left", "right"), "<=": ("left", "right"), "==": ("side", "side"), "!=": ("side", "side")}


def _relation(g: _Builder, csp: Csp, c, owner, var_node: list[int], lit_node: list[dict]) -> None:
    """A ``Constraint.relation``: a node of the operator (and guard kind) joined to its owner,
    its guard literal, and through one port per argument (coloured by the argument's role) to
    the argument's variable node.  An automorphism maps it onto a comparison of the same
    operator, left side to left side; as the arguments' values are pinned (``_pins``), it maps
    ``x = v`` to ``x' = v``, so it preserves the comparison itself (Puget's intensional
    constraints, coloured by operator, with ordered arguments)."""
    cn = g.node(CONSTRAINT, f"3 relation {c.relation} {_guard_kind(c)}arity={len(c.scope)}", c.text)
    g.edge(cn, owner)
    if c.guard is not None:
        g.edge(cn, lit_node[c.guard[0]][c.guard[1]])
    for v, role in zip(c.scope, _ROLES[c.relation] + ("result",)):
        port = g.node(TUPLE, f"4 relation {c.relation} {role}", f"{role} {csp.variables[v].name}")
        g.edge(cn, port)
        g.edge(port, var_node[v])


def _pinned(csp: Csp) -> tuple[list[int], list[int]]:
    """The variables a ``Constraint.relation`` reads, and every value of theirs, sorted."""
    pinned = sorted({v for c in csp.constraints if c.relation for v in c.scope})
    values = sorted({x for v in pinned for x in csp.variables[v].domain})
    return pinned, values


def _pins(g: _Builder, csp: Csp, lit_node: list[dict]) -> None:
    """One node per value (coloured by the value itself) joined to the literals of that value
    of each variable a relation reads: an automorphism then maps such a literal ``x = v`` to
    one of value v, which a comparison needs (a value permutation would not preserve ``<``).
    Nothing at all where there is no relation, so tables' graphs are as before."""
    pinned, values = _pinned(csp)
    value_node = {x: g.node(VALUE, f"6 value {x}", str(x)) for x in values}
    for v in pinned:
        for x, lit in lit_node[v].items():
            g.edge(lit, value_node[x])


def _constraint(g: _Builder, csp: Csp, c, owner, lit_node: list[dict]) -> None:
    """A constraint node joined to its owner (summand or fault node) and its allowed
    assignments: tuple nodes, the literals themselves for an unguarded unary one, or a
    gate (``_gate``)."""
    arity = len(c.scope)
    gate = _is_gate(csp, c)
    if gate:
        cn = g.node(CONSTRAINT, f"3 gate {c.gate} {_guard_kind(c)}arity={arity}", c.text)
        g.edge(cn, owner)
        if c.guard is not None:
            g.edge(cn, lit_node[c.guard[0]][c.guard[1]])
        _gate(g, csp, c, cn, lit_node)
        return
    if c.summand < 0:
        cn = g.node(INIT, f"3 init |T|={len(c.tuples)}", c.text)
    elif c.guard is None:
        cn = g.node(CONSTRAINT, f"3 constraint arity={arity} |T|={len(c.tuples)}", c.text)
        g.edge(cn, owner)
    else:
        guard, value, holds = c.guard
        cn = g.node(CONSTRAINT, f"3 constraint {'if' if holds else 'unless'} arity={arity} "
                                f"|T|={len(c.tuples)}", c.text)
        g.edge(cn, owner)
        # The guard literal is the only literal adjacent to a guarded constraint node:
        # its body always goes through tuple nodes, even at arity 1.
        g.edge(cn, lit_node[guard][value])
    if arity == 1 and c.guard is None:
        # A unary constraint is the set of literals it allows: no tuple nodes needed.
        for (value,) in c.tuples:
            g.edge(cn, lit_node[c.scope[0]][value])
        return
    # The tuple nodes in one go (a call per node and per edge was most of the graph's time
    # on the 48,707 constraints of Spin's leader.pml): numbered in the order of ``c.tuples``,
    # each above ``cn`` and every literal node, so its edges' codes are (lower << 32) | it.
    first = len(g.keys)
    rows = range(first, first + len(c.tuples))
    g.keys.extend([f"4 tuple of arity={arity} |T|={len(c.tuples)}"] * len(rows))
    g.kinds.extend([TUPLE] * len(rows))
    texts = [g.literal_texts(csp, v) for v in c.scope]
    g.labels.extend(["(" + ", ".join([text[x] for text, x in zip(texts, t)]) + ")" for t in c.tuples])
    g.edges.update([(cn << 32) | tn for tn in rows])
    for j, v in enumerate(c.scope):
        lits = lit_node[v]
        g.edges.update([(lits[t[j]] << 32) | tn for tn, t in zip(rows, c.tuples)])


def _decoded(edges: set[int]) -> tuple[tuple[int, int], ...]:
    """``_Builder.edges`` as sorted ``(u, v)`` pairs (u < v), decoded by numpy: per edge in
    Python it was a second of the 1.4 million edges of Spin's leader.pml (below 100,000 edges
    Python, as importing numpy costs 0.1 s)."""
    if len(edges) < 100_000:
        return tuple((code >> 32, code & 0xFFFFFFFF) for code in sorted(edges))
    import numpy as np

    codes = np.fromiter(edges, dtype=np.uint64, count=len(edges))
    codes.sort()
    return tuple(zip((codes >> np.uint64(32)).tolist(), (codes & np.uint64(0xFFFFFFFF)).tolist()))


#: Default bound on the nodes and edges of a coloured graph, in all (``--graph-limit``): about
#: 1 GB while building, and what bliss searches in tens of seconds.
GRAPH_LIMIT = 5_000_000


class GraphTooLarge(Exception):
    """The coloured graph of a CSP would exceed the limit (estimated before building it)."""

    def __init__(self, nodes: int, edges: int, limit: int):
        super().__init__(f"the coloured graph would have {nodes:,} nodes and up to {edges:,} edges, more than "
                         f"{limit:,} in all")
        self.nodes, self.edges, self.limit = nodes, edges, limit


def graph_size(csp: Csp) -> tuple[int, int]:
    """``(nodes, edges)`` of ``build_graph(csp)`` without building it: the nodes exactly, the
    edges at most (an edge the builder meets twice counts twice).  Mirrors ``build_graph``
    stage by stage, so that a parameter too large for the machine stops before any of it."""
    domains = [len(v.domain) for v in csp.variables]
    nodes = len(csp.variables) + sum(domains) + len(csp.summands) + len(csp.frames)
    edges = sum(domains) + sum(1 + domains[csp.pre[k]] for k in range(len(csp.slots))) + 2 * len(csp.frames)
    for _, points in csp.faulting:
        nodes += 1 + len(points)
        edges += len(points)
    pinned, values = _pinned(csp)
    nodes += len(values)
    edges += sum(domains[v] for v in pinned)
    for c in csp.constraints:
        nodes += 1
        edges += (c.summand >= 0) + (c.guard is not None)
        if c.relation:  # one port per argument, two edges each
            nodes += len(c.scope)
            edges += 2 * len(c.scope)
        elif _is_gate(csp, c):  # operands' "= 1" literals, two ports of two edges each
            nodes += 2
            edges += len(c.scope) - 1 + 4
        elif len(c.scope) == 1 and c.guard is None:
            edges += len(c.tuples)
        else:
            nodes += len(c.tuples)
            edges += len(c.tuples) * (1 + len(c.scope))
    return nodes, edges


def check_graph_size(csp: Csp, limit: int) -> None:
    """``GraphTooLarge`` unless ``graph_size(csp)`` has at most ``limit`` nodes and edges."""
    nodes, edges = graph_size(csp)
    if nodes + edges > limit:
        raise GraphTooLarge(nodes, edges, limit)


def _guard_kind(c) -> str:
    return "" if c.guard is None else ("if " if c.guard[2] else "unless ")


def build_graph(csp: Csp) -> ColouredGraph:
    """The coloured graph of ``csp`` (seed 002, section V): variable and literal nodes, summand
    and fault nodes, constraint nodes with their allowed tuples, frame nodes; automorphisms
    of it are symmetries of the constraints."""
    g = _Builder()
    var_node, lit_node = _variables(g, csp)
    # Where event names are observable (CSP#), a summand's colour carries its event's name, so
    # automorphisms map steps to steps with the same event name (arguments are not compared).
    event = dict(csp.events)
    summand_node = {s: g.node(SUMMAND, f"0 summand {event[s]!r}" if s in event else "0 summand",
                              f"summand {s}") for s in csp.summands}
    fault_node = _fault_nodes(g, csp)
    drawn: set = set()
    for c in csp.constraints:
        # A constraint equal to one already drawn for the same owner adds nothing (a
        # conjunction holds each conjunct once), but drawn twice, exchanging the copies with
        # their tuples is an automorphism that moves no literal: others/cache3.m's guard
        # `Net.Count <= 4` drawn for every case of one rule gave bliss 2,470 generators, each
        # an n-long permutation (10^1900 such automorphisms; 19 GB before the group).
        key = (c.summand, c.fault, c.guard, c.gate, c.relation, c.scope, frozenset(c.tuples))
        if key in drawn:
            continue
        drawn.add(key)
        owner = fault_node.get((c.summand, c.fault)) if c.fault >= 0 else summand_node.get(c.summand)
        if c.relation:
            _relation(g, csp, c, owner, var_node, lit_node)
        else:
            _constraint(g, csp, c, owner, lit_node)
    for s, k in csp.frames:
        f = g.node(FRAME, "5 frame", f"{csp.slots[k].label}' = {csp.slots[k].label}")
        g.edge(f, summand_node[s])
        g.edge(f, var_node[csp.pre[k]])
    _pins(g, csp, lit_node)
    colour_keys = tuple(sorted(set(g.keys)))
    index = {key: i for i, key in enumerate(colour_keys)}
    return ColouredGraph(
        n=len(g.keys),
        edges=_decoded(g.edges),
        colour=tuple(index[key] for key in g.keys),
        colour_keys=colour_keys,
        kind=tuple(g.kinds),
        label=tuple(g.labels),
        pre_literal=tuple(lit_node[csp.pre[k]] for k in range(len(csp.slots))),
    )
