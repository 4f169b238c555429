"""Detection's shortcuts give what the long way gives (issue 28: detection of Spin's examples
under 10 CPU s).  Each shortcut reuses work or skips a translation that cannot add anything;
these tests run both ways and compare the results, so none can change a group."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detect.ir import Index, Name
from detect.ir.walk import distinct_subexpressions, fold, may_fault, subexpressions
from detect.symmetry import constraints
from detect.symmetry.constraints import translate
from tests.ir_strategies import ARRAY, ARRAY_SIZE, expressions, models

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT.parent / "shared" / "corpus" / "spin" / "Examples"


def _both_ways(model, monkeypatch):
    """The CSP with the fault-relation shortcut and without."""
    monkeypatch.setattr(constraints, "FAULTS_FROM_STEPS", True)
    fast = translate(model)
    monkeypatch.setattr(constraints, "FAULTS_FROM_STEPS", False)
    return fast, translate(model)


@settings(max_examples=150, deadline=None)
@given(models())
def test_skipped_fault_relations_would_have_been_empty(model):
    """A summand whose steps met no partial operation, and with no assertion, loop or
    faulting guard or label, gets no fault relation: translating it anyway adds nothing."""
    with pytest.MonkeyPatch.context() as mp:
        try:
            fast, slow = _both_ways(model, mp)
        except constraints.TableTooLarge:
            return
    assert fast == slow


@settings(max_examples=200, deadline=None)
@given(st.lists(expressions(("l",), 3), min_size=1, max_size=6), st.data())
def test_walks_over_shared_parts_equal_the_tree_walks(roots, data):
    """``fold`` and ``distinct_subexpressions`` see each node object once; their answers are
    the per-tree walks' (expressions built from shared parts as the front ends build them)."""
    from detect.ir import Binary

    # share parts: later roots reuse earlier ones as operands
    for k in range(1, len(roots)):
        other = roots[data.draw(st.integers(0, k - 1))]
        roots[k] = Binary("+", roots[k], other)
    sizes = {ARRAY: ARRAY_SIZE}
    memo: dict = {}
    reads_memo: dict = {}

    def reads(x, below):
        own = {(True, x.array)} if isinstance(x, Index) else {(False, x.name)} if isinstance(x, Name) else set()
        return frozenset(own.union(*below))

    seen: dict = {}
    distinct = []
    for e in roots:
        assert may_fault(e, sizes, memo) == may_fault(e, sizes)
        walked = {(True, x.array) if isinstance(x, Index) else (False, x.name)
                  for x in subexpressions(e) if isinstance(x, (Index, Name))}
        assert fold(e, reads, reads_memo) == walked
        distinct += list(distinct_subexpressions(e, seen))
    every = {id(x): x for e in roots for x in subexpressions(e)}
    assert sorted(map(id, distinct)) == sorted(every)


def _spin_model(rel: str, defines: dict | None = None):
    import re

    from detect.transform.narrowing import narrow
    from frontends.promela import parse_text

    path = EXAMPLES / rel
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared corpus)")
    text = path.read_text()
    for k, v in (defines or {}).items():
        text = re.sub(rf"^#define\s+{k}\b.*$", f"#define {k} {v}", text, flags=re.M)
    return narrow(parse_text(text, str(path), None, None, ltl_name=""))


def test_leader_trace_csp_is_the_same_without_the_shortcut(monkeypatch):
    """Spin's leader_trace.pml: 533 summands, some of them skipped; the same CSP."""
    model = _spin_model("leader_trace.pml")
    monkeypatch.setattr(constraints, "SHARE_SUMMANDS", False)  # (each summand translated: calls counted)
    calls = []
    original = constraints._Builder.fault_relations
    monkeypatch.setattr(constraints._Builder, "fault_relations",
                        lambda self, i, s: calls.append(i) or original(self, i, s))
    fast, slow = _both_ways(model, monkeypatch)
    assert fast == slow
    skipped = 2 * len(model.summands) - len(calls)  # (the slow run translates every one)
    assert 0 < skipped < len(model.summands)


# ---------------------------------------------------------------- the slow Spin examples
# What detection finds on the files whose detection took over 10 CPU s (results/spin_examples.md):
# the group order and the CSP's and graph's sizes, pinned as they were before the speed-ups
# (results/detection_perf.md has the times; none is asserted here).
PINNED = [
    # file, defines, group order, CSP variables, constraints, graph nodes, edges, narrowing counts
    ("dtp.pml", None, 1, 7880, 8582, 219973, 613077, (589_223, 986_280, 0)),
    # (smaller since the pid analysis gives each run its own pids: 5 process slots, not 20)
    ("LTL/mobile2.pml", None, 1, 4451, 5150, 44897, 92411, None),
    ("LTL/leader.pml", {"N": 3, "L": 6}, 1, 40428, 48707, 617819, 1445258, None),
]


