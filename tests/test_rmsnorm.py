"""The reference RMSNorm: the seed fixture's values, the precision policy, every boundary."""

from __future__ import annotations

import decimal
import fractions

import numpy as np
import pytest

from highprecision import exact_rms_norm, ulps_apart
from rmsnorm_course import RMSNorm, RMSNormError, rms_norm, rms_norm_backward, rms_norm_forward
from rmsnorm_course.core import errors
from rmsnorm_course.core.tape import tape_rms_norm
from rmsnorm_course.studies.thresholds import ROUNDING

X, G, EPS = [3.0, 4.0], [1.5, 0.5], 1e-5


def test_worked_example_stages_match_the_rust_chapter():
    f = rms_norm_forward(X, G, EPS)
    assert f.mean_square.shape == (1,) and f.mean_square[0] == 12.5
    assert f.inverse_rms[0] == pytest.approx(0.282843, abs=5e-7)
    np.testing.assert_allclose(f.normalized, [0.848528, 1.131370], atol=5e-7)
    np.testing.assert_allclose(f.output, [1.272792, 0.565685], atol=5e-7)


def test_worked_example_against_the_formula_by_hand():
    root = np.sqrt((3.0**2 + 4.0**2) / 2 + EPS)
    np.testing.assert_allclose(rms_norm(X, G, EPS), [1.5 * 3 / root, 0.5 * 4 / root], rtol=1e-15)


def test_normalized_mean_square_is_ms_over_ms_plus_eps():
    f = rms_norm_forward(X, G, EPS)
    assert np.mean(f.normalized**2) == pytest.approx(12.5 / (12.5 + EPS), rel=1e-14)
    assert round(float(np.mean(f.normalized**2)), 6) == 0.999999


def test_scale_cards_reproduce_the_rust_chapter():
    x, tiny = np.array(X), np.array([0.0003, 0.0004])
    ideal = np.max(np.abs(rms_norm(10 * x, eps=0) - rms_norm(x, eps=0)))
    assert ideal <= ROUNDING
    production = np.max(np.abs(rms_norm(10 * x, eps=EPS) - rms_norm(x, eps=EPS)))
    assert production == pytest.approx(4.48e-7, rel=1e-3)
    np.testing.assert_allclose(rms_norm(tiny, eps=EPS), [0.094281, 0.125708], atol=5e-7)
    np.testing.assert_allclose(rms_norm(10 * tiny, eps=EPS), [0.632456, 0.843274], atol=5e-7)
    near_zero = np.max(np.abs(rms_norm(10 * tiny, eps=EPS) - rms_norm(tiny, eps=EPS)))
    assert near_zero == pytest.approx(0.717566, abs=5e-7)


def test_backward_matches_the_rust_chapter_s_gradients():
    grad_x, grad_gain = rms_norm_backward(X, G, EPS, [1.0, -2.0])
    np.testing.assert_allclose(grad_x, [0.407293, -0.305470], atol=5e-7)
    np.testing.assert_allclose(grad_gain, [0.848528, -2.262741], atol=5e-7)


def test_batch_rows_and_the_all_zero_row():
    np.testing.assert_allclose(rms_norm([[3, 4], [0, 5]], G, EPS), [[1.272792, 0.565685], [0, 0.707106]], atol=1e-6)
    assert np.array_equal(rms_norm([0.0, 0.0], G, EPS), [0.0, 0.0])


def test_zero_sized_batch_keeps_its_shape():
    y = rms_norm(np.zeros((0, 4, 3)), eps=EPS)
    assert y.shape == (0, 4, 3)
    grad_x, grad_gain = rms_norm_backward(np.zeros((0, 3)), np.ones(3), EPS, np.zeros((0, 3)))
    assert grad_x.shape == (0, 3)
    assert np.array_equal(grad_gain, np.zeros(3))


