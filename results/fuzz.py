"""How many programs the fuzzers of issue 16 run per language, how they end, and what fails.

    python3 results/fuzz.py [--profile slow|default] [--jobs 2] [--languages csp,dve,...] [-o results/fuzz.md]

Runs the generators of ``tests/test_fuzz_frontends.py`` and ``tests/test_fuzz_soundness.py``
with the example counts of their ``--profile`` (``slow``: the ``-m slow`` tests'; ``default``:
the default tests'), the same derandomized programs the tests run:

* grammar: whole files from the front end's lark grammar;
* template: one grammar rule put into a small model that declares the names it uses;
* mutated: bundled and corpus files with 1-3 token edits;
* soundness: random small models from the source-level generators (``--verify``, exact
  reduction against the brute-force orbit count, and for Promela Spin's state count).

Every program of the first three goes through ``analyze``, then ``explore`` and ``analyze
--verify`` unless it is bad input.  The table gives, per language and source, the programs
run, the histogram of ``analyze``'s exit codes and of all commands' exit codes, the failures by
kind (``FAILURE_KINDS`` of both test files) with how many distinct ones, and the CPU seconds
(user+sys) spent.  Failures are listed below the table, one program each.  The last table
counts the failures found earlier and kept as regression cases (``REGRESSIONS``).
"""
from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SOURCES = ("grammar", "template", "mutated", "soundness")


@dataclass
class Tally:
    """What one (language, source) job saw."""
    language: str
    source: str
    programs: int = 0
    analyze_codes: collections.Counter = field(default_factory=collections.Counter)
    all_codes: collections.Counter = field(default_factory=collections.Counter)
    #: soundness models: 'sound', 'sound, Spin agrees', 'input error', 'skip: ...'
    outcomes: collections.Counter = field(default_factory=collections.Counter)
    #: (kind, signature) -> (count, the first program)
    failures: dict = field(default_factory=dict)
    cpu: float = 0.0

    def fail(self, kind: str, message: str, program: str) -> None:
        key = (kind, signature(message))
        count, first = self.failures.get(key, (0, program))
        self.failures[key] = (count + 1, first)


def signature(message: str) -> str:
    """What tells two failures apart: the last line of a traceback (else the first line of
    the message), with numbers and temporary paths blanked, so one bug counts once."""
    lines = [line for line in message.strip().splitlines() if line.strip()]
    tb = [k for k, line in enumerate(lines) if line.startswith("Traceback")]
    line = lines[-1] if tb else (lines[0] if lines else "")
    line = re.sub(r"/tmp/\S+", "FILE", line)
    return re.sub(r"\d+", "N", line)[:160]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # Spin, gcc and pan
    return usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime


def run_job(job: tuple[str, str, str]) -> Tally:
    """Run one language's programs of one source (in a worker process)."""
    import warnings

    warnings.simplefilter("ignore")
    language, source, profile = job
    from tests import test_fuzz_frontends as frontends
    from tests import test_fuzz_soundness as soundness

    tally = Tally(language, source)
    start = _cpu()
    if source == "soundness":
        seeds = soundness.SLOW_SEEDS if profile == "slow" else soundness.DEFAULT_SEEDS
        for seed in seeds[language]:
            tally.programs += 1
            try:
                tally.outcomes[soundness.check_model(language, seed, spin=profile == "slow")] += 1
            except frontends.FuzzFailure as e:
                tally.fail(e.kind, str(e), f"{language} model {seed}")
            except Exception as e:  # the checker itself crashed: a finding too
                tally.fail("front-end crash", f"{type(e).__name__}: {e}", f"{language} model {seed}")
    else:
        budget = frontends.SLOW_BUDGET if profile == "slow" else frontends.BUDGET
        seed_size = frontends.SEED_SIZE[profile]
        strategy = frontends.source_programs(source, language, seed_size)

        def on_program(text: str) -> None:
            tally.programs += 1
            try:
                codes = frontends.pipeline_exit_codes(text, language)
            except frontends.FuzzFailure as e:
                tally.fail(e.kind, str(e).split("\n--- output:\n", 1)[-1], text)
            except frontends.Hang as e:
                tally.fail("hang", str(e).split(" on:")[0], text)
            else:
                tally.analyze_codes[codes[0]] += 1
                tally.all_codes.update(codes)

        if strategy is not None:
            frontends.fuzz(strategy, budget[source], on_program)
    tally.cpu = _cpu() - start
    return tally


# ---------------------------------------------------------------------------- report


def _codes(counter: collections.Counter) -> str:
    return " / ".join(f"{counter[c]:,}" for c in (0, 1, 2, 3)) + (
        f" (other: {sum(v for k, v in counter.items() if k not in (0, 1, 2, 3))})"
        if set(counter) - {0, 1, 2, 3} else "")


def _failures(tally: Tally) -> str:
    if not tally.failures:
        return "none"
    kinds = collections.Counter()
    for (kind, _), (count, _) in tally.failures.items():
        kinds[kind] += count
    distinct = len(tally.failures)
    return ", ".join(f"{kind}: {n}" for kind, n in sorted(kinds.items())) + f" ({distinct} distinct)"


