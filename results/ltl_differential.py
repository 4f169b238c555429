"""Random (model, formula) pairs: our verdict against ``pan -a`` (issue 30), unreduced and reduced.

``python results/ltl_differential.py LO HI [--no-reduce]`` checks the pairs
``promela_gen.ltl_claimed(seed)`` for ``LO <= seed < HI``: pan compiled without ``-DSAFETY``
(no partial-order reduction) and run with ``-a`` (no fairness) on the formula's claim
(``spin_oracle.spin_ltl``), against ``symdetect explore``'s verdict (``spin_oracle.our_ltl``:
the claim's end, acceptance cycles, assertions and faults), unreduced and (unless
``--no-reduce``) with ``--reduce exact``: the group detected on the product with the claim
(the formula's stabiliser), acceptance cycles looked for on the quotient by it.  One line
per pair (seed, pan's verdict, ours unreduced, ours reduced), a summary at the end; pairs
Spin itself refuses (the generator's models Spin rejects: a jump into a d_step, a remote
reference in a d_step) are counted apart.  ``results/ltl_differential.md`` records a run.
"""
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.promela_gen import ltl_claimed  # noqa: E402
from tests.spin_oracle import SpinRefused, our_ltl, spin_ltl  # noqa: E402


def main(lo: int, hi: int, reduce: bool = True) -> None:
    agree = refused = bad = undecided = reduced_same = reduced_differs = 0
    start = time.time()
    for seed in range(lo, hi):
        text = ltl_claimed(seed)
        with tempfile.TemporaryDirectory() as d:
            try:
                spin = spin_ltl(text, Path(d))
            except SpinRefused as e:
                refused += 1
                print("refused", seed, e, flush=True)
                continue
        try:
            ours = our_ltl(text)
        except Exception as e:  # noqa: BLE001 - not compared; counted apart
            undecided += 1
            print("NOT-COMPARED", seed, type(e).__name__, str(e)[:300], flush=True)
            continue
        reduced = "-"
        if reduce:
            try:
                reduced = our_ltl(text, reduce="exact")
            except Exception as e:  # noqa: BLE001 - counted as a disagreement of the reduced run
                reduced = f"error {type(e).__name__}: {str(e)[:200]}"
            if reduced == ours:
                reduced_same += 1
            else:
                reduced_differs += 1
        if ours != spin:
            bad += 1
            print("DISAGREE", seed, "spin", spin, "ours", ours, "reduced", reduced, flush=True)
        else:
            agree += 1
            print("agree" if reduced in ("-", ours) else "REDUCED-DIFFERS", seed, spin, ours, reduced, flush=True)
    print(f"seeds {lo}..{hi}: agree {agree}, disagree {bad}, not compared {undecided}, spin refused {refused}; "
          f"reduced verdict = unreduced {reduced_same}, differs {reduced_differs}; {time.time() - start:.0f}s")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), "--no-reduce" not in sys.argv)
