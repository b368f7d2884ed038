"""The boxes of in-the-model.md: RMSNorm inside the model."""

from __future__ import annotations

import numpy as np

from predict_check import RIGHT, Choice, Solution

from ..core.format import fmt
from ..core.layer import RMSNorm
from ..core.parameters import adamw_parameter_groups
from ..studies import example
from ..studies.block import PreNormBlock
from .course import COURSE, EPS, SHAPE_SEED, X

PLACEMENTS = {  # where the norm sits, as the block computes it
    "post": "h = RMSNorm(h + F(h))",
    "pre": "h = h + F(RMSNorm(h))",
    "branch output": "h = h + RMSNorm(F(h))",
    "both paths": "h = RMSNorm(h) + F(RMSNorm(h))",
}


@COURSE.exercise(
    "pre-norm-placement",
    "Where the norm sits in a block",
    "Where does RMSNorm sit in a pre-normalized residual block with learned branch F and residual stream h?",
    Choice.of(
        {
            PLACEMENTS["post"]: "That is post-norm: the norm sits on the stream itself, after each addition.",
            PLACEMENTS["pre"]: RIGHT,
            PLACEMENTS["branch output"]: (
                "Normalizing the branch's output fixes what it adds, but the branch still reads the raw stream."
            ),
            PLACEMENTS["both paths"]: "That replaces the stream by a normalized copy: the identity path no longer "
            "carries h.",
        }
    ),
    "Pre-norm normalizes what the learned branch reads; what does the identity path carry?",
)
def _pre_norm_placement() -> Solution:
    """Each option as a formula, tried against the package's own pre-norm block: the one that reproduces it wins."""
    block = PreNormBlock(len(X), seed=SHAPE_SEED)
    x = np.array([X, example.ANCHOR])  # two positions of a sequence, width d = 2
    trace = block.trace(x)
    norm, branch = block.attention_norm, block.mixing
    candidates = {
        PLACEMENTS["post"]: norm(x + branch(x)),
        PLACEMENTS["pre"]: x + branch(norm(x)),
        PLACEMENTS["branch output"]: x + norm(branch(x)),
        PLACEMENTS["both paths"]: norm(x) + branch(norm(x)),
    }
    matches = [option for option, h in candidates.items() if np.array_equal(h, trace.h)]
    if len(matches) != 1:
        raise AssertionError(f"options {matches} reproduce the block; expected exactly one")
    return Solution(
        matches[0],
        f"{matches[0]}: the branch reads a normalized copy, and the stream itself passes through untouched.",
        detail=(
            "In the chapter's pre-norm block the attention branch reads rows with mean square "
            f"{fmt(np.mean(np.square(trace.attention_input), axis=-1))}, while the stream's rows have "
            f"{fmt(np.mean(np.square(trace.h), axis=-1))} once the branch is added."
        ),
    )


@COURSE.exercise(
    "no-decay-policy",
    "Who decides weight decay",
    "Why is leaving the gain out of weight decay an optimizer policy rather than part of RMSNorm?",
    Choice.of(
        {
            "a term in the formula cancels weight decay for the gain": (
                "No term of y = g * x / sqrt(mean(x**2) + eps) involves weight decay, so nothing cancels it."
            ),
            "the optimizer's parameter groups decide what is decayed": RIGHT,
            "the gain has no gradient, so decay would be its only update": (
                "The gain does get a gradient: each g_i multiplies an output, so the loss depends on it."
            ),
            "weight decay is applied inside the forward pass": (
                "Weight decay shrinks parameters in the optimizer's update step, not in the forward pass."
            ),
        }
    ),
    "Look for weight decay in y = g * x / sqrt(mean(x**2) + eps). Where is it decided?",
)
def _no_decay_policy() -> Solution:
    layer = RMSNorm(len(X), EPS, example.GAIN_NAME)
    (gain,) = layer.parameters()
    usual = adamw_parameter_groups(layer.parameters())
    decayed = adamw_parameter_groups(layer.parameters(), no_decay=[])
    if usual.no_decay != (example.GAIN_NAME,) or decayed.decay != (example.GAIN_NAME,):
        raise AssertionError(f"the groups {usual} and {decayed} do not show the policy deciding")
    return Solution(
        "the optimizer's parameter groups decide what is decayed",
        "The optimizer's groups decide: the formula never mentions weight decay, and computes the same either way.",
        detail=(
            f"By default every parameter of rank one or less, the gain {example.GAIN_NAME} (shape "
            f"{gain.value.shape}) among them, is left undecayed; passing no_decay=[] decays it instead."
        ),
    )
