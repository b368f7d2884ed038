"""Today's variants of RMSNorm, each in the few lines that define it, beside LLaMA's.

These are for reading: each is the formula as the model's reference code computes
it, in numpy, with no checks. The chapter's experiments (``modern``) measure what
each changes; ``rms_norm`` stays the one careful implementation. The pages list
these functions whole, so each is written to fit the page's column (72 characters)
in as few lines as the model's own code: every argument but ``heads`` (an int),
``share`` (a float) and ``branch`` (a function of an array) is a numpy array.
"""

from __future__ import annotations

import numpy as np


def normalize(x, eps):
    """x / sqrt(mean(x**2) + eps) over the last axis."""
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)


def llama_rms_norm(x, weight, eps=1e-6):
    """LLaMA: normalize in float32, cast back to x's dtype, then
    multiply by the gain."""
    return normalize(x.astype(np.float32), eps).astype(x.dtype) * weight


def gemma_rms_norm(x, w, eps=1e-6):
    """Gemma: the gain is stored as 1 + w and applied in float32,
    before the one cast back."""
    gain = 1 + w.astype(np.float32)
    return (normalize(x.astype(np.float32), eps) * gain).astype(x.dtype)


def qk_norm_per_head(q, heads, weight, eps=1e-6):
    """Gemma 3, Qwen3: split the query into heads, then normalize each
    head over its own width."""
    return normalize(q.reshape(*q.shape[:-1], heads, -1), eps) * weight


def qk_norm_across_heads(q, heads, weight, eps=1e-6):
    """OLMo 2: normalize the whole query projection, every head at once,
    then split it into heads."""
    normalized = normalize(q, eps) * weight
    return normalized.reshape(*q.shape[:-1], heads, -1)


def sandwich_block(h, branch, eps=1e-6):
    """Gemma 2: a norm before the branch and another on what it returns,
    before the residual addition."""
    return h + normalize(branch(normalize(h, eps)), eps)


def fused_add_rms_norm(h, f, weight, eps=1e-6):
    """One kernel: add the branch to the stream, keep the new stream,
    and normalize it."""
    h = h + f
    return h, normalize(h, eps) * weight


def partial_rms_norm(x, weight, share, eps=1e-8):
    """pRMSNorm: the RMS from the first ``share`` of each row only; eps
    added to the root, outside it, as the authors' code does."""
    k = max(1, int(share * x.shape[-1]))
    part = x[..., :k]
    rms_of_part = np.sqrt(np.mean(part**2, axis=-1, keepdims=True))
    return weight * x / (rms_of_part + eps)
