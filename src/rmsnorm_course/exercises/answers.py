"""Answer files: the TOML a student fills in, read as data and graded one exercise at a time.

The file is parsed as TOML (``toml_reader``: bounded in size and nesting), never
executed and never written to. Problems are reported with the exercise id or the
line they concern: a file that cannot be read or is not valid TOML, a key that
names no exercise, an answer of the wrong kind, a blank answer.

The prediction boxes save the answers typed in them as a file of the same form
(``typed_answers_file``): the page's "Download my answers" in the browser, and the
widget's "Save my answers" in a kernel (``save_typed``), which writes it next to the
notebook and keeps what an earlier save from another page put there.
"""

from __future__ import annotations

import json
import os
import tempfile
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import registry
from .errors import AnswersFileError, UnknownExercise
from .feedback import Outcome, Verdict, judge
from .kinds import Choice
from .registry import EXERCISES, Exercise
from .toml_reader import key_lines, parse, read_text
from .untrusted import quoted, visible

BLANK = '""'
REPORTED_UNKNOWN = 10  # unknown keys named one by one; the rest are counted
FIRST_TRIES = "first-tries"  # the table of first predictions the page's download adds; the grader reports them
VARIANTS = "variants"  # the page's "Try another" answers, a table per exercise; reported, never scored
# The comments of the file the boxes save, the page's download and the widget's save alike.
TYPED_COMMENTS = {
    "header": [
        "# My predictions, typed in the RMSNorm chapter's prediction boxes.",
        "# Grade them with:  pytest exercises --answers answers.toml",
    ],
    "first": "# Each exercise's first prediction, before any second try.",
    "variants": '# Answers to "Try another": practice, never part of the score.',
}


@dataclass(frozen=True)
class AnswerSheet:
    """One student's answers (and first tries, where the file keeps them), or the reason it could not be read."""

    path: Path
    answers: Mapping[str, object] = field(default_factory=dict)
    lines: Mapping[str, int] = field(default_factory=dict)
    unreadable: str | None = None

    @classmethod
    def read(cls, path: str | Path) -> AnswerSheet:
        """Read a sheet; a file that cannot be read becomes a sheet that says why."""
        path = Path(path)
        try:
            text = read_text(path)
            return cls(path, parse(text, path), key_lines(text))
        except AnswersFileError as error:
            return cls(path, unreadable=str(error))

    @property
    def name(self) -> str:
        """The file's path as every output shows it: visible, on one line."""
        return visible(str(self.path))

    @property
    def first_tries(self) -> Mapping[str, object]:
        tries = self.answers.get(FIRST_TRIES, {})
        return tries if isinstance(tries, dict) else {}

    def variant_tries(self) -> list[tuple[str, int, Verdict]]:
        """Each variant answered in the file, judged as the page judged it: practice, never part of the score."""
        tables = self.answers.get(VARIANTS, {})
        tries = []
        for exercise_id, answers in tables.items() if isinstance(tables, dict) else ():
            exercise = EXERCISES.get(exercise_id)
            if exercise is None or not isinstance(answers, dict):
                continue
            for number, answer in answers.items():
                if number.isdigit() and 1 <= int(number) <= len(exercise.variants):
                    tries.append((exercise_id, int(number), judge(exercise.variant(int(number) - 1), answer)))
        return tries

    def where(self, key: str) -> str:
        return f"{key} (line {self.lines[key]})" if key in self.lines else key

    def unknown_ids(self) -> list[str]:
        """A message for each key that names no exercise, with the nearest ids (the first few; the rest counted)."""
        unknown = [key for key in self.answers if key not in EXERCISES and key not in (FIRST_TRIES, VARIANTS)]
        unknown += [f"{FIRST_TRIES}.{key}" for key in self.first_tries if key not in EXERCISES]
        messages = []
        if FIRST_TRIES in self.answers and not isinstance(self.answers[FIRST_TRIES], dict):
            messages.append(f"{self.name}: {FIRST_TRIES} is not a table of answers; its first tries are left out")
        for key in unknown[:REPORTED_UNKNOWN]:
            try:
                registry.get(key.removeprefix(f"{FIRST_TRIES}."))
            except UnknownExercise as error:
                line = f"line {self.lines[key]}: " if key in self.lines else ""
                messages.append(f"{self.name}, {line}{error}")
        if len(unknown) > REPORTED_UNKNOWN:
            rest = len(unknown) - REPORTED_UNKNOWN
            messages.append(f"{self.name}: and {rest} more key{'s' * (rest != 1)} that name no exercise")
        return messages

    def problems(self) -> list[str]:
        """What keeps the file from a full grade besides its answers: why it is unreadable, or its unknown keys."""
        return [self.unreadable] if self.unreadable is not None else self.unknown_ids()

    def first_try(self, exercise_id: str) -> Verdict | None:
        """The verdict on the exercise's first prediction, where the file records one."""
        if self.unreadable is not None or exercise_id not in self.first_tries:
            return None
        return judge(registry.get(exercise_id), self.first_tries[exercise_id])

    def grade(self, exercise_id: str) -> Verdict:
        """The verdict on one exercise; a file that could not be read grades nothing."""
        exercise = registry.get(exercise_id)
        if self.unreadable is not None:
            return Verdict(exercise.id, Outcome.UNREADABLE, f"not graded, because {self.unreadable}")
        return judge(exercise, self.answers.get(exercise.id))

    def explain(self, verdict: Verdict) -> str:
        """One paragraph for the grader's report: the id, the line, and the verdict's words."""
        where = self.where(verdict.exercise_id)
        if self.unreadable is not None:
            return f"{verdict.exercise_id}: {verdict.message}"
        if verdict.outcome is Outcome.NOT_ANSWERED:
            prompt = registry.get(verdict.exercise_id).prompt
            return f"{where}: {Outcome.NOT_ANSWERED.value}. {prompt} Write your answer after `{verdict.exercise_id} =`."
        return f"{where}: {verdict.unfolded}"


