"""``symdetect spin``: a Spin verifier that stores each state in canonical form under the
detected group (TopSPIN's ``sympan`` idea, for Spin 6.5).

Supported case (anything else is refused with one line saying why): the detected group is
exactly the symmetric group on the processes of one proctype, acting by moving whole
process blocks and renaming no value (so no pid-valued variable, no ``_pid`` read), and
the model has no channels, no never claim or ``ltl`` formula, no ``run`` and no ``_last``.
Then swapping the blocks of two such processes in pan's state vector ``now`` (pan's own
``proc_offset``; each block keeps its ``_pid`` field) is an automorphism of Spin's state
graph, and ``sympan.c`` -- ``pan.c`` with its hash-table store called on a copy of ``now``
whose blocks are sorted (memcmp order, ``_pid`` zeroed while comparing) -- stores one
state per orbit; the search itself still runs on the real states.  Invariant: Spin's
"states, stored" from ``sympan`` equals ``reduced_spin_stored`` (tests compare them).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Optional, Sequence

from detect.ir import SequentialModel, state_slots

GCC = "gcc -O2 -DSAFETY -DNOREDUCE -o sympan sympan.c"
RUN = "./sympan -m100000"


class SpinExportError(Exception):
    """The model is outside the supported case, or Spin failed: ``str`` is one line."""


@dataclass(frozen=True)
class ProcessSymmetry:
    """The group Sym(pids), all processes of ``proctype``; ``blocks`` our slot blocks."""

    proctype: str
    pids: tuple[int, ...]
    blocks: tuple[tuple[int, ...], ...]


_FORBIDDEN = [
    (re.compile(r"\bchan\b"), "it has channels"),
    (re.compile(r"\bnever\s*\{"), "it has a never claim"),
    (re.compile(r"\bltl\b"), "it has an ltl formula"),
    (re.compile(r"\brun\b"), "it creates processes with run"),
    (re.compile(r"\b_last\b"), "it reads _last"),
    (re.compile(r"\b_pid\b"), "it reads _pid (pid-valued data)"),
]


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


def check_source(source_text: str) -> None:
    """``SpinExportError`` if the Promela text has a construct the supported case excludes
    (cheap: run before detection)."""
    text = _strip_comments(source_text)
    for pattern, why in _FORBIDDEN:
        if pattern.search(text):
            raise SpinExportError(f"not supported yet: {why}")


def process_symmetry(model: SequentialModel, group, source_text: str) -> ProcessSymmetry:
    """The supported group of ``model`` (module docstring), or ``SpinExportError``.  Values
    may be renamed only in variables Spin's state vector does not have (``spin_hidden``:
    ``_atomic``, which names the pid inside an atomic sequence, is not part of ``now``)."""
    import math

    from detect.checking.reduce import slot_order
    from detect.checking.scalarset import aligned_blocks, slot_maps
    from detect.ir.points import LiteralPoints
    from detect.symmetry.permgroup import permutation_group

    check_source(source_text)
    if group.order == 1:
        raise SpinExportError("no symmetry detected (group order 1): nothing to reduce")
    slots = state_slots(model)
    hidden = set(model.annotation("spin_hidden", ()))
    pts = LiteralPoints.of(model)
    gens = [tuple(g) for g in group.acting_points]
    for g in gens:
        for p, (k, v) in enumerate(pts.pairs):
            if pts.pairs[g[p]][1] != v and slots[k].variable not in hidden:
                raise SpinExportError(f"not supported yet: the group renames values of {slots[k].variable} "
                                      "(pid-valued data)")
    maps = slot_maps(gens, pts)
    sym = permutation_group(gens, len(pts.pairs))
    blocks = aligned_blocks(maps, slot_order(sym, pts)) if maps is not None else None
    if blocks is None or sym.order() != math.factorial(len(blocks)):
        raise SpinExportError(f"not supported yet: the group (order {group.order}) is not the full symmetric "
                              "group on interchangeable processes")
    owned: dict = {}
    for k, sl in enumerate(slots):
        owned.setdefault(model.variable(sl.variable).owner, set()).add(k)
    by_name = {p.name: p for p in model.processes}
    procs = []
    for b in blocks:
        owners = {model.variable(slots[k].variable).owner for k in b}
        if len(owners) != 1 or None in owners or owned[next(iter(owners))] != set(b):
            raise SpinExportError("not supported yet: the group moves global variables or parts of processes")
        procs.append(by_name[next(iter(owners))])
    families = {p.family for p in procs}
    if len(families) != 1:
        raise SpinExportError("not supported yet: the group swaps processes of different proctypes")
    family = families.pop()
    if len(procs) != sum(1 for p in model.processes if p.family == family):
        raise SpinExportError(f"not supported yet: only some of the {family} processes are interchangeable")
    return ProcessSymmetry(family, tuple(p.pid for p in procs), tuple(tuple(b) for b in blocks))


def reduced_spin_stored(model: SequentialModel, sym: ProcessSymmetry, max_states: int = 1_000_000) -> int:
    """Spin's "states, stored" with states stored up to Sym(blocks): the orbits of the
    states Spin stores (``spin_counts``: our reachable states where Spin stores, without the
    hidden variables), by sorting the blocks."""
    import dataclasses

    from detect import ir
    from detect.checking.reduce import sorting_canonicaliser
    from detect.statespace.compile import compile_model
    from detect.statespace.explore import reachable_graph

    graph = reachable_graph(model, max_states)
    if len(graph.states) >= max_states:
        raise SpinExportError(f"more than {max_states:,} states")
    canon = sorting_canonicaliser(sym.blocks)
    slots = state_slots(model)
    hidden = set(model.annotation("spin_hidden", ()))
    stored = list(graph.states)
    if hidden:
        probe = compile_model(dataclasses.replace(
            model, summands=(ir.Summand((), model.annotation("spin_stored"), ir.Event("stored"), ()),),
            assertions=(), terminal=None))
        stored = [s for s in stored if probe.successors(s)]
    keep = [k for k, sl in enumerate(slots) if sl.variable not in hidden]
    return len({tuple(c[k] for k in keep) for c in map(canon, stored)})


def _struct_of(pan_h: str, proctype: str) -> str:
    m = re.search(r"typedef struct (P\d+) \{ /\* " + re.escape(proctype) + r" \*/", pan_h)
    if m is None:
        raise SpinExportError(f"pan.h has no process structure for proctype {proctype}")
    return m.group(1)


_STORES = ["if (!h_store((char *)&now, vsize))", "II = h_store((char *)&now, vsize);"]


def sympan_source(pan_c: str, struct: str, pids: Sequence[int]) -> str:
    """``pan.c`` with its state store canonicalising (module docstring)."""
    for site in _STORES:
        if site not in pan_c:
            raise SpinExportError(f"pan.c has no '{site}' (another Spin version?)")
        pan_c = pan_c.replace(site, site.replace("(char *)&now", "sym_canon()"))
    n = len(pids)
    code = f"""
