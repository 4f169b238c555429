"""CSP# LTL assertions (issue 30, CSP# part): ``#assert P() |= F`` checked, with PAT's LTL
syntax over events ("the event just performed") and ``#define`` conditions, no fairness, a
deadlocked run stuttering on its last configuration (``detect.checking.temporal``).

The translator (``detect.checking.buchi``, GPVW) is compared with the definition of LTL on
random lasso words and with Spin's ``spin -f`` (X-free formulas: Spin as installed refuses
X); ``results/ltl_translator.py`` runs thousands.  Verdicts of the dining philosophers are
derived by hand (below); the verdict reduced by the propositions' stabiliser equals the
unreduced one.
"""
from __future__ import annotations

import itertools
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detect.checking.buchi import accepts_lasso, holds_on_lasso, spin_buchi, translate
from detect.checking.temporal import check_temporal
from detect.transform.load import load_model

ROOT = Path(__file__).resolve().parent.parent
DINING = ROOT / "models" / "dining_philosophers_ltl.csp"


def cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SYMDETECT_MODEL_CACHE="off")
    return subprocess.run([sys.executable, "-m", "detect.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)


# ---------------------------------------------------------------- the translator

def random_formula(rng: random.Random, depth: int, props: int = 2, nxt: bool = True) -> tuple:
    if depth == 0 or rng.random() < 0.25:
        r = rng.random()
        return ("true",) if r < 0.06 else ("false",) if r < 0.1 else ("ap", rng.randrange(props))
    op = rng.choice(["!", "&&", "||", "->", "<->", "U", "R", "[]", "<>"] + (["X"] if nxt else []))
    if op in ("!", "X", "[]", "<>"):
        return (op, random_formula(rng, depth - 1, props, nxt))
    return (op, random_formula(rng, depth - 1, props, nxt), random_formula(rng, depth - 1, props, nxt))


def random_lasso(rng: random.Random, props: int = 2) -> tuple[list, int]:
    n = rng.randint(1, 6)
    return [frozenset(p for p in range(props) if rng.random() < 0.5) for _ in range(n)], rng.randrange(n)


@pytest.mark.parametrize("seed", range(6))
def test_translator_agrees_with_the_definition(seed):
    """50 random formulas (with X) per seed, 12 random lassos each: accepted iff satisfied."""
    rng = random.Random(seed)
    for _ in range(50):
        f = random_formula(rng, 4)
        aut = translate(f)
        for _ in range(12):
            word, loop = random_lasso(rng)
            assert accepts_lasso(aut, word, loop) == holds_on_lasso(f, word, loop), (f, word, loop)


@pytest.mark.skipif(shutil.which("spin") is None, reason="spin is not installed")
def test_translator_agrees_with_spin():
    """X-free formulas: our automaton and Spin's accept the same random lassos."""
    rng = random.Random(30)
    compared = 0
    for _ in range(60):
        f = random_formula(rng, 4, nxt=False)
        theirs = spin_buchi(f)
        assert theirs is not None, f
        ours = translate(f)
        for _ in range(12):
            word, loop = random_lasso(rng)
            assert accepts_lasso(ours, word, loop) == accepts_lasso(theirs, word, loop), (f, word, loop)
            compared += 1
    assert compared == 720


def test_x_is_refused_by_this_spin_or_agrees():
    """Why the translator is ours: Spin's answer on X, whatever it is, never disagrees."""
    f = ("[]", ("->", ("ap", 0), ("X", ("ap", 1))))
    theirs = spin_buchi(f)
    if theirs is not None:
        for word, loop in [([frozenset({0}), frozenset()], 0), ([frozenset({0}), frozenset({1})], 0)]:
            assert accepts_lasso(theirs, word, loop) == accepts_lasso(translate(f), word, loop)


# ---------------------------------------------------------------- dining philosophers

#: Hand-derived (no fairness; a deadlock stutters on the last configuration):
#: ``[]<> anyone``: College() deadlocks (nobody eats in the stutter); Seated() cannot deadlock
#: and every philosopher's cycle has an eat, so some philosopher eats infinitely often.
#: ``[] neighbours``: neighbours share a fork, so never eat together, in both.
#: ``[]<> eat.0``: philosopher 0 may never be scheduled (no fairness), in both.
#: ``[] (eat.0 -> <> put.0.0)``: for N = 3, once 0 eats (holding forks 0 and 1), 1 and 2 block
#: and 0 must put fork 0 down; for N >= 4 philosopher 2 can eat forever meanwhile.


def expected(process: str, formula: str, n: int) -> bool:
    """Whether the formula holds (the comment above)."""
    if formula == "[]<> anyone":
        return process == "Seated()"
    if formula == "[] neighbours":
        return True
    if formula == "[]<> eat.0":
        return False
    if formula == "[] (eat.0 -> <> put.0.0)":
        return n == 3
    raise KeyError(formula)


FORMULAS = ("[]<> anyone", "[] neighbours", "[]<> eat.0", "[] (eat.0 -> <> put.0.0)")


def load(n: int, process: str):
    return load_model(str(DINING), {"N": n}, process)


def verdicts(model, reduce: bool) -> dict[str, tuple[bool, int]]:
    out = {}
    for a in model.assertions:
        if a.about or a.kind != "ltl":
            continue
        formula = a.text.split("|=")[1].strip().rstrip(";").strip()
        check = check_temporal(model, a.temporal, reduce)
        assert check.found is not None
        out[formula] = (not check.found, check.group_order)
    return out


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("process", ["College()", "Seated()"])
def test_dining_philosophers_verdicts(n, process):
    """Every formula's verdict as derived by hand; with reduction the same, and the group
    used is the whole rotation group C_N for the symmetric formulas, trivial for those
    naming philosopher 0 (a rotation fixing philosopher 0 is the identity)."""
    model = load(n, process)
    reduced = verdicts(model, True)
    assert set(reduced) == set(FORMULAS)
    for formula, (holds, order) in reduced.items():
        assert holds == expected(process, formula, n), (formula, n, process)
        assert order == (1 if "eat.0" in formula else n), (formula, order)
    if n < 5:
        plain = verdicts(model, False)
        assert {f: h for f, (h, _) in plain.items()} == {f: h for f, (h, _) in reduced.items()}


#: N interchangeable clients of one lock: S_N; naming client 0 leaves S_{N-1}.
CLIENTS = """\
#define N 3;
var owner = N;
#define free owner == N;
Client(i) = [owner == N] enter.i{owner = i} -> leave.i{owner = N} -> Client(i);
System() = |||i:{0..N-1}@Client(i);
#assert System() |= []<> free;
#assert System() |= []<> enter.0;
#assert System() |= [] (enter.0 -> (!enter.1 U leave.0));
"""


def test_stabiliser_of_a_named_client(tmp_path):
    """S_3 on clients; the formula naming client 0 is reduced by S_2 on clients 1, 2, the one
    naming 0 and 1 by the identity; verdicts equal the unreduced ones, and explore says which
    group it used and why."""
    path = tmp_path / "clients.csp"
    path.write_text(CLIENTS)
    model = load_model(str(path))
    orders, holds = [], []
    for a in model.assertions:
        r = check_temporal(model, a.temporal, True)
        u = check_temporal(model, a.temporal, False)
        assert r.found == u.found
        orders.append(r.group_order)
        holds.append(not r.found)
    assert orders == [6, 2, 1]
    assert holds == [True, False, True]
    run = cli("explore", str(path), "--reduce", "exact", "--no-trace")
    assert run.returncode == 1, run.stderr
    assert "fixed only by a subgroup of order 2" in run.stdout
    assert "reduction uses the whole group" in run.stdout


LASSO = """\
var x = 0;
#define goal x == 2;
P() = a{x = (x + 1) % 3} -> b -> P() [] c -> Stop;
#assert P() |= []<> a;
#assert P() |= [](a -> X b);
"""


def test_counterexample_is_a_lasso_in_events(tmp_path):
    """``[]<> a`` fails by c then the deadlock's stutter; the trace names the events and
    where the cycle starts; ``[](a -> X b)`` holds; exit 1 (a property fails), none left
    unchecked (before: both 'not checked', exit 3)."""
    path = tmp_path / "lasso.csp"
    path.write_text(LASSO)
    run = cli("explore", str(path))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "|= []<> a;: fails" in run.stdout
    assert "|= [](a -> X b);: holds" in run.stdout
    assert "the cycle starts here" in run.stdout
    assert "c -> Stop" in run.stdout
    model = load_model(str(path))
    check = check_temporal(model, model.assertions[0].temporal)
    assert [t.event for t in check.trace][:2] == [None, "c"]
    assert check.loop_from is not None and check.trace[check.loop_from].state == check.trace[-1].state


def test_issue_reproducer_is_checked(tmp_path):
    """The issue's ``#assert System() |= []<> eat.0;`` on dining philosophers is no longer
    'not checked' (exit 3): it fails (no fairness), exit 1."""
    text = (ROOT / "models" / "dining_philosophers.csp").read_text().replace(
        "#assert College() deadlockfree;", "#assert College() |= []<> eat.0;")
    path = tmp_path / "dp.csp"
    path.write_text(text)
    run = cli("explore", str(path), "--no-trace")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "not checked" not in run.stdout


@pytest.mark.parametrize("formula, where, message", [
    ("[] (a &&)", 24, "expected an operand"),
    ("[] (a", 21, "expected ')'"),
    ("[] x", 19, "'x' is a variable"),
    ("<> a $ b", 21, "unexpected character"),
])
def test_bad_formula_is_one_located_line(tmp_path, formula, where, message):
    path = tmp_path / "bad.csp"
    path.write_text(f"var x = 0;\nP() = a -> P();\n#assert P() |= {formula};\n")
    run = cli("explore", str(path))
    assert run.returncode == 2, run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr
    assert f"bad.csp:3:{where}:" in lines[0], lines[0]


# ---------------------------------------------------------------- random models, both ways

def random_model(rng: random.Random) -> tuple[str, str]:
    """A random CSP# model (one or two interleaved sequential processes over events a, b, c
    and a counter x) with ``#define p x == 1;``, and a random formula over a, b, c, p."""
    lines = ["var x : {0..2} = 0;", "#define p x == 1;"]
    procs = []
    for name in ("S", "T")[:rng.randint(1, 2)]:
        k = rng.randint(1, 3)
        for i in range(k):
            options = []
            for _ in range(rng.randint(0, 2)):
                event = rng.choice("abc")
                prog = rng.choice(["", "{x = (x + 1) % 3}", "{x = 0}"])
                options.append(f"{event}{prog} -> {name}{rng.randrange(k)}()")
            if rng.random() < 0.2:
                options.append(rng.choice(["Stop", "Skip"]))
            lines.append(f"{name}{i}() = {' [] '.join(options) or 'Stop'};")
        procs.append(f"{name}0()")
    lines.append(f"System() = {' ||| '.join(procs)};")
    names = ["a", "b", "c", "p"]

    def text(f) -> str:
        op = f[0]
        if op == "ap":
            return names[f[1]]
        if op in ("true", "false"):
            return op
        if op in ("!", "X", "[]", "<>"):
            return f"{op}({text(f[1])})"
        return f"({text(f[1])} {op} {text(f[2])})"

    formula = text(random_formula(rng, 3, props=4))
    lines.append(f"#assert System() |= {formula};")
    return "\n".join(lines) + "\n", formula


def letters_of(prop, trace) -> list[frozenset]:
    """The letter of each configuration of a trace: the event of the step into it (a stutter
    repeats the letter before), and ``p`` read from the state (x is slot 0)."""
    out = []
    for step in trace:
        if step.event is not None and step.event.startswith("(no step enabled"):
            out.append(out[-1])
            continue
        letter = set()
        for k, q in enumerate(prop.propositions):
            if q.condition is not None:
                if step.state[0] == 1:
                    letter.add(k)
            elif step.event == q.text:
                letter.add(k)
        out.append(frozenset(letter))
    return out


#: Every letter over the four propositions a, b, c, p (PAT's automata, like ours, treat
#: them as independent), and the continuations used to judge finite runs: a prefix of at
#: most two letters, then one letter forever.
LETTERS = [frozenset(k for k in range(4) if bits >> k & 1) for bits in range(16)]
ENDINGS = [(list(v), x) for n in range(3) for v in itertools.product(LETTERS, repeat=n) for x in LETTERS]


def satisfying_ending(formula, word) -> bool:
    """Whether some continuation in ``ENDINGS`` makes the finite ``word`` satisfy ``formula``."""
    return any(holds_on_lasso(formula, word + v + [x], len(word) + len(v)) for v, x in ENDINGS)


def violating_ending(formula, word) -> bool:
    return any(not holds_on_lasso(formula, word + v + [x], len(word) + len(v)) for v, x in ENDINGS)


@pytest.mark.parametrize("seed", range(80))
def test_random_models_counterexamples_and_holding_verdicts(tmp_path, seed):
    """Each verdict checked against LTL's definition, with finite (deadlocked) runs judged as
    PAT's algorithm for the formula judges them (``pat_mode``): a failed check's lasso
    violates the formula; its finite counterexample is a bad prefix (safety: no continuation
    satisfies) or not a good one (co-safety: one violates); a holding check has no violating
    lasso among the state graph's runs of up to 6 configurations, and none of its finite
    runs is bad (safety) or not good (co-safety).  Reduced verdicts equal unreduced ones."""
    from detect.checking.temporal import CO_SAFETY, SAFETY, STUTTER, augmented, pat_mode
    from detect.ir.model import slot_offsets
    from detect.statespace.compile import compile_model

    rng = random.Random(seed)
    text, formula = random_model(rng)
    path = tmp_path / "r.csp"
    path.write_text(text)
    model = load_model(str(path))
    prop = model.assertions[0].temporal
    f = prop.formula
    mode = pat_mode(f)
    check = check_temporal(model, prop)
    assert check.found == check_temporal(model, prop, True).found, text
    if check.found:
        word = letters_of(prop, check.trace)
        if check.loop_from is not None:
            assert not holds_on_lasso(f, word[:-1], check.loop_from), (text, check.trace)
        elif mode == SAFETY:
            assert not satisfying_ending(f, word), (text, check.trace)
        else:
            assert mode == CO_SAFETY and violating_ending(f, word), (text, check.trace)
        return
    aug = augmented(model, prop)
    compiled = compile_model(aug)
    offsets = slot_offsets(aug)
    slots = [offsets[f"__ltl_{k}"] for k in range(len(prop.propositions))]

    def letter(s):
        return frozenset(k for k, at in enumerate(slots) if s[at])

    stack = [[s] for s in compiled.initial_states()]
    while stack:
        run = stack.pop()
        for j, s in enumerate(run[:-1]):
            if s == run[-1]:
                word = [letter(x) for x in run[:-1]]
                assert holds_on_lasso(f, word, j), (text, run)
        successors = [t for t in compiled.successors(run[-1]) if t is not None]
        if not successors:
            word = [letter(x) for x in run]
            if mode == STUTTER:
                assert holds_on_lasso(f, word, len(word) - 1), (text, run)
            elif mode == SAFETY:
                assert satisfying_ending(f, word), (text, run)
            else:
                assert not violating_ending(f, word), (text, run)
        elif len(run) < 7:
            stack.extend(run + [t] for t in successors)


def holding(path, reduce: bool = False) -> list[bool]:
    """Whether each LTL assertion of the file holds (``check_temporal``, no bound reached)."""
    model = load_model(str(path))
    out = []
    for a in model.assertions:
        check = check_temporal(model, a.temporal, reduce)
        assert check.found is not None
        out.append(not check.found)
    return out


STAR = """\
var x : {0..1} = *;
#define p x == 1;
P() = a{x = 1 - x} -> P();
#assert P() |= [] p;
#assert P() |= p || X p;
#assert P() |= [](p -> X !p);
#assert P() |= <> p;
#assert P() |= !p;
"""


def test_a_state_proposition_the_initial_states_disagree_on_is_checked(tmp_path):
    """``var x : {0..1} = *;`` with ``#define p x == 1``: the two initial states give p
    different values (before: 'not checked', exit 3).  By hand: x = 0 or 1, then ``a``
    toggles it forever: ``[] p`` fails (x = 0 first), ``p || X p`` holds (one of the first
    two states has x = 1), ``[](p -> X !p)`` holds, ``<> p`` holds, ``!p`` fails (x = 1
    first).  Reduced verdicts are the same; explore exits 1."""
    path = tmp_path / "star.csp"
    path.write_text(STAR)
    assert holding(path) == [False, True, True, True, False]
    assert holding(path, True) == [False, True, True, True, False]
    run = cli("explore", str(path), "--no-trace")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "not checked" not in run.stdout


TERMINATION = """\
P() = a -> Skip;
#assert P() |= <> terminate;
#assert P() |= []<> a;
#assert P() |= [](a -> X terminate);
#assert P() |= [](terminate -> [] terminate);
#assert P() |= init && X(a && X(terminate));
#assert P() |= X init;
"""


def test_termination_is_the_event_terminate(tmp_path):
    """PAT's ``Skip`` terminates by the event ``terminate`` into ``Stop`` (``Skip.MoveOneStep``:
    ``new Configuration(new Stop(), Constants.TERMINATION, ...)``; ``TERMINATION =
    "terminate"``), and the initial configuration carries the event ``init``.  So ``a ->
    Skip`` is the word init, a, terminate, terminate, ...: ``<> terminate`` holds,
    ``[]<> a`` fails (before: held, the run stuttering on a), ``[](a -> X terminate)``
    holds, ``[](terminate -> [] terminate)`` holds, ``init && X(a && X terminate)`` holds,
    ``X init`` fails."""
    path = tmp_path / "term.csp"
    path.write_text(TERMINATION)
    assert holding(path) == [True, False, True, True, True, False]
    model = load_model(str(path))
    check = check_temporal(model, model.assertions[1].temporal)
    assert [t.event for t in check.trace][:3] == [None, "a", "terminate"]


@pytest.mark.parametrize("system, verdicts", [
    ("a -> Stop", [False, True]),                        # a deadlock is no termination
    ("(a -> Skip) ||| (b -> Skip)", [True, True]),       # both end, then one 'terminate'
    ("(a -> Skip); (b -> Skip)", [True, True]),          # Skip; Q goes on with Q: b, then terminate
    ("(a -> Skip) [] (b -> Stop)", [False, False]),      # a terminates without b; b deadlocks
])
def test_termination_in_compositions(tmp_path, system, verdicts):
    """By hand per system (the comment of each case): ``<> terminate``, then "no
    termination before b" (``[] !terminate || (!terminate U b)``); ``[](terminate -> X
    terminate)`` holds in each."""
    path = tmp_path / "t.csp"
    path.write_text(f"P() = {system};\n#assert P() |= <> terminate;\n"
                    f"#assert P() |= [] !terminate || (!terminate U b);\n"
                    f"#assert P() |= [](terminate -> X terminate);\n")
    assert holding(path) == verdicts + [True]


CHANNELS = """\
channel c 1;
channel d 0;
channel e[2] 1;
P() = c!1 -> c!2 -> P();
Q() = c?x -> Q();
R() = d!1 -> d!2 -> R();
S() = d?y -> S();
T() = e[1]!3 -> e[1]?z -> T();
Buffered() = P() ||| Q();
Sync() = R() ||| S();
Array() = T();
#assert Buffered() |= []<> c!1;
#assert Buffered() |= [](c!1 -> X c?1);
#assert Buffered() |= [](c?1 -> X c!2);
#assert Buffered() |= <> c!3;
#assert Sync() |= []<> d.2;
#assert Sync() |= <> d!1;
#assert Array() |= []<> "e[1]!3";
#assert Array() |= [] ("e[1]!3" -> X "e[1]?3");
"""


def test_channel_events_in_formulas(tmp_path):
    """PAT's event strings (``ChannelOutput.MoveOneStep``/``SyncOutput``): a buffered send is
    ``c!1``, a receive ``c?1``, a synchronous hand-shake ``d.1``; an element of a channel
    array ``e[1]!3`` (quoted in a formula: PAT's lexer does not read '[').  By hand: c
    holds one message, so P and Q alternate c!1 c?1 c!2 c?2 ...: ``[]<> c!1``,
    ``[](c!1 -> X c?1)``, ``[](c?1 -> X c!2)`` hold, ``<> c!3`` fails; on the synchronous d
    the events are d.1, d.2: ``[]<> d.2`` holds and ``<> d!1`` fails (no event is 'd!1', as
    in PAT); T alternates e[1]!3, e[1]?3: both hold."""
    path = tmp_path / "ch.csp"
    path.write_text(CHANNELS)
    model = load_model(str(path))
    out = []
    for a in model.assertions:
        process = a.about or None
        m = load_model(str(path), {}, process) if process else model
        target = next(x for x in m.assertions if x.text == a.text)
        check = check_temporal(m, target.temporal)
        assert check.found is not None
        out.append(not check.found)
    assert out == [True, True, True, False, True, False, True, True]


@pytest.mark.parametrize("formula, message", [
    ("[] X!a", "PAT reads 'X!a' as one name"),
    ("[] c[1]!3", "unexpected character '['"),
    ("[] c!y", "argument 'y' is not a number or a constant"),
])
def test_bad_channel_operands_are_located(tmp_path, formula, message):
    path = tmp_path / "bad.csp"
    path.write_text(f"channel c 1;\nP() = c!1 -> P();\n#assert P() |= {formula};\n")
    run = cli("explore", str(path))
    assert run.returncode == 2, run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "bad.csp:3:" in lines[0], run.stderr


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6))
def test_init_and_terminate_hold_where_pat_puts_them(tmp_path, seed):
    """On random models (``random_model``, with ``Skip`` and ``Stop``): ``init`` holds at the
    first configuration only (or forever, when that one is a deadlock and stutters), a
    termination is final (``[](terminate -> X [] terminate)``) and no other event."""
    text, _ = random_model(random.Random(seed))
    head = text.rsplit("#assert", 1)[0]
    path = tmp_path / f"r{seed}.csp"
    path.write_text(head + "#assert System() |= init && (X [] !init || [] init);\n"
                    "#assert System() |= [](terminate -> X [] terminate);\n"
                    "#assert System() |= [](terminate -> (!a && !b && !c));\n")
    assert holding(path) == [True, True, True]