def _outcomes(tally: Tally) -> str:
    grouped = collections.Counter()
    for outcome, n in tally.outcomes.items():
        grouped[outcome.split(" (")[0] if outcome.startswith("sound") else outcome.split(":")[0]] += n
    return ", ".join(f"{k}: {n}" for k, n in sorted(grouped.items()))


def commit() -> str:
    """The commit under test (taken when the run starts: the tree may move on during it)."""
    return subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                          capture_output=True, text=True).stdout.strip() or "unknown"


def report(tallies: list[Tally], profile: str, seconds: float, commit: str) -> str:
    from detect.bench import machine

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    lines = [
        "# Fuzzing the front ends and the pipeline (issue 16)", "",
        f"Measured by `results/fuzz.py --profile {profile}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"commit `{commit}`; {machine()}; load average at the end {load}; {seconds:.0f} s wall.", "",
        "Programs: grammar (whole files from the lark grammar), template (a grammar rule in a small model "
        "declaring its names), mutated (bundled and corpus files with 1-3 token edits), each through "
        "`analyze`, then `explore --max-states 200 --timeout 5` and `analyze --verify --max-states 200` "
        "unless it is bad input.  Exit codes: 0 / 1 / 2 (bad input, one located line) / 3 (incomplete).  "
        "Soundness: random small models through `analyze --verify`, `explore --reduce exact` against the "
        "brute-force orbit count, and (Promela, slow profile) Spin's state count.  CPU: user+sys seconds "
        "of the job, Spin, gcc and pan included.", "",
        "| language | source | programs | analyze exit 0 / 1 / 2 / 3 | every command exit 0 / 1 / 2 / 3 "
        "| failures | CPU s |",
        "|---|---|---:|---|---|---|---:|",
    ]
    for t in sorted(tallies, key=lambda t: (t.language, SOURCES.index(t.source))):
        if t.source == "soundness":
            lines.append(f"| {t.language} | soundness models | {t.programs:,} | {_outcomes(t)} | | "
                         f"{_failures(t)} | {t.cpu:.1f} |")
        else:
            lines.append(f"| {t.language} | {t.source} | {t.programs:,} | {_codes(t.analyze_codes)} | "
                         f"{_codes(t.all_codes)} | {_failures(t)} | {t.cpu:.1f} |")
    total = collections.Counter()
    for t in tallies:
        total[t.language] += t.programs
    lines += ["", "Programs per language: " + ", ".join(f"{k} {v:,}" for k, v in sorted(total.items()))
              + f"; {sum(total.values()):,} in all.", ""]
    found = [(t, key, value) for t in tallies for key, value in sorted(t.failures.items())]
    lines.append("## Failures in this run" if found else "No failures in this run.")
    for t, (kind, sig), (count, program) in found:
        lines += ["", f"- {t.language}, {t.source}: {kind} ({count}×): `{sig}`", "", "```",
                  program.strip()[:2000], "```"]
    from tests.test_fuzz_frontends import REGRESSIONS

    def per_language(rows) -> str:
        counts = collections.Counter(r.language for r in rows)
        return f"{len(rows)} (" + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + ")"

    distinct = list(dict((r.failure, r) for r in REGRESSIONS).values())
    fuzzed = [r for r in distinct if not r.found.startswith("issue")]
    lines += ["", "## Failures found earlier, fixed, and kept as regression cases", "",
              f"Distinct failures fixed: {per_language(fuzzed)} found by the fuzzers, "
              f"{per_language([r for r in distinct if r not in fuzzed])} from issue 16's table; "
              f"{len(REGRESSIONS)} programs in `tests/test_fuzz_frontends.py::REGRESSIONS`.", "",
              "| language | found by | failure | now |", "|---|---|---|---|"]
    for r in distinct:
        lines.append(f"| {r.language} | {r.found} | {r.failure} | {r.now} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=("slow", "default"), default="slow")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--languages", default="csp,dve,murphi,promela")
    parser.add_argument("--sources", default=",".join(SOURCES))
    parser.add_argument("-o", "--output", help="also write the report to this file")
    args = parser.parse_args()
    jobs = [(language, source, args.profile) for language in args.languages.split(",")
            for source in args.sources.split(",")]
    start, tested = time.perf_counter(), commit()
    tallies = []
    # fork: the workers run hypothesis and SIGALRM in their own main thread; the longest
    # jobs (soundness, template) first
    with multiprocessing.get_context("fork").Pool(args.jobs, maxtasksperchild=1) as pool:
        order = sorted(jobs, key=lambda j: ("soundness", "template", "mutated", "grammar").index(j[1]))
        for tally in pool.imap_unordered(run_job, order):
            print(f"{tally.language} {tally.source}: {tally.programs} programs, {_failures(tally)}, "
                  f"{tally.cpu:.1f} s CPU", file=sys.stderr, flush=True)
            tallies.append(tally)
    text = report(tallies, args.profile, time.perf_counter() - start, tested)
    print(text)
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
