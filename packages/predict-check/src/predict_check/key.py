"""The answer key: each exercise's reference answer, computed once per version of its sources and cached.

A solver runs the course's code (one may train a network), so grading one student's
file would pay for every solver on every run. The key is cached instead, as JSON data in
the course's cache folder (``cache.folder``), under a name made from everything the
answers depend on: the course's version, every file of the solvers' packages (the
engine's too), and the Python, NumPy and platform it ran on. Any change to one of them
is a new key, computed afresh.

A cached key is never trusted over its sources: it is read only where this user sealed
it (``cache.Folder.read``), and each answer only where it is of the kind its exercise
takes. Anything else is said (an ``AnswerKeyWarning``) and computed again. A cache
that cannot be read or written is simply not used. Each answer is computed only when
an exercise is first judged, so a blank file still runs no solver.

Without the course's variable the folder is ``$XDG_CACHE_HOME/<course>``, else
``~/.cache/<course>``; ``off`` caches nothing.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from . import cache
from .errors import AnswerKeyWarning
from .exercises import Course, Exercise, Solution
from .untrusted import visible

STEM, SUFFIX = "answer-key", ".json"  # a key's file: answer-key-<owner>-<fingerprint>.json


def solution(exercise: Exercise) -> Solution:
    """The exercise's reference answer: from this process, from its course's cached key, or computed now (and cached).

    Only the registered questions are cached: a variant (the same id, other inputs) is solved afresh.
    """
    if not exercise.registered:
        return exercise.solve()
    return key_of(exercise.course).solution(exercise)


@functools.cache
def key_of(course: Course) -> AnswerKey:
    return AnswerKey(course)


@contextlib.contextmanager
def key_of_record(course: Course) -> Iterator[AnswerKey]:
    """The course's key while a grade of record is made: a grade of record trusts no file.

    Inside, each answer is computed when it is first needed, from the course's code, and compared
    with the kept key's (which anyone who can write the cache folder and read this user's secret
    could have written); the kept key is then written anew. ``said`` gives the words for the
    summary. Afterwards the process reads the kept key again, which now holds what was computed.
    """
    answers = key_of(course)
    answers.of_record, answers.differ = True, []
    answers.solved = {done: solved for done, solved in answers.solved.items() if done in answers.computed}
    try:
        yield answers
    finally:
        answers.of_record = False


class AnswerKey:
    """One course's cached answers: read once per version of its file, written whole whenever an answer is added."""

    def __init__(self, course: Course):
        self.course = course
        self.solved: dict[str, Solution] = {}
        self.computed: set[str] = set()  # the answers this process computed, not read from the kept key
        self.of_record = False  # every answer computed here, the kept key only compared (``key_of_record``)
        self.differ: list[str] = []  # the exercises whose kept answer is not the one computed here
        self._read: tuple[tuple[Path, tuple[int, ...] | None], dict[str, Solution]] | None = None

    def said(self) -> str:
        """How the answers were got, in words for a run's summary."""
        if not self.of_record:
            return "answer key: read from the key this user keeps, where sealed by this user's secret; else computed"
        words = f"answer key: every answer computed in this run by {self.course.name} {self.course.version}"
        if self.differ:
            named = ", ".join(map(visible, self.differ))
            return f"{words}; the kept key said otherwise for {named}, and was not used"
        return f"{words}; the kept key was not trusted, only compared"

    @functools.cached_property
    def fingerprint(self) -> str:
        """A short digest of everything the answers depend on: versions, and every file of the solvers' packages."""
        solvers = {exercise.solver.__module__ for exercise in self.course}
        return cache.fingerprint(solvers, self.course.name, self.course.version)

    @property
    def folder(self) -> cache.Folder | None:
        """Where the key is cached, or None when caching is off."""
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        return cache.folder(self.course.cache_variable, default=Path(base) / self.course.name)

    @property
    def path(self) -> Path | None:
        """The key's file, or None when caching is off."""
        where = self.folder
        return None if where is None else where.file(STEM, self.fingerprint, SUFFIX)

    def solution(self, exercise: Exercise) -> Solution:
        if exercise.id not in self.solved:
            cached = self._load()
            if exercise.id in cached and not self.of_record:
                self.solved[exercise.id] = cached[exercise.id]
            else:
                self._computed(exercise, cached)
        return self.solved[exercise.id]

    def _computed(self, exercise: Exercise, cached: dict[str, Solution]) -> None:
        """Solve ``exercise`` here, note where the kept key said otherwise, and keep it where it was not kept so."""
        solved = self.solved[exercise.id] = exercise.solve()
        self.computed.add(exercise.id)
        kept = cached.get(exercise.id)
        if kept is not None and _kept_as(kept) == _kept_as(solved):
            return  # the kept key already says this: nothing to write
        if kept is not None and exercise.id not in self.differ:
            self.differ.append(exercise.id)
        self._save(cached | {exercise.id: solved})

    def _load(self) -> dict[str, Solution]:
        """The cached solutions that can be trusted, read once per version of the file: none this user did not seal."""
        where = self.folder
        if where is None:
            return {}
        path = where.file(STEM, self.fingerprint, SUFFIX)
        if self._read is not None and self._read[0] == (path, _stamp(path)):
            return self._read[1]
        cached = self._trusted(where, path)
        self._read = ((path, _stamp(path)), cached)
        return cached

    def _trusted(self, where: cache.Folder, path: Path) -> dict[str, Solution]:
        payload = where.read(path, AnswerKeyWarning)
        if payload is None:
            return {}
        try:
            data = json.loads(payload)
        except ValueError:
            return _refused(path, "is not JSON")
        if not isinstance(data, dict) or not isinstance(data.get("solutions"), dict):
            return _refused(path, "is not an answer key")
        cached = {}
        for exercise_id, entry in data["solutions"].items():
            why = self._distrust(exercise_id, entry)
            if why is None:
                cached[exercise_id] = _solution(entry)
            else:
                warnings.warn(AnswerKeyWarning(f"{visible(str(path))}: {why}; it is computed afresh"), stacklevel=2)
        return cached

    def _distrust(self, exercise_id: str, entry: object) -> str | None:
        """Why a cached entry may not be used (as words naming its exercise), or None when it can."""
        exercise = self.course.exercises.get(exercise_id)
        named = f"the cached answer to {visible(exercise_id)}"
        if exercise is None:
            return f"{named} names no exercise"
        try:
            solved = _solution(entry)
        except (TypeError, ValueError, KeyError):
            return f"{named} is not an answer key entry"
        values = [solved.answer, *(value for value, _ in solved.slips)]
        if not all(exercise.kind.accepts(value) for value in values):
            return f"{named} is not what a {type(exercise.kind).__name__.lower()} exercise takes"
        return None

    def _save(self, solutions: dict[str, Solution]) -> None:
        """Write the key whole, and drop this user's keys of other versions; a failure caches nothing."""
        where = self.folder
        if where is None:
            return
        path = where.file(STEM, self.fingerprint, SUFFIX)
        data = {
            "course": self.course.name,
            "version": self.course.version,
            "solutions": {exercise_id: _entry(solved) for exercise_id, solved in solutions.items()},
        }
        if where.write(path, json.dumps(data, default=_plain).encode()):
            self._read = ((path, _stamp(path)), solutions)
            for old in where.files(STEM, SUFFIX):
                if old != path:
                    old.unlink(missing_ok=True)


def _stamp(path: Path) -> tuple[int, ...] | None:
    """What changes whenever the file is written: its inode, size and time (None where there is none)."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


def _refused(where: Path, why: str) -> dict[str, Solution]:
    warnings.warn(AnswerKeyWarning(f"{visible(str(where))} {why}; every answer is computed afresh"), stacklevel=3)
    return {}


def _entry(solved: Solution) -> dict[str, object]:
    return {
        "answer": solved.answer,
        "explanation": solved.explanation,
        "slips": [[value, note] for value, note in solved.slips],
        "detail": solved.detail,
        "picture": solved.picture,
    }


def _kept_as(solved: Solution) -> str:
    """A solution as the key keeps it, in JSON: two that keep alike are alike (nan too)."""
    return json.dumps(_entry(solved), default=_plain, sort_keys=True)


def _plain(value: object) -> object:
    """NumPy numbers as Python's, for JSON."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"a {type(value).__name__} is not cached in the answer key")


def _tuples(value: object) -> object:
    """JSON's lists back as the tuples the solvers return; numbers and text as they are."""
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return value
    raise TypeError("not a value of the answer key")


def _solution(entry: object) -> Solution:
    if not isinstance(entry, dict):
        raise TypeError("not an answer key entry")
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
