"""Central differences against functions whose gradients are known by hand."""

from __future__ import annotations

import fractions

import numpy as np
import pytest

from rmsnorm_course.core.errors import GradientCheckError
from rmsnorm_course.core.gradcheck import gradient_check, numeric_gradient


def cubic(x):
    return float(np.sum(x**3))


def test_numeric_gradient_of_a_cubic():
    x = np.array([[1.0, -2.0], [0.5, 3.0]])
    np.testing.assert_allclose(numeric_gradient(cubic, x, 1e-5), 3 * x**2, rtol=1e-8)


def test_a_right_gradient_passes_and_a_wrong_one_fails_on_its_coordinate():
    x = np.array([1.0, -2.0, 0.5])
    good = gradient_check(cubic, x, 3 * x**2)
    assert good.passed and len(good.checks) == 3 and max(check.error for check in good.checks) < 1e-6
    wrong = 3 * x**2
    wrong[1] += 1e-3
    bad = gradient_check(cubic, x, wrong)
    assert not bad.passed
    assert [c.passed for c in bad.checks] == [True, False, True]
    assert bad.checks[1].index == (1,) and bad.checks[1].error == pytest.approx(1e-3, rel=1e-3)


def test_the_point_is_not_modified():
    x = np.array([1.0, 2.0])
    gradient_check(cubic, x, 3 * x**2)
    assert x.tolist() == [1.0, 2.0]


@pytest.mark.parametrize(("step", "tolerance"), [(0.0, 1e-6), (-1.0, 1e-6), (float("nan"), 1e-6), (1e-6, 0.0)])
def test_settings_must_be_positive(step, tolerance):
    with pytest.raises(GradientCheckError, match="expected a finite number > 0"):
        gradient_check(cubic, [1.0], [3.0], step, tolerance)


def test_shapes_must_agree():
    with pytest.raises(GradientCheckError, match="expected the same shape"):
        gradient_check(cubic, [1.0, 2.0], [3.0])


@pytest.mark.parametrize(
    "step", [10**400, True, "1e-6", fractions.Fraction(1, 10**400)], ids=["1e400", "True", "text", "1e-400"]
)
def test_settings_that_are_no_positive_float_are_refused(step):
    """Before, 10**400 escaped as OverflowError and True was taken as a step of 1."""
    with pytest.raises(GradientCheckError, match="step"):
        gradient_check(cubic, [1.0], [3.0], step)


def test_settings_of_any_real_type_are_read_as_floats():
    report = gradient_check(cubic, [1.0], [3.0], np.float32(1e-3), fractions.Fraction(1, 100))
    assert report.passed and type(report.step) is float and report.tolerance == 0.01
