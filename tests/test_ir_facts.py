"""What the IR records instead of strings: summand origins as source locations, and the
process instances (``SequentialModel.processes``) the front ends create."""
from __future__ import annotations

import dataclasses

import pytest

from detect.errors import InputError
from detect.ir import (
    TRUE, Event, ModelError, Origin, Process, SequentialModel, SourceLocation, Summand, Variable,
    state_slots, validate,
)
from detect.symmetry.group import MIXED, PROCESS, classify
from detect.symmetry.perm import StatePermutation
from frontends import csp, dve, murphi, promela

# ---------------------------------------------------------------------------- origins


def test_origin_shows_its_locations_joined_as_the_language_writes_a_joint_step():
    a = SourceLocation("m.pml", 3, 0, "S[0] line 3")
    b = SourceLocation("m.pml", 9, 0, "R[1] line 9")
    assert str(Origin((a, b), " ! ")) == "S[0] line 3 ! R[1] line 9"
    assert Origin((a, b), " ! ").first() == a
    assert str(Origin()) == "" and Origin().first() == SourceLocation()
    plain = Summand((), TRUE, Event("e"), ())
    assert plain.where(4) == "summand 4"
    assert dataclasses.replace(plain, origin=Origin.at(text="x.csp:2")).where(4) == "x.csp:2"


def test_front_ends_fill_locations_with_file_line_and_column():
    text = "var x = 0;\nP() = a{x = 1;} -> Skip;\n"
    (s,) = csp.parse_text(text, "t.csp").summands
    loc = s.origin.first()
    assert (loc.file, loc.line, loc.column, str(s.origin)) == ("t.csp", 2, 7, "t.csp:2")
    model = dve.parse_text("byte g; process P { state a, b; init a; trans a -> b {}; } system async;", "t.dve")
    loc = model.summands[0].origin.first()
    assert (loc.file, loc.line, str(model.summands[0].origin)) == ("t.dve", 1, "t.dve:1")
    model = murphi.parse_text("var x : boolean;\nstartstate begin x := false; end;\nrule \"go\" !x ==> begin x := true; end;\n", "t.m")
    loc = model.summands[0].origin.first()
    assert (loc.file, loc.line, str(model.summands[0].origin)) == ("t.m", 3, 't.m:3: rule "go"')


def test_a_promela_hand_shake_has_the_senders_and_the_receivers_locations():
    text = ("chan c = [0] of { byte };\n"
            "active proctype S() { c!1 }\n"
            "active proctype R() { byte v; c?v }\n")
    model = promela.parse_text(text, "t.pml")
    (shake,) = [s for s in model.summands if len(s.owners) == 2]
    assert [(loc.file, loc.line) for loc in shake.origin.locations] == [("t.pml", 2), ("t.pml", 3)]
    assert str(shake.origin) == "S[0] line 2 ! R[1] line 3"


def test_csp_errors_point_at_the_step_they_are_about():
    text = "channel c 1;\nP() = c!1 -> Skip;\nQ() = c!1.2 -> Skip;\nSystem() = P() ||| Q();\n"
    with pytest.raises(InputError) as error:
        csp.parse_text(text, "t.csp")
    assert (error.value.line, error.value.column) == (3, 7) and "channel 'c'" in error.value.message


# ---------------------------------------------------------------------------- processes


def test_promela_instances_carry_pid_family_and_owned_state():
    text = "byte f[2];\nactive [2] proctype user() { byte l; f[_pid] = 1; l = 1 }\n"
    model = promela.parse_text(text, "t.pml")
    assert [(p.name, p.family, p.index, p.pid) for p in model.processes] == [
        ("user[0]", "user", 0, 0), ("user[1]", "user", 1, 1)]
    owned = {v for p in model.processes for v, _ in p.slots}
    assert owned == {v.name for v in model.variables if v.owner is not None}
    assert not any(v == "f" for p in model.processes for v, _ in p.slots)


