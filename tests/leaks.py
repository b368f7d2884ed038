"""Every way an exercise's expected answer could be written, to prove that a text does not give it away."""

from __future__ import annotations

import numpy as np

from predict_check.exercises import Exercise
from predict_check.kinds import Choice, Shape

SPECS = (".6f", ".5f", ".4f", ".3g", ".4g", ".5g", ".6g", "g")  # six decimals, and three significant figures or more


def expected_renderings(exercise: Exercise, whole: bool = False) -> list[str]:
    """The written forms of the reference: each number at several precisions, and a vector or shape whole.

    A coordinate whose forms are all shorter than four characters (0, 1, 0.5) is too common
    in any text to count on its own; the vector as a whole still does. With ``whole`` a
    vector's forms are only the whole vector's (a coordinate may rightly appear elsewhere).
    """
    kind, answer = exercise.kind, exercise.solve().answer
    if isinstance(kind, Choice):
        return [answer, f"{kind.letters[kind.index(answer)]})"]
    if isinstance(kind, Shape):
        return [str(tuple(answer)), str(list(answer))]
    values = np.atleast_1d(answer)
    forms = [] if whole and len(values) > 1 else [f"{v:{spec}}" for v in values for spec in SPECS]
    if len(values) > 1:
        forms += ["[" + ", ".join(f"{v:{spec}}" for v in values) + "]" for spec in SPECS]
    return [form for form in dict.fromkeys(forms) if len(form) >= 4]
