"""What is computed once and cached: where, under which name, and what a cached file is worth.

A course names one environment variable for the folder its caches write to (the answer
key, and whatever its own studies cache); ``off`` (in any case, spaces around it too)
caches nothing, so no cache writes a file anywhere. A cached file's name is a
``fingerprint`` of everything it was computed from: every file of the packages whose code
computes it (the engine's too), the Python, NumPy and platform, and whatever else its
caller names. A change to any of them is a new name, computed afresh.

A cached file is worth only what reading it verifies, since anyone who can write the
folder can write it. Each is sealed with an HMAC-SHA256 of its name and bytes under
this user's secret, which lives outside the folder, in the user's own config folder
(``$XDG_CONFIG_HOME/predict-check/secret``, else ``~/.config/predict-check/secret``, made
on first use, only its owner can read it): a file sealed by anyone else, or changed since,
is said (once) and computed afresh, and so is anything that is not a regular file (it is
never waited on). Where no secret can be made (a home that cannot be written) nothing is
cached. Each name carries the secret's public ``owner`` name, so two users (or a test run
and a build) sharing a folder each read and replace only their own files.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import importlib.util
import os
import platform
import secrets
import stat
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np

from .errors import CacheWarning
from .untrusted import visible

OFF = "off"
ENGINE = __name__.partition(".")[0]  # the engine's own package: part of every computation it caches
SECRET_BYTES = 32
SEAL = "predict-check sealed"  # a sealed file's first line: these words and the HMAC, in hex
_said: set[tuple[str, str]] = set()  # (file, why): each refusal is said once per process


@dataclass(frozen=True)
class Folder:
    """A cache folder, and the secret that seals what this user caches there."""

    path: Path
    secret: bytes = field(repr=False)

    @property
    def owner(self) -> str:
        """A public name for the secret, in every file name, that tells nothing of the secret itself."""
        return hmac.new(self.secret, b"owner", hashlib.sha256).hexdigest()[:12]

    def file(self, stem: str, fingerprint: str, suffix: str) -> Path:
        """Where the value named ``stem`` and ``fingerprint`` is cached for this user."""
        return self.path / f"{stem}-{self.owner}-{fingerprint}{suffix}"

    def files(self, stem: str, suffix: str) -> list[Path]:
        """This user's files named ``stem``, of every fingerprint."""
        return sorted(self.path.glob(f"{stem}-{self.owner}-*{suffix}"))

    def read(self, path: Path, warning: type[Warning] = CacheWarning) -> bytes | None:
        """What ``path`` holds, where this user sealed it there; else None, and said once (as ``warning``).

        Nothing there, or a folder that cannot be read, is None and not said: computing again is all it costs.
        """
        try:
            found = _regular_file(path)
        except OSError:
            return None
        if found is None:
            _say_once(warning, path, "is not a regular file")
            return None
        line, _, payload = found[0].partition(b"\n")
        if not hmac.compare_digest(line, self._seal(path.name, payload)):
            _say_once(warning, path, "is not as this user cached it (its seal does not match)")
            return None
        return payload

    def write(self, path: Path, payload: bytes) -> bool:
        """Cache ``payload`` at ``path``, sealed, whole or not at all; whether it was written."""
        return write_whole(path, lambda file: file.write(self._seal(path.name, payload) + b"\n" + payload))

    def _seal(self, name: str, payload: bytes) -> bytes:
        tag = hmac.new(self.secret, name.encode("utf-8", "surrogatepass") + b"\0" + payload, hashlib.sha256)
        return f"{SEAL} {tag.hexdigest()}".encode()


def folder(variable: str, default: Path | None = None) -> Folder | None:
    """The folder ``variable`` names (``default`` where it is unset or blank), with this user's secret.

    None where it says ``off``, where there is no folder, or where no secret can be made: nothing is cached then.
    """
    chosen = os.environ.get(variable, "")
    if chosen.strip().casefold() == OFF:
        return None
    where = Path(chosen) if chosen.strip() else default
    key = None if where is None else secret()
    return None if key is None else Folder(where, key)


