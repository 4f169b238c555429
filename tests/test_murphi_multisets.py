"""Murphi multisets under symmetry (issue 27, item 6): symmetry is detected on the unsorted
reading and ``explore --reduce`` quotients by the group and every multiset's place
permutations (``detect.checking.multisets``), CMurphi's ``-sym1`` with its default multiset
reduction.  CMurphi 5.4's figures are hard-coded here; ``tests/test_differential_murphi.py``
runs CMurphi itself on random models of this shape (``murphi_gen.generate_multiset``)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from detect.checking.multisets import normaliser_failure, place_swaps, settler
from detect.cli import main
from detect.ir.points import LiteralPoints
from frontends.murphi import parse_text
from tests import cmurphi, murphi_gen

#: A bag of at most two processes: CMurphi -nosym 6 states, -sym1 4; with -nomultiset 9 and 5.
BAG = """
Type P : Scalarset(2);
Var m : Multiset[2] of P;
    c : 0..2;
Startstate Begin c := 0; End;
Ruleset p : P Do
  Rule "add" c < 2 ==> Begin MultisetAdd(p, m); c := c + 1; End;
End;
Choose i : m Do
  Rule "rem" true ==> Begin MultisetRemove(i, m); c := c - 1; End;
End;
"""


def _explore(tmp_path, text: str, *options: str) -> tuple[int, int, int]:
    path = tmp_path / "m.m"
    path.write_text(text)
    result = CliRunner().invoke(main, ["explore", str(path), "--json", "--ndl", *options])
    data = json.loads(result.output[result.output.index("{"):])
    return data["states"], data["group_order"], result.exit_code


def test_a_bag_of_scalarsets_gets_cmurphis_sym1_count(tmp_path):
    """Was 6 states with group order 1 (the sort compares scalarsets with <); now the swap of
    the two processes is detected on the unsorted reading and the count is -sym1's."""
    assert _explore(tmp_path, BAG) == (6, 1, 0)
    assert _explore(tmp_path, BAG, "--reduce", "exact") == (4, 2, 0)
    assert _explore(tmp_path, BAG, "--reduce", "enumerate") == (4, 2, 0)
    assert _explore(tmp_path, BAG, "--nomultiset") == (9, 1, 0)
    assert _explore(tmp_path, BAG, "--nomultiset", "--reduce", "exact") == (5, 2, 0)


@pytest.mark.parametrize("seed", range(8))
def test_exact_and_enumerate_agree_on_random_multiset_models(seed, tmp_path):
    """Both are the least sorted image's orbit count: exact backtracks over H = <G, P>, then
    sorts; enumerate sorts each image under G; local stores at least as many."""
    text = murphi_gen.generate_multiset(seed)
    exact = _explore(tmp_path, text, "--reduce", "exact")
    assert exact[1] > 1, text
    assert _explore(tmp_path, text, "--reduce", "enumerate") == exact
    plain = _explore(tmp_path, text)
    local = _explore(tmp_path, text, "--reduce", "local")
    assert exact[0] <= local[0] <= plain[0]


def test_a_model_that_reads_a_place_index_is_explored_without_reduction(tmp_path):
    """``x := i`` of a ``Choose`` index (CMurphi's mu refuses it; we read it): exchanging two
    places is then no symmetry, the check per expanded state says so, and the run is a plain
    one with a note, never a wrong count."""
    text = BAG.replace("MultisetRemove(i, m); c := c - 1;", "x := i; MultisetRemove(i, m); c := c - 1;") \
        .replace("c : 0..2;", "c : 0..2; x : 0..1;").replace("c := 0;", "c := 0; x := 0;")
    path = tmp_path / "leak.m"
    path.write_text(text)
    result = CliRunner().invoke(main, ["explore", str(path), "--json", "--ndl", "--reduce", "exact"])
    data = json.loads(result.output[result.output.index("{"):])
    plain = _explore(tmp_path, text)
    assert data["states"] == plain[0]
    assert "exchange of two places of a multiset is not a symmetry" in data["notes"][0]


def test_settle_is_cmurphis_sort_and_canonical_under_place_permutations():
    model = parse_text(BAG, "b.m")
    (places,) = model.annotation("multisets")
    settle = settler(model.annotation("multisets"))
    (v0, e0), (v1, e1) = places
    state = [0] * 5
    state[v0], state[e0], state[v1], state[e1] = 1, 1, 1, 0
    assert settle(tuple(state))[e0] == 0 and settle(tuple(state))[e1] == 1
    state[v0], state[e0] = 0, -1  # a free place first: the full one moves to the front
    sorted_state = settle(tuple(state))
    assert (sorted_state[v0], sorted_state[e0], sorted_state[v1], sorted_state[e1]) == (1, 0, 0, -1)


