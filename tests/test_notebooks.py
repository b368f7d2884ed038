"""The pages as notebooks: in the form jupytext writes, readable in JupyterLab as in the book.

JupyterLab opens each ``book/*.md`` through jupytext and saves it back the same way,
and renders its prose with a MyST renderer that knows the ``{eval}`` role but not
the book's ``glue`` or bibliography roles. These tests hold the sources to that.

In JupyterLab, what follows a chapter box waits as it does in the book: the engine's
extension hides the cells after it, never their metadata, so the pages hold no state of
their own (no collapsed heading, no cell that only one of the two readers shows).

The code a page shows, its cells and the package's objects it lists, is written to fit a
laptop's column (browser_tests/test_layout.py measures it in the built pages).
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

import jupytext
import pytest
from pybtex.database import parse_file

from predict_check.listings import LISTING as LISTED  # a listing with the comment that names its code

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
PAGES = sorted(BOOK.glob("*.md"))
EVAL = re.compile(r"\{eval\}`([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)`")
HIDDEN_TAGS = {"remove-input", "hide-input"}
# What the narrowest column a laptop (1280 px) gives code holds, a listing in a dropdown: 73 characters.
CODE_COLUMNS = 72
LISTING = re.compile(r"^```\{code-block\} python\n(.*?)^```$", re.M | re.S)  # a listing, as make boxes writes it


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
    """The lines of each listing the page shows (written from the package's code by make boxes)."""
    return [line for body in LISTING.findall(page.read_text()) for line in body.splitlines()]


@pytest.mark.parametrize("page", PAGES, ids=ids(PAGES))
def test_every_line_of_code_a_page_shows_fits_a_laptop_s_column(page):
    """Its cells (a folded one opens) and its listings; a cell the book removes is not shown there."""
    lines = listed_lines(page)
    for cell in jupytext.read(page).cells:
        if cell.cell_type == "code" and not {"remove-input", "remove-cell"} & set(cell.metadata.get("tags", [])):
            lines += cell.source.splitlines()
    assert [line for line in lines if len(line) > CODE_COLUMNS] == []


@pytest.mark.parametrize("page", PAGES, ids=ids(PAGES))
def test_the_book_and_jupyterlab_show_the_same_cells_and_no_heading_is_saved_collapsed(page):
    """A cell the book removes would run or say in JupyterLab what the book does not; a heading saved
    collapsed would be opened by the first run that reaches it, and saved open: what waits is the extension's."""
    for cell in jupytext.read(page).cells:
        assert "remove-cell" not in cell.metadata.get("tags", []), cell.source[:80]
        assert "jp-MarkdownHeadingCollapsed" not in cell.metadata, cell.source[:80]


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


CHAPTER_PAGES = [page for page in PAGES if 'Prediction("' in page.read_text()]


@pytest.mark.parametrize("page", CHAPTER_PAGES, ids=ids(CHAPTER_PAGES))
def test_a_page_with_boxes_ends_with_what_to_remember_after_its_last_box(page):
    """Issue 49: no page said, in two lines, what to take from it; each does now, once its boxes are behind."""
    text = page.read_text()
    assert text.rindex("\n## What to remember\n") > text.rindex('Prediction("')


def test_the_chapter_lists_each_function_of_the_package_once():
    """Issue 49: LLaMA's four-line norm was listed four times on three pages, each time beside a variant."""
    listed = [(found["path"], found["name"]) for page in PAGES for found in LISTED.finditer(page.read_text())]
    assert listed and sorted(listed) == sorted(set(listed))


def free_names(code: str) -> set[str]:
    """The names a listing uses but does not define itself (numpy's two aside, as every page imports them)."""
    tree = ast.parse(code)
    bound = set(dir(builtins)) | {"self", "cls", "np", "npt"}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} - bound


@pytest.mark.parametrize("page", PAGES, ids=ids(PAGES))
def test_every_name_a_listing_uses_is_defined_in_it_or_named_before_it(page):
    """Issue 49: the layer's listing used seven names the page never said, the model's forward pass eight."""
    text = page.read_text()
    for listing in LISTED.finditer(text):
        before = text[: listing.start()]
        unsaid = {name for name in free_names(listing["body"]) if not re.search(rf"(?<![\w.]){name}(?!\w)", before)}
        assert unsaid == set(), listing["name"]
