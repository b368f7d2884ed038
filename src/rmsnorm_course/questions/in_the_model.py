"""The boxes of in-the-model.md: RMSNorm inside the model."""

from __future__ import annotations

import numpy as np

from predict_check import RIGHT, Choice, Solution

from ..core.format import fmt
from ..core.layer import RMSNorm
from ..core.parameters import adamw_parameter_groups
from ..studies import example
from ..studies.block import PreNormBlock
from .course import COURSE, EPS, SHAPE_SEED, X_TEXT, G, X

PLACEMENTS = {  # where the norm sits, as the block computes it
    "post": "h = RMSNorm(h + F(h))",
    "pre": "h = h + F(RMSNorm(h))",
    "branch output": "h = h + RMSNorm(F(h))",
    "both paths": "h = RMSNorm(h) + F(RMSNorm(h))",
}


@COURSE.exercise(
    "pre-norm-placement",
    "Where the norm sits in a block",
    "A pre-norm block applies RMSNorm before the residual addition. Which arrangement gives the learned branch F "
    "inputs of a steady scale, and carries the residual stream h on unchanged apart from what F adds?",
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
    "Check each option against both needs: what does F read, and what reaches the next block besides F's output?",
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


DECAY = {  # what differs between two copies of a model, one whose optimizer decays the gains
    "formula": "the outputs at once: the decayed copy's formula has a decay term",
    "gradient": "the gradients at once: decay is added to the decayed gain's loss",
    "optimizer": "nothing before it; then only what the optimizer did to each gain",
    "never": "nothing, ever: the normalization rescales the gain away",
}
DECAY_RATE = 1e-3  # one update's learning rate times weight decay, as the page's code takes it


@COURSE.exercise(
    "no-decay-policy",
    "Who decides weight decay",
    "Two copies of one model start from the same weights. One optimizer puts every RMSNorm gain in AdamW's "
    "weight-decay group; the other leaves the gains out. Fed the same input, what differs between the two "
    "copies' RMSNorm outputs before the first update, and after it?",
    Choice.of(
        {
            DECAY["formula"]: "No term of y = g * x / sqrt(mean(x**2) + eps) involves weight decay.",
            DECAY["gradient"]: (
                "The decay here is decoupled from the gradient: it shrinks the parameter in the update step, so "
                "the loss, and its gradient, is the same function of g in both copies."
            ),
            DECAY["optimizer"]: RIGHT,
            DECAY["never"]: "The gain multiplies after the normalization: a smaller gain gives a smaller output.",
        }
    ),
    "Where does weight decay act: in the forward pass, or in the optimizer's update?",
)
def _no_decay_policy() -> Solution:
    """Both copies' outputs from the package's layer, before and after one update of weight decay alone."""
    layer = RMSNorm(len(X), EPS, example.GAIN_NAME)
    (gain,) = layer.parameters()
    usual = adamw_parameter_groups(layer.parameters())
    decayed = adamw_parameter_groups(layer.parameters(), no_decay=[])
    if usual.no_decay != (example.GAIN_NAME,) or decayed.decay != (example.GAIN_NAME,):
        raise AssertionError(f"the groups {usual} and {decayed} do not show the policy deciding")
    x, g = np.asarray(X), np.asarray(G)
    before = RMSNorm.from_gain(g, EPS)(x), RMSNorm.from_gain(g, EPS)(x)
    after = RMSNorm.from_gain(g * (1 - DECAY_RATE), EPS)(x), RMSNorm.from_gain(g, EPS)(x)
    if not np.array_equal(*before) or np.array_equal(*after):
        raise AssertionError("the two copies should agree before the update and differ after it")
    return Solution(
        DECAY["optimizer"],
        f"Nothing before the first update: both compute {fmt(before[0])} for x = {X_TEXT}. The update then "
        f"multiplies only the decayed copy's gain by 1 - {DECAY_RATE:g}, and its output with it.",
        detail=(
            f"The optimizer's groups decide: by default every parameter with at most one axis, the gain "
            f"{example.GAIN_NAME} (shape {gain.value.shape}) among them, is left undecayed; passing no_decay=[] "
            f"decays it. After one update the decayed copy's output is {fmt(after[0] / after[1])} of the other's."
        ),
    )
