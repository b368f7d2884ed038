"""Serve the pages' scripts, and their stylesheet, once: static files every page links, never a copy in the page.

The prediction boxes (``predict_check.box``) and the explorer
(``rmsnorm_course.views.static_explorer``) carry only their own data. The scripts that
wire them are the package's own files, and the data every box shares (the reading
rules, the chapter's exercise ids, each verdict's look) is written from the package;
all go into the built book's static folder, so the page and the package can never ship
different versions.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from predict_check import box

from rmsnorm_course.pages import COURSE
from rmsnorm_course.views import static_explorer

STYLES: tuple[Traversable, ...] = (box.STYLE, files("rmsnorm_course.views") / "static" / "explorer.css")


def assets() -> dict[str, str]:
    """Each script's name in the static folder, and its text, in the order pages load them."""
    return {
        box.DATA_SCRIPT: box.data_script(COURSE),
        **{script.name: script.read_text(encoding="utf-8") for script in box.SCRIPTS},
        static_explorer.SCRIPT.name: static_explorer.SCRIPT.read_text(encoding="utf-8"),
    }


def _write_scripts(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        styles = {style.name: style.read_text(encoding="utf-8") for style in STYLES}
        for name, text in {**assets(), **styles}.items():
            (static / name).write_text(text, encoding="utf-8")


def setup(app):
    for name in assets():
        app.add_js_file(name)
    for style in STYLES:
        app.add_css_file(style.name)
    app.connect("build-finished", _write_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
