"""Every figure in the chapter, drawn from computed values.

Each function returns a closed matplotlib Figure (so a notebook shows it once,
as the cell's value). Lines differ by style and marker as well as colour, so
every figure reads in greyscale.

A figure the book shows is drawn twice: at page width, and for a phone, where its
panels are stacked one above the other at ``PHONE_WIDTH`` (the same function, run
with ``new_axes`` laying out a narrow column). A notebook shows the page-width figure
as a PNG; the page gets both, as a ``<picture>`` whose phone source a screen up to
``PHONE_SCREEN`` wide chooses (``book/_ext/phone_figures.py`` turns it into an image
file beside the page-width one).
"""

from __future__ import annotations

import base64
import functools
import html
import io
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from itertools import pairwise

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle
from matplotlib.ticker import MaxNLocator

from ..core.format import binary_size, fmt
from ..model.measurements import Measurements as RealMeasurements
from ..perf.roofline import Roofline
from ..perf.timings import BACKWARD, FORWARD, SizeSweep
from ..studies.comparison import ActivationComparison, PlacementCurves
from ..studies.evidence import Primary
from ..studies.example import EPS
from ..studies.geometry import Geometry, GradientPicture
from ..studies.modern import Attention, Depth, GainDecay, Kernel, PartialRms
from ..studies.precision import Sweep
from ..studies.training import Run
from .explorer import BAR_HEADROOM, RMS_WINDOW, ExplorerState, bar_limit, normalized_mean_square_curve

# The figures' own style, set where a figure is drawn and saved, never on import: a notebook
# that imports this module keeps its own matplotlib settings.
STYLE = {"figure.dpi": 100, "font.size": 10}
SMALLEST_TEXT = 9  # points: no text in any figure is smaller (12.5 px at the figures' 100 dpi)
WIDEST = 9.2  # inches, as saved (cropped to the ink): the page's 670 px column at 1280 px shows it at 0.73 of its size
# A phone's column is 358 px at 390 px: a figure drawn 4.6 inches wide, cropped to its ink, is shown at
# about 0.78 of its size there, so its 9-point text stays above 9 px.
PHONE_WIDTH = 4.6  # inches
PHONE_WIDEST = 4.9  # inches, as saved: labels outside the axes may widen it a little
PHONE_SCREEN = "screen and (max-width: 800px)"  # where the page shows the phone drawing (never in print)


# A colour-blind-safe palette (Okabe and Ito), always paired with a line style.
BLUE, ORANGE, GREEN, PURPLE, GREY = "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#555555"
STYLES = (("-", BLUE, "o"), ("--", ORANGE, "s"), (":", GREEN, "^"), ("-.", PURPLE, "D"))
RMS_AXIS = np.geomspace(*RMS_WINDOW, 400)


def png_bytes(fig: Figure, cropped: bool = False) -> bytes:
    """The figure as PNG bytes, with no timestamp or version in them (the same bytes every build).

    ``cropped``: cut to its ink, as a notebook shows a figure.
    """
    buffer = io.BytesIO()
    with matplotlib.rc_context(STYLE):
        fig.savefig(buffer, format="png", metadata={"Software": None}, bbox_inches="tight" if cropped else None)
    return buffer.getvalue()


def styled(draw: Callable[..., Figure]) -> Callable[..., Figure]:
    """``draw``, run in the figures' style."""

    @functools.wraps(draw)
    def in_style(*args, **kwargs) -> Figure:
        with matplotlib.rc_context(STYLE):
            return draw(*args, **kwargs)

    return in_style


_PHONE: ContextVar[bool] = ContextVar("phone", default=False)  # drawing the phone's version


def new_axes(width: float, height: float, columns: int = 1) -> tuple[Figure, list]:
    """A figure of ``columns`` panels side by side; for a phone, stacked in one narrow column."""
    shape, size = ((columns, 1), (PHONE_WIDTH, height * columns)) if _PHONE.get() else ((1, columns), (width, height))
    fig, axes = plt.subplots(*shape, figsize=size, layout="constrained", squeeze=False, FigureClass=PageFigure)
    plt.close(fig)
    return fig, list(axes.ravel())


