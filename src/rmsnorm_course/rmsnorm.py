"""RMSNorm over the last axis: the forward with its intermediates, and the backward.

    y = g * x / sqrt(mean(x**2) + eps)

The mean runs over the final axis only, so every row (one feature vector) is
normalized on its own. Precision policy, in one line: integers and bools become
float64, float16 is computed in float32 and handed back as float16, float32 and
float64 stay as they are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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

DEFAULT_EPS = 1e-5


@dataclass(frozen=True)
class RMSNormForward:
    """Every stage of one forward pass, named as in the formula.

    ``mean_square`` and ``inverse_rms`` keep the reduced axis (shape ``[..., 1]``)
    and stay in the compute dtype; ``normalized`` (x-hat) and ``output`` have the
    input's complete shape and its dtype.
    """

    mean_square: np.ndarray
    inverse_rms: np.ndarray
    normalized: np.ndarray
    output: np.ndarray


def rms_norm(
    x: npt.ArrayLike,
    gain: npt.ArrayLike | None = None,
    eps: float = DEFAULT_EPS,
    *,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Normalize the last axis of ``x`` by its root mean square, then apply ``gain``.

    ``out``, if given, receives the result and is returned: an array of the input's
    shape and output dtype that shares no memory with the input (if the input is
    rejected, ``out`` may already hold part of the work). Large inputs, and
    every call with ``out``, take the blocked fast path (fastpath.py); its results
    agree with the reference arithmetic below to a few units in the last place.
    """
    from . import fastpath  # the fast path is built from this module's pieces

    if out is not None or fastpath.worth_blocking(x):
        return fastpath.rms_norm_blocked(x, gain, eps, out)
    return rms_norm_forward(x, gain, eps).output


def rms_norm_forward(x: npt.ArrayLike, gain: npt.ArrayLike | None = None, eps: float = DEFAULT_EPS) -> RMSNormForward:
    """Run RMSNorm and keep every intermediate, for teaching and for the backward."""
    x, gain, eps, out_dtype = _validated(x, gain, eps)
    mean_square, inverse_rms, normalized = _normalize(x, eps)
    return RMSNormForward(
        mean_square=mean_square,
        inverse_rms=inverse_rms,
        normalized=normalized.astype(out_dtype, copy=False),
        output=(normalized * gain).astype(out_dtype, copy=False),
    )


def rms_norm_backward(
    x: npt.ArrayLike,
    gain: npt.ArrayLike | None,
    eps: float,
    grad_output: npt.ArrayLike,
) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form gradients ``(grad_x, grad_gain)`` for an upstream ``grad_output``.

    With r = 1/sqrt(mean(x**2) + eps), x-hat = x * r and u = grad_output * g:

        grad_x    = r * (u - x-hat * mean(u * x-hat))      (per row)
        grad_gain = sum over every row of grad_output * x-hat     shape (d,)

    Both come back in the input's dtype. Large inputs take the blocked fast path.
    """
    from . import fastpath  # the fast path is built from this module's pieces

    if fastpath.worth_blocking(x, grad_output):
        return fastpath.rms_norm_backward_blocked(x, gain, eps, grad_output)
    x, gain, eps, out_dtype = _validated(x, gain, eps)
    grad_output = _validated_upstream(grad_output, x)
    grad_x, grad_gain = _gradients(x, gain, eps, grad_output)
    return grad_x.astype(out_dtype, copy=False), grad_gain.astype(out_dtype, copy=False)


# --- the arithmetic -------------------------------------------------------


def _gradients(x: np.ndarray, gain: np.ndarray, eps: float, grad_output: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The closed-form backward in the compute dtype, exactly as in the docstring above."""
    _, inverse_rms, normalized = _normalize(x, eps)
    upstream_through_gain = grad_output * gain
    projection = np.mean(upstream_through_gain * normalized, axis=-1, keepdims=True)
    grad_x = inverse_rms * (upstream_through_gain - normalized * projection)
    grad_gain = np.sum(grad_output * normalized, axis=tuple(range(x.ndim - 1)))
    return grad_x, grad_gain


