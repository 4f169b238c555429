"""Random models with progress labels: our non-progress verdict against ``pan -l``.

``python results/np_differential.py LO HI`` checks ``promela_gen.progressed(seed)`` for ``LO <=
seed < HI``: pan compiled with ``-DNP -DNOREDUCE`` and run with ``-l`` (``spin_oracle.
spin_non_progress``) against ``symdetect explore --non-progress`` unreduced and with
``--reduce exact`` (non-progress cycles on the quotient by the detected group;
``spin_oracle.our_non_progress``).  One line per model (seed, pan, ours, ours reduced,
whether it has a progress label), a summary at the end; models Spin refuses are counted
apart.  ``results/np_differential.md`` records a run.
"""
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.promela_gen import progressed  # noqa: E402
from tests.spin_oracle import SpinRefused, our_non_progress, spin_non_progress  # noqa: E402


def main(lo: int, hi: int) -> None:
    agree = bad = refused = undecided = 0
    start = time.time()
    for seed in range(lo, hi):
        text = progressed(seed)
        with tempfile.TemporaryDirectory() as d:
            try:
                spin = spin_non_progress(text, Path(d))
            except SpinRefused as e:
                refused += 1
                print("refused", seed, str(e)[:150], flush=True)
                continue
        try:
            ours = our_non_progress(text)
        except Exception as e:  # noqa: BLE001 - not compared; counted apart
            undecided += 1
            print("NOT-COMPARED", seed, type(e).__name__, str(e)[:200], flush=True)
            continue
        try:
            reduced = our_non_progress(text, reduce="exact")
        except Exception as e:  # noqa: BLE001 - a disagreement of the reduced run
            reduced = f"error {type(e).__name__}"
        same = ours == spin and reduced == spin
        agree += same
        bad += not same
        print("agree" if same else "DISAGREE", seed, spin, ours, reduced, "progress" in text, flush=True)
    print(f"seeds {lo}..{hi}: agree {agree}, disagree {bad}, not compared {undecided}, spin refused {refused}; "
          f"{time.time() - start:.0f}s")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
