"""RMSNorm as today's models use it: five variants, each computed here.

* A gain stored as ``1 + w`` (Gemma): the same forward at initialisation; under
  weight decay alone a plain gain shrinks toward 0, a ``1 + w`` gain toward 1.
* QK-norm (Gemma 3, OLMo 2, Qwen3): RMSNorm on each query and key before attention
  bounds the logits, so the softmax cannot collapse as activations grow.
* Sandwich norm (Gemma 2): a norm before and after each sub-layer, so every block
  adds a branch of RMS about one to the stream, whatever its weights.
* Fused add + RMSNorm: the residual addition and the norm in one pass, moving fewer
  bytes per element.
* pRMSNorm (Zhang and Sennrich, 2019): the RMS estimated from the first p% of a row.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..core.reference import DEFAULT_EPS
from ..core.rmsnorm import rms_norm
from .threads import one_blas_thread

# --- a gain stored as 1 + w ------------------------------------------------------------

DECAY_PER_STEP = 1e-3  # AdamW's decoupled decay, learning rate times weight decay: w <- (1 - lr * lambda) w
DECAY_STEPS = 1000
TRAINED_GAIN = 1.3  # a gain training has moved away from one


@dataclass(frozen=True)
class GainDecay:
    """Each parametrization's gain at every step of decay with no gradient, from the same starting gain."""

    steps: np.ndarray
    plain: np.ndarray  # the gain g itself decays toward 0
    one_plus: np.ndarray  # the gain 1 + w, where w decays toward 0


def gain_decay(start: float = TRAINED_GAIN, rate: float = DECAY_PER_STEP, steps: int = DECAY_STEPS) -> GainDecay:
    """Decoupled weight decay alone, step by step: each stored parameter is multiplied by (1 - rate)."""
    shrink = (1 - rate) ** np.arange(steps + 1)
    return GainDecay(np.arange(steps + 1), start * shrink, 1 + (start - 1) * shrink)


def same_forward_at_initialisation(x: np.ndarray) -> bool:
    """A plain gain of ones and a ``1 + w`` gain with w = 0 give the same output, bit for bit."""
    width = np.shape(x)[-1]
    return bool(np.array_equal(rms_norm(x, np.ones(width)), rms_norm(x, 1 + np.zeros(width))))


# --- QK-norm -------------------------------------------------------------------------------

HEAD_WIDTH = 64
POSITIONS = 32
QK_SCALES = tuple(np.geomspace(0.1, 100, 31).tolist())


@dataclass(frozen=True)
class Attention:
    """Attention logits q.k / sqrt(d) and the softmax's entropy as the queries' and keys' scale grows."""

    scales: np.ndarray
    largest_logit: np.ndarray  # without QK-norm
    largest_logit_normed: np.ndarray  # with RMSNorm on every query and key
    entropy: np.ndarray  # mean entropy of each query's attention weights, in nats, without
    entropy_normed: np.ndarray  # ... and with
    uniform_entropy: float  # the entropy of attending to every position alike: log(positions)


def _entropy(logits: np.ndarray) -> float:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    weights = np.exp(shifted)
    weights /= weights.sum(axis=-1, keepdims=True)
    return float(np.mean(-np.sum(weights * np.log(np.maximum(weights, 1e-300)), axis=-1)))


@functools.cache  # seeded: the page and its prediction box share one computation
@one_blas_thread
def qk_norm(
    scales: tuple[float, ...] = QK_SCALES, width: int = HEAD_WIDTH, positions: int = POSITIONS, seed: int = 0
) -> Attention:
    """Seeded queries and keys multiplied by each scale; their logits and entropy without and with QK-norm."""
    rng = np.random.default_rng(seed)
    queries, keys = rng.standard_normal((2, positions, width))
    results = {"largest": [], "largest_normed": [], "entropy": [], "entropy_normed": []}
    for scale in scales:
        q, k = scale * queries, scale * keys
        logits = q @ k.T / np.sqrt(width)
        normed = rms_norm(q, None, DEFAULT_EPS) @ rms_norm(k, None, DEFAULT_EPS).T / np.sqrt(width)
        results["largest"].append(np.abs(logits).max())
        results["largest_normed"].append(np.abs(normed).max())
        results["entropy"].append(_entropy(logits))
        results["entropy_normed"].append(_entropy(normed))
    return Attention(
        np.asarray(scales),
        np.array(results["largest"]),
        np.array(results["largest_normed"]),
        np.array(results["entropy"]),
        np.array(results["entropy_normed"]),
        float(np.log(positions)),
    )


def qk_logit_bound(width: int = HEAD_WIDTH) -> float:
    """The largest q.k / sqrt(d) once q and k are RMS-normalized (eps = 0, gain 1): |q||k| / sqrt(d) = sqrt(d)."""
    return float(np.sqrt(width))


# --- sandwich norm --------------------------------------------------------------------------

ARRANGEMENTS = ("pre-norm", "post-norm", "sandwich")
DEPTH, STREAM_WIDTH, BRANCH_GAIN = 16, 256, 4.0  # branches that amplify what they read four times


