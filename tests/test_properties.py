"""Property tests: what must hold for every input, not just the worked example."""

from __future__ import annotations

import numpy as np
from highprecision import exact_rms_norm, ulps_apart
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rmsnorm_course import rms_norm, rms_norm_backward, rms_norm_forward
from rmsnorm_course.core.gradcheck import numeric_gradient

settings.register_profile("course", max_examples=60, deadline=None, derandomize=True)
settings.load_profile("course")

# Ordinary magnitudes here; the extreme ones have their own test at the end.
moderate = st.just(0.0) | st.floats(1e-3, 1e3) | st.floats(-1e3, -1e-3)
shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5)
eps_values = st.sampled_from([0.0, 1e-8, 1e-5, 1e-2])


def nonzero_rows(array: np.ndarray) -> bool:
    return bool(np.all(np.any(array != 0, axis=-1)))


@given(hnp.arrays(np.float64, shapes, elements=moderate), st.floats(1e-3, 1e3))
def test_scale_invariance_at_eps_zero(x, a):
    assume(nonzero_rows(x))
    np.testing.assert_allclose(rms_norm(a * x, eps=0.0), rms_norm(x, eps=0.0), rtol=1e-13, atol=1e-15)


@given(hnp.arrays(np.float64, shapes, elements=moderate), eps_values)
def test_shape_is_preserved(x, eps):
    assume(eps > 0 or nonzero_rows(x))
    assert rms_norm(x, eps=eps).shape == x.shape


@given(hnp.arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(1, 5)), elements=moderate), st.data())
def test_rows_never_influence_one_another(x, data):
    other = data.draw(hnp.arrays(np.float64, x.shape, elements=moderate))
    keep = data.draw(st.integers(0, x.shape[0] - 1))
    mixed = other.copy()
    mixed[keep] = x[keep]
    assert np.array_equal(rms_norm(x, eps=1e-5)[keep], rms_norm(mixed, eps=1e-5)[keep])


@given(hnp.arrays(np.float64, shapes, elements=moderate), eps_values)
def test_normalized_mean_square_is_ms_over_ms_plus_eps(x, eps):
    assume(eps > 0 or nonzero_rows(x))
    f = rms_norm_forward(x, eps=eps)
    expected = np.mean(x**2, axis=-1) / (np.mean(x**2, axis=-1) + eps)
    np.testing.assert_allclose(np.mean(f.normalized**2, axis=-1), expected, rtol=1e-12, atol=1e-300)


@st.composite
def gradient_cases(draw):
    batch = draw(st.sampled_from([(), (3,), (2, 3), (0,), (0, 2)]))
    width = draw(st.integers(1, 4))
    x = draw(hnp.arrays(np.float64, (*batch, width), elements=st.floats(0.5, 3.0) | st.floats(-3.0, -0.5)))
    gain = draw(hnp.arrays(np.float64, (width,), elements=st.floats(-2, 2, allow_subnormal=False)))
    upstream = draw(hnp.arrays(np.float64, x.shape, elements=st.floats(-2, 2, allow_subnormal=False)))
    eps = draw(st.sampled_from([0.0, 1e-5, 0.1]))
    return x, gain, upstream, eps


@given(gradient_cases())
def test_gradients_agree_with_central_differences(case):
    x, gain, upstream, eps = case
    grad_x, grad_gain = rms_norm_backward(x, gain, eps, upstream)
    assert grad_x.shape == x.shape and grad_gain.shape == gain.shape

    def loss_of_x(probe):
        return float(np.sum(upstream * rms_norm(probe, gain, eps)))

    def loss_of_gain(probe):
        return float(np.sum(upstream * rms_norm(x, probe, eps)))

    np.testing.assert_allclose(grad_x, numeric_gradient(loss_of_x, x, 1e-6), atol=2e-6, rtol=1e-6)
    np.testing.assert_allclose(grad_gain, numeric_gradient(loss_of_gain, gain, 1e-6), atol=2e-6, rtol=1e-6)


@given(hnp.arrays(np.float64, shapes, elements=moderate), eps_values)
def test_inputs_are_never_mutated(x, eps):
    assume(eps > 0 or nonzero_rows(x))
    before = x.copy()
    gain = np.linspace(0.5, 1.5, x.shape[-1])
    gain_before = gain.copy()
    upstream = np.ones_like(x)
    rms_norm_backward(x, gain, eps, upstream)
    assert np.array_equal(x, before) and np.array_equal(gain, gain_before) and np.all(upstream == 1)


@given(
    st.lists(st.floats(1.0, 10.0) | st.floats(-10.0, -1.0), min_size=1, max_size=6),
    st.sampled_from([1e-300, 1e-250, 1e-160, 1e160, 1e250, 1e300]),
    st.sampled_from([np.float64, np.float32]),
)
def test_extreme_magnitudes_against_high_precision(mantissas, magnitude, dtype):
    finfo = np.finfo(dtype)
    magnitude = float(np.clip(magnitude, finfo.tiny * 1e3, finfo.max / 1e3)) if dtype == np.float32 else magnitude
    x = (np.array(mantissas) * magnitude).astype(dtype)
    y = rms_norm(x, eps=0.0)
    assert ulps_apart(y, exact_rms_norm(x, eps=0.0, dtype=dtype)) <= 4
