"""RMSNorm inside the model: a working pre-norm block, and who decides weight decay."""

from __future__ import annotations

from itertools import pairwise
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import RIGHT, Choice, Number, Solution

from ..core.format import fmt
from ..core.layer import RMSNorm
from ..core.parameters import adamw_parameter_groups
from ..studies import example
from ..studies.block import PreNormBlock
from ..views.figures import SMALLEST_TEXT, arrow, for_phones, new_axes
from . import COURSE, EPS, SHAPE_SEED, G, X, holds

if TYPE_CHECKING:
    from matplotlib.figure import Figure

WIDTH, SEED, INPUT_SEED, LOUDER = 8, 0, 1, 100.0  # the page's block, its input, and how much louder the stream gets


def _row_rms(values: np.ndarray) -> np.ndarray:
    return np.sqrt(np.mean(values**2, axis=-1))


def values() -> SimpleNamespace:
    block = PreNormBlock(width=WIDTH, index=0, seed=SEED)
    x = np.random.default_rng(INPUT_SEED).normal(size=(2, 5, WIDTH))
    quiet, loud = block.trace(x), block.trace(LOUDER * x)
    holds(np.allclose(_row_rms(quiet.attention_input), 1, atol=1e-4), "each branch reads rows of RMS close to one")
    holds(np.max(np.abs(loud.attention_input - quiet.attention_input)) < 1e-4, "the branches see almost the same input")
    holds(np.all(_row_rms(loud.out) / _row_rms(quiet.out) > 10), "the identity path carries the larger stream")
    post = block.attention_norm(LOUDER * x + block.mixing(LOUDER * x))
    holds(np.allclose(_row_rms(post), 1, atol=1e-4), "post-norm brings every row of the sum back to RMS one")
    holds(np.all(_row_rms(loud.h) > 10), "pre-norm's stream goes on at the scale it came in with")
    residual = loud.out - block.mixing(loud.attention_input) - block.feed_forward(loud.ffn_input)
    holds(np.allclose(residual, LOUDER * x), "the identity path carries the stream through untouched")
    groups = adamw_parameter_groups(block.parameters())
    holds(groups.no_decay == tuple(f"decoder.block.0.{n}_norm.gain" for n in ("attention", "ffn")), "the gains")
    return SimpleNamespace(block=block, groups=groups)


PLACEMENTS = {  # where the norm sits, as the block computes it
    "post": "h = RMSNorm(h + F(h))",
    "pre": "h = h + F(RMSNorm(h))",
    "branch output": "h = h + RMSNorm(F(h))",
    "both paths": "h = RMSNorm(h) + F(RMSNorm(h))",
}


