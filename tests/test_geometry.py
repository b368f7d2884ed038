"""The geometry study: images on the sphere, LayerNorm's plane, eps pulling inside, and the tangent gradient."""

from __future__ import annotations

import numpy as np
import pytest

from rmsnorm_course.pages.backward import gradient_picture
from rmsnorm_course.pages.formula import geometry
from rmsnorm_course.studies.thresholds import ROUNDING


def test_rms_norm_images_lie_on_the_circle_in_their_inputs_direction():
    g = geometry()
    lengths = np.linalg.norm(g.rms_images, axis=-1)
    np.testing.assert_allclose(lengths, np.sqrt(2), rtol=4 * ROUNDING)
    directions = g.inputs / np.linalg.norm(g.inputs, axis=-1, keepdims=True)
    np.testing.assert_allclose(g.rms_images / np.sqrt(2), directions, atol=4 * ROUNDING)
    assert g.largest_radius_error == pytest.approx(np.max(np.abs(lengths - np.sqrt(2))))
    np.testing.assert_allclose(g.rms_images[0], np.array([3.0, 4.0]) / np.sqrt(12.5), rtol=1e-15)


def test_layer_norm_images_are_the_two_points_orthogonal_to_all_ones():
    g = geometry()
    np.testing.assert_allclose(np.abs(g.layer_images), 1.0, rtol=1e-12)
    np.testing.assert_allclose(g.layer_images.sum(axis=-1), 0.0, atol=1e-12)
    # the larger coordinate maps to +1: [3, 4] -> [-1, 1]
    np.testing.assert_allclose(g.layer_images[0], [-1.0, 1.0], rtol=1e-12)


def test_eps_pulls_small_inputs_inside_along_the_same_direction():
    g = geometry(eps=1e-5)
    lengths = np.linalg.norm(g.shrink_images, axis=-1)
    assert np.all(np.diff(lengths) > 0) and lengths[-1] < np.sqrt(2)
    rms = g.shrink_scales * np.sqrt((9 + 16) / 2)
    np.testing.assert_allclose(lengths, np.sqrt(2) * rms / np.sqrt(rms**2 + 1e-5), rtol=1e-12)
    directions = g.shrink_images / lengths[:, None]
    np.testing.assert_allclose(directions, np.tile([0.6, 0.8], (len(lengths), 1)), atol=1e-12)


def test_the_gradient_is_tangent_at_eps_zero_and_scales_as_one_over_a():
    p = gradient_picture(scale=10.0, eps=1e-5)
    assert abs(p.dot_at_zero) <= 10 * ROUNDING
    assert 1e-9 < abs(p.dot_at_eps) < 1e-6
    np.testing.assert_allclose(10.0 * p.scaled_grad_x, p.grad_x, rtol=1e-13)
    # closed form at eps = 0: (1/rms) * (u - x-hat * mean(u * x-hat)), u = upstream * gain
    x, u = np.array([3.0, 4.0]), np.array([1.0, -2.0]) * np.array([1.5, 0.5])
    rms = np.sqrt(np.mean(x**2))
    expected = (u - x / rms * np.mean(u * x / rms)) / rms
    np.testing.assert_allclose(p.grad_x, expected, rtol=1e-14)
    assert p.saved_shape == (*p.batch[:-1], 1)
