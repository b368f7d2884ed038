"""Where the chapter keeps what it computes once: the training runs, the model's measurements, the answer key.

One environment variable names the folder (``make`` names ``_build/studies``): the
book's build, its notebook tests and the unit tests, run side by side, then compute
each value once between them. ``off`` keeps nothing; unset, the studies keep nothing
and the answer key keeps to the user's cache folder. A kept file is named after the
source of every module its computation runs (``predict_check.cache.fingerprint``), so it
is never trusted over its sources.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from predict_check import cache

VARIABLE = "RMSNORM_COURSE_CACHE"
UNREADABLE = (OSError, EOFError, KeyError, ValueError, TypeError, zipfile.BadZipFile)  # not there yet, or not whole
Record = TypeVar("Record")


def folder() -> Path | None:
    """The folder the studies keep their files in, or None: unset, empty or ``off`` keeps nothing."""
    return cache.folder(VARIABLE)


def arrays(
    name: str, modules: Sequence[str], parts: Sequence[str], compute: Callable[[], dict[str, np.ndarray]]
) -> dict[str, np.ndarray]:
    """``compute()``, or the arrays kept for the same ``name``, ``parts`` and the sources ``modules`` run.

    One process computes while others wait for it, then they read what it kept.
    """
    where = folder()
    if where is None:
        return compute()
    path = where / f"{name}-{cache.fingerprint(modules, name, *parts, np.__version__)}.npz"
    with contextlib.suppress(*UNREADABLE):
        return _read(path)
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError:  # a folder that cannot be made only means computing every time
        return compute()
    with cache.one_at_a_time(where):
        with contextlib.suppress(*UNREADABLE):
            return _read(path)  # computed while this process waited
        computed = compute()
        cache.write_whole(path, lambda file: np.savez(file, **computed))
    return computed


def record(name: str, modules: Sequence[str], parts: Sequence[str], compute: Callable[[], Record], kind: type[Record]):
    """A record of arrays (a dataclass), computed or kept as ``arrays`` keeps them."""

    def fields_of() -> dict[str, np.ndarray]:
        value = compute()
        return {field.name: np.asarray(getattr(value, field.name)) for field in dataclasses.fields(value)}

    stored = arrays(name, modules, parts, fields_of)
    return kind(**{field.name: stored[field.name] for field in dataclasses.fields(kind)})


@functools.cache  # one read per process and path
def _read(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as stored:
        return {key: stored[key] for key in stored.files}
