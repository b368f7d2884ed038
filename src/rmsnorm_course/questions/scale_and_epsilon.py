"""The boxes of scale-and-epsilon.md: Scale invariance and the epsilon boundary."""

from __future__ import annotations

import numpy as np

from predict_check import Axis, Place, Solution

from ..core.format import fmt
from ..core.rmsnorm import rms_norm, rms_norm_forward
from .course import COURSE, EPS

RMS_AXIS = Axis(1e-6, 1.0, "log", "RMS of the input (log scale)")


@COURSE.exercise(
    "crossover-rms",
    "Where eps takes half",
    "For eps = {eps}, place the marker on the RMS axis where mean(x-hat**2) = ms / (ms + eps) is one half.",
    Place(RMS_AXIS, tolerance=0.15),
    "One half means the mean square equals eps.",
    given={"eps": EPS},
    variants=({"eps": 1e-6}, {"eps": 1e-4}, {"eps": 1e-3}, {"eps": 1e-8}, {"eps": 1e-2}),
)
def _crossover_rms(eps) -> Solution:
    rms = float(np.sqrt(eps))
    half = float(np.mean(np.square(rms_norm_forward([rms], None, eps).normalized)))
    axis = np.geomspace(RMS_AXIS.low, RMS_AXIS.high, 61)
    curve = [float(np.mean(np.square(rms_norm(np.array([r]), None, eps)))) for r in axis]
    return Solution(
        rms,
        f"ms / (ms + eps) = 1/2 when ms = eps, so the RMS is sqrt({eps:g}) = {fmt(rms)}.",
        slips=((eps, "That is eps itself, a mean square; the crossing is at an RMS, its square root."),),
        detail=f"rms_norm of [{fmt(rms)}] gives mean(x-hat**2) = {fmt(half)}.",
        picture={"curve": [[float(r), y] for r, y in zip(axis, curve, strict=True)], "level": 0.5},
    )
