"""Source-level soundness fuzzing (issue 16): random small Promela, Murphi, CSP# and DVE models,
through the front ends' lowering, must get only sound symmetries.

For each model, in-process through the command line:

* ``analyze --verify``: every generator is an automorphism of the explored transition system
  (exit code 1 would be a refuted generator);
* ``explore --reduce exact``: the number of stored states equals the number of orbits of the
  reachable states under the detected group, counted by brute force (``test_reduce.orbit_count``);
* Promela models: ``explore --reduce pids`` gives the unreduced run's verdicts, faults and
  deadlocks, stores no more states, and refutes none of its symmetries (its per-state checks);
* Promela models, in the slow profile: Spin's count of stored states (``spin_oracle.compare``).

Promela and Murphi models come from ``promela_gen`` (``promela-dynamic``: workers created by
``run``, remote references, labels) and ``murphi_gen``; CSP# and DVE models
(2-3 processes, small arrays, guards, channels, atomic) from the small generators below.
The default run is bounded; ``-m slow`` runs many more seeds.
"""
from __future__ import annotations

import json
import os
import random
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from detect.cli import main

from tests import murphi_gen, promela_gen
from tests.spin_oracle import SpinRefused, compare, spin_available
from tests.test_fuzz_frontends import FuzzFailure
from tests.test_reduce import orbit_count

STATES = 20_000  # larger models are skipped (their orbits are counted by brute force)


# ---------------------------------------------------------------------------- CSP#


def csp_model(seed: int) -> str:
    """A random CSP# family ``P(i)`` of 2-3 processes over small arrays, a shared variable and
    a channel, with guards, ``if``, ``atomic`` and events indexed by the process; and (issue 29)
    ``PAT.Math`` calls, ``ifa ... else if``, comments after ';' and a server synchronising with
    ``P(i)`` on ``go.i`` through an indexed choice."""
    r = random.Random(seed)
    n = r.choice([2, 3])
    top = r.choice([2, 3])
    server = r.random() < 0.3

    def operand(i: str) -> str:
        return r.choice(["x", f"a[{i}]", f"b[{i}]", str(r.randrange(top)), f"a[({i} + 1) % N]"])

    def cond(i: str) -> str:
        c = f"{operand(i)} {r.choice(['==', '!=', '<', '<=', '>'])} {operand(i)}"
        return c if r.random() < 0.7 else f"{c} {r.choice(['&&', '||'])} {operand(i)} == {r.randrange(top)}"

    def update(i: str) -> str:
        target = r.choice(["x", f"a[{i}]", f"b[{i}]"])
        value = r.choice([f"({operand(i)} + 1) % {top}", operand(i), f"{top - 1} - {operand(i)}",
                          f"call(Max, {operand(i)}, {operand(i)})", f"call(Pow, {operand(i)}, 2) % {top}",
                          f"call(Abs, {operand(i)} - {top - 1})"])
        if r.random() < 0.3:
            return f"if ({cond(i)}) {{ {target} = {value}; }} else {{ {target} = 0; }}"
        return f"{target} = {value};"

    branches = []
    for k in range(r.choice([2, 3])):
        kind = r.random()
        if kind < 0.2:
            branches.append(f"c!i -> P(i)")
        elif kind < 0.35:
            branches.append(f"c?v{{a[i] = v % {top};}} -> P(i)")
        elif kind < 0.5:
            comment = r.choice(["", " // then x = 1\n", " /* var z */ "])
            branches.append(f"[{cond('i')}] atomic{{ s{k}.i{{{update('i')}}} -> t{k}.i{{{update('i')}}} -> Skip }};"
                            f"{comment} P(i)")
        elif kind < 0.65:
            last = "go.i -> P(i)" if server else f"u{k}.i -> P(i)"
            branches.append(f"ifa ({cond('i')}) {{ s{k}.i{{{update('i')}}} -> P(i) }} else if ({cond('i')}) "
                            f"{{ t{k}.i{{{update('i')}}} -> P(i) }} else {{ {last} }}")
        else:
            branches.append(f"[{cond('i')}] e{k}.i{{{update('i')}}} -> P(i)")
    family = "||| i:{0..N-1} @ P(i)"
    system = (f"Srv() = [] j:{{0..N-1}} @ S(j);\nS(j) = go.j -> S(j);\nSys() = ({family}) || Srv();\n"
              if server else f"Sys() = {family};\n")
    return (f'#import "PAT.Math";\n#define N {n};\nvar x = 0;\nvar a[N] : {{0..{top - 1}}};\n'
            f"var b[N] : {{0..{top - 1}}};\nchannel c {r.choice([0, 1, 2])};\n"
            f"P(i) = {' [] '.join(branches)};\n" + system)


