"""Every page fits a phone (390 px) and a laptop (1280 px): nothing pushes the page
sideways, what is wider than the column scrolls on its own and shows that it does,
no figure's text is drawn smaller than 9 px, and no page grows past what a reader
will scroll (12,000 px at 1280 px with every answer shown, the review page's folds closed:
a reader meets it a box's section at a time).

Code fits its column on a laptop: no code block (a cell, what it prints, a listing, folded
or not) scrolls there, and listings set side by side share a line only when each fits; on a
phone code may scroll, with the cue the line above holds every scroller to."""

from __future__ import annotations

import pytest

from book_pages import PAGES
from conftest import ROOT, SCREENSHOTS, page_with_errors, show_every_answer
from rmsnorm_course.views import figures

WIDTHS = (390, 1280)
SMALLEST_PX = 9  # the least text size a reader should have to read, in CSS pixels
LONGEST_PX = 12_000  # at 1280 px
FIGURE_TEXT_PX = figures.SMALLEST_TEXT * figures.STYLE["figure.dpi"] / 72  # at the figure's own size

MEASURE = """() => {
  const article = document.querySelector('.bd-article');
  const box = article.getBoundingClientRect();
  const wide = (e) => e.scrollWidth > e.clientWidth + 1;
  const scrolls = (e) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  const cued = (e) => getComputedStyle(e).backgroundImage.includes('gradient');
  const outside = (e) => {
    const edges = e.getBoundingClientRect();
    return edges.right > box.right + 1 || edges.left < box.left - 1;
  };
  const drawn = (t) => parseFloat(getComputedStyle(t).fontSize) * Math.hypot(t.getScreenCTM().a, t.getScreenCTM().b);
  const blocks = [...article.querySelectorAll('mjx-container[display="true"], div.highlight pre, figure')];
  return {
    pageWidth: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
    height: document.documentElement.scrollHeight,
    blocks: blocks.filter(e => (wide(e) && !(scrolls(e) && cued(e))) || outside(e))
                  .map(e => e.tagName + ': ' + e.textContent.slice(0, 60)),
    images: [...article.querySelectorAll('img')].filter(i => i.naturalWidth > 0 && i.getBoundingClientRect().width > 0)
                  .map(i => ({src: i.src.split('/').pop(), scale: i.getBoundingClientRect().width / i.naturalWidth})),
    svgText: [...article.querySelectorAll('svg text')].filter(t => t.textContent.trim())
                  .map(t => ({text: t.textContent, px: drawn(t)})),
  };
}"""


@pytest.fixture(scope="module", params=WIDTHS, ids=lambda width: f"{width}px")
def tab(request, browser):
    context = browser.new_context(viewport={"width": request.param, "height": 900})
    show_every_answer(context)  # the longest each page gets
    yield context, request.param
    context.close()


@pytest.mark.parametrize("page_path", PAGES)
def test_the_page_fits_the_screen_and_its_text_is_readable(tab, server, page_path):
    context, width = tab
    page, errors = page_with_errors(context, f"{server}/{page_path}.html")
    page.wait_for_function("() => !window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)")
    page.evaluate("() => window.MathJax ? window.MathJax.startup.promise : null")
    found = page.evaluate(MEASURE)
    page.close()

    assert errors == []
    assert found["pageWidth"] <= found["viewport"], "the page scrolls sideways"
    assert found["blocks"] == [], "wider than the column without scrolling on its own, or without a cue"
    small = [(i["src"], round(FIGURE_TEXT_PX * i["scale"], 1)) for i in found["images"]]
    small = [image for image in small if image[1] < SMALLEST_PX]
    assert small == [], "figures whose smallest text is drawn under 9 px"
    if page_path == "book/scale-and-epsilon":
        assert len(found["svgText"]) > 10  # the explorer's axes, ticks and legend are measured
    tiny = [(t["text"], round(t["px"], 1)) for t in found["svgText"] if t["px"] < SMALLEST_PX]
    assert tiny == [], "drawn text under 9 px"
    if width == 1280:
        assert found["height"] <= LONGEST_PX, f"{found['height']} px long"


CODE = """() => {
  document.querySelectorAll('.bd-article details').forEach(d => { d.open = true; });
  const scrolls = (pre) => pre.scrollWidth > pre.clientWidth + 1;
  const blocks = [...document.querySelectorAll('.bd-article pre')].filter(pre => pre.checkVisibility());
  return {
    blocks: blocks.length,
    wider: blocks.filter(scrolls).map(pre => ({code: pre.textContent.trim().split('\\n')[0].slice(0, 50),
                                                 content: pre.scrollWidth, column: pre.clientWidth})),
    grids: [...document.querySelectorAll('.bd-article .sd-row')].filter(row => row.querySelector('pre')).map(row =>
      [...row.children].map(item => ({top: Math.round(item.getBoundingClientRect().top),
                                      width: item.getBoundingClientRect().width, row: row.clientWidth,
                                      scrolls: [...item.querySelectorAll('pre')].some(scrolls)}))),
  };
}"""


