"""Property tests: what must hold for every input, not just the worked example."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from highprecision import exact_rms_norm, ulps_apart, within_ulps
from rmsnorm_course import RMSNormError, rms_norm, rms_norm_backward, rms_norm_forward
from rmsnorm_course.core.gradcheck import numeric_gradient
from rmsnorm_course.perf import kernel

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


# --- the kernel against core, and every finite row against the exact value -------------------

REAL_DTYPES = (np.float16, np.float32, np.float64, np.int32, np.uint8, np.bool_)


def any_values(dtype):
    """Every finite value ``dtype`` holds, subnormals and the largest included."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return st.floats(width=8 * dtype.itemsize, allow_nan=False, allow_infinity=False)
    return hnp.from_dtype(dtype)


@st.composite
def requests(draw):
    """An input of any real dtype (its rows now and then made wider than a chunk), a gain or none, an eps."""
    dtype = draw(st.sampled_from(REAL_DTYPES))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6))
    x = draw(hnp.arrays(dtype, shape, elements=any_values(dtype)))
    if draw(st.booleans()):
        x[..., : max(1, shape[-1] // 2)] = 0  # rows that are partly or wholly zero
    if draw(st.integers(0, 5)) == 0:
        x = np.tile(x, 4100 // shape[-1] + 1)  # wider than a float32 chunk (4096) or a float64 one (1024)
    gain_dtype = draw(st.sampled_from([np.float16, np.float32, np.float64]))
    gain = draw(st.none() | hnp.arrays(gain_dtype, (x.shape[-1],), elements=any_values(gain_dtype)))
    eps = draw(st.sampled_from([0.0, 1e-5, 1.0, 1e-300, 5e-324, 1e-40]) | st.floats(0, 1e300))
    return x, gain, eps


@settings(max_examples=400)
@given(requests(), st.sampled_from([None, 1, 4096, 65536]))
def test_the_kernel_is_rms_norm_forward_to_within_a_few_ulps_and_refuses_what_it_refuses(request, block_bytes):
    x, gain, eps = request
    try:
        forward = rms_norm_forward(x, gain, eps)
    except RMSNormError as refused:
        with np.errstate(all="ignore"):
            try:
                kernel.rms_norm_blocked(x, gain, eps, block_bytes=block_bytes)
            except RMSNormError as error:
                assert (type(error), str(error)) == (type(refused), str(refused))
            else:
                raise AssertionError(f"the kernel took what core refused: {refused}")
        return
    assert within_ulps(kernel.rms_norm_blocked(x, gain, eps, block_bytes=block_bytes), forward.output, 4)


@settings(max_examples=200)
@given(
    st.sampled_from([np.float16, np.float32, np.float64]).flatmap(
        lambda dtype: hnp.arrays(dtype, st.tuples(st.integers(1, 3), st.integers(1, 6)), elements=any_values(dtype))
    ),
    st.sampled_from([0.0, 1e-5, 1e-30, 1.0]),
)
def test_every_finite_row_is_normalized_to_within_a_few_ulps_of_the_exact_value(x, eps):
    assume(eps > 0 or nonzero_rows(x))
    compute = np.float64 if x.dtype == np.float64 else np.float32
    held = float(compute(eps))  # eps as the compute dtype holds it
    exact = np.stack([exact_rms_norm(row, eps=held, dtype=x.dtype) for row in x])
    assert ulps_apart(rms_norm(x, eps=eps), exact) <= (1 if x.dtype == np.float16 else 4)
