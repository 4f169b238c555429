"""symdetect's on-disk cache: where it lives, and files written so that readers never see half.

Everything cached is keyed by a hash of all it is computed from (the file name carries the
key), so an entry is either absent or right; concurrent processes (pytest-xdist workers, two
runs) may write the same entry, and the last rename wins with identical content.  A cache
that cannot be written (read-only or missing home) is skipped: callers compute instead.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable


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
