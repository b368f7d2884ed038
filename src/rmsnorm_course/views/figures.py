"""How every figure in the chapter is drawn: the style, the phone version, the shared axes and the explorer's figure.

Each page's figures are functions in its own module, ``pages/<page>.py``, drawn with
these; each returns a closed matplotlib Figure (so a notebook shows it once, as the
cell's value). Lines differ by style and marker as well as colour, so
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
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING

import numpy as np

from .explorer import BAR_HEADROOM, RMS_WINDOW, ExplorerState, bar_limit, normalized_mean_square_curve

if TYPE_CHECKING:
    from matplotlib.figure import Figure

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
    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context(STYLE):
        fig.savefig(buffer, format="png", metadata={"Software": None}, bbox_inches="tight" if cropped else None)
    return buffer.getvalue()


_PHONE: ContextVar[bool] = ContextVar("phone", default=False)  # drawing the phone's version


def new_axes(width: float, height: float, columns: int = 1) -> tuple[Figure, list]:
    """A figure of ``columns`` panels side by side; for a phone, stacked in one narrow column."""
    import matplotlib.pyplot as plt

    shape, size = ((columns, 1), (PHONE_WIDTH, height * columns)) if _PHONE.get() else ((1, columns), (width, height))
    fig, axes = plt.subplots(*shape, figsize=size, layout="constrained", squeeze=False, FigureClass=page_figure_class())
    plt.close(fig)
    return fig, list(axes.ravel())


def on_phone() -> bool:
    """Whether the figure being drawn is the phone's version."""
    return _PHONE.get()


def legend(ax, **where) -> None:
    """The axes' legend where ``where`` puts it; on a phone's narrower plot, below a lone plot, clear of its lines."""
    if on_phone() and len(ax.figure.axes) == 1:
        ax.figure.legend(fontsize=SMALLEST_TEXT, loc="outside lower center", ncols=1, frameon=False)
    else:
        ax.legend(fontsize=SMALLEST_TEXT, **where)


LEGEND_ROW = 36  # characters of labels, in all, that share one row above the frame; longer, one label a row


def legend_above(ax, title: str | None = None) -> None:
    """The axes' legend in rows above its frame, under its title: wherever the data fall, it covers none of them."""
    labels = ax.get_legend_handles_labels()[1]
    ax.legend(
        loc="lower left",
        bbox_to_anchor=(0, 1.01),
        borderaxespad=0,
        ncols=len(labels) if sum(map(len, labels)) <= LEGEND_ROW else 1,
        frameon=False,
        fontsize=SMALLEST_TEXT,
        title=title,
        title_fontsize=10,
        alignment="left",
    )


def arrow(ax, start, end, style="-"):
    from matplotlib.patches import FancyArrowPatch

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


def circle(ax, radius: float, label: str) -> None:
    angles = np.linspace(0, 2 * np.pi, 361)
    ax.plot(radius * np.cos(angles), radius * np.sin(angles), "-", color=GREY, linewidth=1.0, label=label)
    ax.axhline(0, color=GREY, linewidth=0.5)
    ax.axvline(0, color=GREY, linewidth=0.5)
    ax.set_aspect("equal")
    ax.set_xlabel("coordinate 0")
    ax.set_ylabel("coordinate 1")


def picture_html(wide: Figure, phone: Figure, alt: str) -> str:
    """``<picture>``: the phone's drawing on a narrow screen, the page-width one elsewhere and in print."""
    source, image = (base64.b64encode(png_bytes(fig, cropped=True)).decode("ascii") for fig in (phone, wide))
    return (
        f'<picture class="rmsnorm-figure"><source media="{PHONE_SCREEN}" srcset="data:image/png;base64,{source}">'
        f'<img src="data:image/png;base64,{image}" alt="{html.escape(alt)}"></picture>'
    )


@functools.cache
def page_figure_class() -> type[Figure]:
    """The Figure class every page draws on, made when a figure is first drawn: judging answers draws none."""
    from matplotlib.figure import Figure

    class PageFigure(Figure):
        """A Figure that knows how to draw itself for a phone (``phone``), and shows both in a page."""

        phone: Callable[[], Figure] | None = None
        alt = ""

        def _repr_mimebundle_(self, include=None, exclude=None):
            # IPython adds the PNG from matplotlib's own display hook beside this
            return {"text/html": picture_html(self, self.phone(), self.alt)} if self.phone else None

    return PageFigure


def for_phones(draw: Callable[..., Figure]) -> Callable[..., Figure]:
    """``draw`` in the figures' style: its page-width figure, which draws its phone version with the same arguments."""

    def drawn(phone: bool, *args, **kwargs) -> Figure:
        import matplotlib

        token = _PHONE.set(phone)
        try:
            with matplotlib.rc_context(STYLE):
                return draw(*args, **kwargs)
        finally:
            _PHONE.reset(token)

    @functools.wraps(draw)
    def page_width(*args, **kwargs) -> Figure:
        fig = drawn(False, *args, **kwargs)
        fig.alt = (draw.__doc__ or "").strip().splitlines()[0]
        fig.phone = functools.partial(drawn, True, *args, **kwargs)
        return fig

    return page_width


def energy_axes(ax, eps_values, state: ExplorerState | None, title: str | None = None) -> None:
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
    legend_above(ax, title)


def _marker(ax, state: ExplorerState) -> None:
    """a·x on the curve; past the axis's end, a triangle at that edge pointing the way, with the true RMS."""
    where, height, symbol = state.scaled_rms, state.scaled_normalized_mean_square, "X"
    label = f"a·x: RMS {state.scaled_rms:.3g}"
    if state.off_axis is not None:
        # just inside the frame at that edge, and clear of the axes' tick labels
        where = RMS_WINDOW[0] * 2.5 if state.off_axis == "left" else RMS_WINDOW[1] / 2.5
        height, symbol = min(max(height, 0.05), 0.97), "<" if state.off_axis == "left" else ">"
        label = f"{label}, off the axis to the {state.off_axis}"
    ax.plot([where], [height], symbol, color="black", markersize=10, label=label)


@for_phones
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
    legend_above(bars, f"eps = {state.eps:g}: max difference {state.max_difference:.3g}")
    energy_axes(curve, (state.eps,), state, "where a·x sits on the curve")
    return fig


def roofline_axes(ax, ylabel: str) -> None:
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flops per byte moved, log scale)")
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", alpha=0.3)
    legend(ax, loc="lower right")
