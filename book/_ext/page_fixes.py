"""Two fixes to the theme's output, so every page is accessible; the engine's extension does the rest.

1. Bibliography entries are written with the deprecated ``doc-biblioentry`` role
   inside a ``role="list"`` container, which assistive technology cannot read as a
   list; they are given the ``listitem`` role that container expects.
2. The theme's skip link goes to the start of ``<main>``, which is the article's toolbar:
   a keyboard reader still had every button of it to pass. It goes to the article's first
   section instead (``skip_target``, read by ``book/_templates/layout.html``).

What the boxes need of a page (``predict_check.sphinx``): no live-code loader and no
widget state, and the page's answers for print (``print_answers``, which
``book/_templates/layout.html`` places after the article).
"""

from __future__ import annotations

import re

FIRST_SECTION = re.compile(r'<section\b[^>]*\bid="([^"]+)"')


def _fix_page(app, pagename, templatename, context, doctree) -> None:
    if "body" in context:
        context["body"] = context["body"].replace('role="doc-biblioentry"', 'role="listitem"')
        first = FIRST_SECTION.search(context["body"])
        if first:
            context["skip_target"] = first.group(1)


def setup(app):
    app.connect("html-page-context", _fix_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
