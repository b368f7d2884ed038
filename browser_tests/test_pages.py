"""Every page of the built book in a real browser: clean console, local requests only,
images decoded, math rendered, no serious accessibility violations, and a screenshot."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe

from book_pages import PAGES
from conftest import SCREENSHOTS

PAGES_WITH_MATH = {"book/formula", "book/scale-and-epsilon", "book/backward", "book/boundaries", "book/in-the-model"}


@pytest.fixture(scope="module")
def axe() -> Axe:
    return Axe()


@pytest.mark.parametrize("page_path", PAGES)
def test_page_loads_cleanly_and_offline(visit, axe, page_path):
    result = visit(f"{page_path}.html")
    page = result.page
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{page_path.replace('/', '-')}.png"), full_page=True)

    assert result.foreign_requests == [], "requests to other hosts"
    assert result.failed_requests == []
    assert result.console_errors == []

    undecoded = page.evaluate(
        "() => [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)"
    )
    assert undecoded == []

    math = page.evaluate(
        """() => {
            const blocks = [...document.querySelectorAll('span.math, div.math')];
            return {total: blocks.length,
                    rendered: blocks.filter(b => b.querySelector('mjx-container')).length,
                    errors: document.querySelectorAll('mjx-merror').length};
        }"""
    )
    assert math["rendered"] == math["total"] and math["errors"] == 0
    if page_path in PAGES_WITH_MATH:
        assert math["total"] > 0
    assert not re.search(r"\\\(|\\\[", page.inner_text("main")), "raw TeX left in the text"

    violations = axe.run(page).response["violations"]
    serious = [f"{v['id']} ({v['impact']}): {v['help']}" for v in violations if v["impact"] in ("critical", "serious")]
    assert serious == []
