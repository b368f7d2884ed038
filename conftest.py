"""Run every MyST notebook in book/ as a test, straight from its .md source.

nbval collects ``.ipynb`` files only; here each ``book/*.md`` is read with
jupytext and handed to nbval's collector, so no notebook is ever written to disk.
"""

from __future__ import annotations

import os
import types
from pathlib import Path

import jupytext
import nbformat
from nbval import plugin

BOOK = Path(__file__).parent / "book"
# The answer key the tests compute is cached beside the build, not in the user's cache (make clean removes it),
# and the secret that seals what they cache is made there too, never in the user's own config folder.
os.environ.setdefault("RMSNORM_COURSE_CACHE", str(Path(__file__).parent / "_build" / "answer-key"))
os.environ["XDG_CONFIG_HOME"] = str(Path(__file__).parent / "_build" / "config")


class MySTNotebook(plugin.IPyNbFile):
    """nbval's notebook collector, fed by jupytext instead of reading JSON."""

    def collect(self):
        notebook = jupytext.read(self.path)
        original = plugin.nbformat
        plugin.nbformat = types.SimpleNamespace(read=lambda *_, **__: notebook, from_dict=nbformat.from_dict)
        try:
            yield from super().collect()
        finally:
            plugin.nbformat = original


def pytest_collect_file(file_path: Path, parent):
    options = parent.config.option
    if (options.nbval or options.nbval_lax) and file_path.suffix == ".md" and file_path.parent == BOOK:
        return MySTNotebook.from_parent(parent, path=file_path)
    return None
