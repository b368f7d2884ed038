"""Answer files: the TOML a student fills in, read as data and graded one exercise at a time.

The file is parsed as TOML (``toml_reader``: bounded in size and nesting), never
executed and never written to. Problems are reported with the exercise id or the
line they concern: a file that cannot be read or is not valid TOML, a key that
names no exercise, an answer of the wrong kind, a blank answer.
"""

from __future__ import annotations

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
from .untrusted import visible

BLANK = '""'
REPORTED_UNKNOWN = 10  # unknown keys named one by one; the rest are counted
FIRST_TRIES = "first-tries"  # the table of first predictions the page's download adds; the grader reports them
VARIANTS = "variants"  # the page's "Try another" answers, a table per exercise; reported, never scored


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
