"""Differential testing of the Promela front end against Spin: random models and the corpus.

    python results/differential_promela.py [-n 300] [--tree DIR] [--generator NAME] [--no-corpus]
        [-o results/differential_promela.md]

Runs ``-n`` random models (``tests/promela_gen.py``, seeds 0..n-1) and every model of
``../shared/corpus/spin`` and ``../shared/corpus/beem/promela`` through Spin and through
symdetect (``tests/spin_oracle.py``: Spin's "states, stored" and error verdict against
``explore --spin-states``), and prints a markdown table: how many were compared, how many
disagreed, and the cause of each disagreement.  ``--tree`` takes the symdetect under test
from another source tree (e.g. an export of an older commit), with this tree's generator
and oracle, so the same models measure before and after a fix.  ``--generator`` names the
function of ``tests/promela_gen.py`` that makes the random models (default ``model``; e.g.
``scheduled`` for provided/unless/enabled/_last/priorities), ``--no-corpus`` skips the corpus.
``--cpu`` bounds our CPU seconds per model (default 600): a model over it is reported as such.
"""
from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
CORPUS = HERE / ".." / "shared" / "corpus"


def _setup(tree: str):
    """Import symdetect from ``tree``; the generator and the oracle always from this tree
    (loaded by file, so an older tree's ``tests`` package does not shadow them)."""
    import importlib.util
    import warnings

    warnings.simplefilter("ignore")
    if sys.path[0] != tree:
        sys.path.insert(0, tree)
    mods = []
    for name in ("promela_gen", "spin_oracle"):
        if f"_diff_{name}" not in sys.modules:
            spec = importlib.util.spec_from_file_location(f"_diff_{name}", HERE / "tests" / f"{name}.py")
            mod = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = mod
            spec.loader.exec_module(mod)
        mods.append(sys.modules[f"_diff_{name}"])
    return mods


def _cause(text: str, outcome: str) -> str:
    """The known cause a disagreement or crash points to: the first known cause whose
    construct the model contains (a heuristic; each cause was found by minimising a model
    by hand, and is pinned in tests/test_promela_spin_regressions.py)."""
    if "cond_expr" in outcome:
        return "parser crash on a conditional expression (c -> a : b)"
    if re.search(r"\b(n?full)\(q\d\)", text) and "[0] of" in text and outcome.startswith("disagree"):
        return "full/nfull on a rendezvous channel (Spin: never full)"
    if "atomic { do" in text and outcome.startswith("disagree"):
        return "atomic { do ... od } released control at the loop head"
    if re.search(r"i0 = i0 [+-] (65537|40000)|i0 = 40000", text) and outcome.startswith(("disagree", "crash")):
        return "int had short's 16-bit range"
    if outcome.startswith("timeout") and "unless" in text and "set_priority" in text:
        return "loading: unless escapes beside priorities that change (guards inline each other)"
    return "unclassified"


class _OverBudget(Exception):
    """The model took more than its CPU budget on our side (``--cpu``)."""


def _over_budget(signum, frame):
    raise _OverBudget()


def _one(job) -> tuple:
    kind, key, tree, generator, cpu = job
    gen, oracle = _setup(tree)
    from detect.errors import InputError

    model, compare, SpinRefused = getattr(gen, generator), oracle.compare, oracle.SpinRefused
    if kind == "random":
        text, name = model(key), "m.pml"
    else:
        text, name = Path(key).read_text(), key
    start = time.perf_counter()
    # our CPU time (pan runs in child processes, not counted): a model on which we take
    # longer is a finding of its own, not a hung run
    signal.signal(signal.SIGVTALRM, _over_budget)
    signal.setitimer(signal.ITIMER_VIRTUAL, cpu)
    try:
        with tempfile.TemporaryDirectory(prefix="diff") as d:
            why = compare(text, Path(d), name)
        outcome = "agree" if why is None else f"disagree: {why}"
    except _OverBudget:
        outcome = f"timeout: more than {cpu:.0f} s CPU on our side"
    except InputError as e:
        outcome = f"rejected: {e}"
    except SpinRefused as e:
        outcome = f"spin refused: {e}"
    except Exception as e:  # a crash of ours is a finding too
        outcome = f"crash: {type(e).__name__}: {' '.join(str(e).split())[:150]}"
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    return kind, key, outcome, _cause(text, outcome), time.perf_counter() - start


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1)) / 1024 / 1024
    except OSError:
        mem = 0
    spin = subprocess.run(["spin", "-V"], capture_output=True, text=True).stdout.strip()
    return f"{os.cpu_count()} cores, {cpu}, {mem:.0f} GB; {spin}; Python {platform.python_version()}"


