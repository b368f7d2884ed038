"""The formulas as written: right on ordinary rows, and where they break."""

from __future__ import annotations

import numpy as np

from rmsnorm_course import rms_norm, rms_norm_backward
from rmsnorm_course.core.baselines import layer_norm
from rmsnorm_course.core.gradcheck import numeric_gradient
from rmsnorm_course.studies import formulas

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 5))
GAIN = RNG.uniform(0.5, 1.5, 5)
BIAS = RNG.uniform(-0.5, 0.5, 5)
UPSTREAM = RNG.standard_normal((3, 5))
EPS = 1e-5


def test_rms_norm_formula_agrees_with_the_package_on_ordinary_rows():
    np.testing.assert_allclose(formulas.rms_norm_formula(X, GAIN, EPS), rms_norm(X, GAIN, EPS), rtol=1e-14)


def test_rms_norm_formula_breaks_where_the_package_rescales():
    x = np.array([[1e200, 2e200], [3.0, 4.0]])
    with np.errstate(over="ignore"):
        formula = formulas.rms_norm_formula(x, np.ones(2), 0.0)
    assert np.array_equal(formula[0], [0.0, 0.0])  # the squares overflow, x / inf is 0
    assert np.array_equal(formula[1], rms_norm(x, eps=0.0)[1])
    np.testing.assert_allclose(rms_norm(x, eps=0.0)[0], [1 / np.sqrt(2.5), 2 / np.sqrt(2.5)], rtol=1e-15)


def test_rms_norm_formula_backward_agrees_with_the_package():
    for got, expected in zip(
        formulas.rms_norm_formula_backward(X, GAIN, EPS, UPSTREAM), rms_norm_backward(X, GAIN, EPS, UPSTREAM)
    ):
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)


def test_layer_norm_formula_is_the_baseline_with_an_affine():
    np.testing.assert_allclose(
        formulas.layer_norm_formula(X, GAIN, BIAS, EPS), layer_norm(X, EPS) * GAIN + BIAS, rtol=1e-14
    )
    centered = formulas.layer_norm_formula(X, np.ones(5), np.zeros(5), EPS)
    np.testing.assert_allclose(centered.mean(axis=-1), 0.0, atol=1e-15)


def test_layer_norm_formula_backward_agrees_with_central_differences():
    grad_x, grad_gain, grad_bias = formulas.layer_norm_formula_backward(X, GAIN, EPS, UPSTREAM)

    def loss(x=X, gain=GAIN, bias=BIAS):
        return float(np.sum(UPSTREAM * formulas.layer_norm_formula(x, gain, bias, EPS)))

    np.testing.assert_allclose(grad_x, numeric_gradient(lambda p: loss(x=p), X, 1e-6), atol=1e-7)
    np.testing.assert_allclose(grad_gain, numeric_gradient(lambda p: loss(gain=p), GAIN, 1e-6), atol=1e-7)
    np.testing.assert_allclose(grad_bias, numeric_gradient(lambda p: loss(bias=p), BIAS, 1e-6), atol=1e-7)
