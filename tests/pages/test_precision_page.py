"""The precision page's boxes: the natural mistakes a learner makes there are named."""

from __future__ import annotations

from rmsnorm_course.pages import check


def test_a_stall_where_the_gap_reaches_one_square_is_named():
    verdict = check("sum-stall", "128")  # 2**7 ones: the gap is 1 there, and 1 + 128 is still a bfloat16
    assert verdict.outcome.value == "wrong" and "half the gap or less" in verdict.message


def test_the_exact_sum_is_named():
    assert "exact sum" in check("sum-stall", "4096").message


def test_a_row_of_zeros_for_a_row_whose_squares_fit_is_named():
    verdict = check("float16-formula-row", "[0, 0]")  # 250 squared, 62,500, is below 65,504
    assert verdict.outcome.value == "wrong" and "square past float16's largest value" in verdict.message
