"""Random (model, formula) pairs: our verdict against ``pan -a`` (issue 30), unreduced and reduced.

``python results/ltl_differential.py LO HI [--no-reduce] [--fair] [--endless] [--cpu S]`` checks
the pairs ``promela_gen.ltl_claimed(seed)`` for ``LO <= seed < HI``: pan compiled without ``-DSAFETY``
(no partial-order reduction) and run with ``-a`` (no fairness) on the formula's claim
(``spin_oracle.spin_ltl``), against ``symdetect explore``'s verdict (``spin_oracle.our_ltl``:
the claim's end, acceptance cycles, assertions and faults), unreduced and (unless
``--no-reduce``) with ``--reduce exact``: the group detected on the product with the claim
(the formula's stabiliser), acceptance cycles looked for on the quotient by it.  One line
per pair (seed, pan's verdict, ours unreduced, ours reduced), a summary at the end; pairs
Spin itself refuses (the generator's models Spin rejects: a jump into a d_step, a remote
reference in a d_step) are counted apart.  ``results/ltl_differential.md`` records a run.
With ``--fair``: ``pan -a -f`` (weak fairness) against ``explore --weak-fairness``, both
verdicts printed beside the unfair ones (the pairs where fairness changes pan's verdict are
the interesting ones); ``--endless``: the pairs ``promela_gen.fair_claimed(seed)`` instead
(models whose processes loop for ever, where fairness matters); ``results/ltl_fairness.md``
records a run.  ``--remote``: the pairs ``promela_gen.remote_ltl(seed)`` (formulas, init and
watchers reading the workers' variables by ``Wk[k]:l0`` and ``Wk:l0``, issue 28);
``results/ltl_remote.md`` records a run.  ``--cpu S``: each of our checks of a pair stopped
past S CPU seconds (not compared; pan is bounded by its wall-clock time-out).  ``--native``
(with ``--fair``): our unreduced verdict is the native nested search over the states with pan's
fairness counter (``runtime.c``, ``nx_ndfs_new_fair``), and the Python search's is printed beside
it (the two must agree; a pair where the native search did not run is counted apart).
"""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.promela_gen import fair_claimed, ltl_claimed, remote_ltl  # noqa: E402
from tests.spin_oracle import SpinRefused, cpu_bounded, our_ltl, spin_ltl, spin_ltl_fair  # noqa: E402


def main(lo: int, hi: int, reduce: bool = True, fair: bool = False, generate=ltl_claimed, cpu: float = 0,
         native: bool = False) -> None:
    agree = refused = bad = undecided = reduced_same = reduced_differs = changed = 0
    ran_native = python_differs = 0
    if native:
        from detect.checking import cycles

        plain = cycles._native_fair_cycle
        ran = []

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
                unfair, spin = spin_ltl_fair(text, Path(d)) if fair else (None, spin_ltl(text, Path(d)))
            except SpinRefused as e:
                refused += 1
                print("refused", seed, e, flush=True)
                continue
            except subprocess.TimeoutExpired as e:  # spin -a, gcc or pan past its bound: not compared
                refused += 1
                print("refused", seed, f"spin timed out: {' '.join(map(str, e.cmd))[:80]}", flush=True)
                continue
        changed += fair and unfair != spin
        try:
            if native:
                ran.clear()
                ours = cpu_bounded(cpu, our_ltl, text, fair=fair, engine="native")
                if ran and not any(ran):  # (none: the claim has no accepting state)
                    raise RuntimeError("the native fair search did not run")
                ran_native += any(ran)
                python = cpu_bounded(cpu, our_ltl, text, fair=fair, engine="python")
                python_differs += python != ours
            else:
                ours = cpu_bounded(cpu, our_ltl, text, fair=fair)
        except Exception as e:  # noqa: BLE001 - not compared; counted apart
            undecided += 1
            print("NOT-COMPARED", seed, type(e).__name__, str(e)[:300], flush=True)
            continue
        reduced = "-"
        if reduce:
            try:
                reduced = cpu_bounded(cpu, our_ltl, text, reduce="exact", fair=fair)
            except Exception as e:  # noqa: BLE001 - counted as a disagreement of the reduced run
                reduced = f"error {type(e).__name__}: {str(e)[:200]}"
            if reduced == ours:
                reduced_same += 1
            else:
                reduced_differs += 1
        extra = f" (pan without -f: {unfair})" if fair else ""
        extra += f" (python: {python})" if native else ""
        if ours != spin:
            bad += 1
            print("DISAGREE", seed, "spin", spin, "ours", ours, "reduced", reduced, extra, flush=True)
        else:
            agree += 1
            print("agree" if reduced in ("-", ours) else "REDUCED-DIFFERS", seed, spin, ours, reduced, extra,
                  flush=True)
    print(f"seeds {lo}..{hi}{' (pan -a -f, --weak-fairness)' if fair else ''}: agree {agree}, disagree {bad}, "
          f"not compared {undecided}, spin refused {refused}; reduced verdict = unreduced {reduced_same}, "
          f"differs {reduced_differs}" + (f"; fairness changed pan's verdict on {changed}" if fair else "")
          + (f"; the native search ran on {ran_native}, the Python search differs on {python_differs}" if native
             else "") + f"; {time.time() - start:.0f}s")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), "--no-reduce" not in sys.argv, "--fair" in sys.argv,
         fair_claimed if "--endless" in sys.argv else remote_ltl if "--remote" in sys.argv else ltl_claimed,
         float(sys.argv[sys.argv.index('--cpu') + 1]) if '--cpu' in sys.argv else 0, "--native" in sys.argv)