# ---------------------------------------------------------------------------- DVE


def dve_model(seed: int) -> str:
    """2-3 copies of one DVE process over a global array indexed by the process, a shared
    variable, a buffered or rendezvous channel, guards and committed states."""
    r = random.Random(seed)
    n = r.choice([2, 3])
    top = r.choice([2, 3])

    # one text with {me} (this process) and {nx} (the next one), instantiated per process
    def operand() -> str:
        return r.choice(["x", "a[{me}]", "k", str(r.randrange(top)), "a[{nx}]"])

    def guard() -> str:
        return f"{operand()} {r.choice(['==', '!=', '<', '<=', '>'])} {operand()}"

    def effect() -> str:
        target = r.choice(["x", "a[{me}]", "k"])
        return f"{target} = ({operand()} + {r.choice([1, top - 1])}) % {top}"

    committed = r.random() < 0.3
    channel = r.choice(["channel c;", "channel {byte} c[1];", "channel {byte} c[2];"])
    trans = []
    for n_trans in range(r.choice([2, 3, 4])):
        parts = []
        if r.random() < 0.7:
            parts.append(f"guard {guard()};")
        sy = r.random()
        if sy < 0.2:
            parts.append("sync c!k;" if "{byte}" in channel else "sync c!;")
        elif sy < 0.35:
            parts.append("sync c?k;" if "{byte}" in channel else "sync c?;")
        if r.random() < 0.8:
            parts.append(f"effect {effect()};")
        trans.append(f"{'s' if n_trans == 0 else r.choice('stu')} -> {r.choice('stu')} {{ {' '.join(parts)} }}")
    body = ", ".join(trans).replace("{ ", "{{ ").replace(" }", " }}")
    processes = [
        f"process P{me} {{ byte k; state s, t, u; init s;{' commit t;' if committed else ''}\n"
        f" trans {body.format(me=me, nx=(me + 1) % n)}; }}"
        for me in range(n)]
    # the operands above mention a[me] and a[me+1]: the same text shape for every process
    return (f"byte x = 0; byte a[{n}]; {channel}\n" + "\n".join(processes) + "\nsystem async;\n")


# ---------------------------------------------------------------------------- checking

GENERATORS = {
    "promela": (".pml", promela_gen.model),
    "promela-dynamic": (".pml", promela_gen.dynamic),
    "murphi": (".m", murphi_gen.generate),
    "csp": (".csp", csp_model),
    "dve": (".dve", dve_model),
}


#: What a failure can be: a load that is neither a model nor a located error, a generator
#: ``--verify`` refutes (or a run it cannot finish), an exact reduction storing other than
#: one state per orbit, a Promela state count other than Spin's.
FAILURE_KINDS = ("front-end crash", "not an automorphism", "orbit count", "pids verdict", "Spin count")


def check_pids(detection, text: str) -> None:
    """``explore --reduce pids`` against an unreduced run of the detected model, both with
    the per-state checks on (``FuzzFailure`` "pids verdict")."""
    from detect.checking.reduce import explore_reduced

    plain = explore_reduced(detection.model, "none").exploration
    reduced = explore_reduced(detection.model, "pids", detection=detection)
    got = reduced.exploration

    def verdicts(e):
        return ([(a.assertion.kind, a.verdict) for a in e.assertions if a.assertion.kind != "acceptance"],
                e.faults > 0, len(e.deadlocks) > 0)

    if any("not a symmetry" in n for n in reduced.notes) or got.states > plain.states \
            or verdicts(plain) != verdicts(got):
        raise FuzzFailure("pids verdict", f"plain {plain.states} states {verdicts(plain)}, --reduce pids "
                                          f"{got.states} states {verdicts(got)}, {reduced.notes}\n{text}")


