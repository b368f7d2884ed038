"""The explorer for readers without a kernel: HTML controls and a few lines of JavaScript.

The JavaScript (``static/explorer.js``, which the book serves once, like the prediction
boxes' script) computes x-hat = x / sqrt(mean(x**2) + eps) in the browser. This module
writes the page fragment it wires up: the controls, the
readouts and figure for the default setting (so the page shows real values even
with scripts off), and ``rms_norm``'s own values at a few settings, which the
script checks itself against on load.
"""

from __future__ import annotations

import html
import json
import math
from importlib.resources import files
from importlib.resources.abc import Traversable

from ..studies.example import EPS, SCALE_FACTOR
from .explorer import (
    BAR_HEADROOM,
    EPS_CHOICES,
    RMS_WINDOW,
    SCALE_MAX,
    SCALE_MIN,
    START_VECTOR,
    TINY,
    VECTORS,
    ExplorerState,
    bar_limit,
    explore,
    readout_rows,
)
from .figures import BLUE, GREY, ORANGE, explorer_figure, picture_html

SCRIPT: Traversable = files("rmsnorm_course.views") / "static" / "explorer.js"  # wires every explorer on a page
CHECK_SETTINGS = (
    (START_VECTOR, SCALE_FACTOR, EPS),
    (START_VECTOR, 1e-4, 0.0),
    (TINY, SCALE_FACTOR, EPS),
    (TINY, 1e4, 1e-2),
    ("activation row (d = 8, seed 0)", 0.037, 1e-6),
)
NEEDS_SCRIPT = (
    "The controls need JavaScript, which is off in this browser: the readouts and the figure show the default setting."
)
STATIC_ALT = (
    "x-hat of x beside x-hat of a times x for the default setting, and the mean of x-hat squared against "
    "the input's RMS with a marker at a times x."
)
LIVE_VERSION = (
    "This explorer runs in your browser. The same explorer with Python behind it "
    "(ipywidgets) runs in Jupyter: open this page on Binder with the rocket icon at "
    "the top, or run <code>book/scale-and-epsilon.md</code> locally."
)


def reference_values(vector: str, scale: float, eps: float) -> dict[str, object]:
    """``rms_norm``'s values at one setting, for the script to compare itself with."""
    state = explore(vector, scale, eps)
    return {
        "vector": vector,
        "scale": scale,
        "eps": eps,
        "normalized": state.normalized.tolist(),
        "scaled_normalized": state.scaled_normalized.tolist(),
        "max_difference": state.max_difference,
        "scaled_rms": state.scaled_rms,
    }


def static_explorer_html(state: ExplorerState | None = None) -> str:
    """The kernel-free explorer, starting at ``state`` (the defaults if None)."""
    state = state or explore()
    config = {
        "vectors": VECTORS,
        "bar_limits": {name: bar_limit(name) for name in VECTORS},  # each vector's bars keep one scale
        "rms_window": RMS_WINDOW,
        "scale_exponents": [math.log10(SCALE_MIN), math.log10(SCALE_MAX)],  # the slider's range, which the script holds
        "palette": {"blue": BLUE, "orange": ORANGE, "grey": GREY},
        "headroom": BAR_HEADROOM,
        "checks": [reference_values(*setting) for setting in CHECK_SETTINGS],
    }
    config_json = json.dumps(config).replace("</", "<\\/")  # never close the script tag early
    vector_options = "".join(
        f"<option value='{html.escape(name, quote=True)}'{' selected' if name == state.vector else ''}>"
        f"{html.escape(name)}</option>"
        for name in VECTORS
    )
    eps_options = "".join(
        f"<option value='{eps!r}'{' selected' if eps == state.eps else ''}>{eps:g}</option>" for eps in EPS_CHOICES
    )
    rows = "".join(
        f"<tr><th scope='row'>{html.escape(label)}</th>"
        f"<td><code data-readout='{i}'>{html.escape(text)}</code></td></tr>"
        for i, (label, text) in enumerate(readout_rows(state))
    )
    wide = explorer_figure(state)
    figure = picture_html(wide, wide.phone(), STATIC_ALT).replace("<img ", '<img data-role="static-figure" ')
    # The svgs are drawn, and sized, by the script, which shows them in place of the picture.
    return f"""<div class="rmsnorm-explorer">
<p class="rmsnorm-explorer-note">{LIVE_VERSION}</p>
<noscript><p class="rmsnorm-explorer-noscript">{NEEDS_SCRIPT}</p></noscript>
<form class="rmsnorm-explorer-controls" onsubmit="return false">
<fieldset disabled>
<label>input x <select data-control="vector">{vector_options}</select></label>
<label><span>scale a, log<sub>10</sub></span> <input type="range" data-control="scale" min="{math.log10(SCALE_MIN):g}"
 max="{math.log10(SCALE_MAX):g}" step="0.01" value="{math.log10(state.scale):.2f}"
 aria-valuetext="a = {state.scale:.6g}"></label>
<label>eps <select data-control="eps">{eps_options}</select></label>
</fieldset>
</form>
<table class="rmsnorm-explorer-readouts">{rows}</table>
{figure}
<div class="rmsnorm-explorer-figures">
<svg role="img" hidden aria-label="bars of x-hat of x beside x-hat of a times x, coordinate by coordinate"></svg>
<svg role="img" hidden
 aria-label="mean of x-hat squared against the RMS of the input, with a marker at a times x"></svg>
</div>
<script type="application/json">{config_json}</script>
</div>"""
