"""The pages as notebooks: in the form jupytext writes, readable in JupyterLab as in the book.

JupyterLab opens each ``book/*.md`` through jupytext and saves it back the same way,
and renders its prose with a MyST renderer that knows the ``{eval}`` role but not
the book's ``glue`` or bibliography roles. These tests hold the sources to that.

In JupyterLab, what follows a chapter box waits as it does in the book: each box is
followed by a heading that opens collapsed, whose section is everything up to the next
box's heading, and a closing heading ends the last one; the book, where the page waits
by itself, leaves those headings out.

The code a page shows, its cells and the package's objects it lists, is written to fit a
laptop's column (browser_tests/test_layout.py measures it in the built pages).
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest
from pybtex.database import parse_file
from sphinx.pycode import ModuleAnalyzer

from predict_check.box import GO_ON, KEPT_NOTE, PAGE_END

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
PAGES = sorted(BOOK.glob("*.md"))
EVAL = re.compile(r"\{eval\}`([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)`")
HIDDEN_TAGS = {"remove-input", "hide-input"}
BOX = re.compile(r'^Prediction\("[a-z0-9-]+"\)$')  # a chapter box; the review page's boxes hold nothing back
# The heading after each chapter box, as the page's source holds it: collapsed in JupyterLab, left out of the book.
GO_ON_CELL = {"source": f"# {GO_ON}", "metadata": {"jp-MarkdownHeadingCollapsed": True, "tags": ["remove-cell"]}}
# What the narrowest column a laptop (1280 px) gives code holds, a listing in a dropdown: 73 characters.
CODE_COLUMNS = 72
LISTING = re.compile(r"```\{literalinclude\} (\S+)\n((?::[^\n]*\n)*)")


def ids(paths: list[Path]) -> list[str]:
    return [path.name for path in paths]


@pytest.mark.parametrize("page", PAGES, ids=ids(PAGES))
def test_reading_and_writing_a_page_with_jupytext_gives_the_same_bytes(page):
    text = page.read_text()
    assert jupytext.writes(jupytext.reads(text, fmt="md:myst"), fmt="md:myst") == text


@pytest.mark.parametrize("page", PAGES, ids=ids(PAGES))
def test_the_kernel_is_named_as_jupyterlab_names_it(page):
    """JupyterLab writes the kernel it ran into a page it saves: every page names that kernel already."""
    assert jupytext.read(page).metadata["kernelspec"] == {
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "name": "python3",
    }


@pytest.mark.parametrize("page", PAGES, ids=ids(PAGES))
def test_cells_the_book_hides_start_collapsed_in_jupyterlab(page):
    for cell in jupytext.read(page).cells:
        if cell.cell_type != "code":
            continue
        hidden_in_book = bool(HIDDEN_TAGS & set(cell.metadata.get("tags", [])))
        collapsed = cell.metadata.get("jupyter", {}).get("source_hidden", False)
        assert hidden_in_book == collapsed, cell.source[:80]


@pytest.mark.parametrize("page", PAGES, ids=ids(PAGES))
def test_prose_uses_only_markup_both_renderers_understand(page):
    text = page.read_text()
    for markup in ("{glue", "{cite", "myst_nb"):
        assert markup not in text, f"{markup} does not render, or does not run, in JupyterLab"


def listed_lines(page: Path) -> list[str]:
    """The lines of each object the page lists, cut from its file as the book's listing cuts them."""
    lines = []
    for path, options in LISTING.findall(page.read_text()):
        source = (page.parent / path).resolve()
        found = re.search(r":pyobject: (\S+)", options)
        start, end = ModuleAnalyzer.for_file(str(source), "").find_tags()[found.group(1)][1:] if found else (1, None)
        lines += source.read_text().splitlines()[start - 1 : end]
    return lines


@pytest.mark.parametrize("page", PAGES, ids=ids(PAGES))
def test_every_line_of_code_a_page_shows_fits_a_laptop_s_column(page):
    """Its cells (a folded one opens) and its listings; a cell the book removes is not shown there."""
    lines = listed_lines(page)
    for cell in jupytext.read(page).cells:
        if cell.cell_type == "code" and not {"remove-input", "remove-cell"} & set(cell.metadata.get("tags", [])):
            lines += cell.source.splitlines()
    assert [line for line in lines if len(line) > CODE_COLUMNS] == []


def is_page_end(cell) -> bool:
    """The closing cell of a page with boxes: its heading, and where the widget saves (in Markdown's emphasis)."""
    heading, _, body = cell.source.partition("\n\n")
    said = " ".join(body.replace("**", "").replace("`", "").split())
    return cell.cell_type == "markdown" and heading == f"# {PAGE_END}" and said == KEPT_NOTE


