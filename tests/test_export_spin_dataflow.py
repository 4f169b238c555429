"""Spin's data-flow optimisation (on by default: plain ``spin -a``, what a user types) in
``symdetect spin`` and ``explore --spin-states --spin-merging`` (issue 31).  pan resets a
dead local after the statement past which it is dead (``/* dead N: x */`` in pan.m) and keeps
write-only globals out of its state vector (pan.h's ``/* hidden variable: */``); both merge
states.  Both are read from Spin's own output and modelled (``export.spin.pan_dataflow``), the
group is detected on the model with pan's resets (so that it maps reset variables alike), and
the oracle is Spin: sympan's and pan's "states, stored" (``-DSAFETY -DNOREDUCE``) equal ours."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("spin") is None or shutil.which("gcc") is None,
                                reason="spin and gcc are needed")

#: ``seen`` is read once, then dead until written again: pan resets it to 0 -- pid 0's value,
#: while its initial value 3 names no process.  Without the reset the group is S_3; with it,
#: a permutation moving pid 0 maps a reset state onto one pan never reaches.
SEEN = """byte owner = 3;
active [3] proctype P()
{
	byte seen = 3;
	do
	:: atomic { owner == 3 -> owner = _pid }
	:: seen = owner; seen != 3 -> owner = 3
	od
}
"""

#: ``last`` is written, never read: pan keeps it out of its state vector
HIDDEN = """byte last;
byte cnt;
active [3] proctype P()
{
	do
	:: atomic { cnt < 2 -> cnt++; last = _pid }
	:: cnt > 0 -> cnt--
	od
}
"""


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "detect.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def _stored(out_dir: Path, source: str) -> int:
    """pan's "states, stored" of ``source`` built with -DSAFETY -DNOREDUCE (-c0: every error)."""
    import re

    exe = out_dir / (Path(source).stem + "_exe")
    subprocess.run(["gcc", "-O0", "-w", "-DSAFETY", "-DNOREDUCE", "-o", str(exe), source], cwd=out_dir, check=True,
                   capture_output=True, timeout=300)
    run = subprocess.run([str(exe), "-m100000", "-c0"], cwd=out_dir, capture_output=True, text=True, timeout=300)
    return int(re.search(r"(\d+) states, stored", run.stdout).group(1))


def _ours(model: Path) -> dict:
    run = _cli("explore", str(model), "--reduce", "exact", "--spin-states", "--spin-merging", "--json")
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def _count(data: dict, key: str) -> int:
    return int(data[key].replace(",", ""))


@pytest.mark.parametrize("name,counts", [
    ("rendezvous_clients", (6, 16)),   # the server's `who` reset after its last read (-o1 -o2: 7, 19)
    ("seen", (405, 768)),              # the reset to pid 0's value: the group shrinks to S_2
    ("hidden", (1535, 2047)),          # `last` not in pan's vector (-o1 -o2: 3582, 6141)
])
def test_plain_spin_a_counts_are_ours(tmp_path, name, counts):
    """``symdetect spin`` with Spin's defaults (no --spin-option): sympan and pan store what
    ``explore --reduce exact --spin-states --spin-merging`` counts.  Before, the export and
    our count ignored pan's resets: rendezvous_clients 7/19 against sympan 6 and pan 16."""
    if name == "rendezvous_clients":
        model = ROOT / "models" / "rendezvous_clients.pml"
    else:
        model = tmp_path / f"{name}.pml"
        model.write_text({"seen": SEEN, "hidden": HIDDEN}[name])
    out = tmp_path / "out"
    run = _cli("spin", str(model), "-o", str(out))
    assert run.returncode == 0, run.stderr
    assert "Spin run as spin -a" in run.stdout and "Spin's data-flow optimisation modelled" in run.stdout, run.stdout
    data = _ours(model)
    ours = (_count(data, "spin states stored up to symmetry"), _count(data, "spin states stored"))
    assert (_stored(out, "sympan.c"), _stored(out, "pan.c")) == ours == counts
    assert "modelled" in data["spin dataflow"]


def test_the_group_maps_reset_variables_alike(tmp_path):
    """pan resets ``seen`` to 0, pid 0's value: S_3 on the pids (detected without the resets)
    is no automorphism of pan's system -- sympan built with it stored 321 states, none of our
    counts.  Detected on the model with pan's resets, the group is S_2 on pids 1, 2, and each
    of its generators commutes with the resets."""
    from detect.export.spin import pan_dataflow
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    model = tmp_path / "seen.pml"
    model.write_text(SEEN)
    seq = load_model(model, domain_states=1_000_000)
    flow = pan_dataflow(str(model), (), seq)
    assert flow.options == () and "1 dead-variable reset of pan's" in flow.note
    assert detect(seq, domain_states=1_000_000).group.order == 6
    group = detect(flow.model, domain_states=1_000_000).group
    assert group.order == 2
    data = _ours(model)
    assert data["group_order"] == 6 and data["spin dataflow symmetry order"] == 2


