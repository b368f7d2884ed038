"""Instant feedback in a notebook: ``check("mean-square", 12.5)`` returns a verdict.

A verdict reads as plain text in a terminal and as a framed note in Jupyter and the
HTML book. It never speaks through colour alone: every verdict leads with a mark and
a word (✓ Correct, ✗ Not yet, ? Your turn, ✗ Cannot read this answer). A wrong
answer gets its hint, never the expected value; a right one gets the explanation.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from enum import Enum

from . import registry as exercises
from .errors import AnswerKindError
from .kinds import Choice
from .registry import Exercise


class Outcome(Enum):
    CORRECT = "correct"
    WRONG = "wrong"
    NOT_ANSWERED = "not answered"
    UNREADABLE = "unreadable"


# mark, word, accent colour (the mark and the word carry the meaning; the colour only repeats it)
LOOKS = {
    Outcome.CORRECT: ("✓", "Correct", "#1a7f37"),
    Outcome.WRONG: ("✗", "Not yet", "#b42318"),
    Outcome.NOT_ANSWERED: ("?", "Your turn", "#57606a"),
    Outcome.UNREADABLE: ("✗", "Cannot read this answer", "#9a6700"),
}


@dataclass(frozen=True)
class Verdict:
    """What became of one answer: the outcome, the words for the learner, and the answer as read.

    ``slips`` holds the notes of the known slips a wrong answer matches (they are in the
    message too), so that a class's most common mistakes can be named.
    """

    exercise_id: str
    outcome: Outcome
    message: str
    answer: str | None = None
    options: tuple[str, ...] = ()
    slips: tuple[str, ...] = ()

    @property
    def correct(self) -> bool:
        return self.outcome is Outcome.CORRECT

    @property
    def mark(self) -> str:
        return LOOKS[self.outcome][0]

    @property
    def label(self) -> str:
        return LOOKS[self.outcome][1]

    def __str__(self) -> str:
        head = f"{self.mark} {self.label}: {self.exercise_id}"
        if self.answer is not None:
            head += f" = {self.answer}"
        return "\n".join([head, self.message, *(f"  {option}" for option in self.options)])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        mark, word, accent = LOOKS[self.outcome]
        answer = f" = <code>{html.escape(self.answer)}</code>" if self.answer is not None else ""
        options = "".join(f"<li>{html.escape(option)}</li>" for option in self.options)
        listed = f'<ul style="margin: 0.3em 0 0 0; list-style: none; padding-left: 0.5em;">{options}</ul>'
        return (
            f'<div class="rmsnorm-verdict rmsnorm-verdict-{self.outcome.name.lower().replace("_", "-")}" '
            f'role="status" style="border-left: 0.35em solid {accent}; padding: 0.5em 0.9em; margin: 0.4em 0; '
            'background: #f6f8fa; color: #1f2328; border-radius: 0.2em;">'
            f'<strong><span aria-hidden="true">{mark}</span> {word}</strong>'
            f" · <code>{html.escape(self.exercise_id)}</code>{answer}"
            f'<p style="margin: 0.3em 0 0 0;">{html.escape(self.message)}</p>' + (listed if options else "") + "</div>"
        )


def is_unanswered(raw: object) -> bool:
    """``...``, ``None`` and blank text stand for "no answer yet"."""
    return raw is None or raw is Ellipsis or (isinstance(raw, str) and not raw.strip())


def judge(exercise: Exercise, raw: object) -> Verdict:
    """Read ``raw`` as the exercise's kind of answer and compare it with the computed reference."""
    kind = exercise.kind
    if is_unanswered(raw):
        question = f"{exercise.prompt} Answer with {kind.describe()}."
        return Verdict(exercise.id, Outcome.NOT_ANSWERED, question, None, _options(exercise))
    try:
        given = kind.read(raw)
    except AnswerKindError as error:
        return Verdict(exercise.id, Outcome.UNREADABLE, f"{error}.", None, _options(exercise))
    solution = exercise.solve()
    shown = kind.show(given)
    if kind.agrees(given, solution.answer, exercise.tolerance):
        return Verdict(exercise.id, Outcome.CORRECT, solution.explanation, shown)
    slips = tuple(note for value, note in solution.pitfalls if kind.agrees(given, kind.read(value), exercise.tolerance))
    return Verdict(exercise.id, Outcome.WRONG, " ".join([*slips, f"Hint: {exercise.hint}"]), shown, slips=slips)


def check(exercise_id: str, answer: object = ...) -> Verdict:
    """Check a prediction. ``check("mean-square")`` alone shows the question.

    Answers are what a person would type: a number (ints are fine), a list, tuple or
    array for a vector, a tuple or list for a shape, a letter or the option's text for
    a choice. An unknown id raises ``UnknownExercise``.
    """
    return judge(exercises.get(exercise_id), answer)


def reference(exercise_id: str) -> Verdict:
    """The reference answer with its explanation, as a verdict (for the book's folded answers)."""
    exercise = exercises.get(exercise_id)
    solution = exercise.solve()
    return Verdict(exercise.id, Outcome.CORRECT, solution.explanation, exercise.kind.show(solution.answer))


def _options(exercise: Exercise) -> tuple[str, ...]:
    kind = exercise.kind
    return kind.listed() if isinstance(kind, Choice) else ()
