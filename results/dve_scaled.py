"""Benchmark: larger published BEEM instances, regenerated from the corpus templates.

    python results/dve_scaled.py [-o results/dve_scaled.md]

BEEM generates ``peterson`` and ``phils`` with m4 from one template per model; the corpus
holds only the smallest instances.  ``peterson_text`` and ``phils_text`` reproduce those
templates line for line (compare with ``peterson.1.dve``, ``phils.1.dve``, ``phils.2.dve``;
``test_generators_reproduce_the_corpus_instances`` in ``tests/test_frontend_dve.py`` checks
that the generated small instances have the published counts) and the published counts of
the larger instances (corpus README) are the oracle here.
"""
from __future__ import annotations

import argparse
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from detect.statespace.explore import explore_state_space  # noqa: E402
from detect.transform.load import narrowed  # noqa: E402
from frontends import dve  # noqa: E402

parse_text = narrowed(dve.parse_text)


def peterson_text(n: int) -> str:
    """BEEM ``peterson`` with ``n`` processes (peterson.1 is n=3, peterson.4 is n=4)."""
    procs = []
    for i in range(n):
        procs.append(f"""process P_{i} {{
byte j=0, k=0;
state NCS, CS, wait ,q2,q3;
init NCS;
trans
 NCS -> wait {{ effect j = 1; }},
 wait -> q2  {{ guard j < {n}; effect pos[{i}] = j;}},
 q2 -> q3 {{ effect step[j-1] = {i}, k = 0; }},
 q3 -> q3 {{ guard k < {n} && (k == {i} || pos[k] < j); effect k = k+1;}},
 q3 -> wait {{ guard step[j-1] != {i} || k == {n}; effect j = j+1;}},
 wait -> CS {{ guard j == {n}; }},
 CS -> NCS {{ effect pos[{i}] = 0;}};
}}""")
    return f"byte pos[{n}];\nbyte step[{n}];\n" + "\n".join(procs) + "\nsystem async;\n"


def phils_text(n: int, room: int | None = None) -> str:
    """BEEM ``phils``: the basic version (phils.1, phils.5) or with a room of ``room`` seats
    (phils.2, phils.4)."""
    procs = []
    for i in range(n):
        left, right = i, (i + 1) % n
        if room is None:
            procs.append(f"""process phil_{i} {{
state think, one, eat, finish;
init think;
trans
 think -> one {{guard fork[{left}] == 0; effect fork[{left}] = 1;}},
 one -> eat {{guard fork[{right}] == 0; effect fork[{right}] = 1;}},
 eat -> finish {{effect fork[{left}] = 0; }},
 finish -> think {{effect fork[{right}] = 0; }};
}}""")
        else:
            procs.append(f"""process phil_{i} {{
state think, inside, one, eat, finish;
init think;
trans
 think -> inside {{guard count < {room}; effect count = count+1;}},
 inside -> think {{effect count = count -1; }},
 inside -> one {{guard fork[{left}] == 0; effect fork[{left}] = 1;}},
 one -> eat {{guard fork[{right}] == 0; effect fork[{right}] = 1;}},
 eat -> finish {{effect fork[{left}] = 0; }},
 finish -> inside {{effect fork[{right}] = 0; }};
}}""")
    header = f"byte fork[{n}];\n" + ("byte count;\n" if room is not None else "")
    return header + "\n".join(procs) + "\nsystem async;\n"


def _promela_state(label: str, options: list[str]) -> str:
    """One DVE state as BEEM's Promela translation writes it: an ``if`` over its transitions."""
    return f"{label}: if\n" + "".join(f"{o} \n\n" for o in options) + "fi;\n"


def _option(guard: str, effects: str, target: str) -> str:
    """A transition (effects separated by ``;``): a guard with effects, or several effects,
    become one ``d_step`` (as BEEM translates); a lone guard or effect stays a statement."""
    parts = ([guard] if guard else []) + (effects.split(";") if effects else [])
    if len(parts) > 1:
        return f"::  d_step {{{''.join(x + ';' for x in parts)}}}  goto {target};"
    return f":: {parts[0]}; goto {target};"


def peterson_promela(n: int) -> str:
    """BEEM's Promela translation of ``peterson`` (peterson.1.pml is n=3)."""
    procs = []
    for i in range(n):
        body = "".join([
            _promela_state("NCS", [_option("", "j = 1", "wait")]),
            _promela_state("CS", [_option("", f"pos[{i}] = 0", "NCS")]),
            _promela_state("wait", [_option(f"j<{n}", f"pos[{i}] = j", "q2"),
                                    _option(f"j=={n}", "", "CS")]),
            _promela_state("q2", [_option("", f"step[j-1] = {i};k = 0", "q3")]),
            _promela_state("q3", [_option(f"k<{n} && (k=={i} || pos[k]<j)", "k = k+1", "q3"),
                                  _option(f"step[j-1]!={i} || k=={n}", "j = j+1", "wait")]),
        ])
        procs.append(f"active proctype P_{i}() {{ \nbyte j=0;\nbyte k=0;\n\n{body}}}\n\n")
    return f"byte pos[{n}];\nbyte step[{n}];\n\n\n" + "".join(procs)


