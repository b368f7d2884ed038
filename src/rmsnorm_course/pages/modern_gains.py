"""RMSNorm in today's models, gains and attention: a gain stored as 1 + w, and QK-norm per head or across heads."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from matplotlib.figure import Figure

from predict_check import Number, Solution

from ..studies import modern, precision
from ..studies.modern import Attention, GainDecay
from ..views.figures import BLUE, GREY, ORANGE, SMALLEST_TEXT, for_phones, new_axes
from . import COURSE, EXACT, holds


def values() -> SimpleNamespace:
    decay = modern.gain_decay()
    holds(decay.plain[-1] < 0.5 < 1 < decay.one_plus[-1] < decay.one_plus[0], "plain toward zero, 1 + w toward one")
    at_start = modern.gain_cast_order(trained=False)
    holds(at_start.differ == 0, "at initialisation the two orders give the same bits")
    casts = precision.cast_order()  # the implementation page's measurement: one quantity, one value
    holds(casts.differ > 0, "once the gain has moved, LLaMA's order and Gemma's differ")
    holds(modern.gain_cast_order().max_ulps == casts.max_ulps, "in LLaMA's and Gemma's own code, by as many ulps")
    attention = modern.qk_norm()
    holds(attention.entropy[-1] < 0.01, "without QK-norm each query attends to one key")
    holds(attention.entropy_normed.min() > 0.8 * attention.entropy_normed.max(), "with QK-norm the entropy holds")
    holds(attention.largest_logit_normed.max() <= modern.qk_logit_bound(), "the logits stay under the bound")
    heads = modern.head_lengths()
    holds(np.allclose(heads.per_head, 1.0), "per head, every head's query has length sqrt(d)")
    holds(np.ptp(heads.across_heads) > 0.5, "across heads, one head's length is not fixed")
    return SimpleNamespace(
        rate=f"{modern.DECAY_PER_STEP:g}",
        decay=decay,
        steps=f"{decay.steps[-1]:,}",
        plain_end=f"{decay.plain[-1]:.6f}",  # as the box's verdict gives them
        one_plus_end=f"{decay.one_plus[-1]:.6f}",
        start_values=f"{at_start.values:,}",
        cast_values=f"{casts.values:,}",
        cast_differ=f"{casts.differ:,}",
        cast_ulps=f"{casts.max_ulps:g}",
        width=modern.HEAD_WIDTH,
        positions=modern.POSITIONS,
        attention=attention,
        bound=f"{modern.qk_logit_bound():g}",
        scale_max=f"{attention.scales[-1]:g}",
        logit_max=f"{attention.largest_logit[-1]:,.0f}",
        logit_normed=f"{attention.largest_logit_normed[-1]:.2f}",
        entropy_end=f"{attention.entropy[-1]:.2g}",
        entropy_normed_end=f"{attention.entropy_normed[-1]:.2f}",
        entropy_uniform=f"{attention.uniform_entropy:.2f}",
        heads=modern.HEADS,
        head_lengths=heads,
        shortest_head=f"{heads.across_heads.min():.2f}",
        longest_head=f"{heads.across_heads.max():.2f}",
        bound_across=f"{modern.qk_logit_bound_across_heads():g}",
    )


@COURSE.exercise(
    "one-plus-gain",
    "A 1 + w gain under weight decay",
    "A gain stored as 1 + w has been trained to w = {w}. Weight decay alone then multiplies w by 1 - {rate} at "
    "each step. What is the gain after {steps} steps with no gradient?",
    Number(),
    "Compute w after the steps, (1 - rate) to the power of the steps times w, then add one.",
    given={"w": round(modern.TRAINED_GAIN - 1, 12), "rate": modern.DECAY_PER_STEP, "steps": modern.DECAY_STEPS},
    variants=(
        {"w": 0.5},
        {"w": -0.2, "steps": 500},
        {"w": 0.3, "rate": 1e-4, "steps": 5000},
        {"w": 1.0, "rate": 0.01, "steps": 100},
        {"w": 0.8, "steps": 2000},
    ),
)
def _one_plus_gain(w, rate, steps) -> Solution:
    decay = modern.gain_decay(1 + w, rate, steps)
    exponential = 1 + w * float(np.exp(-rate * steps))
    return Solution(
        float(decay.one_plus[-1]),
        f"w decays to {decay.one_plus[-1] - 1:.6f}, so the gain is {decay.one_plus[-1]:.6f}: it heads for one.",
        slips=(
            (float(decay.plain[-1]), "That is a plain gain decayed; here the decay acts on w, not on 1 + w."),
            (exponential, "That uses exp(-rate * steps) for (1 - rate) to the steps: close, but not at six decimals."),
        ),
        detail=f"A plain gain would decay itself, to {decay.plain[-1]:.6f}, heading for zero.",
    )


@COURSE.exercise(
    "qk-logit-bound",
    "How large a QK-normed logit can be",
    "With RMSNorm on every query and key (gain one, eps = 0), each has length sqrt(d). For head width d = {width}, "
    "what is the largest value the attention logit q . k / sqrt(d) can take?",
    EXACT,
    "q . k is at most |q| |k|, reached when the two point the same way.",
    given={"width": modern.HEAD_WIDTH},
    variants=({"width": 16}, {"width": 144}, {"width": 256}, {"width": 100}, {"width": 36}),  # sqrt(d) exact
)
def _qk_logit_bound(width) -> Solution:
    bound = modern.qk_logit_bound(width)
    return Solution(
        bound,
        f"q . k <= |q| |k| = d, so q . k / sqrt(d) <= sqrt(d) = {bound:g}, whatever the activations' scale.",
        slips=(
            (float(width), "That is q . k itself, before the division by sqrt(d)."),
            (1.0, "Each coordinate of a normalized vector is not at most one; its mean square is one."),
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
    entropy.plot(a.scales, a.entropy, "-", color=ORANGE, marker="o", markersize=3, label="no QK-norm")
    entropy.plot(a.scales, a.entropy_normed, "--", color=BLUE, marker="s", markersize=3, label="QK-norm")
    entropy.axhline(a.uniform_entropy, color=GREY, linestyle=":", linewidth=1, label="attending to all alike")
    entropy.set_xscale("log")
    entropy.set_xlabel("scale of queries and keys (log)")
    entropy.set_ylabel("mean entropy of the attention (nats)")
    entropy.legend(fontsize=SMALLEST_TEXT, loc="lower left")
    logits.plot(a.scales, a.largest_logit, "-", color=ORANGE, marker="o", markersize=3, label="no QK-norm")
    logits.plot(a.scales, a.largest_logit_normed, "--", color=BLUE, marker="s", markersize=3, label="QK-norm")
    logits.set_xscale("log")
    logits.set_yscale("log")
    logits.set_xlabel("scale of queries and keys (log)")
    logits.set_ylabel("largest |q . k| / sqrt(d) (log)")
    logits.legend(fontsize=SMALLEST_TEXT, loc="upper left")
    return fig
