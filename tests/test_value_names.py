"""Values keep the names the source gave them (enum constants, process states, mtypes) in
literals, traces, descriptions and exports; the semantics stays the integers."""
from __future__ import annotations

import json

import pytest

from detect.export import json_document, load_schema
from detect.ir import TRUE, Event, ModelError, SequentialModel, Summand, Variable, literal_label, state_slots, validate
from detect.symmetry.pipeline import detect
from detect.transform.load import narrowed
from frontends import dve, promela
from frontends.murphi import parse_text as parse_murphi

parse_dve, parse_promela = narrowed(dve.parse_text), narrowed(promela.parse_text)

RING = """
byte fork[3];
process phil_0 { state think, eat; init think;
  trans think -> eat { guard fork[0] == 0; effect fork[0] = 1; }, eat -> think { effect fork[0] = 0; }; }
process phil_1 { state think, eat; init think;
  trans think -> eat { guard fork[1] == 0; effect fork[1] = 1; }, eat -> think { effect fork[1] = 0; }; }
process phil_2 { state think, eat; init think;
  trans think -> eat { guard fork[2] == 0; effect fork[2] = 1; }, eat -> think { effect fork[2] = 0; }; }
system async;
"""


def test_slot_shows_named_values_and_numbers_otherwise():
    var = Variable("light", (0, 1, 2), ((1,),), value_names=((1, "green"), (2, "red")))
    model = SequentialModel("m", (var,), (Summand((), TRUE, Event("e"), ()),))
    (slot,) = state_slots(model)
    assert [literal_label(slot, v) for v in (0, 1, 2)] == ["light=0", "light=green", "light=red"]
    validate(model)
    twice = SequentialModel("m", (Variable("x", (0, 1), ((0,),), value_names=((1, "a"), (1, "b"))),), ())
    with pytest.raises(ModelError, match="named twice"):
        validate(twice)


def test_dve_process_states_name_literals_and_export_validates():
    jsonschema = pytest.importorskip("jsonschema")
    detection = detect(parse_dve(RING, "ring.dve"))
    assert detection.group.order == 6
    assert "phil_0.state=think" in detection.group.literals
    document = json.loads(json.dumps(json_document(detection, ())))
    jsonschema.validate(document, load_schema())
    states = {v["name"]: v.get("value_names") for v in document["state_variables"]}
    assert states["phil_0.state"] == {"0": "think", "1": "eat"} and states["fork"] is None


def test_murphi_enums_and_booleans_are_named():
    model = parse_murphi("""
        Type pid: Scalarset(2); label: Enum { idle, busy };
        Var s: Array [pid] Of label; flag: boolean;
        Ruleset i: pid Do Rule "go" s[i] = idle ==> Begin s[i] := busy; flag := true; End; End;
        Startstate Begin For i: pid Do s[i] := idle; End; flag := false; End;
        """, "m.m")
    detection = detect(model)
    assert {"s[0]=idle", "s[1]=busy", "flag=true", "flag=false"} <= set(detection.group.literals)


def test_promela_mtype_values_are_named():
    model = parse_promela("mtype = { red, green };\nmtype light = red;\n"
                          "active proctype P() { do :: light == red -> light = green "
                          ":: light == green -> light = red od }", "m.pml")
    (slot,) = [s for s in state_slots(model) if s.variable == "light"]
    assert {literal_label(slot, v) for v in slot.domain} == {"light=red", "light=green"}
