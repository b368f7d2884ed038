"""BatchNorm and LayerNorm baselines, and the seed fixture's history table."""

from __future__ import annotations

import numpy as np

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
