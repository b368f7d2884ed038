"""A page's listings of the package's code, written into the page from the code itself.

A page shows a function or class of the package as a code block, which the book and
JupyterLab's MyST renderer both draw (JupyterLab cannot include a file). The code stays
the one source: a comment line names where the block comes from, and ``page_cells``
writes the block under it from that file, so a listing and its code cannot drift apart::

    % make boxes writes the listing below from ../src/package/module.py: function
    ```{code-block} python
    ```

The path is relative to the page; the name is a function or class, or ``Class.method``.
The comment is MyST's, so neither reader shows it.
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

LISTING = re.compile(
    r"^(?P<head>% make boxes writes the listing below from (?P<path>\S+): (?P<name>[\w.]+)\n"
    r"```\{code-block\} python\n)(?P<body>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)


class ListingError(ValueError):
    """A listing names a file or an object that is not there."""


def source_of(path: Path, name: str) -> str:
    """The lines that define ``name`` in the Python file ``path``, decorators included, dedented."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ListingError(f"the listing of {name} names {path}, which cannot be read: {error.strerror}") from None
    definitions, found = ast.parse(text).body, None
    for part in name.split("."):
        found = next((node for node in definitions if _defines(node, part)), None)
        if found is None:
            raise ListingError(f"{path} defines no {name} at its top level, which a listing names")
        definitions = found.body
    start = min([found.lineno, *(decorator.lineno for decorator in found.decorator_list)])
    return textwrap.dedent("".join(text.splitlines(keepends=True)[start - 1 : found.end_lineno]))


def _defines(node: ast.stmt, name: str) -> bool:
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name


def with_listings(text: str, folder: Path) -> str:
    """``text`` (a page's Markdown, in ``folder``) with every listing written anew from its code."""
    return LISTING.sub(lambda found: found["head"] + source_of(folder / found["path"], found["name"]) + "```", text)
