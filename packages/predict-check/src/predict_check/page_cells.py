"""The cells a course's boxes need on their pages, written by one tool (``make boxes``), never by hand.

A page is a MyST Markdown notebook, and it shows a box with one code cell of one line,
``Prediction("an-exercise-id")``. Everything else a box needs in the page's cells is written
here (``make``), or listed as missing (``problems``):

- the box cell's metadata: its source hidden, in the book and in JupyterLab alike, and
  its tag (``BOX_TAG``), by which the engine's JupyterLab extension holds back the cells
  after it (the book's page waits by itself);
- each listing of the package's code, written from the code (``listings``);
- across the pages, in reading order: every box names one of the course's exercises,
  each exercise is asked on exactly one page, and in the order the course declares them.

The pages are read and written with jupytext, in the form it writes, so a page that is
already as it should be is left byte for byte as it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import jupytext
from nbformat import NotebookNode

from . import listings
from .exercises import Course

FORMAT = "md:myst"
BOX = re.compile(r'Prediction\("([a-z0-9-]+)"\)')  # a chapter box: the whole of its cell
BOX_TAG = "prediction"  # what the JupyterLab extension (lab/extension.js) knows a box's cell by
BOX_METADATA = {"tags": ["remove-input", BOX_TAG], "jupyter": {"source_hidden": True}}


def box_of(cell: NotebookNode) -> str | None:
    """The exercise id a chapter box cell shows, or None for any other cell."""
    found = BOX.fullmatch(cell.source.strip()) if cell.cell_type == "code" else None
    return found.group(1) if found else None


def made(notebook: NotebookNode, folder: Path) -> NotebookNode:
    """The page (in ``folder``) with every box's metadata and every listing in place."""
    for cell in notebook.cells:
        if box_of(cell) is not None:
            cell.metadata.update(BOX_METADATA)
        if cell.cell_type == "markdown":
            cell.source = listings.with_listings(cell.source, folder)
        cell.pop("id", None)  # nbformat's ids mean nothing in a text notebook
    return notebook


def made_text(page: Path) -> tuple[str, str]:
    """The page's text as it is, and as ``made`` makes it."""
    text = page.read_text(encoding="utf-8")
    return text, jupytext.writes(made(jupytext.reads(text, fmt=FORMAT), page.parent), fmt=FORMAT)


def make(pages: Sequence[Path]) -> list[Path]:
    """Write every page as ``made`` makes it; the pages that changed."""
    changed = []
    for page in pages:
        text, written = made_text(page)
        if written != text:
            page.write_text(written, encoding="utf-8")
            changed.append(page)
    return changed


def problems(course: Course, pages: Sequence[Path]) -> list[str]:
    """What a page lacks, or what the pages ask that the course does not declare; empty when all is made."""
    found, asked = [], []
    for page in pages:
        notebook = jupytext.read(page, fmt=FORMAT)
        asked += [(page.name, exercise_id) for exercise_id in map(box_of, notebook.cells) if exercise_id]
        try:
            text, written = made_text(page)
        except listings.ListingError as error:
            found.append(f"{page.name}: {error}")
            continue
        if written != text:
            found.append(f"{page.name}: a box's cell or a listing of the code is not as the code needs it; run "
                         "make boxes (page_cells) to write them")  # fmt: skip
    return found + _unmatched(course, asked)


def _unmatched(course: Course, asked: list[tuple[str, str]]) -> list[str]:
    """Boxes that name no exercise, exercises asked twice or never, and the pages' order against the course's."""
    ids = [exercise_id for _, exercise_id in asked]
    found = [f"{name} asks {exercise_id!r}, which {course.name} does not declare"
             for name, exercise_id in asked if exercise_id not in course.exercises]  # fmt: skip
    twice = sorted(exercise_id for exercise_id in set(ids) if ids.count(exercise_id) > 1)
    found += [f"{exercise_id!r} is asked on more than one page" for exercise_id in twice]
    found += [f"{exercise_id!r} is declared but asked on no page" for exercise_id in course.exercises
              if exercise_id not in ids]  # fmt: skip
    if not found and ids != list(course.exercises):
        found.append("the pages ask the exercises in another order than the course declares them: declare each "
                     "page's boxes in the order the page asks them, and the pages in reading order")  # fmt: skip
    return found