@pytest.mark.slow
@pytest.mark.parametrize("rel,defines,order,variables,constraints_,nodes,edges,narrowed", PINNED)
def test_slow_spin_examples_keep_their_group(rel, defines, order, variables, constraints_, nodes, edges,
                                             narrowed):
    from detect.symmetry.pipeline import detect
    from detect.transform.reachable import counts

    model = _spin_model(rel, defines)
    d = detect(model, domain_states=1_000_000)
    assert (d.group.order, len(d.csp.variables), len(d.csp.constraints), d.graph.n, len(d.graph.edges)) == (
        order, variables, constraints_, nodes, edges)
    if narrowed is not None:
        assert (d.domains.states, d.domains.transitions, d.domains.faults) == narrowed


@pytest.mark.parametrize("n", [0, 10, 150_000])
def test_edges_decode_as_before(n):
    """The graph's edge codes u * 2^32 + v come back as the sorted (u, v) pairs, through
    numpy on large graphs and Python on small ones."""
    import random

    from detect.symmetry.graph import _decoded

    rng = random.Random(n)
    codes = {(rng.randrange(1 << 20) << 32) | rng.randrange(1 << 32) for _ in range(n)}
    assert _decoded(codes) == tuple((c >> 32, c & 0xFFFFFFFF) for c in sorted(codes))


# ---------------------------------------------------------------- shared translations
# A summand that is an earlier one with state variables renamed, and a large guard conjunct
# translated before (the atomic-turn condition every Promela guard carries), reuse the
# earlier translation renamed (``constraints._Sharing``, ``_Builder.recorded``): the CSP must
# be the one the summand-by-summand translation gives, texts and variable numbers included.


def _shared_and_long(model, monkeypatch):
    """The CSP with the shared translations and without, and how many were replayed."""
    replays = []
    for cls, name in ((constraints._Sharing, "_replay"), (constraints._Builder, "_replay_conjunct")):
        original = getattr(cls, name)
        monkeypatch.setattr(cls, name, lambda self, *a, _o=original, _n=name: replays.append(_n) or _o(self, *a))
    monkeypatch.setattr(constraints, "SHARE_SUMMANDS", True)
    fast = translate(model)
    monkeypatch.setattr(constraints, "SHARE_SUMMANDS", False)
    count = len(replays)
    slow = translate(model)
    assert len(replays) == count  # (the long way replays nothing)
    return fast, slow, replays


@pytest.mark.parametrize("make", ["dynamic", "spawning", "model"])
def test_shared_translations_are_the_long_way_s(make, monkeypatch):
    """Random Promela with several instances of a proctype (run at run time, given channels,
    in atomic sequences): the same CSP either way, and some translations were replayed."""
    _shared_is_long_way(make, range(6), monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("make", ["dynamic", "spawning", "model"])
def test_more_shared_translations_are_the_long_way(make, monkeypatch):
    _shared_is_long_way(make, range(6, 12), monkeypatch)


def _shared_is_long_way(make, seeds, monkeypatch):
    from detect.errors import InputError
    from detect.transform.narrowing import narrow
    from frontends.promela import parse_text
    from tests import promela_gen

    kinds = set()
    for seed in seeds:
        try:
            model = narrow(parse_text(getattr(promela_gen, make)(seed), "m.pml"))
        except InputError:
            continue
        try:
            fast, slow, replays = _shared_and_long(model, monkeypatch)
        except constraints.TableTooLarge:
            continue
        assert fast == slow, seed
        kinds.update(replays)
    assert kinds, "nothing was replayed: the test would not see a wrong replay"


@pytest.mark.parametrize("rel,kind", [("leader_trace.pml", "_replay"), ("Book_1991/p319.pml", "_replay_conjunct")])
def test_spin_examples_shared_translations_are_the_long_way(rel, kind, monkeypatch):
    """Spin's leader_trace.pml (7 instances of one proctype: summands replayed renamed) and
    p319.pml (guards sharing a large conjunct: conjuncts replayed): the CSP is the
    summand-by-summand one."""
    fast, slow, replays = _shared_and_long(_spin_model(rel), monkeypatch)
    assert fast == slow
    assert kind in replays
