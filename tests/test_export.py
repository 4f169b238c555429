"""Exports: the real tools (GAP, dreadnaut, bliss, Graphviz) agree with our group and graph
orders; the JSON validates against its schema; files are written all-or-nothing."""
from __future__ import annotations

import json
import os
import re
import shutil
import stat
import struct
import subprocess

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detect.cli import main
from detect.export import analysis_json
from detect.export import (
    ExportError, ExportOptions, atomic_write, dimacs_lines, dot_lines, dreadnaut_lines, export_chunks,
    gap_lines, gap_permutation, json_document, load_schema, select_view, state_permutation_json,
)
from detect.symmetry.graph import CONSTRAINT, INIT, LITERAL, SUMMAND, TUPLE, VARIABLE
from detect.ir import state_slots
from detect.symmetry.pipeline import detect
from detect.transform.load import load_model as load
from tests.ir_strategies import models

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(REPO, "models")

#: (model file, defines): process, data and mixed groups, the trivial group, a Promela model.
CASES = [
    ("token_circulation.csp", {"N": 3}),
    ("token_circulation.csp", {"N": 4}),
    ("client_server.csp", {"C": 4}),
    ("readers_writers.csp", {"M": 3, "W": 3}),
    ("dining_philosophers.csp", {"N": 3}),
    ("no_symmetry.csp", {}),
    ("peterson_filter.pml", {"N": 3}),
]
IDS = [f"{name}-{'-'.join(f'{k}{v}' for k, v in d.items())}" for name, d in CASES]

_detections: dict = {}


def detection_of(name: str, defines: dict):
    """Detections are cached per case: several tests look at the same model."""
    key = (name, tuple(sorted(defines.items())))
    if key not in _detections:
        _detections[key] = detect(load(os.path.join(MODELS, name), defines))
    return _detections[key]


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"'{tool}' is not installed (Debian packages gap-core, nauty, bliss, graphviz)")
    return path


def parse_order(text: str) -> float:
    """nauty and bliss print big orders in floating point (``1.2e10``); small ones exactly."""
    return int(text) if re.fullmatch(r"\d+", text) else float(text)


def dreadnaut_order(source: str) -> float:
    done = subprocess.run([need("dreadnaut")], input=source + "x\nq\n", capture_output=True, text=True,
                          timeout=120)
    match = re.search(r"grpsize=([0-9.e+]+)", done.stdout)
    assert match, done.stdout[-2000:] + done.stderr
    return parse_order(match.group(1))


def bliss_order(path: str) -> float:
    done = subprocess.run([need("bliss"), path], capture_output=True, text=True, timeout=120)
    match = re.search(r"\|Aut\|:\s*([0-9.e+]+)", done.stdout)
    assert match, done.stdout + done.stderr
    return parse_order(match.group(1))


def same_order(tool_order: float, ours: int) -> bool:
    if isinstance(tool_order, int):
        return tool_order == ours
    return abs(tool_order - ours) <= 1e-6 * ours


# ------------------------------------------------------------------------------ GAP


def test_gap_size_and_generators_match_our_group(tmp_path):
    need("gap")
    script = []
    expected = []
    for (name, defines), case in zip(CASES, IDS):
        d = detection_of(name, defines)
        path = tmp_path / f"{case}.g"
        atomic_write(str(path), gap_lines(d.group, case))
        n = len(d.group.literals)
        # Size, the legend's length, and every generator as an image list on 1..n.
        script.append(f'Read("{path}");')
        script.append(f'Print("@@{case} ", Size(G), " ", Length(literals), " ", '
                      f'"[", JoinStringsWithSeparator(List(GeneratorsOfGroup(G), g -> Concatenation("[", '
                      f'JoinStringsWithSeparator(List(ListPerm(g, {n}), String), ","), "]")), ","), "]\\n");')
        expected.append((case, d))
    script.append("QUIT;")
    done = subprocess.run([need("gap"), "-q"], input="\n".join(script), capture_output=True, text=True,
                          timeout=300)
    # GAP wraps long output lines; the @@ markers delimit one record each.
    flat = done.stdout.replace("\\\n", "").replace("\n", " ")
    lines = {record.split(" ", 1)[0]: record.strip() for record in flat.split("@@")[1:]}
    for case, d in expected:
        assert case in lines, done.stdout + done.stderr
        _, size, length, perms = lines[case].split(None, 3)
        assert int(size) == d.group.full_order, case  # G has the inert generators too
        assert int(length) == len(d.group.literals)
        images = json.loads("".join(perms.split()))
        # GAP drops identity generators and may reorder nothing else: compare as sets.
        ours = {tuple(p + 1 for p in g) for g in d.group.points}
        assert {tuple(g) for g in images if g != list(range(1, len(d.group.literals) + 1))} == ours, case