def fingerprint(packages: Iterable[str], *parts: str) -> str:
    """A short digest of ``parts``, the Python, NumPy and platform, and every file of the packages ``packages`` are in.

    ``packages`` are module names; each counts for its whole top-level package, and the engine always counts.
    """
    digest = hashlib.sha256()
    for part in (*parts, sys.version, platform.platform(), np.__version__):
        _add(digest, part.encode("utf-8", "surrogatepass"))  # any text, a lone surrogate too, has its own bytes
    for package in sorted({name.partition(".")[0] for name in packages} | {ENGINE}):
        for relative, path in package_files(package):
            _add(digest, f"{package}/{relative}".encode("utf-8", "surrogatepass"))
            _add(digest, path.read_bytes())
    return digest.hexdigest()[:20]


def package_files(package: str) -> list[tuple[str, Path]]:
    """Every file of the top-level package ``package`` (``__pycache__`` left out), by its path inside it, sorted."""
    spec = importlib.util.find_spec(package)
    if spec is None:
        return []
    if not spec.submodule_search_locations:  # a module on its own
        return [(Path(spec.origin).name, Path(spec.origin))] if spec.origin else []
    found = []
    for root in map(Path, spec.submodule_search_locations):
        for where, folders, names in os.walk(root):
            folders[:] = [name for name in folders if name != "__pycache__"]
            found += [(Path(where, name).relative_to(root).as_posix(), Path(where, name)) for name in names]
    return sorted(found)


def secret_path() -> Path | None:
    """Where this user's secret is: in ``$XDG_CONFIG_HOME`` (an absolute path), else in ``~/.config``."""
    configured = os.environ.get("XDG_CONFIG_HOME", "")
    try:
        base = Path(configured) if os.path.isabs(configured) else Path.home() / ".config"
    except RuntimeError:  # no home to be found
        return None
    return base / "predict-check" / "secret"


def secret() -> bytes | None:
    """This user's secret, made on first use; None where none can be made, or the one there is not this user's alone."""
    path = secret_path()
    if path is None:
        return None
    if not os.path.lexists(path):
        _make_secret(path)
    try:
        found = _regular_file(path)
    except OSError:
        return None
    if found is not None and _private(found[1]) and len(found[0]) == SECRET_BYTES:
        return found[0]
    _say_once(CacheWarning, path, f"is not a secret of this user's alone ({SECRET_BYTES} bytes, mode 0600)")
    return None


def _private(status: os.stat_result) -> bool:
    """Whether a file is this user's, and no one else's to read (where the system has users and modes)."""
    return not hasattr(os, "getuid") or (status.st_uid == os.getuid() and not status.st_mode & 0o077)


def _make_secret(path: Path) -> None:
    """Write a new secret at ``path`` unless one is there: whole, in one step, so that racing processes share one."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".secret.")  # mode 0600
    except OSError:
        return
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(secrets.token_bytes(SECRET_BYTES))
            file.flush()
            os.fsync(file.fileno())
        os.link(temporary, path)  # fails where a secret is there: the first one written is everyone's
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _regular_file(path: Path) -> tuple[bytes, os.stat_result] | None:
    """The bytes at ``path`` and its ``fstat``, or None for anything but a regular file (a FIFO, a device, a folder).

    Opened without waiting (a FIFO would wait for a writer); ``OSError`` where nothing can be opened.
    """
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            return None
        with os.fdopen(descriptor, "rb", closefd=False) as file:
            return file.read(), status
    finally:
        os.close(descriptor)


def _say_once(warning: type[Warning], path: Path, why: str) -> None:
    if (str(path), why) not in _said:
        _said.add((str(path), why))
        said = f"{visible(str(path))} {why}; it is not read, and what it holds is computed afresh"
        warnings.warn(warning(said), stacklevel=3)


def _add(digest, data: bytes) -> None:
    """``data`` into ``digest`` with its length first, so that no two sequences of parts digest alike."""
    digest.update(len(data).to_bytes(8, "big") + data)


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
