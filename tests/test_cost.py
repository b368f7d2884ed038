"""The cost module: its formulas are right, its stopwatch and memory probe measure what they say."""

from __future__ import annotations

import time

import numpy as np

from rmsnorm_course import rms_norm, rms_norm_backward
from rmsnorm_course.core.baselines import layer_norm
from rmsnorm_course.core.gradcheck import numeric_gradient
from rmsnorm_course.studies import cost

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 5))
GAIN = RNG.uniform(0.5, 1.5, 5)
BIAS = RNG.uniform(-0.5, 0.5, 5)
UPSTREAM = RNG.standard_normal((3, 5))
EPS = 1e-5


def test_rms_norm_formula_agrees_with_the_package_on_ordinary_rows():
    np.testing.assert_allclose(cost.rms_norm_formula(X, GAIN, EPS), rms_norm(X, GAIN, EPS), rtol=1e-14)


def test_rms_norm_formula_breaks_where_the_package_rescales():
    x = np.array([[1e200, 2e200], [3.0, 4.0]])
    with np.errstate(over="ignore"):
        formula = cost.rms_norm_formula(x, np.ones(2), 0.0)
    assert np.array_equal(formula[0], [0.0, 0.0])  # the squares overflow, x / inf is 0
    assert np.array_equal(formula[1], rms_norm(x, eps=0.0)[1])
    np.testing.assert_allclose(rms_norm(x, eps=0.0)[0], [1 / np.sqrt(2.5), 2 / np.sqrt(2.5)], rtol=1e-15)


def test_rms_norm_formula_backward_agrees_with_the_package():
    for got, expected in zip(
        cost.rms_norm_formula_backward(X, GAIN, EPS, UPSTREAM), rms_norm_backward(X, GAIN, EPS, UPSTREAM)
    ):
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)


def test_layer_norm_formula_is_the_baseline_with_an_affine():
    np.testing.assert_allclose(
        cost.layer_norm_formula(X, GAIN, BIAS, EPS), layer_norm(X, EPS) * GAIN + BIAS, rtol=1e-14
    )
    centered = cost.layer_norm_formula(X, np.ones(5), np.zeros(5), EPS)
    np.testing.assert_allclose(centered.mean(axis=-1), 0.0, atol=1e-15)


def test_layer_norm_formula_backward_agrees_with_central_differences():
    grad_x, grad_gain, grad_bias = cost.layer_norm_formula_backward(X, GAIN, EPS, UPSTREAM)

    def loss(x=X, gain=GAIN, bias=BIAS):
        return float(np.sum(UPSTREAM * cost.layer_norm_formula(x, gain, bias, EPS)))

    np.testing.assert_allclose(grad_x, numeric_gradient(lambda p: loss(x=p), X, 1e-6), atol=1e-7)
    np.testing.assert_allclose(grad_gain, numeric_gradient(lambda p: loss(gain=p), GAIN, 1e-6), atol=1e-7)
    np.testing.assert_allclose(grad_bias, numeric_gradient(lambda p: loss(bias=p), BIAS, 1e-6), atol=1e-7)


def test_arithmetic_intensity_counts_four_flops_over_a_read_and_a_write():
    assert cost.arithmetic_intensity(np.float32) == 4 / (4 + 4)
    assert cost.arithmetic_intensity(np.float64) == 4 / (8 + 8)


def test_median_seconds_interleaves_the_runs_and_times_them():
    calls = []
    runs = {"a": lambda: calls.append("a"), "b": lambda: (calls.append("b"), time.sleep(0.01))}
    times = cost.median_seconds(runs, repeats=3, warmup=1)
    assert calls == ["a", "b"] * 4
    assert times.keys() == {"a", "b"}
    assert times["b"] >= 0.01 > times["a"] >= 0


def test_peak_extra_bytes_counts_temporaries_not_the_result():
    size = 1 << 20

    def temporary_then_small_result():
        return float(np.ones(size).sum())

    def result_only():
        return np.ones(size)

    assert cost.peak_extra_bytes(temporary_then_small_result) >= 8 * size
    assert cost.peak_extra_bytes(result_only) < 8 * size // 100
    out = np.empty(size)
    assert cost.peak_extra_bytes(lambda: np.copyto(out, 1.0)) < 8 * size // 100


def test_cost_ratios_are_relative_to_the_copy():
    ratios = cost.cost_ratios(shape=(4, 8), repeats=1)
    assert ratios[cost.FORWARD]["copy of x (the limit)"] == 1.0
    for direction in (cost.FORWARD, cost.BACKWARD):
        assert {"RMSNorm formula", "LayerNorm formula"} <= ratios[direction].keys()
        assert all(np.isfinite(v) and v > 0 for v in ratios[direction].values())


def test_plot_has_labelled_axes():
    fig = cost.plot_ratios({cost.FORWARD: {"copy": 1.0, "a": 2.0}, cost.BACKWARD: {"a": 3.0}})
    assert all(ax.get_xlabel() for ax in fig.axes) and fig.axes[0].get_ylabel()
