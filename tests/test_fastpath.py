"""The blocked fast path against the reference path: the same bits, the same errors, the same policy.

Every test here runs once with the block size this machine's cache gives and once with
the cache report forced to each of ``REPORTED_CACHES``, so that none of them holds only
on the machine it was written on.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from rmsnorm_course import RMSNorm, rms_norm, rms_norm_backward, rms_norm_forward
from rmsnorm_course.core import errors
from rmsnorm_course.core.checks import validated, validated_upstream
from rmsnorm_course.core.reference import CHUNK, gradients
from rmsnorm_course.perf import caches as machine
from rmsnorm_course.perf import kernel as fastpath
from rmsnorm_course.perf.caches import cache_bytes, last_level_cache, size_in_bytes

EPS = 1e-5
SMALL_BLOCKS = 4096  # bytes: a few rows per block, so every test crosses many block edges
ONE_ROW = 1  # bytes: a block of one row
WIDE = (CHUNK[4] + 904, CHUNK[8] + 476)  # float32 and float64 rows summed in several chunks
REPORTED_CACHES = (256 * 1024, 512 * 1024, 1024 * 1024, 32 * 1024 * 1024)  # bytes of L2 per core


@pytest.fixture(
    autouse=True,
    params=(None, *REPORTED_CACHES),
    ids=lambda size: "as reported" if size is None else f"L2 {size >> 10} KiB",
)
def reported_cache(request, monkeypatch):
    """The L2 size the fast path sizes its blocks from: this machine's, or one forced in its place."""
    if request.param is not None:
        monkeypatch.setattr(fastpath, "cache_bytes", lambda level=2: request.param)
        monkeypatch.setattr(fastpath, "BLOCK_BYTES", fastpath.block_bytes())
    return fastpath.BLOCK_BYTES


def same_bits(got, expected) -> bool:
    """The same dtype, shape and values, NaNs where NaNs are and every zero's sign as it is."""
    got, expected = np.asarray(got), np.asarray(expected)
    return (
        got.dtype == expected.dtype
        and got.shape == expected.shape
        and np.array_equal(got, expected, equal_nan=True)
        and np.array_equal(np.signbit(got), np.signbit(expected))
    )


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


# --- one arithmetic: rms_norm and rms_norm_forward give the same bits -------------------


def extreme_rows(dtype, width=24):
    """Rows that overflow, underflow, are all zero, or are ordinary, interleaved."""
    big, small = {np.float64: (1e200, 1e-200), np.float32: (1e25, 1e-25), np.float16: (1e4, 1e-6)}[dtype]
    rng = np.random.default_rng(1)
    rows = rng.standard_normal((40, width))
    rows[3] *= big
    rows[11] *= small
    rows[12] = 0.0
    rows[20, :5] = [big, -big, small, 1.0, 0.0]
    rows[31] = np.finfo(dtype).max / 2
    rows[35] = np.finfo(dtype).smallest_subnormal * np.arange(width)
    return rows.astype(dtype)


