"""Benchmark: the CMurphi corpus through the Murphi front end, its scalarset symmetry, and
exact reduction against Murphi's published ``-sym1`` counts.

    python results/murphi_corpus.py [CORPUS_DIR] [-o results/murphi_corpus.md]

One row per (file, N) in ``ROWS`` (``CORPUS_DIR`` defaults to ``../shared/corpus/murphi``):

* *states (Murphi)*: the count in the file's closing comment (``-nosym``); *states (ours)*:
  ``detect.statespace.explore.explore_state_space`` without reduction (its seconds are the search alone), skipped
  where ``UNREDUCED_LIMIT`` says it is too big to be worth the wait;
* *group order*: ``detect.symmetry.pipeline.detect``; *verify*: every generator checked against the
  explored LTS (``detect.checking.verify``, where the unreduced exploration is small enough);
* *reduced (exact)*: ``explore`` with ``make_reducer(model, group, "exact")`` -- one state
  per orbit, what ``--reduce exact`` runs -- next to Murphi's ``-sym1`` count (exact
  canonicalisation under the scalarset's permutations).
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from detect.statespace.explore import explore_state_space  # noqa: E402
from detect.symmetry.pipeline import detect  # noqa: E402
from detect.checking.reduce import make_reducer  # noqa: E402
from detect.checking.verify import verify  # noqa: E402
from frontends.murphi import load  # noqa: E402


@dataclass(frozen=True)
class Published:
    """Murphi's counts from the file's closing comment (``None``: not published)."""

    file: str
    n: Optional[int]  # the -D N=... override; None: the file's own value
    states: Optional[int]
    sym1: Optional[int]
    #: a model bundled in ``models/murphi/`` (ours; no published counts) instead of the corpus
    bundled: bool = False


ROWS = (
    Published("2_peterson.m", None, 26, None),
    Published("n_peterson.m", 3, 882, 172),
    Published("n_peterson.m", 4, None, None),
    Published("n_peterson.m", 5, 628_868, 6_770),
    Published("n_peterson.m", 6, None, 35_159),
    Published("german_small.m", 2, None, None, bundled=True),
    Published("german_small.m", 3, None, None, bundled=True),
)
#: Unreduced explorations beyond this N are skipped (N=6 would be ~2*10^7 states).
UNREDUCED_LIMIT = 5
#: Generators are verified on the explored LTS up to this N.
VERIFY_LIMIT = 4


@dataclass(frozen=True)
class Row:
    published: Published
    states: Optional[int]
    explore_seconds: Optional[float]
    order: int
    verified: Optional[bool]
    detect_seconds: float
    reduced: int
    reduced_seconds: float
    method: str


def measure(corpus: Path, p: Published) -> Row:
    defines = {} if p.n is None else {"N": p.n}
    model = load((REPO / "models" / "murphi" if p.bundled else corpus) / p.file, defines)
    states = seconds = None
    if p.n is None or p.n <= UNREDUCED_LIMIT:
        plain = explore_state_space(model)
        assert plain.faults == 0 and not plain.deadlocks, p
        states, seconds = plain.states, plain.seconds
    start = time.perf_counter()
    detection = detect(model)
    detect_seconds = time.perf_counter() - start
    verified = None
    if p.n is None or p.n <= VERIFY_LIMIT:
        verified = verify(model, [g.permutation for g in detection.group.generators]).ok
    reducer = make_reducer(model, detection.group, "exact")
    reduced = explore_state_space(model, canonicalise=reducer.canonicalise)
    return Row(p, states, seconds, detection.group.order, verified, detect_seconds,
               reduced.states, reduced.seconds, reducer.method)


def _int(n: Optional[int]) -> str:
    return "—" if n is None else f"{n:,}"


def _match(ours: Optional[int], theirs: Optional[int]) -> str:
    if ours is None or theirs is None:
        return "—"
    return "yes" if ours == theirs else "**no**"


def table(rows: list[Row]) -> str:
    lines = [
        "| model | N | states (Murphi) | states (ours) | match | explore s | group order | verify "
        "| detect s | reduced exact (ours) | Murphi -sym1 | match | reduced s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        p = r.published
        n = p.n if p.n is not None else 2
        lines.append(
            f"| {p.file} | {n} | {_int(p.states)} | {_int(r.states)} | {_match(r.states, p.states)} "
            f"| {'—' if r.explore_seconds is None else f'{r.explore_seconds:.2f}'} | {r.order:,} "
            f"| {'—' if r.verified is None else ('ok' if r.verified else '**FAILS**')} "
            f"| {r.detect_seconds:.2f} | {r.reduced:,} | {_int(p.sym1)} | {_match(r.reduced, p.sym1)} "
            f"| {r.reduced_seconds:.2f} |"
        )
    return "\n".join(lines)


def report(rows: list[Row]) -> str:
    import os

    load1, load5, load15 = os.getloadavg()
    methods = sorted({r.method for r in rows})
    return f"""# CMurphi corpus: exploration, scalarset symmetry, exact reduction vs Murphi -sym1

Generated by `python results/murphi_corpus.py` (see its docstring for the columns).
Murphi's counts are from each file's closing comment (older Murphi releases, the same
numbers as /work/shared/corpus/README.md); N is set with `-D N=...`, which overrides the
file's `Const N: 7`.  Scalarset values are 0..N-1, undefined is one extra value per
variable (`turn`'s -1), and states that differ only in definedness are distinct, as in
Murphi.  Timings are wall clock, one run each.

Machine: {os.cpu_count()} CPUs, load average {load1:.2f} {load5:.2f} {load15:.2f} at the end of the run;
{platform.machine()}, Python {platform.python_version()}.

{table(rows)}

Exact reduction used: {'; '.join(methods)}.

*Why the reduced counts equal Murphi's*: Murphi's `-sym1` keeps one state per orbit of
the scalarset's permutations, which act on `P[]`, `Q[]`, `localj[]` (indexed by `pid`) and
on the pid values stored in `turn[]` (its indices are `priority`, not permuted; its
undefined value is fixed).  The detected group is exactly that S_N: its generators are
process symmetries "with pid-valued data permuted alike", and `--reduce exact` counts
orbits, so the counts agree.  This needs the front end's case splitting of conditions
(`frontends/murphi/linearise.py`, `_Cases`): encoded as one expression, the
`Forall k: pid` of the "wait until" rule is a chain of binary `&&`s in the CSP, whose graph
only exchanges the first two pids (measured before the splitting: group order 2 at N=3 and N=4, 465 and 11,500 reduced states).

*german_small.m* is our own model (`models/murphi/german_small.m`, not in the corpus, so no
Murphi counts): a directory cache-coherence protocol written with procedures (`Send` with a
`Var` parameter, `Grant`), a function with an early `Return` inside a `For`
(`OthersShare`), `Alias` and `Switch`, which the front end inlines.  Its group order
includes data symmetries of enum values that never occur in some channels (order / N! of
them: 17,280); the process part is S_N, and the exact reduction counts scalarset orbits.
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(REPO / ".." / "shared" / "corpus" / "murphi"))
    parser.add_argument("-o", "--output", default=None, help="write the markdown report here")
    args = parser.parse_args(argv)
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"no Murphi corpus at {corpus}", file=sys.stderr)
        return 2
    rows = []
    for p in ROWS:
        rows.append(measure(corpus, p))
        print(table(rows).splitlines()[-1], file=sys.stderr, flush=True)
    text = report(rows)
    if args.output:
        Path(args.output).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
