"""The cache-blocked kernel against core: within a few units in the last place, the same refusals, inputs untouched.

Inputs are small and blocks forced small (``SMALL_BLOCKS``, ``ONE_ROW``), so that every
test crosses many block edges in little time. The tests whose blocks come from the
machine's cache run with this machine's report and with the report forced to each of
``REPORTED_CACHES`` (the ``reported_cache`` fixture), so that none holds only on the
machine it was written on.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from highprecision import within_ulps
from rmsnorm_course import rms_norm, rms_norm_forward
from rmsnorm_course.core import errors
from rmsnorm_course.core.reference import CHUNK
from rmsnorm_course.perf import caches as machine
from rmsnorm_course.perf import kernel

EPS = 1e-5
ULPS = 4  # how far the kernel may be from core, in units of the last place of the output's dtype
SMALL_BLOCKS = 4096  # bytes: a few rows per block
ONE_ROW = 1  # bytes: a block of one row
BLOCKS = [None, SMALL_BLOCKS, ONE_ROW]
BLOCK_IDS = ["machine's blocks", "small", "one row"]
WIDE = (CHUNK[4] + 904, CHUNK[8] + 476)  # float32 and float64 rows summed in several chunks
REPORTED_CACHES = (256 * 1024, 1024 * 1024, 1280 * 1024, 32 * 1024 * 1024)  # bytes of L2 per core


@pytest.fixture(
    params=(None, *REPORTED_CACHES),
    ids=lambda size: "as reported" if size is None else f"L2 {size >> 10} KiB",
)
def reported_cache(request, monkeypatch):
    """The block size the kernel takes from the L2 cache: this machine's, or one forced in its place."""
    if request.param is not None:
        monkeypatch.setattr(kernel, "cache_bytes", lambda level=2: request.param)
        monkeypatch.setattr(kernel, "BLOCK_BYTES", kernel.block_bytes())
        monkeypatch.setattr(kernel, "WHOLE_BYTES", kernel.whole_bytes())
    return kernel.BLOCK_BYTES


def close(got, expected) -> bool:
    return within_ulps(got, expected, ULPS)


def same_bits(got, expected) -> bool:
    """The same dtype, shape and values, and every zero's sign as it is."""
    got, expected = np.asarray(got), np.asarray(expected)
    same_signs = np.array_equal(np.signbit(got), np.signbit(expected))
    return got.dtype == expected.dtype and np.array_equal(got, expected) and same_signs


def core(x, gain=None, eps=EPS):
    return rms_norm_forward(x, gain, eps).output


def refusal(call):
    """The RMSNormError ``call`` raises, as its type and message."""
    with pytest.raises(errors.RMSNormError) as caught:
        call()
    return type(caught.value), str(caught.value)


def random_case(shape, dtype, seed=0, scale=3.0):
    rng = np.random.default_rng(seed)
    x = (scale * rng.standard_normal(shape)).astype(dtype)
    gain = rng.uniform(0.5, 1.5, shape[-1])
    return x, gain


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


# --- within a few ulps of core, or refused as core refuses -----------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("eps", [EPS, 0.0, 1e-30, 1.0])
@pytest.mark.parametrize("block_bytes", BLOCKS, ids=BLOCK_IDS)
def test_the_kernel_is_core_to_within_a_few_ulps(dtype, eps, block_bytes):
    for name, x in cases_for(dtype).items():
        gain = np.random.default_rng(8).uniform(0.5, 1.5, x.shape[-1]).astype(np.result_type(dtype, np.float16))
        for g in (None, gain):
            try:
                expected = core(x, g, eps)
            except errors.RMSNormError:  # eps = 0 and an all-zero row
                assert refusal(lambda x=x, g=g: kernel.rms_norm_blocked(x, g, eps, block_bytes=block_bytes)) == refusal(
                    lambda x=x, g=g: core(x, g, eps)
                ), name
                continue
            assert close(kernel.rms_norm_blocked(x, g, eps, block_bytes=block_bytes), expected), (name, g is None)


