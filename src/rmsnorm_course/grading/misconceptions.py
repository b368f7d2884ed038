"""Wrong answers worth a word that no single exercise's slips can name.

Two kinds, both judged by the same rules as every answer:

- ``NON_FINITE``: an answer holding inf or nan, where the exercise's answer is finite.
  Where a square overflows, inf and nan are the natural wrong predictions; these
  exercises say what went wrong, without the answer (the page receives the words
  through ``feedback.page_words``).
- ``CARRIED``: an answer that follows from the student's own wrong answer to an
  earlier exercise (a reciprocal RMS of 0.2 after a mean square of 25, the sum of the
  squares). The step is right; the slip was made earlier. The class's summary and the
  feedback pages name the earlier exercise instead of "no known slip".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ..core.reference import DEFAULT_EPS
from ..questions.registry import EXERCISES
from ..studies import example
from .errors import AnswerKindError
from .kinds import Outcome, Reading

NON_FINITE = {
    "huge-row": (
        "inf and nan come from the formula as written, whose squares overflow; the package divides the row by its "
        "largest magnitude before squaring, so nothing overflows."
    ),
    "float16-formula-row": (
        "The first square does overflow to inf in float16, and so does the root; but what is a finite number "
        "divided by inf?"
    ),
}


def not_finite(given: Reading) -> bool:
    """Whether a number or vector answer holds inf or nan."""
    values = given.value if isinstance(given.value, tuple) else (given.value,)
    return any(isinstance(value, float) and not math.isfinite(value) for value in values)


@dataclass(frozen=True)
class Carried:
    """An exercise whose answer the chapter computes from an earlier one's: ``follow`` is that computation."""

    upstream: str
    follow: Callable[[object], object]


X, G, EPS, UPSTREAM = np.asarray(example.INPUT), np.asarray(example.GAIN), DEFAULT_EPS, np.asarray(example.UPSTREAM)


def _vector(values: np.ndarray) -> tuple[float, ...]:
    return tuple(float(value) for value in values)


def _root(mean_square: object) -> float:
    with np.errstate(all="ignore"):
        return float(np.sqrt(float(mean_square) + EPS))


CARRIED: dict[str, tuple[Carried, ...]] = {
    "reciprocal-rms": (Carried("mean-square", lambda ms: 1.0 / _root(ms) if _root(ms) else math.inf),),
    "normalized": (
        Carried("reciprocal-rms", lambda r: _vector(X * float(r))),
        Carried("mean-square", lambda ms: _vector(X / _root(ms)) if _root(ms) else (math.inf, math.inf)),
    ),
    "output": (Carried("normalized", lambda xhat: _vector(G * np.asarray(xhat))),),
    "plateau-value": (Carried("normalized", lambda xhat: float(np.mean(np.square(np.asarray(xhat))))),),
    "grad-gain": (Carried("normalized", lambda xhat: _vector(UPSTREAM * np.asarray(xhat))),),
}


def carried_from(exercise_id: str, answers: Mapping[str, object], outcomes: Mapping[str, Outcome]) -> str | None:
    """The earlier exercise whose wrong answer this wrong answer follows from, or None.

    Both answers are the student's: the earlier one wrong, this one equal, to the
    decimals it gives, to what the chapter's computation makes of the earlier one.
    """
    if outcomes.get(exercise_id) is not Outcome.WRONG:
        return None
    kind = EXERCISES[exercise_id].kind
    for carried in CARRIED.get(exercise_id, ()):
        if outcomes.get(carried.upstream) is not Outcome.WRONG:
            continue
        try:
            earlier = EXERCISES[carried.upstream].kind.read(answers[carried.upstream])
            given = kind.read(answers[exercise_id])
            if kind.matches(given, carried.follow(earlier.value)):
                return carried.upstream
        except (AnswerKindError, KeyError, TypeError, ValueError, OverflowError, ZeroDivisionError):
            continue
    return None