def _on_phone() -> bool:
    """Whether the figure being drawn is the phone's version."""
    return _PHONE.get()


def _legend(ax, **where) -> None:
    """The axes' legend where ``where`` puts it; on a phone's narrower plot, below a lone plot, clear of its lines."""
    if _on_phone() and len(ax.figure.axes) == 1:
        ax.figure.legend(fontsize=SMALLEST_TEXT, loc="outside lower center", ncols=1, frameon=False)
    else:
        ax.legend(fontsize=SMALLEST_TEXT, **where)


def picture_html(wide: Figure, phone: Figure, alt: str) -> str:
    """``<picture>``: the phone's drawing on a narrow screen, the page-width one elsewhere and in print."""
    source, image = (base64.b64encode(png_bytes(fig, cropped=True)).decode("ascii") for fig in (phone, wide))
    return (
        f'<picture class="rmsnorm-figure"><source media="{PHONE_SCREEN}" srcset="data:image/png;base64,{source}">'
        f'<img src="data:image/png;base64,{image}" alt="{html.escape(alt)}"></picture>'
    )


class PageFigure(Figure):
    """A Figure that knows how to draw itself for a phone (``phone``), and shows both in a page."""

    phone: Callable[[], Figure] | None = None
    alt = ""

    def _repr_mimebundle_(self, include=None, exclude=None):
        # IPython adds the PNG from matplotlib's own display hook beside this
        return {"text/html": picture_html(self, self.phone(), self.alt)} if self.phone else None


def _for_phones(draw: Callable[..., Figure]) -> Callable[..., Figure]:
    """``draw`` returns its page-width figure, which can draw its phone version with the same arguments."""
    draw = styled(draw)

    @functools.wraps(draw)
    def page_width(*args, **kwargs) -> Figure:
        fig = draw(*args, **kwargs)
        fig.alt = (draw.__doc__ or "").strip().splitlines()[0]

        def phone() -> Figure:
            token = _PHONE.set(True)
            try:
                return draw(*args, **kwargs)
            finally:
                _PHONE.reset(token)

        fig.phone = phone
        return fig

    return page_width


@_for_phones
def normalized_mean_square_figure(eps_values=(1e-8, EPS, 1e-2), state: ExplorerState | None = None) -> Figure:
    """mean(x-hat**2) = ms / (ms + eps) against the input's RMS: near 1 for signals, near 0 for tiny inputs."""
    fig, (ax,) = new_axes(6.4, 3.6)
    _energy_axes(ax, eps_values, state)
    return fig


def _energy_axes(ax, eps_values, state: ExplorerState | None) -> None:
    for eps, (style, colour, _) in zip(eps_values, STYLES):
        ax.plot(RMS_AXIS, normalized_mean_square_curve(RMS_AXIS, eps), style, color=colour, label=f"eps = {eps:g}")
        if eps > 0:
            ax.axvline(np.sqrt(eps), color=colour, linestyle=style, linewidth=0.6, alpha=0.6)
    if state is not None:
        _marker(ax, state)
    ax.set_xscale("log")
    ax.set_xlim(*RMS_WINDOW)
    ax.set_ylim(-0.03, 1.05)
    ax.set_xlabel("RMS of the input (log scale)")
    ax.set_ylabel("mean of x-hat squared")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="lower right", fontsize=SMALLEST_TEXT)


