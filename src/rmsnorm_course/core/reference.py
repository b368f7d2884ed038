"""The reference arithmetic of RMSNorm, shaped like the formula.

    y = g * x / sqrt(mean(x**2) + eps)

Every function here takes arrays that ``checks`` has already accepted, in the
compute dtype. The fast path is built on these pieces, and falls back to them
wherever a row needs care.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULT_EPS = 1e-5  # the chapter's eps, and every default in the package


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


def gradients(x: np.ndarray, gain: np.ndarray, eps: float, grad_output: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The closed-form backward in the compute dtype, as ``rms_norm_backward``'s docstring derives it."""
    _, inverse_rms, normalized = normalize(x, eps)
    upstream_through_gain = grad_output * gain
    projection = np.mean(upstream_through_gain * normalized, axis=-1, keepdims=True)
    grad_x = inverse_rms * (upstream_through_gain - normalized * projection)
    grad_gain = np.sum(grad_output * normalized, axis=tuple(range(x.ndim - 1)))
    return grad_x, grad_gain


def normalize(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
        ms, inv, xhat = normalize_rescaled(x[risky], eps)
        mean_square[risky], inverse_rms[risky], normalized[risky] = ms, inv, xhat
    return mean_square, inverse_rms, normalized


def safe_floor(dtype: np.dtype) -> float:
    """The smallest mean square whose squares lose no digits to underflow: tiny / machine epsilon."""
    info = np.finfo(dtype)
    return float(info.tiny / info.eps)


def normalize_rescaled(rows: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
