"""-D NAME=V for a name the model does not define is bad input (exit 2, one line naming it),
for Promela and DVE as for CSP#."""
from __future__ import annotations

from click.testing import CliRunner

from detect.cli import main

PML = "#define N 3\n#ifndef DEBUG\n#define LIMIT 4\n#endif\nbyte x; active proctype A() { x = N + LIMIT }\n"
DVE = ("const byte N = 2; const byte T[2] = {1, 2}; byte x;\n"
       "process P { state s, t; init s; trans s -> t { effect x = N; }; }\nsystem async;\n")


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_promela_unknown_define_is_a_located_error(tmp_path):
    path = tmp_path / "m.pml"
    path.write_text(PML)
    for command in ("explore", "analyze", "linearise"):
        result = run(command, str(path), "-D", "M=4")
        assert result.exit_code == 2, result.output
        lines = [ln for ln in result.output.splitlines() if ln.strip()]
        assert lines == [f"symdetect: {path}: -D M: the model has no '#define M'; its defines are: DEBUG, LIMIT, N"]


def test_promela_known_defines_still_work(tmp_path):
    path = tmp_path / "m.pml"
    path.write_text(PML)
    assert run("explore", str(path), "-D", "N=5").exit_code == 0
    # DEBUG is only tested by #ifndef, LIMIT defined in the branch DEBUG disables: both known
    assert run("explore", str(path), "-D", "LIMIT=1", "-D", "DEBUG=1").exit_code == 0


def test_dve_unknown_define_is_a_located_error(tmp_path):
    path = tmp_path / "m.dve"
    path.write_text(DVE)
    result = run("explore", str(path), "-D", "M=4")
    assert result.exit_code == 2
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert lines == [f"symdetect: {path}: -D M: the model has no global 'const M'; its constants are: N, T"]
    result = run("analyze", str(path), "-D", "T=4")
    assert result.exit_code == 2 and "'const T' is an array" in result.output
    assert run("explore", str(path), "-D", "N=3").exit_code == 0