def _marker(ax, state: ExplorerState) -> None:
    """a·x on the curve; past the axis's end, a triangle at that edge pointing the way, with the true RMS."""
    label = f"a·x: RMS {state.scaled_rms:.3g}"
    if state.off_axis is None:
        ax.plot(
            [state.scaled_rms], [state.scaled_normalized_mean_square], "X", color="black", markersize=10, label=label
        )
        return
    # just inside the frame at that edge, and clear of the axes' tick labels
    edge = RMS_WINDOW[0] * 2.5 if state.off_axis == "left" else RMS_WINDOW[1] / 2.5
    symbol = "<" if state.off_axis == "left" else ">"
    ax.plot(
        [edge],
        [min(max(state.scaled_normalized_mean_square, 0.05), 0.97)],
        symbol,
        color="black",
        markersize=10,
        label=f"{label}, off the axis to the {state.off_axis}",
    )


@_for_phones
def explorer_figure(state: ExplorerState) -> Figure:
    """The explorer's picture: x-hat of x beside x-hat of a·x, and where a·x sits on the curve."""
    fig, (bars, curve) = new_axes(9.0, 3.4, columns=2)
    index = np.arange(state.x.size)
    bars.bar(index - 0.2, state.normalized, 0.4, color=BLUE, edgecolor="black", label="x-hat(x)")
    bars.bar(
        index + 0.2,
        state.scaled_normalized,
        0.4,
        color="white",
        edgecolor=ORANGE,
        hatch="//",
        label=f"x-hat(a·x), a = {state.scale:.3g}",
    )
    bars.axhline(0, color=GREY, linewidth=0.8)
    limit = BAR_HEADROOM * bar_limit(state.vector)
    bars.set_ylim(-limit if np.any(state.x < 0) else 0.0, limit)
    bars.set_xticks(index)
    bars.set_xlabel("coordinate i")
    bars.set_ylabel("x-hat_i (before the gain)")
    bars.set_title(f"eps = {state.eps:g}: max difference {state.max_difference:.3g}", fontsize=10)
    bars.legend(fontsize=SMALLEST_TEXT)
    _energy_axes(curve, (state.eps,), state)
    return fig


@_for_phones
def activation_histograms(comparison: ActivationComparison, bins: int = 120) -> Figure:
    """Input, RMSNorm output and LayerNorm output of the same activations, overlapping."""
    fig, (ax,) = new_axes(6.8, 3.6)
    edges = np.linspace(-5, 7, bins + 1)
    series = (("input", comparison.inputs), ("RMSNorm", comparison.rms_normed), ("LayerNorm", comparison.layer_normed))
    for (label, values), (style, colour, _) in zip(series, STYLES):
        outline = {"histtype": "step", "linestyle": style, "color": colour, "linewidth": 1.6}
        ax.hist(values.ravel(), bins=edges, density=True, label=f"{label} (mean {np.mean(values):.2f})", **outline)
    ax.set_xlabel("activation value")
    ax.set_ylabel("density")
    _legend(ax)
    ax.grid(True, alpha=0.3)
    return fig


@_for_phones
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


def _box(ax, x, y, text, width=2.6, height=0.6, style="-", double=False, colour="white"):
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            boxstyle="round,pad=0.05",
            facecolor=colour,
            edgecolor="black",
            linestyle=style,
            linewidth=1.4,
        )
    )
    if double:
        inset = 0.07
        ax.add_patch(
            FancyBboxPatch(
                (x - width / 2 + inset, y - height / 2 + inset),
                width - 2 * inset,
                height - 2 * inset,
                boxstyle="round,pad=0.05",
                facecolor="none",
                edgecolor="black",
                linewidth=1.0,
            )
        )
    ax.text(x, y, text, ha="center", va="center", fontsize=9)


def _arrow(ax, start, end, style="-"):
    ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            arrowstyle="-|>",
            mutation_scale=12,
            linestyle=style,
            color="black",
            linewidth=1.2,
            shrinkA=2,
            shrinkB=2,
        )
    )


def _aside(ax, x, y, text, ha="left", rotation=0):
    """A diagram's small italic side note: what a path or a box means."""
    ax.text(x, y, text, ha=ha, va="center", fontsize=SMALLEST_TEXT, style="italic", rotation=rotation)


