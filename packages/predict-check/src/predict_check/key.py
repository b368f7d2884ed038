"""The answer key: each exercise's reference answer, computed once per version of its sources and kept.

A solver runs the course's code (one may train a network), so grading one student's
file would pay for every solver on every run. The key is kept instead, as JSON data in
the course's cache folder (``cache.folder``), under a name made from everything the
answers depend on: the course's version, every source file the solvers run (found from
the solvers' own modules by their imports), and the Python, NumPy and platform it ran
on. Any change to one of them is a new key, computed afresh.

A kept key is never trusted over its sources: each answer is kept with a digest of
it, and read back only when the digest matches and the answer is of the kind its
exercise takes. Anything else is said (an ``AnswerKeyWarning``) and computed again.
A cache that cannot be read or written is simply not used. Each answer is computed
only when an exercise is first judged, so a blank file still runs no solver.

Without the course's variable the folder is ``$XDG_CACHE_HOME/<course>``, else
``~/.cache/<course>``; ``off`` keeps nothing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import warnings
from pathlib import Path

import numpy as np

from . import cache
from .errors import AnswerKeyWarning
from .exercises import Course, Exercise, Solution
from .untrusted import visible


def solution(exercise: Exercise) -> Solution:
    """The exercise's reference answer: from this process, from its course's kept key, or computed now (and kept).

    Only the registered questions are kept: a variant (the same id, other inputs) is solved afresh.
    """
    if not exercise.registered:
        return exercise.solve()
    return key_of(exercise.course).solution(exercise)


@functools.cache
def key_of(course: Course) -> AnswerKey:
    return AnswerKey(course)


class AnswerKey:
    """One course's kept answers: read once per process, written whole whenever an answer is added."""

    def __init__(self, course: Course):
        self.course = course
        self.solved: dict[str, Solution] = {}

    @functools.cached_property
    def fingerprint(self) -> str:
        """A short digest of everything the answers depend on: versions, and every source the solvers run."""
        solvers = {exercise.solver.__module__ for exercise in self.course} | {__name__}
        return cache.fingerprint(sorted(solvers), self.course.name, self.course.version, np.__version__)

    @property
    def path(self) -> Path | None:
        """Where the key is kept, or None when keeping it is switched off."""
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        where = cache.folder(self.course.cache_variable, default=Path(base) / self.course.name)
        return None if where is None else where / f"answer-key-{self.fingerprint}.json"

    def solution(self, exercise: Exercise) -> Solution:
        if exercise.id not in self.solved:
            kept = self._load()
            if exercise.id in kept:
                self.solved[exercise.id] = kept[exercise.id]
            else:
                self.solved[exercise.id] = exercise.solve()
                self._save(kept | {exercise.id: self.solved[exercise.id]})
        return self.solved[exercise.id]

    def _load(self) -> dict[str, Solution]:
        """The kept solutions that can be trusted: none without a key, none not exactly as ``_save`` wrote it."""
        where = self.path
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
        if data.get("fingerprint") != self.fingerprint:
            return _refused(where, "was kept for other sources than its name says")
        kept = {}
        for exercise_id, entry in data["solutions"].items():
            why = self._distrust(exercise_id, entry)
            if why is None:
                kept[exercise_id] = _solution(entry)
            else:
                warnings.warn(AnswerKeyWarning(f"{visible(str(where))}: {why}; it is computed afresh"), stacklevel=2)
        return kept

    def _distrust(self, exercise_id: str, entry: object) -> str | None:
        """Why a kept entry may not be used (as words naming its exercise), or None when it can."""
        exercise = self.course.exercises.get(exercise_id)
        named = f"the kept answer to {visible(exercise_id)}"
        if exercise is None:
            return f"{named} names no exercise"
        if not isinstance(entry, dict) or entry.get("digest") != self._digest(
            {k: v for k, v in entry.items() if k != "digest"}
        ):
            return f"{named} is not as it was kept (its digest does not match)"
        try:
            solved = _solution(entry)
        except (TypeError, ValueError, KeyError):
            return f"{named} is not an answer key entry"
        values = [solved.answer, *(value for value, _ in solved.slips)]
        if not all(exercise.kind.accepts(value) for value in values):
            return f"{named} is not what a {type(exercise.kind).__name__.lower()} exercise takes"
        return None

    def _save(self, solutions: dict[str, Solution]) -> None:
        """Write the key whole, and drop keys of other versions; a failure keeps nothing."""
        where = self.path
        if where is None:
            return
        data = {
            "course": self.course.name,
            "version": self.course.version,
            "fingerprint": self.fingerprint,
            "solutions": {exercise_id: self._entry(solved) for exercise_id, solved in solutions.items()},
        }
        if cache.write_whole(where, lambda file: file.write(json.dumps(data).encode())):
            for old in where.parent.glob("answer-key-*.json"):
                if old != where:
                    old.unlink(missing_ok=True)

    def _digest(self, entry: dict[str, object]) -> str:
        """A digest of an entry as JSON writes it, tied to this key's fingerprint: an edit by hand does not match it."""
        text = json.dumps(entry, sort_keys=True, default=_plain)
        return hashlib.sha256(f"{self.fingerprint}\0{text}".encode()).hexdigest()

    def _entry(self, solved: Solution) -> dict[str, object]:
        entry = {
            "answer": solved.answer,
            "explanation": solved.explanation,
            "slips": [[value, note] for value, note in solved.slips],
            "detail": solved.detail,
            "picture": solved.picture,
        }
        plain = json.loads(json.dumps(entry, default=_plain))  # as it reads back: tuples as lists, numbers plain
        return plain | {"digest": self._digest(plain)}


def _refused(where: Path, why: str) -> dict[str, Solution]:
    warnings.warn(AnswerKeyWarning(f"{visible(str(where))} {why}; every answer is computed afresh"), stacklevel=3)
    return {}


def _plain(value: object) -> object:
    """NumPy numbers as Python's, for JSON."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"a {type(value).__name__} is not kept in the answer key")


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
    slips = tuple((_tuples(value), note) for value, note in entry["slips"])
    if not all(isinstance(note, str) for _, note in slips):
        raise TypeError("not an answer key entry")
    picture = entry.get("picture")
    if picture is not None and not isinstance(picture, dict):
        raise TypeError("not an answer key entry")
    return Solution(_tuples(entry["answer"]), entry["explanation"], slips, entry["detail"], picture)
