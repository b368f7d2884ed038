"""The arithmetic of RMSNorm, shaped like the formula: the one every path runs.

    y = g * x / sqrt(mean(x**2) + eps)

Every function here takes arrays that ``checks`` has already accepted, in the
compute dtype, and eps as that dtype holds it. A row of width d takes four steps:

1. S, its sum of squares: dot products of at most ``CHUNK`` elements in the compute
   dtype, added in float64 (``row_dots``), so a wide float32 row is summed as
   accurately as a short one;
2. 1/RMS = 1/sqrt(S/d + eps) = sqrt(d / (S + d*eps)), worked out in float64 and
   rounded once to the compute dtype (``inverse_rms``);
3. x-hat = x * (1/RMS);
4. y = x-hat * g.

A row whose S + d*eps lies outside ``safe_totals`` (squares that overflow, or so few
digits left by underflow that they cannot be trusted) is redone scaled by its largest
magnitude (``normalize_rescaled``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULT_EPS = 1e-5  # every function's default; the chapter's own eps is studies.example.EPS

# Elements summed by one dot product, by the compute dtype's itemsize; the chunks' sums are added in
# float64. Measured on random rows and on rows of a repeating pattern (whose rounding errors add up
# rather than cancel), a chunk this long is summed to within 1.5 and 3 units of its dtype's eps.
CHUNK = {4: 4096, 8: 1024}


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


def normalize(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean square, 1/RMS and x-hat of every row (steps 1 to 3), right for every finite row."""
    width, dtype = x.shape[-1], x.dtype
    rows = np.ascontiguousarray(x).reshape(-1, width)
    with np.errstate(all="ignore"):  # a row that overflows or underflows is found by its total, and redone
        sums = row_dots(rows, rows)
        totals = sums + width * eps
        inverse = inverse_rms(totals, width, dtype)[:, None]
        normalized = rows * inverse
        mean_square = (sums / width).astype(dtype)[:, None]
    redo = outside(totals, *safe_totals(dtype, width))
    if redo is not None:
        mean_square[redo], inverse[redo], normalized[redo] = normalize_rescaled(rows[redo], eps)
    reduced = (*x.shape[:-1], 1)
    return mean_square.reshape(reduced), inverse.reshape(reduced), normalized.reshape(x.shape)