def test_btd_shapes_in_and_out():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 4))
    grad_x, grad_gain = rms_norm_backward(x, np.ones(4), EPS, np.ones_like(x))
    assert rms_norm(x).shape == (2, 5, 4) and grad_x.shape == (2, 5, 4) and grad_gain.shape == (4,)


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        (np.int64, np.float64),
        (np.bool_, np.float64),
        (np.float16, np.float16),
        (np.float32, np.float32),
        (np.float64, np.float64),
    ],
)
def test_dtype_policy(dtype, expected):
    assert rms_norm(np.array([1, 0, 1], dtype=dtype)).dtype == expected


def test_float16_row_with_300_is_computed_in_float32():
    row = np.array([300.0, 1.0], dtype=np.float16)
    with np.errstate(over="ignore"):
        assert np.isinf(np.square(row)).any()  # squaring in float16 itself overflows
    y = rms_norm(row, eps=0)
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y, exact_rms_norm(row, eps=0, dtype=np.float16))


@pytest.mark.parametrize(
    ("row", "eps", "dtype"),
    [
        ([1e200, -2e200, 3e199], 1e-5, np.float64),
        ([1e-200, 2e-200, -5e-201], 0.0, np.float64),
        ([1e-200, 2e-200], 1e-300, np.float64),
        ([5e-324, 1e-320], 0.0, np.float64),
        ([1e20, 3e20], 1e-5, np.float32),
        ([1e-25, -3e-25], 0.0, np.float32),
        ([1.7e308, 1.7e308], 0.0, np.float64),
    ],
)
def test_overflowing_and_underflowing_rows_are_normalized_correctly(row, eps, dtype):
    x = np.array(row, dtype=dtype)
    y = rms_norm(x, eps=eps)
    assert np.all(np.isfinite(y)) and np.any(y != 0)
    assert ulps_apart(y, exact_rms_norm(x, eps=eps, dtype=dtype)) <= 4


def test_tiny_row_dominated_by_eps_does_not_vanish():
    # eps / M**2 overflows here; the row is eps-dominated and x / sqrt(eps) is the answer.
    x = np.array([1e-320, 2e-320])
    y = rms_norm(x, eps=1e-300)
    np.testing.assert_allclose(y, exact_rms_norm(x, eps=1e-300), rtol=1e-12)
    assert y[0] > 0


def test_tiny_row_with_ordinary_eps_takes_the_plain_path():
    x = np.array([1e-200, -1e-200])
    assert np.array_equal(rms_norm(x, eps=1e-5), x / np.sqrt(1e-5))


def test_rescaled_rows_leave_other_rows_alone():
    x = np.array([[1e200, 2e200], [3.0, 4.0]])
    y = rms_norm(x, eps=EPS)
    assert np.array_equal(y[1], rms_norm([3.0, 4.0], eps=EPS))
    np.testing.assert_allclose(y[0], [1 / np.sqrt(2.5), 2 / np.sqrt(2.5)], rtol=1e-15)


def test_backward_on_an_overflowing_row_is_finite_and_scale_consistent():
    x = np.array([1e200, 2e200])
    grad_x, grad_gain = rms_norm_backward(x, [1.0, 1.0], 0.0, [1.0, -1.0])
    small_x, small_gain = rms_norm_backward(x / 1e200, [1.0, 1.0], 0.0, [1.0, -1.0])
    np.testing.assert_allclose(grad_x * 1e200, small_x, rtol=1e-14)
    np.testing.assert_allclose(grad_gain, small_gain, rtol=1e-14)


def test_inputs_are_never_modified():
    x = np.array([[3.0, 4.0], [1e200, 2e200]])
    gain = np.array([1.5, 0.5])
    upstream = np.array([[1.0, -2.0], [0.5, 0.5]])
    copies = x.copy(), gain.copy(), upstream.copy()
    rms_norm_forward(x, gain, EPS)
    rms_norm_backward(x, gain, EPS, upstream)
    for array, copy in zip((x, gain, upstream), copies):
        assert np.array_equal(array, copy)