def answers_file(solutions: bool = False) -> str:
    """The answers file: blank for students, or filled with the computed reference answers."""
    if solutions:
        header = [
            "Reference answers to the RMSNorm exercises, computed by rmsnorm_course.",
            "Grade this file with:  pytest exercises --answers PATH",
        ]
    else:
        header = [
            "Predict, then check: your answers to the RMSNorm exercises.",
            "",
            'Replace each "" with your prediction, then grade this file:',
            "    pytest exercises                    grades exercises/answers.toml",
            "    pytest exercises --answers PATH     grades another file",
            'Examples of each kind: a number 0.5, a vector [0.5, -1.25], a shape [4, 7], a choice "B".',
            'Typed inside the quotes, an answer reads the same: "0.5" is the number 0.5.',
            f'An answer left as "" is graded as {Outcome.NOT_ANSWERED.value}. The grader reads this file as data',
            "(TOML): it never runs it and never changes it.",
        ]
    blocks = ["\n".join(_comment(line) for line in header)]
    for number, exercise in enumerate(EXERCISES.values(), start=1):
        blocks.append(_entry(number, exercise, solutions))
    return "\n\n".join(blocks) + "\n"


def _comment(text: str, indent: str = "") -> str:
    if not text:
        return "#"
    return "\n".join(textwrap.wrap(text, 98, initial_indent=f"# {indent}", subsequent_indent=f"# {indent}   "))


def _entry(number: int, exercise: Exercise, solutions: bool) -> str:
    kind = exercise.kind
    lines = [_comment(f"{number}. {exercise.id}: {kind.describe()}"), _comment(exercise.prompt)]
    if isinstance(kind, Choice):
        lines += [_comment(option, "  ") for option in kind.listed()]
    value = kind.toml(exercise.solve().answer) if solutions else BLANK
    lines.append(f"{exercise.id} = {value}")
    return "\n".join(lines)


# --- the file the prediction boxes save ----------------------------------------------------------


@dataclass(frozen=True)
class Typed:
    """What the boxes keep of one learner: each exercise's first and last prediction as typed, and practice.

    ``variants`` maps an exercise id to its "Try another" answers, by variant number (from 1).
    """

    first: Mapping[str, str] = field(default_factory=dict)
    last: Mapping[str, str] = field(default_factory=dict)
    variants: Mapping[str, Mapping[int, str]] = field(default_factory=dict)

    def answered(self) -> list[str]:
        """The exercises with a prediction, in the grader's order."""
        return [exercise_id for exercise_id in EXERCISES if exercise_id in self.first]

    def kept_over(self, earlier: Typed) -> Typed:
        """These predictions saved over ``earlier`` ones: a first try stays the first, the latest answer wins."""
        return Typed(
            first={**self.first, **earlier.first},
            last={**earlier.last, **self.last},
            variants={**self.variants, **earlier.variants},
        )


