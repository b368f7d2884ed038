"""Wrong answers worth a word that no single exercise's own slips can name.

Two kinds, both judged by the same rules as every answer, and both declared with the
exercise (``nonfinite`` and ``carried``):

- an answer holding inf or nan, where the exercise's answer is finite: where a square
  overflows, inf and nan are the natural wrong predictions;
- an answer that follows from the student's own wrong answer to an earlier exercise:
  the step is right, the slip was made earlier, and the class's summary and feedback
  pages name the earlier exercise instead of "no known slip".
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .errors import AnswerKindError
from .exercises import Course
from .kinds import Outcome, Reading


def not_finite(given: Reading) -> bool:
    """Whether a number or vector answer holds inf or nan."""
    values = given.value if isinstance(given.value, tuple) else (given.value,)
    return any(isinstance(value, float) and not math.isfinite(value) for value in values)


def carried_from(
    course: Course, exercise_id: str, answers: Mapping[str, object], outcomes: Mapping[str, Outcome]
) -> str | None:
    """The earlier exercise whose wrong answer this wrong answer follows from, or None.

    Both answers are the student's: the earlier one wrong, this one equal, to the
    decimals it gives, to what the course's computation makes of the earlier one.
    """
    if outcomes.get(exercise_id) is not Outcome.WRONG:
        return None
    exercise = course.exercises[exercise_id]
    for carried in exercise.carried:
        if outcomes.get(carried.upstream) is not Outcome.WRONG:
            continue
        try:
            earlier = course.exercises[carried.upstream].kind.read(answers[carried.upstream])
            given = exercise.kind.read(answers[exercise_id])
            if exercise.kind.matches(given, carried.follow(earlier.value)):
                return carried.upstream
        except (AnswerKindError, KeyError, TypeError, ValueError, OverflowError, ZeroDivisionError):
            continue
    return None