@given(st.permutations(range(9)))
def test_gap_cycle_notation_round_trips(images):
    text = gap_permutation(images)
    back = list(range(len(images)))
    for cycle in re.findall(r"\(([^)]*)\)", text):
        if not cycle:
            continue
        points = [int(p) - 1 for p in cycle.split(",")]
        for a, b in zip(points, points[1:] + points[:1]):
            back[a] = b
    assert back == list(images)
    assert (text == "()") == (list(images) == sorted(images))


def test_trivial_group_is_written_with_its_identity():
    d = detection_of("no_symmetry.csp", {})
    text = "".join(gap_lines(d.group, "no_symmetry"))
    assert d.group.order == 1
    assert re.search(r"G := Group\(\[\s*\(\)\s*\]\);", text)


# ------------------------------------------------------------------------------ graph formats


@pytest.mark.parametrize("name,defines", CASES, ids=IDS)
def test_dreadnaut_and_bliss_orders_equal_graph_group_order(name, defines, tmp_path):
    need("dreadnaut")
    need("bliss")
    d = detection_of(name, defines)
    source = "".join(dreadnaut_lines(d.graph, name))
    assert same_order(dreadnaut_order(source), d.automorphisms.order)
    path = tmp_path / "graph.dimacs"
    atomic_write(str(path), dimacs_lines(d.graph, name))
    assert same_order(bliss_order(str(path)), d.automorphisms.order)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(models())
def test_tools_agree_on_random_models(tmp_path, model):
    need("dreadnaut")
    need("bliss")
    d = detect(model)
    assert same_order(dreadnaut_order("".join(dreadnaut_lines(d.graph, model.name))), d.automorphisms.order)
    path = tmp_path / "random.dimacs"
    atomic_write(str(path), dimacs_lines(d.graph, model.name))
    assert same_order(bliss_order(str(path)), d.automorphisms.order)


def test_dimacs_and_dreadnaut_describe_the_graph_exactly():
    """Parse both exports back: same nodes, edges and colour partition (canonical order)."""
    graph = detection_of("token_circulation.csp", {"N": 3}).graph
    lines = list(dimacs_lines(graph, "t"))
    header = [line for line in lines if line.startswith("p ")]
    assert header == [f"p edge {graph.n} {len(graph.edges)}\n"]
    colours = {int(v) - 1: int(c) for _, v, c in (l.split() for l in lines if l.startswith("n "))}
    edges = {(int(u) - 1, int(v) - 1) for _, u, v in (l.split() for l in lines if l.startswith("e "))}
    assert colours == dict(enumerate(graph.colour))
    assert edges == set(graph.edges)

    text = "".join(dreadnaut_lines(graph, "t", run=True))
    assert text.endswith("x\n")
    body = text[text.index(" g\n") + 3:text.index("\n.\n")]
    parsed = set()
    for entry in body.split(";"):
        if entry.strip():
            u, rest = entry.split(":")
            parsed |= {(int(u), int(v)) for v in rest.split()}
    assert parsed == set(graph.edges)
    cells = re.search(r"f=\[(.*)\]", text).group(1).split("|")
    assert [[int(v) for v in cell.split(",")] for cell in cells] == graph.colour_classes()


