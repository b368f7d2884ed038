"""Five fixes to the theme's output, so every page is self-contained, light, accessible and printable.

1. The theme always includes the in-page "live code" loader's scripts, twice (the
   second copy redeclares a constant and fails with a page error), and their only
   job is to fetch a remote kernel on demand. This book offers Binder links and
   local notebooks instead, so its pages leave those scripts out.
2. Executing a page stores the state of its widgets, and the page would embed it
   (hundreds of kilobytes on the exercises page) for a widget manager it never
   loads: the book shows the kernel-free HTML of each widget instead. It is left out.
3. Bibliography entries are written with the deprecated ``doc-biblioentry`` role
   inside a ``role="list"`` container, which assistive technology cannot read as a
   list; they are given the ``listitem`` role that container expects.
4. The theme's skip link goes to the start of ``<main>``, which is the article's toolbar:
   a keyboard reader still had every button of it to pass. It goes to the article's first
   section instead (``skip_target``, read by ``book/_templates/layout.html``).
5. Printed, a prediction box is its question and a line to write on (``course.css``);
   the answers of the page's boxes follow the article on a page of their own
   (``print_answers``), in a fold that only print opens, so no screen shows them.
"""

from __future__ import annotations

import html
import re

FIRST_SECTION = re.compile(r'<section\b[^>]*\bid="([^"]+)"')
BOX = re.compile(r'<div class="prediction" data-exercise="([^"]+)"')


def _print_answers(body: str) -> str:
    """The answers of the page's prediction boxes, in the order it asks them; empty without boxes."""
    from predict_check.verdicts import reference

    from rmsnorm_course.pages import COURSE

    items = []
    for exercise_id in dict.fromkeys(BOX.findall(body)):
        answer = reference(COURSE.get(exercise_id))
        said = f" {answer.detail}" if answer.detail else ""
        items.append(
            f"<li><strong>{html.escape(answer.title)}</strong>: "
            f"<code>{html.escape(answer.answer or '')}</code>: {html.escape(answer.message + said)}</li>"
        )
    if not items:
        return ""
    return (
        '<details class="print-answers"><summary>Answers</summary>'
        f"<p>The answers to this page's predictions, in the order it asks them.</p><ol>{''.join(items)}</ol></details>"
    )


def _is_live_code_loader(script) -> bool:
    filename = getattr(script, "filename", "") or ""
    body = getattr(script, "attributes", {}).get("body", "")
    return "thebe" in filename or "THEBE_JS_URL" in body


def _is_widget_state(script) -> bool:
    return getattr(script, "attributes", {}).get("type") == "application/vnd.jupyter.widget-state+json"


def _fix_page(app, pagename, templatename, context, doctree) -> None:
    if "script_files" in context:
        context["script_files"] = [
            s for s in context["script_files"] if not (_is_live_code_loader(s) or _is_widget_state(s))
        ]
    if "body" in context:
        context["body"] = context["body"].replace('role="doc-biblioentry"', 'role="listitem"')
        first = FIRST_SECTION.search(context["body"])
        if first:
            context["skip_target"] = first.group(1)
        context["print_answers"] = _print_answers(context["body"])


def setup(app):
    app.connect("html-page-context", _fix_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
