"""Issue 25 item 8: symmetries the completeness check showed missing, now found.

Each case compares the detected group with every symmetry of the explored transition system
(``detect.checking.completeness``) and verifies every generator on it."""
from __future__ import annotations

import warnings

import pytest

from detect.checking.completeness import completeness
from detect.checking.verify import verify
from detect.symmetry.pipeline import detect


def _measure(tmp_path, name: str, text: str, defines=None):
    """(found order, true order, headline order) on the model ``text``, with every generator
    verified on the explored states."""
    from detect.transform.load import load_model

    path = tmp_path / name
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        detection = detect(load_model(path, defines or {}))
    generators = [g.permutation for g in detection.group.generators]
    assert verify(detection.model, generators).ok
    result = completeness(detection.model, generators)
    assert result.explored_all
    return result.found_order, result.true_order, detection.group.order


# TopSPIN's TestModels/SymmExtractorTests/peterson/peterson3.p (TopSPIN expects order 6).
PETERSON3 = """
byte flag[4] = 0;
pid turn[TURNS] = 0;
byte inCR = 0
proctype user () {
  byte k; bool ok;
  do ::
     k = 1;
     do
     :: k < 3 ->
        flag[_pid] = k; turn[k] = _pid;
        again:
        atomic{
          ok = ((_pid==1)||(_pid!=1 && flag[1]<k))&&((_pid==2)||(_pid!=2 && flag[2]<k))&&((_pid==3)||(_pid!=3 && flag[3]<k));
          if :: ok || turn[k] != _pid :: else -> goto again fi;
        };
        k++
     :: else -> break
     od;
     atomic { inCR++;  assert(inCR == 1) };  inCR--;
     flag[_pid] = 0;
  od;
}
init { atomic{ run user(); run user(); run user() } }
"""


def test_peterson3_length_of_a_pid_valued_array_does_not_matter(tmp_path):
    """``pid turn[3]``: was 1 of 6, ``turn[6]`` 6 of 6.  With 3 elements ``turn[k]`` can
    fault (k = 3), and each user's atomic-sequence test ``_atomic == 2 && ...turn[k2]... ||
    _atomic == 3 && ...turn[k3]...`` guarded the read of ``turn[k3]`` by "the operand for
    user 2 did not decide", an order the swap of users 2 and 3 does not keep."""
    assert _measure(tmp_path, "peterson3.p", PETERSON3.replace("TURNS", "3")) == (6, 6, 6)


def test_exclusive_operands_of_a_junction_stay_exact():
    """``x == 0 && a[i] == 1 || x == 1 && a[i - 1] == 1 || x == 2 && a[i - 2] == 1``: each
    read can fault, and the context of the later ones drops "the earlier operands did not
    decide" (``x == 2`` rules them out).  Steps and faults still equal the interpreter's."""
    from detect.ir import (
        TRUE, Assign, Binary, Const, Event, Index, Local, Name, SequentialModel, Summand, Variable,
    )
    from detect.symmetry.constraints import fault_states_of_summand, solutions_of_summand, translate
    from tests.test_csp import interpreter_relation

    x, i = Name("x"), Name("i")

    def operand(k):
        index = i if k == 0 else Binary("-", i, Const(k))
        return Binary("&&", Binary("==", x, Const(k)), Binary("==", Index("a", index), Const(1)))

    guard = Binary("||", Binary("||", operand(0), operand(1)), operand(2))
    model = SequentialModel("exclusive", (
        Variable("x", (0, 1, 2), ((0, 1, 2),)), Variable("a", (0, 1), ((0, 1), (0, 1)), size=2),
    ), (
        Summand((Local("i", (0, 1, 2, 3)),), guard, Event("e"), (Assign(x, Const(0)),)),
        Summand((Local("i", (0, 1, 2, 3)),), TRUE, Event("f"),
                (Assign(x, Binary("+", guard, Binary("==", Index("a", i), Const(0)))),)),
    ))
    csp = translate(model)
    for s in range(2):
        steps, faults = interpreter_relation(model, s)
        assert faults  # the reads do fault somewhere
        assert set(solutions_of_summand(csp, s)) == steps
        assert fault_states_of_summand(csp, s) == faults


# ------------------------------------------------------------ junctions past the table size

