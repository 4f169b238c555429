"""Symmetry of BEEM's per-process DVE instances: detected groups, verified, and shown maximal.

``P_0``, ``P_1``, ... are declared one by one in DVE; the detection must still map one
process's summands, program counter and locals onto another's.  Each corpus instance's
detected group is checked three ways: every generator verifies on the reachable LTS; its
order is the expected one from reading the source; and it equals the order of the group of
*all* state-permutation symmetries of the reachable LTS (``detect.checking.completeness``,
computed by bliss on the explored graph, independently of the coloured-graph method), so
nothing is missed.  Instances where the source breaks the symmetry (Peterson, bakery) get an
explicit reason: the natural pid permutation fails verification, and the processes' program
counters have different reachable histograms, so no symmetry can exchange any two of them.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from detect.checking.completeness import completeness
from detect.checking.orbits import group_elements, min_image_canonicaliser, orbit_count
from detect.symmetry.constraints import TableTooLarge
from detect.statespace.explore import explore_state_space, reachable_graph
from detect.ir import SequentialModel, state_slots
from detect.symmetry.perm import StatePermutation
from detect.symmetry.pipeline import detect
from detect.checking.verify import verify
from detect.transform.load import narrowed
from frontends import dve

load, parse_text = narrowed(dve.load), narrowed(dve.parse_text)
#: The corpus instances need at most 131,584 rows for one constraint (fischer's timer update);
#: gear.1's ``toGear`` needs the reachable domains (as in results/dve_symmetry.py).
TABLE_LIMIT, DOMAIN_STATES = 2_000_000, 1_000_000


def reachable_symmetry_order(model: SequentialModel) -> int:
    """Order, on the reachable states, of the group of every symmetry of the reachable LTS
    (what ``analyze --completeness`` computes, independently of the constraint graph)."""
    measured = completeness(model, (), max_states=1_000_000)
    assert measured.explored_all
    return measured.true_order


def pc_histograms(model: SequentialModel) -> dict[str, Counter]:
    """Process -> how many reachable states have its program counter at each location."""
    states = reachable_graph(model).states
    return {slot.variable: Counter(s[k] for s in states) for k, slot in enumerate(state_slots(model))
            if slot.variable.endswith(".state") and model.variable(slot.variable).size is None}

BEEM = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "beem" / "dve"

#: Expected group orders, from the sources: phils.1 and phils.2 are rings with every
#: philosopher taking its left fork first (rotations only, see the reflection test); msmie.1
#: has 2 identical slaves and 3 identical masters (S2 × S3; its release phase names b[0] only,
#: which rules out buffer symmetries); hanoi.1 can swap pegs B and C (both start empty);
#: fischer.1 permutes its 3 processes with the values id = i + 1; peterson.1 and bakery.1 are
#: asymmetric (see below); gear.1 has five different processes.
EXPECTED_ORDER = {
    "phils.1": 4, "phils.2": 5, "msmie.1": 12, "hanoi.1": 2, "fischer.1": 6,
    "peterson.1": 1, "bakery.1": 1, "gear.1": 1,
}


def _beem(name: str) -> Path:
    path = BEEM / f"{name}.dve"
    if not path.exists():
        pytest.skip(f"BEEM corpus not available at {BEEM} (../shared is absent)")
    return path


def _instance_params():
    for name in sorted(EXPECTED_ORDER):
        yield pytest.param(name)


@pytest.mark.parametrize("name", list(_instance_params()))
def test_corpus_group_verifies_and_is_the_whole_symmetry_group(name):
    path = _beem(name)
    model = load(path)
    detection = detect(model, table_limit=TABLE_LIMIT, domain_states=DOMAIN_STATES)
    group = detection.group
    # detection.model: ``model`` or its narrowing to the reachable domains (gear.1's toGear).
    report = verify(detection.model, [g.permutation for g in group.generators])
    assert report.complete and report.ok, report.summary()
    assert group.order == EXPECTED_ORDER[name]
    assert reachable_symmetry_order(model) == group.order


def test_gear_needs_the_reachable_domains_and_gets_them():
    """Static analysis leaves gear.1's ``toGear`` at int's 65,536 values (it is bounded only
    through currentGear); detection falls back to the domains of the 2,689 reachable states."""
    model = load(_beem("gear.1"))
    with pytest.raises(TableTooLarge, match="toGear"):
        detect(model, table_limit=TABLE_LIMIT)
    with pytest.raises(TableTooLarge, match="more than 100 reachable states"):
        detect(model, table_limit=TABLE_LIMIT, domain_states=100)
    detection = detect(model, table_limit=TABLE_LIMIT, domain_states=DOMAIN_STATES)
    assert detection.domains is not None and detection.domains.states == 2_689
    assert dict((n, v) for n, _, v in detection.domains.narrowed)["toGear"] == tuple(range(-1, 6))
    assert explore_state_space(detection.model).states == explore_state_space(model).states == 2_689


# ---------------------------------------------------------------- why groups are this size


def _permutation(model: SequentialModel, slot_map: dict[str, str],
                 value_maps: dict[str, dict[int, int]] | None = None) -> StatePermutation:
    """Slots by label (unmapped ones fixed), values fixed unless ``value_maps`` says so."""
    slots = state_slots(model)
    index = {s.label: k for k, s in enumerate(slots)}
    target = list(range(len(slots)))
    for a, b in slot_map.items():
        target[index[a]] = index[b]
    values = []
    for k, slot in enumerate(slots):
        m = {v: v for v in slot.domain}
        m.update((value_maps or {}).get(slot.label, {}))
        values.append(m)
    return StatePermutation(tuple(target), tuple(values))


def _rejected(model: SequentialModel, sigma: StatePermutation) -> str:
    """The verifier's verdict kind on ``sigma``, which must be well formed."""
    verdict = verify(model, [sigma]).verdicts[0]
    assert verdict.kind != "malformed", verdict.message
    return verdict.kind


