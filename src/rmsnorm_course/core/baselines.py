"""The normalizations RMSNorm grew out of, kept minimal for the contrast.

BatchNorm (training mode) takes its statistics across the batch axis, so an
example's output depends on its companions. LayerNorm takes them across one
example's features and subtracts the mean. Neither has a learned affine here:
the contrast is about where the statistics come from.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .reference import DEFAULT_EPS


def batch_norm_train(batch: npt.ArrayLike, eps: float = DEFAULT_EPS) -> np.ndarray:
    """Normalize each feature over axis 0 (the batch) with the batch's own mean and variance."""
    batch = np.asarray(batch, dtype=np.float64)
    mean = batch.mean(axis=0, keepdims=True)
    variance = np.mean(np.square(batch - mean), axis=0, keepdims=True)
    return (batch - mean) / np.sqrt(variance + eps)


def layer_norm(x: npt.ArrayLike, eps: float = DEFAULT_EPS) -> np.ndarray:
    """Center and scale each example's last axis by its own mean and variance."""
    x = np.asarray(x)
    x = x.astype(np.result_type(x.dtype, np.float32), copy=False)
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    variance = np.mean(np.square(centered), axis=-1, keepdims=True)
    return centered / np.sqrt(variance + eps)
