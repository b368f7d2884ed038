"""BatchNorm and LayerNorm baselines, and the seed fixture's history table."""

from __future__ import annotations

import numpy as np
import pytest

from rmsnorm_course.core import errors
from rmsnorm_course.core.baselines import batch_norm_train, layer_norm


def test_batchnorm_anchor_depends_on_its_companion():
    with_companion = batch_norm_train([[1.0, 3.0], [5.0, 7.0]])[0]
    with_itself = batch_norm_train([[1.0, 3.0], [1.0, 3.0]])[0]
    # mean 3 and 5, variance 4 on each feature: (1 - 3) / sqrt(4 + 1e-5)
    np.testing.assert_allclose(with_companion, [-2 / np.sqrt(4 + 1e-5)] * 2, rtol=1e-15)
    assert np.round(with_companion, 6).tolist() == [-0.999999, -0.999999]
    assert np.array_equal(with_itself, [0.0, 0.0])


def test_layernorm_is_per_example_and_centered():
    out = layer_norm([[1.0, 3.0], [5.0, 7.0]])
    np.testing.assert_allclose(out[0], [-1 / np.sqrt(1 + 1e-5), 1 / np.sqrt(1 + 1e-5)], rtol=1e-15)
    assert np.array_equal(out[0], out[1])
    assert np.round(out[0], 6).tolist() == [-0.999995, 0.999995]
    assert abs(out[0].mean()) < 1e-15


def test_layernorm_keeps_float32():
    assert layer_norm(np.ones((2, 3), dtype=np.float32)).dtype == np.float32


def test_the_baselines_check_eps_as_rms_norm_does():
    """Before, 10**400 escaped as OverflowError and a negative eps gave NaN."""
    for baseline in (batch_norm_train, layer_norm):
        for eps in (10**400, -1.0, float("nan"), "1e-5"):
            with pytest.raises(errors.InvalidEpsilon):
                baseline([[1.0, 3.0], [5.0, 7.0]], eps)


def test_an_eps_that_rounds_to_zero_in_float32_is_refused_for_a_float32_layer_norm():
    """Before, a constant float32 row with eps = 1e-46 gave 0 / 0 = NaN."""
    with pytest.raises(errors.InvalidEpsilon, match="too small for float32"):
        layer_norm(np.ones((2, 3), np.float32), 1e-46)


def test_eps_zero_with_a_constant_example_or_feature_is_refused_not_turned_into_nan():
    with pytest.raises(errors.ZeroEnergyRow, match="example 1 has variance 0 over its features"):
        layer_norm([[1.0, 3.0], [2.0, 2.0]], 0.0)
    with pytest.raises(errors.ZeroEnergyRow, match="feature 0 has variance 0 across the batch"):
        batch_norm_train([[1.0, 3.0], [1.0, 5.0]], 0.0)
    np.testing.assert_allclose(layer_norm([[1.0, 3.0]], 0.0), [[-1.0, 1.0]])


def test_the_baselines_refuse_masked_and_complex_input():
    for baseline in (batch_norm_train, layer_norm):
        with pytest.raises(errors.MaskedArrayError):
            baseline(np.ma.masked_array([[1.0, 3.0], [5.0, 7.0]], mask=[[0, 0], [0, 1]]))
        with pytest.raises(errors.UnsupportedDtype):
            baseline(np.array([[1 + 2j, 3.0], [5.0, 7.0]]))