def test_phils_ring_reflection_is_not_a_symmetry():
    # Reflecting the ring (phil_i -> phil_{3-i}, fork[k] -> fork[-k]) maps phil_i's first
    # fork fork[i] onto phil_{3-i}'s *second* fork: in BEEM every philosopher picks up its
    # left fork first, so the order of acquisition breaks the reflection.
    model = load(_beem("phils.1"))
    n = 4
    slot_map = {f"phil_{i}.state": f"phil_{(n - 1 - i) % n}.state" for i in range(n)}
    slot_map.update({f"fork[{k}]": f"fork[{(-k) % n}]" for k in range(n)})
    assert _rejected(model, _permutation(model, slot_map)) in ("transition", "extra transition")
    # and no symmetry at all beyond the 4 rotations exists:
    assert reachable_symmetry_order(model) == 4


def test_phils_ring_rotation_is_a_symmetry():
    model = load(_beem("phils.1"))
    n = 4
    slot_map = {f"phil_{i}.state": f"phil_{(i + 1) % n}.state" for i in range(n)}
    slot_map.update({f"fork[{k}]": f"fork[{(k + 1) % n}]" for k in range(n)})
    assert verify(model, [_permutation(model, slot_map)]).ok


@pytest.mark.parametrize("name", ["peterson.1", "bakery.1"])
def test_asymmetric_instances_have_distinct_pc_histograms(name):
    # Any symmetry mapping P.state onto Q.state maps the reachable states with P.state = a
    # onto those with Q.state = σ(a), so the sorted counts would agree.  They differ for
    # every pair: no symmetry exchanges any two processes, whatever it does to the data.
    histograms = pc_histograms(load(_beem(name)))
    shapes = [tuple(sorted(h.values())) for h in histograms.values()]
    assert len(shapes) >= 2 and len(set(shapes)) == len(shapes), histograms


def test_peterson_pid_swap_fails_because_the_scan_runs_in_index_order():
    # peterson.1: P_i writes its pid into step[j-1] and scans k = 0, 1, 2 in that order,
    # skipping k == i.  Swapping P_0 and P_1 together with pos[], their locals and the pid
    # values 0 <-> 1 stored in step[] still cannot work: P_0 at k = 1 has checked only itself,
    # while P_1 at k = 1 has checked P_0, so the images of partial scans are not states the
    # swapped processes can be in (with k's values fixed or permuted alike).
    model = load(_beem("peterson.1"))
    slot_map = {"P_0.state": "P_1.state", "P_1.state": "P_0.state",
                "P_0.j": "P_1.j", "P_1.j": "P_0.j", "P_0.k": "P_1.k", "P_1.k": "P_0.k",
                "pos[0]": "pos[1]", "pos[1]": "pos[0]"}
    pid = {0: 1, 1: 0}
    values = {f"step[{k}]": pid for k in range(3)}
    assert _rejected(model, _permutation(model, slot_map, values)) != ""
    values_k = dict(values, **{"P_0.k": pid, "P_1.k": pid})
    assert _rejected(model, _permutation(model, slot_map, values_k)) != ""


