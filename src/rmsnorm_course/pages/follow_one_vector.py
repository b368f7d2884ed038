"""Follow one feature vector: the worked example, stage by stage."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import Number, Solution

from ..core.format import fmt, given
from ..studies import evidence, example
from ..studies.evidence import Primary
from ..views.figures import GREY, arrow, for_phones, new_axes, on_phone
from . import COURSE, EPS, G, holds, stages_of

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def values() -> SimpleNamespace:
    primary = evidence.primary()
    worked, small = evidence.normalized_mean_square(example.INPUT), evidence.normalized_mean_square(example.SMALL_INPUT)
    small_times_eps = float(np.mean(np.square(example.SMALL_INPUT))) / example.EPS
    holds(1 - 1e-5 < worked < 1, "just under one for the figure's row")
    holds(small < 0.9, "well under one for the small row")
    return SimpleNamespace(
        primary=primary,
        x=given(primary.x),
        y=fmt(primary.forward.output),
        small=given(example.SMALL_INPUT),
        worked_plateau=fmt(worked),
        small_plateau=fmt(small),
        small_times_eps=f"{small_times_eps:.3g}",
    )


@COURSE.exercise(
    "plateau-value",
    "The mean square of x-hat",
    "Follow the figure's stages for another row: x = {x}, with eps = {eps}. What is the mean square of its "
    "x-hat, mean(x-hat**2)?",
    Number(),
    "Compute the row's mean square, divide x by the root of it plus eps, then average the squares of x-hat.",
    given={"x": example.SMALL_INPUT, "eps": EPS},
    variants=(  # from far above eps to below it, and eps itself changed
        {"x": (1.0, 2.0)},
        {"x": (0.01, 0.02)},
        {"x": (0.001, 0.003)},
        {"x": (3.0, 4.0), "eps": 1.0},
        {"x": (0.001, -0.002), "eps": 1e-6},
    ),
)
def _plateau_value(x, eps) -> Solution:
    forward = stages_of(x, eps=eps)
    value = float(np.mean(np.square(forward.normalized)))
    ms = float(forward.mean_square[0])
    return Solution(
        value,
        f"{ms:g} / ({ms:g} + {eps:g}) = {fmt(value)}: the mean square divided by itself plus eps.",
        slips=(
            (float(np.mean(np.square(forward.normalized * np.asarray(G)))), "That applies the worked example's gain."),
            (1.0, "That is the eps = 0 ideal, exactly one; with eps in the denominator the mean square falls short."),
            (ms, f"That is the mean square of x itself; x-hat is x divided by sqrt({ms:g} + {eps:g})."),
            (
                float(np.sum(np.square(forward.normalized))),
                "That adds x-hat's squares without dividing by d; the mean square is their average.",
            ),
        ),
        detail=(
            f"x-hat of {given(x)} is {fmt(forward.normalized)}. Its mean square falls short of one by "
            f"eps / (ms + eps) = {fmt(1 - value)}; only at eps = 0 is it exactly one."
        ),
    )


@for_phones
def follow_one_vector_figure(primary: Primary) -> Figure:
    """The worked example stage by stage, each box printing its computed values.

    Each kind of box has its own border: solid for the input, dotted for the two
    single numbers, dashed for x-hat, dash-dot for the gain, double for the output.
    Bar lengths are guides; the printed numbers are the values.
    """
    from matplotlib.patches import Rectangle

    f = primary.forward
    stages = (
        ("Input x", primary.x, "-", False, [f"x_{i} = {v:g}" for i, v in enumerate(primary.x)]),  # as typed
        ("Mean square", None, ":", False, [f"m2 = {fmt(f.mean_square[0])}"]),
        ("Reciprocal RMS", None, ":", False, [f"1/rms = {fmt(f.inverse_rms[0])}", f"eps = {primary.eps:g}"]),
        ("RMS-rescaled x-hat", f.normalized, "--", False, [f"x-hat_{i} = {v:.6f}" for i, v in enumerate(f.normalized)]),
        ("Learned gain g", primary.gain, "-.", False, [f"g_{i} = {v:g}" for i, v in enumerate(primary.gain)]),
        ("Output y = g * x-hat", f.output, "-", True, [f"y_{i} = {v:.6f}" for i, v in enumerate(f.output)]),
    )
    # Two rows of three boxes, so the text stays readable at page width: the statistics
    # of x on top, then x-hat, the gain and the output. An arrow runs from x down to x-hat.
    # On a phone, three rows of two: x and its mean square, 1/rms and x-hat, the gain and the output.
    if on_phone():
        places, rows, row_gap = ((0, 0), (1, 0), (1, 1), (0, 1), (0, 2), (1, 2)), 3, 0.9
        links = ((0, 1, "-"), (1, 2, "-"), (2, 3, "--"), (3, 4, "-"), (4, 5, "-"))
    else:
        places, rows, row_gap = ((0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)), 2, 1.0
        links = ((0, 1, "-"), (1, 2, "-"), (3, 4, "-"), (4, 5, "-"), (2, 3, "--"))
    columns = 1 + max(column for column, _ in places)
    width, height, gap = 2.1, 2.3, 0.5
    corner = [(column * (width + gap) + 0.1, 0.3 + (rows - 1 - row) * (height + row_gap)) for column, row in places]
    top = corner[0][1] + height + 0.7
    fig, (ax,) = new_axes(7.4, 6.4 * top / 6.6)
    ax.set_xlim(0, columns * width + (columns - 1) * gap + 0.2)
    ax.set_ylim(0, top)
    ax.axis("off")
    largest = max(float(np.max(np.abs(values))) for _, values, *_ in stages if values is not None)
    for (left, bottom), (title, values, style, double, lines) in zip(corner, stages):
        ax.add_patch(Rectangle((left, bottom), width, height, fill=False, linestyle=style, linewidth=1.6))
        if double:
            ax.add_patch(
                Rectangle((left + 0.07, bottom + 0.07), width - 0.14, height - 0.14, fill=False, linewidth=1.0)
            )
        ax.text(left + width / 2, bottom + height + 0.25, title, ha="center", va="center", fontsize=11, weight="bold")
        for row, line in enumerate(lines):
            line_top = bottom + height - 0.45 - row * 0.8
            ax.text(left + 0.15, line_top, line, ha="left", va="center", fontsize=10.5, family="monospace")
            if values is not None:
                length = (width - 0.3) * abs(float(values[row])) / largest
                ax.add_patch(Rectangle((left + 0.15, line_top - 0.4), length, 0.16, color=GREY, alpha=0.5))
    middle = height / 2
    for first, second, style in links:
        (x0, y0), (x1, y1) = corner[first], corner[second]
        if y0 == y1:  # side by side, either way
            sign = 1 if x1 > x0 else -1
            start = (x0 + (width if sign > 0 else 0) + 0.02 * sign, y0 + middle)
            end = (x1 + (0 if sign > 0 else width) - 0.02 * sign, y0 + middle)
        elif x0 == x1:  # one above the other: to the top of the title below
            start, end = (x0 + width / 2, y0 - 0.05), (x1 + width / 2, y1 + height + 0.5)
        else:  # from the right-hand box above down to the left-hand one below
            start, end = (x0 + 0.2, y0 - 0.05), (x1 + width - 0.2, y1 + height + 0.5)
        arrow(ax, start, end, style=style)
    (x_left, x_bottom), (hat_left, hat_bottom) = corner[0], corner[3]
    arrow(ax, (x_left + width / 2, x_bottom - 0.05), (hat_left + width / 2, hat_bottom + height + 0.5))
    ax.text(
        x_left + width / 2 + 0.1, (x_bottom + hat_bottom + height) / 2 + 0.2, "x times 1/rms", fontsize=10, va="center"
    )
    return fig
