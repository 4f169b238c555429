"""Murphi as CMurphi's own examples write it (issue 27): each construct on a minimal model,
with CMurphi 5.4's counts hard-coded (``-nosym -ndl``: states, rules fired; ``-sym1``:
states), so that these run without CMurphi; ``tests/test_differential_murphi.py`` compares
the random models of ``tests/murphi_gen.py``, which use every construct here, with CMurphi
itself."""
from __future__ import annotations

from detect.checking.murphi_counts import murphi_counts
from frontends.murphi import parse_text

from tests.frontend_checks import assert_located_error
from tests.test_frontend_murphi import _reduced_states


def _counts(text: str, defines=None):
    c = murphi_counts(parse_text(text, "t.m", defines))
    return c.states, c.rules_fired, c.violated


RECORD_AND_BARE_RULES = """
Type R : Record a : 0..1; b : 0..1 End;
     S : Record c : boolean;; d: boolean; End;
Var r : R; s : S; x : 0..1;
Startstate r.a := 0; r.b := 0; s.c := false; s.d := true; Put "hello"; Put x; x := 0; End;
Rule "flip" true ==> x := 1 - x; Put "flip"; End;
Rule "r" r.a = 0 ==> Var t : 0..1; Begin t := r.b; r.b := 1 - t; End;
"""


def test_last_record_field_without_semicolon_rules_without_begin_and_put():
    """abp.m's ``Record a: ...; b: ... End``, list6.m's ``Rule "flip" c ==> x := 1 - x; End``
    and ``Put`` (prints only): CMurphi 4 states, 8 rules fired."""
    assert _counts(RECORD_AND_BARE_RULES) == (4, 8, False)


def test_rule_priority_is_refused_at_the_number():
    text = 'Var x: boolean;\nStartstate x := false; End;\nRule 5 "r" true ==> x := !x; End;'
    assert_located_error(parse_text, text, "p.m", 3, 6, "rule priority 5 is not supported")