def phils_promela(n: int, room: int | None = None) -> str:
    """BEEM's Promela translation of ``phils`` (phils.1.pml: n=4; phils.2.pml: n=5, room=3)."""
    procs = []
    for i in range(n):
        left, right = i, (i + 1) % n
        back = "think" if room is None else "inside"
        states = []
        if room is not None:
            states.append(_promela_state("think", [_option(f"count<{room}", "count = count+1", "inside")]))
            states.append(_promela_state("inside", [_option("", "count = count-1", "think"),
                                                    _option(f"fork[{left}]==0", f"fork[{left}] = 1", "one")]))
        else:
            states.append(_promela_state("think", [_option(f"fork[{left}]==0", f"fork[{left}] = 1", "one")]))
        states += [
            _promela_state("one", [_option(f"fork[{right}]==0", f"fork[{right}] = 1", "eat")]),
            _promela_state("eat", [_option("", f"fork[{left}] = 0", "finish")]),
            _promela_state("finish", [_option("", f"fork[{right}] = 0", back)]),
        ]
        procs.append(f"active proctype phil_{i}() {{ \n\n{''.join(states)}}}\n\n")
    header = f"byte fork[{n}];\n" + ("byte count=0;\n" if room is not None else "")
    return header + "\n\n" + "".join(procs)


#: (instance, parameters, DVE text, Promela text, published BEEM state count)
INSTANCES = [
    ("peterson.1", "N=3", lambda: peterson_text(3), lambda: peterson_promela(3), 12_498),
    ("phils.1", "N=4", lambda: phils_text(4), lambda: phils_promela(4), 80),
    ("phils.2", "ROOM=3 N=5", lambda: phils_text(5, 3), lambda: phils_promela(5, 3), 581),
    ("peterson.4", "N=4", lambda: peterson_text(4), lambda: peterson_promela(4), 1_119_560),
    ("phils.4", "ROOM=7 N=9", lambda: phils_text(9, 7), lambda: phils_promela(9, 7), 340_789),
    ("phils.5", "N=12", lambda: phils_text(12), lambda: phils_promela(12), 531_440),
]


def main() -> None:
    from results.dve_corpus import machine, run_spin

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=str(REPO / "results" / "dve_scaled.md"))
    parser.add_argument("--no-spin", action="store_true", help="skip the Spin columns")
    args = parser.parse_args()
    with_spin = not args.no_spin and shutil.which("spin") is not None and shutil.which("gcc") is not None
    lines = [
        "# Larger BEEM instances regenerated from the templates, with Spin side by side",
        "",
        "Generated by `python results/dve_scaled.py`; unreduced exploration with",
        "`detect.statespace.explore.explore_state_space` (search seconds, after compiling the model).  A transition is",
        "a distinct (source, target) pair.  Spin runs the same instance in BEEM's Promela",
        "translation (generated here like `../shared/corpus/beem/promela/*.pml`; a test checks the",
        "corpus files are reproduced) with `spin -o3 -a; gcc -O2 -DSAFETY -DNOREDUCE;",
        "./pan -m1000000 -c0 -n`, in the same run; its states/s use pan's reported search time.",
        "Spin's counts differ from DiVinE's: its translation merges guard and effect into one",
        "`d_step` but keeps Promela's own end/init states.",
        f"Machine: {machine()}.  One run each, wall clock.",
        "",
        "| instance | parameters | states (BEEM) | states (ours) | match | transitions | load s | explore s "
        "| states/s | Spin states | Spin search s | Spin states/s | ours / Spin |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, params, make, make_promela, published in INSTANCES:
        start = time.perf_counter()
        model = parse_text(make(), f"{name}.dve")
        loaded = time.perf_counter() - start
        result = explore_state_space(model, max_states=5_000_000)
        spin_cells = ["—"] * 4
        if with_spin:
            with tempfile.TemporaryDirectory(prefix=f"spin-{name}-") as tmp:
                pml = Path(tmp) / f"{name}.pml"
                pml.write_text(make_promela())
                (Path(tmp) / "run").mkdir()
                spin = run_spin(pml, Path(tmp) / "run")
            rate = spin.states_per_second
            spin_cells = [
                f"{spin.states:,}" + (" (truncated)" if spin.truncated else ""),
                f"{spin.search_seconds:.2f}",
                f"{rate:,.0f}" if rate else "<0.01 s",
                f"{result.states_per_second / rate:.2f}" if rate else "—",
            ]
        lines.append(
            f"| {name} | {params} | {published:,} | {result.states:,} | "
            f"{'yes' if result.states == published else 'NO'} | {result.transitions:,} | "
            f"{loaded:.2f} | {result.seconds:.2f} | {result.states_per_second:,.0f} | "
            + " | ".join(spin_cells) + " |"
        )
        print(lines[-1], flush=True)
    Path(args.output).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
