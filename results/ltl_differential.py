"""Random (model, formula) pairs: our verdict against ``pan -a`` (issue 30).

``python results/ltl_differential.py LO HI`` checks the pairs ``promela_gen.ltl_claimed(seed)``
for ``LO <= seed < HI``: pan compiled without ``-DSAFETY`` (no partial-order reduction) and
run with ``-a`` (no fairness) on the formula's claim (``spin_oracle.spin_ltl``), against
``symdetect explore``'s verdict (``spin_oracle.our_ltl``: the claim's end, acceptance cycles,
assertions and faults).  One line per pair, a summary at the end; pairs Spin itself refuses
(the generator's models Spin rejects: a jump into a d_step, a remote reference in a d_step)
are counted apart.  ``results/ltl_differential.md`` records a run.
"""
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.promela_gen import ltl_claimed  # noqa: E402
from tests.spin_oracle import SpinRefused, our_ltl, spin_ltl  # noqa: E402


def main(lo: int, hi: int) -> None:
    agree = refused = bad = 0
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
        except Exception as e:  # noqa: BLE001 - counted as a disagreement
            bad += 1
            print("ERROR", seed, type(e).__name__, str(e)[:300], flush=True)
            continue
        if ours != spin:
            bad += 1
            print("DISAGREE", seed, "spin", spin, "ours", ours, flush=True)
        else:
            agree += 1
            print("agree", seed, spin, flush=True)
    print(f"seeds {lo}..{hi}: agree {agree}, disagree/error {bad}, spin refused {refused}, "
          f"{time.time() - start:.0f}s")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
