"""Follow one feature vector: the worked example, stage by stage."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from predict_check import Number, Solution

from ..core.format import fmt, given
from ..core.rmsnorm import rms_norm
from ..studies import evidence, example
from . import COURSE, EPS, G, holds, nums, stages_of


def _mean_square_of_x_hat(x) -> float:
    return float(np.mean(np.square(rms_norm(x, None, example.EPS))))


def values() -> SimpleNamespace:
    primary = evidence.primary()
    worked, small = _mean_square_of_x_hat(example.INPUT), _mean_square_of_x_hat(example.SMALL_INPUT)
    small_times_eps = float(np.mean(np.square(example.SMALL_INPUT))) / example.EPS
    holds(1 - 1e-5 < worked < 1, "just under one for the figure's row")
    holds(small < 0.9, "well under one for the small row")
    return SimpleNamespace(
        primary=primary,
        x=given(primary.x),
        y=fmt(primary.forward.output),
        small=given(example.SMALL_INPUT),
        worked_plateau=fmt(worked),
        small_plateau=fmt(small),
        small_times_eps=f"{small_times_eps:.3g}",
    )


@COURSE.exercise(
    "plateau-value",
    "The mean square of x-hat",
    "Follow the figure's stages for another row: x = {x}, with eps = {eps}. What is the mean square of its "
    "x-hat, mean(x-hat**2)?",
    Number(),
    "Compute the row's mean square, divide x by the root of it plus eps, then average the squares of x-hat.",
    given={"x": example.SMALL_INPUT, "eps": EPS},
    variants=(  # from far above eps to below it, and eps itself changed
        {"x": (1.0, 2.0)},
        {"x": (0.01, 0.02)},
        {"x": (0.001, 0.003)},
        {"x": (3.0, 4.0), "eps": 1.0},
        {"x": (0.001, -0.002), "eps": 1e-6},
    ),
)
def _plateau_value(x, eps) -> Solution:
    forward = stages_of(x, eps=eps)
    value = float(np.mean(np.square(forward.normalized)))
    ms = float(forward.mean_square[0])
    return Solution(
        value,
        f"{ms:g} / ({ms:g} + {eps:g}) = {fmt(value)}: the mean square divided by itself plus eps.",
        slips=(
            (float(np.mean(np.square(forward.normalized * np.asarray(G)))), "That applies the worked example's gain."),
            (1.0, "That is the eps = 0 ideal, exactly one; with eps in the denominator the mean square falls short."),
            (ms, f"That is the mean square of x itself; x-hat is x divided by sqrt({ms:g} + {eps:g})."),
        ),
        detail=(
            f"x-hat of {nums(x)} is {fmt(forward.normalized)}. Its mean square falls short of one by "
            f"eps / (ms + eps) = {fmt(1 - value)}; only at eps = 0 is it exactly one."
        ),
    )