@COURSE.exercise(
    "pre-norm-placement",
    "Where the norm sits in a block",
    "Pre-norm puts RMSNorm somewhere inside the sum h + F(h). A row of the stream arrives with RMS 100, and the "
    "branch F roughly keeps the scale of what it reads. In which arrangement does F read a row of RMS about 1, "
    "while the row the block hands on keeps an RMS of about 100?",
    Choice.of(
        {
            PLACEMENTS["post"]: "That is post-norm: the sum is renormalized, so the block hands on a row of RMS 1.",
            PLACEMENTS["pre"]: RIGHT,
            PLACEMENTS["branch output"]: (
                "Normalizing the branch's output fixes what it adds, but F still reads the raw row of RMS 100."
            ),
            PLACEMENTS["both paths"]: "Both terms are then rows of RMS about 1: the stream's scale of 100 is lost on "
            "the way.",
        }
    ),
    "Follow the row of RMS 100 through each formula: what does F receive, and what is the RMS of the sum?",
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
    "What decay leaves of the output",
    "Two copies of one model start from the same weights. One optimizer puts every RMSNorm gain in AdamW's "
    "weight-decay group; the other leaves the gains out. Each update multiplies a decayed parameter by "
    "1 - {rate}. After {updates} updates of weight decay alone, fed the same input, the decayed copy's "
    "RMSNorm output is what multiple of the other's?",
    Number(),
    "The output is g times x-hat, and x-hat does not involve the gain: what has happened to g after that many updates?",
    given={"rate": 1e-3, "updates": 1000},  # the learning rate times the decay, per update
    variants=(
        {"rate": 1e-3, "updates": 500},
        {"rate": 1e-4, "updates": 1000},
        {"rate": 2e-3, "updates": 100},
        {"rate": 1e-2, "updates": 50},
        {"rate": 5e-4, "updates": 2000},
    ),
)
def _no_decay_policy(rate, updates) -> Solution:
    """Both copies' outputs from the package's layer, the decayed gain shrunk by each update in turn."""
    layer = RMSNorm(len(X), EPS, example.GAIN_NAME)
    usual = adamw_parameter_groups(layer.parameters())
    decayed = adamw_parameter_groups(layer.parameters(), no_decay=[])
    if usual.no_decay != (example.GAIN_NAME,) or decayed.decay != (example.GAIN_NAME,):
        raise AssertionError(f"the groups {usual} and {decayed} do not show the policy deciding")
    x, g = np.asarray(X), np.asarray(G)
    shrunk = g.copy()
    for _ in range(updates):
        shrunk = shrunk * (1 - rate)
    ratio = RMSNorm.from_gain(shrunk, EPS)(x) / RMSNorm.from_gain(g, EPS)(x)
    if not np.allclose(ratio, ratio[0], rtol=1e-12):
        raise AssertionError(f"the decay should scale every feature alike, not {fmt(ratio)}")
    left = float(ratio[0])
    return Solution(
        left,
        f"(1 - {rate:g})**{updates} = {left:.6f}: the formula has no decay in it, so x-hat is the same in both "
        "copies, and the output scales with the gain the updates shrank.",
        slips=(
            (1 - rate, "That is one update's factor; each update multiplies the gain by it again."),
            (max(1 - rate * updates, 0.0), f"That subtracts {rate:g} {updates:,} times; each update multiplies."),
            (1.0, "The normalization rescales x, not the gain: the gain multiplies after it."),
            (
                float(np.exp(-rate * updates)),
                f"That is e to the power -{rate:g} x {updates:,}, the limit of ever smaller steps; each update "
                f"multiplies by 1 - {rate:g} itself, so raise that to the power {updates:,}.",
            ),
        ),
        detail=(
            "The optimizer's groups decide which copy that is: by default every parameter with at most one axis, "
            "each norm's gain among them, is left undecayed; passing no_decay=[] decays it."
        ),
    )


def _box(ax, x, y, text, width=2.6, height=0.6, colour="white"):
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            boxstyle="round,pad=0.05",
            facecolor=colour,
            edgecolor="black",
            linewidth=1.4,
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=9)


def _aside(ax, x, y, text, ha="left", rotation=0):
    """A diagram's small italic side note: what a path or a box means."""
    ax.text(x, y, text, ha=ha, va="center", fontsize=SMALLEST_TEXT, style="italic", rotation=rotation)


