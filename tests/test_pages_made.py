"""Every page of the chapter is as its boxes need it, and the blank answers file is the one its exercises make.

Adding a box is one declaration in ``pages/<page>.py`` and one line on its page; ``make boxes``
writes the rest (the blank answers file too: tests/predict_check/test_sheet_reader.py holds it to the
exercises). This test says what is missing when that step is skipped.
"""

from __future__ import annotations

from pathlib import Path

from predict_check import page_cells
from rmsnorm_course.__main__ import book_pages, contents
from rmsnorm_course.pages import CONTENTS, COURSE

ROOT = Path(__file__).resolve().parents[1]


def test_every_page_is_made_and_every_exercise_asked_once_in_the_course_s_order():
    assert page_cells.problems(COURSE, book_pages(ROOT)) == []


def test_the_package_holds_the_book_s_order_of_pages():
    listed = contents(book_pages(ROOT)).split()
    assert CONTENTS.read_text(encoding="utf-8").split() == listed
    assert listed[:3] == ["index", "predict", "follow_one_vector"] and listed[-1] == "what_next"
