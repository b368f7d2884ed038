"""The blocked fast path against the reference path: same values to a few ulps, same errors, same policy."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from highprecision import ulps_apart

from rmsnorm_course import RMSNorm, rms_norm, rms_norm_backward, rms_norm_forward
from rmsnorm_course.core import errors, fastpath
from rmsnorm_course.core.checks import validated, validated_upstream
from rmsnorm_course.core.machine import cache_bytes, size_in_bytes
from rmsnorm_course.core.reference import gradients

EPS = 1e-5
SMALL_BLOCKS = 4096  # bytes: a few rows per block, so every test crosses many block edges
ONE_ROW = 1  # bytes: a block of one row, so that 40 rows are enough blocks to be given a block of scratch


def reference_output(x, gain=None, eps=EPS):
    return rms_norm_forward(x, gain, eps).output


def reference_gradients(x, gain, eps, grad_output):
    """The reference arithmetic in the compute dtype, before rounding to the output dtype."""
    x, gain, eps, _ = validated(x, gain, eps)
    return gradients(x, gain, eps, validated_upstream(grad_output, x))


def random_case(shape, dtype, seed=0, scale=3.0):
    rng = np.random.default_rng(seed)
    x = (scale * rng.standard_normal(shape)).astype(dtype)
    gain = rng.uniform(0.5, 1.5, shape[-1])
    upstream = rng.standard_normal(shape)
    return x, gain, upstream


# --- which path a call takes ------------------------------------------------


def test_small_requests_that_need_care_get_the_references_result_or_error():
    few = np.ones((fastpath.FEW_ROWS, 8), dtype=np.float32)
    many = np.ones((fastpath.FEW_ROWS + 1, 8))
    cases = {
        "a list": (few.tolist(), None, EPS),
        "integers": (few.astype(np.int32), None, EPS),
        "float16": (few.astype(np.float16), None, EPS),
        "a gain of another dtype": (few, np.linspace(0.5, 2, 8), EPS),
        "an integer eps": (few, None, 0),
        "squares that overflow": (np.array([[1e200, 1.0]]), None, EPS),
        "squares that overflow, among many rows": (np.vstack([many, [[1e200] * 8]]), None, EPS),
        "squares that underflow, among many rows": (np.vstack([many, [[1e-200] * 8]]), None, 1e-300),
        "a NaN": (np.array([[1.0, np.nan]]), None, EPS),
        "a zero row at eps 0": (np.zeros((2, 4)), None, 0.0),
        "a zero row at eps 0, among many rows": (np.vstack([many, np.zeros((1, 8))]), None, 0.0),
        "a gain with NaN": (few, np.full(8, np.nan, np.float32), EPS),
        "a negative eps": (few, None, -1.0),
    }
    for name, (x, gain, eps) in cases.items():
        try:
            expected = reference_output(x, gain, eps)
        except errors.RMSNormError:
            fast = reference_error(lambda x=x, gain=gain, eps=eps: rms_norm(x, gain, eps))
            assert fast == reference_error(lambda x=x, gain=gain, eps=eps: rms_norm_forward(x, gain, eps)), name
        else:
            got = rms_norm(x, gain, eps)
            assert got.dtype == expected.dtype and ulps_apart(got, expected) <= 4, name


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7,), (1, 5), (8, 64), (9, 64), (2, 3, 130), (300, 100)])
def test_few_rows_and_many_match_the_reference_to_a_few_ulps(dtype, shape):
    x, gain, _ = random_case(shape, dtype)
    gain = gain.astype(dtype)
    for g in (None, gain):
        fast = rms_norm(x, g, EPS)
        reference = reference_output(x, g)
        assert fast.dtype == reference.dtype and fast.shape == reference.shape
        assert ulps_apart(fast, reference) <= 6


@pytest.mark.parametrize("values", [[1e200, 1.0], [1e-200, 0.0], [np.finfo(np.float64).max, 0.0]])
def test_rows_that_need_care_are_right_and_raise_no_warning(values):
    x = np.array([values, [3.0, 4.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = rms_norm(x, eps=1e-300)
    assert ulps_apart(y, reference_output(x, eps=1e-300)) <= 4


def test_a_bad_gain_on_a_small_input_gets_the_reference_error():
    x = np.ones((2, 3))
    for gain in (np.array([1.0, np.inf, 1.0]), np.array([np.nan, 1.0, 1.0])):
        assert reference_error(lambda g=gain: rms_norm(x, g)) == reference_error(lambda g=gain: rms_norm_forward(x, g))


def test_public_functions_on_a_large_input_agree_with_the_reference():
    x, gain, upstream = random_case((4, 100, 700), np.float32)
    assert fastpath.worth_blocking(x)
    assert ulps_apart(rms_norm(x, gain, EPS), reference_output(x, gain)) <= 6
    grad_x, grad_gain = rms_norm_backward(x, gain, EPS, upstream)
    ref_x, ref_gain = reference_gradients(x, gain, EPS, upstream)
    assert grad_x.dtype == grad_gain.dtype == np.float32
    assert_gradients_close(x, gain, EPS, upstream, (grad_x, grad_gain), (ref_x, ref_gain))


# --- forward ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.bool_])
@pytest.mark.parametrize("shape", [(1, 5), (37, 64), (3, 11, 130), (2, 2000), (7, fastpath.FOLD_WIDTH)])
def test_forward_matches_the_reference_to_a_few_ulps(dtype, shape):
    x, gain, _ = random_case(shape, dtype)
    reference = reference_output(x, gain)
    for block_bytes in (SMALL_BLOCKS, ONE_ROW):
        fast = fastpath.rms_norm_blocked(x, gain, EPS, block_bytes=block_bytes)
        assert fast.dtype == reference.dtype and fast.shape == reference.shape
        assert ulps_apart(fast, reference) <= 6


def extreme_rows(dtype):
    """Rows that overflow, underflow, are all zero, or are ordinary, interleaved."""
    big, small = (1e200, 1e-200) if dtype == np.float64 else (1e25, 1e-25)
    rng = np.random.default_rng(1)
    rows = rng.standard_normal((40, 24))
    rows[3] *= big
    rows[11] *= small
    rows[12] = 0.0
    rows[20, :5] = [big, -big, small, 1.0, 0.0]
    rows[31] = np.finfo(dtype).max / 2
    return rows.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("eps", [EPS, 1e-30])
def test_forward_on_extreme_rows_matches_the_reference(dtype, eps):
    x = extreme_rows(dtype)
    fast = fastpath.rms_norm_blocked(x, None, eps, block_bytes=SMALL_BLOCKS)
    reference = reference_output(x, eps=eps)
    assert np.all(np.isfinite(fast))
    assert np.array_equal(fast[12], np.zeros(24))
    nonzero = reference != 0
    assert ulps_apart(fast[nonzero], reference[nonzero]) <= 6 and np.array_equal(fast == 0, reference == 0)


def test_float16_rows_whose_squares_overflow_come_out_as_the_reference():
    rng = np.random.default_rng(2)
    x = rng.uniform(-60000, 60000, (50, 32)).astype(np.float16)
    x[7] = 300.0
    with np.errstate(over="ignore"):
        assert np.isinf(np.square(x)).any()
    fast = fastpath.rms_norm_blocked(x, None, EPS, block_bytes=SMALL_BLOCKS)
    assert fast.dtype == np.float16
    assert ulps_apart(fast, reference_output(x)) <= 1
    np.testing.assert_array_equal(fast[7], np.ones(32, dtype=np.float16))


@pytest.mark.parametrize("width", [16, fastpath.FOLD_WIDTH])  # 1/RMS and the gain apart, and joined
@pytest.mark.parametrize("block_bytes", [SMALL_BLOCKS, ONE_ROW])  # no scratch, and a block of it
@pytest.mark.parametrize("gain_scale", [1e-36, 1e30, 0.0])
def test_gains_that_push_the_factor_out_of_range_take_the_reference_arithmetic(gain_scale, block_bytes, width):
    x = np.random.default_rng(3).standard_normal((40, width)).astype(np.float32) * 1e18
    gain = np.linspace(0.5, 1.5, width) * gain_scale
    gain[3] = 1.0  # one ordinary coordinate beside the extreme ones
    fast = fastpath.rms_norm_blocked(x, gain, EPS, block_bytes=block_bytes)
    reference = reference_output(x, gain)
    nonzero = reference != 0
    assert ulps_apart(fast[nonzero], reference[nonzero]) <= 6 and np.array_equal(fast == 0, reference == 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("eps", [EPS, 1e-30])
def test_extreme_rows_with_a_gain_joined_to_1_over_rms_match_the_reference(dtype, eps):
    x = np.tile(extreme_rows(dtype), (1, fastpath.FOLD_WIDTH // 24 + 1))
    gain = np.random.default_rng(6).uniform(0.5, 1.5, x.shape[-1])
    fast = fastpath.rms_norm_blocked(x, gain, eps, block_bytes=SMALL_BLOCKS)
    reference = reference_output(x, gain, eps)
    nonzero = reference != 0
    assert ulps_apart(fast[nonzero], reference[nonzero]) <= 6 and np.array_equal(fast == 0, reference == 0)


def test_zero_rows_with_positive_eps_map_to_zeros():
    x = np.zeros((100, 700), dtype=np.float32)
    x[50] = 1.0
    y = rms_norm(x, eps=EPS)
    assert np.array_equal(y[:50], np.zeros((50, 700))) and np.all(y[50] > 0.99)


def test_empty_batch_and_single_row():
    assert fastpath.rms_norm_blocked(np.zeros((0, 5)), None, EPS).shape == (0, 5)
    assert (
        ulps_apart(fastpath.rms_norm_blocked([3.0, 4.0], [1.5, 0.5], EPS), reference_output([3.0, 4.0], [1.5, 0.5]))
        <= 1
    )


# --- backward -----------------------------------------------------------------


def assert_gradients_close(x, gain, eps, upstream, fast, reference, factor=8):
    """Closeness measured against the size of what is summed, since both results can cancel.

    grad_x = r * (u - x-hat * projection), where projection = mean(u * x-hat) is a sum of
    d terms: each element may be off by a few eps times |r u| + r |x-hat| (|projection| +
    sqrt(d) mean|u x-hat|). grad_gain sums every row: off by a few eps times sqrt(rows)
    times the sum of |grad_output * x-hat|.
    """
    forward = rms_norm_forward(np.asarray(x).astype(fast[0].dtype), gain, eps)
    compute = forward.inverse_rms.dtype
    width = np.shape(x)[-1]
    r, xhat = forward.inverse_rms, forward.normalized.astype(compute)
    upstream = np.asarray(upstream, dtype=compute)
    u = upstream * np.asarray(gain, dtype=compute)
    projection = np.mean(u * xhat, axis=-1, keepdims=True)
    projection_error = np.abs(projection) + np.sqrt(width) * np.mean(np.abs(u * xhat), axis=-1, keepdims=True)
    unit = np.finfo(fast[0].dtype).eps
    x_scale = np.abs(r * u) + r * np.abs(xhat) * projection_error
    assert np.all(np.abs(fast[0] - reference[0]) <= factor * unit * x_scale + np.finfo(compute).tiny)
    rows = np.asarray(x).size // width
    gain_scale = np.sum(np.abs(upstream * xhat).reshape(-1, width), axis=0)
    assert np.all(np.abs(fast[1] - reference[1]) <= factor * unit * np.sqrt(rows) * gain_scale)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16])
@pytest.mark.parametrize("shape", [(1, 5), (37, 64), (3, 11, 130)])
def test_backward_matches_the_reference(dtype, shape):
    x, gain, upstream = random_case(shape, dtype)
    fast = fastpath.rms_norm_backward_blocked(x, gain, EPS, upstream, block_bytes=SMALL_BLOCKS)
    reference = reference_gradients(x, gain, EPS, upstream)
    assert fast[0].dtype == fast[1].dtype == reference[0].dtype
    assert_gradients_close(x, gain, EPS, upstream, fast, reference)


def test_backward_in_float16_is_the_reference_rounded():
    x, gain, upstream = random_case((40, 48), np.float16, scale=200.0)
    fast_x, fast_gain = fastpath.rms_norm_backward_blocked(x, gain, EPS, upstream, block_bytes=SMALL_BLOCKS)
    ref_x, ref_gain = rms_norm_backward(x, gain, EPS, upstream)
    assert fast_x.dtype == fast_gain.dtype == np.float16
    spacing = np.spacing(np.abs(ref_x).astype(np.float16)).astype(np.float64)
    assert np.all(np.abs(fast_x.astype(np.float64) - ref_x) <= 2 * spacing + 1e-7)
    np.testing.assert_allclose(fast_gain, ref_gain, rtol=2e-3, atol=1e-3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_backward_on_extreme_rows_matches_the_reference(dtype):
    x = extreme_rows(dtype)
    rng = np.random.default_rng(4)
    gain, upstream = rng.uniform(0.5, 1.5, 24), rng.standard_normal(x.shape)
    fast = fastpath.rms_norm_backward_blocked(x, gain, EPS, upstream, block_bytes=SMALL_BLOCKS)
    reference = reference_gradients(x, gain, EPS, upstream)
    assert np.all(np.isfinite(fast[0])) and np.all(np.isfinite(fast[1]))
    assert_gradients_close(x, gain, EPS, upstream, fast, reference)


def test_backward_when_grad_output_times_x_overflows():
    x = np.full((20, 8), 1e30, dtype=np.float32)
    upstream = np.full((20, 8), 1e20, dtype=np.float32)
    fast = fastpath.rms_norm_backward_blocked(x, None, EPS, upstream, block_bytes=SMALL_BLOCKS)
    reference = reference_gradients(x, np.ones(8), EPS, upstream)
    assert np.array_equal(fast[0], reference[0]) and np.array_equal(fast[1], reference[1])


def test_layer_backward_and_call_use_the_public_functions():
    x, gain, upstream = random_case((90, 800), np.float32)
    layer = RMSNorm.from_gain(gain, EPS)
    assert ulps_apart(layer(x), reference_output(x, gain)) <= 6
    fast = layer.backward(x, upstream)
    assert_gradients_close(x, gain, EPS, upstream, fast, reference_gradients(x, gain, EPS, upstream))


# --- out= -----------------------------------------------------------------------


def test_out_receives_the_result_and_is_returned():
    x, gain, _ = random_case((6, 10), np.float32)
    out = np.full_like(x, np.nan)
    returned = rms_norm(x, gain, EPS, out=out)
    assert returned is out
    assert ulps_apart(out, reference_output(x, gain)) <= 6


def test_out_may_be_a_strided_view():
    x, gain, _ = random_case((6, 10), np.float64)
    canvas = np.zeros((6, 20))
    rms_norm(x, gain, EPS, out=canvas[:, ::2])
    assert ulps_apart(canvas[:, ::2], reference_output(x, gain)) <= 6
    assert np.array_equal(canvas[:, 1::2], np.zeros((6, 10)))


def test_float16_out_for_float16_input():
    x = np.array([[300.0, 1.0], [3.0, 4.0]], dtype=np.float16)
    out = np.empty_like(x)
    rms_norm(x, eps=0.0, out=out)
    np.testing.assert_array_equal(out, reference_output(x, eps=0.0))


def rejects(error, call, *fragments):
    with pytest.raises(error) as caught:
        call()
    for fragment in fragments:
        assert fragment in str(caught.value)
    return caught.value


def test_out_of_the_wrong_shape():
    x = np.ones((3, 4))
    rejects(errors.OutputShapeError, lambda: rms_norm(x, out=np.empty((4, 3))), "(4, 3)", "(3, 4)", "expected")


def test_out_of_the_wrong_dtype():
    x = np.ones((3, 4), dtype=np.float16)
    error = rejects(errors.OutputDtypeError, lambda: rms_norm(x, out=np.empty((3, 4))), "float64", "float16")
    assert error.boundary == "output-dtype"


@pytest.mark.parametrize("overlap", ["itself", "view", "gain"])
def test_out_that_shares_memory_with_an_input(overlap):
    x = np.ones((4, 4))
    gain = np.ones(4)
    targets = {
        "itself": lambda: x,
        "view": lambda: x[::-1],
        "gain": lambda: np.lib.stride_tricks.as_strided(gain, shape=(4, 4), strides=(0, 8)),
    }
    target = targets[overlap]()
    before = x.copy(), gain.copy()
    rejects(errors.OutputOverlapError, lambda: rms_norm(x, gain, out=target), "shares memory")
    assert np.array_equal(x, before[0]) and np.array_equal(gain, before[1])


def test_out_that_is_not_a_writeable_array():
    x = np.ones((2, 3))
    rejects(errors.OutputArrayError, lambda: rms_norm(x, out=[[0.0] * 3] * 2), "list", "numpy array")
    read_only = np.empty((2, 3))
    read_only.flags.writeable = False
    rejects(errors.OutputArrayError, lambda: rms_norm(x, out=read_only), "read-only")


def test_input_checks_come_before_out_checks():
    rejects(errors.InvalidEpsilon, lambda: rms_norm(np.ones(3), eps=-1.0, out=np.empty(2)))


# --- the same errors as the reference ----------------------------------------------


def reference_error(call):
    with pytest.raises(errors.RMSNormError) as caught:
        call()
    return type(caught.value), str(caught.value)


def test_a_nan_row_far_down_is_named_as_the_reference_names_it():
    x = np.ones((100, 800), dtype=np.float32)
    x[5] = 0.0
    x[93, 7] = np.nan
    fast = reference_error(lambda: rms_norm(x, eps=0.0))
    reference = reference_error(lambda: rms_norm_forward(x, eps=0.0))
    assert fast == reference and fast[0] is errors.NonFiniteValue and "row 93" in fast[1]


def test_a_zero_row_with_zero_eps_is_named_as_the_reference_names_it():
    x = np.ones((2, 50, 800), dtype=np.float32)
    x[1, 17] = 0.0
    fast = reference_error(lambda: rms_norm(x, eps=0.0))
    assert fast == reference_error(lambda: rms_norm_forward(x, eps=0.0))
    assert fast[0] is errors.ZeroEnergyRow and "row (1, 17)" in fast[1]


def test_a_nan_upstream_row_is_named_as_the_reference_names_it():
    x, gain, upstream = random_case((100, 800), np.float32)
    upstream[77, 3] = np.inf
    fast = reference_error(lambda: rms_norm_backward(x, gain, EPS, upstream))
    reference = reference_error(lambda: reference_gradients(x, gain, EPS, upstream))
    assert fast == reference and fast[0] is errors.NonFiniteValue and "grad_output row 77" in fast[1]


def test_a_bad_input_row_is_reported_before_a_bad_upstream_row():
    x, gain, upstream = random_case((100, 800), np.float32)
    upstream[2, 0] = np.nan
    x[90, 0] = np.inf
    fast = reference_error(lambda: rms_norm_backward(x, gain, EPS, upstream))
    assert fast[0] is errors.NonFiniteValue and "input row 90" in fast[1]


def test_the_fast_path_never_modifies_its_inputs():
    x, gain, upstream = random_case((100, 800), np.float32)
    x[3] *= 1e30
    copies = x.copy(), gain.copy(), upstream.copy()
    rms_norm(x, gain, EPS)
    rms_norm(x, gain, EPS, out=np.empty_like(x))
    rms_norm_backward(x, gain, EPS, upstream)
    for array, copy in zip((x, gain, upstream), copies):
        assert np.array_equal(array, copy)


def test_blocks_hold_as_many_rows_as_fit_and_at_least_one():
    float32 = np.dtype(np.float32)
    row = 1024 * float32.itemsize  # 4 KiB rows
    x = np.zeros((3, 1024), np.float32)
    assert fastpath.rows_per_block(x, float32, fastpath.BLOCK_BYTES) == fastpath.BLOCK_BYTES // row
    assert fastpath.rows_per_block(x, float32, 3 * row - 1) == 2
    assert fastpath.rows_per_block(x, float32, 256) == 1  # the tests' tiny blocks still work


# --- the block size, from the cache the machine reports ------------------------------------


def test_cache_sizes_are_read_as_linux_writes_them():
    assert size_in_bytes("512K\n") == 512 * 1024
    assert size_in_bytes("16M") == 16 * 1024 * 1024
    assert size_in_bytes("32768") == 32768
    assert size_in_bytes("unknown") is None


def test_a_block_is_twice_one_cores_l2_cache_within_its_range():
    low, high = fastpath.BLOCK_RANGE
    assert fastpath.block_bytes(512 * 1024) == 1024 * 1024
    assert fastpath.block_bytes(2 * 1024 * 1024) == 4 * 1024 * 1024
    assert fastpath.block_bytes(32 * 1024) == low  # a block below this costs more in calls than it saves
    assert fastpath.block_bytes(1 << 30) == high
    assert fastpath.block_bytes(0) == 1024 * 1024  # a machine that reports no cache


def test_the_l2_cache_is_the_one_linux_describes():
    caches = Path("/sys/devices/system/cpu/cpu0/cache")
    sizes = [
        int((index / "size").read_text().strip().rstrip("K")) * 1024
        for index in caches.glob("index*")
        if (index / "level").read_text().strip() == "2" and (index / "type").read_text().strip() != "Instruction"
    ]
    if not sizes:
        pytest.skip("this machine describes no level-2 cache under /sys")
    assert cache_bytes(2) == sizes[0]
