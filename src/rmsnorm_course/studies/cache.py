"""Where the chapter caches what it computes once: the training runs, the model's measurements, the answer key.

One environment variable names the folder (``make`` names ``_build/studies``): the
book's build, its notebook tests and the unit tests, run side by side, then compute
each value once between them. ``off`` (any case, spaces around it too) caches nothing;
unset, the studies cache nothing and the answer key caches in the user's cache folder.
A cached file is named after every file of the course and the engine
(``predict_check.cache.fingerprint``), and read only where this user sealed it: it is
never trusted over its sources, nor over whoever else can write the folder.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from predict_check import cache

VARIABLE = "RMSNORM_COURSE_CACHE"
COURSE = __name__.partition(".")[0]  # every file of the course computes what it caches
UNREADABLE = (OSError, EOFError, KeyError, ValueError, TypeError, zipfile.BadZipFile)  # not there, or not whole
Record = TypeVar("Record")


def folder() -> cache.Folder | None:
    """The folder the studies cache their files in, or None: unset, empty or ``off`` caches nothing."""
    return cache.folder(VARIABLE)


def arrays(name: str, parts: Sequence[str], compute: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """``compute()``, or the arrays cached for the same ``name``, ``parts`` and files of the course.

    One process computes while others wait for it, then they read what it cached.
    """
    where = folder()
    if where is None:
        return compute()
    path = where.file(name, cache.fingerprint([COURSE], name, *parts), ".npz")
    with contextlib.suppress(*UNREADABLE):
        return _read(where, path)
    try:
        where.path.mkdir(parents=True, exist_ok=True)
    except OSError:  # a folder that cannot be made only means computing every time
        return compute()
    with cache.one_at_a_time(where.path):
        with contextlib.suppress(*UNREADABLE):
            return _read(where, path)  # computed while this process waited
        computed = compute()
        written = io.BytesIO()
        np.savez(written, **computed)
        where.write(path, written.getvalue())
    return computed


def record(name: str, parts: Sequence[str], compute: Callable[[], Record], kind: type[Record]) -> Record:
    """A record of arrays (a dataclass), computed or cached as ``arrays`` caches them."""

    def fields_of() -> dict[str, np.ndarray]:
        value = compute()
        return {field.name: np.asarray(getattr(value, field.name)) for field in dataclasses.fields(value)}

    stored = arrays(name, parts, fields_of)
    return kind(**{field.name: stored[field.name] for field in dataclasses.fields(kind)})


@functools.cache  # one read per process and file
def _read(where: cache.Folder, path: Path) -> dict[str, np.ndarray]:
    payload = where.read(path)
    if payload is None:
        raise FileNotFoundError(path)
    with np.load(io.BytesIO(payload), allow_pickle=False) as stored:
        return {key: stored[key] for key in stored.files}
