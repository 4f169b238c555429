"""Weak fairness with symmetry: the verdict on the annotated quotient (`--reduce exact`) against the unreduced one.

``python results/fairness_reduced.py LO HI``: the seeds of ``promela_gen.fair_claimed`` whose model has an
``active [2]`` proctype, as an ltl check and (``fair_progressed``) a non-progress check; one line each (verdicts, the
group order, whether the quotient was used), a summary at the end.  ``results/ltl_fairness.md`` records a run.
"""
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.promela_gen import fair_claimed, fair_progressed  # noqa: E402
from detect.checking.cycles import check_acceptance  # noqa: E402
from detect.checking.reduce import acceptance_quotient, explore_reduced  # noqa: E402
from detect.symmetry.pipeline import detect  # noqa: E402
from detect.transform.narrowing import narrow  # noqa: E402
from frontends.promela import parse_text  # noqa: E402
from frontends.promela.claim import NON_PROGRESS  # noqa: E402

def verdict(text, name, reduce):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = narrow(parse_text(text, "m.pml", ltl_name=name))
    d = detect(m, domain_states=100_000) if reduce else None
    r = explore_reduced(m, "exact" if reduce else "none", detection=d, max_states=1_000_000, explorer="python")
    res = check_acceptance(m, r.exploration, 1_000_000, quotient=acceptance_quotient(d, r), weak_fairness=True)
    bad = res.faults > 0 or any(a.verdict == "fails" for a in res.assertions)
    a = [x for x in res.assertions if x.assertion.kind == "acceptance"][0]
    return bad, ("quotient" in a.note), (d.group.order if d else 1)

lo, hi = int(sys.argv[1]), int(sys.argv[2])
same = diff = err = onq = 0
for seed in range(lo, hi):
    t = fair_claimed(seed)
    if "active [2]" not in t: continue
    for kind, text, name in (("ltl", t, None), ("np", fair_progressed(seed), NON_PROGRESS)):
        try:
            a, _, _ = verdict(text, name, False); b, quot, order = verdict(text, name, True)
        except Exception as e:
            err += 1; print("ERR", seed, kind, type(e).__name__, str(e)[:200], flush=True); continue
        same += a == b; diff += a != b; onq += quot
        print("same" if a == b else "DIFFERS", seed, kind, a, b, f"order {order}", "quotient" if quot else "unreduced", flush=True)
print(f"seeds {lo}..{hi}: reduced = unreduced {same}, differs {diff}, errors {err}; on the quotient {onq}")
