"""The boundaries of an RMSNorm request, checked before any arithmetic.

Every rejection raises a subclass of ``RMSNormError`` whose message says what was
wrong and what was expected. The precision policy lives here too: which dtype a
request computes in, and which it hands back.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import numpy.typing as npt

from .errors import (
    EmptyFeatureWidth,
    GainShapeError,
    GradientShapeError,
    InputRankZero,
    InvalidEpsilon,
    NonFiniteValue,
    UnsupportedDtype,
    WidthMismatch,
    ZeroEnergyRow,
)


def check_eps(eps: float) -> float:
    """Return ``eps`` as a float, or say why it cannot stabilize a square root.

    Only a real number is one: ``float()`` would also read the text ``"1e-5"``, the
    bytes ``b"0.5"`` and ``True``, and a request holding them is a mistake to report.
    """
    if isinstance(eps, bool | np.bool_) or not isinstance(eps, numbers.Real):
        raise InvalidEpsilon(
            f"eps must be a real number, got {type(eps).__name__} {eps!r}; "
            "expected a float or an int (not text, bytes or a bool), finite and >= 0"
        )
    value = float(eps)
    if not math.isfinite(value) or value < 0:
        raise InvalidEpsilon(f"eps must be finite and >= 0, got {value!r}")
    return value


SUPPORTED = "expected real numbers (bool, integer, float16, float32 or float64)"


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype RMSNorm computes in for an input of ``dtype`` (the precision policy)."""
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    if dtype.kind == "f" and dtype.itemsize <= 8:
        return np.dtype(np.float32) if dtype.itemsize < 4 else dtype
    raise UnsupportedDtype(f"dtype {dtype} is not supported; {SUPPORTED}")


def output_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype handed back for an input of ``dtype``: floats keep theirs."""
    return dtype if dtype.kind == "f" else compute_dtype(dtype)


def row_name(flat_index: int, batch_shape: tuple[int, ...]) -> str:
    """Name a row so a person can find it: ``row 3`` or ``row (1, 0)``."""
    if len(batch_shape) <= 1:
        return f"row {flat_index}"
    return f"row {tuple(int(i) for i in np.unravel_index(flat_index, batch_shape))}"


def as_real_array(values: npt.ArrayLike, what: str) -> np.ndarray:
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as error:
        raise UnsupportedDtype(
            f"{what} could not be read as a rectangular array ({error}); expected nested lists or an array of numbers"
        ) from None
    if array.dtype.kind not in "biuf":
        raise UnsupportedDtype(f"{what} has dtype {array.dtype}, which is not supported; {SUPPORTED}")
    if array.dtype.kind == "f" and array.dtype.itemsize > 8:  # long double: no float64 path holds its range
        raise UnsupportedDtype(
            f"{what} has dtype {array.dtype} (long double), which is not supported: its values can lie beyond "
            f"float64's range, and this package computes in float64 at most; {SUPPORTED}, "
            "for example x.astype(np.float64) when its values fit"
        )
    return array


def check_gain(gain: npt.ArrayLike) -> np.ndarray:
    """Return ``gain`` as an array, or say why it cannot be a rank-one gain."""
    gain = as_real_array(gain, "gain")
    if gain.ndim != 1:
        raise GainShapeError(f"gain has shape {gain.shape}; expected rank one, shape (d,)")
    if gain.shape[0] == 0:
        raise EmptyFeatureWidth("gain has width 0; expected a feature width >= 1")
    if math.isfinite(np.add.reduce(gain)):  # a finite sum has no NaN or infinity in it: one cheap pass
        return gain
    finite = np.isfinite(gain)
    if not finite.all():
        bad = int(np.argmin(finite))
        raise NonFiniteValue(f"gain coordinate {bad} is {gain[bad]}; expected finite values")
    return gain


def require_finite_rows(array: np.ndarray, what: str) -> None:
    finite = np.isfinite(array)
    if finite.all():
        return
    rows = finite.reshape(-1, array.shape[-1]).all(axis=-1)
    bad = int(np.argmin(rows))
    raise NonFiniteValue(f"{what} {row_name(bad, array.shape[:-1])} contains NaN or infinity; expected finite values")


def checked_request(x: npt.ArrayLike, gain: npt.ArrayLike | None, eps: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The checks that need no pass over the values; return x as an array, gain in the compute dtype, and eps."""
    eps = check_eps(eps)
    x = as_real_array(x, "input")
    if x.ndim == 0:
        raise InputRankZero("input is a scalar (rank 0); expected at least one axis, whose last is the features")
    width = x.shape[-1]
    if width == 0:
        raise EmptyFeatureWidth(f"input has shape {x.shape} with an empty last axis; expected a feature width >= 1")
    working = compute_dtype(x.dtype)
    if gain is None:
        gain = np.ones(width, dtype=working)
    else:
        gain = check_gain(gain)
        if gain.shape[0] != width:
            raise WidthMismatch(
                f"input's last axis has width {width} but the gain has width {gain.shape[0]}; expected equal widths"
            )
    return x, gain.astype(working, copy=False), eps


def check_values(x: np.ndarray, eps: float) -> None:
    """The checks that read every value: finite rows, and no all-zero row when eps is 0."""
    require_finite_rows(x, "input")
    if eps == 0:
        width = x.shape[-1]
        zero_rows = ~np.any(x.reshape(-1, width) != 0, axis=-1)
        if zero_rows.any():
            row = row_name(int(np.argmax(zero_rows)), x.shape[:-1])
            raise ZeroEnergyRow(
                f"eps is 0 but input {row} is all zeros, so its RMS is 0 and x / RMS is undefined; "
                "expected eps > 0 or a row with a nonzero value"
            )


def validated_upstream(grad_output: npt.ArrayLike, x: np.ndarray) -> np.ndarray:
    """The upstream gradient as an array of x's shape, finite, in x's (compute) dtype."""
    grad_output = as_real_array(grad_output, "grad_output")
    if grad_output.shape != x.shape:
        raise GradientShapeError(
            f"grad_output has shape {grad_output.shape}, but the input has shape {x.shape}; "
            "expected the upstream gradient to have the input's complete shape"
        )
    require_finite_rows(grad_output, "grad_output")
    return grad_output.astype(x.dtype, copy=False)


def validated(
    x: npt.ArrayLike, gain: npt.ArrayLike | None, eps: float
) -> tuple[np.ndarray, np.ndarray, float, np.dtype]:
    """Check every boundary; return x and gain in the compute dtype, eps, and the output dtype."""
    x, gain, eps = checked_request(x, gain, eps)
    check_values(x, eps)
    return x.astype(gain.dtype, copy=False), gain, eps, output_dtype(x.dtype)