def test_output_is_not_a_view_of_the_input():
    x = np.array([3.0, 4.0])
    y = rms_norm(x, eps=EPS)
    y[0] = 99.0
    assert x[0] == 3.0


# --- boundaries: one test per error, type and message --------------------


def rejects(error, call, *fragments):
    with pytest.raises(error) as caught:
        call()
    assert isinstance(caught.value, RMSNormError) and isinstance(caught.value, ValueError)
    for fragment in fragments:
        assert fragment in str(caught.value)
    return caught.value


@pytest.mark.parametrize("eps", [-1e-5, float("nan"), float("inf"), -float("inf")])
def test_invalid_eps(eps):
    rejects(errors.InvalidEpsilon, lambda: rms_norm(X, G, eps), "eps must be finite and >= 0", str(eps))


def test_eps_that_is_not_a_number():
    rejects(errors.InvalidEpsilon, lambda: rms_norm(X, G, "small"), "'small'", "expected a float or an int")


def test_empty_feature_width():
    rejects(errors.EmptyFeatureWidth, lambda: rms_norm(np.zeros((2, 0))), "(2, 0)", "expected a feature width >= 1")


def test_gain_of_rank_two():
    rejects(errors.GainShapeError, lambda: rms_norm(X, [G]), "(1, 2)", "expected rank one")


def test_empty_gain():
    rejects(errors.EmptyFeatureWidth, lambda: rms_norm(X, []), "gain has width 0")


def test_rank_zero_input():
    rejects(errors.InputRankZero, lambda: rms_norm(3.0), "rank 0", "expected at least one axis")


def test_width_mismatch():
    rejects(errors.WidthMismatch, lambda: rms_norm([1.0, 2.0, 3.0], G), "width 3", "width 2", "expected equal widths")


def test_zero_row_with_zero_eps_names_the_row():
    x = np.ones((2, 3, 2))
    x[1, 2] = 0.0
    error = rejects(errors.ZeroEnergyRow, lambda: rms_norm(x, eps=0.0), "row (1, 2)", "all zeros", "expected eps > 0")
    assert error.boundary == "zero-energy-epsilon-zero"


def test_nonfinite_input_names_the_row():
    rejects(errors.NonFiniteValue, lambda: rms_norm([[1.0, 2.0], [1.0, np.inf], [np.nan, 0.0]]), "row 1", "finite")


def test_nonfinite_gain_names_the_coordinate():
    rejects(errors.NonFiniteValue, lambda: rms_norm(X, [1.0, np.nan]), "gain coordinate 1", "finite")


@pytest.mark.parametrize(
    "bad", [np.array([1 + 2j, 3j]), np.array([object(), object()]), ["3", "4"], np.array([b"a", b"b"])]
)
def test_unsupported_dtypes(bad):
    rejects(errors.UnsupportedDtype, lambda: rms_norm(bad), "not supported", "expected real numbers")


def test_ragged_input():
    rejects(errors.UnsupportedDtype, lambda: rms_norm([[1.0, 2.0], [3.0]]), "rectangular")


def test_upstream_gradient_of_the_wrong_shape():
    rejects(errors.GradientShapeError, lambda: rms_norm_backward(X, G, EPS, [1.0]), "(1,)", "(2,)")


def test_nonfinite_upstream_gradient():
    rejects(errors.NonFiniteValue, lambda: rms_norm_backward(X, G, EPS, [np.nan, 1.0]), "grad_output")


def test_every_error_names_a_distinct_boundary():
    kinds = [cls for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, RMSNormError)]
    boundaries = [cls.boundary for cls in kinds]
    assert len(boundaries) == len(set(boundaries)) >= 12


def test_a_one_dimensional_input_is_row_0():
    rejects(errors.NonFiniteValue, lambda: rms_norm([1.0, np.nan]), "input row 0 contains NaN")


