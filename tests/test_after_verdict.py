"""The code after each box: a few lines a learner can run in their head, from what the page showed.

The first code cell after a box is what opens with its verdict. It is held to what the chapter
promises of it: at most eight lines of code, shown, and run only from names the page's visible
cells bound (or numpy and the package's maths and model), never from the hidden ``page`` values,
a trace the page did not build in sight, or the helpers that draw figures and tables. That its
output is the verdict's answer is checked on the built page (``tests/test_book.py``).
"""

from __future__ import annotations

import ast
import builtins
import re

import jupytext
import pytest

from book_pages import CHAPTER, ROOT

LINES = 8
HIDDEN = ("remove-input", "hide-input")
BOX = re.compile(r"""^Prediction\(\s*["']([a-z0-9-]+)["']""")
# What a cell after a box may import: numpy and the standard library, and the maths and the model.
ALLOWED = re.compile(r"^(numpy|math|fractions|rmsnorm_course(\.core(\..*)?|\.model(\..*)?)?)$")
NEVER = {"page", "trace", "Prediction"}  # the page's hidden values and the box itself


def cells(page: str) -> list[tuple[bool, str]]:
    """Each code cell of a page, in order: whether it is shown, and its source."""
    notebook = jupytext.read(ROOT / f"{page}.md")
    return [
        (not set(HIDDEN) & set(cell.metadata.get("tags", [])), cell.source)
        for cell in notebook.cells
        if cell.cell_type == "code"
    ]


def bound(tree: ast.AST) -> set[str]:
    """The names a cell binds: assignments, loop targets, definitions and imports."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def loaded(tree: ast.AST) -> set[str]:
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def imported(tree: ast.AST) -> set[str]:
    """The modules a cell imports from."""
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            modules.add(node.module or "")
    return modules


def after_boxes(page: str) -> list[tuple[str, bool, str, set[str]]]:
    """Each box's id, with the first code cell after it (shown?, source) and the names shown before it."""
    found, shown_names, waiting = [], set(), None
    for shown, source in cells(page):
        if waiting is not None:
            found.append((waiting, shown, source, set(shown_names)))
            waiting = None
        if match := BOX.match(source.strip()):
            waiting = match[1]
        elif shown:
            tree = ast.parse(source)
            if not loaded(tree) & NEVER:  # a name bound from the hidden values is not one the page showed
                shown_names |= bound(tree)
    if waiting is not None:
        found.append((waiting, False, "", set(shown_names)))
    return found


def code_lines(source: str) -> int:
    return sum(1 for line in source.splitlines() if line.strip() and not line.strip().startswith("#"))


CASES = [(page, box) for page in CHAPTER for box in after_boxes(page)]


@pytest.mark.parametrize(("page", "box"), CASES, ids=[f"{page.split('/')[-1]}:{box[0]}" for page, box in CASES])
def test_the_cell_after_a_box_is_a_few_shown_lines_run_from_what_the_page_showed(page, box):
    exercise, shown, source, names = box
    assert shown, f"{exercise}: the cell after the box is hidden, or there is none"
    assert code_lines(source) <= LINES, f"{exercise}: {code_lines(source)} lines of code after the box"
    tree = ast.parse(source)
    assert not loaded(tree) & NEVER, f"{exercise}: reads {sorted(loaded(tree) & NEVER)}"
    assert all(ALLOWED.match(module) for module in imported(tree)), f"{exercise}: imports {sorted(imported(tree))}"
    unknown = loaded(tree) - bound(tree) - names - set(dir(builtins))
    assert not unknown, f"{exercise}: uses {sorted(unknown)}, which no shown cell above it binds"


def test_the_rules_catch_a_cell_that_reads_the_hidden_values(tmp_path, monkeypatch):
    page = tmp_path / "book" / "planted.md"
    page.parent.mkdir()
    page.write_text(
        "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n---\n\n"
        "```{code-cell} ipython3\n:tags: [remove-input]\npage = 1\n```\n\n"
        "```{code-cell} ipython3\nx = 2\n```\n\n"
        '```{code-cell} ipython3\n:tags: [remove-input, prediction]\nPrediction("planted")\n```\n\n'
        "```{code-cell} ipython3\nx + page.hidden + helper(x)\n```\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    [(exercise, shown, source, names)] = after_boxes("book/planted")
    assert (exercise, shown, names) == ("planted", True, {"x"})
    assert loaded(ast.parse(source)) - names - bound(ast.parse(source)) == {"page", "helper"}


def test_every_box_on_the_chapter_is_held_to_these_rules():
    from rmsnorm_course.pages import COURSE

    assert sorted(box[0] for _, box in CASES) == sorted(COURSE.exercises)