@_for_phones
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
    _arrow(ax, (stream, 0.9), (stream, 4.3))
    _arrow(ax, (stream + 0.5, 0.9), (branch, 1.9))
    _arrow(ax, (branch, 2.5), (branch, 3.3))
    _arrow(ax, (branch, 3.9), (stream + 0.35, 4.6))
    _arrow(ax, (stream, 4.9), (stream, 5.3))
    _arrow(ax, (stream, 5.9), (stream, 8.3))
    _arrow(ax, (stream + 0.6, 5.6), (branch, 6.1))
    _arrow(ax, (branch, 6.7), (branch, 7.5))
    _arrow(ax, (branch, 8.1), (stream + 0.35, 8.6))
    _arrow(ax, (stream, 8.9), (stream, 9.2))
    _aside(ax, stream - 0.25, 2.6, "identity path\n(not normalized)", ha="right")
    _aside(ax, stream - 0.25, 7.1, "identity path", ha="right")
    _aside(ax, branch + 1.4, 2.9, "learned branch", rotation=90)
    _aside(ax, branch + 1.4, 7.1, "learned branch", rotation=90)
    return fig


@_for_phones
def follow_one_vector_figure(primary: Primary) -> Figure:
    """The worked example stage by stage, each box printing its computed values.

    Each kind of box has its own border: solid for the input, dotted for the two
    single numbers, dashed for x-hat, dash-dot for the gain, double for the output.
    Bar lengths are guides; the printed numbers are the values.
    """
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
    if _on_phone():
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
        _arrow(ax, start, end, style=style)
    (x_left, x_bottom), (hat_left, hat_bottom) = corner[0], corner[3]
    _arrow(ax, (x_left + width / 2, x_bottom - 0.05), (hat_left + width / 2, hat_bottom + height + 0.5))
    ax.text(
        x_left + width / 2 + 0.1, (x_bottom + hat_bottom + height) / 2 + 0.2, "x times 1/rms", fontsize=10, va="center"
    )
    return fig


@_for_phones
def cost_ratios_figure(ratios) -> Figure:
    """Horizontal bars: each implementation's time as a multiple of one copy of x, forward and backward."""
    fig, axes = new_axes(9.0, 3.2, columns=2)
    for ax, direction in zip(axes, (FORWARD, BACKWARD)):
        names = list(ratios[direction])
        values = [ratios[direction][n] for n in names]
        bars = ax.barh(names, values, color=[GREY if "copy" in n else BLUE for n in names])
        for bar, name in zip(bars, names):
            bar.set_hatch("//" if "copy" in name else "")
        ax.axvline(1.0, color=GREY, linewidth=0.8, linestyle="--")
        ax.invert_yaxis()
        ax.set_xlabel("time as a multiple of one copy of x")
        ax.set_title(direction)
    axes[0].set_ylabel("implementation")
    return fig