@dataclass(frozen=True)
class Depth:
    """The residual stream's RMS after each block (0: the input), for each arrangement of the norms."""

    blocks: np.ndarray
    stream_rms: dict[str, np.ndarray]

    def growth_exponent(self, arrangement: str) -> float:
        """The slope of log RMS against log (blocks + 1): about 0.5 for a random walk, 0 for a fixed scale."""
        rms = self.stream_rms[arrangement]
        return float(np.polyfit(np.log(self.blocks + 1), np.log(rms), 1)[0])


@functools.cache
@one_blas_thread
def stream_through_depth(
    depth: int = DEPTH, width: int = STREAM_WIDTH, branch_gain: float = BRANCH_GAIN, seed: int = 0
) -> Depth:
    """Blocks whose branch is a seeded random linear map of gain ``branch_gain``, in each arrangement.

    pre-norm:   h <- h + F(norm(h))
    post-norm:  h <- norm(h + F(h))
    sandwich:   h <- h + norm(F(norm(h)))       (gains one, eps 1e-5)
    """
    rng = np.random.default_rng(seed)
    maps = [branch_gain * rng.standard_normal((width, width)) / np.sqrt(width) for _ in range(depth)]
    start = rng.standard_normal((8, width))
    rms = {}
    for arrangement in ARRANGEMENTS:
        h, values = start.copy(), [_rms(start)]
        for weight in maps:
            if arrangement == "pre-norm":
                h = h + rms_norm(h) @ weight
            elif arrangement == "post-norm":
                h = rms_norm(h + h @ weight)
            else:
                h = h + rms_norm(rms_norm(h) @ weight)
            values.append(_rms(h))
        rms[arrangement] = np.array(values)
    return Depth(np.arange(depth + 1), rms)


def _rms(h: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(h))))


# --- fused add + RMSNorm ----------------------------------------------------------------------

BFLOAT16_BYTES = 2
FLOPS_PER_ELEMENT = 5  # the addition, then the norm's square, sum, scaling and gain


@dataclass(frozen=True)
class Kernel:
    """One way to run h' = h + f, y = RMSNorm(h'): the arrays each pass reads and writes, per element."""

    name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]

    def bytes_per_element(self, itemsize: int = BFLOAT16_BYTES) -> int:
        return itemsize * (len(self.reads) + len(self.writes))

    def intensity(self, itemsize: int = BFLOAT16_BYTES) -> float:
        """Flops per byte moved."""
        return FLOPS_PER_ELEMENT / self.bytes_per_element(itemsize)


KERNELS = (
    # the addition writes h' to memory; the norm reads it back (a row at a time, held while it scales)
    Kernel("add, then RMSNorm", ("h", "f", "h' (again)"), ("h'", "y")),
    # one pass: h and f come in, the new stream and the normalized row go out
    Kernel("fused add + RMSNorm", ("h", "f"), ("h'", "y")),
)


# --- pRMSNorm ------------------------------------------------------------------------------------

LLAMA_WIDTHS = (4096, 5120, 8192)  # LLaMA's model widths, 7B, 13B and 65B
PAPER_SHARE = 0.0625  # p = 6.25%, the share of a row the paper that introduced RMSNorm estimates from
SHARES = (0.01, 0.02, 0.04, PAPER_SHARE, 0.125, 0.25, 0.5, 1.0)  # p: the share of a row the estimate reads
ROWS = 500  # enough for a median steady to a few percent; the page and its box share the one run


@dataclass(frozen=True)
class PartialRms:
    """The typical relative error of the RMS estimated from the first p of a row, per width."""

    shares: np.ndarray
    median_error: dict[int, np.ndarray]  # width -> median |estimate / RMS - 1| over rows, per share

    def error(self, width: int, share: float = PAPER_SHARE) -> float:
        """The median error at one width and one of the measured shares."""
        return float(self.median_error[width][int(np.flatnonzero(self.shares == share)[0])])


def values_read(share: float, width: int) -> int:
    """How many of a row's ``width`` values an estimate from the first ``share`` of it reads (at least one)."""
    return max(1, int(share * width))


@functools.cache
def partial_rms(widths=LLAMA_WIDTHS, shares=SHARES, rows: int = ROWS, seed: int = 0) -> PartialRms:
    """Rows of independent standard normal values: the RMS of their first p, against the whole row's."""
    rng = np.random.default_rng(seed)
    errors = {}
    for width in widths:
        x = rng.standard_normal((rows, width))
        whole = np.sqrt(np.mean(np.square(x), axis=-1))
        errors[width] = np.array(
            [
                np.median(np.abs(np.sqrt(np.mean(np.square(x[:, : values_read(share, width)]), axis=-1)) / whole - 1))
                for share in shares
            ]
        )
    return PartialRms(np.asarray(shares), errors)


def partial_rms_spread(count: int) -> float:
    """The standard deviation of the relative error of an RMS from ``count`` unit normals: sqrt(1 / (2 count))."""
    return float(np.sqrt(1 / (2 * count)))
