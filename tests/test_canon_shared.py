"""One C canonicaliser (``detect/statespace/native/canon.c``) for the native explorer and the
Spin verifier ``symdetect spin`` writes (issue 31: "reuse our C canonicaliser, do not write a
second").  ``canonicaliser_c`` writes the group's tables as C constants (sympan's way); here
they are compiled with a small driver and compared, state by state, with the Python
canonicalisers the native explorer's C stands for (sorting, S_m on pids, least image over
all elements), on the reachable states of bundled models."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from detect.statespace.native.canon import CANON_C, CanonTables, canonicaliser_c

ROOT = Path(__file__).resolve().parents[1]

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed")

DRIVER = """
#include <stdio.h>
#include <stdint.h>
#include <string.h>
typedef int64_t i64;
{canon}
int main(void)
{{  i64 t[CANON_MAX]; long long x; int k;
    for (;;)
    {{  for (k = 0; k < {n}; k++)
        {{  if (scanf("%lld", &x) != 1) return 0;
            t[k] = x;
        }}
        canon_apply(&canon, t);
        for (k = 0; k < {n}; k++) printf("%lld ", (long long) t[k]);
        printf("\\n");
    }}
}}
"""


def _element_tables(model, group, order):
    """Every element of ``group`` on the slots, in ``CanonTables``' gather form."""
    from detect.export.spin import _slot_action
    from detect.ir import state_slots
    from detect.ir.points import LiteralPoints
    from detect.symmetry.permgroup import permutation_group

    pts = LiteralPoints.of(model)
    n = len(state_slots(model))
    gens = [tuple(g) for g in group.acting_points]
    maps = {(0, ()): 0}
    elements = []
    for g in permutation_group(gens, len(pts.pairs)).elements():
        target, values = _slot_action(g, pts, n)
        image = [(0, 0)] * n
        for k in range(n):
            renamed = {v: w for v, w in values[k].items() if v != w}
            m = 0
            if renamed:
                lo, hi = min(renamed), max(renamed)
                m = maps.setdefault((lo, tuple(renamed.get(v, v) for v in range(lo, hi + 1))), len(maps))
            image[target[k]] = (k, m)
        elements.append(tuple(image))
    by_id = [m for m, _ in sorted(maps.items(), key=lambda kv: kv[1])]
    return CanonTables(n, elements=tuple(elements), maps=tuple(by_id), order=tuple(order))


def _compare(tmp_path, model, reducer, tables, limit=400):
    from detect.statespace.explore import reachable_graph

    src = tmp_path / "canon.c"
    src.write_text(DRIVER.format(canon=canonicaliser_c(tables, "canon"), n=tables.nslots))
    exe = tmp_path / "canon"
    subprocess.run(["gcc", "-O1", "-o", str(exe), str(src)], check=True, capture_output=True, timeout=120)
    states = list(reachable_graph(model, limit).states)[:limit]
    run = subprocess.run([str(exe)], input="\n".join(" ".join(map(str, s)) for s in states) + "\n",
                         capture_output=True, text=True, timeout=120, check=True)
    got = [tuple(int(x) for x in line.split()) for line in run.stdout.splitlines()]
    assert len(got) == len(states)
    for s, c in zip(states, got):
        assert c == tuple(reducer.canonicalise(s)), s
    return len({c for c in got})


def _detected(path):
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    detection = detect(load_model(path, domain_states=100_000), domain_states=100_000)
    return detection.model, detection.group


@needs_gcc
def test_native_runtime_and_sympan_include_the_same_canonicaliser():
    """The native explorer's runtime is built around canon.c, and so is sympan's source."""
    from detect.export.spin import _canon_code, spin_symmetry
    from detect.statespace.native.codegen import RUNTIME

    assert CANON_C in RUNTIME
    model, group = _detected(ROOT / "models" / "peterson_pid.pml")
    sym = spin_symmetry(model, group, (ROOT / "models" / "peterson_pid.pml").read_text())
    structs = {fd.proctype: "P0" for fd in sym.fields if fd.proctype is not None}
    code = _canon_code(sym, structs, [], {})
    assert CANON_C in code and "canon_apply(&sym_canon, sym_t);" in code
    assert "S_3 on 3 pids" in sym.canonical_form()


@needs_gcc
def test_pid_tables_written_as_constants_canonicalise_as_python(tmp_path):
    """S_3 on pids (peterson_pid: pid values renamed): the constant tables sympan compiles give
    the Python canonicaliser's least image on every state."""
    from detect.checking.reduce import make_reducer
    from detect.statespace.explore import PermutedPids

    model, group = _detected(ROOT / "models" / "peterson_pid.pml")
    reducer = make_reducer(model, group, "exact")
    spec = reducer.native_canonical
    assert isinstance(spec, PermutedPids)
    tables = CanonTables(len(spec.pid_of), pid_blocks=spec.blocks, pid_fixed=spec.fixed, pid_of=spec.pid_of)
    assert _compare(tmp_path, model, reducer, tables) > 1


@needs_gcc
def test_sorted_blocks_written_as_constants_canonicalise_as_python(tmp_path):
    from detect.checking.reduce import make_reducer
    from detect.statespace.explore import SortedBlocks

    model, group = _detected(ROOT / "models" / "token_pool.pml")
    reducer = make_reducer(model, group, "exact")
    assert isinstance(reducer.native_canonical, SortedBlocks)
    from detect.ir import state_slots

    tables = CanonTables(len(state_slots(model)), blocks=reducer.native_canonical.blocks)
    assert _compare(tmp_path, model, reducer, tables) > 1


@needs_gcc
@pytest.mark.parametrize("name", ["peterson_pid.pml", "load_balancer.pml"])
def test_every_element_written_as_constants_canonicalises_as_python(tmp_path, name):
    """The least image over all elements in the key order (``--reduce enumerate``'s)."""
    from detect.checking.reduce import make_reducer

    model, group = _detected(ROOT / "models" / name)
    reducer = make_reducer(model, group, "enumerate")
    tables = _element_tables(model, group, reducer.slot_order)
    assert len(tables.elements) == group.order or len(tables.elements) > 1
    assert _compare(tmp_path, model, reducer, tables) > 1


@needs_gcc
@pytest.mark.parametrize("name", ["peterson_pid.pml", "load_balancer.pml"])
def test_native_explorer_runs_the_element_canonicaliser(name):
    """``--reduce enumerate`` in the native explorer: canon_elements with the tables set at run
    time gives the Python least image on every state, and the same reduced count."""
    from detect.checking.reduce import explore_reduced, make_reducer
    from detect.statespace.explore import EnumeratedElements, reachable_graph
    from detect.statespace.native import NativeCanonicaliser

    model, group = _detected(ROOT / "models" / name)
    reducer = make_reducer(model, group, "enumerate")
    assert isinstance(reducer.native_canonical, EnumeratedElements)
    native = NativeCanonicaliser(model, reducer.canonicalise, reducer.native_canonical)
    for s in list(reachable_graph(model, 400).states)[:400]:
        assert native(s) == tuple(reducer.canonicalise(s))
    counts = {explorer: explore_reduced(model, "enumerate", explorer=explorer).exploration
              for explorer in ("native", "python")}
    assert not any("unavailable" in note for note in counts["native"].notes), counts["native"].notes
    assert counts["native"].states == counts["python"].states
