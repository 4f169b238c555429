"""One search for the LTL check (issue 30): the figures and verdicts of ``explore --ltl`` on
random (model, formula) pairs, to compare two checkouts and ``pan -a``.

``python results/ltl_once.py LO HI OUT [--pan]`` runs, from the checkout it is started in
(cwd first on ``sys.path``), ``explore FILE --ltl p --engine native --json --no-trace`` with
``--reduce none`` and ``--reduce exact`` on ``promela_gen.ltl_claimed(seed)`` for
``LO <= seed < HI`` and, every third seed, on the same model with its asserts left as
generated (``raw``: they may fail, so faults, assertion traces and the safety verdicts are
exercised too; the models are compiled with ``gcc -O0``, to save time), one JSON
line per run in OUT: the exit code, the counts (states, transitions, initial, deadlocks,
valid end states, faults), what stopped the run, the verdicts, the depth and how the figures
were made (``search``).  ``--engine native`` makes the nested search of the unreduced product
run before any exploration, however small the model.  With ``--pan``, pan's ``-a`` verdict
too (``spin_oracle.spin_ltl``).  ``python results/ltl_once.py --compare OLD NEW`` prints the
runs whose exit code, counts, stop or verdicts differ (depth, search, times and notes may),
and a summary; ``--inprocess LO HI [--no-reduce]``: the same pairs compared inside one
process (``inprocess``); ``results/ltl_once.md`` records both.
"""
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.getcwd())
FIELDS = ("exit", "states", "transitions", "initial", "deadlocks", "terminal_states", "faults", "stopped",
          "truncated", "verdicts")


def run(lo: int, hi: int, out: str, pan: bool) -> None:
    from click.testing import CliRunner

    from detect.cli import main
    from tests.promela_gen import ltl_claimed

    from detect.statespace.native import build

    os.environ["SYMDETECT_MODEL_CACHE"] = "off"
    build.FLAGS = build.QUICK_FLAGS  # gcc -O0: a quarter of the compile time, the same results
    runner = CliRunner()
    with open(out, "w") as sink, tempfile.TemporaryDirectory() as d:
        for seed in range(lo, hi):
            claimed = ltl_claimed(seed)
            raw = claimed.replace("assert(1 || ", "assert(")
            for variant, text in (("claimed", claimed), ("raw", raw))[:2 if seed % 3 == 0 and raw != claimed else 1]:
                path = Path(d) / f"m{seed}{variant}.pml"
                path.write_text(text)
                oracle = None
                if pan:
                    from tests.spin_oracle import SpinRefused, spin_ltl

                    try:
                        oracle = spin_ltl(text, Path(d))
                    except Exception as e:  # noqa: BLE001 - refused or timed out: not compared
                        oracle = f"refused: {type(e).__name__}" if not isinstance(e, SpinRefused) else "refused"
                for reduce in ("none", "exact"):
                    res = runner.invoke(main, ["explore", str(path), "--ltl", "p", "--engine", "native", "--json",
                                               "--no-trace", "--reduce", reduce, "--max-states", "300000",
                                               "--timeout", "120"])
                    row = {"seed": seed, "variant": variant, "reduce": reduce, "exit": res.exit_code, "pan": oracle}
                    try:
                        report = json.loads(res.stdout[res.stdout.index("{"):])
                    except ValueError:
                        row["error"] = (res.stdout + str(res.exception))[-300:]
                    else:
                        row.update({k: report.get(k) for k in FIELDS[1:] if k != "verdicts"})
                        row["verdicts"] = [[a["text"], a["verdict"]] for a in report["assertions"]]
                        row["depth"], row["search"] = report.get("depth"), report.get("search", "breadth-first")
                    sink.write(json.dumps(row) + "\n")
                    sink.flush()


