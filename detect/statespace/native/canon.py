"""The C canonicaliser (``canon.c``) and its tables for a group acting on a state layout.

One canonicaliser, two users: the native explorer compiles ``canon.c`` into its runtime and
sets the tables at run time (``nx_set_symmetry``, ``nx_set_pids``, ``nx_set_elements``); the Spin verifier of
``detect.export.spin`` includes the same text with the tables written as C constants by
``canonicaliser_c`` (its state is the fields of pan's ``now``, gathered into an ``i64`` array).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

#: canon.c: needs ``i64``, ``CANON_MAX``, ``<stdint.h>`` and ``<string.h>`` before it
CANON_C = (Path(__file__).with_name("canon.c")).read_text()


@dataclass(frozen=True)
class CanonTables:
    """A group on a state of ``nslots`` values, as one of ``canon.c``'s canonical forms:

    - ``blocks`` (non-empty): Sym(blocks), whole blocks permuted position by position;
    - else ``pid_blocks`` (non-empty): S_m on m pids, pid q's block ``pid_blocks[q]`` moved with
      it and each value naming a pid renamed (``pid_of[k]``: ``(value, pid)`` pairs of slot k;
      ``pid_fixed``: the slots the group fixes that name pids, first in the key);
    - else ``elements``: every element in gather form, image slot f = ``maps[m](x[src])`` for
      ``(src, m) = elements[e][f]`` (``elements[0]`` the identity; map 0 none, map m
      ``(lo, table)``: v -> ``table[v - lo]`` inside the table), least in slot order ``order``.
    Invariant: every form stores the image of a state under an element of the group."""

    nslots: int
    blocks: tuple[tuple[int, ...], ...] = ()
    pid_blocks: tuple[tuple[int, ...], ...] = ()
    pid_fixed: tuple[int, ...] = ()
    pid_of: tuple[tuple[tuple[int, int], ...], ...] = ()
    elements: tuple[tuple[tuple[int, int], ...], ...] = ()
    maps: tuple[tuple[int, tuple[int, ...]], ...] = ((0, ()),)
    order: tuple[int, ...] = ()

    def describe(self) -> str:
        if self.blocks:
            return f"sorting {len(self.blocks)} blocks of {len(self.blocks[0])} slots (S_{len(self.blocks)})"
        if self.pid_blocks:
            m = len(self.pid_blocks)
            return (f"S_{m} on {m} pids (blocks of {len(self.pid_blocks[0])} slots and the values naming pids): "
                    "greedy least image, backtracking over ties")
        return f"least image over the {len(self.elements):,} elements"


def gathered(images: Sequence[int], pairs: Sequence[tuple[int, int]], kept: Sequence[int],
             maps: dict[tuple[int, tuple[int, ...]], int]) -> Optional[tuple[tuple[int, int], ...]]:
    """The point permutation ``images`` (of the literal points ``pairs``: (slot, value)) on
    the slots ``kept``, in ``CanonTables``' gather form: per position f of ``kept``, the
    position its value comes from and the value map (added to ``maps``, (lo, table) -> id,
    id 0 the identity); None where the permutation splits a slot's values over several slots
    or moves a kept slot onto one not kept."""
    target: dict[int, int] = {}
    values: dict[int, dict[int, int]] = {}
    for p, (k, v) in enumerate(pairs):
        k2, v2 = pairs[images[p]]
        if target.setdefault(k, k2) != k2:
            return None
        values.setdefault(k, {})[v] = v2
    position = {k: f for f, k in enumerate(kept)}
    image: list[tuple[int, int]] = [(0, 0)] * len(kept)
    for k in kept:
        t = target.get(k, k)
        if t not in position:
            return None
        renamed = {v: w for v, w in values.get(k, {}).items() if v != w}
        m = 0
        if renamed:
            lo, hi = min(renamed), max(renamed)
            m = maps.setdefault((lo, tuple(renamed.get(v, v) for v in range(lo, hi + 1))), len(maps))
        image[position[t]] = (position[k], m)
    return tuple(image)


def map_list(maps: dict[tuple[int, tuple[int, ...]], int]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """``gathered``'s ``maps`` as ``CanonTables.maps`` (by id)."""
    return tuple(m for m, _ in sorted(maps.items(), key=lambda kv: kv[1]))


