"""Scale invariance and the epsilon boundary: the plateau, the scale cards, and where eps goes."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import Axis, Place, Solution

from ..core.format import difference, fmt, given
from ..studies import evidence, example
from ..studies.comparison import IMPLEMENTATIONS, PlacementCurves, placement_curves
from ..studies.thresholds import ROUNDING
from ..views.explorer import ExplorerState, normalized_mean_square_curve
from ..views.figures import BLUE, ORANGE, SMALLEST_TEXT, energy_axes, for_phones, new_axes
from ..views.tables import markdown_table
from . import COURSE, EPS, holds

if TYPE_CHECKING:
    from IPython.display import Markdown
    from matplotlib.figure import Figure

PLACEMENT_AXIS = np.logspace(-9, 1, 300)  # down to far below eps, where each slope reaches its limit


def values(scale_min: float, scale_max: float) -> SimpleNamespace:
    """The page's values; the explorer's scale range is the widget's, handed in by the page."""
    x_hat_mean_square, ratio = evidence.primary().plateau
    holds(abs(x_hat_mean_square - ratio) <= ROUNDING, "mean(x-hat^2) = ms / (ms + eps)")
    ideal, production, near_zero = cards = evidence.scale_cards()
    tiny_ms = float(np.mean(np.square(near_zero.x)))
    largest = float(np.max(np.abs(near_zero.original)))
    holds(ideal.max_difference < 1e-15 and production.max_difference < 1e-6, "the ideal and production cards")
    holds(tiny_ms < near_zero.eps and near_zero.max_difference > largest, "the near-zero card moves past its size")
    fallen = float(np.sqrt(EPS * example.FALLEN_TO / (1 - example.FALLEN_TO)))
    fallen_to = evidence.normalized_mean_square([fallen])
    holds(abs(fallen / np.sqrt(EPS) - 2) < 1e-9, "twice sqrt(eps)")
    holds(abs(fallen_to - example.FALLEN_TO) <= ROUNDING, "has fallen to the level asked")
    float32_eps, float16_eps = float(np.finfo(np.float32).eps), float(np.finfo(np.float16).eps)
    curves = placement_curves(PLACEMENT_AXIS, EPS)
    holds(abs(curves.inside_slope[0] * np.sqrt(EPS) - 1) < 1e-3, "the slope inside is 1/sqrt(eps)")
    holds(abs(curves.outside_slope[0] * EPS - 1) < 1e-3, "the slope outside is 1/eps")
    return SimpleNamespace(
        eps=f"{EPS:g}",
        eps_value=EPS,
        scale_min=f"{scale_min:g}",
        scale_max=f"{scale_max:g}",
        sqrt_eps=f"{np.sqrt(EPS):.6f}",
        ratio=fmt(ratio),
        factor=f"{example.SCALE_FACTOR:g}",
        cards=cards,
        fallen_rms=f"{fallen:.6f}",
        fallen_to=f"{example.FALLEN_TO:g}",
        tiny_ms=f"{tiny_ms:.3g}",
        tiny_moves=difference(near_zero.max_difference),
        tiny_largest=fmt(largest),
        tiny_times=f"{near_zero.max_difference / largest:.1f}",
        curves=curves,
        place_r0=f"{PLACEMENT_AXIS[0]:g}",
        inside_slope0=f"{curves.inside_slope[0]:.4g}",
        outside_slope0=f"{curves.outside_slope[0]:.4g}",
        inv_sqrt_eps=f"{1 / np.sqrt(EPS):.4g}",
        inv_eps=f"{1 / EPS:.4g}",
        float32_eps=f"{float32_eps:.3g}",
        float16_eps=f"{float16_eps:.3g}",
        docstring_times=f"{float16_eps / float32_eps:g}",
    )


RMS_AXIS = Axis(1e-6, 1.0, "log", "RMS of the input (log scale)")