def inprocess(lo: int, hi: int, reduce: bool) -> None:
    """The same comparison inside one process of this checkout, without the command line's
    start-up and second detection: per pair, the nested search's gathered report
    (``cycles.first_acceptance_cycle``) against the native breadth-first exploration of the
    same model (what the run made before), and, with ``reduce``, against ``explore_reduced``'s
    exploration with the detected group where that group is trivial (the runs that now take
    the gathered report; a nontrivial group explores its quotient as before).  Compared:
    states, transitions, initial states, deadlocks and valid end states (as sets), fault
    states, stops and verdicts."""
    import warnings

    from detect.checking import cycles
    from detect.checking.reduce import explore_reduced
    from detect.statespace.native import build, explore_native
    from detect.transform.narrowing import narrow
    from frontends.promela import parse_text
    from tests.promela_gen import ltl_claimed

    build.FLAGS = build.QUICK_FLAGS

    def figures(e):
        return (e.states, e.transitions, e.initial, frozenset(e.deadlocks), frozenset(e.terminal_states), e.faults,
                e.truncated, tuple(a.verdict for a in e.assertions if a.assertion.kind != "acceptance"))

    pairs = differ = gathered = cycle = trivial = nontrivial = refused = 0
    for seed in range(lo, hi):
        claimed = ltl_claimed(seed)
        raw = claimed.replace("assert(1 || ", "assert(")
        for variant, text in (("claimed", claimed), ("raw", raw))[:2 if seed % 3 == 0 and raw != claimed else 1]:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = narrow(parse_text(text, "m.pml"))
                searched = cycles.first_acceptance_cycle(model, 300_000, engine="native")
            except Exception as e:  # noqa: BLE001 - the front end or the C build refuses: counted apart
                refused += 1
                print("refused", seed, variant, type(e).__name__, str(e)[:120], flush=True)
                continue
            pairs += 1
            if searched.exploration is None:
                cycle += searched.found is not None
                print(seed, variant, "no gathered report:", "a cycle" if searched.found else "stopped", flush=True)
                continue
            gathered += 1
            made = figures(searched.exploration)
            before = figures(explore_native(model))
            line = [seed, variant, made[0], "same" if made == before else f"DIFFERS {made} {before}"]
            differ += made != before
            if reduce:
                from detect.symmetry.pipeline import detect

                detection = detect(model, domain_states=100_000)
                if detection.group.order == 1:
                    trivial += 1
                    old = figures(explore_reduced(model, "exact", detection=detection, explorer="native").exploration)
                    line.append("reduced same" if old == made else f"reduced DIFFERS {old}")
                    differ += old != made
                else:
                    nontrivial += 1
                    line.append(f"group {detection.group.order}: quotient explored as before")
            print(*line, flush=True)
    print(f"{pairs} pairs ({refused} refused): {gathered} gathered reports compared with the breadth-first "
          f"exploration, {cycle} stopped at a cycle; reduced: {trivial} trivial groups compared, {nontrivial} "
          f"nontrivial; {differ} differ")


def compare(old: str, new: str) -> None:
    def rows(path):
        return {(r["seed"], r["variant"], r["reduce"]): r for r in map(json.loads, open(path))}

    a, b = rows(old), rows(new)
    differ = gathered = violated = 0
    for key in sorted(set(a) & set(b)):
        x, y = a[key], b[key]
        fields = [f for f in FIELDS + ("error",) if x.get(f) != y.get(f)]
        if fields:
            differ += 1
            print("DIFFERS", key, {f: (x.get(f), y.get(f)) for f in fields})
        gathered += y.get("search") == "nested depth-first"
        violated += y["exit"] == 1
    pan = [(key, r) for key, r in b.items() if isinstance(r.get("pan"), bool) and r["exit"] in (0, 1)]
    against = sum((r["exit"] == 1) != r["pan"] for _, r in pan)
    for key, r in pan:
        if (r["exit"] == 1) != r["pan"]:
            print("PAN DIFFERS", key, r["pan"], r["exit"])
    print(f"{len(set(a) & set(b))} runs compared ({len(set(a) ^ set(b))} in one file only): {differ} differ; "
          f"{gathered} new runs took the nested search's figures; {violated} exit 1; "
          f"against pan -a: {len(pan)} runs, {against} differ")


if __name__ == "__main__":
    if sys.argv[1] == "--inprocess":
        inprocess(int(sys.argv[2]), int(sys.argv[3]), "--no-reduce" not in sys.argv)
    elif sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        run(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], "--pan" in sys.argv)