# ------------------------------------------------------------------------------ JSON


@pytest.mark.parametrize("name,defines", CASES, ids=IDS)
def test_json_validates_and_extends_analyze_json(name, defines):
    jsonschema = pytest.importorskip("jsonschema")
    d = detection_of(name, defines)
    timings = (("parse", 0.01),) + d.timings
    document = json.loads(json.dumps(json_document(d, timings)))
    jsonschema.Draft202012Validator.check_schema(load_schema())
    jsonschema.validate(document, load_schema())
    analysed = json.loads(json.dumps(analysis_json(d, timings, None)))

    def contains(big, small, where="") -> None:
        if isinstance(small, dict):
            for key, value in small.items():
                assert key in big, f"{where}.{key} missing from the export"
                contains(big[key], value, f"{where}.{key}")
        elif isinstance(small, list):
            assert len(big) == len(small), where
            for i, (a, b) in enumerate(zip(big, small)):
                contains(a, b, f"{where}[{i}]")
        else:
            assert big == small, where

    contains(document, analysed)
    assert document["group_order"] == d.group.full_order
    assert document["acting_group_order"] == d.group.order
    assert document["graph_group_order"] == d.automorphisms.order


def test_schema_rejects_broken_documents():
    jsonschema = pytest.importorskip("jsonschema")
    d = detection_of("token_circulation.csp", {"N": 3})
    document = json.loads(json.dumps(json_document(d, d.timings)))
    for breakage in (
        lambda doc: doc.pop("group_order"),
        lambda doc: doc.__setitem__("version", 2),
        lambda doc: doc["generators"][0].__setitem__("kind", "rotation"),
        lambda doc: doc["generators"][0]["state_permutation"][0].pop("index"),
    ):
        broken = json.loads(json.dumps(document))
        breakage(broken)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, load_schema())


def apply_exported(entries, variables, state):
    """Apply a JSON ``state_permutation`` the way a model checker would (module doc of export)."""
    offset, position = {}, 0
    for v in variables:
        offset[v["name"]] = position
        position += v["size"] or 1
    out = [None] * len(state)
    for entry, var in zip(entries, variables):
        for i, (to_index, images) in enumerate(zip(entry["index"], entry["values"])):
            target = entry["target"] if isinstance(entry["target"], str) else entry["target"][i]
            value = state[offset[var["name"]] + i]
            out[offset[target] + to_index] = images[var["domain"].index(value)]
    return tuple(out)


@pytest.mark.parametrize("name,defines", CASES[:4], ids=IDS[:4])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_exported_state_permutations_act_like_the_generators(name, defines, data):
    d = detection_of(name, defines)
    variables = [{"name": v.name, "size": v.size, "domain": list(v.domain)} for v in d.model.variables]
    state = tuple(data.draw(st.sampled_from(slot.domain)) for slot in state_slots(d.model))
    for g in d.group.generators:
        entries = state_permutation_json(g.permutation, d.model)
        assert apply_exported(entries, variables, state) == g.permutation.apply(state)


# ------------------------------------------------------------------------------ pictures


def test_constraint_view_holds_one_constraint_and_what_it_touches():
    graph = detection_of("token_circulation.csp", {"N": 3}).graph
    constraints = [v for v in range(graph.n) if graph.kind[v] in (CONSTRAINT, INIT)]
    view = select_view(graph, constraint=0)
    kinds = [graph.kind[v] for v in view.nodes]
    assert kinds.count(CONSTRAINT) + kinds.count(INIT) == 1 and constraints[0] in view.nodes
    assert SUMMAND not in kinds
    tuples = [v for v in view.nodes if graph.kind[v] == TUPLE]
    edges = set(graph.edges)
    assert all((min(t, constraints[0]), max(t, constraints[0])) in edges for t in tuples)
    # Every literal's variable is drawn too.
    for lit in (v for v in view.nodes if graph.kind[v] == LITERAL):
        assert any(graph.kind[w] == VARIABLE and (min(lit, w), max(lit, w)) in edges for w in view.nodes)


