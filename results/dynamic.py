"""Dynamic process creation (issue 14, seed 001): for each bundled Promela model with
run-time ``run``, Spin's "states, stored" beside ours, and the states explored under seed
001's pid abstraction, alone and with the detected group.

Run from the repository root:  python3 results/dynamic.py > results/dynamic.md
"""
from __future__ import annotations

import os
import platform
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODELS = ("dynamic_server.pml", "dynamic_pool.pml", "dynamic_ring.pml", "dynamic_session.pml",
          "dynamic_workers.pml")


def row(name: str) -> str:
    from detect.checking.pids import anonymous_pids, pid_canonicaliser
    from detect.checking.reduce import explore_reduced
    from detect.checking.spin_counts import spin_stored_states
    from detect.statespace.compile import compile_model
    from detect.statespace.explore import explore_state_space
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model
    from tests.spin_oracle import spin_available, spin_counts

    path = ROOT / "models" / name
    start = time.perf_counter()
    spin = spin_counts(path.read_text()).stored if spin_available() else "n/a"
    model = load_model(str(path))
    stored, ours, _ = spin_stored_states(model)
    detection = detect(model, domain_states=1_000_000)
    abstraction = anonymous_pids(detection.model)
    if abstraction is None:
        alone, groups = ours, "none"
    else:
        alone = explore_state_space(compile_model(detection.model),
                                    canonicalise=pid_canonicaliser(abstraction)).states
        groups = " + ".join(str(len(g)) for g in abstraction.groups)
    forced = forced_abstraction(detection.model) if abstraction is None else ""
    both = explore_reduced(model, "pids", detection=detection).exploration.states
    exact = explore_reduced(model, "exact", detection=detection).exploration.states
    seconds = time.perf_counter() - start
    return (f"| {name} | {spin:,} | {stored:,} | {ours:,} | {groups} | {alone:,} | "
            f"{detection.group.order:,} | {exact:,} | {both:,} | {forced} | {seconds:.1f} |")


def forced_abstraction(model) -> str:
    """The pid abstraction applied anyway to the instances of every proctype run creates:
    its classes of reachable states, and how many states are not bisimilar to their
    canonical form (their canonical successors differ): why it is not applied."""
    import dataclasses

    from detect.checking.pids import anonymous_pids, pid_canonicaliser
    from detect.statespace.compile import compile_model
    from detect.statespace.explore import reachable_graph

    # a process run creates is absent at the start: its slots all start at 0
    start = {v.name: v.init for v in model.variables}
    created = {p.family for p in model.processes if all(start[v][k] == (0,) for v, k in p.slots if v in start)}
    groups = tuple(g for g in (tuple(p.name for p in model.processes if p.family == f) for f in sorted(created))
                   if len(g) > 1)
    if not groups:
        return "-"
    forced = dataclasses.replace(model, annotations=model.annotations + (("anonymous_pids", (groups, ("_atomic",))),))
    canon = pid_canonicaliser(anonymous_pids(forced))
    compiled = compile_model(model)
    graph = reachable_graph(compiled)
    wrong = sum(1 for s in graph.states
                if {canon(t) for t in compiled.successors(s)} != {canon(t) for t in compiled.successors(canon(s))})
    return f"{len({canon(s) for s in graph.states}):,} / {wrong:,}"


def main() -> None:
    warnings.simplefilter("ignore")
    os.chdir(ROOT)
    print("# Dynamic process creation (issue 14, seed 001)\n")
    print(f"Measured by `results/dynamic.py` on {platform.machine()}, {os.cpu_count()} cores, default "
          "parameters and `--max-procs` (8).  Spin: `spin -a -o1 -o2 -o3`, pan with `-DSAFETY -DNOREDUCE "
          "-DNOCLAIM`.  *ours, Spin's count*: our reachable states less those Spin does not store "
          "(inside atomic sequences); *ours, all*: every reachable state, the unit of the reduced "
          "columns.  *anonymous*: processes per group whose pids the pid abstraction may permute "
          "(`detect.checking.pids`); *pids*: states explored with the pid abstraction alone; "
          "*group*: the detected group's order; *exact*: `--reduce exact`; *pids + group*: "
          "`--reduce pids` (pid abstraction, then the group); *forced*: the abstraction applied anyway "
          "to every proctype that run creates: classes of reachable states / states not bisimilar to "
          "their canonical form.\n")
    print("| model | Spin stored | ours, Spin's count | ours, all | anonymous | pids | group | exact "
          "| pids + group | forced | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in MODELS:
        print(row(name), flush=True)
    print(NOTES)


NOTES = """
Every unreduced count equals Spin's (the tests pin them: `tests/test_dynamic_promela.py`).

**Why the pid abstraction applies to one model only.**  Seed 001 identifies states up to a
bijection of pids that preserves the relations between pids the model can observe.  In Spin
a new process takes pid `_nr_pr`, and only the newest process is removed when it ends
(`delproc` refuses any other), so the pids in use are always `0 .. _nr_pr - 1` *in creation
order*, and creation order is observable through removal: of two handlers that swap places,
only the one on the higher pid can be removed when it ends, and the next `run` then gets a
different pid.  An order-preserving bijection of `0 .. n - 1` is the identity, so for
processes that can end no reduction is exact; the *forced* column shows it on the server
(over a quarter of its states are not bisimilar to the canonical form forced on them).  Processes
that never end and never read `_pid` (`dynamic_workers.pml`) have no observable relation
between their pids (the seed's Ω* is empty): the front end names them
(`anonymous_pids`), and `--reduce pids` keeps one state per class -- 724 states become
162, checked to be a bisimulation on every reachable state and to equal the number of
classes by brute force (`tests/test_dynamic_promela.py`).

**What detection finds.**  The detected group never permutes run-created processes: `run`
fills the lowest free pid (`pid p - 1 in use, p free`), a condition that tells the pids
apart, so no permutation of them is an automorphism of the linearised model (group 1 on
every model here), and *pids + group* is the pid abstraction alone.
"""


if __name__ == "__main__":
    main()
