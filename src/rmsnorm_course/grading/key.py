"""The answer key: each exercise's reference answer, computed once per version of the package and kept.

A solver runs the package (one of them trains the training page's network), so
grading one student's file would pay for every solver on every run. The key is
kept instead, as JSON data in a cache folder, under a name made from everything
the answers depend on: the package's version, the source of the layers that compute
them (``core``, ``studies``, ``exercises``), and the Python, NumPy and platform it ran
on. Any change to one of them is a new key, computed afresh; a cache that cannot be
read or written is simply not used. Each answer is computed only when an exercise
is first judged, so a blank file still runs no solver.

The folder is ``$RMSNORM_COURSE_CACHE``, else ``$XDG_CACHE_HOME/rmsnorm-course``, else
``~/.cache/rmsnorm-course``; ``RMSNORM_COURSE_CACHE=off`` keeps nothing on disk.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import sys
import tempfile
from functools import cache
from importlib import metadata
from pathlib import Path

import numpy as np

from ..questions.registry import EXERCISES, Exercise, Solution

PACKAGE = "rmsnorm-course"
LAYERS = ("core", "studies", "exercises")  # what the answers are computed from
OFF = "off"
_memo: dict[str, Solution] = {}


@cache
def version() -> str:
    """The installed package's version, as the gradebook names it."""
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return "unknown"


@cache
def fingerprint() -> str:
    """A short digest of everything the answers depend on."""
    digest = hashlib.sha256()
    for part in (version(), sys.version, np.__version__, platform.platform()):
        digest.update(part.encode() + b"\0")
    root = Path(__file__).resolve().parents[1]
    for layer in LAYERS:
        for source in sorted((root / layer).rglob("*.py")):
            digest.update(source.relative_to(root).as_posix().encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def folder() -> Path | None:
    """Where the key is kept, or None when keeping it is switched off."""
    chosen = os.environ.get("RMSNORM_COURSE_CACHE")
    if chosen == OFF:
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / PACKAGE


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
    """The kept solutions, or none when there is no key, or one that is not exactly what ``_save`` writes."""
    where = path()
    if where is None:
        return {}
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
        if data.get("fingerprint") != fingerprint():
            return {}
        return {exercise_id: _solution(entry) for exercise_id, entry in data["solutions"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


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
            json.dump(data, new, default=_plain)
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


def _entry(solved: Solution) -> dict[str, object]:
    return {
        "answer": solved.answer,
        "explanation": solved.explanation,
        "pitfalls": [[value, note] for value, note in solved.pitfalls],
        "detail": solved.detail,
        "picture": solved.picture,
    }


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
