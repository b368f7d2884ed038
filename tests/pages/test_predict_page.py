"""The predict page's boxes name the mistakes a learner makes on its worked example and its tiny vector."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from predict_check import solution
from rmsnorm_course import check
from rmsnorm_course.pages import COURSE

X, G, TINY, EPS = np.array([3.0, 4.0]), np.array([1.5, 0.5]), np.array([0.0003, 0.0004]), 1e-5


def typed(values) -> str:
    """An answer as a learner types it, to the six decimals the boxes ask for."""
    values = np.atleast_1d(values)
    return f"[{', '.join(f'{v:.6f}' for v in values)}]" if values.size > 1 else f"{values[0]:.6f}"


@pytest.mark.parametrize(
    ("exercise_id", "answer", "named"),
    [
        ("mean-square", np.mean(X) ** 2, "squares the mean"),
        ("reciprocal-rms", 1 / (12.5 + EPS), "leaves out the square root"),
        ("normalized", X / (12.5 + EPS), "leaves out the square root"),
        ("output", G * X / np.sqrt(np.mean((G * X) ** 2) + EPS), "gain before normalizing"),
        ("tiny-normalized", X / np.sqrt(12.5 + EPS), "as if scale never mattered"),
        ("tiny-normalized", TINY / (np.mean(TINY**2) + EPS), "leaves out the square root"),
        ("tiny-normalized", TINY / np.sqrt(np.sum(TINY**2) + EPS), "without dividing by d"),
        ("tiny-scaled", 10 * TINY / np.sqrt(np.mean(TINY**2) + EPS), "as if it grew with x"),
    ],
)
def test_a_natural_slip_is_named(exercise_id, answer, named):
    verdict = check(exercise_id, typed(answer))
    assert verdict.outcome.value == "wrong" and named in verdict.message, verdict.message


def test_the_issue_s_typed_slips_are_named():
    """As the learners of issue 49 and the class of issue 50 typed them."""
    assert "scale never mattered" in check("tiny-normalized", "[0.848528, 1.131370]").message
    assert "as if it grew" in check("tiny-scaled", "[0.942809, 1.257079]").message
    assert "square root" in check("reciprocal-rms", "0.08").message
    assert "dividing by d" in check("tiny-normalized", "[0.093704, 0.124939]").message
    assert "before normalizing" in check("output", "[1.292325, 0.574367]").message


def test_the_eps_question_calls_neither_vector_tiny_before_its_verdict():
    """The issue's learner read "the tiny vector" in the question above the box: the words that answer it."""
    page = (Path(__file__).resolve().parents[2] / "book" / "predict.md").read_text(encoding="utf-8")
    before = re.sub(r"\{eval\}`[^`]*`", "", page[: page.index('Prediction("eps-near-zero")')])  # values shown
    assert "tiny" not in before.split("## Multiply the input by ten")[1]


def test_the_tenfold_question_stands_alone():
    """Issue 49: the aside spoke of "the chapter this course was adapted from", which the learner never saw."""
    page = (Path(__file__).resolve().parents[2] / "book" / "predict.md").read_text(encoding="utf-8")
    assert "adapted from" not in page
    assert page.rindex("## What to remember") > page.rindex('Prediction("')


def test_the_output_typed_as_x_hat_is_told_the_gain_is_missing_not_that_it_is_x_hat():
    """Said to a student whose x-hat was wrong, "that is x-hat" would confirm the answer they have not got."""
    x_hat = "[" + ", ".join(f"{v:.6f}" for v in solution(COURSE.exercises["normalized"]).answer) + "]"
    said = check("output", x_hat).message
    assert "gain" in said and "x-hat" not in said