@pytest.mark.parametrize("width", [16, kernel.JOIN_WIDTH - 1])
def test_either_way_of_building_the_factor_gives_the_same_bits(width, monkeypatch):
    """1/RMS * gain in one product, or from the gain tiled as a block (narrow rows, an input of enough blocks)."""
    x, gain = random_case((64, width), np.float32)
    block_bytes = 2 * width * 4  # two rows: 32 blocks
    monkeypatch.setattr(kernel, "SCRATCH_SHARE", 32)
    tiled = kernel.rms_norm_blocked(x, gain, EPS, block_bytes=block_bytes)
    monkeypatch.setattr(kernel, "SCRATCH_SHARE", 33)
    assert same_bits(kernel.rms_norm_blocked(x, gain, EPS, block_bytes=block_bytes), tiled)
    monkeypatch.setattr(kernel, "JOIN_WIDTH", width)
    assert same_bits(kernel.rms_norm_blocked(x, gain, EPS, block_bytes=block_bytes), tiled)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_views_and_copies_of_the_same_values_give_the_same_bits(dtype):
    """A dot product's rounding depends on its stride: the kernel takes its sums over contiguous rows."""
    x = cases_for(dtype)["wide rows"]
    spread = np.repeat(x, 2, axis=-1)[:, ::2]  # every other element of a wider array
    expected = kernel.rms_norm_blocked(x, None, EPS, block_bytes=SMALL_BLOCKS)
    assert close(expected, core(x))
    for view in (spread, np.asfortranarray(x), x[::-1][::-1]):
        for block_bytes in BLOCKS:
            assert same_bits(kernel.rms_norm_blocked(view, None, EPS, block_bytes=block_bytes), expected)


def test_a_row_gives_the_same_bits_whatever_rows_share_its_block():
    x = cases_for(np.float32)["extreme rows"]
    alone = np.stack([kernel.rms_norm_blocked(row[None, :], None, EPS) for row in x])[:, 0]
    for block_bytes in BLOCKS:
        assert same_bits(kernel.rms_norm_blocked(x, None, EPS, block_bytes=block_bytes), alone)


@pytest.mark.parametrize("x_scale", [1.0, 1e18])
@pytest.mark.parametrize("gain_scale", [1e-38, 1e-36, 1e30, 2e38, 0.0])
@pytest.mark.parametrize("width", [16, kernel.JOIN_WIDTH])  # the tiled gain, and 1/RMS and the gain joined
def test_gains_far_from_one_are_right(x_scale, gain_scale, width):
    """1/RMS * gain can overflow or lose its digits where x-hat * gain does not: those rows are redone."""
    x = np.random.default_rng(3).standard_normal((40, width)).astype(np.float32)
    x[5] = 1e-3
    x[5, 0] = 1.0  # x-hat near sqrt(d): a product that is normal where 1/RMS * gain is not
    x *= np.float32(x_scale)
    gain = (np.linspace(0.5, 1.5, width) * gain_scale).astype(np.float32)
    gain[3] = 1.0  # one ordinary coordinate beside the extreme ones
    expected = core(x, gain)
    for block_bytes in (SMALL_BLOCKS, ONE_ROW, None):
        got = kernel.rms_norm_blocked(x, gain, EPS, block_bytes=block_bytes)
        assert np.array_equal(np.isfinite(got), np.isfinite(expected))
        finite = np.isfinite(expected)
        assert close(got[finite], expected[finite])


# --- which route a call takes ----------------------------------------------------------


def test_small_requests_that_need_care_get_core_s_result_or_refusal():
    few = np.ones((kernel.FEW_ROWS, 8), dtype=np.float32)
    many = np.ones((kernel.FEW_ROWS + 1, 8))
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
            expected = core(x, gain, eps)
        except errors.RMSNormError:
            got = refusal(lambda x=x, gain=gain, eps=eps: kernel.rms_norm_blocked(x, gain, eps))
            assert got == refusal(lambda x=x, gain=gain, eps=eps: core(x, gain, eps)), name
        else:
            assert close(kernel.rms_norm_blocked(x, gain, eps), expected), name


