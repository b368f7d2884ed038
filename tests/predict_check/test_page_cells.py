"""``page_cells`` (make boxes): what a box and a listing need on their page is written, and what is missing is said."""

from __future__ import annotations

import jupytext
import pytest
from toy import TOY

from predict_check import listings, page_cells

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


def test_a_box_written_as_one_line_gets_its_metadata_and_its_tag_and_nothing_else(tmp_path):
    first = page(tmp_path, "first", "double", "pair")
    before = jupytext.read(first).cells
    assert page_cells.make([first]) == [first]
    cells = jupytext.read(first).cells
    assert [cell.source for cell in cells] == [cell.source for cell in before]  # no cell added, none changed
    boxes = [i for i, cell in enumerate(cells) if page_cells.box_of(cell)]
    assert [page_cells.box_of(cells[i]) for i in boxes] == ["double", "pair"]
    assert all(cells[i].metadata == page_cells.BOX_METADATA for i in boxes)
    assert all(page_cells.BOX_TAG in cells[i].metadata["tags"] for i in boxes)
    assert [i for i, cell in enumerate(cells) if cell.metadata and i not in boxes] == []
    again = first.read_text(encoding="utf-8")
    assert page_cells.make([first]) == [] and first.read_text(encoding="utf-8") == again  # made once, left as it is


def test_the_tool_says_what_is_missing_when_a_step_is_skipped(tmp_path):
    first, second = page(tmp_path, "first", "double", "pair"), page(tmp_path, "second", "letter")
    assert [problem.split(":")[0] for problem in page_cells.problems(TOY, [first, second])] == ["first.md", "second.md"]
    page_cells.make([first, second])
    assert page_cells.problems(TOY, [first, second]) == []
    assert page_cells.problems(TOY, [first]) == ["'letter' is declared but asked on no page"]
    assert page_cells.problems(TOY, [second, first]) == [
        "the pages ask the exercises in another order than the course declares them: declare each page's boxes "
        "in the order the page asks them, and the pages in reading order"
    ]
    third = page(tmp_path, "third", "letter", "triple")
    page_cells.make([third])
    assert page_cells.problems(TOY, [first, second, third]) == [
        "third.md asks 'triple', which toy-course does not declare",
        "'letter' is asked on more than one page",
    ]


def test_a_page_without_boxes_is_left_as_it_is(tmp_path):
    plain = page(tmp_path, "plain")
    text = plain.read_text(encoding="utf-8")
    assert page_cells.make([plain]) == [] and plain.read_text(encoding="utf-8") == text
    assert page_cells.problems(TOY, [plain]) == [
        f"'{exercise}' is declared but asked on no page" for exercise in TOY.exercises
    ]


LISTED = '''"""A module a page lists from."""


def helper(x):
    return x


@staticmethod
def decorated(x):
    """Shown with its decorator."""
    return 2 * x


class Layer:
    def __call__(self, x):
        return x
'''


def listing(tmp_path, name: str) -> object:
    """A page whose prose lists ``name`` from a module next to it, its code block left empty."""
    (tmp_path / "module.py").write_text(LISTED, encoding="utf-8")
    path = tmp_path / "listing.md"
    path.write_text(
        f"{HEADER}\n# A page\n\n:::{{dropdown}} The code\n% make boxes writes the listing below from "
        f"module.py: {name}\n```{{code-block}} python\n```\n:::\n",
        encoding="utf-8",
    )
    return path


def test_a_listing_is_written_from_the_code_and_rewritten_when_the_code_changes(tmp_path):
    path = listing(tmp_path, "decorated")
    assert [problem.split(":")[0] for problem in page_cells.problems(TOY, [path])][:1] == ["listing.md"]
    assert page_cells.make([path]) == [path]
    shown = '@staticmethod\ndef decorated(x):\n    """Shown with its decorator."""\n    return 2 * x\n'
    assert f"```{{code-block}} python\n{shown}```\n:::" in path.read_text(encoding="utf-8")
    assert [problem for problem in page_cells.problems(TOY, [path]) if problem.startswith("listing.md")] == []
    (tmp_path / "module.py").write_text(LISTED.replace("2 * x", "3 * x"), encoding="utf-8")
    assert [problem.split(":")[0] for problem in page_cells.problems(TOY, [path])][:1] == ["listing.md"]
    page_cells.make([path])
    assert "return 3 * x\n```" in path.read_text(encoding="utf-8")


def test_a_method_is_listed_dedented(tmp_path):
    path = listing(tmp_path, "Layer.__call__")
    page_cells.make([path])
    assert "```{code-block} python\ndef __call__(self, x):\n    return x\n```" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["missing", "Layer.missing", "helper.inner"])
def test_a_listing_of_something_the_code_does_not_define_is_said_and_the_page_left_as_it_is(tmp_path, name):
    path = listing(tmp_path, name)
    text = path.read_text(encoding="utf-8")
    assert f"listing.md: {tmp_path / 'module.py'} defines no {name} at its top level, which a listing names" in (
        page_cells.problems(TOY, [path])
    )
    with pytest.raises(listings.ListingError, match=name):
        page_cells.make([path])
    assert path.read_text(encoding="utf-8") == text


def test_a_listing_of_a_file_that_is_not_there_is_said(tmp_path):
    path = listing(tmp_path, "helper")
    (tmp_path / "module.py").unlink()
    (problem,) = [problem for problem in page_cells.problems(TOY, [path]) if problem.startswith("listing.md")]
    assert problem.startswith(f"listing.md: the listing of helper names {tmp_path / 'module.py'}, which cannot be read")
