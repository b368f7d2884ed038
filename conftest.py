"""Run every MyST notebook in book/ as a test, straight from its .md source.

nbval collects ``.ipynb`` files only; here each ``book/*.md`` is read with
jupytext and handed to nbval's collector, so no notebook is ever written to disk.
jupytext is imported only when a notebook is collected, so a run of unit tests
alone does not pay for it.
"""

from __future__ import annotations

import functools
import os
import sys
import types
from pathlib import Path

# nbval reads notebooks with nbformat, whose schema check imports jsonschema, which builds an IRI parser at
# import when rfc3987_syntax is installed (JupyterLab's server brings it): seconds of every pytest process's
# start, for a format no notebook schema uses. Without it jsonschema leaves "iri" unchecked. nbval is loaded
# here, after that (pyproject.toml's addopts keep pytest from loading it first).
sys.modules.setdefault("rfc3987_syntax", None)
pytest_plugins = ["nbval.plugin"]

BOOK = Path(__file__).parent / "book"
# The answer key the tests compute is cached beside the build, not in the user's cache (make clean removes it),
# and the secret that seals what they cache is made there too, never in the user's own config folder.
os.environ.setdefault("RMSNORM_COURSE_CACHE", str(Path(__file__).parent / "_build" / "answer-key"))
os.environ["XDG_CONFIG_HOME"] = str(Path(__file__).parent / "_build" / "config")


@functools.cache
def _myst_notebook() -> type:
    """nbval's notebook collector, fed by jupytext instead of reading JSON."""
    import jupytext
    import nbformat
    from nbval import plugin

    class MySTNotebook(plugin.IPyNbFile):
        def collect(self):
            notebook = jupytext.read(self.path)
            original = plugin.nbformat
            plugin.nbformat = types.SimpleNamespace(read=lambda *_, **__: notebook, from_dict=nbformat.from_dict)
            try:
                yield from super().collect()
            finally:
                plugin.nbformat = original

    return MySTNotebook


def pytest_collect_file(file_path: Path, parent):
    options = parent.config.option
    if (options.nbval or options.nbval_lax) and file_path.suffix == ".md" and file_path.parent == BOOK:
        return _myst_notebook().from_parent(parent, path=file_path)
    return None