/* symdetect: states are stored sorted under Sym(pids {", ".join(map(str, pids))}) of {struct}. */
#if defined(BITSTATE) || defined(MA) || defined(COLLAPSE) || defined(HC) || (defined(NCORE) && NCORE > 1) || defined(BFS_PAR) || !defined(NOREDUCE)
#error "symdetect sympan: build with -DSAFETY -DNOREDUCE, without BITSTATE/MA/COLLAPSE/HC/NCORE/BFS_PAR (not supported yet)"
#endif
static int sym_pids[{n}] = {{{", ".join(map(str, pids))}}};
static char sym_buf[VECTORSZ];
static char sym_block[{n}][sizeof({struct})];
static int sym_cmp(const void *a, const void *b) {{ return memcmp(a, b, sizeof({struct})); }}
static char *
sym_canon(void)
{{	int i, m = 0; unsigned saved[{n}];
	memcpy(sym_buf, (char *) &now, vsize);
	for (i = 0; i < {n}; i++)
	{{	if (sym_pids[i] >= (int) now._nr_pr) continue;
		saved[m] = (({struct} *) (sym_buf + proc_offset[sym_pids[i]]))->_pid;
		memcpy(sym_block[m], sym_buf + proc_offset[sym_pids[i]], sizeof({struct}));
		(({struct} *) sym_block[m])->_pid = 0;
		m++;
	}}
	if (m != {n}) return (char *) &now; /* not all created yet (cannot happen without run) */
	qsort(sym_block, m, sizeof({struct}), sym_cmp);
	for (i = 0; i < m; i++)
	{{	memcpy(sym_buf + proc_offset[sym_pids[i]], sym_block[i], sizeof({struct}));
		(({struct} *) (sym_buf + proc_offset[sym_pids[i]]))->_pid = saved[i];
	}}
	return sym_buf;
}}
"""
    # Declared after pan.h (``now``, the structures) and before the first store.
    head = '#include "pan.h"\n'
    if head not in pan_c:
        raise SpinExportError("pan.c does not include pan.h (another Spin version?)")
    pan_c = pan_c.replace(head, head + "static char *sym_canon(void);\n", 1)
    return pan_c + code


def write_verifier(model_path: str, defines: Sequence[str], out_dir: str, sym: ProcessSymmetry,
                   spin_options: Sequence[str] = ()) -> str:
    """Run ``spin [spin_options] -a`` in ``out_dir`` and write ``sympan.c`` beside pan.c;
    returns its path.  (Spin's own optimisations -- dead variables, statement merging -- treat
    processes of one proctype alike, so they keep the symmetry.)"""
    spin = shutil.which("spin")
    if spin is None:
        raise SpinExportError("spin is not installed (it writes pan.c)")
    os.makedirs(out_dir, exist_ok=True)
    run = subprocess.run([spin, *[f"-D{d}" for d in defines], *spin_options, "-a", os.path.abspath(model_path)],
                         cwd=out_dir, capture_output=True, text=True, timeout=300)
    if run.returncode != 0 or not os.path.exists(os.path.join(out_dir, "pan.c")):
        lines = (run.stdout + run.stderr).strip().splitlines()
        raise SpinExportError(f"spin -a failed: {lines[-1] if lines else 'exit %d' % run.returncode}")
    with open(os.path.join(out_dir, "pan.h")) as f:
        struct = _struct_of(f.read(), sym.proctype)
    with open(os.path.join(out_dir, "pan.c")) as f:
        source = sympan_source(f.read(), struct, sym.pids)
    path = os.path.join(out_dir, "sympan.c")
    with open(path, "w") as f:
        f.write(source)
    return path