@pytest.mark.parametrize("page_path", PAGES)
def test_code_fits_its_column_on_a_laptop_and_listings_side_by_side_stack_where_they_do_not_fit(tab, server, page_path):
    """At 1280 px no code block scrolls: one that scrolls with a cue does not count as fitting. At 390 px
    code may scroll (with the cue the page-fit test holds it to); listings never share a line then."""
    context, width = tab
    source = (ROOT / f"{page_path}.md").read_text(encoding="utf-8")
    page, errors = page_with_errors(context, f"{server}/{page_path}.html")
    found = page.evaluate(CODE)
    grids = page.locator(".bd-article .sd-container-fluid:has(pre)")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for number in range(grids.count()):
        name = f"listings-{page_path.split('/')[-1]}-{number + 1}-{width}.png"
        grids.nth(number).screenshot(path=str(SCREENSHOTS / name))
    page.close()

    assert errors == []
    assert found["blocks"] >= source.count("{literalinclude}")  # every listing is measured, folded or not
    if width == 1280:
        assert found["wider"] == [], "code wider than its column on a laptop"
    assert len(found["grids"]) == source.count("{grid}")
    for grid in found["grids"]:
        for item in grid:
            beside = [other for other in grid if other is not item and other["top"] == item["top"]]
            assert not (item["scrolls"] and beside), f"a listing that does not fit shares its line: {grid}"


FITS = """() => {
  const room = (e) => e.parentElement.getBoundingClientRect().width;
  const search = [...document.querySelectorAll('.search-button-field, .search-button')]
    .filter(e => e.checkVisibility());
  return {
    tables: [...document.querySelectorAll('.bd-article table')].filter(t => t.checkVisibility())
      .map(t => ({table: t.textContent.trim().slice(0, 40), width: t.getBoundingClientRect().width, room: room(t)})),
    math: [...document.querySelectorAll('.bd-article mjx-container[display="true"]')].filter(m => m.checkVisibility())
      .map(m => ({math: m.textContent.slice(0, 40), content: m.scrollWidth, column: m.clientWidth,
                  scale: parseFloat(getComputedStyle(m.firstElementChild).fontSize)
                         / parseFloat(getComputedStyle(m).fontSize)})),
    search: search.length,
  };
}"""


@pytest.mark.parametrize("page_path", PAGES)
def test_tables_and_display_math_fit_their_column_and_one_search_field_shows(tab, server, page_path):
    """A display equation wider than its column is drawn smaller until it fits (the formula page's x-hat was 445 px
    in a phone's 358), down to 70% of its size: past that it scrolls, with the cue. On a laptop every table fits its
    column (modern-blocks' was 24 px wider). One search field shows, at either width: the theme drew two at 1280 px."""
    context, width = tab
    page, errors = page_with_errors(context, f"{server}/{page_path}.html")
    page.evaluate("() => window.MathJax ? window.MathJax.startup.promise : null")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.bd-article mjx-container[display=\"true\"]')]"
        ".every(m => m.scrollWidth <= m.clientWidth + 1 || m.firstElementChild.style.fontSize)"
    )
    found = page.evaluate(FITS)
    page.close()
    assert errors == []
    assert found["search"] == 1
    assert [m for m in found["math"] if m["content"] > m["column"] + 1 and m["scale"] > 0.71] == []
    assert all(m["scale"] >= 0.699 for m in found["math"]), found["math"]
    if width == 1280:
        assert [t for t in found["tables"] if t["width"] > t["room"] + 1] == []


def test_the_formula_page_s_display_formula_fits_a_phone(browser, server):
    """Drawn to fit: at its own size where it fits (the page breaks it into lines), else smaller, never below 70%."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page, errors = page_with_errors(context, f"{server}/book/formula.html")
    page.evaluate("() => window.MathJax ? window.MathJax.startup.promise : null")
    page.wait_for_function("() => document.querySelector('.bd-article mjx-container[display=\"true\"] > mjx-math')")
    found = page.evaluate(FITS)["math"][0]
    assert found["content"] <= found["column"] + 1 and 0.7 <= found["scale"] <= 1, found
    page.set_viewport_size({"width": 1280, "height": 900})  # turned, or widened: drawn at its size again where it fits
    page.wait_for_function(
        "() => !document.querySelector('.bd-article mjx-container[display=\"true\"] > mjx-math').style.fontSize"
    )
    assert errors == []
    context.close()