def row_dots(a: np.ndarray, b: np.ndarray, into: np.ndarray | None = None, plus: float = 0.0) -> np.ndarray:
    """Each row's sum of a * b, plus ``plus``, in float64: dot products of ``CHUNK`` elements, added in float64.

    ``a`` holds rows, each contiguous (a dot product's rounding depends on its stride);
    ``b`` is rows of the same shape, or one row shared by all (the gain).
    """
    rows, width = a.shape
    into = np.empty(rows) if into is None else into
    chunk = CHUNK[a.dtype.itemsize]
    if width <= chunk:
        return np.add(np.vecdot(a, b), plus, out=into, dtype=np.float64)
    whole = width - width % chunk
    shape = (-1, whole // chunk, chunk)
    np.add.reduce(np.vecdot(a[:, :whole].reshape(shape), b[..., :whole].reshape(shape[2 - b.ndim :])), axis=-1,
                  dtype=np.float64, out=into)  # fmt: skip
    if whole < width:
        np.add(into, np.vecdot(a[:, whole:], b[..., whole:]), out=into, dtype=np.float64)
    return np.add(into, plus, out=into) if plus else into


def inverse_rms(totals: np.ndarray, width: int, dtype: np.dtype, into: np.ndarray | None = None) -> np.ndarray:
    """1/RMS = sqrt(d / (S + d*eps)) from each row's ``totals`` S + d*eps: in float64, rounded once to ``dtype``."""
    into = np.empty(totals.shape, dtype) if into is None else into
    return np.sqrt(np.divide(width, totals), out=into, casting="same_kind")


def safe_totals(dtype: np.dtype, width: int) -> tuple[float, float]:
    """The range of S + d*eps in which steps 1 to 3 are right in ``dtype``.

    At least d times the safe floor, no digits lost to underflow; at most the largest
    ``dtype`` value, so that no square and no partial sum overflowed.
    """
    return width * safe_floor(dtype), float(np.finfo(dtype).max)


def safe_floor(dtype: np.dtype) -> float:
    """The smallest mean square whose squares lose no digits to underflow: tiny / machine epsilon."""
    info = np.finfo(dtype)
    return float(info.tiny / info.eps)


def outside(totals: np.ndarray, low: float, high: float) -> np.ndarray | None:
    """The indices of rows whose S + d*eps lies outside [low, high] (NaN included), or None if there are none."""
    if low <= np.minimum.reduce(totals, initial=np.inf) and np.maximum.reduce(totals, initial=-np.inf) <= high:
        return None
    return np.flatnonzero(~((totals >= low) & (totals <= high)))


def normalize_rescaled(
    rows: np.ndarray,
    eps: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The scaled path for rows whose squares overflow or underflow, and
    all-zero rows (eps > 0 here)."""
    largest = np.max(np.abs(rows), axis=-1, keepdims=True)
    # an all-zero row: x-hat is 0, and 1/RMS is 1/sqrt(eps)
    largest[largest == 0] = 1.0
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        scaled = rows / largest
        dots = row_dots(scaled, scaled) / rows.shape[-1]
        scaled_mean_square = dots.astype(rows.dtype)[:, None]
        scaled_eps = (eps / largest) / largest
        denominator = np.sqrt(scaled_mean_square + scaled_eps)
        inverse_rms = (1.0 / denominator) / largest
        mean_square = scaled_mean_square * largest * largest
        normalized = scaled / denominator

    # Where eps/M**2 swamps mean((x/M)**2) <= 1, the row is
    # eps-dominated: x-hat is x / sqrt(eps), computed directly so that
    # eps/M**2 cannot overflow it to zero.
    machine_eps = np.finfo(rows.dtype).eps
    eps_dominated = (scaled_eps * machine_eps > 4.0)[..., 0]
    if eps_dominated.any():
        root_eps = np.sqrt(rows.dtype.type(eps))
        normalized[eps_dominated] = rows[eps_dominated] / root_eps
        inverse_rms[eps_dominated] = 1.0 / root_eps
    return mean_square, inverse_rms, normalized


def gradients(
    x: np.ndarray,
    gain: np.ndarray,
    eps: float,
    grad_output: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The closed-form backward in the compute dtype, as
    ``rms_norm_backward``'s docstring derives it.

    With r = 1/RMS and x-hat from ``normalize`` and u = grad_output * g,

        grad_x    = u * r - x-hat * c,   c = r * mean(u * x-hat),
                    from ``row_dots``, rounded once
        grad_gain = the sum of grad_output * x-hat over every row,
                    one row after another
    """
    width = x.shape[-1]
    _, inverse, normalized = normalize(x, eps)
    rows, r = normalized.reshape(-1, width), inverse.reshape(-1, 1)
    upstream = grad_output.reshape(-1, width)
    # what overflows, overflowed in the formula too
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        u = upstream * gain
        c = projection_scale(row_dots(u, rows), r[:, 0], width)[:, None]
        grad_x = u * r - rows * c
        grad_gain = np.einsum("ij,ij->j", upstream, rows)
    return grad_x.reshape(x.shape), grad_gain


def projection_scale(dots: np.ndarray, r: np.ndarray, width: int, into: np.ndarray | None = None) -> np.ndarray:
    """c = r * mean(u * x-hat) of each row from its ``dots`` u . x-hat: in float64, rounded once to r's dtype."""
    into = np.empty(r.shape, r.dtype) if into is None else into
    return np.multiply(r, dots / width, out=into, casting="same_kind")
