"""Murphi front end: CMurphi corpus counts, scalarset symmetry = Murphi -sym1, semantics corner
cases (undefined values, start states, invariants), located errors, fuzzing."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detect import ir
from detect.ir import semantics
from detect.cli import main
from detect.errors import InputError
from detect.statespace.explore import explore_state_space
from detect.symmetry.pipeline import detect
from detect.checking.reduce import make_reducer
from detect.checking.verify import verify
from frontends import load as load_any
from frontends.murphi import load
from frontends.murphi import parse_text
from tests.frontend_checks import assert_located_error, model_or_input_error

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "murphi"


def _corpus(name: str) -> Path:
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"Murphi corpus not available at {CORPUS} (../shared is absent)")
    return path


def _model(text: str, defines=None) -> ir.SequentialModel:
    return parse_text(text, "t.m", defines)


def _reachable(model: ir.SequentialModel) -> set[tuple[int, ...]]:
    states, _, _ = semantics.reference_state_space(model)
    return states


def _reduced_states(model: ir.SequentialModel) -> tuple[int, int]:
    """(group order, states explored with ``--reduce exact``)."""
    detection = detect(model)
    reducer = make_reducer(model, detection.group, "exact")
    return detection.group.order, explore_state_space(model, canonicalise=reducer.canonicalise).states


# ---------------------------------------------------------------------------- corpus

def test_two_process_peterson_has_26_states():
    result = explore_state_space(load(_corpus("2_peterson.m")))
    assert (result.states, result.faults, len(result.deadlocks)) == (26, 0, 0)
    assert [a.verdict for a in result.assertions if a.assertion.kind != "deadlockfree"] == ["holds"]


def test_n_peterson_three_processes_has_882_states():
    result = explore_state_space(load(_corpus("n_peterson.m"), {"N": 3}))
    assert (result.states, result.faults, len(result.deadlocks)) == (882, 0, 0)
    assert [a.verdict for a in result.assertions if a.assertion.kind != "deadlockfree"] == ["holds"]


@pytest.mark.slow
def test_n_peterson_five_processes_has_628868_states():
    result = explore_state_space(load(_corpus("n_peterson.m"), {"N": 5}))
    assert (result.states, result.faults) == (628_868, 0)


def test_define_overrides_the_files_const():
    path = _corpus("n_peterson.m")
    assert load(path).variable("P").size == 7  # the file says N: 7
    model = load(path, {"N": 3})
    assert model.variable("P").size == 3 and dict(model.parameters) == {"N": 3}
    assert model.variable("turn").size == 4  # Array [priority] with priority: 0..N


def test_suffix_dispatch_reads_murphi():
    assert load_any(str(_corpus("2_peterson.m"))).name == "2_peterson"


def test_reference_interpreter_agrees_with_the_explorer():
    model = load(_corpus("n_peterson.m"), {"N": 3})
    assert len(_reachable(model)) == explore_state_space(model).states == 882


# ---------------------------------------------------------------------------- symmetry

@pytest.mark.parametrize("n, order, reduced", [(3, 6, 172), (5, 120, 6_770)])
def test_scalarset_symmetry_gives_murphi_sym1_counts(n, order, reduced):
    model = load(_corpus("n_peterson.m"), {"N": n})
    detection = detect(model)
    assert detection.group.order == order
    assert all(g.kind == "process" for g in detection.group.generators)
    if n == 3:
        assert verify(model, [g.permutation for g in detection.group.generators]).ok
    reducer = make_reducer(model, detection.group, "exact")
    assert explore_state_space(model, canonicalise=reducer.canonicalise).states == reduced


@pytest.mark.slow
def test_scalarset_symmetry_six_processes():
    assert _reduced_states(load(_corpus("n_peterson.m"), {"N": 6})) == (720, 35_159)


def test_two_process_peterson_swaps_pids_and_turn():
    model = load(_corpus("2_peterson.m"))
    detection = detect(model)
    assert detection.group.order == 2
    (g,) = detection.group.generators
    assert verify(model, [g.permutation]).ok
    turn = [k for k, s in enumerate(ir.state_slots(model)) if s.label == "turn"][0]
    assert g.permutation.values[turn] == {0: 1, 1: 0}
    assert _reduced_states(model) == (2, 13)


def test_forall_in_a_guard_keeps_the_symmetry():
    # The copies of a Forall are separate guard conjuncts, so all N! permutations show.
    text = """
    Const N: 4;
    Type pid: Scalarset(N);
    Var flag: Array [pid] Of boolean;
    Ruleset i: pid Do
      Rule "enter" !flag[i] & Forall j: pid Do j = i | !flag[j] End ==> Begin flag[i] := true; End;
      Rule "leave" flag[i] ==> Begin flag[i] := false; End;
    End;
    Startstate Begin For i: pid Do flag[i] := false; End; End;
    Invariant "one" Forall i: pid Do Forall j: pid Do (flag[i] & flag[j]) -> i = j End End;
    """
    model = _model(text)
    assert explore_state_space(model).states == 5
    order, reduced = _reduced_states(model)
    assert (order, reduced) == (24, 2)


def test_quantifier_variable_used_as_a_constant_falls_back_to_expansion():
    # k bounds an inner range, so it cannot become a witness local: the guard is expanded.
    model = _model("Var x: 0..3; Startstate Begin x := 0; End;\n"
                   "Rule Exists k: 0..2 Do Forall m := 0 To k Do x >= m End & x = k End ==> Begin x := x + 1; End;")
    result = explore_state_space(model)
    assert (result.states, result.faults, len(result.deadlocks)) == (4, 0, 1)


# ---------------------------------------------------------------------------- semantics

def test_undefined_is_an_extra_value_and_reading_it_is_a_fault():
    text = """
    Type t: 1..3;
    Var x: t; y: t;
    Startstate Begin x := 1; End;
    Rule "read" x = 1 ==> Begin x := y; End;
    """
    model = _model(text)
    assert model.variable("y").domain == (0, 1, 2, 3)  # undefined is lo - 1
    # ``x := y`` copies the undefined value (CMurphi reads nothing there); the next guard
    # reads it (CMurphi: "The undefined value at x is referenced").
    assert model.variable("x").domain == (0, 1, 2, 3)
    result = explore_state_space(model)
    assert result.faults == 1 and "undefined" in result.first_faults[0].message


def test_undefine_and_clear_make_distinct_states():
    text = """
    Var x: boolean; n: 2..4;
    Startstate Begin Clear x; n := 3; End;
    Rule "u" !IsUndefined(x) ==> Begin Undefine x; End;
    Rule "d" IsUndefined(x) ==> Begin x := true; End;
    Rule "c" Begin Clear n; End;
    """
    model = _model(text)
    assert model.variable("x").domain == (-1, 0, 1)
    states = _reachable(model)
    assert {s[0] for s in states} == {-1, 0, 1} and {s[1] for s in states} == {2, 3}
    assert explore_state_space(model).faults == 0


def test_guard_reading_undefined_faults_instead_of_disabling():
    model = _model("Var x: boolean; Startstate Begin End; Rule x ==> Begin x := false; End;")
    result = explore_state_space(model)
    assert result.states == 1 and result.faults == 1
    assert "guard" in result.first_faults[0].message


def test_short_circuit_protects_undefined_reads():
    text = """
    Var x: boolean; y: boolean;
    Startstate Begin x := false; End;
    Rule "a" x & y ==> Begin x := true; End;
    Rule "b" !x | y ==> Begin y := true; End;
    Rule "c" x -> y ==> Begin y := false; End;
    """
    result = explore_state_space(_model(text))
    assert result.faults == 0 and result.states == 3


def test_out_of_range_assignment_is_a_fault():
    model = _model("Var n: 0..2; Startstate Begin n := 0; End; Rule Begin n := n + 1; End;")
    result = explore_state_space(model)
    assert result.states == 3 and result.faults == 1


def test_out_of_range_write_cannot_masquerade_as_undefined():
    # n's domain holds the undefined value 0 (lo - 1): writing 0 must still be an error.
    model = _model("Var n: 1..2; Startstate Begin Undefine n; End; Rule Begin n := 0; End;")
    assert explore_state_space(model).faults == 1


def test_start_states_inside_a_ruleset_and_several_startstates():
    text = """
    Var a: 0..3; b: boolean;
    Ruleset v: 0..1 Do Startstate Begin a := v; b := false; End; End;
    Startstate "two" Begin a := 2; b := false; End;
    """
    model = _model(text)
    assert model.variable("a").init == ((0, 1, 2),)
    assert explore_state_space(model).initial == 3


def test_start_states_that_are_not_a_product_are_listed():
    """Every binding's start state is initial (CMurphi); two that are not all combinations
    of their per-slot values are listed (``SequentialModel.initial``), not refused."""
    text = "Var a: boolean; b: boolean;\nRuleset v: boolean Do Startstate Begin a := v; b := v; End; End;"
    model = _model(text)
    assert model.initial == ((0, 0), (1, 1))
    assert explore_state_space(model).initial == 2


def test_failing_start_state_is_an_input_error():
    with pytest.raises(InputError, match="start state fails"):
        _model("Var a: boolean; b: boolean; Startstate Begin a := !b; End;")
    # A bare copy reads nothing: both start undefined (as in CMurphi).
    assert _model("Var a: boolean; b: boolean; Startstate Begin a := b; End; Rule Begin End;").variable("a").init == ((-1,),)


def test_records_arrays_of_arrays_enums_loops_and_expressions():
    text = """
    Const K: 2;
    Type c: Enum { red, green };
         cell: Record on: boolean; col: c; End;
         grid: Array [0..K-1] Of Array [1..3] Of cell;
    Var g: grid; s: 0..10; r: cell;
    Startstate Begin
      For i: 0..K-1 Do For j := 1 To 3 Do g[i][j].on := false; g[i][j].col := red; End; End;
      s := 0; Clear r;
    End;
    Rule "step" s < 6 ==>
      Var t: 0..10;
    Begin
      t := s % 3 + 1;
      If s < 3 Then g[0][t].on := true; Elsif s = 3 Then g[1][1].col := green; Else g[1][t].on := !g[1][t].on; End;
      While t > 1 Do t := t - 1; End;
      s := s + (Exists j: 1..3 Do g[0][j].on End ? 1 : 2);
      r := g[1][1];
    End;
    Invariant "cols" r.col = green -> g[1][1].col = green;
    """
    model = _model(text)
    assert model.variable("g.on").size == 6 and model.variable("g.col").domain == (0, 1)
    result = explore_state_space(model)
    assert result.faults == 0 and [a.verdict for a in result.assertions if a.assertion.kind != "deadlockfree"] == ["holds"]
    assert result.states == len(_reachable(model)) == 7


def test_error_and_assert_statements_are_faults():
    model = _model('Var n: 0..3; Startstate Begin n := 0; End;\n'
                   'Rule n < 2 ==> Begin n := n + 1; End;\nRule n = 2 ==> Begin Error "two"; End;\n'
                   'Rule Begin Assert n != 1 "not one"; End;')
    result = explore_state_space(model)
    messages = {f.message for f in result.first_faults}
    assert any("two" in m for m in messages) and any("not one" in m for m in messages)


def test_violated_invariant_fails_and_the_cli_exits_1(tmp_path):
    text = 'Var n: 0..3; Startstate Begin n := 0; End; Rule n < 3 ==> Begin n := n + 1; End; Invariant "small" n < 2;'
    result = explore_state_space(_model(text))
    assert [a.verdict for a in result.assertions if a.assertion.kind != "deadlockfree"] == ["fails"]
    path = tmp_path / "bad.m"
    path.write_text(text)
    cli = CliRunner().invoke(main, ["explore", str(path)], catch_exceptions=False)
    assert cli.exit_code == 1, cli.output
    assert "small" in cli.output


def test_ruleset_parameters_become_summand_locals():
    model = load(_corpus("2_peterson.m"))
    assert all([loc.domain for loc in s.locals][:1] == [(0, 1)] for s in model.summands)
    assert any(len(s.locals) == 2 for s in model.summands)  # the nested Ruleset j


def test_keywords_are_case_insensitive_and_end_variants_accepted():
    model = _model("VAR x: BOOLEAN; STARTSTATE BEGIN x := FALSE; ENDSTARTSTATE; "
                   "RULE \"r\" !x ==> BEGIN IF !x THEN x := TRUE; ENDIF; ENDRULE;")
    assert explore_state_space(model).states == 2


# ---------------------------------------------------------------------------- routines, Alias, Switch

def _lts(model: ir.SequentialModel):
    """(states, transitions as (source, event, target), invariant verdicts, group order)."""
    states, _, _ = semantics.reference_state_space(model)
    edges = {(s, st.event, st.target or st.fault) for s in states for st in semantics.steps(model, s)}
    return len(states), edges, [a.verdict for a in explore_state_space(model).assertions if a.assertion.kind != "deadlockfree"], detect(model).group.order


ROUTINE_HEADER = """
Const N: 3;
Type pid: Scalarset(N); st_t: Enum { idle, wait, crit };
Var st: Array [pid] Of st_t; owner: pid; count: 0..N;
"""
ROUTINE_TAIL = """
Startstate Begin For i: pid Do st[i] := idle; End; Undefine owner; count := 0; End;
Invariant "one" Forall i: pid Do Forall j: pid Do (st[i] = crit & st[j] = crit) -> i = j End End;
"""

WITH_ROUTINES = ROUTINE_HEADER + """
Procedure Move(Var s: st_t; target: st_t);
Begin s := target; End;
Procedure Enter(i: pid);
Var k: 0..N;
Begin
  k := count;
  If k = N Then Return; End;
  Move(st[i], crit);
  owner := i;
  count := k + 1;
