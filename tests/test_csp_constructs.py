"""PAT CSP# constructs as third-party models write them (issue 12).

Each construct is checked on a one-line model against a hand-written equivalent in the
syntax we already had: same number of states, same labelled transitions (per state, the
multiset of outgoing labels), same deadlocks, same assertion verdicts and same detected
group order.  Constructs we do not support are refused by a located error naming them.
"""
from __future__ import annotations

import collections
import warnings

import pytest

from detect.errors import InputError
from detect.ir.semantics import initial_states, steps
from detect.statespace.explore import explore_state_space
from detect.symmetry.pipeline import detect
from detect.transform.load import narrowed
from frontends.csp import load as load_unnarrowed, parse_text as parse_unnarrowed

# The models the CLI analyses: the front end's model with the one narrowing step applied.
load, parse_text = narrowed(load_unnarrowed), narrowed(parse_unnarrowed)


def signature(text: str, path: str = "m.csp"):
    """What two equivalent models share: states, labelled transitions, deadlocks,
    verdicts and group order (state vectors themselves may differ)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = parse_text(text, path)
    seen = {s: None for s in initial_states(model)}
    frontier = list(seen)
    out_labels = []
    transitions = collections.Counter()
    faults = 0
    while frontier:
        nxt = []
        for state in frontier:
            labels = []
            for step in steps(model, state):
                if step.target is None:
                    faults += 1
                    continue
                labels.append(step.event)
                transitions[step.event] += 1
                if step.target not in seen:
                    seen[step.target] = None
                    nxt.append(step.target)
            out_labels.append(tuple(sorted(labels)))
        frontier = nxt
    run = explore_state_space(model, max_states=100_000)
    verdicts = tuple(a.verdict for a in run.assertions)
    return (len(seen), sorted(collections.Counter(out_labels).items()), sorted(transitions.items()),
            len(run.deadlocks), faults, verdicts, detect(model).group.order)


def same(construct: str, by_hand: str, group: bool = True) -> None:
    """``group=False`` when the hand-written model encodes the behaviour differently (events
    for channels): the detected group is a property of how a model is written, so only the
    transition system and the verdicts must agree."""
    a, b = signature(construct), signature(by_hand)
    assert (a if group else a[:-1]) == (b if group else b[:-1])


def refused(text: str, *words: str, path: str = "m.csp") -> InputError:
    with pytest.raises(InputError) as info:
        parse_text(text, path)
    e = info.value
    assert e.line > 0, str(e)
    for w in words:
        assert w in str(e), str(e)
    return e


# ---------------------------------------------------------------------------- parsing


def test_byte_order_mark_is_skipped():
    text = "var x : {0..1} = 0;\nP() = a{x = 1 - x;} -> P();\n"
    same("\ufeff" + text, text)


def test_last_statement_of_a_block_needs_no_semicolon():
    same("var x : {0..2} = 0;\nP() = [x < 2] a{x = x + 1} -> P();\n",
         "var x : {0..2} = 0;\nP() = [x < 2] a{x = x + 1;} -> P();\n")
    same("var x : {0..2} = 0;\nP() = [x < 2] a{if (x == 0) {x = 2} else {x++}} -> P();\n",
         "var x : {0..2} = 0;\nP() = [x < 2] a{if (x == 0) {x = 2;} else {x++;}} -> P();\n")


def test_if_without_braces_in_programs():
    same("var x : {0..2} = 0;\nP() = [x == 0] a{if (x == 0) x = 2; else x = 1;} -> P();\n",
         "var x : {0..2} = 0;\nP() = [x == 0] a{if (x == 0) {x = 2;} else {x = 1;}} -> P();\n")


def test_include_reads_the_file_relative_to_the_including_one(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "defs.csp").write_text('#define N 2;\n#include "more.csp";\n')
    (tmp_path / "lib" / "more.csp").write_text("var x : {0..N} = 0;\n")
    main = tmp_path / "main.csp"
    main.write_text('#include "lib/defs.csp";\nP() = [x < N] a{x++;} -> P();\n')
    inline = "#define N 2;\nvar x : {0..N} = 0;\nP() = [x < N] a{x++;} -> P();\n"
    assert signature(main.read_text(), str(main)) == signature(inline)
    assert load(str(main)).parameters == (("N", 2),)


def test_missing_include_is_located_and_named(tmp_path):
    main = tmp_path / "main.csp"
    main.write_text('var x = 0;\n#include "board1.csp";\nP() = a -> P();\n')
    with pytest.raises(InputError, match=r'#include "board1.csp": no such file') as info:
        load(str(main))
    assert (info.value.path, info.value.line) == (str(main), 2)


def test_an_include_cycle_is_refused(tmp_path):
    (tmp_path / "a.csp").write_text('#include "b.csp";\nP() = a -> P();\n')
    (tmp_path / "b.csp").write_text('#include "a.csp";\n')
    with pytest.raises(InputError, match="includes itself"):
        load(str(tmp_path / "a.csp"))


def test_reaches_with_min_or_max_parses_and_checks_reachability():
    text = "var x : {0..3} = 0;\nP() = [x < 3] a{x++;} -> P();\n#assert P() reaches x == 2 WITH;\n"
    for suffix in (" with min(x)", " with max(x + 1)"):
        same(text.replace(" WITH", suffix), text.replace(" WITH", ""))
    model = parse_text(text.replace(" WITH", " with min(x)"), "m.csp")
    assert model.assertions[0].kind == "reaches" and "with min(x)" in model.assertions[0].text


def test_parameterised_macro_and_interrupt_are_refused_by_name():
    refused("var x = 0;\n#define inc(v) { v = v + 1; };\nP() = a -> P();\n", "parameterised #define macro 'inc")
    refused("P() = a -> P() interrupt b -> Stop;\n", "'interrupt'")
    refused("P() = Q(1) -> a -> Stop;\nQ(x) = b -> Skip;\n", "'Q(...) -> ...'", "not a PAT event prefix")
    refused("P() = a -> skip;\n", "unknown process 'skip'", "PAT writes 'Skip'")


def test_import_is_accepted_and_a_library_call_is_refused_naming_it():
    text = ('#import "PAT.Lib.Set";\nvar x : {0..1} = 0;\n'
            'P() = [call(isCheck, x, 1)] a -> P();\n')
    e = refused(text, "call(isCheck, ...)", '"PAT.Lib.Set"', "cannot be run")
    assert e.line == 3
    same('#import "PAT.Lib.Set";\nP() = a -> P();\n', "P() = a -> P();\n")  # unused: harmless


# ---------------------------------------------------------------------------- expressions and data


def test_quantifiers_over_a_range_unroll():
    same("var w = [1, 1, 0];\nP() = [&& x:{0..2}@(w[x] == 1)] a -> Stop [] [|| x:{0..2}@(w[x] == 0)] b{w[2] = 1} -> P();\n",
         "var w[3] = [1, 1, 0];\nP() = [w[0] == 1 && w[1] == 1 && w[2] == 1] a -> Stop "
         "[] [w[0] == 0 || w[1] == 0 || w[2] == 0] b{w[2] = 1;} -> P();\n")
    # In a #define condition of an assertion, too.
    same("var w[2];\nP() = a{w[0] = 1;} -> b{w[1] = 1;} -> Stop;\n#define all (&& i:{0..1}@(w[i] == 1));\n"
         "#assert P() reaches all;\n",
         "var w[2];\nP() = a{w[0] = 1;} -> b{w[1] = 1;} -> Stop;\n#define all w[0] == 1 && w[1] == 1;\n"
         "#assert P() reaches all;\n")


def test_array_declared_by_its_initialiser():
    same("var b = [0, 1, 0];\nP() = [b[1] == 1] a{b[1] = 0; b[2] = 1;} -> P();\n",
         "var b[3] = [0, 1, 0];\nP() = [b[1] == 1] a{b[1] = 0; b[2] = 1;} -> P();\n")
    same("#define N 3;\nvar s = [0(N)];\nP() = [s[2] == 0] a{s[2] = 1;} -> P();\n",
         "#define N 3;\nvar s[N];\nP() = [s[2] == 0] a{s[2] = 1;} -> P();\n")


def test_local_array_temporaries():
    same("var x : {0..2} = 0;\nP() = [x < 2] a{var t = [1, 2]; x = t[x];} -> P();\n",
         "var x : {0..2} = 0;\nP() = [x < 2] a{if (x == 0) {x = 1;} else {x = 2;}} -> P();\n")
    same("var x : {0..2} = 0;\nP() = [x < 2] a{var t = [0, 0]; t[x] = 2; x = t[0];} -> P();\n",
         "var x : {0..2} = 0;\nP() = [x < 2] a{if (x == 0) {x = 2;} else {x = 0;}} -> P();\n")
    # An index outside the temporary array faults, as in PAT.
    assert signature("var x : {0..3} = 0;\nP() = a{var t = [1, 2, 3]; x = t[x];} -> P();\n")[4] == 1


# ---------------------------------------------------------------------------- events


def test_anonymous_program_block_is_an_invisible_event():
    same("var x : {0..1} = 0;\nP() = {x = 1 - x;} -> a -> P();\n",
         "var x : {0..1} = 0;\nP() = tau{x = 1 - x;} -> a -> P();\n")


def test_matching_input_is_a_guarded_receive():
    same("channel c 0;\nP() = c!0 -> c!1 -> Stop;\nQ() = c?0 -> a -> c?1 -> b -> Stop;\nS() = P() ||| Q();\n",
         "P() = c.0 -> c.1 -> Stop;\nQ() = c.0 -> a -> c.1 -> b -> Stop;\nS() = P() || Q();\n", group=False)
    # A value that does not match blocks the hand-shake.
    same("channel c 0;\nP() = c!0 -> Stop;\nQ() = c?1 -> Stop;\nS() = P() ||| Q();\n",
         "channel c 0;\nP() = c!0 -> Stop;\nQ() = c?[x == 1]x -> Stop;\nS() = P() ||| Q();\n")
    same("channel c 0;\nP() = c!0 -> Stop;\nQ() = c?1 -> Stop;\nS() = P() ||| Q();\n", "S() = Stop;\n", group=False)
    # Constants (enum, #define) match; other names bind.
    same("enum {req, ack};\nchannel c 0;\nP() = c!req.3 -> c!ack.4 -> Stop;\n"
         "Q() = c?ack.v -> done.v -> Stop [] c?req.v -> got.v -> Q();\nS() = P() ||| Q();\n",
         "P() = c.0.3 -> c.1.4 -> Stop;\nQ() = c.1.4 -> done.4 -> Stop [] c.0.3 -> got.3 -> Q();\nS() = P() || Q();\n",
         group=False)


def test_guarded_input_on_sync_and_buffered_channels():
    # Synchronous: only the value the guard accepts hand-shakes.
    same("channel c 0;\nvar y : {0..3} = 0;\nP() = c!1 -> Stop [] c!3 -> Stop;\n"
         "Q() = c?[v > 2]v{y = v;} -> Stop;\nS() = P() ||| Q();\n",
         "var y : {0..3} = 0;\nS() = c.3{y = 3;} -> Stop;\n", group=False)
    # Buffered: the guard is on the value at the head of the buffer.
    same("channel c 2;\nvar y : {0..3} = 0;\nP() = c!3 -> c!1 -> Stop;\n"
         "Q() = c?[v > 2]v{y = v;} -> c?[w < 2]w -> Stop;\nS() = P() ||| Q();\n",
         "channel c 2;\nvar y : {0..3} = 0;\nP() = c!3 -> c!1 -> Stop;\n"
         "Q() = c?v{y = v;} -> c?w -> Stop;\nS() = P() ||| Q();\n",
         group=False)  # unguarded, w is never read: its values are interchangeable there
    same("channel c 2;\nP() = c!1 -> Stop;\nQ() = c?[v > 2]v -> a -> Stop;\nS() = P() ||| Q();\n",
         "channel c 2;\nP() = c!1 -> Stop;\nQ() = Stop;\nS() = P() ||| Q();\n")


def test_hiding_relabels_events_as_tau():
    same("P() = a -> b -> P();\nS() = P() \\ {a};\n", "P() = tau -> b -> P();\nS() = P();\n")
    # Hidden after synchronisation: the hidden event still needs both sides.
    same("P() = a -> b -> P();\nQ() = a -> Q();\nS() = (P() || Q()) \\ {a};\n",
         "P() = tau -> b -> P();\nS() = P();\n")
    # A compound item hides only that event.
    same("P() = a.1 -> a.2 -> P();\nS() = P() \\ {a.1};\n", "P() = tau -> a.2 -> P();\nS() = P();\n")
    refused("P() = a -> (b -> P() \\ {b});\n", "hiding", "sequential process")


def test_replication_is_an_indexed_interleaving():
    same("P() = a -> b -> P();\nS() = |||{3}@P();\n", "P() = a -> b -> P();\nS() = ||| i:{0..2}@P();\n")


# ---------------------------------------------------------------------------- processes


def test_alphabet_declares_what_a_process_synchronises_on():
    # b is declared but never performed by P: Q can never do it.
    same("#alphabet P {a, b};\nP() = a -> c -> P();\nQ() = a -> b -> Q();\nS() = P() || Q();\n",
         "S() = a -> c -> Stop;\n")
    # b is performed by both but P does not declare it: not synchronised.
    same("#alphabet P {a};\nP() = a -> b -> P();\nQ() = b -> Q();\nS() = P() || Q();\n",
         "P() = a -> b -> P();\nQ() = b -> Q();\nS() = P() ||| Q();\n")
    # Ranges and parameters in the declaration.
    same("#alphabet P {i:{0..1}@t.i};\nP(k) = t.k -> P(k);\nQ() = t.0 -> t.1 -> Q();\nS() = P(0) || Q();\n",
         "S() = t.0 -> Stop;\n")


def test_sequential_initialisation_before_a_parallel_system():
    same("var x : {0..1} = 0;\nI() = init{x = 1;} -> Skip;\nP(i) = [x == 1] a.i -> Stop;\n"
         "S() = I(); (P(0) || P(1));\n",
         "var x : {0..1} = 0;\nvar started : {0..1} = 0;\nI() = init{x = 1; started = 1;} -> Skip;\n"
         "P(i) = [started == 1 && x == 1] a.i -> Stop;\nS() = I() ||| P(0) ||| P(1);\n", group=False)
    # P(0) and P(1) stay interchangeable behind the initialisation.
    assert signature("var x : {0..1} = 0;\nI() = init{x = 1;} -> Skip;\nP(i) = [x == 1] a.i -> Stop;\n"
                     "S() = I(); (P(0) || P(1));\n")[-1] == 2


def test_ifa_without_else_and_recursion_behind_guards():
    same("var x : {0..1} = 0;\nP() = ifa (x == 0) { a{x = 1;} -> P() } [] ifa (x == 1) { b{x = 0;} -> P() };\n",
         "var x : {0..1} = 0;\nP() = [x == 0] a{x = 1;} -> P() [] [x == 1] b{x = 0;} -> P();\n")
    same("var x : {0..1} = 0;\nP() = [x == 0] a{x = 1;} -> P() [] Q();\nQ() = [x == 1] b{x = 0;} -> Q() [] [x == 0] P();\n",
         "var x : {0..1} = 0;\nP() = [x == 0] a{x = 1;} -> P() [] [x == 1] b{x = 0;} -> Q();\n"
         "Q() = [x == 1] b{x = 0;} -> Q() [] [x == 0] a{x = 1;} -> P();\n")
    refused("P() = P();\n", "unguarded recursion")


def test_sync_channel_pairs_sends_and_receives_of_equal_arity():
    same("channel c 0;\nP() = c!1 -> c!1.2 -> Stop;\nQ() = c?x.y -> got.x.y -> Stop [] c?z -> one.z -> Q();\n"
         "S() = P() ||| Q();\n",
         "P() = c.1 -> c.1.2 -> Stop;\nQ() = c.1.2 -> got.1.2 -> Stop [] c.1 -> one.1 -> Q();\nS() = P() || Q();\n",
         group=False)
