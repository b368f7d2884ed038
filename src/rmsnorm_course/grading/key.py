"""The answer key: each exercise's reference answer, computed once per version of its sources and kept.

A solver runs the package (one of them trains the training page's network), so
grading one student's file would pay for every solver on every run. The key is
kept instead, as JSON data in a cache folder, under a name made from everything
the answers depend on: the package's version, every source file the solvers run
(found from the solvers' own modules by their imports, ``imports``), and the Python,
NumPy and platform it ran on. Any change to one of them is a new key, computed afresh.

A kept key is never trusted over its sources: each answer is kept with a digest of
it, and read back only when the digest matches and the answer is of the kind its
exercise takes. Anything else is said (an ``AnswerKeyWarning``) and computed again.
A cache that cannot be read or written is simply not used. Each answer is computed
only when an exercise is first judged, so a blank file still runs no solver.

The folder is ``cache.folder``'s: ``$RMSNORM_COURSE_CACHE``, else
``$XDG_CACHE_HOME/rmsnorm-course``, else ``~/.cache/rmsnorm-course``; ``off`` keeps nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import sys
import tempfile
import warnings
from functools import cache
from importlib import metadata
from pathlib import Path

import numpy as np

from ..cache import folder as cache_folder
from ..imports import imported_files
from ..questions.registry import EXERCISES, Exercise, Solution
from .errors import AnswerKeyWarning
from .untrusted import visible

PACKAGE = "rmsnorm-course"
_memo: dict[str, Solution] = {}


@cache
def version() -> str:
    """The installed package's version, as the gradebook names it."""
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return "unknown"


def solver_modules() -> list[str]:
    """The modules the answers are computed in: each exercise's solver's, and this one's (the key's form)."""
    solvers = {getattr(exercise.solver or exercise.solve, "__module__", None) for exercise in EXERCISES.values()}
    return sorted({__name__} | solvers - {None})


