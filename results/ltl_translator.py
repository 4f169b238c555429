"""The in-project LTL -> Büchi translator (``detect.checking.buchi``) against LTL's definition
and against Spin's ``spin -f`` on random formulas and random lasso words (issue 30).

    python results/ltl_translator.py [FORMULAS] [-o results/ltl_translator.md]

For each of FORMULAS random formulas over 3 propositions (depth up to 5, every operator of
PAT's LTL including X) and 20 random lassos each (stem + cycle of at most 7 letters):
``accepts_lasso(translate(f))`` against ``holds_on_lasso(f)`` (the definition); for the
X-free ones (Spin as installed refuses X) also against the automaton of ``spin -f f`` read
back from its never claim.  Any disagreement is listed with its formula and lasso.
"""
from __future__ import annotations

import argparse
import random
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from detect.checking.buchi import accepts_lasso, holds_on_lasso, show, spin_buchi, translate  # noqa: E402


def formula(rng: random.Random, depth: int, props: int) -> tuple:
    if depth == 0 or rng.random() < 0.2:
        r = rng.random()
        return ("true",) if r < 0.05 else ("false",) if r < 0.1 else ("ap", rng.randrange(props))
    op = rng.choice(["!", "&&", "||", "->", "<->", "U", "R", "[]", "<>", "X"])
    if op in ("!", "X", "[]", "<>"):
        return (op, formula(rng, depth - 1, props))
    return (op, formula(rng, depth - 1, props), formula(rng, depth - 1, props))


def has_next(f: tuple) -> bool:
    return f[0] == "X" or any(isinstance(g, tuple) and has_next(g) for g in f[1:])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("formulas", type=int, nargs="?", default=2000)
    ap.add_argument("-o", "--output", default=None)
    args = ap.parse_args()
    rng = random.Random(2026)
    spin = shutil.which("spin")
    words = definition_bad = spin_compared = spin_formulas = spin_bad = spin_none = 0
    states = []
    bad_lines = []
    start = time.time()
    for i in range(args.formulas):
        if i % 100 == 0:
            print(f"{i} formulas, {time.time() - start:.0f} s", file=sys.stderr, flush=True)
        f = formula(rng, 5, 3)
        ours = translate(f)
        states.append(ours.states)
        theirs = spin_buchi(f, spin, timeout=20) if spin and not has_next(f) else None
        spin_formulas += theirs is not None
        spin_none += spin is not None and not has_next(f) and theirs is None
        for _ in range(20):
            n = rng.randint(1, 7)
            word = [frozenset(p for p in range(3) if rng.random() < 0.5) for _ in range(n)]
            loop = rng.randrange(n)
            words += 1
            truth = holds_on_lasso(f, word, loop)
            if accepts_lasso(ours, word, loop) != truth:
                definition_bad += 1
                bad_lines.append(f"- ours vs definition: `{show(f)}` on {[sorted(w) for w in word]} loop {loop}")
            if theirs is not None:
                spin_compared += 1
                if accepts_lasso(theirs, word, loop) != truth:
                    spin_bad += 1
                    bad_lines.append(f"- Spin vs definition: `{show(f)}` on {[sorted(w) for w in word]} loop {loop}")
    seconds = time.time() - start
    text = f"""# The LTL -> Büchi translator against LTL's definition and Spin (issue 30)

`python results/ltl_translator.py {args.formulas}` ({seconds:.0f} s on a shared 2-core machine).
Random formulas over 3 propositions, depth up to 5, every operator of PAT's LTL (`!`, `&&`,
`||`, `->`, `<->`, `X`, `U`, `R`, `[]`, `<>`, `true`, `false`); 20 random lasso words each
(stem and cycle of 1 to 7 letters).  Our automaton (GPVW tableau, degeneralised) accepts a
lasso iff the formula holds on it by the definition (`holds_on_lasso`, fixpoints over the
lasso's positions); Spin 6.5.2's `spin -f` (its never claim read back) is compared on the
formulas without X, which this Spin refuses ("expected predicate, saw 'X'").

| | formulas | lasso words | disagreements |
|---|---:|---:|---:|
| ours vs the definition | {args.formulas:,} | {words:,} | {definition_bad} |
| Spin vs the definition (X-free formulas) | {spin_formulas:,} | {spin_compared:,} | {spin_bad} |

Spin gave no automaton within 20 s for {spin_none} further X-free formulas (its translator's
time on some nested `U`/`V` formulas of depth 5); they are compared with the definition only.

Automaton sizes (ours): median {sorted(states)[len(states) // 2]} states, largest {max(states)}.
""" + ("\nDisagreements:\n" + "\n".join(bad_lines[:50]) + "\n" if bad_lines else "")
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
