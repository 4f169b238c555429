"""Reading a model file: text or a located ``InputError``, never a traceback."""
from __future__ import annotations

from pathlib import Path

from detect.cache import note_read
from detect.errors import InputError


def read_source(path, what: str = "file") -> str:
    """The UTF-8 text of ``path``; unreadable or non-UTF-8 files are ``InputError`` (the
    latter located at the first bad byte)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise InputError(f"cannot read {what}: {e.strerror or e}", str(path)) from None
    # What a cached model depends on (frontends.model_cache): every file a front end reads
    # comes through here.
    note_read(path, data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[e.start]:02x}); expected a text model file",
                         str(path), line, column) from None