@_for_phones
def size_sweep_figure(sweep: SizeSweep) -> Figure:
    """Forward nanoseconds per element against input size: where the fast path wins and where it loses."""
    fig, (ax,) = new_axes(7.2, 3.6)
    megabytes = sweep.nbytes / 2**20
    for name, (style, colour, marker) in zip(sweep.seconds, STYLES):
        ax.plot(megabytes, sweep.nanoseconds_per_element(name), style, marker=marker, color=colour, label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(megabytes, [binary_size(n) for n in sweep.nbytes])
    # slanted, so the labels of sizes an octave apart (16 MiB, 32 MiB) do not run into each other
    ax.tick_params(axis="x", labelrotation=45)
    for label in ax.get_xticklabels():
        label.set(horizontalalignment="right", rotation_mode="anchor")
    ax.set_xlabel("size of x (float32)")
    ax.set_ylabel("forward time per element (ns)")
    ax.grid(True, which="major", alpha=0.3)
    fig.legend(fontsize=SMALLEST_TEXT, loc="outside lower center", ncols=2, frameon=False)  # clear of every line
    return fig


@_for_phones
def precision_sweep_figure(result: Sweep) -> Figure:
    """Worst error per decade, package against formula; rows with no finite answer drawn on the top line."""
    ceiling = 1e9
    fig, (ax,) = new_axes(8.0, 3.2)
    formula = np.minimum(result.formula_ulps, ceiling)
    ax.plot(result.exponents, formula, "x", color=ORANGE, label="formula as written")
    ax.plot(result.exponents, result.package_ulps, "o", color=BLUE, label="rms_norm")
    ax.axhline(ceiling, color=GREY, linewidth=0.8, linestyle=":")
    ax.text(result.exponents[0], ceiling * 2, "no finite answer", fontsize=SMALLEST_TEXT, color=GREY)
    ax.set_yscale("symlog", linthresh=1)
    ax.set_ylim(0, ceiling * 20)
    ax.set_xlabel("decade of the row's values (log10 of magnitude)")
    ax.set_ylabel("worst error (ulps)")
    ax.legend(loc="center right")
    return fig


@_for_phones
def training_figure(runs: dict[str, Run]) -> Figure:
    """Loss per step, and the residual stream's RMS after each block before and after training."""
    fig, (losses, stream) = new_axes(8.6, 4.0, columns=2)
    for run, (style, colour, marker) in zip(runs.values(), STYLES):
        steps = np.arange(run.losses.size)
        losses.plot(steps, run.losses, style, color=colour, marker=marker, markevery=50, label=run.variant)
        blocks = np.arange(run.stream_rms_before.size)
        stream.plot(
            blocks,
            run.stream_rms_before,
            style,
            color=colour,
            marker=marker,
            markerfacecolor="white",
            label=f"{run.variant}, at the start",
        )
        stream.plot(
            blocks,
            run.stream_rms_after,
            style,
            color=colour,
            marker=marker,
            alpha=0.6,
            label=f"{run.variant}, after training",
        )
    losses.set_yscale("log")
    losses.set_xlabel("training step")
    losses.set_ylabel("mean squared error (log scale)")
    losses.legend(fontsize=SMALLEST_TEXT)
    stream.set_yscale("log")
    stream.set_xlabel("block (0: after the input projection)")
    stream.xaxis.set_major_locator(MaxNLocator(integer=True))  # blocks are whole
    stream.set_ylabel("RMS of the residual stream")
    stream.legend(fontsize=SMALLEST_TEXT, loc="upper left")
    for ax in (losses, stream):
        ax.grid(True, alpha=0.3)
    return fig


def _circle(ax, radius: float, label: str) -> None:
    angles = np.linspace(0, 2 * np.pi, 361)
    ax.plot(radius * np.cos(angles), radius * np.sin(angles), "-", color=GREY, linewidth=1.0, label=label)
    ax.axhline(0, color=GREY, linewidth=0.5)
    ax.axvline(0, color=GREY, linewidth=0.5)
    ax.set_aspect("equal")
    ax.set_xlabel("coordinate 0")
    ax.set_ylabel("coordinate 1")


@_for_phones
def geometry_figure(g: Geometry) -> Figure:
    """Left: inputs and their images on the circle of radius sqrt(2). Right: eps pulls small inputs inside."""
    fig, (maps, shrink) = new_axes(8.6, 5.4, columns=2)
    _circle(maps, g.radius, f"radius sqrt(2) = {g.radius:.4f}")
    ones = np.array([-3.0, 3.0])
    maps.plot(ones, ones, ":", color=GREY, linewidth=1.0, label="all-ones direction")
    maps.plot(
        *g.inputs[1:].T, "o", color=GREY, markersize=4, markerfacecolor="none", label="inputs x (some off the plot)"
    )
    maps.plot(*g.rms_images.T, "o", color=BLUE, markersize=6, label="RMSNorm(x), eps = 0")
    maps.plot(
        *g.layer_images.T,
        "D",
        color=ORANGE,
        markersize=9,
        markerfacecolor="none",
        markeredgewidth=2,
        label="LayerNorm(x), eps = 0",
    )
    maps.plot(*g.rms_images[0], "*", color="black", markersize=14, label="worked example's image")
    maps.annotate("x = [3, 4]\n(off the plot)", xy=(1.9, 2.6), fontsize=SMALLEST_TEXT, ha="center")
    maps.annotate("", xy=g.rms_images[0], xytext=(2.4, 2.9), arrowprops={"arrowstyle": "-|>", "color": "black"})
    maps.set_xlim(-3, 3)
    maps.set_ylim(-3, 3)
    maps.legend(fontsize=SMALLEST_TEXT, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=2)
    maps.set_title("every nonzero input lands on the circle", fontsize=10)

    _circle(shrink, g.radius, "radius sqrt(2)")
    shrink.plot(*g.shrink_images.T, "s-", color=GREEN, markersize=5, label=f"RMSNorm(s·[3, 4]), eps = {g.eps:g}")
    for image, scale in list(zip(g.shrink_images, g.shrink_scales))[:7:2]:
        shrink.annotate(f"s = {scale:.0e}", image, textcoords="offset points", xytext=(8, -10), fontsize=SMALLEST_TEXT)
    shrink.annotate(
        f"s = {g.shrink_scales[-1]:g}",
        g.shrink_images[-1],
        textcoords="offset points",
        xytext=(-38, 4),
        fontsize=SMALLEST_TEXT,
    )
    shrink.set_xlim(-0.2, 1.6)
    shrink.set_ylim(-0.2, 1.6)
    shrink.legend(fontsize=SMALLEST_TEXT, loc="upper left")
    shrink.set_title("with eps, small inputs fall inside", fontsize=10)
    return fig


@_for_phones
def gradient_figure(p: GradientPicture) -> Figure:
    """x-hat on its circle and the gradient with respect to x drawn from it: tangent, no radial part."""
    fig, (ax,) = new_axes(5.2, 4.8)
    radius = float(np.linalg.norm(p.normalized))
    _circle(ax, radius, "circle of radius sqrt(2)")
    direction = p.x / np.linalg.norm(p.x)
    ax.plot([0, 2.2 * direction[0]], [0, 2.2 * direction[1]], "--", color=GREY, label="direction of x")
    ax.plot(*p.normalized, "o", color=BLUE, markersize=8, label="x-hat (eps = 0)")
    # The two arrows coincide (that is the point): the first is drawn wide, the second narrow on top of it.
    arrows = (
        (p.grad_x, "-", ORANGE, 7, 26, "gradient wrt x at x"),
        (p.scale * p.scaled_grad_x, ":", GREEN, 2.5, 14, f"{p.scale:g} times the gradient at {p.scale:g}·x"),
    )
    for vector, style, colour, width, head, label in arrows:
        ax.add_patch(
            FancyArrowPatch(
                tuple(p.normalized),
                tuple(p.normalized + 2 * vector),
                arrowstyle="-|>",
                mutation_scale=head,
                linestyle=style,
                color=colour,
                linewidth=width,
                label=label,
            )
        )
    ax.set_xlim(-0.5, 2.2)
    ax.set_ylim(-0.5, 2.2)
    ax.legend(fontsize=SMALLEST_TEXT, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=2)
    ax.set_title("the gradient is tangent to the circle (drawn at twice its length)", fontsize=SMALLEST_TEXT)
    return fig


AXES = (
    ("BatchNorm", "columns", "mean and variance per feature,\nover the batch"),
    ("LayerNorm", "rows", "mean and variance per example,\nover its features"),
    ("RMSNorm", "rows", "mean square per example,\nover its features"),
)


@_for_phones
def axes_figure(batch: int = 4, features: int = 6) -> Figure:
    """Which cells of a [batch, feature] grid share one statistic, for each normalization."""
    fig, axes = new_axes(9.0, 2.9, columns=3)
    for ax, (name, groups, statistic), (style, colour, _) in zip(axes, AXES, STYLES):
        for row in range(batch):
            for column in range(features):
                ax.add_patch(Rectangle((column, row), 1, 1, facecolor="#F2F2F2", edgecolor="white", linewidth=1))
        count = features if groups == "columns" else batch
        for k in range(count):
            corner, size = ((k, 0), (1, batch)) if groups == "columns" else ((0, k), (features, 1))
            ax.add_patch(
                Rectangle(
                    corner,
                    *size,
                    fill=False,
                    edgecolor=colour,
                    linewidth=2.2,
                    linestyle=style,
                    hatch="//" if k % 2 else "",
                    label="one statistic" if k == 0 else None,
                )
            )
        ax.set_xlim(-0.1, features + 0.1)
        ax.set_ylim(batch + 0.1, -0.1)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel("feature →")
        ax.set_ylabel("example in the batch →")
        ax.set_title(f"{name}\n{statistic}", fontsize=9)
    return fig


@_for_phones
def roofline_figure(r: Roofline) -> Figure:
    """The measured roof, min(peak, bandwidth x intensity), with RMSNorm's forward placed at its intensity."""
    fig, (ax,) = new_axes(7.2, 4.0)
    intensities = np.geomspace(1 / 16, 256, 200)
    giga = 1e9
    ax.plot(
        intensities,
        r.attainable(intensities) / giga,
        "-",
        color=BLUE,
        linewidth=2,
        label=f"roof: {r.bandwidth / giga:.0f} GB/s x intensity, up to {r.peak / giga:.0f} GFLOP/s",
    )
    ax.axvline(r.ridge, color=GREY, linestyle=":", linewidth=1, label=f"ridge: {r.ridge:.1f} flops per byte")
    ax.axvline(
        r.intensity, color=ORANGE, linestyle="--", linewidth=1, label=f"RMSNorm float32: {r.intensity:g} flops per byte"
    )
    ax.plot(
        [r.intensity],
        [r.achieved / giga],
        "s",
        color=ORANGE,
        markersize=9,
        label=f"rms_norm measured: {r.achieved / giga:.1f} GFLOP/s",
    )
    _roofline_axes(ax, "GFLOP/s (log scale)")
    return fig


def _roofline_axes(ax, ylabel: str) -> None:
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flops per byte moved, log scale)")
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", alpha=0.3)
    _legend(ax, loc="lower right")


