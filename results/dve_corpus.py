"""Benchmark: the BEEM DVE corpus through the DVE front end, its symmetry, and Spin alongside.

    python results/dve_corpus.py [CORPUS_DIR] [-o results/dve_corpus.md] [--no-spin]

One row per ``CORPUS_DIR/*.dve`` (default ``../shared/corpus/beem/dve``):

* our unreduced exploration (``detect.statespace.explore.explore_state_space``; its ``seconds`` are the search
  alone, after compiling the model);
* the detected group (``detect.symmetry.pipeline.detect``), whether every generator passes
  ``detect.checking.verify`` (what ``symdetect analyze --verify`` runs), and the order of the group of
  *all* state-permutation symmetries of the reachable LTS (``results/dve_symmetry.py``);
* reduced states: the number of orbits of the reachable states under the detected group,
  by brute force (union of every state with its generator images) -- the count that
  exact one-per-orbit reduction must give --, our explorer run with the smallest image of
  each state over all group elements as ``canonicalise`` (enumeration, fine for these
  small groups; trivial groups need no reduction), and with ``detect.checking.reduce``'s ``exact``
  canonicaliser (``make_reducer(model, group, "exact")``, what ``--reduce exact`` runs);
* Spin on BEEM's Promela translation ``../promela/<instance>.pml`` where one exists, in the
  same run on the same machine: ``spin -o3 -a``, ``gcc -O2 -DSAFETY -DNOREDUCE``,
  ``./pan -m1000000 -c0 -n``.  Spin's states/s use pan's own "elapsed time" (the search,
  without the start-up allocation of its 128 MB hash table, which the wall time includes).

To add a column append a ``Column`` to ``COLUMNS``; its ``value`` gets the instance's ``Row``.
"""
from __future__ import annotations

import argparse
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from detect.statespace.explore import Exploration, explore_state_space  # noqa: E402
from detect.ir import SequentialModel, state_slots  # noqa: E402
from detect.transform.load import narrowed  # noqa: E402
from frontends import dve  # noqa: E402
from detect.checking.orbits import min_image_canonicaliser, orbit_count  # noqa: E402
from results.dve_symmetry import InstanceSymmetry, analyse, describe  # noqa: E402

load = narrowed(dve.load)

#: Published BEEM state counts (DiVinE semantics), /work/shared/corpus/README.md.
PUBLISHED = {
    "peterson.1": 12_498, "phils.1": 80, "phils.2": 581, "bakery.1": 1_506,
    "msmie.1": 2_334, "hanoi.1": 6_561, "fischer.1": 634, "gear.1": 2_689,
}

