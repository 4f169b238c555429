"""The layers contract (pyproject.toml, ``[tool.importlinter]``): imports flow one way,
frontends -> ir -> transform -> statespace -> symmetry -> checking -> export -> cli; no function
in the packages is over 80 lines without saying why (``results/long_functions.py``); and no
test imports a ``results/`` script."""
from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _lint(cwd: Path) -> subprocess.CompletedProcess:
    exe = shutil.which("lint-imports")
    if exe is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    return subprocess.run([exe, "--no-cache"], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"})


def test_the_tree_keeps_the_layers():
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


def test_a_back_edge_breaks_the_contract(tmp_path):
    # A copy of the packages with one upward import: the IR importing the CLI.
    for package in ("detect", "frontends"):
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.o"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    model = tmp_path / "detect" / "ir" / "model.py"
    model.write_text(model.read_text() + textwrap.dedent("""
        def _back_edge():
            from detect.cli import main
            return main
        """))
    done = _lint(tmp_path)
    assert done.returncode != 0
    assert "detect.ir.model -> detect.cli" in done.stdout


def test_the_contract_has_no_exceptions():
    # Front ends narrowed their own domains through upper layers until issue 11; the contract
    # must hold without listing any import as an exception.
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert all(not contract.get("ignore_imports") for contract in config["contracts"])


def _long_functions(*paths: Path) -> subprocess.CompletedProcess:
    # Run as a script: tests do not import results/ (issue 11).
    return subprocess.run([sys.executable, str(ROOT / "results" / "long_functions.py"), *map(str, paths)],
                          capture_output=True, text=True)


def test_every_function_over_80_lines_says_why_it_is_one():
    done = _long_functions()
    assert done.returncode == 0, "functions over 80 lines without 'Why one function':\n" + "\n".join(
        line for line in done.stdout.splitlines() if line.endswith("NO REASON"))


def test_a_long_function_without_its_reason_is_reported(tmp_path):
    body = "".join(f"    x{k} = {k}\n" for k in range(80))
    (tmp_path / "long.py").write_text(
        f'def reasoned():\n    """Why one function: a test."""\n{body}\n\ndef bare():\n    """Long."""\n{body}'
        f'\n\ndef short():\n    return 1\n')
    done = _long_functions(tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert [line.split()[1:] for line in lines] == [["reasoned", "82", "lines", "reason"],
                                                   ["bare", "82", "lines", "NO", "REASON"]]


def test_no_test_imports_a_results_script():
    # results/ holds benchmark and corpus scripts: tests run the tool, not them (issue 11).
    import ast

    importers = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            importers += [f"{path.name}: {n}" for n in names if n == "results" or n.startswith("results.")]
    assert not importers, importers
