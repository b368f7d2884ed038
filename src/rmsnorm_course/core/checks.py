"""The boundaries of an RMSNorm request, checked before any arithmetic.

Every rejection raises a subclass of ``RMSNormError`` whose message says what was
wrong and what was expected. The precision policy lives here too: which dtype a
request computes in, and which it hands back.
"""

from __future__ import annotations

import decimal
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
    MaskedArrayError,
    NonFiniteValue,
    OutputArrayError,
    OutputDtypeError,
    OutputOverlapError,
    OutputShapeError,
    RMSNormError,
    UnsupportedDtype,
    WidthMismatch,
    ZeroEnergyRow,
)

FLOAT64 = np.finfo(np.float64)


def real_number(value: object, what: str, error: type[RMSNormError]) -> float:
    """``value`` as a float (perhaps infinite or NaN), or ``error`` saying why it is no real number float64 holds.

    Only a real number is one: ``float()`` would also read the text ``"1e-5"``, the
    bytes ``b"0.5"`` and ``True``, and a request holding them is a mistake to report.
    An int or a Fraction beyond float64's range, or a signalling NaN, is reported here
    rather than escaping as Python's own error.
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real | decimal.Decimal):
        raise error(
            f"{what} must be a real number, got {type(value).__name__} {shown(value)}; "
            "expected a float or an int (not text, bytes or a bool)"
        )
    try:
        return float(value)
    except (ArithmeticError, ValueError, TypeError) as reason:  # OverflowError is an ArithmeticError
        raise error(
            f"{what} is {shown(value)}, which no float64 holds ({reason}); "
            f"expected a finite number of magnitude at most {FLOAT64.max:.4g}"
        ) from None


def shown(value: object) -> str:
    """``repr(value)``, shortened where it is long (an int of 400 digits), for a message."""
    try:
        text = repr(value)
    except ValueError:  # an int with more digits than Python will print
        return f"an int of {value.bit_length()} bits"
    if len(text) <= 40:
        return text
    if isinstance(value, int):
        return f"an int of {len(text.lstrip('-'))} digits"
    return f"{text[:24]} (cut short: {len(text)} characters)"


def check_eps(eps: float) -> float:
    """Return ``eps`` as a float, or say why it cannot stabilize a square root."""
    value = real_number(eps, "eps", InvalidEpsilon)
    if not math.isfinite(value) or value < 0:
        raise InvalidEpsilon(f"eps must be finite and >= 0, got {shown(eps)}; expected a finite eps >= 0")
    if value == 0 and eps != 0:
        raise InvalidEpsilon(
            f"eps = {shown(eps)} is positive but rounds to 0 in float64; "
            f"expected 0, or an eps of at least {FLOAT64.smallest_subnormal:.3g}"
        )
    return value


def held_eps(eps: float, working: np.dtype, dtype: np.dtype) -> float:
    """``eps`` as ``working`` holds it, the dtype a ``dtype`` input is computed in (the precision policy).

    A positive eps that rounds to 0 there would leave an all-zero row 0 / 0, and one that
    rounds to infinity would divide every row down to zeros: both are refused.
    """
    with np.errstate(over="ignore", under="ignore"):
        held = float(working.type(eps))
    if (held == 0) != (eps == 0) or math.isinf(held):
        info = np.finfo(working)
        raise InvalidEpsilon(
            f"eps = {eps!r} is too {'small' if held == 0 else 'large'} for {working}, the dtype a {dtype} input "
            f"is computed in: it rounds to {held!r}; expected 0, or an eps from {info.smallest_subnormal:.3g} "
            f"to {info.max:.4g}"
        )
    return held


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
    """``values`` as a numpy array of real numbers, or the error that says why they are none."""
    if isinstance(values, np.ma.MaskedArray):  # np.asarray would keep the masked values and drop the mask
        raise MaskedArrayError(
            f"{what} is a masked array, whose mask would be ignored; expected a plain array: "
            "fill the masked values first (.filled(value)) or leave out the rows that hold them"
        )
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
    with np.errstate(over="ignore", invalid="ignore"):  # a sum that overflows is looked at value by value below
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
    """The checks that need no pass over x's values: x as an array, and gain and eps in the compute dtype.

    eps comes back as that dtype holds it, the gain contiguous, so that every path takes
    its dot products alike.
    """
    eps = check_eps(eps)
    x = as_real_array(x, "input")
    if x.ndim == 0:
        raise InputRankZero("input is a scalar (rank 0); expected at least one axis, whose last is the features")
    width = x.shape[-1]
    if width == 0:
        raise EmptyFeatureWidth(f"input has shape {x.shape} with an empty last axis; expected a feature width >= 1")
    working = compute_dtype(x.dtype)
    eps = held_eps(eps, working, x.dtype)
    if gain is None:
        gain = np.ones(width, dtype=working)
    else:
        gain = check_gain(gain)
        if gain.shape[0] != width:
            raise WidthMismatch(
                f"input's last axis has width {width} but the gain has width {gain.shape[0]}; expected equal widths"
            )
    return x, np.ascontiguousarray(narrowed(gain, working, "gain")), eps


def narrowed(array: np.ndarray, working: np.dtype, what: str) -> np.ndarray:
    """A finite ``array`` in the compute dtype, or NonFiniteValue where a value is too large for it (a float64 gain
    for a float32 input)."""
    with np.errstate(over="ignore", invalid="ignore"):  # a value or a sum that overflows is looked at below
        converted = array.astype(working, copy=False)
        if array.dtype.itemsize <= working.itemsize or math.isfinite(np.add.reduce(converted, axis=None)):
            return converted
    finite = np.isfinite(converted)
    if finite.all():
        return converted
    index = tuple(int(i) for i in np.unravel_index(int(np.argmin(finite)), array.shape))
    where = f" at index {index}" if index else ""
    raise NonFiniteValue(
        f"{what} holds {array[index].item()!r}{where}, beyond the range of {working}, "
        f"the dtype this request is computed in; expected magnitudes up to {np.finfo(working).max:.4g}"
    )


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
    return narrowed(grad_output, x.dtype, "grad_output")


def validated(
    x: npt.ArrayLike, gain: npt.ArrayLike | None, eps: float
) -> tuple[np.ndarray, np.ndarray, float, np.dtype]:
    """Check every boundary; return x and gain in the compute dtype, eps, and the output dtype."""
    x, gain, eps = checked_request(x, gain, eps)
    check_values(x, eps)
    return x.astype(gain.dtype, copy=False), gain, eps, output_dtype(x.dtype)


def checked_out(out: np.ndarray | None, x: np.ndarray, gain: object) -> np.ndarray:
    """A new output array for the input ``x``, or the caller's ``out`` once it is known to fit."""
    dtype = output_dtype(x.dtype)
    if out is None:
        return np.empty(x.shape, dtype)
    if isinstance(out, np.ma.MaskedArray):
        raise MaskedArrayError(
            "out is a masked array: the result would be written under its mask, and the mask kept; "
            "expected a plain numpy array to write the result into"
        )
    if not isinstance(out, np.ndarray):
        raise OutputArrayError(f"out is a {type(out).__name__}; expected a numpy array to write the result into")
    if out.shape != x.shape:
        raise OutputShapeError(f"out has shape {out.shape} but the input has shape {x.shape}; expected equal shapes")
    if out.dtype != dtype:
        raise OutputDtypeError(
            f"out has dtype {out.dtype}, but a {x.dtype} input gives {dtype}; expected an out of dtype {dtype}"
        )
    if not out.flags.writeable:
        raise OutputArrayError("out is read-only; expected a writeable array")
    for name, array in (("input", x), ("gain", gain)):
        if isinstance(array, np.ndarray) and np.shares_memory(out, array):
            raise OutputOverlapError(
                f"out shares memory with the {name}; expected a separate array, since the {name} is never modified"
            )
    return out
