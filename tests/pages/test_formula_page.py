"""The formula page's boxes: a learner's mistakes with shapes and angles are named, and no answer is in sight."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rmsnorm_course import check
from rmsnorm_course.pages import COURSE

PAGE = (Path(__file__).resolve().parents[2] / "book" / "formula.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        ("[3, 5, 2]", "wrong order"),  # issue 50's class: the axes reversed
        ("(2, 5, 1)", "mean squares' shape"),
        ("(3,)", "gain's shape"),
        ("(2, 5)", "drops the feature axis"),
    ],
)
def test_the_output_shape_s_slips_are_named(answer, named):
    verdict = check("output-shape", answer)
    assert verdict.outcome.value == "wrong" and named in verdict.message, verdict.message


def test_the_output_shape_question_gives_neither_the_statistics_shape_nor_a_division():
    """Issue 49: the question gave [2, 5, 1] and the division, and the cell above printed (2, 5, 1)."""
    prompt = COURSE.get("output-shape").prompt
    assert "1]" not in prompt and "divides" not in prompt
    above = PAGE[: PAGE.index('Prediction("output-shape")')]
    assert "(2, 5, 1)" not in above and "mean_square.shape" not in above
    assert "(2, 5, 1)" not in COURSE.get("row-count").solve().detail


def test_an_angle_in_the_wrong_quadrant_is_named():
    x, y = -1.0, 2.0
    first_quadrant = np.degrees(np.arctan(abs(y / x)))  # issue 50's class typed 63.4
    verdict = check("circle-image", f"{first_quadrant:.1f}")
    assert verdict.outcome.value == "wrong" and "another quadrant" in verdict.message, verdict.message
    verdict = check("circle-image", f"{np.degrees(np.arctan(y / x)) % 360:.1f}")  # here, -x's own angle
    assert "points against x" in verdict.message and "another quadrant" not in verdict.message, verdict.message


def test_no_quadrant_slip_is_the_answer_in_any_variant():
    exercise = COURSE.get("circle-image")
    for number in range(len(exercise.variants)):
        solution = exercise.variant(number).solve()
        values = [value for value, _ in solution.slips]
        assert len(values) == len(set(np.round(values, 3))), values  # one note for each wrong angle
        for value in values:
            assert min(abs(value - solution.answer), 360 - abs(value - solution.answer)) > 5


def test_the_spike_bullet_says_it_is_at_eps_zero():
    assert "`page.spike_hat` (eps = 0)" in PAGE


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        (np.mean([1.0, 3.0]), "mean of x itself"),
        (np.mean(np.array([1.0, 3.0]) / np.linalg.norm([1.0, 3.0])), "Euclidean length"),
        (0.0, "LayerNorm"),
    ],
)
def test_the_anchor_mean_s_slips_are_named(answer, named):
    verdict = check("anchor-mean", f"{answer:.6f}")
    assert verdict.outcome.value == "wrong" and named in verdict.message, verdict.message


def test_the_display_formula_puts_each_equation_on_its_own_line():
    """Issue 49: side by side, the two equations ran 432 px wide inside a phone's 358 px."""
    display = PAGE.split("$$")[1]
    assert "\\qquad" not in display and display.count("\\\\") == 1 and "aligned" in display


def test_the_circle_question_reads_the_same_in_the_box_and_in_the_answers_file():
    """Issue 49: the answers template told someone typing a file to place a marker."""
    assert "marker" not in COURSE.get("circle-image").prompt.lower()
