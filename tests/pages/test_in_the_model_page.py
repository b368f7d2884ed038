"""The in-the-model page's boxes: the natural mistakes a learner makes there are named."""

from __future__ import annotations

import math

from rmsnorm_course.pages import check


def test_e_to_the_minus_one_for_a_thousand_decays_is_named_as_the_continuous_limit():
    verdict = check("no-decay-policy", f"{math.exp(-1):.6f}")  # 0.367879, not 0.999 ** 1000
    assert verdict.outcome.value == "wrong" and "limit of ever smaller steps" in verdict.message


def test_subtracting_the_decay_a_thousand_times_is_named():
    assert "multiplies" in check("no-decay-policy", "0").message  # 1 - 1000 * 0.001


def test_the_post_norm_arrangement_is_told_what_it_hands_on():
    assert "RMS 1" in check("pre-norm-placement", "A").message


def test_the_decay_reasoning_states_no_gain_shape_the_page_does_not_show():
    """The page's parameters have gains eight wide; the reasoning once gave the worked example's (2,)."""
    from predict_check import solution
    from rmsnorm_course.pages import COURSE

    assert "shape" not in solution(COURSE.exercises["no-decay-policy"]).detail
