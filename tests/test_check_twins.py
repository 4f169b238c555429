"""Range checks that say the same thing are one variable of the CSP (issue 27, eadash.m).

CMurphi's eadash.m at RemoteCount=3 gave bliss 179 generators on a graph of 782,536 nodes;
145 of them moved no state literal: they exchanged two checks of one subscript against
arrays of different lengths (``Procs[h]`` and ``Homes[h]``, h a Home: both keep the value
0) or two checks that keep one value each, with their tables.  True automorphisms of the
coloured graph (identity on states: sound, and no larger group), but each was held as a
list as long as the graph (6 GB).  Now the first are one variable (``checked`` is keyed by
the values it keeps) and a one-value auxiliary is projected out of every table."""
from __future__ import annotations

from array import array

from detect.symmetry.automorphisms import automorphisms, compact
from detect.symmetry.pipeline import detect
from detect.symmetry.graph import ColouredGraph
from frontends.murphi import parse_text

#: ``a[v]`` (a over the union, 3 cells) and ``b[v]`` (b over H, 1 cell) with v an H that may be
#: undefined: both checks keep v = 0.
TWINS = """
Type H: Scalarset(1); R: Scalarset(2); P: Union{H, R};
Var a: Array[P] of 0..1; b: Array[H] of 0..1; v: H; w: 0..1;
Startstate Begin For i: P Do a[i] := 0; End; For i: H Do b[i] := 0; End; Undefine v; w := 0; End;
Rule "set" IsUndefined(v) ==> For i: H Do v := i; End; End;
Rule "r" w = 0 & !IsUndefined(v) ==> a[v] := 1 - a[v]; b[v] := 1 - b[v]; w := 1; End;
Rule "s" w = 1 ==> w := 0; End;
"""


def test_checks_of_one_subscript_that_keep_the_same_values_are_not_exchanged():
    """Was 3 generators, one of them exchanging the two checks (and moving no literal)."""
    from detect.transform.narrowing import narrow

    detection = detect(narrow(parse_text(TWINS, "twins.m")))
    literals = {node for lits in detection.graph.pre_literal for node in lits.values()}
    generators = detection.automorphisms.generators
    assert not [g for g in generators if all(g[v] == v for v in literals)]
    assert detection.group.order == 2  # R's two values


def test_generators_are_held_as_int_arrays():
    """4 bytes a node: the lists of Python ints the engine answers with are freed as they go."""
    graph = ColouredGraph(4, ((0, 1), (2, 3)), (0, 0, 0, 0), ("x",), ("x",) * 4, ("",) * 4, ())
    for engine in ("nauty", "bliss"):
        aut = automorphisms(graph, engine)
        assert aut.order == 8 and all(isinstance(g, array) and g.typecode == "i" for g in aut.generators)
    lists = [[1, 0, 2], [0, 2, 1]]
    assert [list(g) for g in compact(lists)] == [[1, 0, 2], [0, 2, 1]] and lists == []
