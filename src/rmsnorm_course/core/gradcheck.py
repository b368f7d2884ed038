"""Central differences: the independent witness for any analytic gradient.

    df/dx_i  ~  (f(x + h e_i) - f(x - h e_i)) / 2h

Each coordinate is nudged on a copy, so the caller's array is never touched.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .checks import real_number, shown
from .errors import GradientCheckError


@dataclass(frozen=True)
class CoordinateCheck:
    """One coordinate: the analytic value, the central difference, and the verdict."""

    index: tuple[int, ...]
    analytic: float
    numeric: float
    error: float
    passed: bool


@dataclass(frozen=True)
class GradientCheckReport:
    """Every coordinate's check, with the step and tolerance used."""

    checks: tuple[CoordinateCheck, ...]
    step: float
    tolerance: float

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)


def numeric_gradient(f: Callable[[np.ndarray], float], point: npt.ArrayLike, step: float = 1e-6) -> np.ndarray:
    """The central-difference gradient of a scalar function ``f`` at ``point``."""
    step = _positive(step, "step")
    probe = np.array(point, dtype=np.float64)
    gradient = np.zeros_like(probe)
    for index in np.ndindex(probe.shape):
        original = probe[index]
        probe[index] = original + step
        above = float(f(probe.copy()))
        probe[index] = original - step
        below = float(f(probe.copy()))
        probe[index] = original
        gradient[index] = (above - below) / (2 * step)
    return gradient


def gradient_check(
    f: Callable[[np.ndarray], float],
    point: npt.ArrayLike,
    analytic: npt.ArrayLike,
    step: float = 1e-6,
    tolerance: float = 2e-6,
) -> GradientCheckReport:
    """Compare ``analytic`` with central differences of ``f``, coordinate by coordinate.

    A coordinate passes when |analytic - numeric| <= tolerance * max(1, |numeric|):
    absolute for small gradients, relative for large ones.
    """
    step, tolerance = _positive(step, "step"), _positive(tolerance, "tolerance")
    analytic = np.asarray(analytic, dtype=np.float64)
    if analytic.shape != np.shape(point):
        raise GradientCheckError(
            f"analytic gradient has shape {analytic.shape} but the point has shape {np.shape(point)}; "
            "expected the same shape"
        )
    numeric = numeric_gradient(f, point, step)
    checks = []
    for index in np.ndindex(numeric.shape):
        error = abs(float(analytic[index]) - float(numeric[index]))
        checks.append(
            CoordinateCheck(
                index=tuple(int(i) for i in index),
                analytic=float(analytic[index]),
                numeric=float(numeric[index]),
                error=error,
                passed=error <= tolerance * max(1.0, abs(float(numeric[index]))),
            )
        )
    return GradientCheckReport(checks=tuple(checks), step=step, tolerance=tolerance)


def _positive(value: float, what: str) -> float:
    """``value`` as a float, or GradientCheckError unless it is a finite number > 0."""
    number = real_number(value, what, GradientCheckError)
    if not (math.isfinite(number) and number > 0):
        raise GradientCheckError(f"{what} is {shown(value)}; expected a finite number > 0")
    return number
