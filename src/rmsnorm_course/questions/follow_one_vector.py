"""The boxes of follow-one-vector.md: Follow one feature vector."""

from __future__ import annotations

import numpy as np

from predict_check import Carried, Number, Solution

from ..core.format import fmt
from .course import COURSE, EPS, G, X, stages_of


@COURSE.exercise(
    "plateau-value",
    "The mean square of x-hat",
    "For x = {x} and eps = {eps}, what is the mean square of x-hat?",
    Number(),
    "mean(x-hat**2) = ms / (ms + eps): close to one when the mean square dwarfs eps.",
    given={"x": X, "eps": EPS},
    variants=(
        {"x": (1.0, 2.0)},
        {"x": (0.01, 0.02)},
        {"x": (0.003, 0.004)},
        {"x": (3.0, 4.0), "eps": 1.0},
        {"x": (0.001, -0.002), "eps": 1e-6},
    ),
    carried=(Carried("normalized", lambda xhat: float(np.mean(np.square(np.asarray(xhat))))),),
)
def _plateau_value(x, eps) -> Solution:
    forward = stages_of(x, eps=eps)
    value = float(np.mean(np.square(forward.normalized)))
    ms = float(forward.mean_square[0])
    return Solution(
        value,
        f"{ms:g} / ({ms:g} + {eps:g}) = {fmt(value)}: under one, by as much as eps is large next to {ms:g}.",
        slips=(
            (float(np.mean(np.square(forward.normalized * np.asarray(G)))), "That applies the worked example's gain."),
            (1.0, "That is the eps = 0 ideal, exactly one; with eps in the denominator the mean square falls short."),
        ),
        detail=f"Only at eps = 0 is it exactly one; x-hat = {fmt(forward.normalized)} squares to a little less.",
    )