def toml_string(text: str) -> str:
    """Text as a TOML basic string: escaped as JSON escapes it (a JSON string is a TOML string), DEL too.

    A lone surrogate (which no file can hold) becomes U+FFFD, as the page's input does.
    """
    well_formed = "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in text)
    return json.dumps(well_formed, ensure_ascii=False).replace("\x7f", "\\u007f")


def typed_answers_file(typed: Typed) -> str:
    """The answers file the boxes save: every exercise's last prediction in the grader's order, then the first tries.

    The page's ``answersFile`` (static/prediction.js) writes the same bytes for the same predictions.
    """
    lines = list(TYPED_COMMENTS["header"])
    lines += [f"{exercise_id} = {toml_string(typed.last.get(exercise_id, ''))}" for exercise_id in EXERCISES]
    lines += ["", TYPED_COMMENTS["first"], f"[{FIRST_TRIES}]"]
    lines += [f"{exercise_id} = {toml_string(typed.first[exercise_id])}" for exercise_id in typed.answered()]
    practised = [exercise_id for exercise_id in EXERCISES if typed.variants.get(exercise_id)]
    if practised:
        lines += ["", TYPED_COMMENTS["variants"]]
    for exercise_id in practised:
        lines.append(f"[{VARIANTS}.{exercise_id}]")
        answers = typed.variants[exercise_id]
        lines += [f"{number} = {toml_string(answers[number])}" for number in sorted(answers)]
    return "\n".join(lines) + "\n"


def read_typed(path: str | Path) -> Typed:
    """The predictions a file the boxes saved holds; ``AnswersFileError`` for any other file.

    A file that holds anything the boxes do not write (an answer that is not text, a key
    that names no exercise, a table of its own) was written by hand: it is not the boxes'
    to change.
    """
    sheet = AnswerSheet.read(path)
    if sheet.unreadable is not None:
        raise AnswersFileError(sheet.unreadable)
    first, last, variants = {}, {}, {}
    for key, value in sheet.answers.items():
        if key in EXERCISES and isinstance(value, str):
            last[key] = value
        elif key == FIRST_TRIES and _texts(value, EXERCISES.__contains__):
            first.update(value)
        elif key == VARIANTS and _practice(value):
            variants = {i: {int(n): text for n, text in tried.items()} for i, tried in value.items()}
        else:
            line = f" (line {sheet.lines[key]})" if key in sheet.lines else ""
            raise AnswersFileError(f"{sheet.name}: {quoted(key)}{line} is not an answer the prediction boxes save")
    for exercise_id, text in last.items():  # an answer typed in the file, with no first try beside it, is its own first
        if text and exercise_id not in first:
            first[exercise_id] = text
    return Typed(first, last, variants)


def _texts(table: object, key_ok) -> bool:
    return isinstance(table, dict) and all(key_ok(key) and isinstance(text, str) for key, text in table.items())


def _practice(tables: object) -> bool:
    """Whether ``tables`` are "Try another" answers as the page saves them: text, by variant number, per exercise."""
    if not isinstance(tables, dict):
        return False
    for exercise_id, tried in tables.items():
        count = len(EXERCISES[exercise_id].variants) if exercise_id in EXERCISES else 0
        numbers = {str(number) for number in range(1, count + 1)}
        if not _texts(tried, numbers.__contains__):
            return False
    return True


def save_typed(path: str | Path, typed: Typed) -> Typed:
    """Write ``typed`` to ``path``, kept over the predictions a file the boxes saved there holds; what was written.

    A file there that the boxes did not write is left as it is (``AnswersFileError`` says
    why). The file is replaced whole, never left half written.
    """
    path = Path(path)
    kept = typed.kept_over(read_typed(path)) if path.exists() or path.is_symlink() else typed
    text = typed_answers_file(kept)
    handle, temporary = tempfile.mkstemp(prefix=".answers-", suffix=".toml", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return kept
