"""What a feedback page holds back: reasoning that states the answer to an exercise the student has not got right.

The reasoning under a right answer may quote a number another exercise asks for (the
reciprocal RMS's computes it from the mean square; the fused kernel's intensity divides
by its bytes). On the page of a student who has not got that other exercise right, it
would give the answer away, so it is held back. An answer is stated by value, whatever
its length: a number equal to it (8 states 8.0, 0 states 0.0), or one of three
significant figures or more that rounds from it, either sign (0.2828 states 0.282843); a vector's
numbers of three significant figures, or the whole vector; a shape as a tuple or a
list; a choice's words or its letter, as words. What a verdict says to the student's
own answer (a hint, a slip's note) and a question are never held back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

import numpy as np

from predict_check import Choice, Course, Exercise, Shape, solution

NUMBER = re.compile(r"(?<![\w.])[-+]?(\d*)\.?(\d*)(?:[eE]([-+]?\d+))?(?!\w)")
LIST = re.compile(r"[\[(]([^\[\]()]*)[\])]")
DISTINCT = 3  # significant figures that make a number state what it rounds from


def _numbers(text: str) -> list[tuple[float, int, int]]:
    """Each number in ``text``: its value, its significant figures, and the decimals it gives."""
    found = []
    for match in NUMBER.finditer(text):
        whole, fraction, exponent = match.groups()
        if not (whole or fraction):
            continue
        power = int(exponent or 0)
        found.append((float(match.group()), len((whole + fraction).lstrip("0")), max(0, len(fraction) - power)))
    return found


def _states(number: tuple[float, int, int], value: float, alone: bool) -> bool:
    """Whether a number in a text states ``value``: equal to it (``alone``), or distinct and rounded from it.

    A sign does not hide a distinct number: -0.632456 gives 0.632456 away.
    """
    written, figures, decimals = number
    return (alone and written == value) or (figures >= DISTINCT and abs(round(value, decimals)) == abs(written))


@cache
def _answer(course: Course, exercise_id: str) -> tuple[object, ...]:
    exercise = course.exercises[exercise_id]
    kind, answer = exercise.kind, solution(exercise).answer
    if isinstance(kind, Choice):
        words = rf"(?<!\w){re.escape(answer)}(?!\w)|(?<!\w){kind.letters[kind.index(answer)]}\)"
        return ("words", re.compile(words))
    if isinstance(kind, Shape):
        sizes = tuple(int(size) for size in answer)
        return ("words", re.compile(f"{re.escape(str(sizes))}|{re.escape(str(list(sizes)))}"))
    return ("numbers", tuple(float(value) for value in np.atleast_1d(np.asarray(answer, dtype=float))))


def gives_away(text: str, exercises: Iterable[Exercise]) -> bool:
    """Whether ``text`` states the answer to any of these exercises."""
    exercises = list(exercises)
    if not exercises:
        return False
    return bool(_stated_by(exercises[0].course, text) & {exercise.id for exercise in exercises})


@cache
def _stated_by(course: Course, text: str) -> frozenset[str]:
    """The exercises whose answers ``text`` states (a class's pages repeat the same few reasonings)."""
    numbers = _numbers(text)
    lists = [_numbers(inside) for inside in LIST.findall(text)]
    return frozenset(exercise.id for exercise in course if _stated(exercise, text, numbers, lists))


def _stated(exercise: Exercise, text: str, numbers: list, lists: list[list]) -> bool:
    how, answer = _answer(exercise.course, exercise.id)
    if how == "words":
        return bool(answer.search(text))
    if len(answer) == 1:
        return any(_states(number, answer[0], alone=True) for number in numbers)
    whole = any(
        len(found) == len(answer) and all(_states(number, value, True) for number, value in zip(found, answer))
        for found in lists
    )
    return whole or any(_states(number, value, alone=False) for number in numbers for value in answer)
