"""The answers files the engine writes: the blank one a student fills in, the reference answers, and the one the
prediction boxes save (the page's download, and the widget's save in a kernel). ``sheet_reader`` reads them all.

The blank file and the reference answers say how the course grades them (``answers_file``). The boxes' two saves
write the same bytes for the same predictions (``typed_answers_file``; the page's
``answersFile`` in static/prediction-store.js builds its file from the same comments and
table names, sent to it as data). Each last answer carries the moment it was typed
(``[typed-at]``, which the grader ignores). In a kernel, "Save my answers" writes the file
next to the notebook and keeps what saves from other pages put there (``save_typed``): under
the folder's lock, so two kernels saving at once take turns, and answer by answer the newer
one wins, whichever kernel saves. A file written by hand is never overwritten.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shlex
import stat
import sys
import textwrap
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import cache
from .errors import AnswersFileError
from .exercises import Course, Exercise
from .key import solution
from .kinds import NO_FIGURE, Choice, Outcome, Place
from .sheet_reader import FIRST_TRIES, ID, NAME, SHOWN_FIRST, TYPED_AT, VARIANTS, AnswerSheet
from .untrusted import quoted

FILE_NAME = "answers.toml"  # the download's name when no student name is given, the widget's file, the blank file's
SOLUTIONS_NAME = "solutions.toml"  # the reference answers' file, as their header names it
BLANK = '""'
# The comments of the file the boxes save; {title} is the course's, {file} the file's own name. Where it
# was saved is the reader's choice, so the way to grade it names its folder /path/to.
COMMENTS = {
    "header": "# My predictions, typed in the prediction boxes of {title}.",
    "grade": "# Grade them with:  {grade}",
    "where": "# where /path/to is the folder this file is in.",
    "first": "# Each exercise's first prediction, as kept where you typed it: your own record, not part of the score.",
    "shown": "# The exercises whose answer you asked to see before your first prediction.",
    "typed": "# When each answer above was typed, so that saves from two pages keep the newer: not part of the score.",
    "variants": '# Answers to "Try another": practice, never part of the score.',
}
# How the blank file and the reference answers say to grade them: the course's command, on a line of its own.
GRADE = "Grade this file with:"
WHERE = COMMENTS["where"].removeprefix("# ")
MOMENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")  # as the page's Date.toISOString writes it, UTC


@dataclass(frozen=True)
class Predictions:
    """What the boxes keep of one learner: first and last predictions as typed, answers shown, practice.

    ``shown``: exercises whose answer was shown before any prediction. ``variants`` maps
    an exercise id to its "Try another" answers, by variant number (from 1).
    """

    first: Mapping[str, str] = field(default_factory=dict)
    last: Mapping[str, str] = field(default_factory=dict)
    shown: frozenset[str] = frozenset()
    variants: Mapping[str, Mapping[int, str]] = field(default_factory=dict)
    name: str = ""
    id: str = ""
    typed_at: Mapping[str, str] = field(default_factory=dict)

    def answered(self, course: Course) -> list[str]:
        """The course's exercises with a final prediction, in the grader's order."""
        return [exercise_id for exercise_id in course.exercises if self.last.get(exercise_id)]

    def kept_over(self, earlier: Predictions) -> Predictions:
        """These predictions saved over ``earlier`` ones: a first try stays the first, the newer answer wins.

        An answer with no moment (a file saved before moments were kept) is older than any with one, and so is
        one whose moment is later than now (a clock set wrong once): that moment is unknown, so it never keeps
        an answer over one typed since.
        """
        now = _now()
        newer = [
            key
            for key, text in self.last.items()
            if text and _known(self.typed_at.get(key, ""), now) >= _known(earlier.typed_at.get(key, ""), now)
        ]
        return Predictions(
            first={**self.first, **earlier.first},
            last={**earlier.last, **{key: self.last[key] for key in newer}},
            shown=(self.shown - set(earlier.first)) | earlier.shown,
            variants={**earlier.variants, **self.variants},
            name=self.name or earlier.name,
            id=self.id or earlier.id,
            typed_at={**earlier.typed_at, **{key: self.typed_at[key] for key in newer if key in self.typed_at}},
        )


_last_moment = 0  # milliseconds: this process's moments never repeat, so one kernel's answers keep their order


def moment() -> str:
    """Now, as a ``MOMENT``: what the page's ``new Date().toISOString()`` says at the same instant."""
    global _last_moment
    _last_moment = milliseconds = max(time.time_ns() // 1_000_000, _last_moment + 1)
    return _written(milliseconds)


def _now() -> str:
    """Now, as a ``MOMENT``, and never before a moment this process has given (which may run a little ahead)."""
    return _written(max(time.time_ns() // 1_000_000, _last_moment))


def _written(milliseconds: int) -> str:
    seconds, thousandths = divmod(milliseconds, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{thousandths:03d}Z"


def _known(at: str, now: str) -> str:
    """A moment as it counts: one later than ``now`` is unknown (""), as a file saved without moments is."""
    return at if at <= now else ""


def well_formed(text: str) -> str:
    """Predictions text with any lone surrogate (which no file can hold) made U+FFFD, as the page's input makes it."""
    return "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in text)


def toml_string(text: str) -> str:
    """Text as a TOML basic string: escaped as JSON escapes it (a JSON string is a TOML string), DEL too."""
    return json.dumps(well_formed(text), ensure_ascii=False).replace("\x7f", "\\u007f")


def comments(course: Course) -> dict[str, str]:
    """The course's comments for the file the boxes save; ``{file}`` is left for the file's own name."""
    return {
        **COMMENTS,
        "header": COMMENTS["header"].format(title=course.title),
        "grade": COMMENTS["grade"].format(grade=course.grade_file),
    }


def typed_answers_file(course: Course, typed: Predictions, file_name: str = FILE_NAME) -> str:
    """The file the boxes save: who (if given), every last prediction in the grader's order, first tries, practice."""
    said = comments(course)
    lines = [said["header"], said["grade"].format(file=file_name), said["where"]]
    lines += [f"{key} = {toml_string(value)}" for key, value in ((NAME, typed.name), (ID, typed.id)) if value]
    lines += [f"{exercise_id} = {toml_string(typed.last.get(exercise_id, ''))}" for exercise_id in course.exercises]
    lines += ["", said["first"], f"[{FIRST_TRIES}]"]
    firsts = [exercise_id for exercise_id in course.exercises if typed.first.get(exercise_id)]
    lines += [f"{exercise_id} = {toml_string(typed.first[exercise_id])}" for exercise_id in firsts]
    lines += ["", said["shown"], f"[{SHOWN_FIRST}]"]
    lines += [f"{exercise_id} = true" for exercise_id in course.exercises if exercise_id in typed.shown]
    lines += ["", said["typed"], f"[{TYPED_AT}]"]
    timed = [exercise_id for exercise_id in course.exercises if typed.typed_at.get(exercise_id)]
    lines += [f"{exercise_id} = {toml_string(typed.typed_at[exercise_id])}" for exercise_id in timed]
    practised = [exercise_id for exercise_id in course.exercises if typed.variants.get(exercise_id)]
    if practised:
        lines += ["", said["variants"]]
    for exercise_id in practised:
        lines.append(f"[{VARIANTS}.{exercise_id}]")
        answers = typed.variants[exercise_id]
        lines += [f"{number} = {toml_string(answers[number])}" for number in sorted(answers)]
    return "\n".join(lines) + "\n"


def read_typed(course: Course, path: str | Path) -> Predictions:
    """The predictions a file the boxes saved holds; ``AnswersFileError`` for any other file.

    A file that holds anything the boxes do not write (an answer that is not text, a key
    that names no exercise, a table of its own, a line that is not TOML) was written by
    hand: it is not the boxes' to change.
    """
    sheet = AnswerSheet.read(course, path)
    ids = course.exercises.__contains__
    if sheet.unreadable is not None:
        raise AnswersFileError(sheet.unreadable)
    if sheet.bad or sheet.unquoted:  # an answer without its quotes was typed by hand
        line = sheet.bad[0].line if sheet.bad else sheet.unquoted[0]
        raise AnswersFileError(f"{sheet.name}: line {line} is not a line the prediction boxes write")
    first, last, shown, variants, who, typed_at = {}, {}, set(), {}, {}, {}
    for key, value in sheet.answers.items():
        if key in course.exercises and isinstance(value, str):
            last[key] = value
        elif key in (NAME, ID) and isinstance(value, str):
            who[key] = value
        elif key == FIRST_TRIES and _texts(value, ids):
            first.update(value)
        elif key == SHOWN_FIRST and isinstance(value, dict) and all(v is True for v in value.values()):
            shown = {exercise_id for exercise_id in value if exercise_id in course.exercises}
        elif key == VARIANTS and _practice(course, value):
            variants = {i: {int(n): text for n, text in tried.items()} for i, tried in value.items()}
        elif key == TYPED_AT and _texts(value, ids) and all(map(MOMENT.fullmatch, value.values())):
            typed_at.update(value)
        else:
            line = f" (line {sheet.lines[key]})" if key in sheet.lines else ""
            raise AnswersFileError(f"{sheet.name}: {quoted(key)}{line} is not an answer the prediction boxes save")
    return Predictions(first, last, frozenset(shown), variants, who.get(NAME, ""), who.get(ID, ""), typed_at)


def _texts(table: object, key_ok) -> bool:
    return isinstance(table, dict) and all(key_ok(key) and isinstance(text, str) for key, text in table.items())


def _practice(course: Course, tables: object) -> bool:
    """Whether ``tables`` are "Try another" answers as the page saves them: text, by variant number, per exercise."""
    if not isinstance(tables, dict):
        return False
    for exercise_id, tried in tables.items():
        exercise = course.exercises.get(exercise_id)
        count = len(exercise.variants) if exercise else 0
        numbers = {str(number) for number in range(1, count + 1)}
        if not _texts(tried, numbers.__contains__):
            return False
    return True


def save_typed(course: Course, path: str | Path, typed: Predictions) -> Predictions:
    """Write ``typed`` to ``path``, kept over the predictions a file the boxes saved there holds; what was written.

    The file is read, merged and replaced whole under its folder's lock: a save from
    another kernel waits its turn, and loses nothing. The file keeps its mode (a new one
    gets the umask's). A file there that the boxes did not write is left as it is
    (``AnswersFileError`` says why); an ``OSError`` names ``path``, never a temporary file.
    """
    path = Path(path)
    try:
        with cache.one_at_a_time(path.parent):
            kept = typed.kept_over(read_typed(course, path)) if os.path.lexists(path) else typed
            _replace(path, typed_answers_file(course, kept, path.name))
    except OSError as error:
        if error.errno is None:
            raise
        raise OSError(error.errno, error.strerror, str(path)) from None
    return kept


def clear_typed(course: Course, path: str | Path, typed: Predictions) -> Predictions:
    """Forget every answer in the file the boxes saved at ``path``, as the page's "Clear my answers" forgets those
    in its browser: the first tries (``typed``'s and the file's, the file's first) and who it is from stay, answers,
    their moments and practice go. A file the boxes did not write is left as it is (``AnswersFileError``)."""
    path = Path(path)
    with cache.one_at_a_time(path.parent):
        earlier = read_typed(course, path) if os.path.lexists(path) else Predictions()
        cleared = Predictions(
            first={**typed.first, **earlier.first},
            shown=typed.shown | earlier.shown,
            name=earlier.name or typed.name,
            id=earlier.id or typed.id,
        )
        _replace(path, typed_answers_file(course, cleared, path.name))
    return cleared


def _replace(path: Path, text: str) -> None:
    """``path`` replaced by ``text`` in one step: written beside it and to the disk, then renamed over it."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask's mode, as any new file
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temporary, stat.S_IMODE(os.stat(path).st_mode))  # the file it replaces keeps its mode
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def grade_command(course: Course, path: Path) -> str | None:
    """The command that grades the file at ``path`` (absolute) from any folder: this Python's engine grader, quoted.

    None where no installed distribution registers the course under its name (the grader would not find it).
    """
    if not course.registered:
        return None
    return shlex.join([sys.executable, "-P", "-m", "predict_check", "grade", "--course", course.name, str(path)])


def answers_file(course: Course, solutions: bool = False) -> str:
    """The course's answers file: blank for students, or filled with the computed reference answers.

    Its header says how the course grades it (``Course.grade_file``), the command whole on a line of its own.
    """
    command = course.grade_file.format(file=SOLUTIONS_NAME if solutions else FILE_NAME)
    grade = [_comment(GRADE), f"#     {command}", _comment(WHERE)]
    if solutions:
        header = [_comment(f"Reference answers to the exercises of {course.title}, computed by {course.name}."), *grade]
    else:
        opening = [
            f"Predict, then check: your answers to the exercises of {course.title}.",
            "",
            'Replace each "" with your prediction.',
        ]
        rules = [
            'Examples of each kind: a number 0.5, a vector [0.5, -1.25], a shape [4, 7], a choice "B".',
            'Typed inside the quotes, an answer reads the same: "0.5" is the number 0.5.',
            f'An answer left as "" is graded as {Outcome.NOT_ANSWERED.value}. The grader reads this file as data',
            "(TOML): it never runs it and never changes it.",
        ]
        header = [*map(_comment, opening), *grade, *map(_comment, rules)]
    blocks = ["\n".join(header)]
    for number, exercise in enumerate(course, start=1):
        blocks.append(_entry(number, exercise, solutions))
    return "\n\n".join(blocks) + "\n"


def _comment(text: str, indent: str = "") -> str:
    if not text:
        return "#"
    return "\n".join(textwrap.wrap(text, 98, initial_indent=f"# {indent}", subsequent_indent=f"# {indent}   "))


def _entry(number: int, exercise: Exercise, solutions: bool) -> str:
    """One exercise as the file asks it: what to type, the question, the options or, for a picture box, that the
    number is typed here."""
    kind = exercise.kind
    what = kind.typed() if isinstance(kind, Place) else kind.describe()
    lines = [_comment(f"{number}. {exercise.id}: {what}"), _comment(exercise.prompt)]
    if isinstance(kind, Choice):
        lines += [_comment(option, "  ") for option in kind.listed()]
    if isinstance(kind, Place):
        lines.append(_comment(NO_FIGURE))
    value = kind.toml(solution(exercise).answer) if solutions else BLANK
    lines.append(f"{exercise.id} = {value}")
    return "\n".join(lines)