#: Why each group has the size it has, read off the BEEM sources (the numbers in the table
#: and in ``tests/test_dve_symmetry.py`` are the evidence; this is the explanation).
SOURCE_NOTES = {
    "phils.1": (
        "Why: the 4 philosophers are one template with fork indices i, i+1 mod 4, so the rotation "
        "phil_i → phil_{i+1} (fork[k] → fork[k+1]) is a symmetry. The ring's reflection is not: "
        "every philosopher takes fork[i] *first*, and the reflection maps a philosopher holding its "
        "first fork onto one holding only its second, a state no process has (the verifier "
        "rejects the reflection; `test_phils_ring_reflection_is_not_a_symmetry`)."),
    "phils.2": "Why: as phils.1 with a room counter `count` that every philosopher uses alike: the 5 rotations.",
    "msmie.1": (
        "Why: 2 identical slaves and 3 identical masters, S₂ × S₃. No buffer symmetry: b[] starts "
        "{0, 0, 2}, and the masters' release phase (BEEM's generator output) names b[0] three times "
        "instead of b[0], b[1], b[2], so b[0] is special too."),
    "hanoi.1": (
        "Why: pegs B and C both start empty and the six mover processes are written alike for every "
        "ordered pair of pegs, so exchanging B and C (with AtoB ↔ AtoC, BtoA ↔ CtoA, BtoC ↔ CtoB) is "
        "a symmetry; peg A starts full, so nothing moves it."),
    "fischer.1": (
        "Why: the 3 processes differ only in the constant they write to `id` (i + 1) and in their "
        "timer t[i]; permuting processes, t[] and the values 1, 2, 3 of `id` alike gives S₃. The "
        "group stage recognises `id`'s values as pids + 1 and calls the generators process "
        "symmetries with pid-valued data permuted alike."),
    "peterson.1": (
        "Why order 1: P_i scans k = 0, 1, 2 in index order with the non-atomic loop "
        "`q3 -> q3 {guard k < 3 && (k == i || pos[k] < j); effect k = k+1}`, so a partial scan "
        "by P_0 at k = 1 (it has checked only itself) has no image in P_1: at k = 1 P_1 has "
        "checked P_0, at k = 2 both, never only itself. "
        "The reachable histograms of P_0/P_1/P_2.state differ (e.g. 136/190/228 states in `CS`), and "
        "a symmetry moving P.state onto Q.state would preserve them: no symmetry exchanges any "
        "two processes (`test_asymmetric_instances_have_distinct_pc_histograms`)."),
    "bakery.1": (
        "Why order 1: the tie-break `number[j] == number[i] and i <= j` lets P_0 pass every tie and "
        "makes P_1 wait, and both scan j = 0, 1 in index order; the pc histograms of P_0 and P_1 differ "
        "(e.g. 84 vs 112 states in `CS`), so no symmetry exchanges them."),
    "gear.1": (
        "Why order 1: five different processes (clutch, gear box, engine, interface, controller) and "
        "a timer; nothing to exchange (the reachable LTS has no non-trivial symmetry either)."),
}

#: pan's depth limit as in the oracle command; "max search depth too small" is checked.
PAN_DEPTH = 1_000_000


@dataclass(frozen=True)
class SpinRun:
    """One Spin run on a ``.pml``: counts from pan's report, seconds per phase (wall clock)
    and pan's own elapsed search time."""

    states: int
    transitions: int
    generate_seconds: float
    compile_seconds: float
    pan_seconds: float
    search_seconds: float
    truncated: bool

    @property
    def states_per_second(self) -> Optional[float]:
        return self.states / self.search_seconds if self.search_seconds > 0 else None


@dataclass(frozen=True)
class Row:
    instance: str
    model: SequentialModel
    load_seconds: float
    exploration: Exploration
    symmetry: InstanceSymmetry
    orbits: Optional[int]
    min_image: Optional[Exploration]
    reduced: Optional[Exploration]
    spin: Optional[SpinRun]


@dataclass(frozen=True)
class Column:
    title: str
    value: Callable[[Row], str]


def _int(n: Optional[int]) -> str:
    return "—" if n is None else f"{n:,}"


def _rate(x: Optional[float]) -> str:
    return "—" if x is None else f"{x:,.0f}"


def reduced_exploration(model: SequentialModel, symmetry: InstanceSymmetry) -> Optional[Exploration]:
    """Exploration with ``detect.checking.reduce``'s ``exact`` canonicaliser (what ``symdetect explore
    --reduce exact`` runs); None when detection failed or the group is trivial."""
    if symmetry.group is None or symmetry.group.order == 1:
        return None
    from detect.checking.reduce import make_reducer

    reducer = make_reducer(model, symmetry.group, "exact")
    return explore_state_space(model, canonicalise=reducer.canonicalise)