def run(n: int, tree: str, workers: int, generator: str = "model", corpus_too: bool = True,
        cpu: float = 600) -> tuple[str, dict]:
    jobs = [("random", s, tree, generator, cpu) for s in range(n)]
    corpus = sorted((CORPUS / "spin").glob("*.pml")) + sorted((CORPUS / "beem" / "promela").glob("*.pml"))
    jobs += [("corpus", str(p.resolve()), tree, generator, cpu) for p in corpus if corpus_too]
    results = []
    start = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for r in pool.imap_unordered(_one, jobs):
            results.append(r)
            print(f"{r[0]} {r[1]}: {r[2][:150]}", file=sys.stderr, flush=True)  # progress
    seconds = time.perf_counter() - start
    stats: dict = {}
    for kind in ("random", "corpus"):
        rs = [r for r in results if r[0] == kind]
        outcomes = collections.Counter(r[2].split(":")[0] for r in rs)
        causes = collections.Counter(r[3] for r in rs if r[2].startswith(("disagree", "crash", "timeout")))
        stats[kind] = (len(rs), outcomes, causes, sorted((r for r in rs if not r[2].startswith(("agree",))),
                                                         key=lambda r: str(r[1])))
    return f"{seconds:.0f} s", stats


def table(label: str, stats: dict) -> list[str]:
    lines = [f"| {label} | models | compared | agree | disagree | crash | over CPU budget | rejected by us | "
             "Spin gives no count | deliberate |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for kind, (total, outcomes, _, _) in stats.items():
        compared = outcomes["agree"] + outcomes["disagree"] + outcomes["crash"]
        lines.append(f"| {kind} | {total} | {compared} | {outcomes['agree']} | {outcomes['disagree']} | "
                     f"{outcomes['crash']} | {outcomes['timeout']} | {outcomes['rejected']} | {outcomes['spin refused']} | "
                     f"{outcomes['unsupported']} |")
    return lines


def causes(stats: dict) -> list[str]:
    lines = ["| cause | random | corpus |", "|---|---:|---:|"]
    names = sorted(set(stats["random"][2]) | set(stats["corpus"][2]))
    for c in names:
        lines.append(f"| {c} | {stats['random'][2][c]} | {stats['corpus'][2][c]} |")
    if not names:
        lines.append("| (none) | 0 | 0 |")
    return lines


def details(stats: dict) -> list[str]:
    out = []
    for kind, (_, _, _, rows) in stats.items():
        for _, key, outcome, cause, secs in rows:
            label = f"seed {key}" if kind == "random" else Path(key).name
            out.append(f"- {label}: {outcome[:200]}" + (f" — *{cause}*" if outcome.startswith(("disagree", "crash",
                                                                                             "timeout"))
                                                       else ""))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=300, help="random models (seeds 0..n-1)")
    ap.add_argument("--tree", default=str(HERE), help="the symdetect source tree under test")
    ap.add_argument("--label", default=None, help="what to call the tree in the table")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--generator", default="model", help="the function of tests/promela_gen.py making the models")
    ap.add_argument("--no-corpus", action="store_true", help="random models only")
    ap.add_argument("--cpu", type=float, default=600, help="CPU seconds of ours per model before it counts "
                    "as over budget")
    ap.add_argument("-o", "--output", type=Path, default=None, help="also write the markdown here")
    args = ap.parse_args()
    took, stats = run(args.n, str(Path(args.tree).resolve()), args.workers, args.generator, not args.no_corpus,
                      args.cpu)
    label = args.label or Path(args.tree).name
    md = [f"### {label}", "", f"Machine: {machine()}. Took {took}. Random models: promela_gen.{args.generator}, "
          f"seeds 0..{args.n - 1}.", ""]
    md += table(label, stats) + ["", "Disagreements and crashes by cause (the first known cause whose construct "
                                 "the model contains):", ""] + causes(stats)
    md += ["", "Every model that did not agree:", ""] + (details(stats) or ["- none"])
    text = "\n".join(md) + "\n"
    print(text)
    if args.output:
        args.output.write_text(text)


if __name__ == "__main__":
    main()
