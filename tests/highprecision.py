"""An independent RMSNorm in 60-digit decimal arithmetic, the yardstick for precision tests."""

from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np

from rmsnorm_course.studies.precision import ulps_off


def exact_rms_norm(row, gain=None, eps: float = 0.0, dtype=np.float64) -> np.ndarray:
    """g * x / sqrt(mean(x**2) + eps) for one row, each input taken exactly, rounded once at the end."""
    row = np.asarray(row)
    gain = np.ones(row.shape[-1]) if gain is None else np.asarray(gain)
    with localcontext() as context:
        context.prec = 60
        xs = [Decimal(float(v)) for v in row]
        mean_square = sum(v * v for v in xs) / len(xs)
        root = (mean_square + Decimal(float(eps))).sqrt()
        return np.array([float(v / root * Decimal(float(g))) for v, g in zip(xs, gain)]).astype(dtype)


def ulps_apart(got: np.ndarray, exact: np.ndarray) -> float:
    """The largest distance between ``got`` and ``exact`` in units of the last place, by the package's one measure."""
    got = np.asarray(got)
    return float(np.max(ulps_off(np.atleast_1d(got), np.atleast_1d(np.asarray(exact, dtype=np.float64)))))
