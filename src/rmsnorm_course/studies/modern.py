"""RMSNorm as today's models use it: five variants, each computed here.

* A gain stored as ``1 + w`` (Gemma): the same forward at initialisation; under
  weight decay alone a plain gain shrinks toward 0, a ``1 + w`` gain toward 1.
* QK-norm: RMSNorm on each query and key before attention bounds the logits, so the
  softmax cannot collapse as activations grow; per head (Gemma 3, Qwen3) each head's
  query has length sqrt(d), across heads (OLMo 2) only all heads together do.
* Sandwich norm (Gemma 2): a norm before and after each sub-layer, so every block
  adds a branch of RMS about one to the stream, whatever its weights; pre-norm's stream
  grows by the same law, in larger steps.
* Fused add + RMSNorm: the residual addition and the norm in one pass, moving fewer
  bytes per element.
* pRMSNorm (Zhang and Sennrich, 2019): the RMS estimated from the first p% of a row.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..core.rmsnorm import rms_norm
from . import variants
from .example import EPS
from .precision import CastOrder
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


def gain_cast_order(rows: int = 1000, width: int = 64, seed: int = 0, trained: bool = True) -> CastOrder:
    """How often LLaMA's order (cast x-hat back, then the gain) and Gemma's (the gain 1 + w, then one cast)
    give different float16 outputs for the same float16 gain: one trained away from one, or one at initialisation.

    Gemma's stored w is that gain minus one, which float16 holds exactly, so both multiply by the same number.
    """
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, width)).astype(np.float16)
    gain = rng.uniform(0.5, 1.5, width).astype(np.float16) if trained else np.ones(width, np.float16)
    w = (gain.astype(np.float32) - 1).astype(np.float16)
    if not np.array_equal(1 + w.astype(np.float32), gain.astype(np.float32)):
        raise AssertionError("Gemma's 1 + w must be the very gain LLaMA multiplies by")
    return CastOrder.between(variants.gemma_rms_norm(x, w, EPS), variants.llama_rms_norm(x, gain, EPS))


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
        normed = rms_norm(q, None, EPS) @ rms_norm(k, None, EPS).T / np.sqrt(width)
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


HEADS = 8


@dataclass(frozen=True)
class HeadLengths:
    """Each head's query length, over sqrt(head width), after RMSNorm per head and across all heads."""

    per_head: np.ndarray  # one per head: all one
    across_heads: np.ndarray  # one per head: spread around one, their mean squares averaging to one


@functools.cache
def head_lengths(heads: int = HEADS, width: int = HEAD_WIDTH, seed: int = 0) -> HeadLengths:
    """A seeded query whose heads differ in scale, normalized per head (Gemma 3, Qwen3) and across heads (OLMo 2)."""
    rng = np.random.default_rng(seed)
    query = rng.standard_normal((heads, width)) * rng.lognormal(0.0, 0.75, (heads, 1))
    per_head = rms_norm(query, None, 0.0)  # each head's own RMS
    across = rms_norm(query.reshape(heads * width), None, 0.0).reshape(heads, width)  # one RMS for all heads
    length = lambda q: np.linalg.norm(q, axis=-1) / np.sqrt(width)  # noqa: E731
    return HeadLengths(length(per_head), length(across))


def qk_logit_bound_across_heads(heads: int = HEADS, width: int = HEAD_WIDTH) -> float:
    """The largest one head's q.k / sqrt(d) can take when only all heads together have RMS one: heads * sqrt(d)."""
    return float(heads * np.sqrt(width))


def qk_logit_bound(width: int = HEAD_WIDTH) -> float:
    """The largest q.k / sqrt(d) once q and k are RMS-normalized (eps = 0, gain 1): |q||k| / sqrt(d) = sqrt(d)."""
    return float(np.sqrt(width))


# --- where the norms sit today ---------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """One arrangement of the norms in today's models: what it computes, what it bounds, and where it is read."""

    name: str
    models: str
    formula: str
    bounds: str
    sources: tuple[str, ...]  # keys of ``sources.SOURCES``
    computed: str = ""  # the page of this chapter that computes it, where one does


PLACEMENTS = (
    Placement(
        "post-norm",
        "the original Transformer",
        "h = norm(h + F(h))",
        "the stream: RMS one after each block",
        ("transformer-post-norm",),
        "modern-blocks",
    ),
    Placement(
        "pre-norm",
        "GPT-2, LLaMA",
        "h = h + F(norm(h))",
        "what each branch reads; the stream grows",
        ("gpt2-block", "llama-block"),
        "in-the-model",
    ),
    Placement(
        "sandwich",
        "Gemma 2 and 3; Sandwich-LN in CogView",
        "h = h + norm(F(norm(h)))",
        "what each branch reads, and what it adds",
        ("gemma2-sandwich", "gemma3-sandwich", "cogview-sandwich"),
        "modern-blocks",
    ),
    Placement(
        "norm after each branch",
        "OLMo 2",
        "h = h + norm(F(h))",
        "what each branch adds; it reads the raw stream",
        ("olmo2-post-branch",),
    ),
    Placement(
        "QK-norm per head",
        "Gemma 3, Qwen3",
        "norm each head's q and k",
        "every logit, by sqrt(d)",
        ("gemma3-qk-norm", "qwen3-qk-norm"),
        "modern-gains",
    ),
    Placement(
        "QK-norm across heads",
        "OLMo 2",
        "norm q and k over all heads, then split",
        "one head's logit, by H sqrt(d)",
        ("olmo2-qk-norm",),
        "modern-gains",
    ),
    Placement(
        "logit soft-capping",
        "Gemma 2",
        "logits = c tanh(logits / c)",
        "every logit, by the cap c, with no norm",
        ("gemma2-softcap",),
    ),
)


