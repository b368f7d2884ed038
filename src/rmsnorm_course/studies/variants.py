"""Today's variants of RMSNorm, each in the few lines that define it, beside LLaMA's.

These are for reading: each is the formula as the model's reference code computes
it, in numpy, with no checks. The chapter's experiments (``modern``) measure what
each changes; ``rms_norm`` stays the one careful implementation. The pages list
these functions whole, so their lines fit the page's column: 72 characters.
"""

from __future__ import annotations

import numpy as np


def rms(x: np.ndarray, eps: float) -> np.ndarray:
    """x / sqrt(mean(x**2) + eps) over the last axis."""
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)


def llama_rms_norm(
    x: np.ndarray,
    weight: np.ndarray,
    eps: float = 1e-6,
) -> np.ndarray:
    """LLaMA: normalize in float32, cast back to x's dtype, then
    multiply by the gain."""
    return rms(x.astype(np.float32), eps).astype(x.dtype) * weight


def gemma_rms_norm(
    x: np.ndarray,
    w: np.ndarray,
    eps: float = 1e-6,
) -> np.ndarray:
    """Gemma: the gain is stored as 1 + w and applied in float32,
    before the one cast back."""
    gain = 1 + w.astype(np.float32)
    return (rms(x.astype(np.float32), eps) * gain).astype(x.dtype)


def qk_norm_per_head(
    q: np.ndarray,
    heads: int,
    weight: np.ndarray,
    eps: float = 1e-6,
) -> np.ndarray:
    """Gemma 3, Qwen3: split the query into heads, then normalize each
    head over its own width."""
    return rms(q.reshape(*q.shape[:-1], heads, -1), eps) * weight


def qk_norm_across_heads(
    q: np.ndarray,
    heads: int,
    weight: np.ndarray,
    eps: float = 1e-6,
) -> np.ndarray:
    """OLMo 2: normalize the whole query projection, every head at once,
    then split it into heads."""
    return (rms(q, eps) * weight).reshape(*q.shape[:-1], heads, -1)


def sandwich_block(
    h: np.ndarray,
    branch,
    eps: float = 1e-6,
) -> np.ndarray:
    """Gemma 2: a norm before the branch and another on what it returns,
    before the residual addition."""
    return h + rms(branch(rms(h, eps)), eps)


def fused_add_rms_norm(
    h: np.ndarray,
    f: np.ndarray,
    weight: np.ndarray,
    eps: float = 1e-6,
):
    """One pass: add the branch to the stream, keep the new stream, and
    normalize it."""
    h = h + f
    return h, rms(h, eps) * weight


def partial_rms_norm(
    x: np.ndarray,
    weight: np.ndarray,
    share: float,
    eps: float = 1e-8,
) -> np.ndarray:
    """pRMSNorm: the mean square from the first ``share`` of each row
    only."""
    k = max(1, int(share * x.shape[-1]))
    mean_square = np.mean(x[..., :k] ** 2, axis=-1, keepdims=True)
    return weight * x / np.sqrt(mean_square + eps)
