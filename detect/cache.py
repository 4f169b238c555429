"""symdetect's on-disk cache: where it lives, and files written so that readers never see half.

Everything cached is keyed by a hash of all it is computed from (the file name carries the
key), so an entry is either absent or right; concurrent processes (pytest-xdist workers, two
runs) may write the same entry, and the last rename wins with identical content.  A cache
that cannot be written (read-only or missing home) is skipped: callers compute instead.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, Optional


def cache_home() -> Path:
    """``$XDG_CACHE_HOME/symdetect``, else ``~/.cache/symdetect``; without a home directory (an
    unexpanded ``~``), a directory of this user's under the system's temporary directory."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return Path(tempfile.gettempdir()) / f"symdetect-cache-{os.getuid()}"
    return Path(base) / "symdetect"


def write_atomically(target: Path, write: Callable[[BinaryIO], None]) -> bool:
    """``write(file)`` into a fresh file beside ``target``, then renamed onto it; False (and
    nothing left behind) when the directory cannot be made or written."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(dir=target.parent, prefix=target.name + ".", suffix=".part")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(partial, target)
        return True
    except OSError:
        try:
            os.unlink(partial)
        except OSError:
            pass
        return False


#: The files read so far by the computation a ``recording_reads`` block is caching: (absolute
#: path, SHA-256 of the bytes read).  A context variable, not module state: each thread and
#: task records its own, and outside a block nothing is recorded.
_FILES_READ: ContextVar[Optional[list]] = ContextVar("symdetect_files_read", default=None)


def note_read(path, data: bytes) -> None:
    """Record, for an enclosing ``recording_reads``, that ``path`` was read as ``data``."""
    reads = _FILES_READ.get()
    if reads is not None:
        reads.append((os.path.abspath(path), hashlib.sha256(data).hexdigest()))


@contextmanager
def recording_reads() -> Iterator[list]:
    """The list ``note_read`` fills while the block runs: every file a cached result depends on
    (a computation that reads a file other than through ``note_read``'s callers cannot be
    cached this way)."""
    reads: list = []
    token = _FILES_READ.set(reads)
    try:
        yield reads
    finally:
        _FILES_READ.reset(token)


def unchanged(reads) -> bool:
    """Whether every recorded file still has the bytes it had (missing ones have not)."""
    for path, digest in reads:
        try:
            with open(path, "rb") as f:
                if hashlib.sha256(f.read()).hexdigest() != digest:
                    return False
        except OSError:
            return False
    return True
