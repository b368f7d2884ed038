"""RMSNorm in today's models, where the norms sit: the arrangements of today's models, and sandwich norms."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import RIGHT, Choice, Solution

from ..core.rmsnorm import rms_norm
from ..studies.sources import SOURCES
from ..studies.threads import one_blas_thread
from ..views.figures import GREY, SMALLEST_TEXT, STYLES, for_phones, new_axes, on_phone
from ..views.tables import markdown_table
from . import COURSE, holds

if TYPE_CHECKING:
    from IPython.display import Markdown
    from matplotlib.figure import Figure

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
    """Blocks whose branch is a seeded random linear map of gain ``branch_gain``, in each arrangement (gains one)."""
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


def values() -> SimpleNamespace:
    depth = stream_through_depth()
    for arrangement in ("pre-norm", "sandwich"):
        holds(abs(depth.growth_exponent(arrangement) - 0.5) < 0.1, f"{arrangement} grows as the square root")
        relative = np.abs(depth.stream_rms[arrangement][FIT_FROM:] / depth.reference(arrangement)[FIT_FROM:] - 1)
        holds(relative.max() < 0.15, f"{arrangement} follows its reference")
    holds(depth.growth_exponent("post-norm") < 0.05, "post-norm stays at one")
    return SimpleNamespace(
        depth=DEPTH,
        width=STREAM_WIDTH,
        branch_gain=f"{BRANCH_GAIN:g}",
        step_pre=f"{BRANCH_GAIN**2:g}",
        fit_from=FIT_FROM,
        stream=depth,
        pre_end=f"{depth.stream_rms['pre-norm'][-1]:.1f}",
        pre_reference=f"{depth.reference('pre-norm')[-1]:.1f}",
        sandwich_end=f"{depth.stream_rms['sandwich'][-1]:.2f}",
        sandwich_reference=f"{depth.reference('sandwich')[-1]:.2f}",
        post_end=f"{depth.stream_rms['post-norm'][-1]:.2f}",
        exponent_pre=f"{depth.growth_exponent('pre-norm'):.2f}",
        exponent_sandwich=f"{depth.growth_exponent('sandwich'):.2f}",
    )


GROWTH = {  # the slope of log RMS against log depth each option names
    0.0: "it stays near one at every depth",
    0.5: "it grows as the square root of the depth",
    1.0: "it grows in proportion to the depth",
    None: "it grows exponentially, by the gain each block",
}


@COURSE.exercise(
    "sandwich-growth",
    "The stream under sandwich norms",
    f"In a sandwich block, h + norm(F(norm(h))), each branch's output is normalized to RMS one before it is "
    f"added. Over {DEPTH} blocks whose branches amplify {BRANCH_GAIN:g}-fold, how does the "
    "residual stream's RMS grow?",
    Choice.of(
        {
            GROWTH[0.0]: "That is post-norm, where the stream itself is normalized; here only the branch is.",
            GROWTH[0.5]: RIGHT,
            GROWTH[1.0]: "Additions of independent directions add in their squares, not in their lengths.",
            GROWTH[None]: "The branch's own gain is undone by the norm after it, before anything is added.",
        }
    ),
    "Add vectors of RMS one in independent directions: what happens to the mean square of the sum?",
)
def _sandwich_growth() -> Solution:
    depth = stream_through_depth()
    exponent = depth.growth_exponent("sandwich")
    nearest = min((0.0, 0.5, 1.0), key=lambda slope: abs(exponent - slope)) if exponent < 1.5 else None
    sandwich = depth.stream_rms["sandwich"]
    return Solution(
        GROWTH[nearest],
        f"As the square root: each block adds a mean square of one, so after {DEPTH} blocks the RMS is near "
        f"sqrt({DEPTH + 1}) = {np.sqrt(DEPTH + 1):.2f}.",
        detail=f"The study's stream goes {sandwich[0]:.2f}, {sandwich[4]:.2f}, {sandwich[-1]:.2f} after 0, 4 and "
        f"{DEPTH} blocks: a log-log slope of {exponent:.2f}, near the square root's 0.5.",
    )


@for_phones
def depth_figure(d: Depth) -> Figure:
    """The residual stream's RMS through the blocks, for pre-norm, post-norm and sandwich norms."""
    from matplotlib.ticker import MaxNLocator

    fig, (ax,) = new_axes(7.2, 3.8)
    for arrangement, (style, colour, marker) in zip(d.stream_rms, STYLES):
        ax.plot(
            d.blocks, d.stream_rms[arrangement], style, color=colour, marker=marker, markersize=4, label=arrangement
        )
    for arrangement, law in (("pre-norm", f"sqrt(1 + {d.branch_gain**2:g} L)"), ("sandwich", "sqrt(1 + L)")):
        ax.plot(d.blocks, d.reference(arrangement), "-", color=GREY, linewidth=4, alpha=0.3, zorder=0)
        ax.annotate(law, (d.blocks[-1], d.reference(arrangement)[-1]), xytext=(-4, 6), textcoords="offset points",
                    ha="right", fontsize=SMALLEST_TEXT, color=GREY)  # fmt: skip
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("block (0: the input)")
    ax.set_ylabel("RMS of the residual stream (log)")
    # below the plot: inside it, the legend would cover the pre-norm curve's first blocks
    fig.legend(fontsize=SMALLEST_TEXT, loc="outside lower center", ncols=1 if on_phone() else 4, frameon=False)
    return fig


SOURCE_NAMES = {  # each source as the table names it: the model or paper whose code or text was read
    "transformer-post-norm": "Vaswani et al. 2017",
    "gpt2-block": "GPT-2",
    "llama-block": "LLaMA",
    "gemma2-sandwich": "Gemma 2",
    "gemma3-sandwich": "Gemma 3",
    "cogview-sandwich": "CogView",
    "olmo2-post-branch": "OLMo 2",
    "gemma3-qk-norm": "Gemma 3",
    "qwen3-qk-norm": "Qwen3",
    "olmo2-qk-norm": "OLMo 2",
    "gemma2-softcap": "Gemma 2",
}
PAGE_LINKS = {  # a page of the chapter as the table links it, by its title
    "in-the-model": "[RMSNorm inside the model](in-the-model.md)",
    "modern-gains": "[gains and attention](modern-gains.md)",
    "modern-blocks": "this page, below",
}


def placements_table() -> Markdown:
    """Where the norms sit in today's models: each arrangement with its formula, its bound and its sources."""
    return markdown_table(
        ["arrangement", "models", "formula", "what it bounds", "read in", "computed on"],
        [
            [
                p.name,
                p.models,
                f"`{p.formula}`",
                p.bounds,
                ", ".join(f"[{SOURCE_NAMES[key]}]({SOURCES[key].url})" for key in p.sources),
                PAGE_LINKS.get(p.computed, ""),
            ]
            for p in PLACEMENTS
        ],
    )