def test_views_refuse_what_they_cannot_draw():
    graph = detection_of("token_circulation.csp", {"N": 3}).graph
    with pytest.raises(ExportError, match="max-nodes"):
        select_view(graph, max_nodes=100)
    with pytest.raises(ExportError, match="summands 0..1"):
        select_view(graph, summand=2)
    with pytest.raises(ExportError, match="at most one"):
        select_view(graph, summand=0, constraint=0)


def test_dot_has_every_node_and_a_legend_row_per_colour():
    graph = detection_of("token_circulation.csp", {"N": 3}).graph
    text = "".join(dot_lines(graph, select_view(graph), "token"))
    assert len(re.findall(r"^  n\d+ \[", text, re.M)) == graph.n
    assert len(re.findall(r"^  n\d+ -- n\d+;", text, re.M)) == len(graph.edges)
    for key in graph.colour_keys:
        assert key.replace("<", "&lt;") in text


def test_svg_renders_with_legend_of_node_kinds():
    need("sfdp")
    model = load(os.path.join(MODELS, "token_circulation.csp"), {"N": 3})
    # A summand is too big for labels: small unlabelled circles; one constraint is labelled.
    svg = b"".join(export_chunks(model, "svg", ExportOptions(summand=0))).decode()
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    for kind in ("summand (doubleoctagon)", "constraint (diamond)", "tuple (circle)", "literal (circle)",
                 "variable (box)", "frame (triangle)"):
        assert kind in svg
    from detect.symmetry.constraints import translate

    # A constraint that reads leader[] (its index depends on the translation's order).
    index = next(i for i, c in enumerate(translate(model).constraints) if "leader[0]" in c.text)
    svg = b"".join(export_chunks(model, "svg", ExportOptions(constraint=index, layout="neato"))).decode()
    for kind in ("constraint (diamond)", "tuple (ellipse)", "literal (ellipse)", "variable (box)"):
        assert kind in svg
    assert "leader[0]=1" in svg  # node labels are drawn


def test_token_circulation_png_is_in_results():
    path = os.path.join(REPO, "results", "token_circulation_N3.png")
    with open(path, "rb") as handle:
        head = handle.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", head[16:24])
    assert width >= 1000 and height >= 1000


# ------------------------------------------------------------------------------ atomic writes


