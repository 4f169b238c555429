"""The cache of linearised models (``frontends.model_cache``): a model read again is the one
the front end gives, its warnings are given again, and any change to the file, an included
file, the arguments or the front end's code reads the file afresh."""
from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

import frontends
from detect.errors import InputError
from frontends import model_cache

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = sorted(p for p in (ROOT / "models").rglob("*") if p.suffix in frontends.SUFFIXES)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """The model cache on, in a fresh home; ``cache.entries()`` lists what it holds."""
    monkeypatch.setenv("SYMDETECT_MODEL_CACHE", "on")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))

    class Cache:
        @staticmethod
        def entries() -> list[str]:
            folder = tmp_path / "home" / "symdetect" / "models"
            return sorted(os.listdir(folder)) if folder.exists() else []

    return Cache


@pytest.fixture
def front_end_calls(monkeypatch):
    """How many times a front end really ran."""
    calls = []
    real = frontends._read

    def counted(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(frontends, "_read", counted)
    return calls


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_bundled_model_reads_back_equal_without_running_the_front_end(path, cache, front_end_calls):
    with warnings.catch_warnings(record=True) as first_warnings:
        warnings.simplefilter("always")
        fresh = frontends.load(str(path))
    assert len(front_end_calls) == 1 and len(cache.entries()) == 1
    with warnings.catch_warnings(record=True) as again_warnings:
        warnings.simplefilter("always")
        again = frontends.load(str(path))
    assert len(front_end_calls) == 1, "the front end ran again"
    assert again == fresh and again is not fresh
    assert [str(w.message) for w in again_warnings] == list(dict.fromkeys(str(w.message) for w in first_warnings))


MURPHI = "const N: {n}; var x: 0..N; startstate begin x := 0; end; rule \"r\" x < N ==> begin x := x + 1; end;\n"


def test_a_changed_file_or_other_defines_are_read_afresh(tmp_path, cache, front_end_calls):
    model = tmp_path / "count.m"
    model.write_text(MURPHI.format(n=2))
    two = frontends.load(str(model))
    assert frontends.load(str(model)) == two and len(front_end_calls) == 1
    model.write_text(MURPHI.format(n=3))
    three = frontends.load(str(model))
    assert len(front_end_calls) == 2 and three != two
    assert three.variables[0].domain != two.variables[0].domain
    frontends.load(str(model), {"N": 4})
    assert len(front_end_calls) == 3 and len(cache.entries()) == 3


def test_a_changed_included_file_is_read_afresh(tmp_path, cache, front_end_calls):
    (tmp_path / "size.h").write_text("#define N 2\n")
    model = tmp_path / "main.pml"
    model.write_text('#include "size.h"\nbyte x;\nactive proctype P() { do :: x < N -> x++ :: else -> break od }\n')
    before = frontends.load(str(model))
    assert frontends.load(str(model)) == before and len(front_end_calls) == 1
    (tmp_path / "size.h").write_text("#define N 3\n")
    after = frontends.load(str(model))
    assert len(front_end_calls) == 2 and after != before
    (tmp_path / "size.h").unlink()
    with pytest.raises(InputError):
        frontends.load(str(model))


def test_a_change_to_the_front_ends_code_reads_afresh(tmp_path, cache, front_end_calls, monkeypatch):
    model = tmp_path / "count.m"
    model.write_text(MURPHI.format(n=2))
    code = tmp_path / "code.py"
    code.write_text("# version 1\n")
    monkeypatch.setattr(model_cache, "_CODE", (code,))
    frontends.load(str(model))
    frontends.load(str(model))
    code.write_text("# version 2\n")
    frontends.load(str(model))
    assert len(front_end_calls) == 2


def test_bad_input_is_not_cached_and_says_so_each_time(tmp_path, cache, front_end_calls):
    model = tmp_path / "bad.m"
    model.write_text("var x: 0..;\n")
    for _ in range(2):
        with pytest.raises(InputError):
            frontends.load(str(model))
    assert len(front_end_calls) == 2 and cache.entries() == []


def test_a_damaged_entry_is_read_afresh_and_rewritten(tmp_path, cache, front_end_calls):
    model = tmp_path / "count.m"
    model.write_text(MURPHI.format(n=2))
    fresh = frontends.load(str(model))
    [entry] = cache.entries()
    path = tmp_path / "home" / "symdetect" / "models" / entry
    path.write_bytes(path.read_bytes()[:40])
    assert frontends.load(str(model)) == fresh and len(front_end_calls) == 2
    assert frontends.load(str(model)) == fresh and len(front_end_calls) == 2


def test_an_unwritable_cache_is_skipped(tmp_path, monkeypatch, front_end_calls):
    monkeypatch.setenv("SYMDETECT_MODEL_CACHE", "on")
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    model = tmp_path / "count.m"
    model.write_text(MURPHI.format(n=2))
    assert frontends.load(str(model)) == frontends.load(str(model))
    assert len(front_end_calls) == 2


def test_off_means_the_front_end_runs_every_time(tmp_path, cache, front_end_calls, monkeypatch):
    monkeypatch.setenv("SYMDETECT_MODEL_CACHE", "off")
    model = tmp_path / "count.m"
    model.write_text(MURPHI.format(n=2))
    frontends.load(str(model))
    frontends.load(str(model))
    assert len(front_end_calls) == 2 and cache.entries() == []


def test_the_oldest_entries_go_past_the_limit(tmp_path, cache, monkeypatch):
    monkeypatch.setattr(model_cache, "MAX_ENTRIES", 4)
    for n in range(1, 7):
        model = tmp_path / f"count{n}.m"
        model.write_text(MURPHI.format(n=n))
        frontends.load(str(model))
        assert len(cache.entries()) <= 4
    # The newest model is kept.
    assert frontends.load(str(tmp_path / "count6.m")).variables[0].domain[-1] == 6


def test_a_refused_model_still_gives_the_warnings_before_its_error(tmp_path, cache):
    model = tmp_path / "hidden.pml"
    model.write_text("hidden byte h;\nactive proctype P() { h = 1; undeclared = 2 }\n")
    with warnings.catch_warnings(record=True) as given:
        warnings.simplefilter("always")
        with pytest.raises(InputError):
            frontends.load(str(model))
    assert any("hidden variable h" in str(w.message) for w in given)
    assert cache.entries() == []
