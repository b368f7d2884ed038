"""The boxes of modern-gains.md: RMSNorm in today's models: gains and attention."""

from __future__ import annotations

import numpy as np

from predict_check import Number, Solution

from ..studies import modern
from .course import COURSE, EXACT


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