End;
Function Free(i: pid): boolean;
Begin
  For j: pid Do
    If j != i & st[j] = crit Then Return false; End;
  End;
  Return true;
End;
Ruleset i: pid Do
  Rule "ask" st[i] = idle ==> Begin Move(st[i], wait); End;
  Rule "enter" st[i] = wait & Free(i) ==> Begin Enter(i); End;
  Rule "leave" st[i] = crit ==> Begin Move(st[i], idle); Undefine owner; count := count - 1; End;
End;
""" + ROUTINE_TAIL

WITHOUT_ROUTINES = ROUTINE_HEADER + """
Ruleset i: pid Do
  Rule "ask" st[i] = idle ==> Begin st[i] := wait; End;
  Rule "enter" st[i] = wait & Forall j: pid Do j = i | st[j] != crit End ==>
  Begin
    If count != N Then st[i] := crit; owner := i; count := count + 1; End;
  End;
  Rule "leave" st[i] = crit ==> Begin st[i] := idle; Undefine owner; count := count - 1; End;
End;
""" + ROUTINE_TAIL


def test_procedures_and_functions_equal_their_hand_inlined_model():
    with_, without = _lts(_model(WITH_ROUTINES)), _lts(_model(WITHOUT_ROUTINES))
    assert with_ == without
    assert with_[0] > 10 and with_[2] == ["holds"] and with_[3] >= 6


SWITCH_HEADER = "Type v_t: Enum { a, b, c, d }; Var x: v_t; y: 0..3;\nStartstate Begin x := a; y := 0; End;\n"


def test_switch_equals_if_elsif():
    with_ = SWITCH_HEADER + """Rule "r" true ==> Begin
      Switch x Case a, b: x := c; y := 1; Case c: x := d; Else x := a; y := (y + 1) % 4; End; End;"""
    without = SWITCH_HEADER + """Rule "r" true ==> Begin
      If x = a | x = b Then x := c; y := 1; Elsif x = c Then x := d; Else x := a; y := (y + 1) % 4; End; End;"""
    assert _lts(_model(with_)) == _lts(_model(without))


def test_alias_equals_the_substituted_designator():
    head = "Type pid: Scalarset(3); Var a: Array [pid] Of 0..2; p: pid;\n" \
           "Startstate Begin For i: pid Do a[i] := 0; p := i; End; End;\n"
    with_ = head + """Ruleset i: pid Do Rule "r" a[i] < 2 ==> Begin
      Alias e: a[p]; v: a[i] + 1 Do p := i; e := v; End; End; End;"""
    without = head + """Ruleset i: pid Do Rule "r" a[i] < 2 ==> Begin
      If a[i] + 1 <= 2 Then a[p] := a[i] + 1; p := i; Else a[p] := a[i] + 1; p := i; End; End; End;"""
    # The alias binds a[p] before p changes: the designator's subscript is evaluated once.
    assert _lts(_model(with_)) == _lts(_model(without))


def test_var_parameter_modifies_the_array_element_passed():
    model = _model("""Var a: Array [0..2] Of 0..3; j: 0..2;
      Procedure Bump(Var e: 0..3; by: 0..3); Begin e := e + by; j := 2; e := e + 1; End;
      Startstate Begin For k: 0..2 Do a[k] := 0; End; j := 1; Bump(a[j], 2); End;
      Rule Begin End;""")
    (state,) = list(semantics.initial_states(model))
    slots = {s.label: v for s, v in zip(ir.state_slots(model), state)}
    # a[1] got 2 and then 1 more, although j changed to 2 in between (the reference was bound).
    assert (slots["a[0]"], slots["a[1]"], slots["a[2]"], slots["j"]) == (0, 3, 0, 2)


def test_function_in_a_guard_and_return_in_the_middle():
    model = _model("""Var x: 0..4; done: boolean;
      Function Small(v: 0..4): boolean; Begin If v < 2 Then Return true; End; Return false; End;
      Procedure Step(); Begin If x = 3 Then done := true; Return; End; x := x + 1; End;
      Startstate Begin x := 0; done := false; End;
      Rule "small" Small(x) ==> Begin x := x + 1; End;
      Rule "big" !Small(x) & !done ==> Begin Step(); End;""")
    states = _reachable(model)
    assert len(states) == 5  # x = 0..3 with done false, then x = 3 with done true: Step stops at 3
    result = explore_state_space(model)
    assert (result.faults, len(result.deadlocks)) == (0, 1)


def test_local_variable_read_before_assignment_is_a_fault():
    model = _model("""Var x: 0..2;
      Procedure P(); Var t: 0..2; Begin If x = 1 Then t := 2; End; x := t; End;
      Startstate Begin x := 0; End;
      Rule "p" x < 2 ==> Begin P(); End;
      Rule "inc" x = 0 ==> Begin x := 1; End;""")
    result = explore_state_space(model)
    assert result.faults >= 1
    function = _model("""Var x: 0..2;
      Function F(): 0..2; Var t: 0..2; Begin If x = 1 Then t := 2; End; Return t; End;
      Startstate Begin x := 1; End;
      Rule "f" F() = 2 ==> Begin x := 0; End;""")
    assert explore_state_space(function).faults == 1  # at x = 0, F reads t undefined


def test_procedure_locals_are_undefined_again_at_each_call_in_a_loop():
    model = _model("""Var x: 0..3;
      Procedure P(); Var t: 0..3; Begin If x = 0 Then t := 1; End; x := t + 1; End;
      Startstate Begin x := 0; End;
      Rule "loop" x = 0 ==> Begin While x < 3 Do P(); End; End;""")
    assert explore_state_space(model).faults == 1  # the second call reads t undefined


def test_recursion_is_refused_naming_the_cycle():
    text = ("Var x: boolean;\nProcedure A(); Begin B(); End;\nProcedure B(); Begin A(); End;\n"
            "Startstate Begin A(); End;")
    with pytest.raises(InputError) as info:
        parse_text(text, "rec.m")
    assert (info.value.line, info.value.column) == (3, 22)
    assert "recursive call A -> B -> A" in info.value.message
    with pytest.raises(InputError, match="recursive call F -> F"):
        parse_text("Var x: 0..3;\nFunction F(n: 0..3): 0..3; Begin Return F(n); End;\n"
                   "Startstate Begin x := F(1); End;", "rec.m")


def test_bundled_cache_model_has_the_scalarset_symmetry():
    path = Path(__file__).resolve().parents[1] / "models" / "murphi" / "german_small.m"
    model = load(path, {"N": 2})
    result = explore_state_space(model)
    assert (result.states, result.faults, len(result.deadlocks)) == (1461, 0, 0)
    assert [a.verdict for a in result.assertions if a.assertion.kind != "deadlockfree"] == ["holds"]
    detection = detect(model)
    assert any(g.kind == "process" for g in detection.group.generators)
    assert verify(model, [g.permutation for g in detection.group.generators]).ok
    reducer = make_reducer(model, detection.group, "exact")
    assert explore_state_space(model, canonicalise=reducer.canonicalise).states == 735


# ---------------------------------------------------------------------------- errors

@pytest.mark.parametrize(
    "text, line, column, fragment",
    [
        ("Var x: boolean;\nStartstate Begin x := true x := false End;", 2, 28, "syntax error"),
        ("Var x: boolean;\nStartstate Begin y := true; End;", 2, 18, "unknown identifier 'y'"),
        ("Var x: foo;\nStartstate Begin End;", 1, 8, "unknown type 'foo'"),
        ("Const N: 2;\nVar x: boolean;\nStartstate Begin N := 1; End;", 3, 18, "constant"),
        ("Var a: Array [0..1] Of boolean;\nStartstate Begin a := true; End;", 2, 18,
         "Type of target of assignment doesn't match type of source."),
        ("Var a: Array [0..1] Of boolean;\nStartstate Begin a[2] := true; End;", 2, 1, "subscript out of range"),
        ("Var x: boolean;\nVar x: boolean;\nStartstate Begin End;", 2, 5, "declared twice"),
        ("Var x: 3..1;\nStartstate Begin End;", 1, 8, "empty subrange"),
        ("Var x: boolean;\nStartstate Begin p(x); End;", 2, 18, "unknown procedure 'p'"),
        ("Var x: boolean;\nStartstate Begin x := f(1); End;", 2, 23, "unknown function 'f'"),
        ("Var x: boolean;\nProcedure p(); Begin End;\nStartstate Begin x := p(); End;", 3, 23, "expected a function"),
        ("Var x: boolean;\nProcedure p(a: boolean); Begin x := a; End;\nStartstate Begin p(); End;", 3, 18,
         "takes 1 argument(s), given 0"),
        ("Var x: boolean;\nStartstate Begin Return true; End;", 2, 25, "'Return' takes no value here"),
        ("Type T: Scalarset(2) interleaved;\nVar x: T;\nStartstate Begin End;", 1, 22,
         "'Interleaved' scalarsets are not supported"),
        ("Type A: Scalarset(1);\nVar u: Union {A, boolean};\nStartstate Begin End;", 2, 18,
         "a Union's members must be enums or scalarsets"),
        ("Var x: boolean;\nFunction f(): boolean; Begin x := true; Return x; End;\nStartstate Begin x := true & f(); End;",
         2, 30, "side effects are not supported"),
        ("Var x: boolean;\nProcedure p(Var a: boolean); Begin a := true; End;\nStartstate Begin p(true); End;",
         3, 20, "needs a variable"),
        ("Var x: 0..3;\nProcedure p(Var a: boolean); Begin a := true; End;\nStartstate Begin p(x); End;",
         3, 20, "type differs"),
        ("Var x: boolean;", 1, 1, "Startstate"),
        ("Var x: boolean;\nStartstate Begin x := true;", 2, 28, "end of file"),
        ("Var x: boolean;\nRuleset i: boolean Do Startstate Begin i := true; End; End;", 2, 40, "ruleset parameter"),
        ("Var x: Scalarset(0);\nStartstate Begin End;", 1, 8, "scalarset size 0"),
        # issue 16: nested quantifiers multiply (300 + 300² copies here; 4·10^9 over the
        # largest scalarset): refused at the one that passes the budget
        ("Type t: Scalarset(300);\nVar x: Array [t] Of boolean;\nStartstate Begin End;\n"
         "Invariant Forall i: t Do Forall j: t Do x[i] | !x[j] End End;", 4, 33, "more than 50,000 copies"),
    ],
)
def test_errors_are_located(text, line, column, fragment):
    assert_located_error(parse_text, text, "bad.m", line, column, fragment)


def test_missing_and_binary_files_are_input_errors(tmp_path):
    with pytest.raises(InputError):
        load(tmp_path / "absent.m")
    binary = tmp_path / "bin.m"
    binary.write_bytes(b"Var \xff\xfe")
    with pytest.raises(InputError, match="UTF-8"):
        load(binary)


# ---------------------------------------------------------------------------- fuzzing

SEED = """Const N: 2;
Type pid: Scalarset(N); lab: Enum { A, B }; r: Record f: 0..2; End;
Var s: Array [pid] Of lab; t: pid; q: Array [0..1] Of r;
Ruleset i: pid Do
  Rule "go" s[i] = A & Forall j: pid Do j = i | s[j] = A End ==>
  Var k: 0..2;
  Begin k := q[0].f; If k < 2 Then q[0].f := k + 1; Else Clear q; End; s[i] := B; t := i; End;
  Rule "back" s[i] = B ==> Begin s[i] := A; Undefine t; End;
