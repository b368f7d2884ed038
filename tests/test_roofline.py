"""The roofline: its ceilings, ridge and fraction follow from the measurements; the measurements are real."""

from __future__ import annotations

import numpy as np
import pytest

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
