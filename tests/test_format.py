"""How the chapter writes numbers and sizes."""

from __future__ import annotations

import numpy as np
import pytest

from rmsnorm_course.core.format import binary_size, difference, exponent, fmt, given


def test_fmt_writes_six_decimals_for_scalars_and_vectors():
    assert fmt(0.5) == "0.500000"
    assert fmt(np.array([3.0, 4.0]) / 5) == "[0.600000, 0.800000]"


@pytest.mark.parametrize(
    ("nbytes", "text"),
    [
        (512, "512 bytes"),
        (64 * 1024, "64 KiB"),
        (2**20, "1 MiB"),
        (1536 * 1024, "1.5 MiB"),
        (32 * 2**20, "32 MiB"),
        (3 * 2**30, "3 GiB"),
    ],
)
def test_binary_size_picks_the_largest_unit_that_fits(nbytes, text):
    assert binary_size(nbytes) == text


def test_given_writes_an_input_as_it_was_typed():
    assert given((3.0, 4.0)) == "[3, 4]"
    assert given(np.array([0.0003, -0.0004])) == "[0.0003, -0.0004]"


def test_difference_keeps_the_digits_of_a_small_difference():
    assert difference(0.7175661) == "0.717566"
    assert difference(4.4797e-07) == "4.48e-07"
    assert difference(0.0) == "0"


def test_exponent_writes_a_power_of_ten_without_python_s_padding_zero():
    assert [exponent(1e-5), exponent(2.4e-5, 1), exponent(3e-12)] == ["1e-5", "2.4e-5", "3e-12"]
