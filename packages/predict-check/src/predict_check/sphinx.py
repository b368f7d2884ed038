"""The Jupyter Book (Sphinx) extension that serves a course's boxes: load it, and name the course.

In the book's ``_config.yml``::

    sphinx:
      extra_extensions: [predict_check.sphinx]
      config:
        predict_check_course: my-course   # an installed course (``courses``); without it, the one installed

Every HTML page then links the boxes' scripts and stylesheet, and the data every box shares,
written from the course (``box.data_script``); each is written once into the build's static
folder, never copied into a page, so a page and the package never ship different versions.
A page leaves out what its boxes need not: the theme's live-code loader (its only job is to
fetch a remote kernel on demand) and the stored state of the page's widgets (a built page
shows each box's kernel-free form, never a widget). A page with boxes also gets their answers
for print, in a fold that only print opens (``box.css``): the template variable
``print_answers``, which the book's ``layout.html`` places after the article.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from . import box
from .courses import load_course
from .exercises import Course
from .verdicts import reference

CONFIG = "predict_check_course"  # the option in sphinx.config that names the course
BOX = re.compile(rf'<div class="{box.PAGE_CONTRACT}" data-exercise="([^"]+)"')  # a box, as a built page holds it
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
ANSWERS_TITLE = "Answers"
ANSWERS_LEAD = "The answers to this page's predictions, in the order it asks them."


def assets(course: Course) -> dict[str, str]:
    """Each file the boxes need in the static folder, by name: the shared data, the scripts, the stylesheet."""
    scripts = {script.name: script.read_text(encoding="utf-8") for script in box.SCRIPTS}
    return {box.DATA_SCRIPT: box.data_script(course), **scripts, box.STYLE.name: box.STYLE.read_text(encoding="utf-8")}


def print_answers(course: Course, body: str) -> str:
    """The answers of the page's boxes, in the order it asks them, folded for print; empty without boxes."""
    items = []
    for exercise_id in dict.fromkeys(map(html.unescape, BOX.findall(body))):
        answer = reference(course.get(exercise_id))
        said = f" {answer.detail}" if answer.detail else ""
        items.append(
            f'<li data-exercise="{html.escape(exercise_id)}"><strong>{html.escape(answer.title)}</strong>: '
            f"<code>{html.escape(answer.answer or '')}</code>: {html.escape(answer.message + said)}</li>"
        )
    if not items:
        return ""
    return (
        f'<details class="print-answers"><summary>{ANSWERS_TITLE}</summary>'
        f"<p>{ANSWERS_LEAD}</p><ol>{''.join(items)}</ol></details>"
    )


def _course(app) -> Course:
    return load_course(getattr(app.config, CONFIG))


def _is_live_code_loader(script) -> bool:
    filename = getattr(script, "filename", "") or ""
    body = getattr(script, "attributes", {}).get("body", "")
    return "thebe" in filename or "THEBE_JS_URL" in body


def _is_widget_state(script) -> bool:
    return getattr(script, "attributes", {}).get("type") == WIDGET_STATE


def _fix_page(app, pagename, templatename, context, doctree) -> None:
    if "script_files" in context:
        kept = [script for script in context["script_files"] if not _is_live_code_loader(script)]
        context["script_files"] = [script for script in kept if not _is_widget_state(script)]
    if "body" in context:
        context["print_answers"] = print_answers(_course(app), context["body"])


def _write_assets(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        for name, text in assets(_course(app)).items():
            (static / name).write_text(text, encoding="utf-8")


def setup(app) -> dict[str, bool]:
    app.add_config_value(CONFIG, None, "env")
    app.connect("builder-inited", _course)  # a course that is not installed stops the build before any page
    for script in (box.DATA_SCRIPT, *(script.name for script in box.SCRIPTS)):
        app.add_js_file(script)
    app.add_css_file(box.STYLE.name)
    app.connect("html-page-context", _fix_page, priority=900)
    app.connect("build-finished", _write_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
