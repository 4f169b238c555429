"""Model files that are not UTF-8 text, or unreadable, are located input errors in every front end."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from detect.cli import main
from detect.errors import InputError
from frontends.kit import read_source


def test_bad_byte_is_located(tmp_path):
    path = tmp_path / "m.pml"
    path.write_bytes(b"byte x;\nbyte y\xd0;\n")
    with pytest.raises(InputError) as err:
        read_source(path)
    assert (err.value.line, err.value.column) == (2, 7) and "0xd0" in err.value.message


@pytest.mark.parametrize("suffix", [".pml", ".csp", ".dve"])
def test_every_front_end_refuses_binary_files_with_exit_code_2(tmp_path, suffix):
    path = tmp_path / f"m{suffix}"
    path.write_bytes(bytes(range(256)))
    result = CliRunner().invoke(main, ["analyze", str(path)])
    assert result.exit_code == 2 and "not UTF-8 text" in result.output
    assert "Traceback" not in result.output


def test_include_of_a_missing_file_is_located(tmp_path):
    path = tmp_path / "m.pml"
    path.write_text('#include "nothere.h"\nactive proctype P() { skip }\n')
    result = CliRunner().invoke(main, ["analyze", str(path)])
    assert result.exit_code == 2 and "m.pml:1:1: #include: cannot read" in result.output
