"""CSP# LTL checks reduced by the subgroup fixing each proposition, against unreduced (issue 30).

    python results/csp_ltl_symmetry.py [-o results/csp_ltl_symmetry.md]

``models/lock_clients_ltl.csp`` (S_N on clients) and ``models/dining_philosophers_ltl.csp``
(C_N rotations; deadlock-prone ``College()`` and butler ``Seated()``) for N = 3..6: per
assertion, the model's group order, the order of the subgroup used, product and system
states and seconds reduced and unreduced (``detect.checking.temporal.check_temporal``), and
the verdicts (which must agree).
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from detect.checking.temporal import augmented, check_temporal  # noqa: E402
from detect.symmetry.pipeline import detect  # noqa: E402
from detect.transform.load import load_model  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CASES = [("lock_clients_ltl.csp", None), ("dining_philosophers_ltl.csp", "College()"),
         ("dining_philosophers_ltl.csp", "Seated()")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--output", default=None)
    ap.add_argument("--sizes", default="3,4,5,6")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    rows = []
    disagree = 0
    for name, process in CASES:
        for n in map(int, args.sizes.split(",")):
            model = load_model(str(REPO / "models" / name), {"N": n}, process)
            whole = detect(model).group
            for a in model.assertions:
                if a.about or a.kind != "ltl":
                    continue
                t = time.perf_counter()
                r = check_temporal(model, a.temporal, True, whole=whole)
                tr = time.perf_counter() - t
                t = time.perf_counter()
                u = check_temporal(model, a.temporal, False)
                tu = time.perf_counter() - t
                disagree += r.found != u.found
                verdict = lambda c: "fails" if c.found else "holds" if c.found is False else "unknown"  # noqa: E731
                formula = a.text.split("|=")[1].strip().rstrip(";").strip()
                rows.append(f"| {name.split('.')[0]}{' ' + process if process else ''} | {n} | `{formula}` | "
                            f"{r.group_order:,} of {whole.order:,} | {r.product_states:,} / {r.states:,} | "
                            f"{u.product_states:,} / {u.states:,} | {verdict(r)} / {verdict(u)} | "
                            f"{tr:.2f} / {tu:.2f} |")
    text = f"""# CSP# LTL with symmetry reduction by the propositions' stabiliser (issue 30)

`python results/csp_ltl_symmetry.py` (shared 2-core machine: seconds are noisy; the counts
are exact).  *group used*: the order of the subgroup fixing each proposition (detected on
the model with one variable per proposition, each literal coloured apart) of the model's
group.  *product / system states*: nodes of the product with the negated formula's
automaton (a syntactically safe formula's own automaton, as a subset construction, as PAT
checks it: README, "Deadlocks in LTL"), and distinct (representative) states of the model
with its proposition variables.  Reduced seconds include the detection on the augmented model; a failed reduced
check also runs the unreduced product for its counterexample lasso.  Verdicts disagreeing:
**{disagree}**.

| model | N | formula | group used | reduced product / system | unreduced product / system | verdict reduced / unreduced | s reduced / unreduced |
|---|---:|---|---:|---:|---:|---|---:|
""" + "\n".join(rows) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
