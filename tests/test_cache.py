"""The on-disk caches (``detect.cache``): lark's parsers and cffi's declarations module are
written once and read back, a damaged entry is rebuilt, and an unwritable cache is skipped."""
from __future__ import annotations

import dataclasses
import os

from detect.cache import cache_home, write_atomically
from detect.statespace.native import build
from frontends.kit import grammar as grammar_module
from frontends.murphi.syntax import GRAMMAR

SOURCE = "const N: 2; var x: 0..N; startstate begin x := 0; end; rule \"r\" x < N ==> begin x := x + 1; end;"


def fresh_parser():
    """A new ``Grammar`` object's parser (each object builds or reads its parser once)."""
    return dataclasses.replace(GRAMMAR).parser


def entries(home) -> list:
    return sorted(os.listdir(home / "symdetect" / "grammars"))


def test_a_parser_is_written_once_then_read_back_and_parses_alike(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_home() == tmp_path / "symdetect"
    built = fresh_parser()
    [entry] = entries(tmp_path)
    assert entry.startswith("frontends.murphi.grammar.lark.") and entry.endswith(".pickle")

    class NotBuilt(grammar_module.Lark):
        def __init__(self, *args, **kwargs):
            raise AssertionError("the parser was built again instead of read from the cache")

    monkeypatch.setattr(grammar_module, "Lark", NotBuilt)
    loaded = fresh_parser()
    assert loaded.parse(SOURCE) == built.parse(SOURCE)
    assert entries(tmp_path) == [entry]


def test_a_damaged_entry_is_rebuilt_and_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    reference = fresh_parser().parse(SOURCE)
    [entry] = entries(tmp_path)
    path = tmp_path / "symdetect" / "grammars" / entry
    path.write_bytes(b"not a pickle")
    assert fresh_parser().parse(SOURCE) == reference
    assert path.read_bytes() != b"not a pickle"
    assert entries(tmp_path) == [entry]  # no partial files left behind


def test_an_unwritable_cache_is_skipped(tmp_path, monkeypatch):
    """The cache "directory" is a file: nothing can be made under it (even by root)."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert fresh_parser().parse(SOURCE) is not None
    assert blocker.read_text() == ""


def test_write_atomically_reports_a_directory_it_cannot_make(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert not write_atomically(blocker / "sub" / "entry", lambda f: f.write(b"x"))
    assert write_atomically(tmp_path / "sub" / "entry", lambda f: f.write(b"x"))
    assert (tmp_path / "sub" / "entry").read_bytes() == b"x" and os.listdir(tmp_path / "sub") == ["entry"]


def test_the_declarations_module_is_emitted_once_and_loads(tmp_path):
    path = tmp_path / "symdetect_native_ffi_test.py"
    first = build._ffi_module("symdetect_native_ffi_test", path)
    assert path.exists()
    written = path.read_bytes()
    second = build._ffi_module("symdetect_native_ffi_test", path)
    assert path.read_bytes() == written
    for module in (first, second):
        assert list(module.ffi.new("int32_t[]", [1, 2, 3])) == [1, 2, 3]
        assert module.ffi.typeof("void *(*)(uint64_t, uint64_t, int)") is not None
