"""Random models with progress labels: our non-progress verdict against ``pan -l``.

``python results/np_differential.py LO HI [--fair] [--no-reduce] [--endless] [--cpu S]`` checks
``promela_gen.progressed(seed)`` for ``LO <= seed < HI``: pan compiled with ``-DNP -DNOREDUCE`` and run with ``-l`` (``spin_oracle.
spin_non_progress``) against ``symdetect explore --non-progress`` unreduced and with
``--reduce exact`` (non-progress cycles on the quotient by the detected group;
``spin_oracle.our_non_progress``).  One line per model (seed, pan, ours, ours reduced,
whether it has a progress label), a summary at the end; models Spin refuses are counted
apart.  ``results/np_differential.md`` records a run.  With ``--fair``: ``pan -l -f`` (weak
fairness) against ``explore --non-progress --weak-fairness``, pan's verdict without ``-f``
printed beside; ``--endless``: the models ``promela_gen.fair_progressed(seed)`` (processes
that loop for ever) instead; ``--cpu S``: each of our checks of a model stopped past S CPU
seconds (not compared; pan is bounded by its wall-clock time-out); ``--native`` (with
``--fair``): our unreduced verdict from the native nested search with pan's fairness counter
(``runtime.c``, ``nx_ndfs_new_fair``; a model where it did not run is not compared).
"""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.promela_gen import fair_progressed, progressed  # noqa: E402
from tests.spin_oracle import SpinRefused, cpu_bounded, our_non_progress, spin_non_progress, spin_non_progress_fair  # noqa: E402


def main(lo: int, hi: int, fair: bool = False, reduce: bool = True, generate=progressed, cpu: float = 0,
         native: bool = False) -> None:
    agree = bad = refused = undecided = changed = 0
    ran = []
    if native:
        from detect.checking import cycles

        plain = cycles._native_fair_cycle

        def counted(*args, **kwargs):
            out = plain(*args, **kwargs)
            ran.append(out is not None)
            return out
        cycles._native_fair_cycle = counted
    start = time.time()
    for seed in range(lo, hi):
        text = generate(seed)
        with tempfile.TemporaryDirectory() as d:
            try:
                unfair, spin = (spin_non_progress_fair(text, Path(d)) if fair
                                else (None, spin_non_progress(text, Path(d))))
            except SpinRefused as e:
                refused += 1
                print("refused", seed, str(e)[:150], flush=True)
                continue
            except subprocess.TimeoutExpired as e:  # spin -a, gcc or pan past its bound: not compared
                refused += 1
                print("refused", seed, f"spin timed out: {' '.join(map(str, e.cmd))[:80]}", flush=True)
                continue
        changed += fair and unfair != spin
        try:
            ran.clear()
            ours = cpu_bounded(cpu, our_non_progress, text, fair=fair, engine="native" if native else None)
            if native and ran and not any(ran):  # (none: nothing accepts)
                raise RuntimeError("the native fair search did not run")
        except Exception as e:  # noqa: BLE001 - not compared; counted apart
            undecided += 1
            print("NOT-COMPARED", seed, type(e).__name__, str(e)[:200], flush=True)
            continue
        reduced = ours
        if reduce:
            try:
                reduced = cpu_bounded(cpu, our_non_progress, text, reduce="exact", fair=fair)
            except Exception as e:  # noqa: BLE001 - a disagreement of the reduced run
                reduced = f"error {type(e).__name__}"
        same = ours == spin and reduced == spin
        agree += same
        bad += not same
        print("agree" if same else "DISAGREE", seed, spin, ours, reduced if reduce else "-", "progress" in text,
              f"(pan -l without -f: {unfair})" if fair else "", flush=True)
    print(f"seeds {lo}..{hi}{' (pan -l -f, --weak-fairness)' if fair else ''}: agree {agree}, disagree {bad}, "
          f"not compared {undecided}, spin refused {refused}"
          + (f"; fairness changed pan's verdict on {changed}" if fair else "") + f"; {time.time() - start:.0f}s")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), "--fair" in sys.argv, "--no-reduce" not in sys.argv,
         fair_progressed if "--endless" in sys.argv else progressed,
         float(sys.argv[sys.argv.index('--cpu') + 1]) if '--cpu' in sys.argv else 0, "--native" in sys.argv)