def run_spin(pml: Path, workdir: Path) -> SpinRun:
    """Generate, compile and run pan for ``pml`` in ``workdir`` (the oracle command)."""
    shutil.copy(pml, workdir / "model.pml")

    def timed(cmd: list[str]) -> tuple[float, str]:
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, check=True)
        return time.perf_counter() - start, done.stdout

    generate, _ = timed(["spin", "-o3", "-a", "model.pml"])
    compile_, _ = timed(["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", "-o", "pan", "pan.c"])
    pan, out = timed(["./pan", f"-m{PAN_DEPTH}", "-c0", "-n"])

    def number(pattern: str) -> float:
        match = re.search(pattern, out)
        if match is None:
            raise RuntimeError(f"pan output for {pml} lacks /{pattern}/:\n{out}")
        return float(match.group(1))

    return SpinRun(
        states=int(number(r"(\d+) states, stored")),
        transitions=int(number(r"(\d+) transitions \(= stored\+matched\)")),
        generate_seconds=generate, compile_seconds=compile_, pan_seconds=pan,
        search_seconds=number(r"pan: elapsed time ([\d.e+-]+) seconds"),
        truncated="max search depth too small" in out,
    )


COLUMNS: list[Column] = [
    Column("instance", lambda r: r.instance),
    Column("states (BEEM)", lambda r: _int(PUBLISHED.get(r.instance))),
    Column("states (ours)", lambda r: _int(r.exploration.states)),
    Column("match", lambda r: "yes" if PUBLISHED.get(r.instance) == r.exploration.states else "NO"),
    Column("transitions", lambda r: _int(r.exploration.transitions)),
    Column("explore s", lambda r: f"{r.exploration.seconds:.3f}"),
    Column("states/s", lambda r: _rate(r.exploration.states_per_second)),
    Column("group order", lambda r: _int(r.symmetry.order) if r.symmetry.group is not None else "fails¹"),
    Column("verify", lambda r: "—" if r.symmetry.report is None else
           ("ok" if r.symmetry.report.ok else "FAILS")),
    Column("all symmetries", lambda r: _int(r.symmetry.reachable_order)),
    Column("detect s", lambda r: f"{r.symmetry.detect_seconds:.2f}"),
    Column("orbits", lambda r: _int(r.orbits)),
    Column("reduced (min image)", lambda r: _int(r.min_image.states) if r.min_image is not None else
           (_int(r.exploration.states) + " (G = 1)" if r.symmetry.order == 1 else "—")),
    Column("min image s", lambda r: "—" if r.min_image is None else f"{r.min_image.seconds:.3f}"),
    Column("reduced (exact)", lambda r: _int(r.reduced.states) if r.reduced is not None else
           (_int(r.exploration.states) + " (G = 1)" if r.symmetry.order == 1 else "—")),
    Column("reduced s", lambda r: "—" if r.reduced is None else f"{r.reduced.seconds:.2f}"),
    Column("Spin states", lambda r: "—" if r.spin is None else
           _int(r.spin.states) + (" (truncated)" if r.spin.truncated else "")),
    Column("Spin search s", lambda r: "—" if r.spin is None else f"{r.spin.search_seconds:.2f}"),
    Column("Spin states/s", lambda r: "—" if r.spin is None else
           (_rate(r.spin.states_per_second) if r.spin.states_per_second else "<0.01 s")),
    Column("Spin pan wall s", lambda r: "—" if r.spin is None else f"{r.spin.pan_seconds:.2f}"),
    Column("Spin gen+gcc s", lambda r: "—" if r.spin is None else
           f"{r.spin.generate_seconds + r.spin.compile_seconds:.2f}"),
]


def measure(path: Path, promela_dir: Optional[Path], with_spin: bool) -> Row:
    start = time.perf_counter()
    model = load(path)
    loaded = time.perf_counter() - start
    name = path.name[: -len(".dve")]
    exploration = explore_state_space(model, max_states=2_000_000)
    symmetry = analyse(path)
    generators = [g.permutation for g in symmetry.group.generators] if symmetry.group else None
    # symmetry.model: the model, or its narrowing to the reachable domains (same LTS), whose
    # domains the generators act on.
    orbits = orbit_count(symmetry.model, generators) if generators is not None else None
    canonicalise = min_image_canonicaliser(generators) if generators else None
    min_image = explore_state_space(symmetry.model, canonicalise=canonicalise) if canonicalise is not None else None
    reduced = reduced_exploration(symmetry.model, symmetry)
    spin = None
    pml = promela_dir / f"{name}.pml" if promela_dir is not None else None
    if with_spin and pml is not None and pml.exists():
        with tempfile.TemporaryDirectory(prefix=f"spin-{name}-") as tmp:
            spin = run_spin(pml, Path(tmp))
    return Row(name, model, loaded, exploration, symmetry, orbits, min_image, reduced, spin)


