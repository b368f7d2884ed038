"""Precision evidence: both paths against 60-digit decimal arithmetic, across every magnitude a dtype holds."""

from __future__ import annotations

import numpy as np
import pytest

from highprecision import exact_rms_norm, ulps_apart
from rmsnorm_course import rms_norm, rms_norm_forward
from rmsnorm_course.perf import kernel as fastpath
from rmsnorm_course.studies import precision

# Decades from the bottom of each dtype's range to the top (float32 from its subnormals).
MAGNITUDES = {np.float64: range(-300, 301, 10), np.float32: range(-44, 38, 2)}


def rows_at(exponents, width, dtype, seed=0):
    """One row per exponent: random signs and mantissas in [1, 10), times 10**exponent."""
    rng = np.random.default_rng(seed)
    mantissas = rng.uniform(1, 10, (len(exponents), width)) * rng.choice([-1, 1], (len(exponents), width))
    return (mantissas * 10.0 ** np.array(exponents, dtype=float)[:, None]).astype(dtype)


def both_paths(x, gain, eps):
    """The reference arithmetic, and the blocked arithmetic in blocks of a few rows."""
    return {
        "reference": rms_norm_forward(x, gain, eps).output,
        "fast": fastpath.rms_norm_blocked(x, gain, eps, block_bytes=256),
    }


def worst_ulps(got, x, gain, eps, dtype):
    exact = np.stack([exact_rms_norm(row, gain, eps, dtype=dtype) for row in x])
    return max(ulps_apart(got_row, exact_row) for got_row, exact_row in zip(got, exact))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("eps", [0.0, 1e-5])
def test_every_magnitude_is_normalized_to_within_a_few_ulps(dtype, eps):
    exponents = list(MAGNITUDES[dtype])
    x = rows_at(exponents, 8, dtype)
    gain = np.random.default_rng(1).uniform(0.5, 2.0, 8).astype(dtype)
    for path, got in both_paths(x, gain, eps).items():
        assert np.all(np.isfinite(got)), path
        assert worst_ulps(got, x, gain, eps, dtype) <= 3, path


@pytest.mark.parametrize(("dtype", "exponents"), [(np.float64, [-150, 0, 150]), (np.float32, [-18, 0, 18])])
def test_wide_rows_stay_within_a_few_ulps(dtype, exponents):
    x = rows_at(exponents, 1024, dtype, seed=2)
    for path, got in both_paths(x, None, 1e-5).items():
        assert worst_ulps(got, x, None, 1e-5, dtype) <= 3, path


def test_float16_rows_above_256_come_out_right():
    rng = np.random.default_rng(3)
    x = (rng.uniform(256, 60000, (12, 16)) * rng.choice([-1, 1], (12, 16))).astype(np.float16)
    x[0, :4] = [300, 1, 2, 3]  # one large value among small ones
    with np.errstate(over="ignore"):
        assert np.all(np.isinf(np.square(x[1:])))  # every square overflows float16's 65504
    for path, got in both_paths(x, None, 1e-5).items():
        assert got.dtype == np.float16, path
        assert worst_ulps(got, x, None, 1e-5, np.float16) <= 1, path


# --- the precision module, which the chapter's sweep figure comes from ---------------------------


def test_ulps_off_counts_spacings_and_marks_non_finite_rows():
    got = np.array([[1.0, 2.0], [np.inf, 1.0]], dtype=np.float32)
    reference = np.array([[1.0, 2.0 + 3 * float(np.spacing(np.float32(2.0)))], [1.0, 1.0]])
    np.testing.assert_array_equal(precision.ulps_off(got, reference), [3.0, np.inf])


def test_rows_at_puts_each_row_in_its_decade():
    x = precision.rows_at([-300, 0, 300], 16, np.float64)
    magnitudes = np.log10(np.abs(x))
    assert x.shape == (3, 16)
    assert np.all((magnitudes >= [[-300], [0], [300]]) & (magnitudes < [[-299], [1], [301]]))


def test_the_sweep_shows_the_package_right_everywhere_and_the_formula_failing_at_the_ends():
    result = precision.sweep()
    assert list(result.exponents) == list(precision.FLOAT32_DECADES)
    assert result.package_ulps.max() <= 2
    ulps = dict(zip(result.exponents.tolist(), result.formula_ulps.tolist()))
    assert ulps[0] <= 2 and np.isinf(ulps[-30]) and ulps[30] > 1e6
    assert result.formula_failures == sum(v > precision.FAILURE_ULPS for v in ulps.values()) >= 10


def test_float16_output_is_rounded_once_with_the_gain_applied_in_float32():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(50, 16)).astype(np.float16)
    gain = rng.uniform(0.5, 1.5, 16).astype(np.float16)
    x32, g32 = x.astype(np.float32), gain.astype(np.float32)
    expected = (x32 / np.sqrt(np.mean(x32**2, axis=-1, keepdims=True) + 1e-5) * g32).astype(np.float16)
    np.testing.assert_array_equal(rms_norm(x, gain, 1e-5), expected)
    order = precision.cast_order(rows=50, width=16, seed=3)
    assert order.values == 800 and 0 < order.differ < order.values and order.max_ulps == 1.0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, 1.0),
        (1 + 2**-8, 1.0),  # a tie: to the even neighbour, 1.0
        (1 + 3 * 2**-8, 1 + 2**-6),  # a tie: to the even neighbour, 1 + 2 * 2**-7
        (1 + 2**-7, 1 + 2**-7),  # representable: kept
        (300.0, 300.0),
        (65504.0, 65536.0),
        (-3.0, -3.0),
    ],
)
def test_to_bfloat16_keeps_eight_significant_bits_and_rounds_ties_to_even(value, expected):
    assert precision.to_bfloat16(np.float32(value))[()] == np.float32(expected)


def test_bfloat16_keeps_float32_range_and_loses_small_addends():
    facts = precision.bfloat16()
    assert facts.square_of_row == 90112.0  # 300**2 = 90000, nearest 8-bit significand: 11 * 2**13
    assert facts.largest == pytest.approx((2 - 2**-7) * 2.0**127)
    assert facts.spacing_at_one == 2**-7
    # at 256 the gap between bfloat16 values is 2, so 256 + 1 is a tie that rounds back to 256
    assert facts.running_sum == 256.0 and facts.float32_sum == precision.SUM_LENGTH
    assert facts.mean_square_ratio == 256 / precision.SUM_LENGTH
    assert precision.stalled_sum(1.0, 100, precision.BFLOAT16_SIGNIFICAND_BITS) == 100.0  # below 256, every 1 counts


@pytest.mark.parametrize("with_gain", [False, True])
def test_a_float32_row_of_ten_million_elements_stays_within_a_few_ulps(with_gain):
    """Its sum of squares, taken in float32 end to end, put the output about 350 ulps off.

    The yardstick is the same arithmetic in float64, whose own error is a billionth of
    a float32 ulp here.
    """
    rng = np.random.default_rng(5)
    x = rng.standard_normal(10**7).astype(np.float32)
    gain = rng.uniform(0.5, 1.5, x.size).astype(np.float32) if with_gain else None
    wide = x.astype(np.float64)
    expected = wide / np.sqrt(np.dot(wide, wide) / wide.size + 1e-5)
    if with_gain:
        expected *= gain
    for got in (rms_norm(x, gain, 1e-5), rms_norm(x[None, :], gain, 1e-5)[0]):
        assert got.dtype == np.float32
        assert ulps_apart(got, expected) <= 3  # from the exact value: the rounding to float32 included
