"""Serve the prediction boxes' script once: a static file every page links, not a copy in every box.

The boxes (``rmsnorm_course.views.prediction``) carry only their data; the script that
judges what a reader types is the package's own file, copied into the built book's
static folder, so the page and the package can never ship different versions.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from rmsnorm_course.views.prediction import SCRIPT


def _copy_script(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / "_static" / SCRIPT.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(str(SCRIPT), target)


def setup(app):
    app.add_js_file(SCRIPT.name)
    app.connect("build-finished", _copy_script)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
