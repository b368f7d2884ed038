"""Every way an exercise's expected answer could be written, to prove that feedback never shows it."""

from __future__ import annotations

import numpy as np

from rmsnorm_course.exercises.kinds import Choice, Shape
from rmsnorm_course.exercises.registry import Exercise


def expected_renderings(exercise: Exercise) -> list[str]:
    kind, answer = exercise.kind, exercise.solve().answer
    if isinstance(kind, Choice):
        return [kind.options[answer], f"{kind.letters[answer]})"]
    if isinstance(kind, Shape):
        return [str(tuple(answer)), str(list(answer))]
    return [f"{v:{spec}}" for v in np.atleast_1d(answer) for spec in (".6f", ".5f", ".4f", ".3f", "g")]
