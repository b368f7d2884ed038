"""Tables for the book, as Markdown so they read the same in Jupyter and in the HTML page."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from IPython.display import Markdown


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[object]], footer: str = "") -> Markdown:
    """A GitHub-style Markdown table, with an optional paragraph under it; pipes inside cells are escaped."""
    from IPython.display import Markdown

    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(map(cell, headers)) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(map(cell, row)) + " |" for row in rows]
    if footer:
        lines += ["", footer]
    return Markdown("\n".join(lines))
