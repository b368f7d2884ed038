"""The interactive scale/epsilon explorer for Jupyter (needs a running kernel).

Controls: a log slider for the scale a (1e-4 to 1e4), a slider for eps that
includes 0, and a choice of input vector. Readouts and the figure come from
``explorer.explore``; this module only wires controls to it.
"""

from __future__ import annotations

import html
import math

import ipywidgets as w

from ..studies.example import EPS, SCALE_FACTOR
from .explorer import (
    EPS_CHOICES,
    SCALE_MAX,
    SCALE_MIN,
    START_VECTOR,
    VECTORS,
    ExplorerState,
    explore,
    readout_rows,
)
from .figures import explorer_figure, png_bytes
from .static_explorer import static_explorer_html


def readout_html(state: ExplorerState) -> str:
    rows = "".join(
        f"<tr><th scope='row' style='text-align:left;padding-right:1em'>{html.escape(label)}</th>"
        f"<td><code>{html.escape(text)}</code></td></tr>"
        for label, text in readout_rows(state)
    )
    return f"<table aria-label='explorer readouts'>{rows}</table>"


class ScaleExplorer:
    """Move a, eps or the input vector and watch x-hat(a·x) against x-hat(x)."""

    def __init__(self, vector: str = START_VECTOR, scale: float = SCALE_FACTOR, eps: float = EPS):
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
            options=[(f"{e:g}", e) for e in sorted({*EPS_CHOICES, eps})],
            value=eps,
            description="eps",
            continuous_update=False,
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

    def _repr_mimebundle_(self, **kwargs) -> dict:
        """The live widget for Jupyter, and the kernel-free explorer for the HTML book."""
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/html"] = static_explorer_html(self.state)
        return bundle
