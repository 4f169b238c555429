"""Progress and the figures users compare (issue 26, item 5): the summary has the state-vector
size, depth reached, states stored and matched, transitions (and CMurphi's rules fired with
``--rules-fired``), compared with Spin's own figures; ``--progress`` prints a line every few
seconds when standard error is not a terminal."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from detect import cli
from detect.cli import main
from tests.spin_oracle import spin_available

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"

#: Spin 6.5.2 (-o1 -o2 -o3, -DSAFETY -DNOREDUCE): 256 states stored, 1 matched, depth 255.
COUNTER = "init { byte i; do :: i++ od }\n"
#: 300 nested ifs: Spin: 303 stored, 0 matched, depth 302.
NESTED = "byte x;\nactive proctype P() {\n" + "if :: true -> " * 300 + "skip" + " fi" * 300 + "\n}\n"


def explore_json(path: Path, *more: str) -> dict:
    result = CliRunner().invoke(main, ["explore", str(path), "--json", *more])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("text, stored, matched, depth", [(COUNTER, 256, 1, 255), (NESTED, 303, 0, 302)])
@pytest.mark.parametrize("engine", ["python", "native"])
def test_depth_and_states_matched_are_spins(tmp_path, text, stored, matched, depth, engine):
    path = tmp_path / "m.pml"
    path.write_text(text)
    data = explore_json(path, "--engine", engine)
    assert (data["states"], data["states_matched"], data["depth"]) == (stored, matched, depth)
    assert data["state_vector_bytes"] >= 1
    if spin_available() and text is COUNTER:
        import subprocess

        out = subprocess.run(["spin", "-run", "m.pml"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=120).stdout
        assert f"depth reached {depth}," in out and f"{matched} states, matched" in out


def test_depth_is_the_same_from_both_explorers():
    model = MODELS / "paper" / "milner.csp"
    python = explore_json(model, "-D", "N=6", "--engine", "python")
    native = explore_json(model, "-D", "N=6", "--engine", "native", "--workers", "2")
    assert python["depth"] == native["depth"] > 0
    assert python["states_matched"] == native["states_matched"]


def test_the_text_summary_has_the_figures():
    result = CliRunner().invoke(main, ["explore", str(MODELS / "peterson_pid.pml")])
    for row in ("state vector", "depth reached", "states matched", "transitions", "memory", "seconds"):
        assert row in result.output, result.output


def test_rules_fired_is_cmurphis():
    """``models/peterson_scalarset.m``: CMurphi 5.4 -nosym fires 2,682 rules on 894 states."""
    result = CliRunner().invoke(main, ["explore", str(MODELS / "peterson_scalarset.m"), "--rules-fired", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rules fired"] == "2,682" and data["states"] == 894
    refused = CliRunner().invoke(main, ["explore", str(MODELS / "peterson_pid.pml"), "--rules-fired"])
    assert refused.exit_code == 2 and "applies to Murphi models only" in refused.output


def test_progress_lines_when_standard_error_is_not_a_terminal(monkeypatch):
    from detect.statespace import explore

    # Every progress report due at once, whatever the machine's speed (an idle machine
    # verified token_circulation before the first 0.5 s report).
    monkeypatch.setattr(cli, "PROGRESS_EVERY", 0.0)
    monkeypatch.setattr(explore, "PROGRESS_INTERVAL", 0.0)
    monkeypatch.setattr(explore, "_CLOCK_EVERY", 1)
    args = ["explore", str(MODELS / "paper" / "milner.csp"), "-D", "N=8", "--engine", "python"]
    with_lines = CliRunner().invoke(main, [*args, "--progress"])
    assert with_lines.exit_code == 0, with_lines.output
    lines = [line for line in with_lines.stderr.splitlines() if line.startswith("symdetect: progress: exploring, ")]
    assert lines and "states/s" in lines[-1] and "resident" in lines[-1] and "s elapsed" in lines[-1]
    without = CliRunner().invoke(main, args)
    assert "progress:" not in without.stderr
    verified = CliRunner().invoke(main, ["analyze", str(MODELS / "token_circulation.csp"), "-D",
                                                         "N=5", "--verify", "--progress"])
    assert "symdetect: progress: verify: exploring, " in verified.stderr


@pytest.mark.parametrize("engine", ["python", "native"])
def test_progress_tells_the_bfs_level(tmp_path, monkeypatch, engine):
    """Spin and CMurphi users watch the depth grow: every progress report carries the BFS
    level being expanded, never decreasing, and the last is the depth reached (Spin: 255)."""
    from detect.statespace import explore
    from frontends import load

    monkeypatch.setattr(explore, "PROGRESS_INTERVAL", 0.0)
    monkeypatch.setattr(explore, "_CLOCK_EVERY", 1)
    path = tmp_path / "m.pml"
    path.write_text(COUNTER)
    levels: list[int] = []
    result = explore.explore_state_space(load(str(path)), engine=engine, progress=lambda *report: levels.append(report[3]))
    assert levels == sorted(levels) and levels[-1] == result.depth == 255
    if engine == "python":
        assert len(set(levels)) > 100  # reported as it goes, not only at the end
    text = cli.exploration_progress(lambda line: levels.append(line), "exploring")(256, 256, 1.0, 255)
    assert levels[-1] == "exploring, 256 states, 256 states/s, 256 transitions, BFS level 255" and text is None
