"""The formula and its symbols: what RMSNorm leaves out, and the sphere every row lands on."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..core.format import fmt, given
from ..core.rmsnorm import rms_norm
from ..studies import evidence, example
from ..studies.geometry import geometry
from ..studies.thresholds import ROUNDING
from . import holds

SPIKE = (10.0, 0.0, 0.0, 0.0)  # one large coordinate: RMSNorm does not clip it to one


def values() -> SimpleNamespace:
    history = evidence.history()
    spike_hat = rms_norm(np.array(SPIKE), eps=0.0)
    g = geometry()
    holds(spike_hat[0] > 1, "one coordinate well above one")
    holds(history.rms_mean > 0.5, "whose mean is not zero")
    holds(g.largest_radius_error <= 4 * ROUNDING, "every RMSNorm image lies on the circle")
    holds(g.largest_layer_sum <= 100 * ROUNDING, "every LayerNorm image sums to zero")
    holds(np.linalg.norm(g.shrink_images[0]) < 0.1 * g.radius, "the image falls inside the circle")
    return SimpleNamespace(
        spike=given(SPIKE),
        spike_hat=fmt(spike_hat),
        anchor=given(example.ANCHOR),
        anchor_hat=fmt(history.rms_norm_with_companion),
        anchor_mean=fmt(history.rms_mean),
        geometry=g,
        geometry_count=len(g.inputs),
        radius=f"{g.radius:.6f}",
        radius_error=f"{g.largest_radius_error:.1e}",
        layer_sum=f"{g.largest_layer_sum:.1e}",
        example_image=fmt(g.rms_images[0]),
        geometry_eps=f"{g.eps:g}",
        shrink_small=f"{g.shrink_scales[0]:g}",
        shrink_small_length=f"{np.linalg.norm(g.shrink_images[0]):.4f}",
    )
