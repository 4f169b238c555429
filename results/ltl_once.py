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
and a summary; ``results/ltl_once.md`` records a comparison.
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
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        run(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], "--pan" in sys.argv)
