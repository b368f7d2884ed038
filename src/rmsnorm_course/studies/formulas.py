"""RMSNorm and LayerNorm as usually written: whole-array numpy, a temporary per step.

No checks, no rescaling of extreme rows, no blocks: the yardstick the package's own
arithmetic is timed against (``cost``) and held to in precision (``precision``).
"""

from __future__ import annotations

import numpy as np

from .example import EPS


def rms_norm_formula(x: np.ndarray, gain: np.ndarray, eps: float = EPS) -> np.ndarray:
    """y = x / sqrt(mean(x**2) + eps) * g, exactly as written (no rescaling, no blocks)."""
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps) * gain


def rms_norm_formula_backward(
    x: np.ndarray, gain: np.ndarray, eps: float, grad_output: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The closed-form RMSNorm backward, written the same way."""
    inverse_rms = 1 / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)
    normalized = x * inverse_rms
    upstream = grad_output * gain
    grad_x = inverse_rms * (upstream - normalized * np.mean(upstream * normalized, axis=-1, keepdims=True))
    return grad_x, np.sum(grad_output * normalized, axis=tuple(range(x.ndim - 1)))


def layer_norm_formula(x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float = EPS) -> np.ndarray:
    """y = (x - mean) / sqrt(var + eps) * g + b, LayerNorm with its affine, written the same way."""
    centered = x - np.mean(x, axis=-1, keepdims=True)
    return centered / np.sqrt(np.mean(centered**2, axis=-1, keepdims=True) + eps) * gain + bias


def layer_norm_formula_backward(
    x: np.ndarray, gain: np.ndarray, eps: float, grad_output: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LayerNorm's closed-form backward: ``(grad_x, grad_gain, grad_bias)``."""
    centered = x - np.mean(x, axis=-1, keepdims=True)
    inverse_std = 1 / np.sqrt(np.mean(centered**2, axis=-1, keepdims=True) + eps)
    normalized = centered * inverse_std
    upstream = grad_output * gain
    mean_upstream = np.mean(upstream, axis=-1, keepdims=True)
    projection = np.mean(upstream * normalized, axis=-1, keepdims=True)
    grad_x = inverse_std * (upstream - mean_upstream - normalized * projection)
    rows = tuple(range(x.ndim - 1))
    return grad_x, np.sum(grad_output * normalized, axis=rows), np.sum(grad_output, axis=rows)
