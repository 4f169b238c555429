"""Exit codes never overstate (issue 26, item 3): a property that is not checked (CSP# LTL or
refinement assertions, Promela ``ltl`` blocks) is exit 3, not 0; what stopped a run is said
in one wording in text and in one JSON field (``"stopped"``); ``--spin-states`` stopping
early says why."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from detect.checking.verify import stop_words
from detect.cli import main
from detect.statespace import explore

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
TOKEN = str(MODELS / "token_circulation.csp")

LTL_PML = """\
byte x;
active proctype P() { x = 1 }
ltl p0 { [] (x <= 1) }
ltl p1 { [] (x <= 1) }
"""
#: The same without the ltl block: every property checked and holding.
PLAIN_PML = "byte x;\nactive proctype P() { x = 1 }\n"

LTL_CSP = """\
var x = 0;
P() = [x < 2] inc{x = x + 1;} -> P() [] [x == 2] reset{x = 0;} -> P();
#assert P() deadlockfree;
#assert P() |= [] (x <= 2);
"""
REFINES_CSP = LTL_CSP.replace("#assert P() |= [] (x <= 2);", "#assert P() refines P();")


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_a_promela_ltl_block_that_is_ignored_is_not_a_clean_exit(tmp_path):
    """One ltl block is checked per run (pan's -N); by default the first, and the others are
    not checked: exit 3.  Naming the block with --ltl asks for that one only."""
    path = tmp_path / "ltl.pml"
    path.write_text(LTL_PML)
    result = run("explore", str(path))
    assert result.exit_code == 3, result.output
    assert "ltl p1 { [] (x <= 1) }: not checked" in result.output
    assert "1 property not checked" in result.output
    data = json.loads(run("explore", str(path), "--json").stdout)
    assert [a["verdict"] for a in data["assertions"]] == ["holds", "holds", "not checked"]
    assert run("explore", str(path), "--ltl", "p1").exit_code == 0
    assert data["stopped"] is None  # nothing stopped the run: it is a property left unchecked
    # --partial-ok excuses a run cut short, not a property never looked at.
    assert run("explore", str(path), "--partial-ok").exit_code == 3
    plain = tmp_path / "plain.pml"
    plain.write_text(PLAIN_PML)
    assert run("explore", str(plain)).exit_code == 0


def test_csp_refinement_assertions_that_are_not_checked_are_not_a_clean_exit(tmp_path):
    path = tmp_path / "m.csp"
    path.write_text(REFINES_CSP)
    result = run("explore", str(path))
    assert result.exit_code == 3, result.output
    assert "deadlockfree;: holds" in result.output and ": not checked" in result.output
    assert "1 property not checked" in result.output


def test_csp_ltl_assertions_are_checked_and_inline_expressions_are_refused(tmp_path):
    """Issue 30: an LTL assertion over a #define is checked (exit 0 when it holds); PAT's LTL
    operands are #define conditions and events, so an inline expression is bad input."""
    path = tmp_path / "m.csp"
    path.write_text(LTL_CSP.replace("#assert P() |= [] (x <= 2);", "#define small x <= 2;\n#assert P() |= [] small;"))
    result = run("explore", str(path))
    assert result.exit_code == 0, result.output
    assert "|= [] small;: holds" in result.output
    path.write_text(LTL_CSP)
    result = run("explore", str(path))
    assert result.exit_code == 2, result.output
    assert "unexpected character '<'" in result.output and "#define p" in result.output


def test_a_violation_still_wins_over_a_property_not_checked():
    # readers_writers.csp: 'reaches conflict' fails, '|= [] !conflict' is not checked.
    assert run("explore", str(MODELS / "readers_writers.csp")).exit_code == 1


def test_explore_json_has_one_field_for_what_stopped_the_run():
    bound = json.loads(run("explore", TOKEN, "-D", "N=6", "--max-states", "50", "--json").stdout)
    assert bound["stopped"] == "max-states" and bound["truncated"] is True
    timed = run("explore", TOKEN, "-D", "N=10", "--timeout", "0.5", "--engine", "python", "--json")
    assert timed.exit_code == 3
    assert json.loads(timed.stdout)["stopped"] == "timeout"
    whole = json.loads(run("explore", TOKEN, "-D", "N=3", "--json").stdout)
    assert whole["stopped"] is None and whole["truncated"] is False


def test_one_wording_for_a_time_out_in_explore_verify_and_completeness():
    words = stop_words("timeout", 0.5)
    assert words == "time-out of 0.5 s reached"
    explored = run("explore", TOKEN, "-D", "N=10", "--timeout", "0.5", "--engine", "python")
    assert explored.exit_code == 3
    assert f"stopped early: {words}; counts are partial" in explored.output
    assert "bound reached" not in explored.output and "(interrupted)" not in explored.output
    bounded = run("explore", TOKEN, "-D", "N=6", "--max-states", "50")
    assert "stopped early: state bound reached (--max-states); counts are partial" in bounded.output
    analysed = run("analyze", TOKEN, "-D", "N=3", "--verify", "--completeness", "--max-states", "20")
    assert analysed.exit_code == 3
    assert "not a proof; stopped early: state bound reached (--max-states)" in analysed.output
    assert "completeness: unknown; stopped early: state bound reached (--max-states)" in analysed.output


def test_spin_states_stopping_early_says_why(monkeypatch, tmp_path):
    """The extinction-like case: the count beside the exploration stops at the state-slot
    budget (also under a larger --max-states); text and JSON say so, exit 3."""
    path = tmp_path / "count.pml"
    path.write_text("byte x;\nactive proctype P() { do :: x < 200 -> x++ :: else -> break od }\n")
    monkeypatch.setattr(explore, "SLOT_BUDGET", 300)
    result = run("explore", str(path), "--spin-states", "--max-states", "5000000", "--engine", "python")
    assert result.exit_code == 3, result.output
    assert ("stopped early: state-slot budget reached while counting Spin's stored states (--spin-states); "
            "at most 300 state slots are held") in result.output
    data = json.loads(run("explore", str(path), "--spin-states", "--json", "--engine", "python").stdout)
    assert data["stopped"] == "slot-budget"
    assert "(partial, of " in data["spin states stored"] and "state-slot budget reached" in data["spin states stored"]
