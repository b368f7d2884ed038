"""The interactive scale/epsilon explorer for Jupyter (needs a running kernel).

Controls: a log slider for the scale a (1e-4 to 1e4), a slider for eps that
includes 0, and a choice of input vector. Readouts and the figure come from
``explorer.explore``; this module only wires controls to it.
"""

from __future__ import annotations

import html
import io
import math

import ipywidgets as w
from IPython.display import display
from matplotlib.figure import Figure

from .explorer import (
    DEFAULT_EPS,
    DEFAULT_SCALE,
    DEFAULT_VECTOR,
    EPS_CHOICES,
    SCALE_MAX,
    SCALE_MIN,
    VECTORS,
    ExplorerState,
    explore,
)
from .figures import explorer_figure
from .report import fmt


def readout_rows(state: ExplorerState) -> list[tuple[str, str]]:
    """The numbers the explorer prints, as (label, text) pairs."""
    return [
        ("x-hat(x)", fmt(state.normalized)),
        (f"x-hat(a·x), a = {state.scale:.4g}", fmt(state.scaled_normalized)),
        ("max |x-hat(a·x) - x-hat(x)|", f"{state.max_difference:.6g}"),
        ("RMS of a·x", f"{state.scaled_rms:.6g}"),
        ("mean of x-hat(a·x) squared", f"{state.scaled_normalized_mean_square:.6f}"),
    ]


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG, for an image widget that needs no plotting backend."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def readout_html(state: ExplorerState) -> str:
    rows = "".join(
        f"<tr><th scope='row' style='text-align:left;padding-right:1em'>{html.escape(label)}</th>"
        f"<td><code>{html.escape(text)}</code></td></tr>"
        for label, text in readout_rows(state)
    )
    return f"<table aria-label='explorer readouts'>{rows}</table>"


class ScaleExplorer:
    """Move a, eps or the input vector and watch x-hat(a·x) against x-hat(x)."""

    def __init__(self, vector: str = DEFAULT_VECTOR, scale: float = DEFAULT_SCALE, eps: float = DEFAULT_EPS):
        self.vector = w.Dropdown(options=list(VECTORS), value=vector, description="input x")
        self.scale = w.FloatLogSlider(
            value=scale,
            base=10,
            min=math.log10(SCALE_MIN),
            max=math.log10(SCALE_MAX),
            step=0.05,
            description="scale a",
            readout_format=".3g",
            continuous_update=False,
        )
        self.eps = w.SelectionSlider(
            options=[(f"{e:g}", e) for e in EPS_CHOICES], value=eps, description="eps", continuous_update=False
        )
        self.readouts = w.HTML()
        self.plot = w.Image(format="png")
        for control in (self.vector, self.scale, self.eps):
            control.observe(self.update, names="value")
        self.widget = w.VBox([w.HBox([self.vector, self.scale, self.eps]), self.readouts, self.plot])
        self.update()

    @property
    def state(self) -> ExplorerState:
        return explore(self.vector.value, self.scale.value, self.eps.value)

    def update(self, _change=None) -> None:
        state = self.state
        self.readouts.value = readout_html(state)
        self.plot.value = png_bytes(explorer_figure(state))

    def _ipython_display_(self) -> None:
        display(self.widget)
