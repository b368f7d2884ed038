"""Every page of the chapter is as its boxes need it, and the blank answers file is the one its exercises make.

Adding a box is one declaration in ``questions/<page>.py`` and one line on its page; ``make boxes``
writes the rest (the blank answers file too: tests/predict_check/test_sheet_reader.py holds it to the
exercises). This test says what is missing when that step is skipped.
"""

from __future__ import annotations

from predict_check import page_cells

from rmsnorm_course.questions import COURSE, book_pages


def test_every_page_is_made_and_every_exercise_asked_once_in_the_course_s_order():
    assert page_cells.problems(COURSE, book_pages()) == []