@cache
def fingerprint() -> str:
    """A short digest of everything the answers depend on."""
    digest = hashlib.sha256()
    for part in (version(), sys.version, np.__version__, platform.platform()):
        digest.update(part.encode() + b"\0")
    for module, source in imported_files(solver_modules()).items():
        digest.update(module.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def folder() -> Path | None:
    """Where the key is kept, or None when keeping it is switched off."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return cache_folder(default=Path(base) / PACKAGE)


def path() -> Path | None:
    where = folder()
    return None if where is None else where / f"answer-key-{fingerprint()}.json"


def solution(exercise: Exercise) -> Solution:
    """The exercise's reference answer: from this process, from the kept key, or computed now (and kept).

    Only the registered questions are kept: a variant (the same id, other inputs) is solved afresh.
    """
    registered = EXERCISES.get(exercise.id)
    if registered is None or _inputs(exercise) != _inputs(registered):
        return exercise.solve()
    if exercise.id in _memo:
        return _memo[exercise.id]
    kept = _load()
    if exercise.id in kept:
        _memo[exercise.id] = kept[exercise.id]
        return _memo[exercise.id]
    solved = _memo[exercise.id] = exercise.solve()
    _save(kept | {exercise.id: solved})
    return solved


def _inputs(exercise: Exercise) -> str:
    """The inputs a question is asked about, written out so that arrays compare by value."""
    return repr(sorted(exercise.given.items()))


def _load() -> dict[str, Solution]:
    """The kept solutions that can be trusted: none without a key, none that is not exactly as ``_save`` wrote it."""
    where = path()
    if where is None:
        return {}
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
    except ValueError:
        return _refused(where, "is not JSON")
    except OSError:  # none kept yet, or a folder that cannot be read: not used
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("solutions"), dict):
        return _refused(where, "is not an answer key")
    if data.get("fingerprint") != fingerprint():
        return _refused(where, "was kept for other sources than its name says")
    kept = {}
    for exercise_id, entry in data["solutions"].items():
        why = _distrust(exercise_id, entry)
        if why is None:
            kept[exercise_id] = _solution(entry)
        else:
            warnings.warn(AnswerKeyWarning(f"{visible(str(where))}: {why}; it is computed afresh"), stacklevel=2)
    return kept


def _refused(where: Path, why: str) -> dict[str, Solution]:
    warnings.warn(AnswerKeyWarning(f"{visible(str(where))} {why}; every answer is computed afresh"), stacklevel=3)
    return {}


def _distrust(exercise_id: str, entry: object) -> str | None:
    """Why a kept entry may not be used (as words naming its exercise), or None when it can."""
    exercise = EXERCISES.get(exercise_id)
    named = f"the kept answer to {visible(exercise_id)}"
    if exercise is None:
        return f"{named} names no exercise"
    if not isinstance(entry, dict) or entry.get("digest") != _digest({k: v for k, v in entry.items() if k != "digest"}):
        return f"{named} is not as it was kept (its digest does not match)"
    try:
        solved = _solution(entry)
    except (TypeError, ValueError, KeyError):
        return f"{named} is not an answer key entry"
    values = [solved.answer, *(value for value, _ in solved.pitfalls)]
    if not all(exercise.kind.accepts(value) for value in values):
        return f"{named} is not what a {type(exercise.kind).__name__.lower()} exercise takes"
    return None


def _save(solutions: dict[str, Solution]) -> None:
    """Write the key whole (a new file moved into place), and drop keys of other versions; a failure keeps nothing."""
    where = path()
    if where is None:
        return
    data = {
        "package": PACKAGE,
        "version": version(),
        "fingerprint": fingerprint(),
        "solutions": {exercise_id: _entry(solved) for exercise_id, solved in solutions.items()},
    }
    written = None
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=where.parent, prefix=".answer-key.", delete=False) as new:
            written = new.name
            json.dump(data, new)
        os.replace(written, where)
        for old in where.parent.glob("answer-key-*.json"):
            if old != where:
                old.unlink(missing_ok=True)
    except (OSError, TypeError, ValueError):
        if written is not None:
            with contextlib.suppress(OSError):
                os.unlink(written)


def _plain(value: object) -> object:
    """NumPy numbers as Python's, for JSON."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"a {type(value).__name__} is not kept in the answer key")


def _digest(entry: dict[str, object]) -> str:
    """A digest of an entry as JSON writes it, tied to this key's fingerprint: an edit by hand does not match it."""
    text = json.dumps(entry, sort_keys=True, default=_plain)
    return hashlib.sha256(f"{fingerprint()}\0{text}".encode()).hexdigest()


def _entry(solved: Solution) -> dict[str, object]:
    entry = {
        "answer": solved.answer,
        "explanation": solved.explanation,
        "pitfalls": [[value, note] for value, note in solved.pitfalls],
        "detail": solved.detail,
        "picture": solved.picture,
    }
    plain = json.loads(json.dumps(entry, default=_plain))  # as it reads back: tuples as lists, NumPy's numbers plain
    return plain | {"digest": _digest(plain)}


def _tuples(value: object) -> object:
    """JSON's lists back as the tuples the solvers return; numbers and text as they are."""
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return value
    raise TypeError("not a value of the answer key")


def _solution(entry: dict[str, object]) -> Solution:
    text = (entry["explanation"], entry["detail"])
    if not all(isinstance(part, str) for part in text):
        raise TypeError("not an answer key entry")
    pitfalls = tuple((_tuples(value), note) for value, note in entry["pitfalls"])
    if not all(isinstance(note, str) for _, note in pitfalls):
        raise TypeError("not an answer key entry")
    picture = entry.get("picture")
    if picture is not None and not isinstance(picture, dict):
        raise TypeError("not an answer key entry")
    return Solution(_tuples(entry["answer"]), entry["explanation"], pitfalls, entry["detail"], picture)