@pytest.mark.parametrize("page", PAGES, ids=ids(PAGES))
def test_only_the_headings_of_the_boxes_sections_are_left_out_of_the_book(page):
    """A cell the book removes is one that JupyterLab shows: only the headings that make the boxes' sections.

    A removed code cell would run in JupyterLab without showing in the book, and other
    removed prose would say what the book does not; the book needs no such heading, since
    its page waits for each box by itself (and offers the download instead of Save).
    """
    for cell in jupytext.read(page).cells:
        if "remove-cell" in cell.metadata.get("tags", []):
            go_on = {"source": cell.source, "metadata": cell.metadata} == GO_ON_CELL
            assert go_on or (is_page_end(cell) and cell.metadata == {"tags": ["remove-cell"]}), cell.source[:80]


def _heading_level(cell) -> int | None:
    """The level of a markdown cell's highest heading, as JupyterLab reads it (fenced blocks left out)."""
    if cell.cell_type != "markdown":
        return None
    levels, fenced = [], False
    for line in cell.source.splitlines():
        if re.match(r"(```|:::)", line):
            fenced = not fenced
        elif not fenced and (heading := re.match(r"(#{1,6}) ", line)):
            levels.append(len(heading.group(1)))
    return min(levels, default=None)


@pytest.mark.parametrize("page", PAGES, ids=ids(PAGES))
def test_after_every_chapter_box_a_collapsed_heading_holds_back_the_cells_up_to_the_next_box(page):
    """JupyterLab hides what follows a collapsed heading up to the next heading of its level or above.

    So the heading right after each box is the page's top level, and the only other
    headings of that level are the page's title and the closing heading: each section
    reaches the next box's heading (or the closing one), past any section headings of the
    page in between. The closing heading keeps the page's last cell in no section, since
    JupyterLab opens the section that holds the active cell, and Run All ends on the last.
    """
    cells = jupytext.read(page).cells
    boxes = [i for i, cell in enumerate(cells) if cell.cell_type == "code" and BOX.match(cell.source.strip())]
    go_on = [i for i, cell in enumerate(cells) if {"source": cell.source, "metadata": cell.metadata} == GO_ON_CELL]
    assert go_on == [i + 1 for i in boxes]
    ends = [len(cells) - 1] if boxes else []
    assert [i for i, cell in enumerate(cells) if is_page_end(cell)] == ends
    top_level = [i for i, cell in enumerate(cells) if _heading_level(cell) == 1]
    assert top_level == [0, *go_on, *ends], "a top-level heading other than these would end a box's section early"
    for i in go_on:
        assert cells[i].source.count("\n") == 0, "the heading is a cell of its own"


@pytest.mark.parametrize("page", PAGES, ids=ids(PAGES))
def test_every_value_in_the_prose_is_computed_before_it_is_read(page):
    """Pages run top to bottom, in the build and in JupyterLab alike."""
    created: set[str] = set()
    for cell in jupytext.read(page).cells:
        if cell.cell_type == "code":
            # a page's values come from one call (each field is checked in tests/test_page_values.py)
            created |= set(re.findall(r"^(\w+) = [\w.]+\.values\(", cell.source, re.MULTILINE))
            continue
        for namespace, _ in EVAL.findall(cell.source):
            assert namespace in created, f"{namespace} is read before it exists"


def test_the_prose_shows_values_from_the_kernel_on_most_pages():
    uses = {page.name: len(EVAL.findall(page.read_text())) for page in PAGES}
    assert sum(uses.values()) > 50
    assert sum(1 for count in uses.values() if count) >= 8


@pytest.fixture(scope="module")
def bibliography():
    return parse_file(str(BOOK / "references.bib")).entries


def test_every_paper_is_cited_by_author_year_and_linked_to_its_preprint(bibliography):
    text = "\n".join(page.read_text() for page in PAGES)
    for key, entry in bibliography.items():
        authors = [person.last_names[0].strip("{}") for person in entry.persons["author"]]  # "others" counts too
        first, others = authors[0], len(authors) - 1
        if others == 0:
            who = first
        elif others == 1 and authors[1] != "others":
            who = f"{first} and {authors[1]}"
        else:
            who = f"{first} et al."
        preprint = entry.fields.get("eprint") or re.search(r"arXiv:(\S+)", entry.fields["journal"]).group(1)
        link = f"(https://arxiv.org/abs/{preprint})"
        year = entry.fields["year"]
        cited = re.findall(rf"\[([^\]]+)\]\({re.escape(link[1:-1])}\)", text)
        assert cited, f"{key} is not cited"
        for words in cited:
            assert words in (f"{who}, {year}", f"{who} ({year})"), f"{key} cited as {words!r}"