def check_model(language: str, seed: int, spin: bool = False) -> str:
    """Check model ``seed``; return what was checked ('sound', 'skip: ...', 'input error'),
    or raise ``FuzzFailure``.  ``spin``: Promela models are also compared with Spin's count of
    stored states (``spin_oracle.compare``) when Spin is installed."""
    from detect.symmetry.constraints import TableTooLarge
    from detect.statespace.explore import reachable_graph
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model as load

    suffix, generate = GENERATORS[language]
    text = generate(seed)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, f"m{seed}{suffix}")
        Path(path).write_text(text)
        try:
            model = load(path)
        except Exception as e:  # a generator bug, or a located input error: shown, not a crash
            from detect.errors import InputError

            if not isinstance(e, InputError):
                raise FuzzFailure("front-end crash", f"{type(e).__name__}: {e}\n{text}") from e
            return "input error"
        if not reachable_graph(model, max_states=STATES).complete:
            return "skip: too many states"
        try:
            detection = detect(model)
        except TableTooLarge:
            return "skip: table limit"
        runner = CliRunner()
        verified = runner.invoke(main, ["analyze", path, "--verify", "--json", "--max-states", str(10 * STATES)])
        if verified.exit_code != 0 or not json.loads(verified.stdout)["verify"]["ok"]:
            raise FuzzFailure("not an automorphism", f"exit {verified.exit_code}: {verified.output}\n{text}")
        orbits, _ = orbit_count(detection.model, detection.group)
        reduced = runner.invoke(main, ["explore", path, "--reduce", "exact", "--json", "--no-trace"])
        if reduced.exit_code not in (0, 1):
            raise FuzzFailure("orbit count", f"explore --reduce exact: exit {reduced.exit_code}: {reduced.output}\n{text}")
        stored = json.loads(reduced.stdout)["states"]
        if stored != orbits:
            raise FuzzFailure("orbit count", f"exact reduction stored {stored} states, {orbits} orbits:\n{text}")
        if language.startswith("promela"):
            check_pids(detection, text)
        if spin and language.startswith("promela") and spin_available():
            try:
                differ = compare(text, Path(d), os.path.basename(path))
            except SpinRefused as e:
                return f"sound (Spin gives no count: {e})"
            if differ is not None:
                raise FuzzFailure("Spin count", f"{differ}\n{text}")
            return "sound, Spin agrees"
        return "sound"


def is_sound(outcome: str) -> bool:
    return outcome.startswith("sound")


# promela seed 3 (11 CPU s, two thirds of the language's default time) runs with -m slow
DEFAULT_SEEDS = {"promela": range(3), "promela-dynamic": range(4), "murphi": range(3), "csp": range(8),
                 "dve": range(8)}
SLOW_SEEDS = {"promela": [3, *range(100, 160)], "promela-dynamic": range(100, 130), "murphi": range(100, 140),
              "csp": range(100, 300), "dve": range(100, 300)}


@pytest.mark.parametrize("language", sorted(GENERATORS))
def test_random_models_get_sound_symmetries(language):
    outcomes = [check_model(language, seed) for seed in DEFAULT_SEEDS[language]]
    assert sum(map(is_sound, outcomes)) >= len(outcomes) // 2, outcomes


@pytest.mark.slow
@pytest.mark.parametrize("language", sorted(GENERATORS))
def test_many_random_models_get_sound_symmetries(language):
    outcomes = [check_model(language, seed, spin=True) for seed in SLOW_SEEDS[language]]
    assert sum(map(is_sound, outcomes)) >= len(outcomes) // 2, outcomes


def test_csp_and_dve_generators_make_valid_models_with_symmetry():
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model as load

    with tempfile.TemporaryDirectory() as d:
        for language in ("csp", "dve"):
            suffix, generate = GENERATORS[language]
            orders = []
            for seed in range(6):
                path = os.path.join(d, f"m{seed}{suffix}")
                Path(path).write_text(generate(seed))
                orders.append(detect(load(path)).group.order)
            assert any(order > 1 for order in orders), (language, orders)