def test_termination_resolves_a_choice(tmp_path):
    """``b -> P() [] Skip``: PAT offers b and terminate; after terminate the process is Stop.
    By hand: ``<> terminate`` fails (b forever), ``[](terminate -> [] !b)`` holds (nothing
    moves after termination), ``[](b -> X (b || terminate))`` holds."""
    path = tmp_path / "choice.csp"
    path.write_text("P() = b -> P() [] Skip;\n#assert P() |= <> terminate;\n"
                    "#assert P() |= [](terminate -> [] !b);\n#assert P() |= [](b -> X (b || terminate));\n")
    assert holding(path) == [False, True, True]


DEADLOCK = """\
P() = a -> Stop;
#assert P() |= [](a -> X b);
#assert P() |= [](a -> X a);
#assert P() |= <>(a && X a);
#assert P() |= <> b;
#assert P() |= []<> a;
#assert P() |= [](a -> <> b);
"""


def test_a_deadlock_as_pats_three_algorithms_judge_it(tmp_path):
    """``a -> Stop`` is the finite run init, a.  PAT picks its algorithm by the formula
    (``pat_mode``), and each judges the deadlock its own way (PAT.Common's
    ``AssertionLTLSafety``, ``RunVerificationNegate``, ``TarjanModelChecking``):

    * syntactically safe (no until in the negation normal form): a counterexample is a bad
      prefix, and (init, a) is none: ``[](a -> X b)`` and ``[](a -> X a)`` hold (Spin's
      stuttering would fail the first);
    * negation syntactically safe: the deadlock is a counterexample unless the run is a good
      prefix: ``<>(a && X a)`` fails (stuttering would hold), ``<> b`` fails;
    * otherwise the product state at the deadlock decides; for ``[]<> a`` the negation's
      automaton (``<>[] !a``) is in no accepting state after reading a: holds, as a
      stuttering a; for ``[](a -> <> b)`` it is (``<>(a && [] !b)``): fails, as stuttering."""
    from detect.checking.temporal import CO_SAFETY, SAFETY, STUTTER, pat_mode

    path = tmp_path / "dl.csp"
    path.write_text(DEADLOCK)
    model = load_model(str(path))
    assert [pat_mode(a.temporal.formula) for a in model.assertions] == [
        SAFETY, SAFETY, CO_SAFETY, CO_SAFETY, STUTTER, STUTTER]
    assert holding(path) == [True, True, False, False, True, False]
    assert holding(path, True) == [True, True, False, False, True, False]
    path.write_text(DEADLOCK + "#assert P() |= [] !a;\n")
    run = cli("explore", str(path))
    assert run.returncode == 1, run.stdout + run.stderr
    out = " ".join(run.stdout.replace("\u2502", " ").split())
    assert "|= <>(a && X a);: fails (a run violates the formula (a deadlock before the formula is settled" in out
    assert "|= [] !a;: fails (a run violates the formula (a prefix no continuation satisfies" in out