@for_phones
def pre_norm_block_figure() -> Figure:
    """The pre-norm residual block: identity path straight up, each learned branch behind an RMSNorm."""
    fig, (ax,) = new_axes(6.0, 6.4)
    ax.set_xlim(0, 8)
    ax.set_ylim(0, 10)
    ax.axis("off")
    stream, branch = 2.0, 5.6
    _box(ax, stream, 0.6, "x  (residual stream)", width=3.0)
    _box(ax, branch, 2.2, "attention_norm\n(RMSNorm, gain g1)", colour="#DCEBF7")
    _box(ax, branch, 3.6, "attention (mixing)")
    _box(ax, stream, 4.6, "+", width=0.7)
    _box(ax, stream, 5.6, "h", width=1.2)
    _box(ax, branch, 6.4, "ffn_norm\n(RMSNorm, gain g2)", colour="#DCEBF7")
    _box(ax, branch, 7.8, "feed-forward")
    _box(ax, stream, 8.6, "+", width=0.7)
    _box(ax, stream, 9.5, "out", width=1.2)
    arrow(ax, (stream, 0.9), (stream, 4.3))
    arrow(ax, (stream + 0.5, 0.9), (branch, 1.9))
    arrow(ax, (branch, 2.5), (branch, 3.3))
    arrow(ax, (branch, 3.9), (stream + 0.35, 4.6))
    arrow(ax, (stream, 4.9), (stream, 5.3))
    arrow(ax, (stream, 5.9), (stream, 8.3))
    arrow(ax, (stream + 0.6, 5.6), (branch, 6.1))
    arrow(ax, (branch, 6.7), (branch, 7.5))
    arrow(ax, (branch, 8.1), (stream + 0.35, 8.6))
    arrow(ax, (stream, 8.9), (stream, 9.2))
    _aside(ax, stream - 0.25, 2.6, "identity path\n(not normalized)", ha="right")
    _aside(ax, stream - 0.25, 7.1, "identity path", ha="right")
    _aside(ax, branch + 1.4, 2.9, "learned branch", rotation=90)
    _aside(ax, branch + 1.4, 7.1, "learned branch", rotation=90)
    return fig


@for_phones
def post_norm_and_model_figure() -> Figure:
    """Left: a post-norm block, the norm on the stream after each addition. Right: a pre-norm model, end to end."""
    fig, (post, model) = new_axes(9.0, 6.4, columns=2)
    for ax in (post, model):
        ax.set_xlim(0, 8)
        ax.set_ylim(0, 10)
        ax.axis("off")
    stream, branch = 2.4, 5.8
    norm = "#DCEBF7"
    _box(post, stream, 0.6, "x  (residual stream)", width=3.0)
    _box(post, branch, 2.0, "attention (mixing)")
    _box(post, stream, 3.0, "+", width=0.7)
    _box(post, stream, 4.0, "LayerNorm 1", colour=norm, width=2.4)
    _box(post, branch, 5.6, "feed-forward")
    _box(post, stream, 6.6, "+", width=0.7)
    _box(post, stream, 7.6, "LayerNorm 2", colour=norm, width=2.4)
    _box(post, stream, 8.8, "out", width=1.2)
    arrow(post, (stream, 0.9), (stream, 2.7))
    arrow(post, (stream + 0.5, 0.9), (branch, 1.7))
    arrow(post, (branch, 2.3), (stream + 0.35, 3.0))
    arrow(post, (stream, 3.3), (stream, 3.7))
    arrow(post, (stream, 4.3), (stream, 6.3))
    arrow(post, (stream + 0.5, 4.3), (branch, 5.3))
    arrow(post, (branch, 5.9), (stream + 0.35, 6.6))
    arrow(post, (stream, 6.9), (stream, 7.3))
    arrow(post, (stream, 7.9), (stream, 8.5))
    _aside(post, stream - 0.3, 5.2, "every path goes\nthrough a norm", ha="right")
    post.set_title("post-norm block (the original Transformer)", fontsize=10)

    centre = 4.0
    stages = (
        (0.6, "token ids", "white"),
        (1.9, "embedding", "white"),
        (3.6, "pre-norm block 1", "white"),
        (4.8, "...", "white"),
        (6.0, "pre-norm block N", "white"),
        (7.4, "final RMSNorm (norm)", norm),
        (8.7, "output layer -> logits", "white"),
    )
    for y, text, colour in stages:
        _box(model, centre, y, text, width=3.6, colour=colour)
    for (y0, *_), (y1, *_) in pairwise(stages):
        arrow(model, (centre, y0 + 0.3), (centre, y1 - 0.3))
    _aside(model, centre + 2.0, 4.8, "each block: two RMSNorms\non its learned branches")
    _aside(model, centre + 2.0, 7.4, "the one norm on\nthe stream itself")
    model.set_title("a pre-norm model, end to end", fontsize=10)
    return fig
