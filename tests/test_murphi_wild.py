"""Constructs of Murphi models as people write them (``results/wild_murphi.py``): each pinned
to CMurphi 5.4's counts, and rerun against CMurphi where it builds."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests import cmurphi
from tests.test_murphi_regressions import _counts

#: ProtoGen-style message constructors (``msg := Request(adr, GetM, m, dir)``) and a
#: ``Send(msg: Message)`` taking its record by value: CMurphi 5.4 -nosym 13 states.
RECORD_FUNCTION = """
type R : record a : 0..2; b : boolean; end;
var r : R; n : 0..3;
function Mk(x : 0..2) : R;
var m : R;
begin
  m.a := x; m.b := true; return m;
end;
procedure Store(m : R);
begin
  r := m; n := n + 1;
end;
startstate r.a := 0; r.b := false; n := 0; end;
ruleset x : 0..2 do
rule "mk" n < 3 ==> var t : R; begin t := Mk(x); Store(t); end;
end;
rule "direct" n < 3 ==> begin r := Mk(1); n := n + 1; end;
rule "reset" n = 3 ==> begin n := 0; end;
invariant "ok" n <= 3;
"""

#: A record passed by value is a copy made at the call (``mu`` refuses writes to it), and
#: copying an undefined field reads nothing (CMurphi 5.4 -nosym: 5 states, no error).
BY_VALUE = """
type R : record a : 0..3; b : 0..3; end;
var r : R; s : R;
procedure Bump(m : R);
begin
  s := m; s.a := (m.a + 1) % 4;
end;
startstate r.a := 0; undefine r.b; undefine s; end;
rule "bump" true ==> begin Bump(r); r.a := s.a; end;
invariant "b stays undefined" IsUndefined(r.b) & IsUndefined(s.b);
"""


@pytest.mark.parametrize("text, states", [(RECORD_FUNCTION, 13), (BY_VALUE, 5)])
def test_record_functions_and_record_value_parameters_have_cmurphis_counts(text, states):
    got, _, violated = _counts(text)
    assert (got, violated) == (states, False)


@pytest.fixture(scope="session")
def cmurphi_home() -> Path:
    reason = cmurphi.unavailable()
    if reason:
        pytest.skip(reason)
    return cmurphi.build()


@pytest.mark.parametrize("text", [RECORD_FUNCTION, BY_VALUE])
def test_record_functions_and_record_value_parameters_against_cmurphi(text, cmurphi_home, tmp_path):
    path = tmp_path / "m.m"
    path.write_text(text)
    c = cmurphi.compare(cmurphi_home, path, tmp_path / "cm")
    assert c.compared and c.disagreement is None, c.disagreement