def cases_for(dtype):
    """Ordinary, narrow, wide and extreme inputs of ``dtype``, by name."""
    rng = np.random.default_rng(7)
    wide = WIDE[1] if np.dtype(dtype) == np.float64 else WIDE[0]
    cases = {
        "one row": rng.standard_normal(5),
        "batches": rng.standard_normal((3, 11, 130)) * 3,
        "64 x 512": rng.standard_normal((64, 512)),
        "narrow rows": rng.standard_normal((300, 3)),
        "wide rows": rng.standard_normal((6, wide)),
        "a column": rng.standard_normal((50, 1)),
    }
    if np.dtype(dtype).kind == "f":
        cases["extreme rows"] = extreme_rows(dtype)
        cases["extreme wide rows"] = np.tile(extreme_rows(dtype), (1, wide // 24 + 1))
    return {name: np.asarray(x * 9 if np.dtype(dtype).kind in "iu" else x).astype(dtype) for name, x in cases.items()}


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("eps", [EPS, 0.0, 1e-30, 1.0])
@pytest.mark.parametrize("block_bytes", [None, SMALL_BLOCKS, ONE_ROW], ids=["machine's blocks", "small", "one row"])
def test_rms_norm_is_rms_norm_forward_bit_for_bit(dtype, eps, block_bytes):
    """Before, the two paths differed in 9906 of 32768 float32 elements at (64, 512)."""
    for name, x in cases_for(dtype).items():
        gain = np.random.default_rng(8).uniform(0.5, 1.5, x.shape[-1]).astype(np.result_type(dtype, np.float16))
        for g in (None, gain):
            try:
                forward = rms_norm_forward(x, g, eps)
            except errors.RMSNormError:  # eps = 0 and an all-zero row: both paths refuse it alike
                assert reference_error(lambda x=x, g=g: rms_norm(x, g, eps)) == reference_error(
                    lambda x=x, g=g: rms_norm_forward(x, g, eps)
                ), name
                continue
            fast = fastpath.rms_norm_blocked(x, g, eps, block_bytes=block_bytes)
            assert same_bits(fast, forward.output), (name, g is None)
            if g is None:
                assert same_bits(fast, forward.normalized), name
            assert same_bits(rms_norm(x, g, eps, out=np.empty_like(fast)), forward.output), name


def test_the_issue_s_example_is_the_same_bits():
    x = np.random.default_rng(0).standard_normal((64, 512)).astype(np.float32)
    assert same_bits(rms_norm(x), rms_norm_forward(x).output)
    assert same_bits(
        rms_norm(x, np.linspace(0.5, 1.5, 512, dtype=np.float32)),
        rms_norm_forward(x, np.linspace(0.5, 1.5, 512, dtype=np.float32)).output,
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_views_and_copies_of_the_same_values_give_the_same_bits(dtype):
    """A dot product's rounding depends on its stride: every path takes its sums over contiguous rows."""
    x = cases_for(dtype)["wide rows"]
    spread = np.repeat(x, 2, axis=-1)[:, ::2]  # every other element of a wider array
    fortran = np.asfortranarray(x)
    expected = rms_norm_forward(x).output
    for view in (spread, fortran, x[::-1][::-1]):
        assert same_bits(rms_norm(view), expected)
        assert same_bits(rms_norm_forward(view).output, expected)


def test_a_row_gives_the_same_bits_whatever_rows_share_its_block():
    x = cases_for(np.float32)["extreme rows"]
    alone = np.stack([rms_norm(row[None, :], None, EPS)[0] for row in x])
    assert same_bits(rms_norm(x, None, EPS), alone)
    assert same_bits(fastpath.rms_norm_blocked(x, None, EPS, block_bytes=SMALL_BLOCKS), alone)


@pytest.mark.parametrize("gain_scale", [1e-36, 1e30, 0.0])
@pytest.mark.parametrize("width", [16, 2816])  # 2816: the width from which the kernel once joined 1/RMS and the gain
def test_gains_far_from_one_give_the_reference_s_bits(gain_scale, width):
    x = np.random.default_rng(3).standard_normal((40, width)).astype(np.float32) * 1e18
    gain = np.linspace(0.5, 1.5, width) * gain_scale
    gain[3] = 1.0  # one ordinary coordinate beside the extreme ones
    for block_bytes in (SMALL_BLOCKS, ONE_ROW, None):
        assert same_bits(fastpath.rms_norm_blocked(x, gain, EPS, block_bytes=block_bytes), reference_output(x, gain))


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
        "an eps below float32's least value": (few, None, 1e-46),
        "an eps that float32 rounds up to its least value": (few, None, 1e-45),
        "squares that overflow": (np.array([[1e200, 1.0]]), None, EPS),
        "squares that overflow, among many rows": (np.vstack([many, [[1e200] * 8]]), None, EPS),
        "squares that underflow, among many rows": (np.vstack([many, [[1e-200] * 8]]), None, 1e-300),
        "a NaN": (np.array([[1.0, np.nan]]), None, EPS),
        "a zero row at eps 0": (np.zeros((2, 4)), None, 0.0),
        "a zero row at eps 0, among many rows": (np.vstack([many, np.zeros((1, 8))]), None, 0.0),
        "a gain with NaN": (few, np.full(8, np.nan, np.float32), EPS),
        "a gain whose squares overflow": (few, np.full(8, 1e30, np.float32), EPS),
        "a negative eps": (few, None, -1.0),
        "a Fortran-ordered input": (np.asfortranarray(np.ones((3, 4))), None, EPS),
    }
    for name, (x, gain, eps) in cases.items():
        try:
            expected = reference_output(x, gain, eps)
        except errors.RMSNormError:
            fast = reference_error(lambda x=x, gain=gain, eps=eps: rms_norm(x, gain, eps))
            assert fast == reference_error(lambda x=x, gain=gain, eps=eps: rms_norm_forward(x, gain, eps)), name
        else:
            assert same_bits(rms_norm(x, gain, eps), expected), name


@pytest.mark.parametrize("values", [[1e200, 1.0], [1e-200, 0.0], [np.finfo(np.float64).max, 0.0]])
def test_rows_that_need_care_are_right_and_raise_no_warning(values):
    x = np.array([values, [3.0, 4.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = rms_norm(x, eps=1e-300)
    assert same_bits(y, reference_output(x, eps=1e-300))


def test_a_bad_gain_on_a_small_input_gets_the_reference_error():
    x = np.ones((2, 3))
    for gain in (np.array([1.0, np.inf, 1.0]), np.array([np.nan, 1.0, 1.0])):
        assert reference_error(lambda g=gain: rms_norm(x, g)) == reference_error(lambda g=gain: rms_norm_forward(x, g))


def test_public_functions_on_an_input_of_several_blocks_agree_with_the_reference(reported_cache):
    """The input's size comes from the block size the cache report gives: three blocks and a part."""
    width = 700
    rows = 3 * fastpath.rows_per_block(np.empty((1, width)), np.dtype(np.float32), reported_cache) + 5
    x, gain, upstream = random_case((rows, width), np.float32)
    assert x.nbytes > 3 * reported_cache and fastpath.worth_blocking(x, upstream)
    assert same_bits(rms_norm(x, gain, EPS), reference_output(x, gain))
    grad_x, grad_gain = rms_norm_backward(x, gain, EPS, upstream)
    ref_x, ref_gain = reference_gradients(x, gain, EPS, upstream)
    assert same_bits(grad_x, ref_x)
    assert grad_gain.dtype == np.float32
    assert_gradients_close(x, gain, EPS, upstream, (grad_x, grad_gain), (ref_x, ref_gain))


# --- forward ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("eps", [EPS, 1e-30])
def test_extreme_rows_are_finite_and_zero_rows_are_zeros(dtype, eps):
    x = extreme_rows(dtype)
    fast = fastpath.rms_norm_blocked(x, None, eps, block_bytes=SMALL_BLOCKS)
    assert np.all(np.isfinite(fast))
    assert same_bits(fast[12], np.zeros(24, dtype))
    assert same_bits(fast, reference_output(x, eps=eps))


def test_float16_rows_whose_squares_overflow_come_out_as_the_reference():
    rng = np.random.default_rng(2)
    x = rng.uniform(-60000, 60000, (50, 32)).astype(np.float16)
    x[7] = 300.0
    with np.errstate(over="ignore"):
        assert np.isinf(np.square(x)).any()
    fast = fastpath.rms_norm_blocked(x, None, EPS, block_bytes=SMALL_BLOCKS)
    assert same_bits(fast, reference_output(x))
    np.testing.assert_array_equal(fast[7], np.ones(32, dtype=np.float16))


def test_zero_rows_with_positive_eps_map_to_zeros():
    x = np.zeros((100, 700), dtype=np.float32)
    x[50] = 1.0
    y = rms_norm(x, eps=EPS)
    assert np.array_equal(y[:50], np.zeros((50, 700))) and np.all(y[50] > 0.99)


def test_empty_batch_and_single_row():
    assert fastpath.rms_norm_blocked(np.zeros((0, 5)), None, EPS).shape == (0, 5)
    assert same_bits(fastpath.rms_norm_blocked([3.0, 4.0], [1.5, 0.5], EPS), reference_output([3.0, 4.0], [1.5, 0.5]))


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


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int16])
@pytest.mark.parametrize("shape", [(1, 5), (37, 64), (3, 11, 130), (4, WIDE[0])])
def test_backward_grad_x_is_the_reference_s_bit_for_bit(dtype, shape):
    x, gain, upstream = random_case(shape, dtype)
    reference = reference_gradients(x, gain, EPS, upstream)
    out_dtype = np.result_type(dtype, np.float16) if np.dtype(dtype).kind == "f" else np.float64
    for block_bytes in (SMALL_BLOCKS, ONE_ROW, None):
        fast = fastpath.rms_norm_backward_blocked(x, gain, EPS, upstream, block_bytes=block_bytes)
        assert fast[0].dtype == fast[1].dtype == out_dtype
        assert same_bits(fast[0], reference[0].astype(out_dtype))
        assert_gradients_close(x, gain, EPS, upstream, fast, (reference[0], reference[1].astype(out_dtype)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_backward_grad_gain_of_one_block_is_the_reference_s_bit_for_bit(dtype):
    """Within a block the rows are summed one after another, as the reference sums them all."""
    x, gain, upstream = random_case((40, 24), dtype)
    reference = reference_gradients(x, gain, EPS, upstream)[1]
    for block_bytes in (None, x.nbytes):  # the machine's block, and one that just holds the input
        assert same_bits(
            fastpath.rms_norm_backward_blocked(x, gain, EPS, upstream, block_bytes=block_bytes)[1], reference
        )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_backward_on_extreme_rows_matches_the_reference(dtype):
    x = extreme_rows(dtype)
    rng = np.random.default_rng(4)
    gain, upstream = rng.uniform(0.5, 1.5, 24), rng.standard_normal(x.shape)
    fast = fastpath.rms_norm_backward_blocked(x, gain, EPS, upstream, block_bytes=SMALL_BLOCKS)
    reference = reference_gradients(x, gain, EPS, upstream)
    assert np.all(np.isfinite(fast[0])) and np.all(np.isfinite(fast[1]))
    assert same_bits(fast[0], reference[0])
    assert_gradients_close(x, gain, EPS, upstream, fast, reference)


def test_backward_when_grad_output_times_x_overflows():
    x = np.full((20, 8), 1e30, dtype=np.float32)
    upstream = np.full((20, 8), 1e20, dtype=np.float32)
    fast = fastpath.rms_norm_backward_blocked(x, None, EPS, upstream, block_bytes=SMALL_BLOCKS)
    reference = reference_gradients(x, np.ones(8), EPS, upstream)
    assert same_bits(fast[0], reference[0]) and same_bits(fast[1], reference[1])


def test_layer_backward_and_call_use_the_public_functions():
    x, gain, upstream = random_case((90, 800), np.float32)
    layer = RMSNorm.from_gain(gain, EPS)
    assert same_bits(layer(x), reference_output(x, gain))
    fast = layer.backward(x, upstream)
    reference = reference_gradients(x, gain, EPS, upstream)
    assert same_bits(fast[0], reference[0])
    assert_gradients_close(x, gain, EPS, upstream, fast, reference)


# --- out= -----------------------------------------------------------------------


def test_out_receives_the_result_and_is_returned():
    x, gain, _ = random_case((6, 10), np.float32)
    out = np.full_like(x, np.nan)
    returned = rms_norm(x, gain, EPS, out=out)
    assert returned is out
    assert same_bits(out, reference_output(x, gain))


def test_out_may_be_a_strided_view():
    x, gain, _ = random_case((6, 10), np.float64)
    canvas = np.zeros((6, 20))
    rms_norm(x, gain, EPS, out=canvas[:, ::2])
    assert same_bits(canvas[:, ::2], reference_output(x, gain))
    assert np.array_equal(canvas[:, 1::2], np.zeros((6, 10)))


def test_float16_out_for_float16_input():
    x = np.array([[300.0, 1.0], [3.0, 4.0]], dtype=np.float16)
    out = np.empty_like(x)
    rms_norm(x, eps=0.0, out=out)
    assert same_bits(out, reference_output(x, eps=0.0))


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


def test_out_that_is_a_masked_array_is_refused_and_left_as_it_was():
    """Before, the result was written under the mask and the mask kept: masked values silently stayed hidden."""
    x = np.ones((2, 3))
    out = np.ma.masked_array(np.zeros((2, 3)), mask=[[0, 1, 0], [0, 0, 0]])
    rejects(errors.MaskedArrayError, lambda: rms_norm(x, out=out), "out is a masked array", "expected a plain")
    assert np.array_equal(out.data, np.zeros((2, 3))) and out.mask.sum() == 1


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


def test_an_upstream_too_large_for_float32_is_named_as_the_reference_names_it():
    x, gain, upstream = random_case((100, 800), np.float32)
    upstream[60, 1] = 1e39  # a float64 upstream for a float32 input: float32 cannot hold this one
    fast = reference_error(lambda: rms_norm_backward(x, gain, EPS, upstream))
    reference = reference_error(lambda: reference_gradients(x, gain, EPS, upstream))
    assert fast == reference and fast[0] is errors.NonFiniteValue and "1e+39 at index (60, 1)" in fast[1]


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


def test_blocks_hold_as_many_rows_as_fit_and_at_least_one(reported_cache):
    float32 = np.dtype(np.float32)
    row = 1024 * float32.itemsize  # 4 KiB rows
    x = np.zeros((3, 1024), np.float32)
    assert fastpath.rows_per_block(x, float32, reported_cache) == reported_cache // row
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


def test_the_forced_cache_report_gives_its_block_size(reported_cache, request):
    forced = request.node.callspec.params["reported_cache"]
    expected = fastpath.block_bytes(machine.cache_bytes(2) if forced is None else forced)
    assert reported_cache == fastpath.BLOCK_BYTES == expected
    assert fastpath.BLOCK_RANGE[0] <= fastpath.backward_block_bytes() <= reported_cache  # four arrays in the cache


def describe_caches(folder, caches):
    """A /sys/devices/system/cpu/cpu0/cache of our own: (level, type, size) per index."""
    for number, (level, kind, size) in enumerate(caches):
        index = folder / f"index{number}"
        index.mkdir(parents=True)
        (index / "level").write_text(f"{level}\n")
        (index / "type").write_text(f"{kind}\n")
        (index / "size").write_text(f"{size}\n")
    return folder


def test_the_l2_cache_is_the_data_cache_linux_describes(tmp_path, monkeypatch):
    """Where the C library names no size, /sys is read: the level-2 data or unified cache, not an instruction one."""
    caches = [(1, "Data", "48K"), (1, "Instruction", "32K"), (2, "Instruction", "64K"), (2, "Unified", "1280K"),
              (3, "Unified", "48M")]  # fmt: skip
    monkeypatch.setattr(machine, "CACHES", str(describe_caches(tmp_path / "cache", caches)))
    monkeypatch.setattr(machine.os, "sysconf", lambda name: 0)  # the C library reports no size
    assert cache_bytes(2) == 1280 * 1024
    assert cache_bytes(1) == 48 * 1024
    assert cache_bytes(4) is None
    assert last_level_cache() == 48 * 1024 * 1024


def test_the_c_library_s_report_comes_first(tmp_path, monkeypatch):
    monkeypatch.setattr(machine, "CACHES", str(describe_caches(tmp_path / "cache", [(2, "Unified", "1280K")])))
    monkeypatch.setattr(machine.os, "sysconf", lambda name: 2 * 1024 * 1024 if name == "SC_LEVEL2_CACHE_SIZE" else 0)
    assert cache_bytes(2) == 2 * 1024 * 1024


def test_a_machine_that_reports_no_cache_gets_the_default_block(tmp_path, monkeypatch):
    monkeypatch.setattr(machine, "CACHES", str(tmp_path / "absent"))
    monkeypatch.setattr(machine.os, "sysconf", lambda name: (_ for _ in ()).throw(ValueError(name)))
    assert cache_bytes(2) is None and last_level_cache() is None
    assert fastpath.block_bytes(cache_bytes(2) or 0) == 1024 * 1024