EXCLUSIVE_M = """
Const N: 13;
Type p: Scalarset(N);
Var x: Array [p] Of boolean;
Function Others(i: p): boolean;
Begin
  For k: p Do If k != i & x[k] Then Return true; End; End;
  Return false;
End;
Ruleset i: p Do
  Rule "take" !x[i] & !Others(i) ==> Begin x[i] := true; End;
  Rule "drop" x[i] ==> Begin x[i] := false; End;
End;
Startstate Begin For i: p Do x[i] := false; End; End;
"""


def test_disjunction_of_thirteen_operands_keeps_every_process(tmp_path):
    """German's ``OthersShare`` shape: a disjunction over 13 processes was a chain of binary
    constraints past 12 operands (2 of 13!); now one gate without a table."""
    import math

    assert _measure(tmp_path, "exclusive.m", EXCLUSIVE_M) == (math.factorial(13),) * 3


def test_german_small_finds_the_full_symmetric_group_past_twelve_caches():
    """``models/murphi/german_small.m``: N! up to N = 12, then 2 (N = 13, 14, 16, 20, 40)."""
    import math
    import pathlib

    from detect.transform.load import load_model

    path = pathlib.Path(__file__).resolve().parents[1] / "models" / "murphi" / "german_small.m"
    for n in (13, 20):
        assert detect(load_model(path, {"N": n})).group.order == math.factorial(n)


@pytest.mark.parametrize("op", ["&&", "||"])
def test_gate_without_a_table_is_exact(op):
    """A junction of 14 operands, the last of which may fault: steps and faults equal the
    interpreter's, and the junction is one constraint without tuples."""
    from detect.ir import (
        TRUE, Assign, Binary, Const, Event, Index, Local, Name, SequentialModel, Summand, Unary, Variable,
    )
    from detect.symmetry.constraints import fault_states_of_summand, solutions_of_summand, translate
    from tests.test_csp import interpreter_relation

    x, y = Name("x"), Name("y")
    parts = [Binary("&&", Binary("==", x, Const(k)), Binary("==", y, Const(k % 3))) for k in range(13)]
    parts.append(Binary("==", Index("a", Binary("-", x, Const(11))), Const(1)))
    if op == "&&":
        parts = [Unary("!", p) for p in parts]
    cond = parts[0]
    for p in parts[1:]:
        cond = Binary(op, cond, p)
    model = SequentialModel("gate", (
        Variable("x", tuple(range(14)), (tuple(range(14)),)), Variable("y", (0, 1, 2), ((0, 1, 2),)),
        Variable("a", (0, 1), ((0, 1), (0, 1)), size=2),
    ), (
        Summand((), cond, Event("e"), (Assign(y, Const(0)),)),
        Summand((Local("i", (0, 1)),), TRUE, Event("f"), (Assign(y, Binary("+", cond, Name("i"))),)),
    ))
    csp = translate(model)
    assert any(c.gate == op and not c.tuples and len(c.scope) == 15 for c in csp.constraints)
    for s in range(2):
        steps, faults = interpreter_relation(model, s)
        assert faults
        assert set(solutions_of_summand(csp, s)) == steps
        assert fault_states_of_summand(csp, s) == faults


# ------------------------------------------------------------ the headline on held values

# TopSPIN's TestModels/SymmReducerTests/misc/pid_indexed_arrays/transpositions/reordered_larger_struct.p
REORDERED_LARGER_STRUCT = """
typedef S { int x; byte y; };
proctype P() {
  S myArray[4];
  do ::
    myArray[_pid].y = 100;
    if
    :: myArray[_pid].y == 100 ->
       d_step { myArray[1].y = 200; myArray[2].y = 200; myArray[3].y = 200; }
    :: skip
    fi;
    myArray[_pid].y++;
    assert(myArray[_pid].y >= 100);
  od
}
init { atomic { run P(); run P(); run P() } }
"""


def test_headline_leaves_out_swaps_of_elements_that_always_agree(tmp_path):
    """48 printed, 6 on the reachable states: each process's two elements the ``d_step``
    sets together (and nobody else writes) always agree, so their swap is inert."""
    assert _measure(tmp_path, "reordered_larger_struct.p", REORDERED_LARGER_STRUCT) == (6, 6, 6)