def element_arrays(tables: CanonTables) -> dict[str, list[int]]:
    """The flat arrays of the element tables (``canon_elements``): src, map, order, and the
    value maps' lo, len, off, tab."""
    out = {"src": [s for e in tables.elements for s, _ in e], "map": [m for e in tables.elements for _, m in e],
           "order": list(tables.order) or list(range(tables.nslots)), "lo": [], "len": [], "off": [], "tab": []}
    for m_lo, m_table in tables.maps:
        out["lo"].append(m_lo)
        out["len"].append(len(m_table))
        out["off"].append(len(out["tab"]))
        out["tab"].extend(m_table)
    return out


def _array(ctype: str, name: str, values: Sequence[int]) -> str:
    cells = [str(int(v)) for v in values] or ["0"]
    lines = [", ".join(cells[i:i + 24]) for i in range(0, len(cells), 24)]
    return f"static const {ctype} {name}[{len(cells)}] = {{\n\t" + ",\n\t".join(lines) + "\n};\n"


def canonicaliser_c(tables: CanonTables, name: str = "canon") -> str:
    """``canon.c`` and ``tables`` as C constants: ``static const Canon {name}``, applied to a
    state ``i64 t[CANON_MAX]`` by ``canon_apply(&{name}, t)``.  ``CANON_MAX`` is defined here
    (the includer defines ``i64`` and includes ``<stdint.h>``, ``<string.h>``)."""
    n = tables.nslots
    parts = [f"#define CANON_MAX {max(1, n)}\n", CANON_C, "\n"]
    # pid labels: value v of slot k names pid_label[poff[k] + v - lo[k]] inside the slot's range
    lo, size, poff, label, value = [], [], [], [], []
    labelled = [1 if k < len(tables.pid_of) and tables.pid_of[k] else 0 for k in range(n)]
    m = len(tables.pid_blocks)
    for k in range(n):
        pairs = dict(tables.pid_of[k]) if labelled[k] else {}
        first = min(pairs) if pairs else 0
        width = max(pairs) - first + 1 if pairs else 0
        lo.append(first)
        size.append(width)
        poff.append(len(label))
        label.extend(pairs.get(first + i, -1) for i in range(width))
        named = {q: v for v, q in pairs.items()}
        value.extend(named.get(q, 0) for q in range(m))
    arrays = element_arrays(tables)
    parts += [
        _array("int32_t", f"{name}_blocks", [k for b in tables.blocks for k in b]),
        _array("int32_t", f"{name}_pid_blocks", [k for b in tables.pid_blocks for k in b]),
        _array("int32_t", f"{name}_pid_fixed", tables.pid_fixed),
        _array("int32_t", f"{name}_pid_labelled", labelled),
        _array("int32_t", f"{name}_pid_label", label),
        _array("int32_t", f"{name}_poff", poff),
        _array("i64", f"{name}_pid_value", value),
        _array("i64", f"{name}_lab_lo", lo),
        _array("int32_t", f"{name}_lab_len", size),
        _array("int32_t", f"{name}_el_src", arrays["src"]),
        _array("int32_t", f"{name}_el_map", arrays["map"]),
        _array("int32_t", f"{name}_el_order", arrays["order"]),
        _array("i64", f"{name}_map_lo", arrays["lo"]),
        _array("i64", f"{name}_map_tab", arrays["tab"]),
        _array("int32_t", f"{name}_map_len", arrays["len"]),
        _array("int32_t", f"{name}_map_off", arrays["off"]),
        f"""
/* the index of value v in slot k's pid labels, or -1 outside them */
static i64 {name}_index_of(int k, i64 v) {{
    i64 i = v - {name}_lab_lo[k];
    return i >= 0 && i < {name}_lab_len[k] ? i : -1;
}}

static const Canon {name} = {{
    {n},
    {len(tables.blocks)}, {len(tables.blocks[0]) if tables.blocks else 0}, {name}_blocks,
    {m}, {len(tables.pid_blocks[0]) if m else 0}, {len(tables.pid_fixed)},
    {name}_pid_blocks, {name}_pid_fixed, {name}_pid_labelled, {name}_pid_label, {name}_poff,
    {name}_pid_value,
    {name}_index_of,
    {0 if tables.blocks or m else len(tables.elements)},
    {name}_el_src, {name}_el_map, {name}_el_order,
    {name}_map_lo, {name}_map_tab,
    {name}_map_len, {name}_map_off
}};
"""]
    return "".join(parts)
