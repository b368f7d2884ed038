"""The normalizations RMSNorm grew out of, kept minimal for the contrast.

BatchNorm (training mode) takes its statistics across the batch axis, so an
example's output depends on its companions. LayerNorm takes them across one
example's features and subtracts the mean. Neither has a learned affine here:
the contrast is about where the statistics come from. Their requests are checked
as RMSNorm's are: real arrays, an eps the compute dtype holds, and no 0 / 0.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .checks import as_real_array, check_eps, held_eps
from .errors import ZeroEnergyRow

BASELINE_EPS = 1e-5  # the baselines' own default, as PyTorch's BatchNorm and LayerNorm have it


def batch_norm_train(batch: npt.ArrayLike, eps: float = BASELINE_EPS) -> np.ndarray:
    """Normalize each feature over axis 0 (the batch) with the batch's own mean and variance."""
    batch = as_real_array(batch, "batch").astype(np.float64)
    eps = check_eps(eps)
    mean = batch.mean(axis=0, keepdims=True)
    variance = np.mean(np.square(batch - mean), axis=0, keepdims=True)
    _refuse_zero_over_zero(variance.reshape(-1), eps, "feature", "across the batch")
    return (batch - mean) / np.sqrt(variance + eps)


def layer_norm(x: npt.ArrayLike, eps: float = BASELINE_EPS) -> np.ndarray:
    """Center and scale each example's last axis by its own mean and variance."""
    x = as_real_array(x, "input")
    x = x.astype(np.result_type(x.dtype, np.float32), copy=False)
    eps = held_eps(check_eps(eps), x.dtype, x.dtype)
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    variance = np.mean(np.square(centered), axis=-1, keepdims=True)
    _refuse_zero_over_zero(variance.reshape(-1), eps, "example", "over its features")
    return centered / np.sqrt(variance + eps)


def _refuse_zero_over_zero(variance: np.ndarray, eps: float, what: str, where: str) -> None:
    """With eps = 0, a variance of 0 leaves (x - mean) / sqrt(variance) as 0 / 0: say which one."""
    if eps == 0 and not np.all(variance > 0):
        index = int(np.argmin(variance > 0))
        raise ZeroEnergyRow(
            f"eps is 0 but {what} {index} has variance 0 {where} (its values are all equal), "
            "so the normalization divides 0 by 0; expected eps > 0 or values that differ"
        )