def test_atomic_write_replaces_only_when_complete(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")

    def failing():
        yield "first line\n"
        yield b"second chunk\n"
        raise RuntimeError("export failed half-way")

    with pytest.raises(RuntimeError, match="half-way"):
        atomic_write(str(target), failing())
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.txt"]

    fresh = tmp_path / "fresh.txt"
    with pytest.raises(RuntimeError):
        atomic_write(str(fresh), failing())
    assert sorted(os.listdir(tmp_path)) == ["out.txt"]

    atomic_write(str(target), iter(["new ", b"content\n"]))
    assert target.read_text() == "new content\n"
    assert sorted(os.listdir(tmp_path)) == ["out.txt"]
    # Not the 0600 of the temporary file: readable like any file the user writes.
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o666 & ~umask


def test_atomic_write_goes_through_a_symbolic_link(tmp_path):
    """``-o LINK`` writes the link's target, and the link stays a link (it was replaced by a
    regular file, the target left stale)."""
    target = tmp_path / "real.gap"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.gap"
    link.symlink_to(target)
    atomic_write(str(link), iter(["new\n"]))
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640  # an existing file keeps its permissions
    assert sorted(os.listdir(tmp_path)) == ["link.gap", "real.gap"]
    dangling = tmp_path / "dangling.gap"
    dangling.symlink_to(tmp_path / "made.gap")
    atomic_write(str(dangling), iter(["made\n"]))
    assert dangling.is_symlink() and (tmp_path / "made.gap").read_text() == "made\n"


def test_atomic_write_writes_a_fifo_in_place(tmp_path):
    """A FIFO (or a device) is written, not replaced by a regular file."""
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    atomic_write(str(fifo), iter(["through ", b"the pipe\n"]))
    reader.join(timeout=10)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert os.listdir(tmp_path) == ["pipe"]


def test_cli_export_to_a_null_device_leaves_it_a_device(tmp_path):
    """``export -o /dev/null`` run as root replaced /dev/null with a regular file; here on a
    null device made for the test (needs the right to make device nodes)."""
    null = tmp_path / "null"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as e:
        pytest.skip(f"cannot make a device node here: {e}")
    result = CliRunner().invoke(main, ["export", os.path.join(MODELS, "token_circulation.csp"), "-D", "N=3",
                                       "--format", "gap", "-o", str(null)])
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(os.stat(null).st_mode) and os.listdir(tmp_path) == ["null"]


def test_failed_picture_leaves_no_file(tmp_path):
    model = load(os.path.join(MODELS, "token_circulation.csp"), {"N": 3})
    target = tmp_path / "graph.dot"
    with pytest.raises(ExportError):
        atomic_write(str(target), export_chunks(model, "dot", ExportOptions(max_nodes=10)))
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------------------------ command line


def test_cli_writes_every_text_format(tmp_path):
    runner = CliRunner()
    model = os.path.join(MODELS, "token_circulation.csp")
    for fmt in ("gap", "json", "dreadnaut", "dimacs", "dot"):
        out = tmp_path / f"tc.{fmt}"
        result = runner.invoke(main, ["export", model, "-D", "N=3", "--format", fmt, "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert out.stat().st_size > 0
    document = json.loads((tmp_path / "tc.json").read_text())
    assert document["group_order"] == 6 and "parse" in document["timings"]
    result = runner.invoke(main, ["export", model, "--format", "gap"])
    assert result.exit_code == 0 and "G := Group([" in result.output


def test_cli_errors_are_one_line_and_exit_2(tmp_path):
    runner = CliRunner()
    model = os.path.join(MODELS, "token_circulation.csp")
    out = tmp_path / "big.png"
    result = runner.invoke(main, ["export", model, "--format", "png", "--max-nodes", "10", "-o", str(out)])
    assert result.exit_code == 2
    assert "--max-nodes" in result.output and "Traceback" not in result.output
    assert not out.exists() and os.listdir(tmp_path) == []
    result = runner.invoke(main, ["export", model, "--format", "gap", "-o", str(tmp_path / "no" / "dir.g")])
    assert result.exit_code == 2 and "cannot write" in result.output
    result = runner.invoke(main, ["export", model, "--format", "pdf"])
    assert result.exit_code == 2
    result = runner.invoke(main, ["export", str(tmp_path / "missing.csp"), "--format", "gap"])
    assert result.exit_code == 2 and "no such file" in result.output


def test_cli_writes_pictures_to_standard_output_when_redirected():
    need("sfdp")
    runner = CliRunner()
    model = os.path.join(MODELS, "token_circulation.csp")
    result = runner.invoke(main, ["export", model, "--format", "png", "--summand", "1"])
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes[:8] == b"\x89PNG\r\n\x1a\n"


def test_schema_example_is_a_valid_document():
    """The schema documents the state-permutation form with an example; it must stay valid."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = load_schema()
    assert schema["$id"] == "urn:symdetect:schema:symmetries-v1" and schema["version"] == 1
    for example in schema["examples"]:
        jsonschema.validate(example, schema)
        variables = example["state_variables"]
        state = (0, 1)
        # a[0]=0, a[1]=1 swapped: a[0]=1, a[1]=0 (index map [1, 0], values kept).
        assert apply_exported(example["generators"][0]["state_permutation"], variables, state) == (1, 0)
