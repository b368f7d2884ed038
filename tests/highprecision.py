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


def within_ulps(got, expected, ulps: float) -> bool:
    """The same dtype and shape, every zero's sign and every infinity as expected, and each finite value within
    ``ulps`` units in the last place of the expected one (at least the spacing of the least normal value, so that
    subnormal results are held to that range's fixed spacing)."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.dtype != expected.dtype or got.shape != expected.shape:
        return False
    finite, info = np.isfinite(expected), np.finfo(expected.dtype)
    held = np.clip(np.abs(expected[finite]), info.tiny, np.nextafter(info.max, 0))  # the largest has no next value
    unit = np.spacing(held).astype(np.float64)
    distance = np.abs(got[finite].astype(np.float64) - expected[finite].astype(np.float64))
    return bool(
        np.all(distance <= ulps * unit)
        and np.array_equal(got[~finite], expected[~finite], equal_nan=True)
        and np.array_equal(np.signbit(got), np.signbit(expected))
    )