@_for_phones
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


@_for_phones
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


@_for_phones
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
    fig.legend(fontsize=SMALLEST_TEXT, loc="outside lower center", ncols=1 if _on_phone() else 4, frameon=False)
    return fig


@_for_phones
def fused_roofline_figure(r: Roofline, kernels: Sequence[Kernel]) -> Figure:
    """The measured roof, and where each way of running add + RMSNorm in bfloat16 meets it."""
    fig, (ax,) = new_axes(7.2, 4.0)
    intensities = np.geomspace(1 / 16, 256, 200)
    giga = 1e9
    ax.plot(intensities, r.attainable(intensities) / giga, "-", color=BLUE, linewidth=2, label="this machine's roof")
    for kernel, (_, colour, marker) in zip(kernels, STYLES[1:]):
        at = kernel.intensity()
        ax.plot(
            [at],
            [r.attainable(at) / giga],
            marker,
            color=colour,
            markersize=9,
            label=f"{kernel.name}: {kernel.bytes_per_element()} bytes, {at:.3g} flops per byte",
        )
    _roofline_axes(ax, "GFLOP/s allowed (log scale)")
    return fig


@_for_phones
def partial_rms_figure(p: PartialRms) -> Figure:
    """The median relative error of the RMS estimated from a share p of each row, for LLaMA's widths."""
    fig, (ax,) = new_axes(7.2, 3.8)
    for (width, errors), (style, colour, marker) in zip(p.median_error.items(), STYLES):
        shown = errors > 0
        ax.plot(100 * p.shares[shown], 100 * errors[shown], style, color=colour, marker=marker, label=f"d = {width}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("share of the row read, p (%, log scale)")
    ax.set_ylabel("median error of the RMS (%, log scale)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=SMALLEST_TEXT, loc="upper right")
    return fig


@_for_phones
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
    _arrow(post, (stream, 0.9), (stream, 2.7))
    _arrow(post, (stream + 0.5, 0.9), (branch, 1.7))
    _arrow(post, (branch, 2.3), (stream + 0.35, 3.0))
    _arrow(post, (stream, 3.3), (stream, 3.7))
    _arrow(post, (stream, 4.3), (stream, 6.3))
    _arrow(post, (stream + 0.5, 4.3), (branch, 5.3))
    _arrow(post, (branch, 5.9), (stream + 0.35, 6.6))
    _arrow(post, (stream, 6.9), (stream, 7.3))
    _arrow(post, (stream, 7.9), (stream, 8.5))
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
        _arrow(model, (centre, y0 + 0.3), (centre, y1 - 0.3))
    _aside(model, centre + 2.0, 4.8, "each block: two RMSNorms\non its learned branches")
    _aside(model, centre + 2.0, 7.4, "the one norm on\nthe stream itself")
    model.set_title("a pre-norm model, end to end", fontsize=10)
    return fig


@_for_phones
def real_stream_figure(m: RealMeasurements) -> Figure:
    """SmolLM2-135M's residual stream: its RMS after each block, and the RMS of what each norm hands its branch."""
    fig, (stream, handed) = new_axes(9.0, 3.6, columns=2)
    blocks = np.arange(m.residual_rms.shape[1])
    for prompt, rms, (style, colour, marker) in zip(m.prompts, m.residual_rms, STYLES):
        label = str(prompt) if "\n" not in prompt else str(prompt).split("\n")[0] + " …"
        stream.plot(blocks, rms, style, color=colour, marker=marker, markersize=3, label=f"“{label}”")
    stream.set_yscale("log")
    stream.set_xlabel("block (0: after the embedding)")
    stream.set_ylabel("RMS of the stream, last token (log)")
    norms = np.arange(1, m.output_rms.shape[1] + 1)
    for rms, (style, colour, marker) in zip(m.output_rms, STYLES):
        handed.plot(norms, rms, style, color=colour, marker=marker, markersize=3)
    handed.plot(norms, m.gain_rms, "-", color=GREY, linewidth=4, alpha=0.3, label="RMS of the norm's gain")
    handed.set_yscale("log")
    handed.set_xlabel("norm, in the order they run (61: the final norm)")
    handed.set_ylabel("RMS of what the norm hands on (log)")
    fig.legend(fontsize=SMALLEST_TEXT, loc="outside lower center", ncols=1 if _on_phone() else 3, frameon=False)
    return fig


@_for_phones
def real_gains_figure(m: RealMeasurements) -> Figure:
    """SmolLM2-135M's 61 RMSNorm gains, norm by norm: their mean and the middle 80% of their 576 values."""
    fig, (ax,) = new_axes(7.2, 3.4)
    norms = np.arange(1, len(m.gain_mean) + 1)
    attention = norms % 2 == 1
    attention[-1] = False  # the last is the final norm
    for chosen, label, (_, colour, marker) in (
        (attention, "attention norms", STYLES[0]),
        (~attention, "feed-forward norms and the final norm", STYLES[1]),
    ):
        ax.errorbar(
            norms[chosen],
            m.gain_mean[chosen],
            yerr=[m.gain_mean[chosen] - m.gain_low[chosen], m.gain_high[chosen] - m.gain_mean[chosen]],
            fmt=marker,
            color=colour,
            markersize=4,
            capsize=2,
            label=label,
        )
    ax.axhline(1.0, color=GREY, linestyle=":", linewidth=1)
    ax.set_xlabel("norm, in the order they run (61: the final norm)")
    ax.set_ylabel("gain: mean, and 10th to 90th percentile")
    _legend(ax, loc="upper left")
    return fig
