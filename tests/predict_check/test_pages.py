"""The pages tool: what a box needs on its page is written by it, and what is missing is said."""

from __future__ import annotations

import jupytext
from toy import TOY

from predict_check import pages
from predict_check.box import GO_ON, PAGE_END

HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
    jupytext_version: 1.19.6
kernelspec:
  display_name: Python 3 (ipykernel)
  language: python
  name: python3
---
"""


def page(tmp_path, name: str, *boxes: str) -> object:
    """A page as its author writes it: prose, and one line per box."""
    cells = "".join(
        f'\nSome prose before {box}.\n\n```{{code-cell}} ipython3\nPrediction("{box}")\n```\n' for box in boxes
    )
    path = tmp_path / f"{name}.md"
    path.write_text(f"{HEADER}\n# A page\n{cells}\nThe end of the page.\n", encoding="utf-8")
    return path


def test_a_box_written_as_one_line_gets_its_metadata_its_heading_and_the_closing_heading(tmp_path):
    first = page(tmp_path, "first", "double", "pair")
    assert pages.make([first]) == [first]
    cells = jupytext.read(first).cells
    boxes = [i for i, cell in enumerate(cells) if pages.box_of(cell)]
    assert [pages.box_of(cells[i]) for i in boxes] == ["double", "pair"]
    assert all(cells[i].metadata == pages.BOX_METADATA for i in boxes)
    assert all(cells[i + 1].source == f"# {GO_ON}" and pages.is_go_on(cells[i + 1]) for i in boxes)
    assert cells[-1].source.startswith(f"# {PAGE_END}") and cells[-2].source == "The end of the page."
    again = first.read_text(encoding="utf-8")
    assert pages.make([first]) == [] and first.read_text(encoding="utf-8") == again  # made once, left as it is


def test_the_tool_says_what_is_missing_when_a_step_is_skipped(tmp_path):
    first, second = page(tmp_path, "first", "double", "pair"), page(tmp_path, "second", "letter")
    assert [problem.split(":")[0] for problem in pages.problems(TOY, [first, second])] == ["first.md", "second.md"]
    pages.make([first, second])
    assert pages.problems(TOY, [first, second]) == []
    assert pages.problems(TOY, [first]) == ["'letter' is declared but asked on no page"]
    assert pages.problems(TOY, [second, first]) == [
        "the pages ask the exercises in another order than the course declares them: declare each page's boxes "
        "in the order the page asks them, and the pages in reading order"
    ]
    third = page(tmp_path, "third", "letter", "triple")
    pages.make([third])
    assert pages.problems(TOY, [first, second, third]) == [
        "third.md asks 'triple', which toy-course does not declare",
        "'letter' is asked on more than one page",
    ]


def test_a_page_without_boxes_is_left_as_it_is(tmp_path):
    plain = page(tmp_path, "plain")
    text = plain.read_text(encoding="utf-8")
    assert pages.make([plain]) == [] and plain.read_text(encoding="utf-8") == text
    assert pages.problems(TOY, [plain]) == [
        f"'{exercise}' is declared but asked on no page" for exercise in TOY.exercises
    ]