def table(rows: list[Row], columns: list[Column] = COLUMNS) -> str:
    lines = ["| " + " | ".join(c.title for c in columns) + " |",
             "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(c.value(r) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def machine() -> str:
    def sh(cmd: str) -> str:
        try:
            return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "?"

    model = sh("lscpu | grep 'Model name'").partition(":")[2].strip() or platform.processor()
    memory = sh("free -g | awk '/^Mem:/ {print $2}'")
    spin = sh("spin -V") or "not installed"
    gcc = sh("gcc --version | head -1")
    # The machine is shared with other work: the load average says how comparable runs are.
    load = sh("cut -d' ' -f1-3 /proc/loadavg")
    return (f"{sh('nproc')} cores (`nproc`), {model} (`lscpu`), {memory} GiB memory, "
            f"load average {load} at the end of the run; "
            f"{platform.machine()}, Python {platform.python_version()}; {spin}; {gcc}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(REPO / ".." / "shared" / "corpus" / "beem" / "dve"))
    parser.add_argument("-o", "--output", default=str(REPO / "results" / "dve_corpus.md"))
    parser.add_argument("--no-spin", action="store_true", help="skip the Spin columns")
    args = parser.parse_args()
    paths = sorted(Path(args.corpus).glob("*.dve"))
    if not paths:
        sys.exit(f"no .dve files in {args.corpus}")
    promela = Path(args.corpus).parent / "promela"
    with_spin = not args.no_spin and shutil.which("spin") is not None and shutil.which("gcc") is not None
    rows = []
    for p in paths:
        rows.append(measure(p, promela if promela.is_dir() else None, with_spin))
        print(table([rows[-1]]).splitlines()[-1], flush=True)
    failures = [r for r in rows if r.symmetry.group is None]
    notes = [
        "¹ detection failed: " + "; ".join(f"{r.instance}: {r.symmetry.failure}" for r in failures)
        if failures else "",

    ]
    text = "\n".join([
        "# BEEM DVE corpus: exploration, symmetry, reduction, and Spin side by side",
        "",
        "Generated by `python results/dve_corpus.py` (see its docstring for what each column",
        "means).  A transition is a distinct (source, target) pair for us, Spin's",
        "stored+matched for Spin.  Spin runs BEEM's Promela translation, whose counts differ from",
        "the DVE semantics (extra init/end states, atomic merging).  All timings are wall clock,",
        "one run each, both tools in the same run.",
        "",
        f"Machine: {machine()}.",
        "",
        table(rows),
        "",
        *[n for n in notes if n],
        "",
        "*group order*: the group generated by the detected generators; *verify*: every",
        "generator checked against the reachable LTS (`symdetect analyze --verify`); *all",
        "symmetries*: order, on reachable states, of the group of every state-permutation",
        "symmetry of the reachable LTS, computed by bliss on the explored graph independently of",
        "the detection (`results/dve_symmetry.py`); when it equals the group order nothing was",
        "missed.  *orbits*: reachable states up to the detected group (brute force); *reduced (min",
        "image)*: `explore` with `canonicalise` = smallest image over all group elements; *reduced",
        "(exact)*: `explore` with `detect.checking.reduce`'s exact canonicaliser (`--reduce exact`).",
        "",
        "## Groups found",
        "",
        *[describe(r.symmetry) + ("\n\n" + SOURCE_NOTES[r.instance] if r.instance in SOURCE_NOTES else "")
          + "\n" for r in rows],
    ])
    Path(args.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
