"""The pages that show a course's boxes, made as the boxes need them by one tool, never by hand.

A page is a MyST Markdown notebook, and it shows a box with one code cell of one line,
``Prediction("an-exercise-id")``. Everything else a box needs on its page is written
here (``make``), or listed as missing (``problems``):

- the box cell's metadata: its source hidden, in the book and in JupyterLab alike;
- right after a chapter box, the heading whose section holds back what follows it in
  JupyterLab (``box.GO_ON``: it opens collapsed; the book leaves it out, since its page
  waits by itself), and at the end of a page with boxes, the closing heading
  (``box.PAGE_END``), so that the last box's section ends there;
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
from nbformat.v4 import new_markdown_cell

from .box import GO_ON, KEPT_NOTE, PAGE_END
from .exercises import Course

FORMAT = "md:myst"
BOX = re.compile(r'Prediction\("([a-z0-9-]+)"\)')  # a chapter box: the whole of its cell
BOX_METADATA = {"tags": ["remove-input"], "jupyter": {"source_hidden": True}}
GO_ON_METADATA = {"jp-MarkdownHeadingCollapsed": True, "tags": ["remove-cell"]}
PAGE_END_CELL = {"source": f"# {PAGE_END}\n\n{KEPT_NOTE}", "metadata": {"tags": ["remove-cell"]}}


def box_of(cell: NotebookNode) -> str | None:
    """The exercise id a chapter box cell shows, or None for any other cell."""
    found = BOX.fullmatch(cell.source.strip()) if cell.cell_type == "code" else None
    return found.group(1) if found else None


def is_go_on(cell: NotebookNode) -> bool:
    return cell.cell_type == "markdown" and cell.source == f"# {GO_ON}" and cell.metadata == GO_ON_METADATA


def is_page_end(cell: NotebookNode) -> bool:
    return cell.cell_type == "markdown" and cell.source.startswith(f"# {PAGE_END}")


def made(notebook: NotebookNode) -> NotebookNode:
    """The page with every box's metadata, the heading after each box, and the closing heading in place.

    A closing heading the page has keeps its words (its author may have wrapped them); a
    missing one is written from the widget's own note.
    """
    ends = [cell for cell in notebook.cells if is_page_end(cell)]
    cells = [cell for cell in notebook.cells if not (is_go_on(cell) or is_page_end(cell))]
    out: list[NotebookNode] = []
    for cell in cells:
        out.append(cell)
        if box_of(cell) is not None:
            cell.metadata.update(BOX_METADATA)
            out.append(new_markdown_cell(f"# {GO_ON}", metadata=dict(GO_ON_METADATA)))
    if any(box_of(cell) for cell in cells):
        out.append(ends[-1] if ends else new_markdown_cell(**PAGE_END_CELL))
    for cell in out:  # nbformat's ids mean nothing in a text notebook
        cell.pop("id", None)
    notebook.cells = out
    return notebook


def make(pages: Sequence[Path]) -> list[Path]:
    """Write every page as ``made`` makes it; the pages that changed."""
    changed = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        written = jupytext.writes(made(jupytext.reads(text, fmt=FORMAT)), fmt=FORMAT)
        if written != text:
            page.write_text(written, encoding="utf-8")
            changed.append(page)
    return changed


def problems(course: Course, pages: Sequence[Path]) -> list[str]:
    """What a page lacks, or what the pages ask that the course does not declare; empty when all is made."""
    found, asked = [], []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        notebook = jupytext.reads(text, fmt=FORMAT)
        asked += [(page.name, exercise_id) for exercise_id in map(box_of, notebook.cells) if exercise_id]
        if jupytext.writes(made(notebook), fmt=FORMAT) != text:
            found.append(f"{page.name}: a box's cell, the heading after it or the page's closing heading is not as "
                         "the boxes need them; run the pages tool (make boxes) to write them")  # fmt: skip
    return found + _unmatched(course, asked)


def _unmatched(course: Course, asked: list[tuple[str, str]]) -> list[str]:
    """Boxes that name no exercise, exercises asked twice or never, and the pages' order against the course's."""
    ids = [exercise_id for _, exercise_id in asked]
    found = [f"{name} asks {exercise_id!r}, which {course.name} does not declare"
             for name, exercise_id in asked if exercise_id not in course.exercises]  # fmt: skip
    found += [
        f"{exercise_id!r} is asked on more than one page" for exercise_id in set(ids) if ids.count(exercise_id) > 1
    ]
    found += [f"{exercise_id!r} is declared but asked on no page" for exercise_id in course.exercises
              if exercise_id not in ids]  # fmt: skip
    if not found and ids != list(course.exercises):
        found.append("the pages ask the exercises in another order than the course declares them: declare each "
                     "page's boxes in the order the page asks them, and the pages in reading order")  # fmt: skip
    return found