def test_resets_not_modelled_with_o1_or_o2(tmp_path):
    """``-o1`` or ``-o2`` turn pan's resets off: the model is left as it is."""
    from detect.export.spin import pan_dataflow
    from detect.transform.load import load_model

    seq = load_model(ROOT / "models" / "rendezvous_clients.pml")
    for options in (("-o1",), ("-o2",), ("-o1", "-o2", "-o3")):
        flow = pan_dataflow(str(ROOT / "models" / "rendezvous_clients.pml"), (), seq, options)
        assert flow.model is seq and flow.options == options and flow.note == ""


def test_resets_that_cannot_be_paired_turn_the_optimisation_off(tmp_path, monkeypatch):
    """Where pan's resets cannot be paired with our steps (forced here), the export adds
    ``-o1 -o2`` and says why in one line; sympan then stores the ``-o1 -o2`` count."""
    from click.testing import CliRunner

    from detect import cli
    from detect.export import panmap

    def refuse(pan, ours):
        raise panmap.PcMapError("paired otherwise (forced)")

    monkeypatch.setattr(panmap, "match", refuse)
    out = tmp_path / "out"
    run = CliRunner().invoke(cli.main, ["spin", str(ROOT / "models" / "rendezvous_clients.pml"), "-o", str(out)])
    assert run.exit_code == 0, run.output
    line = next(x for x in run.output.splitlines() if "data-flow" in x)
    assert line == "Spin's data-flow optimisation turned off (-o1 -o2): paired otherwise (forced)"
    assert "Spin run as spin -o1 -o2 -a" in run.output
    assert _stored(out, "sympan.c") == 7 and _stored(out, "pan.c") == 19


def test_dead_resets_read_from_pan(tmp_path):
    """``panmap.dead_resets``/``hidden_globals`` on Spin's own output: the reset per
    transition number (the ``tr`` pan -d prints), the write-only global."""
    from detect.export import panmap
    from detect.export.spin import spin_reading

    model = tmp_path / "w.pml"
    model.write_text("byte g;\nactive [2] proctype P() {\n  byte x, y;\n  x = 1;\n  g = 2;\n  y = x + 1;\n"
                     "  assert(y == 2);\n  x = 3;\n  y = 0\n}\n")
    reading = spin_reading(str(model), (), ("-o3",))
    resets = panmap.dead_resets(reading.text("pan.m"))
    # x is dead after its second write (never read again); y's last write ends the process
    by_text = {e.text: resets.get(e.tr) for e in reading.automata()["P"].edges}
    assert {t: r for t, r in by_text.items() if r} == {"x = 3": (("x", 0),)}
    assert panmap.hidden_globals(reading.text("pan.h")) == ("g",)
    assert spin_reading(str(model), (), ("-o3",)) is reading  # read once per run


def test_spin_merging_runs_spin_twice(tmp_path, monkeypatch):
    """``explore --spin-states --spin-merging`` on a model whose generators rename program
    counters runs ``spin -a`` once with and once without ``-o3`` (before: four times, twice
    for the merged pcs and twice for sympan's group), and each ``pan -d`` once."""
    from click.testing import CliRunner

    from detect import cli
    from detect.export import spin
    from tests.test_export_spin import HUB

    calls = []
    run_spin = spin._run_spin
    monkeypatch.setattr(spin, "_run_spin", lambda *a, **k: (calls.append(tuple(a[3]) if len(a) > 3 else ()),
                                                          run_spin(*a, **k))[1])
    dumps = []
    read = spin._read_automata
    monkeypatch.setattr(spin, "_read_automata", lambda d: (dumps.append(d), read(d))[1])
    model = tmp_path / "hub.pml"
    model.write_text(HUB)
    run = CliRunner().invoke(cli.main, ["explore", str(model), "--reduce", "exact", "--spin-states",
                                        "--spin-merging", "--json"])
    assert run.exit_code in (0, 1), run.output
    data = json.loads(run.output[run.output.index("{"):])
    assert "passed over" in data["spin merging"]
    assert sorted(calls) == [(), ("-o3",)]
    assert len(dumps) == len(set(dumps)) <= 2


def test_a_group_detected_without_the_resets_builds_without_them(tmp_path):
    """``export_verifier`` given the group detected on the model without pan's resets (S_3 on
    ``SEEN``, not an automorphism of plain pan's system) runs Spin with ``-o1 -o2``, where the
    group is one: sympan stores 512, the orbits of ``-o1 -o2``'s pan (before: plain ``spin -a``,
    321)."""
    from detect.export.spin import export_verifier
    from detect.symmetry.pipeline import detect
    from detect.transform.load import load_model

    model = tmp_path / "seen.pml"
    model.write_text(SEEN)
    detection = detect(load_model(model, domain_states=1_000_000), domain_states=1_000_000)
    out = tmp_path / "out"
    sym, _, used = export_verifier(str(model), (), str(out), detection.model, detection.group, SEEN)
    assert sym.order == 6 and used == ("-o1", "-o2")
    assert _stored(out, "sympan.c") == 512