# --- sandwich norm --------------------------------------------------------------------------

ARRANGEMENTS = ("pre-norm", "post-norm", "sandwich")
DEPTH, STREAM_WIDTH, BRANCH_GAIN = 16, 256, 4.0  # branches that amplify what they read four times
FIT_FROM = 4  # the growth law is fitted from this block on


@dataclass(frozen=True)
class Depth:
    """The residual stream's RMS after each block (0: the input), for each arrangement of the norms."""

    blocks: np.ndarray
    stream_rms: dict[str, np.ndarray]

    branch_gain: float = BRANCH_GAIN

    def growth_exponent(self, arrangement: str, first: int = FIT_FROM) -> float:
        """The slope of log RMS against log blocks from block ``first`` on: about 0.5 for a random walk, 0 if fixed.

        The first blocks are left out: there the stream's starting RMS still weighs as much as
        what the blocks have added, and the slope has not settled.
        """
        rms = self.stream_rms[arrangement][first:]
        return float(np.polyfit(np.log(self.blocks[first:]), np.log(rms), 1)[0])

    def reference(self, arrangement: str) -> np.ndarray:
        """The RMS each block's addition predicts, for a stream of RMS one and branches in independent directions.

        Pre-norm adds a branch of RMS ``branch_gain`` (it reads a row of RMS one), sandwich a branch of
        RMS one (its output is normalized), and mean squares of independent directions add:
        sqrt(1 + g**2 L) and sqrt(1 + L). Post-norm renormalizes the stream itself: one.
        """
        step = {"pre-norm": self.branch_gain**2, "sandwich": 1.0, "post-norm": 0.0}[arrangement]
        return np.sqrt(1 + step * self.blocks)


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
    return Depth(np.arange(depth + 1), rms, branch_gain)


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
SHARE = 0.0625  # p = 6.25%, a sixteenth of the row: the share the chapter studies
SHARES = (0.01, 0.02, 0.04, SHARE, 0.125, 0.25, 0.5, 1.0)  # p: the share of a row the estimate reads
ROWS = 500  # enough for a median steady to a few percent; the page and its box share the one run


@dataclass(frozen=True)
class PartialRms:
    """The typical relative error of the RMS estimated from the first p of a row, per width."""

    shares: np.ndarray
    median_error: dict[int, np.ndarray]  # width -> median |estimate / RMS - 1| over rows, per share

    def error(self, width: int, share: float = SHARE) -> float:
        """The median error at one width and one of the measured shares."""
        return float(self.median_error[width][int(np.flatnonzero(self.shares == share)[0])])


def values_read(share: float, width: int) -> int:
    """How many of a row's ``width`` values an estimate from the first ``share`` of it reads (at least one)."""
    return max(1, int(share * width))


ROW_KINDS = {  # what a row holds, each as a language model's activations might
    "independent standard normal": "normal",
    "normal, shifted by 1.5 (the history page's rows)": "offset",
    "Student-t, 3 degrees of freedom (heavy tails)": "heavy",
    "normal, with one outlier channel of 60 past the first p": "outlier",
}
OFFSET, TAIL_DEGREES, OUTLIER = 1.5, 3, 60.0


def rows_of(kind: str, rows: int, width: int, rng: np.random.Generator) -> np.ndarray:
    """Seeded rows of one kind: independent normals, shifted ones, heavy-tailed ones, or one fixed outlier channel."""
    if kind == "heavy":
        return rng.standard_t(TAIL_DEGREES, (rows, width))
    x = rng.standard_normal((rows, width))
    if kind == "offset":
        return x + OFFSET
    if kind == "outlier":
        x[:, -1] = OUTLIER  # the same channel in every row, far past the share an estimate reads
    return x


def partial_error(x: np.ndarray, share: float) -> np.ndarray:
    """Each row's |RMS of its first ``share`` / RMS of the whole row - 1|."""
    whole = np.sqrt(np.mean(np.square(x), axis=-1))
    part = np.sqrt(np.mean(np.square(x[:, : values_read(share, x.shape[-1])]), axis=-1))
    return np.abs(part / whole - 1)


@functools.cache
def partial_rms_by_kind(width: int = LLAMA_WIDTHS[0], share: float = SHARE, rows: int = ROWS, seed: int = 0):
    """The median error of the partial RMS at one width and share, for each kind of row.

    The first kind, independent normals, draws first from the same seed as ``partial_rms``, whose
    first width is this one: the same rows, so the chapter shows one error for them, not two.
    """
    rng = np.random.default_rng(seed)
    return {
        name: float(np.median(partial_error(rows_of(kind, rows, width, rng), share)))
        for name, kind in ROW_KINDS.items()
    }


@functools.cache
def partial_rms(widths=LLAMA_WIDTHS, shares=SHARES, rows: int = ROWS, seed: int = 0) -> PartialRms:
    """Rows of independent standard normal values: the RMS of their first p, against the whole row's."""
    rng = np.random.default_rng(seed)
    errors = {}
    for width in widths:
        x = rng.standard_normal((rows, width))
        errors[width] = np.array([np.median(partial_error(x, share)) for share in shares])
    return PartialRms(np.asarray(shares), errors)


def partial_rms_spread(count: int) -> float:
    """The standard deviation of the relative error of an RMS from ``count`` unit normals: sqrt(1 / (2 count))."""
    return float(np.sqrt(1 / (2 * count)))
