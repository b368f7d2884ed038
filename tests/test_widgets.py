"""The ipywidgets explorer, driven without a browser: set controls, read the readouts."""

from __future__ import annotations

import numpy as np

from rmsnorm_course import rms_norm
from rmsnorm_course.core.format import fmt
from rmsnorm_course.studies.thresholds import ROUNDING
from rmsnorm_course.views.explorer import TINY, VECTORS
from rmsnorm_course.views.widgets import ScaleExplorer, readout_rows


def as_the_pages_write_it(moved: float) -> str:
    """A difference as the predict page and the scale cards print it: six decimals, or three figures when tiny."""
    return f"{moved:.6f}" if abs(moved) >= 1e-3 else f"{moved:.3g}"


def test_default_readouts_show_the_worked_example():
    explorer = ScaleExplorer()
    assert fmt(rms_norm([3.0, 4.0], eps=1e-5)) in explorer.readouts.value
    moved = np.max(np.abs(rms_norm([30.0, 40.0], eps=1e-5) - rms_norm([3.0, 4.0], eps=1e-5)))
    assert as_the_pages_write_it(moved) == "4.48e-07" and "4.48e-07" in explorer.readouts.value


def test_moving_the_controls_updates_the_readouts():
    explorer = ScaleExplorer()
    explorer.vector.value = TINY
    explorer.scale.value = 1000.0
    explorer.eps.value = 1e-2
    x = np.array(VECTORS[TINY])
    assert fmt(rms_norm(1000.0 * x, eps=1e-2)) in explorer.readouts.value
    assert fmt(rms_norm(x, eps=1e-2)) in explorer.readouts.value
    difference = np.max(np.abs(rms_norm(1000.0 * x, eps=1e-2) - rms_norm(x, eps=1e-2)))
    assert as_the_pages_write_it(difference) in explorer.readouts.value


def test_eps_control_reaches_zero_and_scale_control_is_logarithmic():
    explorer = ScaleExplorer()
    explorer.eps.value = 0.0
    explorer.scale.value = 1e-4
    assert float(dict(readout_rows(explorer.state))["max |x-hat(a·x) - x-hat(x)|"]) <= ROUNDING
    assert explorer.scale.min == -4 and explorer.scale.max == 4 and explorer.scale.base == 10


def test_figure_is_redrawn_when_a_control_moves():
    explorer = ScaleExplorer()
    before = bytes(explorer.plot.value)
    explorer.scale.value = 2.0
    after = bytes(explorer.plot.value)
    assert before.startswith(b"\x89PNG") and after.startswith(b"\x89PNG")
    assert after != before
