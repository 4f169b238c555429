"""The linearised models of files already read, kept on disk so that reading one again costs
a hash and an unpickle, not lark and a front end (~0.15-0.3 s of start-up per run, most of a
small model's whole ``explore``; CMurphi likewise compiles a model once and runs it many
times).

An entry is keyed by a hash of everything the front end's result depends on:

* the front end's code: every ``.py`` and ``.lark`` file of ``frontends/`` and ``detect/ir/``
  and ``detect/errors.py`` (their bytes, ~1.5 ms to hash), lark's version and Python's;
* the call: the language, the path as given and its absolute form (messages and origins
  name the file), the defines and the options;
* the bytes of the model file; the entry lists every other file the front end read (the
  includes, recorded by ``detect.cache.recording_reads``) with their hashes, and is used
  only while they are unchanged.

Errors are never cached (a bad model is read again, and says so again).  Warnings a front end
gives are kept with the entry and given again on each read, as the front end would.
``SYMDETECT_MODEL_CACHE=off`` turns the cache off (a benchmark of a cold start, a test of the
front ends' own path).  At most ``MAX_ENTRIES`` entries are kept; the oldest go first.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import sys
import warnings
from pathlib import Path
from typing import Callable, Mapping

from detect.cache import cache_home, recording_reads, unchanged, write_atomically
from detect.ir import SequentialModel

#: Entries kept; past it, the oldest quarter is removed on the next write.
MAX_ENTRIES = 256
_ROOT = Path(__file__).resolve().parents[1]
_CODE = (_ROOT / "frontends", _ROOT / "detect" / "ir", _ROOT / "detect" / "errors.py")


def cache_enabled() -> bool:
    return os.environ.get("SYMDETECT_MODEL_CACHE", "on").lower() not in ("0", "off", "no", "false")


def code_version() -> str:
    """A hash of the code a front end's result depends on (see the module's docstring)."""
    digest = hashlib.sha256(repr(sys.version_info[:2]).encode())
    files = []
    for place in _CODE:
        if place.is_file():
            files.append(place)
            continue
        for root, dirs, names in os.walk(place):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files += [Path(root, n) for n in sorted(names) if n.endswith((".py", ".lark"))]
    lark = importlib.util.find_spec("lark")
    if lark is not None and lark.origin:
        files.append(Path(lark.origin))  # its __init__.py holds __version__
    for path in files:
        digest.update(str(path.relative_to(_ROOT) if path.is_relative_to(_ROOT) else path.name).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def load_cached(path: str, language: str, arguments: Mapping[str, object],
                load: Callable[[], SequentialModel]) -> SequentialModel:
    """``load()`` (the front end reading ``path`` with ``arguments``), or the model it gave
    before for the same code, call and files."""
    if not cache_enabled():
        return load()
    try:
        data = Path(path).read_bytes()
    except OSError:
        return load()  # the front end says why, located
    key = hashlib.sha256(repr((code_version(), language, str(path), os.path.abspath(path),
                               sorted(arguments.items(), key=repr))).encode() + b"\0" + data)
    entry = cache_home() / "models" / f"{key.hexdigest()[:40]}.pickle"
    cached = _read(entry)
    if cached is not None:
        return cached
    refused = None
    with warnings.catch_warnings(record=True) as recorded, recording_reads() as reads:
        warnings.simplefilter("always")
        try:
            model = load()
        except BaseException as e:  # noqa: BLE001 - re-raised below, after its warnings
            refused = e
    # Once each, as the default filter would have shown them (recording saw every repeat);
    # given also when the front end then refuses the model.
    given = tuple(dict.fromkeys((w.category, str(w.message), w.filename, w.lineno) for w in recorded))
    _replay(given)
    if refused is not None:
        raise refused
    try:
        blob = pickle.dumps((tuple(reads), given, model), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - a model that does not pickle is simply not cached
        return model
    if write_atomically(entry, lambda f: f.write(blob)):
        _prune(entry.parent)
    return model


def _read(entry: Path):
    """The entry's model when it is readable and every file it read is unchanged; else None."""
    try:
        with open(entry, "rb") as f:
            reads, given, model = pickle.load(f)
    except Exception:  # noqa: BLE001 - absent, partial or from other code: computed again
        return None
    if not isinstance(model, SequentialModel) or not unchanged(reads):
        return None
    _replay(given)
    return model


def _replay(given) -> None:
    """The warnings recorded while loading, given again to the caller's filters."""
    for category, message, filename, lineno in given:
        warnings.warn_explicit(message, category, filename, lineno)


def _prune(folder: Path) -> None:
    def written(entry: Path) -> float:
        try:
            return entry.stat().st_mtime
        except OSError:  # removed meanwhile by another process
            return 0.0

    entries = sorted(folder.glob("*.pickle"), key=written)
    if len(entries) > MAX_ENTRIES:
        for old in entries[:len(entries) - MAX_ENTRIES * 3 // 4]:
            try:
                old.unlink()
            except OSError:
                pass
