"""The boxes of scale-and-epsilon.md: Scale invariance and the epsilon boundary."""

from __future__ import annotations

import numpy as np

from predict_check import Axis, Place, Solution

from ..core.format import fmt
from ..core.rmsnorm import rms_norm, rms_norm_forward
from ..studies import example
from .course import COURSE, EPS

RMS_AXIS = Axis(1e-6, 1.0, "log", "RMS of the input (log scale)")


@COURSE.exercise(
    "crossover-rms",
    "Where x-hat's mean square has fallen",
    "For eps = {eps}, at what RMS of the input has x-hat's mean square, mean(x-hat**2), fallen to {level}?",
    Place(RMS_AXIS, tolerance=0.15),
    "Set ms / (ms + eps) equal to the level and solve for ms; the RMS is its square root.",
    given={"eps": EPS, "level": example.FALLEN_TO},
    variants=(  # none at 1e-3, where the marker starts
        {"eps": 1e-6, "level": 0.8},
        {"eps": 1e-4, "level": 0.5},
        {"eps": 1e-3, "level": 0.9},
        {"eps": 1e-8, "level": 0.2},
        {"eps": 1e-2, "level": 0.5},
    ),
)
def _crossover_rms(eps, level) -> Solution:
    times_eps = level / (1 - level)  # ms / (ms + eps) = level  <=>  ms = eps * level / (1 - level)
    rms = float(np.sqrt(times_eps * eps))
    reached = float(np.mean(np.square(rms_norm_forward([rms], None, eps).normalized)))
    axis = np.geomspace(RMS_AXIS.low, RMS_AXIS.high, 61)
    curve = [float(np.mean(np.square(rms_norm(np.array([r]), None, eps)))) for r in axis]
    slips = [(times_eps * eps, "That is the mean square; the axis is its square root, the RMS.")]
    if times_eps != 1:
        slips.append((float(np.sqrt(eps)), "That is where eps takes half; this level asks for another mean square."))
    return Solution(
        rms,
        f"ms / (ms + eps) = {level:g} when ms = {times_eps:g} * eps = {times_eps * eps:.3g}, so the RMS is {rms:.4g}.",
        slips=tuple(slips),
        detail=f"rms_norm of [{rms:.4g}] gives mean(x-hat**2) = {fmt(reached)}.",
        picture={"curve": [[float(r), y] for r, y in zip(axis, curve, strict=True)], "level": level},
    )