@pytest.mark.parametrize("values", [[1e200, 1.0], [1e-200, 0.0], [np.finfo(np.float64).max, 0.0]])
def test_rows_that_need_care_are_right_and_raise_no_warning(values):
    x = np.array([values, [3.0, 4.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for block_bytes in (None, ONE_ROW):
            assert close(kernel.rms_norm_blocked(x, eps=1e-300, block_bytes=block_bytes), core(x, eps=1e-300))


def test_a_bad_gain_on_a_small_input_gets_core_s_refusal():
    x = np.ones((2, 3))
    for gain in (np.array([1.0, np.inf, 1.0]), np.array([np.nan, 1.0, 1.0])):
        assert refusal(lambda g=gain: kernel.rms_norm_blocked(x, g)) == refusal(lambda g=gain: core(x, g))


def test_an_input_of_several_blocks_is_core_s_to_within_a_few_ulps(reported_cache):
    """The input's size comes from the sizes the cache report gives: beyond what is taken whole, by a block and part."""
    width = 700
    row = width * np.dtype(np.float32).itemsize
    rows = kernel.WHOLE_BYTES // row + kernel.rows_per_block(np.empty((1, width)), np.dtype(np.float32), reported_cache)
    x, gain = random_case((rows + 5, width), np.float32)
    assert x.nbytes > kernel.WHOLE_BYTES + reported_cache
    assert close(kernel.rms_norm_blocked(x, gain, EPS), core(x, gain))
    assert close(kernel.rms_norm_blocked(x, gain, EPS, out=np.empty_like(x)), core(x, gain))


# --- the forward -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("eps", [EPS, 1e-30])
def test_extreme_rows_are_finite_and_zero_rows_are_zeros(dtype, eps):
    x = extreme_rows(dtype)
    fast = kernel.rms_norm_blocked(x, None, eps, block_bytes=SMALL_BLOCKS)
    assert np.all(np.isfinite(fast))
    assert same_bits(fast[12], np.zeros(24, dtype))
    assert close(fast, core(x, eps=eps))


def test_float16_rows_whose_squares_overflow_come_out_as_core_s():
    rng = np.random.default_rng(2)
    x = rng.uniform(-60000, 60000, (50, 32)).astype(np.float16)
    x[7] = 300.0
    with np.errstate(over="ignore"):
        assert np.isinf(np.square(x)).any()
    fast = kernel.rms_norm_blocked(x, None, EPS, block_bytes=SMALL_BLOCKS)
    assert close(fast, core(x))
    np.testing.assert_array_equal(fast[7], np.ones(32, dtype=np.float16))


def test_zero_rows_with_positive_eps_map_to_zeros():
    x = np.zeros((100, 700), dtype=np.float32)
    x[50] = 1.0
    for block_bytes in (None, SMALL_BLOCKS):
        y = kernel.rms_norm_blocked(x, eps=EPS, block_bytes=block_bytes)
        assert np.array_equal(y[:50], np.zeros((50, 700))) and np.all(y[50] > 0.99)


def test_empty_batch_and_single_row():
    assert kernel.rms_norm_blocked(np.zeros((0, 5)), None, EPS).shape == (0, 5)
    assert close(kernel.rms_norm_blocked([3.0, 4.0], [1.5, 0.5], EPS), core([3.0, 4.0], [1.5, 0.5]))


# --- out= --------------------------------------------------------------------------------


@pytest.mark.parametrize("block_bytes", BLOCKS, ids=BLOCK_IDS)
def test_out_receives_the_result_and_is_returned(block_bytes):
    x, gain = random_case((6, 10), np.float32)
    out = np.full_like(x, np.nan)
    assert kernel.rms_norm_blocked(x, gain, EPS, out, block_bytes) is out
    assert close(out, core(x, gain))


def test_out_may_be_a_strided_view():
    x, gain = random_case((6, 10), np.float64)
    canvas = np.zeros((6, 20))
    kernel.rms_norm_blocked(x, gain, EPS, out=canvas[:, ::2], block_bytes=SMALL_BLOCKS)
    assert close(canvas[:, ::2], core(x, gain))
    assert np.array_equal(canvas[:, 1::2], np.zeros((6, 10)))


def test_float16_out_for_float16_input():
    x = np.array([[300.0, 1.0], [3.0, 4.0]], dtype=np.float16)
    out = np.empty_like(x)
    kernel.rms_norm_blocked(x, eps=0.0, out=out)
    assert close(out, core(x, eps=0.0))


def refused_alike(error, x, *fragments, gain=None, eps=EPS, out=None):
    """The kernel refuses as core's ``rms_norm`` does, says ``fragments``, and leaves ``out`` as it was."""
    before = None if not isinstance(out, np.ndarray) else np.ma.copy(out)
    got = refusal(lambda: kernel.rms_norm_blocked(x, gain, eps, out))
    assert got == refusal(lambda: rms_norm(x, gain, eps, out=out))
    assert got[0] is error and all(fragment in got[1] for fragment in fragments), got
    if before is not None:
        assert np.array_equal(np.ma.getdata(out), np.ma.getdata(before))
    return got


def test_out_of_the_wrong_shape():
    refused_alike(errors.OutputShapeError, np.ones((3, 4)), "(4, 3)", "(3, 4)", "expected", out=np.zeros((4, 3)))


def test_out_of_the_wrong_dtype():
    refused_alike(errors.OutputDtypeError, np.ones((3, 4), np.float16), "float64", "float16", out=np.zeros((3, 4)))


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
    refused_alike(errors.OutputOverlapError, x, "shares memory", gain=gain, out=target)
    assert np.array_equal(x, np.ones((4, 4))) and np.array_equal(gain, np.ones(4))


def test_out_that_is_not_a_writeable_array():
    x = np.ones((2, 3))
    refused_alike(errors.OutputArrayError, x, "list", "numpy array", out=[[0.0] * 3] * 2)
    read_only = np.zeros((2, 3))
    read_only.flags.writeable = False
    refused_alike(errors.OutputArrayError, x, "read-only", out=read_only)


def test_out_that_is_a_masked_array_is_refused_and_left_as_it_was():
    """Before, the result was written under the mask and the mask kept: masked values silently stayed hidden."""
    out = np.ma.masked_array(np.zeros((2, 3)), mask=[[0, 1, 0], [0, 0, 0]])
    refused_alike(errors.MaskedArrayError, np.ones((2, 3)), "out is a masked array", "expected a plain", out=out)
    assert out.mask.sum() == 1


def test_input_checks_come_before_out_checks():
    refused_alike(errors.InvalidEpsilon, np.ones(3), eps=-1.0, out=np.empty(2))


@pytest.mark.parametrize("block_bytes", BLOCKS, ids=BLOCK_IDS)
def test_an_input_refused_for_its_values_is_refused_for_them_before_its_out(block_bytes):
    """Before, a NaN input with an out of the wrong shape was refused for the out, where core names the NaN."""
    x = np.ones((30, 8))
    x[21, 2] = np.nan
    got = refused_alike(errors.NonFiniteValue, x, "row 21", out=np.zeros((8, 30)))
    assert got == refusal(lambda: kernel.rms_norm_blocked(x, None, EPS, np.zeros((8, 30)), block_bytes))


# --- the same refusals as core -----------------------------------------------------------


@pytest.mark.parametrize("block_bytes", BLOCKS, ids=BLOCK_IDS)
def test_a_nan_row_far_down_is_named_as_core_names_it(block_bytes):
    x = np.ones((100, 80), dtype=np.float32)
    x[5] = 0.0
    x[93, 7] = np.nan
    got = refusal(lambda: kernel.rms_norm_blocked(x, eps=0.0, block_bytes=block_bytes))
    assert got == refusal(lambda: core(x, eps=0.0))
    assert got[0] is errors.NonFiniteValue and "row 93" in got[1]


@pytest.mark.parametrize("block_bytes", BLOCKS, ids=BLOCK_IDS)
def test_a_zero_row_with_zero_eps_is_named_as_core_names_it(block_bytes):
    x = np.ones((2, 50, 80), dtype=np.float32)
    x[1, 17] = 0.0
    got = refusal(lambda: kernel.rms_norm_blocked(x, eps=0.0, block_bytes=block_bytes))
    assert got == refusal(lambda: core(x, eps=0.0))
    assert got[0] is errors.ZeroEnergyRow and "row (1, 17)" in got[1]


@pytest.mark.parametrize("block_bytes", BLOCKS, ids=BLOCK_IDS)
def test_the_kernel_never_modifies_its_inputs(block_bytes):
    narrow, narrow_gain = random_case((100, 80), np.float32)
    narrow[3] *= 1e30
    wide, wide_gain = random_case((6, kernel.JOIN_WIDTH), np.float32)
    for x, gain in ((narrow, narrow_gain), (narrow, narrow_gain.astype(np.float32)), (wide, wide_gain)):
        copies = x.copy(), gain.copy()
        kernel.rms_norm_blocked(x, gain, EPS, block_bytes=block_bytes)
        kernel.rms_norm_blocked(x, gain, EPS, np.empty_like(x), block_bytes)
        assert np.array_equal(x, copies[0]) and np.array_equal(gain, copies[1])


# --- the block size, from the cache the machine reports ----------------------------------


def test_blocks_hold_as_many_rows_as_fit_and_at_least_one(reported_cache):
    float32 = np.dtype(np.float32)
    row = 1024 * float32.itemsize  # 4 KiB rows
    x = np.zeros((3, 1024), np.float32)
    assert kernel.rows_per_block(x, float32, reported_cache) == reported_cache // row
    assert kernel.rows_per_block(x, float32, 3 * row - 1) == 2
    assert kernel.rows_per_block(x, float32, 256) == 1  # the tests' tiny blocks still work


def test_a_block_is_one_cores_l2_cache_within_its_range():
    low, high = kernel.BLOCK_RANGE
    assert kernel.block_bytes(1280 * 1024) == 1280 * 1024
    assert kernel.block_bytes(512 * 1024) == 512 * 1024
    assert kernel.block_bytes(64 * 1024) == low  # a block below this costs more in calls than it saves
    assert kernel.block_bytes(1 << 30) == high
    assert kernel.block_bytes(0) == 1024 * 1024  # a machine that reports no cache: taken as 1 MiB


def test_an_input_of_up_to_two_l2_caches_is_taken_whole_and_no_more_than_8_mib():
    assert kernel.whole_bytes(1280 * 1024) == 2560 * 1024
    assert kernel.whole_bytes(0) == 2 * 1024 * 1024
    assert kernel.whole_bytes(32 * 1024 * 1024) == 8 * 1024 * 1024


def test_the_forced_cache_report_gives_its_sizes(reported_cache, request):
    forced = request.node.callspec.params["reported_cache"]
    cache = machine.cache_bytes(2) if forced is None else forced
    assert reported_cache == kernel.BLOCK_BYTES == kernel.block_bytes(cache)
    assert kernel.WHOLE_BYTES == kernel.whole_bytes(cache)
    if cache and kernel.BLOCK_RANGE[0] <= cache <= kernel.BLOCK_RANGE[1]:
        assert kernel.BLOCK_BYTES == cache < kernel.WHOLE_BYTES  # a block is the cache; twice it is taken whole
