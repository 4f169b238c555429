"""Symmetry of the BEEM DVE corpus instances: what we detect, and the most there could be.

    python results/dve_symmetry.py [CORPUS_DIR]

Library part (used by ``results/dve_corpus.py``; the group and orbit enumerations it reports
with are ``detect.checking.orbits``):

* ``analyse(path)`` runs ``detect.symmetry.pipeline.detect`` and ``detect.checking.verify.verify`` on one
  instance and computes ``reachable_symmetry_order`` as an independent upper bound;
* ``reachable_symmetry_order(model)`` is the order of the group of *all* state permutations
  (slot map plus per-slot value maps, as ``detect.symmetry.perm.StatePermutation``) that are
  symmetries of the reachable LTS, acting on the reachable states.  It is computed without
  the coloured-graph method, by ``detect.checking.completeness`` (``analyze --completeness``): bliss
  or nauty on a graph of slots, literals, reachable states and transitions.  When the
  detected group (whose generators all verify) has that same order, it is the whole
  symmetry group of the instance: nothing was missed by the linearisation.
* ``pc_histograms(model)``: for each process, how many reachable states have its program
  counter at each location.  A symmetry that maps ``P.state`` onto ``Q.state`` maps the
  states with ``P.state = a`` onto those with ``Q.state = σ(a)``, so the sorted count lists
  of P and Q must be equal; when they differ no symmetry can exchange P and Q at all.
"""
from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from detect.statespace.compile import compile_model  # noqa: E402
from detect.checking.completeness import true_symmetries  # noqa: E402
from detect.symmetry.constraints import TableTooLarge  # noqa: E402
from detect.statespace.explore import reachable_graph  # noqa: E402
from detect.symmetry.group import SymmetryGroup  # noqa: E402
from detect.ir import SequentialModel, state_slots  # noqa: E402
from detect.symmetry.pipeline import detect  # noqa: E402
from detect.transform.reachable import ReachableDomains  # noqa: E402
from detect.checking.verify import VerifyReport, reachable_action_order, verify  # noqa: E402
from detect.transform.load import narrowed  # noqa: E402
from frontends import dve  # noqa: E402

load = narrowed(dve.load)

#: The corpus instances need at most 131,584 rows for one constraint (fischer's timer update
#: ``(t-1) | ((t==255)*255)`` over t in 0..255); 2·10^6 stays well below memory trouble.
TABLE_LIMIT = 2_000_000
#: ``detect``'s ``domain_states``: gear.1's ``toGear`` needs the reachable domains.
DOMAIN_STATES = 1_000_000


@dataclass(frozen=True)
class InstanceSymmetry:
    """Detection, verification and the independent bound for one DVE file.

    ``group``/``report`` are None when detection failed; ``failure`` then says why.
    """

    instance: str
    model: SequentialModel
    group: Optional[SymmetryGroup]
    report: Optional[VerifyReport]
    failure: str
    detect_seconds: float
    verify_seconds: float
    reachable_order: int
    bound_seconds: float
    #: set when the domains came from the reachable states (``model`` is then narrowed)
    domains: Optional[ReachableDomains] = None

    @property
    def order(self) -> Optional[int]:
        return None if self.group is None else self.group.order


def reachable_symmetry_order(model: SequentialModel, max_states: int = 1_000_000) -> int:
    """Order, on reachable states, of the group of all state-permutation symmetries
    (``detect.checking.completeness``, the engine behind ``analyze --completeness``); raises
    ``ValueError`` if the state space exceeds ``max_states``."""
    graph = reachable_graph(compile_model(model), max_states)
    if not graph.complete:
        raise ValueError(f"more than {max_states} reachable states")
    return reachable_action_order(graph.states, true_symmetries(model, graph))


def pc_histograms(model: SequentialModel, max_states: int = 1_000_000) -> dict[str, dict[int, int]]:
    """Process name -> {pc value: number of reachable states with that pc}."""
    graph = reachable_graph(model, max_states)
    slots = state_slots(model)
    result = {}
    for k, slot in enumerate(slots):
        if slot.variable.endswith(".state") and model.variable(slot.variable).size is None:
            counts = Counter(state[k] for state in graph.states)
            result[slot.variable[: -len(".state")]] = dict(sorted(counts.items()))
    return result


def analyse(path: Path, table_limit: int = TABLE_LIMIT) -> InstanceSymmetry:
    """Detect, verify and bound the symmetry of the DVE instance at ``path``."""
    model = load(path)
    start = time.perf_counter()
    group, report, failure, domains = None, None, "", None
    try:
        detection = detect(model, table_limit=table_limit, domain_states=DOMAIN_STATES)
        # The input, or its narrowing to the reachable domains (same LTS): the generators
        # act on its domains.
        group, model, domains = detection.group, detection.model, detection.domains
    except TableTooLarge as e:
        failure = f"TableTooLarge: {e}"
    detected = time.perf_counter()
    if group is not None:
        report = verify(model, [g.permutation for g in group.generators])
    verified = time.perf_counter()
    order = reachable_symmetry_order(model)
    bounded = time.perf_counter()
    name = path.name[: -len(".dve")] if path.name.endswith(".dve") else path.name
    return InstanceSymmetry(name, model, group, report, failure, detected - start,
                            verified - detected, order, bounded - verified, domains)


def describe(result: InstanceSymmetry) -> str:
    """Markdown lines: the generators in words, the verdict and the bound."""
    lines = [f"### {result.instance}", ""]
    if result.group is None:
        lines.append(f"Detection failed: {result.failure}")
    else:
        if result.domains is not None:
            lines.append(result.domains.summary()[0].upper() + result.domains.summary()[1:] + ".\n")
        lines.append(f"Detected group order {result.group.order} "
                     f"(detection {result.detect_seconds:.2f} s), generators:")
        for g in result.group.generators:
            lines.append(f"- {g.kind}: {g.description}")
        if not result.group.generators:
            lines.append("- none (trivial group)")
        lines.append(f"\n`verify`: {'every generator is a symmetry' if result.report.ok else 'FAILED'} "
                     f"(checked on {result.report.states:,} states, {result.verify_seconds:.2f} s).")
    lines.append(f"Order of the group of all state-permutation symmetries of the reachable LTS: "
                 f"{result.reachable_order}.")
    return "\n".join(lines)


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / ".." / "shared" / "corpus" / "beem" / "dve"
    for path in sorted(corpus.glob("*.dve")):
        print(describe(analyse(path)), "\n", flush=True)


if __name__ == "__main__":
    main()
