"""The explorer's model: readouts against rms_norm and the closed-form curve."""

from __future__ import annotations

import numpy as np
import pytest

from highprecision import ulps_apart
from rmsnorm_course import RMSNormError, rms_norm
from rmsnorm_course.core.reference import DEFAULT_EPS
from rmsnorm_course.studies.thresholds import ROUNDING
from rmsnorm_course.views.explorer import (
    EPS_CHOICES,
    RMS_WINDOW,
    SCALE_MAX,
    SCALE_MIN,
    TINY,
    VECTORS,
    WORKED,
    bar_limit,
    explore,
    normalized_mean_square_curve,
    readout_rows,
)


@pytest.mark.parametrize("vector", list(VECTORS))
@pytest.mark.parametrize("scale", [SCALE_MIN, 0.37, 10.0, SCALE_MAX])
@pytest.mark.parametrize("eps", EPS_CHOICES)
def test_state_matches_rms_norm(vector, scale, eps):
    x = np.array(VECTORS[vector])
    state = explore(vector, scale, eps)
    assert ulps_apart(state.normalized, rms_norm(x, eps=eps)) <= 4  # rms_norm's fast path: a few ulps
    assert ulps_apart(state.scaled_normalized, rms_norm(scale * x, eps=eps)) <= 4
    difference = np.max(np.abs(rms_norm(scale * x, eps=eps) - rms_norm(x, eps=eps)))
    assert state.max_difference == pytest.approx(difference, abs=4 * ROUNDING)
    assert state.scaled_rms == pytest.approx(scale * np.sqrt(np.mean(x**2)), rel=1e-12)


def test_eps_zero_makes_every_scale_invisible():
    for vector in VECTORS:
        assert explore(vector, SCALE_MAX, 0.0).max_difference <= ROUNDING


def test_curve_is_ms_over_ms_plus_eps():
    rms = np.logspace(-6, 3, 50)
    np.testing.assert_allclose(normalized_mean_square_curve(rms, 1e-5), rms**2 / (rms**2 + 1e-5), rtol=1e-13)
    np.testing.assert_allclose(normalized_mean_square_curve(rms, 0.0), np.ones_like(rms), rtol=1e-15)
    assert normalized_mean_square_curve(np.array([np.sqrt(1e-5)]), 1e-5)[0] == pytest.approx(0.5, rel=1e-12)


def test_the_eps_control_offers_the_default_and_zero_and_a_widget_started_elsewhere_offers_its_start():
    from rmsnorm_course.views.widgets import ScaleExplorer

    assert DEFAULT_EPS in EPS_CHOICES and 0.0 in EPS_CHOICES
    widget = ScaleExplorer(eps=3e-5)  # not one of the choices: it joins them rather than failing
    assert widget.eps.value == 3e-5 and 3e-5 in [value for _, value in widget.eps.options]


@pytest.mark.parametrize("vector", list(VECTORS))
def test_bar_limit_is_the_largest_coordinate_over_the_rms(vector):
    x = np.array(VECTORS[vector])
    assert bar_limit(vector) == pytest.approx(np.max(np.abs(x)) / np.sqrt(np.mean(x**2)), rel=1e-14)
    for eps in EPS_CHOICES:  # eps only shrinks x-hat, so the bars never leave their scale
        assert np.max(np.abs(explore(vector, SCALE_MIN, eps).scaled_normalized)) <= bar_limit(vector)


def test_off_axis_names_the_edge_a_x_lies_beyond():
    low, high = RMS_WINDOW
    assert explore(WORKED, SCALE_MAX, 1e-5).off_axis == "right"  # RMS 3.5e4 > 1e3
    assert explore(TINY, SCALE_MIN, 1e-5).off_axis == "left"  # RMS 3.5e-8 < 1e-6
    assert explore(WORKED, 1.0, 1e-5).off_axis is None
    for vector in VECTORS:
        for scale in (SCALE_MIN, 1.0, SCALE_MAX):
            state = explore(vector, scale, 0.0)
            inside = low <= state.scaled_rms <= high
            assert (state.off_axis is None) == inside


@pytest.mark.parametrize("forced", [float("inf"), 1e308, -1e308, -1.0, 0.0, 1e-308, 3e-5, 2e4])
def test_a_scale_outside_the_slider_is_held_to_its_nearest_end(forced):
    """As a slider forced past its range (to 10**±1e308) would set it: no readout shows inf or nan."""
    nearest = SCALE_MIN if forced < SCALE_MIN else SCALE_MAX
    for vector in VECTORS:
        state = explore(vector, forced, DEFAULT_EPS)
        assert state.scale == nearest
        assert readout_rows(state) == readout_rows(explore(vector, nearest, DEFAULT_EPS))
        assert not any(word in text for _, text in readout_rows(state) for word in ("inf", "nan"))


def test_a_scale_that_is_no_number_is_refused():
    with pytest.raises(RMSNormError, match=r"the scale a is nan; expected a number from 0\.0001 to 10000"):
        explore(WORKED, float("nan"), DEFAULT_EPS)
