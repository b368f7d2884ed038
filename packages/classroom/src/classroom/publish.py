"""A run's outputs as one folder, swapped into place whole: the last run's outputs, or the new ones, whatever stops it.

Every output is written into a new folder beside the old one (``.grades.new-<token>``),
with the umask's permissions, and put on the disk. Then the two folders are swapped in
one step (Linux's ``renameat2`` exchange) and the old one is removed. Where the system
cannot swap, the old folder is set aside (``.grades.old-<token>``) and the new one
renamed into its place: a run stopped between those two renames leaves the old folder
whole beside its place, and the next run puts it back. Every run first removes what a
stopped one left, and holds the parent folder's lock while it writes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import secrets
import shutil
from collections.abc import Mapping
from pathlib import Path

try:
    import fcntl
except ImportError:  # a system without file locks: outputs are still swapped whole
    fcntl = None


class PublishError(OSError):
    """An output that could not be written; the message names it as the user gave it, never a temporary name."""


def _checkpoint(step: str) -> None:
    """A point between two steps of a run: nothing happens here (tests stop a run at each one)."""


def publish(folder: Path, files: Mapping[str, bytes], shown: str) -> None:
    """Write ``files`` (relative path -> bytes) as the folder ``folder``, replacing the last one whole."""
    token = secrets.token_hex(4)
    new, old = (folder.with_name(f".{folder.name}.{state}-{token}") for state in ("new", "old"))
    with _locked(folder.parent):
        recover(folder)
        try:
            for name, data in files.items():
                (new / name).parent.mkdir(parents=True, exist_ok=True)
                with open(new / name, "xb") as handle:
                    handle.write(data)
            getattr(os, "sync", lambda: None)()  # on the disk before it takes the old one's place
        except OSError as error:
            shutil.rmtree(new, ignore_errors=True)
            raise PublishError(error.errno, f"cannot write {shown}: {error.strerror}") from None
        _checkpoint("written")
        if not os.path.lexists(folder):
            os.rename(new, folder)
        elif not _exchange(new, folder):  # then the old folder lies where the new one was
            os.rename(folder, old)
            _checkpoint("set aside")
            os.rename(new, folder)
            new = old
        _checkpoint("swapped")
        shutil.rmtree(new, ignore_errors=True)


def recover(folder: Path) -> None:
    """Finish what a stopped run left beside ``folder``: a folder set aside goes back where none took its place."""
    leftover = re.compile(rf"\.{re.escape(folder.name)}\.(new|old)-[0-9a-f]{{8}}")
    with contextlib.suppress(OSError):
        for entry in sorted(folder.parent.iterdir()):
            found = leftover.fullmatch(entry.name)
            if found is None or entry.is_symlink() or not entry.is_dir():
                continue
            if found.group(1) == "old" and not os.path.lexists(folder):
                os.rename(entry, folder)
            else:
                shutil.rmtree(entry, ignore_errors=True)


def _exchange(new: Path, folder: Path) -> bool:
    """Swap two folders in one step where the system can (Linux's ``renameat2``); False where it cannot."""
    call = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    here = -100  # AT_FDCWD: the paths are as given
    return call is not None and call(here, os.fsencode(new), here, os.fsencode(folder), 2) == 0  # RENAME_EXCHANGE


@contextlib.contextmanager
def _locked(folder: Path):
    """Hold the folder's lock: one run writes beside it at a time (where the system offers locks)."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        if fcntl is not None:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock
