"""The boundaries page's boxes: the natural mistakes a learner makes there are named."""

from __future__ import annotations

from rmsnorm_course.pages import COURSE, check


def test_the_rescaled_row_not_yet_normalized_is_named():
    verdict = check("huge-row", "[0.5, 1]")  # [1e200, 2e200] / 2e200
    assert verdict.outcome.value == "wrong" and "x / M" in verdict.message


def test_the_formula_as_written_is_named_for_the_huge_row():
    assert "formula as written" in check("huge-row", "[0, 0]").message


def test_a_row_whose_rescaled_copy_is_already_its_x_hat_names_no_such_slip():
    variant = next(n for n, v in enumerate(COURSE.exercises["huge-row"].variants) if v["row"] == (5e180, -5e180))
    notes = [note for _, note in COURSE.exercises["huge-row"].variant(variant).solve().slips]
    assert not any("x / M" in note for note in notes)