End;
Procedure P(Var x: lab; y: lab); Begin If y = A Then Return; End; x := y; End;
Function F(v: pid): boolean; Begin Return s[v] = A; End;
Startstate Begin For i: pid Do P(s[i], B); s[i] := A; End; Clear q; End;
Ruleset u: pid Do Rule "sw" Begin Alias z: t Do Switch s[u] Case A: If F(u) Then t := u; End; Else t := z; End; End; End; End;
Invariant "inv" Exists i: pid Do s[i] = A End | !IsUndefined(t);
"""

TOKENS = [
    "Const", "Type", "Var", "Scalarset", "Enum", "Record", "Array", "Of", "End", "Ruleset", "Rule",
    "Startstate", "Invariant", "Begin", "Do", "If", "Then", "Else", "Elsif", "For", "Forall",
    "Exists", "While", "Clear", "Undefine", "Error", "Assert", "IsUndefined", "To", "By",
    "Procedure", "Function", "Return", "Alias", "Switch", "Case", "P", "F",
    "N", "pid", "s", "t", "q", "i", "j", "k", "A", "B", "f", "true", "false", "boolean",
    ":", ";", ",", ":=", "==>", "=", "!=", "<", "&", "|", "!", "->", "?", "+", "-", "*", "/", "%",
    "(", ")", "[", "]", "{", "}", ".", "..", "0", "1", "2", "99999", '"x"', "--", "\n", " ",
]


def _accepts_or_locates(text: str) -> None:
    model_or_input_error(parse_text, text, "fuzz.m")


def test_seed_of_the_fuzzer_is_a_valid_model():
    model = parse_text(SEED, "seed.m")
    result = explore_state_space(model)
    assert result.states > 1 and result.faults == 0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=60))
def test_fuzz_token_soup_gives_model_or_input_error(tokens):
    _accepts_or_locates(" ".join(tokens))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(SEED)), st.integers(0, 6), st.sampled_from(TOKENS + ["", "x"])),
                min_size=1, max_size=4))
def test_fuzz_mutated_model_gives_model_or_input_error(edits):
    text = SEED
    for pos, cut, insert in edits:
        pos = min(pos, len(text))
        text = text[:pos] + insert + text[pos + cut:]
    _accepts_or_locates(text)


_WORD = re.compile(r'"[^"]*"|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|==>|:=|->|!=|<=|>=|\.\.|\S')
NAMES = ["N", "pid", "s", "t", "q", "i", "j", "k", "A", "B", "f", "r", "lab", "zz", "boolean", "true"]
NUMBERS = ["0", "1", "2", "3", "70000", "99999999999"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzz_renamed_identifiers_and_numbers_give_model_or_input_error(data):
    # Swapping names and numbers keeps the syntax valid and exercises name resolution,
    # constant evaluation, typing and range checks instead of the parser.
    tokens = _WORD.findall(SEED)
    positions = [i for i, tok in enumerate(tokens)
                 if (tok[0].isalnum() or tok[0] == "_") and tok[0].islower() or tok[0].isdigit() or tok in ("N", "A", "B")]
    for i in data.draw(st.lists(st.sampled_from(positions), min_size=1, max_size=4)):
        pool = NUMBERS if tokens[i][0].isdigit() else NAMES + NUMBERS[:2]
        tokens[i] = data.draw(st.sampled_from(pool))
    result = model_or_input_error(parse_text, " ".join(tokens), "fuzz.m")
    if isinstance(result, InputError):
        assert result.line >= 1
    else:
        explore_state_space(result, max_states=2_000)