def test_fixed_dining_philosophers_show_the_stabiliser(tmp_path):
    """The butler version (``Seated()``, deadlock-free), N = 4, explored with reduction: the
    rotation group C_4 keeps ``[]<> anyone`` and ``[] neighbours`` (both hold, reduced by
    order 4), the formulas naming philosopher 0 keep only the identity (both fail, no
    fairness); explore prints which group and why, and exits 1."""
    run = cli("explore", str(DINING), "-D", "N=4", "--process", "Seated()", "--reduce", "exact", "--no-trace")
    assert run.returncode == 1, run.stdout + run.stderr
    out = " ".join(run.stdout.replace("\u2502", " ").split())  # the report's table, unwrapped
    assert "Seated() |= []<> anyone;: holds" in out and "Seated() |= [] neighbours;: holds" in out
    assert "Seated() |= []<> eat.0;: fails" in out
    assert out.count("reduced by the subgroup of order 4 fixing each proposition") == 2
    assert out.count("reduced by the subgroup of order 1 fixing each proposition") == 2
    assert "fixed only by a subgroup of order 1, so reduction uses that subgroup (identity only)" in out


@pytest.mark.parametrize("system, formula", [
    ("a -> Skip", "[]<> a"),         # a lasso through PAT's terminate step, then its stutter
    ("a -> Stop", "[]<> b"),         # a lasso stuttering on a deadlock
    ("a -> Stop", "[] !a"),          # a bad prefix (finite)
    ("a -> Stop", "<>(a && X a)"),   # a deadlock before a good prefix (finite)
])
def test_ltl_counterexamples_print_and_replay(tmp_path, system, formula):
    """``explore --trail`` writes the counterexample (before: the terminate step, which no
    summand of the model takes, crashed the report) and ``replay`` takes it again, the
    terminate and stutter steps included: exit 1 both."""
    path = tmp_path / "m.csp"
    path.write_text(f"P() = {system};\n#assert P() |= {formula};\n")
    trail = tmp_path / "m.trail"
    run = cli("explore", str(path), "--trail", str(trail))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    if system.endswith("Skip"):
        assert "2. terminate" in run.stdout
    again = cli("replay", str(path), str(trail))
    assert again.returncode == 1, again.stdout + again.stderr
    assert "violation reproduced" in again.stdout
