"""What a feedback page holds back: words that state the answer to an exercise the student has not got right.

An explanation may quote a number another exercise asks for (the reciprocal RMS's
explanation computes it from the mean square). On the page of a student who has not
got that other exercise right, such words would give its answer away, so they are
held back. An answer counts as stated when any of its written forms is in the text:
each number at six to four decimals and at three to six significant figures, a
vector whole, a shape as a tuple or a list, a choice's words or its letter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

import numpy as np

from predict_check.exercises import Course, Exercise
from predict_check.key import solution
from predict_check.kinds import Choice, Shape

FORMS = (".6f", ".5f", ".4f", ".3g", ".4g", ".5g", ".6g", "g")
SHORTEST = 4  # characters of a form that counts: 0, 1 and 0.5 are in any text


def renderings(exercise: Exercise) -> tuple[str, ...]:
    """The written forms of the exercise's answer that would give it away."""
    return _renderings(exercise.course, exercise.id)


@cache
def _renderings(course: Course, exercise_id: str) -> tuple[str, ...]:
    exercise = course.exercises[exercise_id]
    kind, answer = exercise.kind, solution(exercise).answer
    if isinstance(kind, Choice):
        return (answer, f"{kind.letters[kind.index(answer)]})")
    if isinstance(kind, Shape):
        sizes = tuple(int(size) for size in answer)
        return (str(sizes), str(list(sizes)))
    values = np.atleast_1d(np.asarray(answer, dtype=float))
    forms = [f"{value:{spec}}" for value in values for spec in FORMS]
    if len(values) > 1:
        forms += ["[" + ", ".join(f"{value:{spec}}" for value in values) + "]" for spec in FORMS]
    return tuple(form for form in dict.fromkeys(forms) if len(form) >= SHORTEST)


@cache
def _pattern(course: Course, exercise_id: str) -> re.Pattern[str]:
    forms = _renderings(course, exercise_id)
    return re.compile("|".join(map(re.escape, forms)) if forms else "(?!)")  # no form: nothing gives it away


def gives_away(text: str, exercises: Iterable[Exercise]) -> bool:
    """Whether ``text`` states the answer to any of these exercises."""
    return bool(text.strip()) and any(_pattern(exercise.course, exercise.id).search(text) for exercise in exercises)