@pytest.mark.parametrize("eps", ["1e-5", b"0.5", True, np.True_, None, [1e-5], np.array(1e-5), 1e-5j])
def test_eps_must_be_a_real_number_not_text_bytes_or_a_bool(eps):
    x = np.array([[3.0, 4.0]])
    before = x.copy()
    for call in (lambda: rms_norm(x, eps=eps), lambda: rms_norm_backward(x, None, eps, np.ones((1, 2)))):
        error = rejects(
            errors.InvalidEpsilon, call, "eps must be a real number", type(eps).__name__, "expected a float"
        )
        assert repr(eps) in str(error)
    assert np.array_equal(x, before)


@pytest.mark.parametrize("eps", [0, 1, np.float32(1e-5), np.int64(2), fractions.Fraction(1, 100_000)])
def test_eps_may_be_any_real_number_type(eps):
    y = rms_norm([3.0, 4.0], eps=eps)
    expected = np.array([3.0, 4.0]) / np.sqrt(12.5 + float(eps))  # mean square of (3, 4) is 12.5
    np.testing.assert_allclose(y, expected, rtol=1e-15)


@pytest.mark.skipif(np.dtype(np.longdouble).itemsize <= 8, reason="long double is float64 on this platform")
@pytest.mark.parametrize("where", ["input", "gain", "grad_output"])
def test_long_double_is_refused_rather_than_computed_wrong(where):
    """Rows beyond float64's range came back as zeros, and tiny rows at eps = 0 raised ZeroDivisionError."""
    big = np.array([[np.longdouble("1e400"), np.longdouble("2e400")]])
    calls = {
        "input": lambda: rms_norm(big, eps=0.0),
        "gain": lambda: rms_norm([[3.0, 4.0]], big[0]),
        "grad_output": lambda: rms_norm_backward([[3.0, 4.0]], None, 1e-5, big),
    }
    error = rejects(errors.UnsupportedDtype, calls[where], "long double", "not supported", "float64")
    assert where in str(error)
    tiny = np.array([[np.longdouble(2) ** -16400, 0]])  # below float64's range, above long double's least
    rejects(errors.UnsupportedDtype, lambda: rms_norm(tiny, eps=0.0), "long double")
    assert big[0, 1] == np.longdouble("2e400")  # the input is untouched


# --- eps as the compute dtype holds it; numbers of every type; masked arrays ---------------


@pytest.mark.parametrize("eps", [1e-46, 1e-300, 4.9e-324])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_an_eps_that_rounds_to_zero_in_float32_is_refused_not_turned_into_nan(dtype, eps):
    """Before, an all-zero row came back as NaN from every one of these calls."""
    x = np.zeros((2, 4), dtype=dtype)
    x[0] = 1.0
    calls = {
        "rms_norm": lambda: rms_norm(x, eps=eps),
        "rms_norm_forward": lambda: rms_norm_forward(x, eps=eps),
        "rms_norm_backward": lambda: rms_norm_backward(x, None, eps, np.ones_like(x)),
        "the layer": lambda: RMSNorm(4, eps)(x),
        "the tape": lambda: tape_rms_norm(x, None, eps),
    }
    for call in calls.values():
        error = rejects(errors.InvalidEpsilon, call, f"eps = {eps!r} is too small for float32", "rounds to 0.0")
        assert f"a {np.dtype(dtype).name} input" in str(error) and "expected 0, or an eps from 1.4e-45" in str(error)


@pytest.mark.parametrize("eps", [1e-300, 4.9e-324])
def test_the_same_eps_in_float64_maps_a_zero_row_to_zeros(eps):
    x = np.array([[0.0, 0.0, 0.0], [1e-310, 0.0, -2e-310]])
    y = rms_norm(x, eps=eps)
    assert np.array_equal(y[0], np.zeros(3)) and np.all(np.isfinite(y))
    assert np.array_equal(y, rms_norm_forward(x, eps=eps).output)
    grad_x, grad_gain = rms_norm_backward(x, None, eps, np.ones_like(x))
    assert np.all(np.isfinite(grad_x)) and np.all(np.isfinite(grad_gain))
    np.testing.assert_allclose(y[1], exact_rms_norm(x[1], eps=eps), rtol=1e-15)


