"""Serve the prediction boxes' scripts once: static files every page links, not a copy in every box.

The boxes (``rmsnorm_course.views.prediction``) carry only their data. The script that
judges what a reader types is the package's own file, and the rules it reads answers
by are written from the package's ``exercises.reading``; both go into the built
book's static folder, so the page and the package can never ship different versions.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from rmsnorm_course.views.prediction import RULES_SCRIPT, SCRIPT, rules_script


def _copy_scripts(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        (static / RULES_SCRIPT).write_text(rules_script(), encoding="utf-8")
        shutil.copyfile(str(SCRIPT), static / SCRIPT.name)


def setup(app):
    app.add_js_file(RULES_SCRIPT)
    app.add_js_file(SCRIPT.name)
    app.connect("build-finished", _copy_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
