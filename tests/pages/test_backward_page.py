"""The backward page's boxes: the natural mistakes a learner makes there are named."""

from __future__ import annotations

import numpy as np

from rmsnorm_course.pages import COURSE, check


def test_the_gain_applied_before_the_gradient_is_named_as_a_class_typed_it():
    verdict = check("grad-gain", "[1.272792, -1.131371]")  # issue 50: grad_output * g * x-hat, by hand
    assert verdict.outcome.value == "wrong" and "multiplies by the gain as well" in verdict.message


def test_the_sum_where_the_derivation_averages_is_named():
    x, g, upstream = np.array([3.0, 4.0]), np.array([1.5, 0.5]), np.array([1.0, -2.0])
    r = (np.mean(x**2) + 1e-5) ** -0.5
    u, x_hat = upstream * g, x * r
    summed = r * (u - x_hat * np.sum(u * x_hat))
    assert "sums u * x-hat" in check("grad-x", str(summed.round(6).tolist())).message


def test_one_gradient_row_per_position_is_named():
    assert "one share per row" in check("gain-gradient-shape", "[10, 3]").message


def test_no_variant_of_the_scaled_gradient_asks_a_scale_the_page_s_prose_or_picture_shows():
    scales = {inputs["scale"] for inputs in COURSE.exercises["grad-x-scaled"].variants}
    assert COURSE.exercises["grad-x-scaled"].given["scale"] == 4.0 and not scales & {4.0, 10.0}
