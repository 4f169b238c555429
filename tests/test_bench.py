"""``symdetect bench``: the paper's numbers as data, quick runs of both tables, output files."""
from __future__ import annotations

import csv
import math

import pytest
from click.testing import CliRunner

from detect import bench
from detect.cli import main


def test_paper_table1_is_transcribed_consistently():
    assert len(bench.TABLE1) == 24 and len({r.system for r in bench.TABLE1}) == 13
    for row in bench.TABLE1:
        assert row.system in bench.SYSTEMS
        bench.SYSTEMS[row.system].defines(row.config)  # the configuration syntax parses
    orders = {(r.system.split()[0], r.config): r.aut_order for r in bench.TABLE1}
    assert orders[("Peterson's", "12")] == math.factorial(12)
    assert orders[("Message", "6")] == 2 ** 6 * math.factorial(6)
    assert orders[("Three-tiered", "4-4-3")] == 24 * 24 * 6 * 2


def test_configuration_syntax_is_checked():
    with pytest.raises(ValueError):
        bench.SYSTEMS["Three-tiered architecture"].defines("3-3")
    assert bench.SYSTEMS["Scheduling the social golfer problem"].defines("3-3-4") == {"G": 3, "S": 3, "W": 4}


def _quick_rows(tmp_path, table: str, columns) -> list[dict]:
    """``symdetect bench TABLE --quick --output STEM`` succeeds and writes STEM.csv over
    ``columns``: its rows."""
    stem = str(tmp_path / table)
    result = CliRunner().invoke(main, ["bench", table, "--quick", "--output", stem])
    assert result.exit_code == 0, result.output
    with open(stem + ".csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames) == columns
        return list(reader)


def test_table1_quick_writes_every_quick_row(tmp_path):
    rows = _quick_rows(tmp_path, "table1", bench.TABLE1_COLUMNS)
    assert [r["system"] for r in rows] == [r.system for r in bench.TABLE1 if r.quick]
    by_system = {r["system"]: r for r in rows}
    assert by_system["Hanoi puzzle"]["state_group_order"] == "2"
    assert by_system["Message passing in a hypercube network"]["state_group_order"] == str(2 ** 3 * 6)
    assert by_system["Dining philosophers"]["state_group_order"] == "5"
    assert all("no comparison" in r["note"] or "time ratio" in r["note"] for r in rows)
    assert "Seed 002 Table I" in (tmp_path / "table1.md").read_text()


def test_table1_note_explains_a_different_group():
    row = next(r for r in bench.TABLE1 if r.system.startswith("Self-stabilizing leader election protocol in directed")
               and r.config == "15")
    result = bench.run_row1(row)
    note = bench.note1(result)
    assert result.state_group_order == 128 and "larger than the paper's (128 vs 16)" in note
    assert "heap-shaped" in note


def test_table2_quick_matches_paper_where_configurations_coincide(tmp_path):
    rows = _quick_rows(tmp_path, "table2", bench.TABLE2_COLUMNS)
    two_hop = rows[-1]
    assert two_hop["config"] == "3" and two_hop["states"] == "13824" == two_hop["paper_states"]
    for r in rows:
        # a reduced run stores at most as many states as the plain one; exact at most local
        assert int(r["exact_states"]) <= int(r["local_states"]) <= int(r["states"])