def test_agreeing_slots_is_an_invariant_of_random_models():
    """Every class ``agreeing_slots`` returns agrees in every reachable state."""
    from hypothesis import HealthCheck, given, settings

    from detect.ir import state_slots
    from detect.ir.semantics import reference_state_space
    from detect.transform.agreement import agreeing_slots
    from tests.ir_strategies import models

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(models())
    def check(model):
        states, _, _ = reference_state_space(model)
        for slots in agreeing_slots(model):
            assert all(len({s[k] for k in slots}) == 1 for s in states), slots

    check()
    # And it finds something: x and y start at 0 and are always written together.
    from detect.ir import TRUE, Assign, Binary, Const, Event, Name, SequentialModel, Summand, Variable

    x, y = Name("x"), Name("y")
    model = SequentialModel("agree", (Variable("x", (0, 1, 2), ((0,),)), Variable("y", (0, 1, 2), ((0,),))), (
        Summand((), Binary("<", x, Const(2)), Event("e"), (Assign(x, Binary("+", x, Const(1))), Assign(y, Binary("+", y, Const(1))))),
        Summand((), TRUE, Event("f"), (Assign(y, Const(0)), Assign(x, Const(0)))),
    ))
    assert agreeing_slots(model) == ((0, 1),)
    assert len(state_slots(model)) == 2


# ------------------------------------------------------------ an index however it is written

RING_M = """
Const N : SIZE;
Type ind : 0..N-1;
Var x : Array[ind] of boolean;
Function Right(i : ind) : ind;
Begin BODY End;
Startstate Begin For i : ind Do x[i] := false; End; End;
Ruleset p : ind Do
  Rule "step" !x[p] ==> Begin x[p] := true; x[Right(p)] := false; End;
End;
"""


@pytest.mark.parametrize("size, body", [
    (3, "If i = N-1 Then return 0; Else return i+1; End;"),
    (3, "return i = N-1 ? 0 : i+1;"),
    (3, "return (i+1) % N;"),
    (8, "If i = N-1 Then return 0; Else return i+1; End;"),
])
def test_ring_neighbour_written_with_if_finds_the_rotations(tmp_path, size, body):
    """Was 1 of 3 with ``If`` or ``?:`` and 3 of 3 with ``%``: the neighbour's index is one
    table, the graph of the function, however it is written."""
    text = RING_M.replace("SIZE", str(size)).replace("BODY", body)
    assert _measure(tmp_path, "ring.m", text) == (size,) * 3


RING_CSP = """
#define N 3;
var x[N];
P(i) = [x[i] == 0] step.i{ x[i] = 1; BODY } -> P(i);
System = ||| i:{0..N-1}@P(i);
"""


@pytest.mark.parametrize("body", [
    "if (i == N-1) { x[0] = 0 } else { x[i+1] = 0 }",
    "x[(i+1)%N] = 0",
])
def test_csp_ring_neighbour_written_with_if_else_finds_the_rotations(tmp_path, body):
    """Statement-level ``if``/``else``: was 1 of 3.  Each post value is one table over the
    pre-state and locals it is a function of (the φ, the branch condition and the index
    check of ``x[i+1]``, never out of range where it is taken, compose away)."""
    assert _measure(tmp_path, "ring.csp", RING_CSP.replace("BODY", body)) == (3, 3, 3)


PHILOSOPHERS_M = """
Const N : 4;
Type ind : 0..N-1;
     st : Enum { think, hungry, haveleft, eat };
Var s : Array[ind] of st;
    fork : Array[ind] of boolean;
Function Left(i : ind) : ind;
Begin If i = 0 Then return N-1; Else return i-1; End; End;
Startstate Begin For i : ind Do s[i] := think; fork[i] := false; End; End;
Ruleset p : ind Do
  Rule "hungry" s[p] = think ==> Begin s[p] := hungry; End;
  Rule "left" s[p] = hungry & !fork[Left(p)] ==> Begin fork[Left(p)] := true; s[p] := haveleft; End;
  Rule "right" s[p] = haveleft & !fork[p] ==> Begin fork[p] := true; s[p] := eat; End;
  Rule "release" s[p] = eat ==> Begin fork[p] := false; fork[Left(p)] := false; s[p] := think; End;
End;
"""


def test_dining_philosophers_with_a_left_function_finds_the_rotations(tmp_path):
    """In the style of CMurphi's ``dp4.m`` (its neighbour a ``Function`` with ``If``): was
    1 of 4, the left fork read, written and tested through ``Left(p)``."""
    assert _measure(tmp_path, "philosophers.m", PHILOSOPHERS_M) == (4, 4, 4)