def test_csp_family_instances_own_their_elements_and_have_the_index_value_as_pid():
    text = "P(i) = a.i -> b.i -> P(i);\nSystem() = ||| i:{1..3} @ P(i);\n"
    model = csp.parse_text(text, "t.csp")
    assert [(p.name, p.family, p.index, p.pid) for p in model.processes] == [
        ("P(1)", "P", 0, 1), ("P(2)", "P", 1, 2), ("P(3)", "P", 2, 3)]
    (pc,) = {v for p in model.processes for v, _ in p.slots}
    assert [p.slots for p in model.processes] == [((pc, 0),), ((pc, 1),), ((pc, 2),)]


def test_dve_numbers_processes_as_beem_names_them_and_murphi_has_none():
    body = "state a; init a; trans a -> a {};"
    model = dve.parse_text(f"process P_0 {{ {body} }} process P_1 {{ {body} }} process Timer {{ {body} }} system async;",
                           "t.dve")
    assert [(p.name, p.pid, p.slots) for p in model.processes] == [
        ("P_0", 0, (("P_0.state", 0),)), ("P_1", 1, (("P_1.state", 0),)), ("Timer", None, (("Timer.state", 0),))]
    model = murphi.parse_text("var x : boolean;\nstartstate begin x := false; end;\nrule !x ==> begin x := true; end;\n", "t.m")
    assert model.processes == ()


def _two_processes(names=("left", "right"), processes=True) -> SequentialModel:
    a, b = names
    variables = (
        Variable(f"{a}.pc", (0, 1), ((0,),), owner=a), Variable(f"{b}.pc", (0, 1), ((0,),), owner=b),
        Variable("turn", (0, 1), ((0,),)),
    )
    instances = (Process(a, "P", 0, 0, ((f"{a}.pc", 0),)), Process(b, "P", 1, 1, ((f"{b}.pc", 0),)))
    return SequentialModel("two", variables, (), processes=instances if processes else ())


@pytest.mark.parametrize("change, message", [
    (lambda m: dataclasses.replace(m, processes=m.processes[:1]), "names 0 processes"),
    (lambda m: dataclasses.replace(m, processes=(m.processes[0], dataclasses.replace(m.processes[1], index=0))),
     "declared twice"),
    (lambda m: dataclasses.replace(m, processes=(m.processes[0], dataclasses.replace(
        m.processes[1], slots=(("right.pc", 0), ("left.pc", 0))))), "owned by both"),
    (lambda m: dataclasses.replace(m, processes=(m.processes[0], dataclasses.replace(
        m.processes[1], slots=(("right.pc", 0), ("turn", 1))))), "no state slot"),
    (lambda m: dataclasses.replace(m, processes=(m.processes[0], dataclasses.replace(m.processes[1], slots=()))),
     "does not own its slots"),
    (lambda m: dataclasses.replace(m, summands=(Summand((), TRUE, Event("e"), (), owners=("middle",)),)),
     "'middle' is no process"),
])
def test_validate_rejects_processes_that_disagree_with_the_model(change, message):
    validate(_two_processes())
    with pytest.raises(ModelError, match=message):
        validate(change(_two_processes()))


def test_group_reads_pids_from_the_ir_not_from_names():
    # Swapping the two processes and the values 0 and 1 of turn: pid-valued data permuted
    # alike when the IR says the processes are pids 0 and 1.  The names carry no number,
    # so without processes (the fallback for hand-built models) turn's swap is plain data.
    def swap(model):
        slots = state_slots(model)
        target = (1, 0, 2)
        values = ({0: 0, 1: 1}, {0: 0, 1: 1}, {0: 1, 1: 0})
        return StatePermutation(target, values), slots

    model = _two_processes()
    sigma, slots = swap(model)
    kind, text = classify(sigma, model, slots)
    assert kind == PROCESS and text.endswith("(pid-valued data permuted alike)")
    bare = _two_processes(processes=False)
    assert classify(sigma, bare, slots)[0] == MIXED
