"""The seed paper's systems (models/paper): each detected group is sound, and has the order
that the system's structure predicts, on configurations small enough to explore."""
from __future__ import annotations

import math
import os

import pytest

from detect.bench import MODELS, SYSTEMS, load_paper_model
from detect.symmetry.pipeline import detect
from detect.checking.verify import verify
from detect.transform.load import narrowed
from frontends import csp

parse_text = narrowed(csp.parse_text)

# (system, small configuration, expected order of the state group): the orders follow from
# each system's structure (e.g. clients of one server permuted, equal servers swapped).
SMALL = [
    ("Reader-writer problem", "3", 2),                       # the two readers
    ("Peterson's mutual exclusion protocol", "3", 6),        # S_3
    ("A prioritized resource allocator", "1-2-2", 4),        # S_1 x S_2 x S_2
    ("Three-tiered architecture", "2-1-1", 4),                # S_2 on server 0's clients; swap servers 1, 2
    ("Message passing in a hypercube network", "2", 8),      # the square: 2^2 * 2!
    ("Dining philosophers", "4", 4),                         # rotations
    ("Milner's scheduler", "3", 1),                          # cycler 0 holds the token
    ("Non-deterministic two-hop coloring protocol in undirected rings", "3", 72),  # D_3 x S_3 x Z_2
    ("Self-stabilizing leader election protocol in complete graphs", "4", 24),     # S_4
    ("Self-stabilizing leader election protocol in directed rooted trees", "7", 8),  # complete binary tree
    ("Self-stabilizing leader election protocol in rings", "4", 4),                # rotations
    ("Hanoi puzzle", "3", 2),                                # pegs 1 and 2
    ("Scheduling the social golfer problem", "2-2-1", 8),    # groups, positions in a group, golfer ids
]


@pytest.mark.parametrize("system,config,order", SMALL, ids=[s[0].split()[0] + "-" + s[1] for s in SMALL])
def test_group_is_sound_and_as_expected(system, config, order):
    model = load_paper_model(system, config)
    detection = detect(model)
    assert detection.group.order == order
    report = verify(model, [g.permutation for g in detection.group.generators])
    assert all(v.ok for v in report.verdicts), [v for v in report.verdicts if not v.ok]


def test_every_system_has_a_model_with_a_source_header():
    for s in SYSTEMS.values():
        with open(os.path.join(MODELS, s.model), encoding="utf-8") as f:
            text = f.read()
        header = text.split("#define")[0]
        assert header.startswith("//") and "Configuration syntax" in header, s.model


@pytest.mark.parametrize("n", [5, 6])
def test_peterson_and_leader_complete_find_full_symmetric_group(n):
    assert detect(load_paper_model("Peterson's mutual exclusion protocol", str(n))).group.order == math.factorial(n)
    assert detect(load_paper_model("Self-stabilizing leader election protocol in complete graphs",
                                   str(n))).group.order == math.factorial(n)


def test_two_hop_colouring_has_all_24_local_states_per_agent():
    # Seed 002 Table II: 13,824 = 24^3 states for the ring of 3 (init `= *`).
    from detect.statespace.explore import explore_state_space

    assert explore_state_space(load_paper_model("Non-deterministic two-hop coloring protocol in undirected rings", "3")).states == 24 ** 3


def test_hanoi_state_count_is_three_to_the_disks_plus_setup():
    from detect.statespace.explore import explore_state_space

    assert explore_state_space(load_paper_model("Hanoi puzzle", "4")).states == 3 ** 4 + 1


# ------------------------------------------------------------- front-end pieces these models need


def test_xor_and_shifts_follow_c_precedence_and_meaning():
    m = parse_text("var x : {0..100} = 3 ^ 1 << 2; var y : {0..100} = 20 >> 2 ^ 1; P() = a -> P();")
    assert [v.init for v in m.variables] == [((7,),), ((4,),)]  # 3 ^ (1 << 2), (20 >> 2) ^ 1


def test_xor_in_a_program_is_evaluated_as_in_c():
    from detect.statespace.explore import explore_state_space

    m = parse_text("var x : {0..7} = 5; P() = [x == 5] a{x = x ^ 3;} -> P();")
    assert explore_state_space(m).states == 2  # 5 -> 6


def test_sibling_families_have_the_same_shape():
    # pc slot of the second family is c - lo + base; it must fold to c (three-tiered needs it)
    m = parse_text("var v[4] : {0..1} = [0(4)]; P(c) = a.c{v[c] = 1;} -> b.c -> P(c);"
                   "S() = (|||c:{0..1}@P(c)) ||| (|||c:{2..3}@P(c));")
    from detect.ir.pretty import show_expr

    texts = {show_expr(s.guard).replace("0..1", "").replace("2..3", "") for s in m.summands}
    assert all("- 2 + 2" not in t for t in texts)
    assert detect(m).group.order == 8  # swap inside each family, and the two families
