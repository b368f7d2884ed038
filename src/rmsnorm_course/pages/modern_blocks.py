"""RMSNorm in today's models, where the norms sit: the arrangements of today's models, and sandwich norms."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from IPython.display import Markdown
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from predict_check import RIGHT, Choice, Solution

from ..studies import modern
from ..studies.modern import Depth
from ..studies.sources import SOURCES
from ..views.figures import GREY, SMALLEST_TEXT, STYLES, for_phones, new_axes, on_phone
from ..views.tables import markdown_table
from . import COURSE, holds


def values() -> SimpleNamespace:
    depth = modern.stream_through_depth()
    for arrangement in ("pre-norm", "sandwich"):
        holds(abs(depth.growth_exponent(arrangement) - 0.5) < 0.1, f"{arrangement} grows as the square root")
        relative = np.abs(
            depth.stream_rms[arrangement][modern.FIT_FROM :] / depth.reference(arrangement)[modern.FIT_FROM :] - 1
        )
        holds(relative.max() < 0.15, f"{arrangement} follows its reference")
    holds(depth.growth_exponent("post-norm") < 0.05, "post-norm stays at one")
    return SimpleNamespace(
        depth=modern.DEPTH,
        width=modern.STREAM_WIDTH,
        branch_gain=f"{modern.BRANCH_GAIN:g}",
        step_pre=f"{modern.BRANCH_GAIN**2:g}",
        fit_from=modern.FIT_FROM,
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
    f"added. Over {modern.DEPTH} blocks whose branches amplify {modern.BRANCH_GAIN:g}-fold, in independent "
    "directions, how does the residual stream's RMS grow?",
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
    depth = modern.stream_through_depth()
    exponent = depth.growth_exponent("sandwich")
    nearest = min((0.0, 0.5, 1.0), key=lambda slope: abs(exponent - slope)) if exponent < 1.5 else None
    sandwich = depth.stream_rms["sandwich"]
    return Solution(
        GROWTH[nearest],
        f"As the square root: the stream's RMS goes {sandwich[0]:.2f}, {sandwich[4]:.2f}, {sandwich[-1]:.2f} after "
        f"0, 4 and {modern.DEPTH} blocks.",
        detail=f"A log-log slope of {exponent:.2f}, near the square root's 0.5: each block adds a mean square of one.",
    )


@for_phones
def depth_figure(d: Depth) -> Figure:
    """The residual stream's RMS through the blocks, for pre-norm, post-norm and sandwich norms."""
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


def placements_table() -> Markdown:
    """Where the norms sit in today's models: each arrangement with its formula, its bound and its sources."""
    placements, sources = modern.PLACEMENTS, SOURCES
    return markdown_table(
        ["arrangement", "models", "formula", "what it bounds", "sources", "computed on the page"],
        [
            [
                p.name,
                p.models,
                f"`{p.formula}`",
                p.bounds,
                ", ".join(f"[{key}]({sources[key].url})" for key in p.sources),
                p.computed,
            ]
            for p in placements
        ],
    )
