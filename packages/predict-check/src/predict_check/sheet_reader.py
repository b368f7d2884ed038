"""An answers file read: the TOML a student fills in (``sheet_writer`` writes it), read as data and graded.

The file is parsed as TOML (``toml_reader``: bounded in size and nesting), never
executed and never written to. A file that is not quite TOML (a quote never closed,
a letter without quotes) is read statement by statement: an answer typed without its
quotes is the same text in quotes, every line that can be read is graded, and every
other is listed with what to change. Problems are reported with
the exercise id or the line they concern: a file that cannot be read at all, a line
that cannot, a key that names no exercise, an answer of the wrong kind, a blank one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .errors import AnswersFileError, UnknownExercise
from .exercises import Course
from .toml_reader import BadLine, read_answers
from .untrusted import visible
from .verdicts import Outcome, Verdict, is_unanswered, judge

REPORTED_UNKNOWN = 10  # unknown keys named one by one; the rest are counted
FIRST_TRIES = "first-tries"  # the table of first predictions the page's download adds; the grader reports them
VARIANTS = "variants"  # the page's "Try another" answers, a table per exercise; reported, never scored
SHOWN_FIRST = "shown-before-first-try"  # the exercises whose answer the page showed before a first prediction
TYPED_AT = "typed-at"  # when the boxes' each last answer was typed: how saves from two pages merge; ignored here
NAME, ID = "name", "id"  # who the file is from, where the page's download (or the student) says
IDENTITY_LONGEST = 200  # characters of a name or an id
TABLES = (FIRST_TRIES, SHOWN_FIRST)
RESERVED = (*TABLES, VARIANTS, TYPED_AT, NAME, ID)
SELF_RECORDED = (
    "first tries are the student's own record, kept by their browser and not checked by the grader; "
    "they are not part of the score"
)


@dataclass(frozen=True)
class FirstTry:
    """An exercise's first prediction as the file records it, and what the record says about it.

    ``shown``: the answer was shown ("Show the answer") before the first prediction,
    so the first prediction, if any, is no prediction. ``unanswered``: the file gives
    no final answer to the exercise (a first try by itself is a record to look at).
    """

    verdict: Verdict | None
    shown: bool = False
    unanswered: bool = False

    @property
    def word(self) -> str:
        """``right``, ``not right`` or ``shown``: as the gradebook and the summary say it."""
        if self.shown or self.verdict is None:
            return "shown"
        return "right" if self.verdict.correct else "not right"

    @property
    def right(self) -> bool:
        return self.word == "right"


@dataclass(frozen=True)
class AnswerSheet:
    """One student's answers (and first tries, where the file keeps them), or the reason it could not be read.

    A file that is not quite TOML is read statement by statement (``toml_reader.contents``):
    ``bad`` holds the lines that could not be read, each with what to change; the
    exercises they give are graded as unreadable and the rest as usual.
    """

    course: Course
    path: Path
    answers: Mapping[str, object] = field(default_factory=dict)
    lines: Mapping[str, int] = field(default_factory=dict)
    unreadable: str | None = None
    bad: tuple[BadLine, ...] = ()
    notes: tuple[str, ...] = ()
    written: Mapping[tuple[str | None, str], str] = field(default_factory=dict)
    unquoted: tuple[int, ...] = ()  # lines whose answer was typed without its quotes, read as the quoted text

    @classmethod
    def read(cls, course: Course, path: str | Path) -> AnswerSheet:
        """Read a sheet of the course's answers; a file that cannot be read becomes a sheet that says why."""
        path = Path(path)
        try:
            got = read_answers(path, course.exercises)
        except AnswersFileError as error:
            return cls(course, path, unreadable=str(error))
        return cls(course, path, got.data, got.lines, None, got.bad, got.notes, got.written, got.unquoted)

    @property
    def name(self) -> str:
        """The file's path as every output shows it: visible, on one line."""
        return visible(str(self.path))

    def _table(self, name: str) -> Mapping[str, object]:
        table = self.answers.get(name, {})
        return table if isinstance(table, dict) else {}

    @property
    def first_tries(self) -> Mapping[str, object]:
        return self._table(FIRST_TRIES)

    @property
    def shown_first(self) -> set[str]:
        """The exercises whose answer the page showed before their first prediction (a true value each)."""
        return {key for key, value in self._table(SHOWN_FIRST).items() if value is True}

    def identity(self, key: str) -> str | None:
        """The file's own ``name`` or ``id``: text (a whole number for an id) of at most ``IDENTITY_LONGEST``."""
        value = self.answers.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and key == ID and value.bit_length() < 200:
            value = str(value)
        if isinstance(value, str) and value.strip() and len(value) <= IDENTITY_LONGEST:
            return value.strip()
        return None

    def typed(self, exercise_id: str, table: str | None = None) -> str | None:
        """The answer as the student wrote it (``1.00``, not 1.0), or None where the file gives none."""
        return self.written.get((table, exercise_id))

    def variant_tries(self) -> list[tuple[str, int, Verdict]]:
        """Each variant answered in the file, judged as the page judged it: practice, never part of the score."""
        tables = self.answers.get(VARIANTS, {})
        tries = []
        for exercise_id, answers in tables.items() if isinstance(tables, dict) else ():
            exercise = self.course.exercises.get(exercise_id)
            if exercise is None or not isinstance(answers, dict):
                continue
            for key, answer in answers.items():
                number = _variant_of_key(key, len(exercise.variants))
                if number is not None:
                    tries.append((exercise_id, number, judge(exercise.variant(number - 1), answer)))
        return tries

    def answered(self) -> list[str]:
        """The exercises the file gives an answer to (any answer, blank ones aside)."""
        return [
            exercise_id for exercise_id in self.course.exercises if not is_unanswered(self.answers.get(exercise_id))
        ]

    def where(self, key: str) -> str:
        return f"{key} (line {self.lines[key]})" if key in self.lines else key

    def bad_line(self, exercise_id: str) -> BadLine | None:
        """The line giving this exercise's answer that could not be read, if there is one."""
        return next((bad for bad in self.bad if bad.key == exercise_id and bad.table is None), None)

    def unknown_ids(self) -> list[str]:
        """A message for each key that names no exercise, with the nearest ids (the first few; the rest counted)."""
        unknown = [key for key in self.answers if key not in self.course.exercises and key not in RESERVED]
        for table in TABLES:
            unknown += [f"{table}.{key}" for key in self._table(table) if key not in self.course.exercises]
        messages = []
        for table in TABLES:
            if table in self.answers and not isinstance(self.answers[table], dict):
                messages.append(f"{self.name}: {table} is not a table of answers; it is left out")
        for key in (NAME, ID):
            if key in self.answers and self.identity(key) is None:
                messages.append(
                    f"{self.name}: {key} is not text of at most {IDENTITY_LONGEST} characters; "
                    f'expected a line like  {key} = "..."'
                )
        for key in unknown[:REPORTED_UNKNOWN]:
            try:
                self.course.get(key.split(".", 1)[1] if key.startswith(TABLES) else key)
            except UnknownExercise as error:
                line = f"line {self.lines[key]}: " if key in self.lines else ""
                messages.append(f"{self.name}, {line}{error}")
        if len(unknown) > REPORTED_UNKNOWN:
            rest = len(unknown) - REPORTED_UNKNOWN
            messages.append(f"{self.name}: and {rest} more key{'s' * (rest != 1)} that name no exercise")
        return messages

    def bad_lines(self) -> list[str]:
        """A message for each line that could not be read: where, what to change, and the line as it could be."""
        said = [f"{self.name}, {bad.lines}: {bad.fix}" for bad in self.bad]
        return [
            words + (f"; write it as  {visible(bad.suggestion)}" if bad.suggestion else "")
            for words, bad in zip(said, self.bad)
        ]

    def problems(self) -> list[str]:
        """What keeps the file from a full grade besides its answers: why it is unreadable, its bad lines and keys."""
        return [self.unreadable] if self.unreadable is not None else self.bad_lines() + self.unknown_ids()

    @property
    def needs_review(self) -> bool:
        """Whether a person should look at the file: something in it was not read or names no exercise."""
        return bool(self.problems())

    def first_try(self, exercise_id: str) -> FirstTry | None:
        """The first prediction as the file records it (judged), where it records one or a shown answer."""
        if self.unreadable is not None:
            return None
        shown = exercise_id in self.shown_first
        recorded = exercise_id in self.first_tries
        if not (recorded or shown):
            return None
        verdict = judge(self.course.get(exercise_id), self.first_tries[exercise_id]) if recorded else None
        return FirstTry(verdict, shown, is_unanswered(self.answers.get(exercise_id)))

    def grade(self, exercise_id: str) -> Verdict:
        """The verdict on one exercise; a file that could not be read grades nothing, nor does a line that could not."""
        exercise = self.course.get(exercise_id)
        if self.unreadable is not None:
            said = f"not graded, because {self.unreadable}"
            return Verdict(exercise.id, Outcome.UNREADABLE, said, title=exercise.title)
        bad = self.bad_line(exercise_id)
        if bad is not None and exercise_id not in self.answers:
            said = f"{bad.lines} could not be read: {bad.fix}."
            return Verdict(exercise.id, Outcome.UNREADABLE, said, title=exercise.title)
        return judge(exercise, self.as_read(exercise_id))

    def as_read(self, exercise_id: str) -> object:
        """The answer as it is judged: the file's value, or, for a list TOML reads otherwise than it was meant
        (``[1,27, 0,57]``, four whole numbers, written with decimal commas), the text as written, as in quotes."""
        value, written = self.answers.get(exercise_id), self.typed(exercise_id)
        if isinstance(value, list) and written is not None and re.search(r"[0-9],[0-9]", written):
            return written
        return value

    def explain(self, verdict: Verdict) -> str:
        """One paragraph for the grader's report: the id, the line, and the verdict's words."""
        where = self.where(verdict.exercise_id)
        if self.unreadable is not None:
            return f"{verdict.exercise_id}: {verdict.message}"
        if verdict.outcome is Outcome.NOT_ANSWERED:
            prompt = self.course.get(verdict.exercise_id).prompt
            return f"{where}: {Outcome.NOT_ANSWERED.value}. {prompt} Write your answer after `{verdict.exercise_id} =`."
        bad = self.bad_line(verdict.exercise_id)
        if bad is not None and bad.suggestion and verdict.outcome is Outcome.UNREADABLE:
            return f"{where}: {verdict.unfolded} Write it as  {visible(bad.suggestion)}"
        return f"{where}: {verdict.unfolded}"


def _variant_of_key(key: str, variants: int) -> int | None:
    """A ``[variants.<id>]`` key as the variant it numbers (from 1), read as ASCII digits only; None if it is none."""
    if re.fullmatch(r"[0-9]{1,6}", key) and 1 <= int(key) <= variants:
        return int(key)
    return None