def test_bakery_pid_swap_fails_because_ties_go_to_the_lower_pid():
    # bakery.1: P_i leaves the wait loop on a tie number[j] == number[i] only if i <= j, so
    # P_0 wins every tie and P_1 loses it: the tie-break by pid is not invariant under
    # exchanging the pids.
    model = load(_beem("bakery.1"))
    slot_map = {"P_0.state": "P_1.state", "P_1.state": "P_0.state",
                "P_0.j": "P_1.j", "P_1.j": "P_0.j", "P_0.max": "P_1.max", "P_1.max": "P_0.max",
                "number[0]": "number[1]", "number[1]": "number[0]",
                "choosing[0]": "choosing[1]", "choosing[1]": "choosing[0]"}
    assert _rejected(model, _permutation(model, slot_map)) != ""
    loop_index = {"P_0.j": {0: 1, 1: 0}, "P_1.j": {0: 1, 1: 0}}
    assert _rejected(model, _permutation(model, slot_map, loop_index)) != ""


# ---------------------------------------------------------------- small hand-written systems


_TWO_COUNTERS = """
byte x[2];
process A { state s, t; init s; trans s -> t { guard x[0] < 2; effect x[0] = x[0] + 1; },
                                      t -> s { }; }
process B { state s, t; init s; trans s -> t { guard x[1] < 2; effect x[1] = x[1] + 1; },
                                      t -> s { }; }
system async;
"""


def test_separately_declared_identical_processes_are_exchanged():
    model = parse_text(_TWO_COUNTERS, "two.dve")
    group = detect(model).group
    assert group.order == 2 == reachable_symmetry_order(model)
    assert verify(model, [g.permutation for g in group.generators]).ok
    assert [g.kind for g in group.generators] == ["process"]


def test_a_different_constant_breaks_the_symmetry_in_both_computations():
    text = _TWO_COUNTERS.replace("x[1] < 2", "x[1] < 3")
    model = parse_text(text, "two.dve")
    assert detect(model).group.order == 1 == reachable_symmetry_order(model)


def test_pid_valued_global_is_permuted_with_the_processes():
    # Like fischer's ``id = i + 1``: the value written identifies the writer.
    text = """
    byte owner;
    process A { state s, t; init s; trans s -> t { guard owner == 0; effect owner = 1; },
                                          t -> s { effect owner = 0; }; }
    process B { state s, t; init s; trans s -> t { guard owner == 0; effect owner = 2; },
                                          t -> s { effect owner = 0; }; }
    system async;
    """
    model = parse_text(text, "owner.dve")
    group = detect(model).group
    assert group.order == 2 == reachable_symmetry_order(model)
    assert verify(model, [g.permutation for g in group.generators]).ok


# ---------------------------------------------------------------- orbit counts (reduced states)


@pytest.mark.parametrize("name, orbits", [("phils.1", 23), ("phils.2", 117), ("fischer.1", 136)])
def test_orbit_count_agrees_with_burnside(name, orbits):
    # Burnside: #orbits = average number of reachable states fixed by a group element.
    model = load(_beem(name))
    generators = [g.permutation for g in detect(model, table_limit=TABLE_LIMIT).group.generators]
    states = reachable_graph(model).states
    elements = group_elements(generators)
    fixed = sum(1 for e in elements for s in states if e.apply(s) == s)
    assert fixed % len(elements) == 0
    assert orbit_count(model, generators) == fixed // len(elements) == orbits
    # and exploring with the smallest image over the group visits one state per orbit
    reduced = explore_state_space(model, canonicalise=min_image_canonicaliser(generators))
    assert reduced.states == orbits
