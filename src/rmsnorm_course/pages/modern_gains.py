"""RMSNorm in today's models, gains and attention: a gain stored as 1 + w, and QK-norm per head or across heads."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import Number, Solution

from ..core.rmsnorm import rms_norm
from ..studies import precision, variants
from ..studies.precision import CastOrder
from ..studies.threads import one_blas_thread
from ..views.figures import BLUE, GREY, ORANGE, SMALLEST_TEXT, for_phones, new_axes
from . import COURSE, EPS, EXACT, holds

if TYPE_CHECKING:
    from matplotlib.figure import Figure

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
    measured = []
    for scale in scales:
        q, k = scale * queries, scale * keys
        logits = q @ k.T / np.sqrt(width)
        normed = rms_norm(q, None, EPS) @ rms_norm(k, None, EPS).T / np.sqrt(width)
        measured.append([np.abs(logits).max(), np.abs(normed).max(), _entropy(logits), _entropy(normed)])
    return Attention(np.asarray(scales), *np.array(measured).T, float(np.log(positions)))


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


def values() -> SimpleNamespace:
    decay = gain_decay()
    holds(decay.plain[-1] < 0.5 < 1 < decay.one_plus[-1] < decay.one_plus[0], "plain toward zero, 1 + w toward one")
    at_start = gain_cast_order(trained=False)
    holds(at_start.differ == 0, "at initialisation the two orders give the same bits")
    casts = precision.cast_order()  # the implementation page's measurement: one quantity, one value
    holds(casts.differ > 0, "once the gain has moved, LLaMA's order and Gemma's differ")
    holds(gain_cast_order().max_ulps == casts.max_ulps, "in LLaMA's and Gemma's own code, by as many ulps")
    attention = qk_norm()
    holds(attention.entropy[-1] < 0.01, "without QK-norm each query attends to one key")
    holds(attention.entropy_normed.min() > 0.8 * attention.entropy_normed.max(), "with QK-norm the entropy holds")
    holds(attention.largest_logit_normed.max() <= qk_logit_bound(), "the logits stay under the bound")
    heads = head_lengths()
    holds(np.allclose(heads.per_head, 1.0), "per head, every head's query has length sqrt(d)")
    holds(np.ptp(heads.across_heads) > 0.5, "across heads, one head's length is not fixed")
    return SimpleNamespace(
        rate=f"{DECAY_PER_STEP:g}",
        decay=decay,
        steps=f"{decay.steps[-1]:,}",
        plain_end=f"{decay.plain[-1]:.6f}",  # as the box's verdict gives them
        one_plus_end=f"{decay.one_plus[-1]:.6f}",
        start_values=f"{at_start.values:,}",
        cast_values=f"{casts.values:,}",
        cast_differ=f"{casts.differ:,}",
        cast_ulps=f"{casts.max_ulps:g}",
        width=HEAD_WIDTH,
        positions=POSITIONS,
        attention=attention,
        scale_max=f"{attention.scales[-1]:g}",
        logit_max=f"{attention.largest_logit[-1]:,.0f}",
        logit_normed=f"{attention.largest_logit_normed[-1]:.2f}",
        entropy_end=f"{attention.entropy[-1]:.2g}",
        entropy_normed_end=f"{attention.entropy_normed[-1]:.2f}",
        entropy_uniform=f"{attention.uniform_entropy:.2f}",
        heads=HEADS,
        shortest_head=f"{heads.across_heads.min():.2f}",
        longest_head=f"{heads.across_heads.max():.2f}",
        bound_across=f"{qk_logit_bound_across_heads():g}",
    )


@COURSE.exercise(
    "one-plus-gain",
    "A 1 + w gain under weight decay",
    "A gain stored as 1 + w has been trained to w = {w}. Weight decay alone then multiplies w by 1 - {rate} at "
    "each step. What is the gain after {steps} steps with no gradient?",
    Number(),
    "Compute w after the steps, (1 - rate) to the power of the steps times w, then add one.",
    given={"w": round(TRAINED_GAIN - 1, 12), "rate": DECAY_PER_STEP, "steps": DECAY_STEPS},
    variants=(
        {"w": 0.5},
        {"w": -0.2, "steps": 500},
        {"w": 0.3, "rate": 1e-4, "steps": 5000},
        {"w": 1.0, "rate": 0.01, "steps": 100},
        {"w": 0.8, "steps": 2000},
    ),
)
def _one_plus_gain(w, rate, steps) -> Solution:
    decay = gain_decay(1 + w, rate, steps)
    exponential = 1 + w * float(np.exp(-rate * steps))
    return Solution(
        float(decay.one_plus[-1]),
        f"w decays to {decay.one_plus[-1] - 1:.6f}, so the gain is {decay.one_plus[-1]:.6f}: it heads for one.",
        slips=(
            (float(decay.plain[-1]), "That is a plain gain decayed; here the decay acts on w, not on 1 + w."),
            (exponential, "That uses exp(-rate * steps) for (1 - rate) to the steps: close, but not at six decimals."),
            (float(decay.one_plus[-1] - 1), "That is w after the decay; the gain the norm applies is 1 + w."),
        ),
        detail=f"A plain gain would decay itself, to {decay.plain[-1]:.6f}, heading for zero.",
    )


@COURSE.exercise(
    "qk-logit-bound",
    "How large a QK-normed logit can be",
    "With RMSNorm on every query and key (gain one, eps = 0) and head width d = {width}, what is the largest "
    "value the attention logit q . k / sqrt(d) can take?",
    EXACT,
    "A row of RMS one has squares summing to d; q . k is at most |q| |k|, reached when the two point the same way.",
    given={"width": HEAD_WIDTH},
    variants=({"width": 16}, {"width": 144}, {"width": 256}, {"width": 100}, {"width": 36}),  # sqrt(d) exact
)
def _qk_logit_bound(width) -> Solution:
    bound = qk_logit_bound(width)
    return Solution(
        bound,
        f"q . k <= |q| |k| = d, so q . k / sqrt(d) <= sqrt(d) = {bound:g}, whatever the activations' scale.",
        slips=(
            (float(width), "That is q . k itself, before the division by sqrt(d)."),
            (1.0, "Each coordinate of a normalized vector is not at most one; its mean square is one."),
            (1 / bound, "That takes q and k as unit vectors; RMSNorm gives each the length sqrt(d), not one."),
        ),
        detail="Without the norm, logits grow with the square of the activations' scale; with it, never past this.",
    )


@for_phones
def gain_decay_figure(decay: GainDecay) -> Figure:
    """Weight decay alone, step by step: a plain gain heads for zero, a gain stored as 1 + w for one."""
    fig, (ax,) = new_axes(7.2, 3.6)
    ax.plot(decay.steps, decay.plain, "-", color=ORANGE, linewidth=2, label="plain gain g: decays toward 0")
    ax.plot(decay.steps, decay.one_plus, "--", color=BLUE, linewidth=2, label="gain 1 + w: w decays, gain toward 1")
    ax.axhline(1.0, color=GREY, linestyle=":", linewidth=1, label="the gain at initialisation")
    ax.set_ylim(0, 1.45)
    ax.set_xlabel("decay step (no gradient)")
    ax.set_ylabel("the gain the norm applies")
    ax.legend(fontsize=SMALLEST_TEXT, loc="lower left")
    return fig


@for_phones
def qk_norm_figure(a: Attention) -> Figure:
    """The softmax's entropy as queries and keys grow, without and with QK-norm; and the largest logit."""
    fig, (entropy, logits) = new_axes(9.0, 3.6, columns=2)
    for ax, without, normed in (
        (entropy, a.entropy, a.entropy_normed),
        (logits, a.largest_logit, a.largest_logit_normed),
    ):
        ax.plot(a.scales, without, "-", color=ORANGE, marker="o", markersize=3, label="no QK-norm")
        ax.plot(a.scales, normed, "--", color=BLUE, marker="s", markersize=3, label="QK-norm")
        ax.set_xscale("log")
        ax.set_xlabel("scale of queries and keys (log)")
    entropy.axhline(a.uniform_entropy, color=GREY, linestyle=":", linewidth=1, label="attending to all alike")
    entropy.set_ylabel("mean entropy of the attention (nats)")
    entropy.legend(fontsize=SMALLEST_TEXT, loc="lower left")
    logits.set_yscale("log")
    logits.set_ylabel("largest |q . k| / sqrt(d) (log)")
    logits.legend(fontsize=SMALLEST_TEXT, loc="upper left")
    return fig