def test_normaliser_check_refuses_a_generator_that_mixes_places():
    """A permutation moving one place's element into another place while leaving its flag:
    not in the normaliser of P, so not usable with the place quotient."""
    model = parse_text(BAG, "b.m")
    pts = LiteralPoints.of(model)
    instances = model.annotation("multisets")
    swaps = place_swaps(instances, pts)
    assert normaliser_failure(swaps, pts, instances) is None
    (v0, e0), (v1, e1) = instances[0]
    images = list(range(len(pts.pairs)))
    for v in model.variables[1].domain:  # exchange the elements of places 0 and 1, not the flags
        a, b = pts.index[(e0, v)], pts.index[(e1, v)]
        images[a], images[b] = b, a
    assert "spreads one place of a multiset over two places" in normaliser_failure([tuple(images)], pts, instances)


def test_analyze_verify_checks_what_the_reduction_uses(tmp_path):
    """G on the unsorted reading (the generators), G normalising P, and P a symmetry up to
    sorting on the unsorted reading's reachable states; a leaked place index fails (exit 1)."""
    path = tmp_path / "bag.m"
    path.write_text(BAG)
    result = CliRunner().invoke(main, ["analyze", str(path), "--verify"])
    assert result.exit_code == 0, result.output
    assert "which the group normalises (checked); place exchanges verified up to sorting on the 9" in \
        " ".join(result.output.split())
    leak = tmp_path / "leak.m"
    leak.write_text(BAG.replace("MultisetRemove(i, m); c := c - 1;", "x := i; MultisetRemove(i, m); c := c - 1;")
                    .replace("c : 0..2;", "c : 0..2; x : 0..1;").replace("c := 0;", "c := 0; x := 0;"))
    result = CliRunner().invoke(main, ["analyze", str(leak), "--verify"])
    assert result.exit_code == 1 and "NOT a symmetry up to sorting" in " ".join(result.output.split())


#: ``ex/multiset+sym/cache3multi.m``'s shape (issue 27): one network multiset of records whose
#: ``dst`` is a ``Union{Home, Proc}``, a ``MultiSetCount`` guard on the senders, and receivers
#: ``Choose i: net`` guarded by ``IsMember(net[i].dst, ..)`` that alias the message and its
#: ``dst`` and index arrays of ``Home`` or ``Proc`` with that alias.  CMurphi 5.4: -nosym 168,
#: -sym1 48; -nomultiset 456 and 99.  The group is S_3 on Proc (Home has one member).
NETWORK = """Type Home: Scalarset(1); Proc: Scalarset(3); Node: Union{Home, Proc};
  Kind: enum{Req, Ack};
  Msg: Record k: Kind; src: Node; dst: Node; End;
Var net: Multiset[3] of Msg;
    st: Array[Proc] of enum{Idle, Wait, Done};
    served: Array[Home] of 0..2;
Procedure Send(k: Kind; d: Node; s: Node);
Var m: Msg;
Begin
  Assert MultiSetCount(i:net, true) < 3 "full";
  m.k := k; m.src := s; m.dst := d;
  MultisetAdd(m, net);
End;
Startstate
  For p: Proc Do st[p] := Idle; End;
  For h: Home Do served[h] := 0; End;
  Undefine net;
End;
Ruleset p: Proc Do Ruleset h: Home Do
  Rule "request" st[p] = Idle & MultiSetCount(i:net, true) <= 1 ==>
    st[p] := Wait; Send(Req, h, p);
  End;
End; End;
Choose i: net Do
  Rule "home" IsMember(net[i].dst, Home) ==>
    Alias msg: net[i] Do Alias n: msg.dst Do
      served[n] := (served[n] + 1) % 3;
      Send(Ack, msg.src, n);
      MultisetRemove(i, net);
    End; End;
  End;
End;
Choose i: net Do
  Rule "proc" IsMember(net[i].dst, Proc) ==>
    Alias msg: net[i] Do Alias n: msg.dst Do
      Assert st[n] = Wait "not waiting";
      st[n] := Done;
      MultisetRemove(i, net);
    End; End;
  End;
End;
Ruleset p: Proc Do Rule "reset" st[p] = Done ==> st[p] := Idle; End; End;
Invariant "bounded" MultiSetCount(i:net, true) <= 3;
"""
NETWORK_FIGURES = {(): (168, 1), ("--reduce", "exact"): (48, 6), ("--nomultiset",): (456, 1),
                   ("--nomultiset", "--reduce", "exact"): (99, 6)}


@pytest.mark.parametrize("options", sorted(NETWORK_FIGURES))
def test_a_network_addressed_by_a_union_field_gets_cmurphis_counts(options, tmp_path):
    states, order, code = _explore(tmp_path, NETWORK, *options)
    assert (states, order, code) == (*NETWORK_FIGURES[options], 0)


def test_the_network_figures_are_cmurphis(tmp_path):
    reason = cmurphi.unavailable()
    if reason:
        pytest.skip(reason)
    executable = cmurphi.compile_model(cmurphi.build(), NETWORK, tmp_path, "m")
    for options, ours in (("-nosym", ()), ("-sym1", ("--reduce", "exact")),
                          ("-nosym -nomultiset", ("--nomultiset",)),
                          ("-sym1 -nomultiset", ("--nomultiset", "--reduce", "exact"))):
        result = cmurphi.run_model(executable, options=tuple(options.split()), deadlock=True)
        assert (result.states, result.error) == (NETWORK_FIGURES[ours][0], None), options
