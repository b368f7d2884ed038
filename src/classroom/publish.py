"""A run's outputs replaced as one unit: every one of them, or none, whatever stops the run.

The outputs (a gradebook, its figure, a folder of feedback pages) may lie in several
folders. Each is first written whole into a staging folder beside it (one per folder,
``.rmsnorm-grade-<token>``), with the umask's permissions; a disk that fills up, or
any other failure, ends the run here, the staging folders are removed and the last
run's outputs stand untouched. Then a journal is written into the first staging
folder: from that moment the run is committed. Each output then takes its place in
one step: a file by a rename over the old one, a folder by exchanging it with the old
one (Linux's ``renameat2``; elsewhere, two renames), and the old ones are removed with
the staging folders.

A run stopped at any point (killed, the machine down) leaves either no journal (the
old outputs untouched) or a journal (the new outputs whole, in staging or in place).
Before it writes anything, every run finishes what a stopped run left beside its
outputs: a journal's outputs are put in place, and staging folders without one are
removed. Nothing is left over, and no two runs' outputs are mixed once it has run.
The caller holds the folders' locks throughout.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import json
import os
import re
import secrets
import shutil
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

PREFIX = ".rmsnorm-grade-"
JOURNAL = "journal.json"  # in the first staging folder: once it is there, the run is committed
RUN = "run.json"  # in every staging folder: the run's staging folders, the first one first
_EXCHANGE = 2  # RENAME_EXCHANGE
_LEGACY = re.compile(r"\.(?P<name>.+?)\.(?:old\.)?[a-z0-9_]{8}")  # an earlier version's temporary names


class PublishError(OSError):
    """An output that could not be written; the message names it as the user gave it, never a temporary name."""


@dataclass(frozen=True)
class Unit:
    """One output: where it goes, what it holds (a file's bytes, or a folder's files by path), and its name as given."""

    target: Path
    content: bytes | Mapping[str, bytes]
    shown: str


def _checkpoint(step: str) -> None:
    """A point between two steps of a run: nothing happens here (tests stop a run at each one)."""


def publish(units: Sequence[Unit]) -> None:
    """Write every unit, then switch them all into place (see the module's words); a failure raises ``PublishError``."""
    parents = list(dict.fromkeys(unit.target.parent for unit in units))
    for parent in parents:
        recover(parent, [unit.target.name for unit in units if unit.target.parent == parent])
    token = secrets.token_hex(8)
    stages = [parent / f"{PREFIX}{token}" for parent in parents]
    made: list[Path] = []
    entries: list[dict[str, object]] = []
    try:
        for stage in stages:
            os.mkdir(stage)
            made.append(stage)
            _write(stage / RUN, json.dumps({"stages": [str(s) for s in stages]}).encode())
        _checkpoint("staging")
        for number, unit in enumerate(units):
            staged = stages[parents.index(unit.target.parent)] / f"new-{number}"
            try:
                _stage(unit.content, staged)
            except OSError as error:
                raise PublishError(error.errno, f"cannot write {unit.shown}: {error.strerror}") from None
            entries.append({"target": str(unit.target), "staged": str(staged), "identity": _journal_identity(staged)})
            _checkpoint("staged")
        for stage in stages:
            _durable(stage)
        try:
            _write(stages[0] / JOURNAL, json.dumps({"units": entries}).encode(), sync=True)
            _fsync(stages[0])
        except OSError as error:
            raise PublishError(error.errno, f"cannot write {units[0].shown}: {error.strerror}") from None
    except BaseException:
        for stage in reversed(made):
            shutil.rmtree(stage, ignore_errors=True)
        raise
    _checkpoint("committed")
    for entry in entries:
        _switch(entry)
        _checkpoint("switched")
    _remove(stages)


def recover(parent: Path, names: Sequence[str] = ()) -> None:
    """Finish what a stopped run left in ``parent``: a committed one's outputs put in place, the rest removed.

    ``names`` are the outputs this run writes there: an earlier version's temporary
    files for them (``.grades.csv.x1y2z3w4``) are cleaned up too, and nothing else.
    """
    try:
        leftovers = sorted(entry for entry in parent.iterdir() if entry.name.startswith(PREFIX) and _ours(entry))
    except OSError:
        return
    for stage in leftovers:
        stages = _run_stages(stage)
        journal = _read_json(stages[0] / JOURNAL) if _ours(stages[0]) else None
        units = journal.get("units") if isinstance(journal, dict) else None
        if isinstance(units, list):
            for entry in units:
                if isinstance(entry, dict) and _belongs(entry, stages):
                    _switch(entry)
        _remove(stages or [stage])
    _legacy(parent, set(names))


def _run_stages(stage: Path) -> list[Path]:
    """The staging folders of the run ``stage`` belongs to, the first one first (only real ones of ours)."""
    run = _read_json(stage / RUN)
    listed = run.get("stages") if isinstance(run, dict) else None
    if not isinstance(listed, list) or not all(isinstance(item, str) for item in listed):
        return [stage]
    stages = [Path(item) for item in listed]
    if stage not in stages or not all(s.name.startswith(PREFIX) for s in stages):
        return [stage]
    return [s for s in stages if s == stages[0] or _ours(s)]


def _belongs(entry: Mapping[str, object], stages: list[Path]) -> bool:
    """Whether a journal's entry moves one of the run's staged outputs to a place beside its staging folder."""
    target, staged = entry.get("target"), entry.get("staged")
    if not isinstance(target, str) or not isinstance(staged, str):
        return False
    return Path(staged).parent in stages and Path(staged).parent.parent == Path(target).parent


def _switch(entry: Mapping[str, object]) -> None:
    """Put one staged output in its place, unless it is there already (a run may be finished twice)."""
    target, staged = Path(str(entry["target"])), Path(str(entry["staged"]))
    new = entry.get("identity")
    if not isinstance(new, list) or _journal_identity(target) == new or _journal_identity(staged) != new:
        return
    if _is_folder(staged) and _is_folder(target):
        if not _exchange(staged, target):
            old = staged.with_name(staged.name.replace("new-", "old-"))
            os.rename(target, old)
            _checkpoint("set aside")
            os.rename(staged, target)
        return
    os.replace(staged, target)


def _remove(stages: Sequence[Path]) -> None:
    """The staging folders, the first (with the journal) last; what cannot be removed is left for the next run."""
    for stage in [*stages[1:], *stages[:1]]:
        shutil.rmtree(stage, ignore_errors=True)


def _legacy(parent: Path, names: set[str]) -> None:
    """An earlier version's leftovers: a feedback folder set aside and never put back is put back; the rest removed."""
    with contextlib.suppress(OSError):
        for entry in sorted(parent.iterdir()):
            found = _LEGACY.fullmatch(entry.name)
            if not found or found.group("name") not in names or not _ours(entry) or entry.name.startswith(PREFIX):
                continue
            original = parent / found.group("name")
            kept = entry / found.group("name")
            if ".old." in entry.name and _is_folder(kept) and not os.path.lexists(original):
                os.rename(kept, original)
            if _is_folder(entry):
                shutil.rmtree(entry, ignore_errors=True)
            elif stat.S_ISREG(entry.lstat().st_mode):
                entry.unlink()


def _stage(content: bytes | Mapping[str, bytes], path: Path) -> None:
    """A file, or a folder of files, written in full and to the disk, with the umask's permissions."""
    if isinstance(content, bytes):
        _write(path, content)
        return
    os.mkdir(path)
    for name, data in content.items():
        file = path / name
        for folder in reversed(file.relative_to(path).parents[:-1]):
            with contextlib.suppress(FileExistsError):
                os.mkdir(path / folder)
        _write(file, data)


def _write(path: Path, data: bytes, sync: bool = False) -> None:
    """A new file holding ``data``; with ``sync``, on the disk before this returns."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
        if sync:
            os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _durable(stage: Path) -> None:
    """Everything staged on the disk before the journal is written, so that a journal never outlives its outputs.

    One ``syncfs`` for the file system (Linux), else each file and folder in turn.
    """
    descriptor = os.open(stage, os.O_RDONLY)
    try:
        if _syncfs(descriptor):
            return
    finally:
        os.close(descriptor)
    for path in sorted(stage.rglob("*"), reverse=True):
        _fsync(path)
    _fsync(stage)


def _syncfs(descriptor: int) -> bool:
    try:
        call = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True).syncfs
    except (OSError, AttributeError, TypeError):
        return False
    return call(descriptor) == 0


def _fsync(path: Path) -> None:
    with contextlib.suppress(OSError):
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def file_identity(path: Path, follow: bool = False) -> tuple[int, int] | None:
    """The device and inode of ``path`` (a link itself unless ``follow``), or None where it cannot be looked at."""
    try:
        status = path.stat() if follow else path.lstat()
    except (OSError, RuntimeError):  # absent, unreachable, or a loop of links
        return None
    return status.st_dev, status.st_ino


def _journal_identity(path: Path) -> list[int] | None:
    """``file_identity`` as the journal holds it (JSON has lists, not tuples)."""
    identity = file_identity(path)
    return None if identity is None else list(identity)


def _is_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def _ours(path: Path) -> bool:
    """A real folder or file (not a link) that this user owns: another's leftovers are not ours to touch."""
    try:
        status = path.lstat()
    except OSError:
        return False
    owner = getattr(os, "getuid", lambda: status.st_uid)()
    return status.st_uid == owner and not stat.S_ISLNK(status.st_mode)


def _read_json(path: Path) -> object:
    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return None
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


_renameat2 = None


def _exchange(first: Path, second: Path) -> bool:
    """Swap two folders in one step, where the system can (Linux's ``renameat2``); False where it cannot."""
    global _renameat2
    if _renameat2 is None:
        try:
            _renameat2 = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True).renameat2
        except (OSError, AttributeError, TypeError):
            _renameat2 = False
    if _renameat2 is False:
        return False
    at = -100  # AT_FDCWD
    if _renameat2(at, os.fsencode(first), at, os.fsencode(second), _EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(second))
