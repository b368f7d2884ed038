"""The gains page's boxes: the slips a learner makes on a 1 + w gain and on a QK-normed logit are named."""

from __future__ import annotations

import math
from pathlib import Path

from rmsnorm_course.pages import COURSE, check


def named(exercise_id: str, typed: str, words: str) -> bool:
    verdict = check(exercise_id, typed)
    return verdict.outcome.value == "wrong" and any(words in slip for slip in verdict.slips)


def test_a_one_plus_w_gain_decays_toward_one():
    assert check("one-plus-gain", f"{1 + 0.3 * 0.999**1000:.6f}").correct


def test_the_one_plus_gain_slips_are_named():
    assert named("one-plus-gain", f"{1.3 * 0.999**1000:.6f}", "plain gain decayed")  # 1 + w decayed as a whole
    assert named("one-plus-gain", f"{1 + 0.3 * math.exp(-1):.6f}", "exp(-rate * steps)")  # 1/e for 0.999**1000
    assert named("one-plus-gain", f"{0.3 * 0.999**1000:.6f}", "w after the decay")  # the one forgotten


def test_the_qk_logit_bound_slips_are_named():
    assert check("qk-logit-bound", "8").correct  # |q| |k| / sqrt(d) = sqrt(64)
    assert named("qk-logit-bound", "64", "before the division")
    assert named("qk-logit-bound", "0.125", "unit vectors")  # 1 / sqrt(64): lengths taken as one


def test_the_qk_bound_is_asked_from_rms_one_not_from_a_length_in_sight():
    """The length sqrt(d) is the step the box asks for: neither the question nor the text above it may state it."""
    page = (Path(__file__).resolve().parents[2] / "book" / "modern-gains.md").read_text(encoding="utf-8")
    above = page[: page.index('Prediction("qk-logit-bound")')]
    assert "length" not in COURSE.exercises["qk-logit-bound"].prompt
    assert "has length" not in above[above.index("## QK-norm") :]