def test_an_eps_beyond_float32_is_refused_for_float32_and_taken_for_float64():
    rejects(errors.InvalidEpsilon, lambda: rms_norm(np.ones(2, np.float32), eps=1e39), "too large for float32", "inf")
    np.testing.assert_allclose(rms_norm([3.0, 4.0], eps=1e39), np.array([3.0, 4.0]) / np.sqrt(12.5 + 1e39))


def test_float32_computes_with_eps_as_float32_holds_it():
    x = np.array([[3e-3, 4e-3]], dtype=np.float32)
    held = float(np.float32(1e-5))
    assert held != 1e-5
    assert np.array_equal(rms_norm(x, eps=1e-5), rms_norm(x, eps=held))


@pytest.mark.parametrize(
    "eps",
    [10**400, -(10**400), 10**5000, fractions.Fraction(10**400), decimal.Decimal("1e400"), decimal.Decimal("sNaN"),
     decimal.Decimal("NaN"), fractions.Fraction(1, 10**400), decimal.Decimal("1e-400")],
    ids=["int 1e400", "int -1e400", "int 1e5000", "Fraction 1e400", "Decimal 1e400", "Decimal sNaN", "Decimal NaN",
         "Fraction 1e-400", "Decimal 1e-400"],
)  # fmt: skip
def test_every_eps_float64_cannot_hold_is_an_rmsnorm_error(eps):
    """Before, 10**400 escaped as OverflowError, and the positive Fraction 1/10**400 became eps = 0."""
    x = np.array([[3.0, 4.0]])
    for call in (lambda: rms_norm(x, eps=eps), lambda: rms_norm_backward(x, None, eps, x), lambda: RMSNorm(2, eps)):
        error = rejects(errors.InvalidEpsilon, call, "eps", "expected")
        assert len(str(error)) < 400  # a long number is shown shortened


@pytest.mark.parametrize("eps", [decimal.Decimal("1e-5"), np.float16(1e-3), np.longdouble(1e-5), np.uint8(1)])
def test_eps_of_other_real_types_is_read_as_its_float(eps):
    np.testing.assert_array_equal(rms_norm([3.0, 4.0], eps=eps), rms_norm([3.0, 4.0], eps=float(eps)))


@pytest.mark.parametrize("where", ["input", "gain", "grad_output"])
def test_a_masked_array_is_refused_rather_than_read_without_its_mask(where):
    """Before, the masked value 100 was normalized with the others, as if it were not masked."""
    masked = np.ma.masked_array([1.0, 2.0, 100.0], mask=[0, 0, 1])
    plain = np.array([1.0, 2.0, 3.0])
    calls = {
        "input": lambda: rms_norm(masked),
        "gain": lambda: rms_norm(plain, masked),
        "grad_output": lambda: rms_norm_backward(plain, None, EPS, masked),
    }
    error = rejects(errors.MaskedArrayError, calls[where], f"{where} is a masked array", "fill the masked values")
    assert error.boundary == "masked-array"
    assert masked.mask.tolist() == [False, False, True] and masked.data[2] == 100.0


def test_a_large_masked_upstream_is_refused_on_the_blocked_path_too():
    x = np.ones((256, 256))
    upstream = np.ma.masked_array(np.ones_like(x), mask=np.eye(256, dtype=bool))
    rejects(errors.MaskedArrayError, lambda: rms_norm_backward(x, None, EPS, upstream), "grad_output is a masked")


def test_a_float64_gain_too_large_for_a_float32_input_is_refused():
    """Before, it became infinity in float32, and the output with it."""
    x = np.ones((2, 3), np.float32)
    gain = np.array([1.0, 1e39, 1.0])
    rejects(errors.NonFiniteValue, lambda: rms_norm(x, gain), "gain holds 1e+39 at index (1,)", "float32")
    rejects(errors.NonFiniteValue, lambda: rms_norm_backward(x, gain, EPS, x), "gain holds 1e+39")
