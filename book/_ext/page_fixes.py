"""Three fixes to the theme's output, so every page is self-contained, light and accessible.

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
"""

from __future__ import annotations


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


def setup(app):
    app.connect("html-page-context", _fix_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
