"""The command line at a real terminal: every command under a pseudo-terminal, from an empty
cache, checked for its exit code and for what the screen shows.

CliRunner and piped runs never take the terminal path (rich's live display, colour, widths), so
a crash there went unseen by every other test: these run the installed program as a user does.
"""
from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\r")


def at_terminal(*args: str, cache: Path, timeout: float = 120.0) -> tuple[int, str]:
    """Run ``symdetect ARGS`` with standard input, output and error on one pseudo-terminal and an
    empty cache; the exit code and the screen's text (escape sequences removed)."""
    master, slave = pty.openpty()
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="120", LINES="40",
               XDG_CACHE_HOME=str(cache), SYMDETECT_NATIVE_CACHE=str(cache / "native"))
    env.pop("SYMDETECT_MODEL_CACHE", None)  # the default a user has: the model cache on
    proc = subprocess.Popen([sys.executable, "-m", "detect.cli", *args], stdin=slave, stdout=slave,
                            stderr=slave, env=env, cwd=ROOT, close_fds=True)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    else:
        proc.kill()
        pytest.fail(f"symdetect {' '.join(args)} did not finish in {timeout} s at a terminal")
    os.close(master)
    code = proc.wait(timeout=10)
    return code, ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))


def no_traceback(screen: str) -> None:
    for sign in ("Traceback", "lost sys.stderr", "TypeError", "Error(", "object address"):
        assert sign not in screen, screen


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def test_analyze_at_a_terminal(cache):
    code, screen = at_terminal("analyze", str(MODELS / "token_circulation.csp"), "-D", "N=3", cache=cache)
    no_traceback(screen)
    assert code == 0, screen
    assert "group order on states: 6" in screen
    assert "rotate processes 0→1→2→0" in screen


def test_analyze_verify_completeness_at_a_terminal(cache):
    code, screen = at_terminal("analyze", str(MODELS / "token_circulation.csp"), "-D", "N=3", "--verify",
                               "--completeness", cache=cache)
    no_traceback(screen)
    assert code == 0, screen
    assert "every generator verified" in screen


@pytest.mark.parametrize("model, defines, expected, says", [
    # peterson.csp asserts that its mutual exclusion can be broken: that 'reaches' fails.
    ("peterson.csp", ["-D", "N=3"], 1, "reaches mutex_broken;: fails"),
    ("peterson_pid.pml", [], 0, "states"),
    ("peterson_scalarset.m", [], 0, "states"),
])
@pytest.mark.parametrize("reduce", ["none", "exact"])
def test_explore_at_a_terminal(cache, model, defines, expected, says, reduce):
    code, screen = at_terminal("explore", str(MODELS / model), *defines, "--reduce", reduce, cache=cache)
    no_traceback(screen)
    assert code == expected, screen
    assert says in screen, screen


def test_explore_native_first_run_at_a_terminal(cache):
    """The first run builds the native library: nothing of that build reaches the screen."""
    code, screen = at_terminal("explore", str(MODELS / "peterson_pid.pml"), "--engine", "native", cache=cache)
    no_traceback(screen)
    assert code == 0, screen
    assert "generating" not in screen


def test_explore_violation_at_a_terminal(cache):
    code, screen = at_terminal("explore", str(MODELS / "dining_philosophers.csp"), cache=cache)
    no_traceback(screen)
    assert code == 1, screen
    assert "deadlock" in screen.lower()


def test_export_and_linearise_at_a_terminal(cache, tmp_path):
    target = tmp_path / "g.gap"
    code, screen = at_terminal("export", str(MODELS / "token_circulation.csp"), "-D", "N=3", "--format", "gap",
                               "-o", str(target), cache=cache)
    no_traceback(screen)
    assert code == 0, screen
    assert "Group(" in target.read_text()
    code, screen = at_terminal("linearise", str(MODELS / "token_circulation.csp"), "-D", "N=3", cache=cache)
    no_traceback(screen)
    assert code == 0 and "var token[3] : {0..1}" in screen and "sum x:{0..2}" in screen, screen


def test_bad_input_at_a_terminal(cache, tmp_path):
    bad = tmp_path / "bad.pml"
    bad.write_text("active proctype P() {\n  x = ;\n}\n")
    code, screen = at_terminal("analyze", str(bad), cache=cache)
    no_traceback(screen)
    assert code == 2, screen
    assert re.search(r"bad\.pml:\d+:\d+:", screen), screen


def test_help_at_a_terminal(cache):
    code, screen = at_terminal("--help", cache=cache)
    assert code == 0 and "explore" in screen and "analyze" in screen, screen


def test_explore_json_on_a_fresh_cache_is_json(cache):
    """``--json`` on a fresh machine: the native build prints nothing on standard output."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), SYMDETECT_NATIVE_CACHE=str(cache / "native"))
    run = subprocess.run([sys.executable, "-m", "detect.cli", "explore", str(MODELS / "peterson_pid.pml"),
                          "--engine", "native", "--json"], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["model"] == "peterson_pid"


def test_trail_and_replay_at_a_terminal(cache, tmp_path):
    model, trail = tmp_path / "race.pml", tmp_path / "race.trail"
    model.write_text("byte x;\nactive [2] proctype user() {\n  x++;\n  assert(x < 2)\n}\n")
    code, screen = at_terminal("explore", str(model), "--trail", str(trail), cache=cache)
    no_traceback(screen)
    assert code == 1 and "race.pml:4  assert(x < 2)" in screen and "user[1] (pid 1)" in screen, screen
    code, screen = at_terminal("replay", str(model), str(trail), cache=cache)
    no_traceback(screen)
    assert code == 1 and "violation reproduced" in screen, screen


def test_progress_at_a_terminal_shows_states_rate_memory_and_time(cache):
    """A few seconds of exploration at a terminal: the live status line (on standard error,
    then erased) shows the states, states/s, transitions and memory; the report follows."""
    code, screen = at_terminal("explore", str(MODELS / "paper" / "milner.csp"), "-D", "N=16", "--engine", "python",
                               "--timeout", "8", cache=cache)
    no_traceback(screen)
    assert code == 3, screen
    assert re.search(r"exploring, [\d,]+ states, [\d,]+ states/s, [\d,]+ transitions, BFS level [\d,]+, [\d.]+ \w+ resident", screen), \
        screen
    assert "stopped early: time-out of 8 s reached; counts are partial" in screen
    assert "depth reached" in screen and "states matched" in screen


def test_a_property_not_checked_at_a_terminal_is_exit_3(cache, tmp_path):
    path = tmp_path / "ltl.pml"
    path.write_text("byte x;\nactive proctype P() { x = 1 }\nltl p0 { [] (x <= 1) }\nltl p1 { [] (x <= 1) }\n")
    code, screen = at_terminal("explore", str(path), cache=cache)
    no_traceback(screen)
    assert code == 3, screen
    assert "not checked" in screen and "1 property not checked" in screen