def _normalize(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean square, inverse RMS and x-hat of every row, correct for every finite row.

    The ordinary path is the formula. Rows whose sum of squares overflows, or is so
    small that the squares lose digits to underflow, are redone scaled by their
    largest magnitude M: x-hat = (x/M) / sqrt(mean((x/M)**2) + eps/M**2).
    """
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        mean_square = np.mean(np.square(x), axis=-1, keepdims=True)
        inverse_rms = 1.0 / np.sqrt(mean_square + eps)
        normalized = x * inverse_rms

    risky = ~np.isfinite(mean_square[..., 0]) | (mean_square[..., 0] + eps < safe_floor(x.dtype))
    risky &= np.any(x != 0, axis=-1)
    if risky.any():
        ms, inv, xhat = _normalize_rescaled(x[risky], eps)
        mean_square[risky], inverse_rms[risky], normalized[risky] = ms, inv, xhat
    return mean_square, inverse_rms, normalized


def safe_floor(dtype: np.dtype) -> float:
    """The smallest mean square whose squares lose no digits to underflow: tiny / machine epsilon."""
    info = np.finfo(dtype)
    return float(info.tiny / info.eps)


def _normalize_rescaled(rows: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The scaled path for nonzero rows whose squares overflow or underflow."""
    largest = np.max(np.abs(rows), axis=-1, keepdims=True)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        scaled = rows / largest
        scaled_mean_square = np.mean(np.square(scaled), axis=-1, keepdims=True)
        scaled_eps = (eps / largest) / largest
        denominator = np.sqrt(scaled_mean_square + scaled_eps)
        inverse_rms = (1.0 / denominator) / largest
        mean_square = scaled_mean_square * largest * largest
        normalized = scaled / denominator

    # Where eps/M**2 swamps mean((x/M)**2) <= 1, the row is eps-dominated: x-hat is
    # x / sqrt(eps), computed directly so that eps/M**2 cannot overflow it to zero.
    eps_dominated = (scaled_eps * np.finfo(rows.dtype).eps > 4.0)[..., 0]
    if eps_dominated.any():
        normalized[eps_dominated] = rows[eps_dominated] / np.sqrt(rows.dtype.type(eps))
        inverse_rms[eps_dominated] = 1.0 / np.sqrt(rows.dtype.type(eps))
    return mean_square, inverse_rms, normalized


# --- the boundaries -------------------------------------------------------


def check_eps(eps: float) -> float:
    """Return ``eps`` as a float, or say why it cannot stabilize a square root."""
    try:
        value = float(eps)
    except (TypeError, ValueError):
        raise InvalidEpsilon(f"eps must be a real number, got {eps!r}; expected a finite value >= 0") from None
    if not math.isfinite(value) or value < 0:
        raise InvalidEpsilon(f"eps must be finite and >= 0, got {value!r}")
    return value


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype RMSNorm computes in for an input of ``dtype`` (the precision policy)."""
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    if dtype.kind == "f":
        return np.dtype(np.float32) if dtype.itemsize < 4 else dtype
    raise UnsupportedDtype(
        f"dtype {dtype} is not supported; expected real numbers (bool, integer, float16, float32 or float64)"
    )


def output_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype handed back for an input of ``dtype``: floats keep theirs."""
    return dtype if dtype.kind == "f" else compute_dtype(dtype)


def row_name(flat_index: int, batch_shape: tuple[int, ...]) -> str:
    """Name a row so a person can find it: ``row 3`` or ``row (1, 0)``."""
    if len(batch_shape) <= 1:
        return f"row {flat_index}"
    return f"row {tuple(int(i) for i in np.unravel_index(flat_index, batch_shape))}"


def _as_real_array(values: npt.ArrayLike, what: str) -> np.ndarray:
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as error:
        raise UnsupportedDtype(
            f"{what} could not be read as a rectangular array ({error}); expected nested lists or an array of numbers"
        ) from None
    if array.dtype.kind not in "biuf":
        raise UnsupportedDtype(
            f"{what} has dtype {array.dtype}, which is not supported; "
            "expected real numbers (bool, integer, float16, float32 or float64)"
        )
    return array


def check_gain(gain: npt.ArrayLike) -> np.ndarray:
    """Return ``gain`` as an array, or say why it cannot be a rank-one gain."""
    gain = _as_real_array(gain, "gain")
    if gain.ndim != 1:
        raise GainShapeError(f"gain has shape {gain.shape}; expected rank one, shape (d,)")
    if gain.shape[0] == 0:
        raise EmptyFeatureWidth("gain has width 0; expected a feature width >= 1")
    finite = np.isfinite(gain)
    if not finite.all():
        bad = int(np.argmin(finite))
        raise NonFiniteValue(f"gain coordinate {bad} is {gain[bad]}; expected finite values")
    return gain


def _require_finite_rows(array: np.ndarray, what: str) -> None:
    finite = np.isfinite(array)
    if finite.all():
        return
    rows = finite.reshape(-1, array.shape[-1]).all(axis=-1)
    bad = int(np.argmin(rows))
    raise NonFiniteValue(f"{what} {row_name(bad, array.shape[:-1])} contains NaN or infinity; expected finite values")


def _checked_request(x: npt.ArrayLike, gain: npt.ArrayLike | None, eps: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The checks that need no pass over the values; return x as an array, gain in the compute dtype, and eps."""
    eps = check_eps(eps)
    x = _as_real_array(x, "input")
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


def _check_values(x: np.ndarray, eps: float) -> None:
    """The checks that read every value: finite rows, and no all-zero row when eps is 0."""
    _require_finite_rows(x, "input")
    if eps == 0:
        width = x.shape[-1]
        zero_rows = ~np.any(x.reshape(-1, width) != 0, axis=-1)
        if zero_rows.any():
            row = row_name(int(np.argmax(zero_rows)), x.shape[:-1])
            raise ZeroEnergyRow(
                f"eps is 0 but input {row} is all zeros, so its RMS is 0 and x / RMS is undefined; "
                "expected eps > 0 or a row with a nonzero value"
            )


def _validated_upstream(grad_output: npt.ArrayLike, x: np.ndarray) -> np.ndarray:
    """The upstream gradient as an array of x's shape, finite, in x's (compute) dtype."""
    grad_output = _as_real_array(grad_output, "grad_output")
    if grad_output.shape != x.shape:
        raise GradientShapeError(
            f"grad_output has shape {grad_output.shape}, but the input has shape {x.shape}; "
            "expected the upstream gradient to have the input's complete shape"
        )
    _require_finite_rows(grad_output, "grad_output")
    return grad_output.astype(x.dtype, copy=False)


def _validated(
    x: npt.ArrayLike, gain: npt.ArrayLike | None, eps: float
) -> tuple[np.ndarray, np.ndarray, float, np.dtype]:
    """Check every boundary; return x and gain in the compute dtype, eps, and the output dtype."""
    x, gain, eps = _checked_request(x, gain, eps)
    _check_values(x, eps)
    return x.astype(gain.dtype, copy=False), gain, eps, output_dtype(x.dtype)
