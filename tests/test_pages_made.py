"""Every page of the chapter is as its boxes need it, and the blank answers file is the one its exercises make.

Adding a box is one declaration in ``pages/<page>.py`` and one line on its page; ``make boxes``
writes the rest (the blank answers file too: tests/predict_check/test_sheet_reader.py holds it to the
exercises). This test says what is missing when that step is skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


NEW_PAGE = '''"""A page added to a copy of the course."""

from predict_check import Solution

from . import COURSE, EXACT


@COURSE.exercise("new-page-box", "A new page's box", "What is 2 + 2?", EXACT, "Add them.")
def _new_page_box() -> Solution:
    return Solution(4.0, "Two and two make four.")
'''


@pytest.mark.end_to_end
def test_a_new_page_is_made_in_one_run_of_make_boxes(tmp_path):
    """The book's order is written before the course loads, so the new page's box is in the answers file at once."""
    shutil.copytree(ROOT / "src", tmp_path / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copytree(ROOT / "book", tmp_path / "book", ignore=shutil.ignore_patterns("_build", ".ipynb_checkpoints"))
    shutil.copytree(ROOT / "exercises", tmp_path / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    (tmp_path / "_toc.yml").write_text(
        toc.replace("- file: book/exercises", "- file: book/new-page\n- file: book/exercises")
    )
    (tmp_path / "src/rmsnorm_course/pages/new_page.py").write_text(NEW_PAGE, encoding="utf-8")
    cell = '```{code-cell} ipython3\n---\ntags: [remove-input, prediction]\n---\nPrediction("new-page-box")\n```\n'
    (tmp_path / "book/new-page.md").write_text(
        (ROOT / "book/index.md").read_text(encoding="utf-8").split("---\n", 2)[1].join(["---\n", "---\n"])
        + "\n# A new page\n\n"
        + cell,
        encoding="utf-8",
    )
    environment = {**os.environ, "PYTHONPATH": str(tmp_path / "src")}
    command = [sys.executable, "-m", "rmsnorm_course", "pages"]
    subprocess.run(command, cwd=tmp_path, env=environment, check=True, capture_output=True, text=True)
    answers = (tmp_path / "exercises/answers.toml").read_text(encoding="utf-8")
    assert "new-page-box" in answers
    assert (tmp_path / "src/rmsnorm_course/pages/contents.txt").read_text().split()[-2:] == ["new_page", "what_next"]
    checked = subprocess.run([*command, "--check"], cwd=tmp_path, env=environment, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
