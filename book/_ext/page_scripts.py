"""Serve the explorer's script, and its stylesheet, once: static files every page links, never a copy in the page.

The explorer (``rmsnorm_course.views.static_explorer``) carries only its own data; the script
that wires it is the package's own file, written into the built book's static folder, so the
page and the package can never ship different versions. The boxes' scripts, their data and
their stylesheet are served the same way by the engine's extension (``predict_check.sphinx``).
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from rmsnorm_course.views import static_explorer

ASSETS: tuple[Traversable, ...] = (static_explorer.SCRIPT, files("rmsnorm_course.views") / "static" / "explorer.css")


def _write_assets(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        for asset in ASSETS:
            (static / asset.name).write_text(asset.read_text(encoding="utf-8"), encoding="utf-8")


def setup(app):
    script, style = ASSETS
    app.add_js_file(script.name)
    app.add_css_file(style.name)
    app.connect("build-finished", _write_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
