"""What is computed once and kept: where, under which name, and how it is written.

A course names one environment variable for the folder every one of its caches keeps
its files in (the answer key, and whatever its own studies keep); ``off`` keeps
nothing, so no cache writes a file anywhere. A kept file's name is a ``fingerprint``
of everything it was computed from: the source of every module the computation runs,
found by their imports (``imports.imported_files``), and whatever else its caller names. A change
to any of them is a new name, computed afresh; a cache is never trusted over its sources.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

from .imports import imported_files

OFF = "off"


def folder(variable: str, default: Path | None = None) -> Path | None:
    """The folder ``variable`` names; None where it says ``off``; ``default`` where it is unset or empty."""
    chosen = os.environ.get(variable, "")
    if chosen == OFF:
        return None
    return Path(chosen) if chosen else default


def fingerprint(modules: Iterable[str], *parts: str) -> str:
    """A short digest of ``parts``, the Python and platform, and the source of everything ``modules`` import."""
    digest = hashlib.sha256()
    for part in (*parts, sys.version, platform.platform()):
        digest.update(part.encode() + b"\0")
    for module, source in sorted(imported_files(modules).items()):
        digest.update(module.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def write_whole(path: Path, write: Callable[[IO[bytes]], None]) -> bool:
    """Write ``path`` under a temporary name, then rename it: a reader sees all of the file or none of it.

    Returns whether it was written; a folder that cannot be written only means computing again next time.
    """
    written = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.stem}.", delete=False) as new:
            written = new.name
            write(new)
        os.replace(written, path)
        return True
    except (OSError, TypeError, ValueError):
        if written is not None:
            with contextlib.suppress(OSError):
                os.unlink(written)
        return False


@contextlib.contextmanager
def one_at_a_time(where: Path) -> Iterator[None]:
    """Hold the folder ``where``'s lock: processes side by side take turns (a save, a value computed once).

    Where the system has no ``fcntl`` (Windows), nothing is held; a folder that is not there is an ``OSError``.
    The system releases the lock when the process ends, however it ends.
    """
    try:
        import fcntl
    except ImportError:
        yield
        return
    handle = os.open(where, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)
