"""``detect.export.panmap``: the check that a generator's renaming of pan's states is an
automorphism of pan's automaton (issue 31).  Pure: automata built by hand, no Spin needed."""
from __future__ import annotations

from detect.export.panmap import PanAutomaton, PanEdge, automorphism

#: state 1 sets x to 1 (-> 2) or to 2 (-> 3); both return to 1
CHOICE = PanAutomaton("p", 1, (
    PanEdge(1, 2, 3, 4, "x = 1", "---L"),
    PanEdge(1, 3, 4, 4, "x = 2", "---L"),
    PanEdge(2, 1, 5, 5, "y = 0", "---L"),
    PanEdge(3, 1, 6, 5, "y = 0", "---L"),
))
SWAP = {1: 1, 2: 3, 3: 2}


def same_names(x: str, y: str) -> bool:
    return x == y


def test_numbers_are_evaluated_not_wildcards():
    """Swapping the two options maps ``x = 1`` onto ``x = 2``: an automorphism of the texts only
    if the generator renames 1 to 2 (before, any number stood for any other and it passed)."""
    why = automorphism(CHOICE, CHOICE, dict(SWAP), {}, same_names)
    assert why is not None and "'x = 1'" in why
    renamed = {(1, 2), (2, 1)}
    assert automorphism(CHOICE, CHOICE, dict(SWAP), {}, same_names, numbers=lambda x, y: (x, y) in renamed) is None
    # a renaming of other numbers does not do
    assert automorphism(CHOICE, CHOICE, dict(SWAP), {}, same_names, numbers=lambda x, y: (x, y) == (1, 2)) is not None


def test_numbers_compared_by_value():
    """``01`` and ``1`` are one number (compared by value, not as text)."""
    a = PanAutomaton("p", 1, (PanEdge(1, 2, 3, 4, "x = 01", "---L"), PanEdge(2, 1, 4, 5, "skip", "---L")))
    b = PanAutomaton("p", 1, (PanEdge(1, 2, 3, 4, "x = 1", "---L"), PanEdge(2, 1, 4, 5, "skip", "---L")))
    assert automorphism(a, b, {1: 1, 2: 2}, {}, same_names) is None
    c = PanAutomaton("p", 1, (PanEdge(1, 2, 3, 4, "x = 10", "---L"), PanEdge(2, 1, 4, 5, "skip", "---L")))
    assert automorphism(a, c, {1: 1, 2: 2}, {}, same_names) is not None


def test_the_identity_with_equal_numbers_passes():
    assert automorphism(CHOICE, CHOICE, {1: 1, 2: 2, 3: 3}, {}, same_names) is None


#: -o3's automaton of ``do :: k < 2 -> k++ :: k == 2 -> k = 0 od`` and pan's with statement
#: merging, where ``k == 2`` and ``k = 0`` are one transition (state 5 passed over)
PLAIN = PanAutomaton("p", 6, (
    PanEdge(6, 2, 11, 9, "((k<2))", "----L", (), 0),
    PanEdge(2, 6, 12, 9, "k = (k+1)", "----L", (), 1),
    PanEdge(6, 5, 14, 10, "((k==2))", "----L", (), 3),
    PanEdge(5, 6, 15, 10, "k = 0", "----L", (), 4),
))
MERGED = PanAutomaton("p", 6, (
    PanEdge(6, 2, 13, 9, "((k<2))", "----L", (), 0),
    PanEdge(2, 6, 14, 9, "k = (k+1)", "----L", (), 1),
    PanEdge(6, 6, 16, 10, "((k==2))", "----L", (), 3),
))


def test_merged_transitions_are_chains_of_o3s():
    """pan numbers states alike with and without merging: each merged transition is the chain
    of -o3's from the same statement (transition numbers differ, statement ids do not)."""
    from detect.export.panmap import same_numbering

    assert same_numbering(MERGED, PLAIN) is None
    assert MERGED.states() == PLAIN.states() - {5}


def test_a_merged_automaton_numbered_otherwise_is_told():
    from detect.export.panmap import same_numbering

    wrong_target = PanAutomaton("p", 6, MERGED.edges[:2] + (PanEdge(6, 2, 16, 10, "((k==2))", "----L", (), 3),))
    assert "no chain" in same_numbering(wrong_target, PLAIN)
    other_statement = PanAutomaton("p", 6, MERGED.edges[:2] + (PanEdge(6, 6, 16, 10, "((k==2))", "----L", (), 7),))
    assert "starts no transition" in same_numbering(other_statement, PLAIN)
    assert "start state" in same_numbering(PanAutomaton("p", 2, MERGED.edges), PLAIN)


def test_the_states_merging_passes_over():
    """The merged chain ``k == 2; k = 0`` passes over state 5; a state merging passes over that
    another transition enters (hajek's station: an ``else`` into the chain's middle) stays a
    state of the merged automaton, which ``export.spin.merged_pcs`` refuses to count."""
    from detect.export.panmap import passed_over

    assert passed_over(MERGED, PLAIN) == {5}
    entered = PanAutomaton("p", 6, PLAIN.edges + (PanEdge(2, 5, 20, 11, "else", "----L", (), 9),))
    merged = PanAutomaton("p", 6, MERGED.edges + (PanEdge(2, 5, 22, 11, "else", "----L", (), 9),
                                                  PanEdge(5, 6, 23, 10, "k = 0", "----L", (), 4)))
    assert passed_over(merged, entered) == {5} and 5 in merged.states()
