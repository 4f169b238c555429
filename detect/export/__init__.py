"""Exports for other tools: GAP, a versioned JSON document, dreadnaut, DIMACS, Graphviz pictures.

Every text exporter is a generator of lines (each ending in ``\\n``) so that big graphs are
streamed, and every file is written by ``atomic_write``: into a temporary file next to the
target, renamed over it only when the last chunk has been written.  A reader therefore sees
either the old file or the complete new one, never half an export.

Points.  ``SymmetryGroup.points`` act on the 0-based literal points ``literals``; GAP and
DIMACS count from 1, so point ``p`` is written ``p + 1`` there.  dreadnaut is told ``$=0``
and gets the 0-based node numbers of the coloured graph directly.

State permutations for model checkers (the ``state_permutation`` of each JSON generator).
A generator σ acts on states as ``σ(s)[target[k]] = values[k][s[k]]``
(``detect.symmetry.perm.StatePermutation``).  Per global variable it is written as::

    {"variable": "token", "target": "token", "index": [1, 2, 0],
     "values": [[0, 1], [0, 1], [0, 1]]}

meaning: element ``i`` of ``token`` moves to element ``index[i]`` of ``target``, and its
value ``domain[j]`` (the variable's sorted domain, listed in ``state_variables``) becomes
``values[i][j]``.  So the rotation above maps ``token[0]=1`` to ``token[1]=1``.  A scalar has
one element (``index == [0]``).  ``target`` is a list of per-element variable names in the
rare case where one variable's elements go to different variables.
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional, Sequence, Union

from detect.symmetry.graph import CONSTRAINT, FRAME, INIT, LITERAL, SUMMAND, TUPLE, VARIABLE, ColouredGraph
from detect.symmetry.group import SymmetryGroup, literal_cycles
from detect.ir import SequentialModel, state_slots
from detect.symmetry.perm import StatePermutation

FORMATS = ("gap", "json", "dreadnaut", "dimacs", "dot", "png", "svg", "murphi")
#: Formats that only need the coloured graph (no automorphisms are computed for them).
GRAPH_FORMATS = ("dreadnaut", "dimacs", "dot", "png", "svg")
PICTURE_FORMATS = ("png", "svg")
LAYOUTS = ("sfdp", "neato", "fdp", "dot")

SCHEMA_ID = "urn:symdetect:schema:symmetries-v1"
SCHEMA_VERSION = 1
SCHEMA_FILE = os.path.join(os.path.dirname(__file__), "schema", "symmetries-v1.json")


class ExportError(Exception):
    """An export that cannot be made as asked (picture too big, tool missing, bad view)."""


# ------------------------------------------------------------------------------ atomic write


def atomic_write(path: str, chunks: Iterable[Union[str, bytes]]) -> None:
    """Write ``chunks`` to ``path`` as a shell's ``>`` would, but all-or-nothing where it can.

    A symbolic link is written through: its target (created if the link dangles) gets the
    contents and the link stays.  A regular file (or none) is replaced atomically: a
    temporary file in the same directory (so the rename stays on one file system) is renamed
    over it on success and removed on any error, including one raised by the ``chunks``
    iterator itself; an existing file keeps its permissions.  Anything else -- a FIFO, a
    device such as ``/dev/null`` -- is written in place: replacing it would destroy it."""
    target = os.path.realpath(path)
    try:
        existing = os.stat(target)
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        with open(target, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
        return
    directory = os.path.dirname(target)
    fd, temporary = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(target) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
            handle.flush()
            os.fsync(handle.fileno())
        if existing is not None:
            mode = stat.S_IMODE(existing.st_mode)
        else:
            # mkstemp creates the file 0600; give it the permissions a plain open() would.
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


# ------------------------------------------------------------------------------ GAP


def gap_permutation(images: Sequence[int]) -> str:
    """Cycle notation on points 1..n of a 0-based image list; ``()`` when nothing moves."""
    cycles = literal_cycles(images, [str(p + 1) for p in range(len(images))])
    return "".join("(" + ",".join(cycle) + ")" for cycle in cycles) or "()"


def gap_lines(group: SymmetryGroup, title: str) -> Iterator[str]:
    """A GAP file defining ``G`` (the state group on points 1..n) and ``literals``, its legend."""
    yield f"# symdetect: symmetry group of {title}\n"
    yield f"# G acts on points 1..{len(group.literals)}; point p is the literal literals[p].\n"
    yield f"# Group order computed by symdetect: {group.full_order}\n"
    if group.full_order != group.order:
        yield (f"# (order {group.order} on the states the value analysis allows: the generators marked "
               "inert fix all of them)\n")
    for p, literal in enumerate(group.literals):
        yield f"#   {p + 1:>5}  {literal}\n"
    yield "literals := [\n"
    for p, literal in enumerate(group.literals):
        yield "  " + json.dumps(literal) + ("," if p + 1 < len(group.literals) else "") + "\n"
    yield "];\n"
    # Group([]) is an error in GAP; the trivial group needs its identity as generator.
    perms = [gap_permutation(images) for images in group.points] or ["()"]
    yield "G := Group([\n"
    for i, (perm, gen) in enumerate(zip(perms, group.generators or [None])):
        if gen is not None:
            yield f"  # {gen.description}{' (inert)' if gen.inert else ''}\n"
        yield "  " + perm + ("," if i + 1 < len(perms) else "") + "\n"
    yield "]);\n"


# ------------------------------------------------------------------------------ JSON


def state_variables_json(model: SequentialModel) -> list[dict]:
    out = []
    for v in model.variables:
        entry = {"name": v.name, "size": v.size, "domain": list(v.domain), "owner": v.owner}
        names = {str(value): name for value, name in v.value_names if value in v.domain}
        if names:
            entry["value_names"] = names
        out.append(entry)
    return out


def state_permutation_json(sigma: StatePermutation, model: SequentialModel) -> list[dict]:
    """σ per global variable: element index map and per-element value images (see module doc)."""
    slots = state_slots(model)
    entries, k = [], 0
    for var in model.variables:
        targets, index, values = [], [], []
        for _ in range(var.length):
            to = slots[sigma.target[k]]
            targets.append(to.variable)
            index.append(to.index)
            values.append([sigma.values[k][a] for a in slots[k].domain])
            k += 1
        target = targets[0] if all(t == targets[0] for t in targets) else targets
        entries.append({"variable": var.name, "target": target, "index": index, "values": values})
    return entries


def _summary(detection) -> dict:
    """The fields every JSON report of a detection starts with."""
    model = detection.model
    return {
        "model": model.name,
        "source": model.source,
        "parameters": dict(model.parameters),
        "group_order": detection.group.full_order,
        "acting_group_order": detection.group.order,
        "graph_group_order": detection.automorphisms.order,
        "engine": detection.automorphisms.engine,
    }


def _graph_size(graph) -> dict:
    return {"nodes": graph.n, "edges": len(graph.edges), "colours": len(graph.colour_keys)}


def _csp_size(csp) -> dict:
    return {"variables": len(csp.variables), "constraints": len(csp.constraints),
            "summands": len(csp.summands)}


def _timings(timings: Sequence[tuple[str, float]]) -> dict:
    return {name: round(seconds, 6) for name, seconds in timings}


def analysis_json(detection, timings: Sequence[tuple[str, float]], report=None, measured=None,
                  graph_limit: Optional[int] = None) -> dict:
    """``analyze --json``: the group, its generators in words and cycles, graph and CSP sizes,
    stage timings; with ``report`` (``--verify``) and ``measured`` (``--completeness``) their
    verdicts."""
    data = _summary(detection)
    data["generators"] = [
        {"kind": g.kind, "description": g.description, "cycles": [list(c) for c in g.cycles], "inert": g.inert}
        for g in detection.group.generators
    ]
    data["graph"] = _graph_size(detection.graph)
    data["csp"] = _csp_size(detection.csp)
    data["timings"] = _timings(timings)
    if detection.domains is not None:
        d = detection.domains
        data["domains"] = {
            "source": "reachable states", "states": d.states, "transitions": d.transitions,
            "narrowed": {name: list(values) for name, _, values in d.narrowed},
        }
    if report is not None:
        data["verify"] = {
            "ok": report.ok,
            "complete": report.complete,
            "states": report.states,
            "checked_states": report.checked,
            "stopped_by": report.stopped_by or None,
            "advice": report.advice() or None,
            "generators": [{"ok": v.ok, "message": v.message} for v in report.verdicts],
            "reachable_group_order": report.reachable_order,
            "inert_generators": list(report.inert),
        }
    if measured is not None:
        data["completeness"] = {
            "found_order": measured.found_order, "true_order": measured.true_order,
            "complete": measured.complete, "states": measured.states,
            "explored_all": measured.explored_all, "missing": measured.missing,
            "stopped_by": measured.stopped_by or None, "advice": measured.advice(graph_limit) or None,
            "seconds": round(measured.seconds, 6),
        }
    return data


def json_document(detection, timings: Sequence[tuple[str, float]]) -> dict:
    """The versioned export: every field of ``analyze --json`` plus literals, points and the
    per-variable state permutations (schema: ``detect/export/schema/symmetries-v1.json``)."""
    model, graph, group = detection.model, detection.graph, detection.group
    classes = graph.colour_classes()
    return {
        "schema": SCHEMA_ID,
        "version": SCHEMA_VERSION,
        **_summary(detection),
        "state_variables": state_variables_json(model),
        "literals": list(group.literals),
        "generators": [
            {
                "kind": g.kind,
                "description": g.description,
                "cycles": [list(c) for c in g.cycles],
                "inert": g.inert,
                "points": list(images),
                "state_permutation": state_permutation_json(g.permutation, model),
            }
            for g, images in zip(group.generators, group.points)
        ],
        "graph": {
            **_graph_size(graph),
            "colour_classes": [
                {"key": key, "size": len(members)} for key, members in zip(graph.colour_keys, classes)
            ],
        },
        "csp": _csp_size(detection.csp),
        "timings": _timings(timings),
    }


def json_lines(document: dict) -> Iterator[str]:
    yield json.dumps(document, indent=2, ensure_ascii=False)
    yield "\n"


def load_schema() -> dict:
    with open(SCHEMA_FILE, encoding="utf-8") as handle:
        return json.load(handle)


# ------------------------------------------------------------------------------ graph formats


def _neighbours(graph: ColouredGraph) -> list[list[int]]:
    adjacency: list[list[int]] = [[] for _ in range(graph.n)]
    for u, v in graph.edges:
        adjacency[u].append(v)
        adjacency[v].append(u)
    return adjacency


def dreadnaut_lines(graph: ColouredGraph, title: str, run: bool = False) -> Iterator[str]:
    """dreadnaut input: sparse nauty (``As``; change it to ``At`` for Traces), 0-based nodes,
    the graph, the colour partition in the graph's canonical colour order (sorted colour
    keys), and ``x`` (run) if asked.  Piping the file plus ``x`` into dreadnaut prints
    ``grpsize=``, which equals ``Detection.automorphisms.order``."""
    yield f"\" symdetect: coloured graph of {title}; colours in order: "
    yield "; ".join(key.replace('"', "'") for key in graph.colour_keys) + " \"\n"
    yield "As $=0\n"
    yield f"n={graph.n} g\n"
    # Each undirected edge once, from its smaller end; dreadnaut adds the reverse (mode -d).
    later: list[list[int]] = [[] for _ in range(graph.n)]
    for u, v in graph.edges:
        later[u].append(v)
    for u in range(graph.n):
        if later[u]:
            yield f"{u}: " + " ".join(map(str, later[u])) + ";\n"
    yield ".\n"
    yield "f=[" + " | ".join(",".join(map(str, cls)) for cls in graph.colour_classes()) + "]\n"
    if run:
        yield "x\n"


def dimacs_lines(graph: ColouredGraph, title: str) -> Iterator[str]:
    """DIMACS for bliss: ``p edge n m``, ``n v c`` (1-based node, colour index), ``e u v``."""
    yield f"c symdetect: coloured graph of {title}\n"
    for c, key in enumerate(graph.colour_keys):
        yield f"c colour {c}: {key}\n"
    yield from graph.dimacs_lines()


# ------------------------------------------------------------------------------ pictures

#: Kelly's colours of maximum contrast (without white), then a few more distinct hues.
PALETTE = (
    "#F3C300", "#875692", "#F38400", "#A1CAF1", "#BE0032", "#C2B280", "#848482", "#008856",
    "#E68FAC", "#0067A5", "#F99379", "#604E97", "#F6A600", "#B3446C", "#DCD300", "#882D17",
    "#8DB600", "#654522", "#E25822", "#2B3D26", "#1CE6FF", "#FF34FF", "#222222", "#7A4900",
)
#: Node kind → (Graphviz shape, width in inches): kinds stay apart even where colours repeat.
SHAPES = {
    SUMMAND: ("doubleoctagon", 0.55),
    VARIABLE: ("box", 0.30),
    LITERAL: ("circle", 0.16),
    CONSTRAINT: ("diamond", 0.32),
    INIT: ("house", 0.32),
    TUPLE: ("circle", 0.08),
    FRAME: ("triangle", 0.22),
}
#: Pictures with more nodes than this are refused unless a smaller view is chosen.
DEFAULT_MAX_NODES = 2_000
#: Node labels are drawn only for views this small (beyond that they are an unreadable blur).
LABEL_LIMIT = 120


@dataclass(frozen=True)
class View:
    """The part of a coloured graph to draw: sorted node ids and what was selected."""

    nodes: tuple[int, ...]
    caption: str


def select_view(
    graph: ColouredGraph,
    summand: Optional[int] = None,
    constraint: Optional[int] = None,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> View:
    """The whole graph, or the part around one summand / one constraint (seed 002, Fig. 5):
    the node, its constraints, their tuples, the literals those touch and their variables."""
    adjacency = _neighbours(graph)
    if summand is not None and constraint is not None:
        raise ExportError("choose at most one of --summand and --constraint")
    if summand is None and constraint is None:
        nodes, caption = tuple(range(graph.n)), "whole graph"
    else:
        kinds = (SUMMAND,) if summand is not None else (CONSTRAINT, INIT)
        candidates = [v for v in range(graph.n) if graph.kind[v] in kinds]
        which = summand if summand is not None else constraint
        noun = "summand" if summand is not None else "constraint"
        if not 0 <= which < len(candidates):
            raise ExportError(f"--{noun} {which}: the graph has {noun}s 0..{len(candidates) - 1}")
        centre = candidates[which]
        chosen = {centre}
        # Walk outwards along the structure only (never through a literal into other
        # constraints), so the view is exactly what this summand/constraint contributes.
        frontier = [centre]
        while frontier:
            v = frontier.pop()
            for w in adjacency[v]:
                if w in chosen:
                    continue
                if graph.kind[v] in (SUMMAND,) and graph.kind[w] in (CONSTRAINT, FRAME):
                    chosen.add(w); frontier.append(w)
                elif graph.kind[v] in (CONSTRAINT, INIT) and graph.kind[w] in (TUPLE, LITERAL):
                    chosen.add(w); frontier.append(w)
                elif graph.kind[v] == TUPLE and graph.kind[w] == LITERAL:
                    chosen.add(w); frontier.append(w)
                elif graph.kind[v] == LITERAL and graph.kind[w] == VARIABLE:
                    chosen.add(w)
                elif graph.kind[v] == FRAME and graph.kind[w] == VARIABLE:
                    chosen.add(w)
        nodes, caption = tuple(sorted(chosen)), f"{noun} {which}: {graph.label[centre]}"
    if len(nodes) > max_nodes:
        raise ExportError(
            f"the picture would have {len(nodes)} nodes (more than --max-nodes {max_nodes}); "
            "draw one part with --summand K or --constraint K, or raise --max-nodes"
        )
    return View(nodes, caption)


def _shape(kind: str, labelled: bool) -> tuple[str, float]:
    shape, width = SHAPES.get(kind, ("circle", 0.2))
    if labelled and shape == "circle":
        # A labelled circle grows to fit its whole label; an ellipse stays compact.
        shape = "ellipse"
    return shape, width


def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def dot_lines(graph: ColouredGraph, view: View, title: str) -> Iterator[str]:
    """Graphviz source: nodes filled by colour class and shaped by kind, with a legend table
    (colour → colour key, node kind, count) as the graph's label."""
    keep = set(view.nodes)
    labelled = len(view.nodes) <= LABEL_LIMIT
    yield "graph symdetect {\n"
    yield ("  graph [overlap=prism, overlap_scaling=-4, outputorder=edgesfirst, splines=false, "
           "bgcolor=white, pad=0.3, labelloc=b, fontname=Helvetica, fontsize=24];\n")
    yield "  node [style=filled, penwidth=0.6, fontname=Helvetica, fontsize=12, fixedsize=false];\n"
    yield "  edge [color=\"#00000040\", penwidth=0.6];\n"
    for v in view.nodes:
        shape, width = _shape(graph.kind[v], labelled)
        colour = PALETTE[graph.colour[v] % len(PALETTE)]
        label = _dot_string(graph.label[v]) if labelled else '""'
        size = "" if labelled else f", width={width}, height={width}, fixedsize=true"
        yield f"  n{v} [shape={shape}, fillcolor=\"{colour}\", label={label}{size}];\n"
    for u, v in graph.edges:
        if u in keep and v in keep:
            yield f"  n{u} -- n{v};\n"
    counts = [0] * len(graph.colour_keys)
    kind_of = [""] * len(graph.colour_keys)
    for v in view.nodes:
        counts[graph.colour[v]] += 1
        kind_of[graph.colour[v]] = graph.kind[v]
    rows = [
        f'<TR><TD BGCOLOR="{PALETTE[c % len(PALETTE)]}" WIDTH="40"> </TD>'
        f'<TD ALIGN="LEFT">{_html(kind_of[c])} ({_shape(kind_of[c], labelled)[0]})</TD>'
        f'<TD ALIGN="LEFT">{_html(key)}</TD><TD ALIGN="RIGHT">{counts[c]}</TD></TR>'
        for c, key in enumerate(graph.colour_keys) if counts[c]
    ]
    edges_drawn = sum(1 for u, v in graph.edges if u in keep and v in keep)
    heading = (f"<TR><TD COLSPAN=\"4\"><B>{_html(title)}</B> — {_html(view.caption)}: "
               f"{len(view.nodes)} nodes, {edges_drawn} edges</TD></TR>"
               "<TR><TD><B>colour</B></TD><TD ALIGN=\"LEFT\"><B>node kind (shape)</B></TD>"
               "<TD ALIGN=\"LEFT\"><B>colour key</B></TD><TD><B>nodes</B></TD></TR>")
    yield ("  label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"4\">"
           + heading + "".join(rows) + "</TABLE>>;\n")
    yield "}\n"


