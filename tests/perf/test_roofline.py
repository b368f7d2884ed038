"""The roofline: its ceilings, ridge and fraction follow from the measurements; the measurements are real."""

from __future__ import annotations

import numpy as np
import pytest

from rmsnorm_course.perf import kernel
from rmsnorm_course.perf import roofline as module
from rmsnorm_course.perf.roofline import Roofline, roofline


def test_the_roof_is_the_lower_of_the_two_ceilings():
    r = Roofline(bandwidth=20e9, peak=200e9, intensity=0.5, achieved=4e9)
    assert r.ridge == 10.0
    np.testing.assert_array_equal(r.attainable([0.5, 10.0, 64.0]), [10e9, 200e9, 200e9])
    assert r.fraction_of_roof == pytest.approx(0.4)


def test_a_small_measurement_gives_finite_positive_ceilings():
    r = roofline(elements=1 << 16, size=64, repeats=1)
    assert r.intensity == 4 / 8  # float32: four flops per element over a 4-byte read and a 4-byte write
    for value in (r.bandwidth, r.peak, r.achieved):
        assert np.isfinite(value) and value > 0


def test_the_forward_on_the_roof_is_the_kernel_s_into_out(monkeypatch):
    outs = []

    def recorded(x, gain=None, eps=kernel.DEFAULT_EPS, out=None):
        outs.append(out)
        return kernel.rms_norm_blocked(x, gain, eps, out)

    monkeypatch.setattr(module, "rms_norm_blocked", recorded)
    roofline(elements=1 << 14, size=16, repeats=1)
    assert outs and all(isinstance(out, np.ndarray) for out in outs)


def test_its_rows_are_wide_enough_for_the_passes_the_page_counts():
    """From ``JOIN_WIDTH`` up the kernel joins 1/RMS and the gain: sums, factor, product, ``PASSES`` trips."""
    assert module.ROW_WIDTH >= kernel.JOIN_WIDTH and module.PASSES == 3
