"""The RMSNorm layer: one named gain, ones by default, no bias."""

from __future__ import annotations

import numpy as np
import pytest

from rmsnorm_course import RMSNorm, rms_norm
from rmsnorm_course.core.errors import (
    EmptyFeatureWidth,
    FeatureWidthTooLarge,
    GainShapeError,
    InvalidEpsilon,
    ParameterNameError,
)
from rmsnorm_course.core.reference import DEFAULT_EPS

NAME = "decoder.block.0.attention_norm.gain"


def test_gain_starts_at_ones_and_is_the_only_parameter():
    layer = RMSNorm(4, name=NAME)
    assert [p.name for p in layer.parameters()] == [NAME]
    assert np.array_equal(layer.gain.value, np.ones(4))
    assert layer.width == 4 and layer.eps == DEFAULT_EPS  # a layer made without an eps takes the functions' default


def test_forward_uses_the_gain():
    layer = RMSNorm.from_gain([1.5, 0.5], eps=1e-5)
    np.testing.assert_allclose(layer([3.0, 4.0]), [1.272792, 0.565685], atol=5e-7)
    assert layer.forward([3.0, 4.0]).mean_square[0] == 12.5


def test_from_gain_copies_the_callers_array():
    gain = np.array([1.5, 0.5])
    layer = RMSNorm.from_gain(gain)
    layer.gain.value[0] = 7.0
    assert gain[0] == 1.5


def test_backward_gives_gain_gradient_of_width_d():
    layer = RMSNorm.from_gain([1.5, 0.5])
    x = np.arange(12.0).reshape(2, 3, 2) + 1
    grad_x, grad_gain = layer.backward(x, np.ones_like(x))
    assert grad_x.shape == x.shape and grad_gain.shape == (2,)
    # With upstream ones, the gain gradient is the column sums of x-hat.
    np.testing.assert_allclose(grad_gain, rms_norm(x).reshape(-1, 2).sum(axis=0), rtol=1e-14)


def test_training_step_on_the_gain_changes_the_output():
    layer = RMSNorm(2)
    before = layer([3.0, 4.0]).copy()
    layer.gain.value[:] = [2.0, 2.0]
    np.testing.assert_allclose(layer([3.0, 4.0]), 2 * before, rtol=1e-15)


@pytest.mark.parametrize("width", [0, -3, 2.5, True])
def test_width_must_be_a_positive_whole_number(width):
    with pytest.raises(EmptyFeatureWidth, match="expected a whole number of features >= 1"):
        RMSNorm(width)


def test_bad_eps_and_name_and_gain():
    with pytest.raises(InvalidEpsilon):
        RMSNorm(2, eps=-1.0)
    with pytest.raises(ParameterNameError, match="not valid"):
        RMSNorm(2, name="decoder..gain")
    with pytest.raises(GainShapeError):
        RMSNorm.from_gain(np.ones((2, 2)))


def test_repr_names_the_layer():
    assert repr(RMSNorm(3, eps=1e-05, name=NAME)) == f"RMSNorm(width=3, eps=1e-05, name='{NAME}')"


@pytest.mark.parametrize("width", [10**400, 2**62], ids=["1e400", "2**62"])
def test_a_width_no_gain_can_have_is_an_rmsnorm_error(width):
    """Before, 10**400 escaped as numpy's own ValueError, and 2**62 as a MemoryError."""
    with pytest.raises(FeatureWidthTooLarge, match="no gain that wide fits") as caught:
        RMSNorm(width)
    assert len(str(caught.value)) < 300