def render(dot_source: str, fmt: str, layout: str = "sfdp") -> bytes:
    """Run Graphviz; ``ExportError`` when it is missing or fails."""
    if fmt not in PICTURE_FORMATS:
        raise ExportError(f"cannot render format {fmt!r}; choose one of {', '.join(PICTURE_FORMATS)}")
    if layout not in LAYOUTS:
        raise ExportError(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
    program = shutil.which(layout)
    if program is None:
        raise ExportError(f"Graphviz '{layout}' is not installed (Debian package graphviz); "
                          "use --format dot and render elsewhere")
    extra = ["-Gdpi=110"] if fmt == "png" else []
    done = subprocess.run([program, f"-T{fmt}", *extra], input=dot_source.encode("utf-8"),
                          capture_output=True)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ExportError(f"{layout} failed: {message[-1] if message else 'exit code ' + str(done.returncode)}")
    return done.stdout


# ------------------------------------------------------------------------------ one entry point


@dataclass(frozen=True)
class ExportOptions:
    engine: str = "auto"
    table_limit: int = 100_000
    #: dreadnaut: end the file with ``x`` so that piping it into dreadnaut runs it.
    run: bool = False
    summand: Optional[int] = None
    constraint: Optional[int] = None
    max_nodes: int = DEFAULT_MAX_NODES
    layout: str = "sfdp"
    #: see ``detect.symmetry.pipeline.csp_of``
    domain_states: int = 0
    #: ``GraphTooLarge`` before building a coloured graph of more nodes and edges in all
    graph_limit: Optional[int] = None


def title_of(model: SequentialModel) -> str:
    params = ", ".join(f"{k}={v}" for k, v in model.parameters)
    return model.name + (f" ({params})" if params else "")


def export_chunks(
    model: SequentialModel, fmt: str, options: ExportOptions = ExportOptions(),
    earlier_timings: Sequence[tuple[str, float]] = (),
) -> Iterator[Union[str, bytes]]:
    """The chunks of ``model`` exported as ``fmt``.  Graph formats build only the CSP and the
    coloured graph; ``gap`` and ``json`` run the whole detection.  Pictures are checked for
    size (``ExportError``) before anything is rendered."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    title = title_of(model)
    if fmt == "murphi":
        # The export rewrites the source: read it before the (long) detection.
        if not model.source.endswith(".m"):
            raise ExportError("--format murphi needs a Murphi model (.m)")
        try:
            with open(model.source, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise ExportError(f"cannot read {model.source}: {e.strerror or e}") from None
    if fmt in GRAPH_FORMATS:
        from detect.symmetry.graph import build_graph, check_graph_size
        from detect.ir import validate
        from detect.symmetry.pipeline import csp_of

        validate(model)
        csp = csp_of(model, options.table_limit, options.domain_states)[1]
        if options.graph_limit is not None:
            check_graph_size(csp, options.graph_limit)
        graph = build_graph(csp)
        if fmt == "dreadnaut":
            return dreadnaut_lines(graph, title, options.run)
        if fmt == "dimacs":
            return dimacs_lines(graph, title)
        view = select_view(graph, options.summand, options.constraint, options.max_nodes)
        source = dot_lines(graph, view, title)
        if fmt == "dot":
            return source
        return iter([render("".join(source), fmt, options.layout)])
    from detect.symmetry.pipeline import detect

    detection = detect(model, engine=options.engine, table_limit=options.table_limit,
                       domain_states=options.domain_states, graph_limit=options.graph_limit)
    if fmt == "gap":
        return gap_lines(detection.group, title)
    if fmt == "murphi":
        from detect.export.murphi import murphi_lines

        return murphi_lines(detection, text)
    return json_lines(json_document(detection, tuple(earlier_timings) + detection.timings))