@COURSE.exercise(
    "crossover-rms",
    "Where x-hat's mean square has fallen",
    "For eps = {eps}, at what RMS of the input has x-hat's mean square, mean(x-hat**2), fallen to {level}?",
    Place(RMS_AXIS, tolerance=0.15),
    "Set ms / (ms + eps) equal to the level and solve for ms; the RMS is its square root.",
    given={"eps": EPS, "level": example.FALLEN_TO},
    variants=(  # none at 1e-3, where the marker starts
        {"eps": 1e-6, "level": 0.8},
        {"eps": 1e-4, "level": 0.5},
        {"eps": 1e-3, "level": 0.9},
        {"eps": 1e-8, "level": 0.2},
        {"eps": 1e-2, "level": 0.5},
    ),
)
def _crossover_rms(eps, level) -> Solution:
    times_eps = level / (1 - level)  # ms / (ms + eps) = level  <=>  ms = eps * level / (1 - level)
    rms = float(np.sqrt(times_eps * eps))
    reached = evidence.normalized_mean_square([rms], eps)
    axis = np.geomspace(RMS_AXIS.low, RMS_AXIS.high, 61)
    curve = normalized_mean_square_curve(axis, eps)
    slips = [
        (times_eps * eps, "That is the mean square; the axis is its square root, the RMS."),
        (0.0, "Without eps, x-hat's mean square is 1 at every RMS above zero: eps is what makes it fall."),
    ]
    if times_eps != 1:
        slips.append((float(np.sqrt(eps)), "That is where eps takes half; this level asks for another mean square."))
    return Solution(
        rms,
        f"ms / (ms + eps) = {level:g} when ms = {times_eps:g} * eps = {times_eps * eps:.3g}, so the RMS is {rms:.4g}.",
        slips=tuple(slips),
        detail=f"rms_norm of [{rms:.4g}] gives mean(x-hat**2) = {fmt(reached)}.",
        picture={
            "curve": [[float(r), float(y)] for r, y in zip(axis, curve, strict=True)],
            "level": level,
            "y": "mean(x-hat**2)",
        },
    )


@for_phones
def normalized_mean_square_figure(eps_values=(1e-8, EPS, 1e-2), state: ExplorerState | None = None) -> Figure:
    """mean(x-hat**2) = ms / (ms + eps) against the input's RMS: near 1 for signals, near 0 for tiny inputs."""
    fig, (ax,) = new_axes(6.4, 3.6)
    energy_axes(ax, eps_values, state)
    return fig


@for_phones
def eps_placement_figure(curves: PlacementCurves, eps: float) -> Figure:
    """Output RMS and its slope near zero, eps inside versus outside the square root."""
    fig, (values, slopes) = new_axes(9.0, 3.4, columns=2)
    for ax, inside, outside, label in (
        (values, curves.inside, curves.outside, "RMS of the output"),
        (slopes, curves.inside_slope, curves.outside_slope, "slope d(output RMS) / d(input RMS)"),
    ):
        ax.plot(curves.rms, inside, "-", color=BLUE, label="inside: x / sqrt(ms + eps)")
        ax.plot(curves.rms, outside, "--", color=ORANGE, label="outside: x / (sqrt(ms) + eps)")
        ax.set_xscale("log")
        ax.set_xlabel("RMS of the input (log scale)")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    slopes.set_yscale("log")
    values.legend(fontsize=SMALLEST_TEXT)
    values.set_title(f"eps = {eps:g}", fontsize=10)
    return fig


def scale_cards_table(cards) -> Markdown:
    """Each scale card: x-hat of x and of a*x, and how far apart they are."""
    return markdown_table(
        ["card", "x", "eps", "x-hat(x)", "x-hat(a·x)", "max difference"],
        [
            [c.label, given(c.x), f"{c.eps:g}", fmt(c.original), fmt(c.scaled), difference(c.max_difference)]
            for c in cards
        ],
    )


def implementations_table() -> Markdown:
    return markdown_table(
        ["implementation", "default eps", "where eps goes", "computed in"],
        [[i.name, i.eps, f"`{i.placement}`", i.precision] for i in IMPLEMENTATIONS],
        footer="Sources: " + "; ".join(f"{i.name}: {i.source}" for i in IMPLEMENTATIONS) + ".",
    )
