"""The book as a new reader meets it: on a phone and a laptop, light or dark, on paper, without
JavaScript, with the keyboard and a screen reader.

* Navigation: the sidebar toggle opens and closes the chapter's pages, and on a phone the
  contents button opens the page's contents (the theme's scripts bind the visible buttons).
* Every page at 390 and 1280 px, light and dark: no serious or critical accessibility
  violation (colour contrast included), nothing wider than the screen outside a scroll
  container that shows a cue, every figure whole on the screen, every control in a box a
  finger's size (44 px), and the explorer's charts holding all their text.
* Print: no figure wider than the page; a box is its question and a line to write on, and
  the page's answers follow on a page of their own.
* Without JavaScript: Check never leaves the page, and the page says what needs JavaScript.
* Keyboard and screen reader: each input is named by its question and each button by its
  box, choices are a radio group that still takes a typed letter, the verdict is the one live
  region, a skip link reaches the article's text, and no control covers a verdict.
"""

from __future__ import annotations

import json

import pytest
from axe_playwright_python.sync_playwright import Axe

from book_pages import PAGES
from conftest import page_with_errors, show_every_answer
from predict_check.verdicts import reference
from rmsnorm_course.pages import COURSE
from rmsnorm_course.views import figures
from rmsnorm_course.views.explorer import TINY, WORKED

WIDTHS = (390, 1280)
MODES = ("light", "dark")
TOUCH_PX = 44
PRINT_WIDTH = 718  # an A4 page's width, 794 px, less the 1 cm margins Chromium prints with
READY = "() => [...document.querySelectorAll('.prediction')].every(box => box.dataset.ready === 'true')"
TIMEOUT = 120_000  # ms: the machine's two cores are shared


def open_page(browser, server, path: str, width: int, mode: str = "light", every_answer: bool = True, **options):
    """A new context at ``width`` in ``mode`` (the theme's own switch, kept in localStorage), on ``path``."""
    context = browser.new_context(viewport={"width": width, "height": 900 if width > 500 else 844}, **options)
    context.set_default_timeout(TIMEOUT)
    context.add_init_script(f"window.localStorage.setItem('mode', {json.dumps(mode)});")
    if every_answer:
        show_every_answer(context)
    page, errors = page_with_errors(context, f"{server}/{path}.html")
    if options.get("java_script_enabled", True):
        page.wait_for_function(f"() => document.documentElement.dataset.theme === {json.dumps(mode)}")
        page.wait_for_function(READY)
        page.evaluate("() => window.MathJax ? window.MathJax.startup.promise : null")
    return context, page, errors


# --- navigation ---------------------------------------------------------------------------------

PRIMARY = "#pst-primary-sidebar"
NAV_LINK = "nav.bd-docs-nav a[href$='history.html']"  # a link of the chapter's navigation


@pytest.mark.parametrize("mode", MODES)
def test_on_a_laptop_the_sidebar_toggle_closes_and_opens_the_navigation(browser, server, mode):
    context, page, errors = open_page(browser, server, "book/formula", 1280, mode)
    toggle = page.locator(".primary-toggle:visible")
    assert toggle.count() == 1, "one visible sidebar toggle"
    assert page.locator(f"{PRIMARY} {NAV_LINK}").is_visible()
    toggle.click()
    page.locator(f"{PRIMARY} {NAV_LINK}").wait_for(state="hidden")
    toggle.click()
    page.locator(f"{PRIMARY} {NAV_LINK}").wait_for(state="visible")
    contents = page.locator("#pst-secondary-sidebar a[href^='#']").first
    assert contents.is_visible()  # the page's contents: a column of their own at this width
    assert errors == []
    context.close()


@pytest.mark.parametrize("mode", MODES)
def test_on_a_phone_the_toggles_open_and_close_the_navigation_and_the_contents(browser, server, mode):
    context, page, errors = open_page(browser, server, "book/formula", 390, mode)
    for toggle, dialog, link in (
        (".primary-toggle", "#pst-primary-sidebar-modal", NAV_LINK),
        (".secondary-toggle", "#pst-secondary-sidebar-modal", "a[href^='#']"),
    ):
        button = page.locator(f"{toggle}:visible")
        assert button.count() == 1, f"one visible {toggle}"
        shown = page.locator(f"{dialog} {link}").first
        assert not shown.is_visible()
        box = button.bounding_box()
        assert box["width"] >= TOUCH_PX and box["height"] >= TOUCH_PX, box  # a finger's size
        button.click()
        shown.wait_for(state="visible")
        assert page.evaluate(f"() => document.querySelector('{dialog}').open")
        page.keyboard.press("Escape")
        shown.wait_for(state="hidden")
    assert errors == []
    context.close()


HELD_SECTION = "a[href='#explore-it-yourself']"  # a section of scale-and-epsilon its first box holds back


def test_on_a_phone_a_contents_link_to_a_held_section_closes_the_drawer_and_goes_to_the_box_that_holds_it(
    browser, server
):
    """Tapped on a section still waiting, the drawer used to stay open over a page scrolled to its end."""
    context, page, errors = open_page(browser, server, "book/scale-and-epsilon", 390, every_answer=False)
    drawer = "#pst-secondary-sidebar-modal"
    page.locator(".secondary-toggle:visible").click()
    link = page.locator(f"{drawer} {HELD_SECTION}")
    link.wait_for(state="visible")
    link.click()
    page.wait_for_function(f"() => !document.querySelector('{drawer}').open")
    box = page.locator(".prediction[data-exercise='crossover-rms']")
    page.wait_for_function(
        "() => document.activeElement === document.querySelector(\".prediction[data-exercise='crossover-rms'] input\")"
    )
    top = box.evaluate("e => e.getBoundingClientRect().top")
    bottom = box.evaluate("e => e.getBoundingClientRect().bottom")
    assert top < 844 and bottom > 0  # the box is in sight
    notice = box.locator(".prediction-hold")
    assert notice.is_visible() and "\u201cExplore it yourself\u201d" in notice.text_content()  # it says what waits
    assert errors == []
    context.close()


def test_on_a_phone_a_contents_link_to_an_open_section_closes_the_drawer_and_goes_there(browser, server):
    context, page, errors = open_page(browser, server, "book/scale-and-epsilon", 390)
    drawer = "#pst-secondary-sidebar-modal"
    page.locator(".secondary-toggle:visible").click()
    page.locator(f"{drawer} {HELD_SECTION}").click()
    page.wait_for_function(f"() => !document.querySelector('{drawer}').open")
    heading = page.locator("#explore-it-yourself h2")
    page.wait_for_function(
        "() => Math.abs(document.querySelector('#explore-it-yourself').getBoundingClientRect().top) < 80"
    )
    assert heading.is_visible()
    assert errors == []
    context.close()


# --- the colour mode ----------------------------------------------------------------------------

THEME = """() => {
  const channels = (colour) => colour.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const light = (colour) => channels(colour).reduce((sum, c) => sum + c, 0) / 765;  // 0 black, 1 white
  const box = document.querySelector('.prediction');
  return {theme: document.documentElement.dataset.theme || null, mode: document.documentElement.dataset.mode || null,
          first: window.firstTheme === undefined ? null : window.firstTheme,
          page: light(getComputedStyle(document.body).backgroundColor),
          text: light(getComputedStyle(document.body).color),
          box: box ? light(getComputedStyle(box).backgroundColor) : null};
}"""
FIRST_THEME = (  # the theme as the page is first drawn: before the theme's own scripts run
    "document.addEventListener('readystatechange', () => { if (document.readyState === 'interactive') "
    "window.firstTheme = document.documentElement.dataset.theme || null; });"
)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_colour_mode_follows_the_reader_s_system_setting_until_they_choose_one(browser, server, scheme):
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    context.add_init_script(FIRST_THEME)
    page, errors = page_with_errors(context, f"{server}/book/formula.html")
    page.wait_for_function(READY)
    found = page.evaluate(THEME)
    assert (found["theme"], found["mode"], found["first"]) == (scheme, "auto", scheme), found  # drawn so at once
    dark = scheme == "dark"
    assert (found["page"] < 0.2) == dark and (found["text"] > 0.8) == dark and found["box"] == found["page"]
    other = "light" if dark else "dark"
    while page.evaluate("() => document.documentElement.dataset.theme") != other:  # the reader's own choice
        page.locator(".theme-switch-button:visible").first.click()
    page.reload(wait_until="networkidle")
    assert page.evaluate(THEME)["theme"] == other  # kept over the system's
    assert errors == []
    context.close()


def test_without_javascript_the_page_is_drawn_in_the_light_mode(browser, server):
    context = browser.new_context(color_scheme="dark", java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server}/book/formula.html", wait_until="networkidle")
    found = page.evaluate(THEME)
    assert found["theme"] is None and found["page"] > 0.8 and found["text"] < 0.2, found
    context.close()


# --- every page, every width, both modes -------------------------------------------------------

WIDE_THINGS = """() => {
  const viewport = document.documentElement.clientWidth;
  const scrolls = (e) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX)
                         && e.scrollWidth > e.clientWidth + 1;
  const cued = (e) => getComputedStyle(e).backgroundImage.includes('gradient');
  const inScroller = (e) => {
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      if (scrolls(a)) return cued(a);
    }
    return false;
  };
  const wide = [];
  for (const e of document.querySelectorAll('.bd-article *')) {
    if (!e.checkVisibility()) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 || (r.right <= viewport + 1 && r.left >= -1)) continue;
    if (!inScroller(e)) wide.push(e.tagName + '.' + e.className + ': ' + (e.textContent || '').trim().slice(0, 50));
  }
  const uncued = [...document.querySelectorAll('.bd-article *')]
    .filter(e => e.checkVisibility() && scrolls(e) && !cued(e) && e.scrollWidth > e.clientWidth + 8)
    .map(e => e.tagName + '.' + e.className);
  return {pageWidth: document.documentElement.scrollWidth, viewport, wide, uncued};
}"""

FIGURES = """() => [...document.querySelectorAll('.bd-article figure img')].filter(i => i.checkVisibility()).map(i => {
  const r = i.getBoundingClientRect(), f = i.closest('figure');
  return {src: (i.currentSrc || i.src).split('/').pop().slice(0, 20), left: r.left, right: r.right, width: r.width,
          natural: i.naturalWidth, phone: Boolean(i.closest('picture.rmsnorm-figure')),
          clipped: f.scrollWidth > f.clientWidth + 1, viewport: document.documentElement.clientWidth};
})"""

TARGETS = """() => [...document.querySelectorAll(
    '.prediction :is(input, button, select, summary, [role=radio]), .prediction-progress button,'
    + ' details.prediction-review > summary, .rmsnorm-explorer :is(input, select, button)')]
  .filter(e => e.checkVisibility())
  .map(e => { const r = e.getBoundingClientRect();
              return {what: e.tagName + ' ' + (e.getAttribute('aria-label') || e.textContent).trim().slice(0, 40),
                      width: r.width, height: r.height}; })"""


@pytest.fixture(scope="module")
def axe() -> Axe:
    return Axe()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page_path", PAGES)
def test_every_page_reads_at_every_width_in_both_modes(browser, server, axe, page_path, width, mode):
    context, page, errors = open_page(browser, server, page_path, width, mode)
    page.evaluate("() => document.querySelectorAll('details.prediction-review').forEach(d => { d.open = true; })")
    assert errors == []

    violations = axe.run(page).response["violations"]
    serious = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in violations
        if v["impact"] in ("critical", "serious")
    ]
    assert serious == []

    found = page.evaluate(WIDE_THINGS)
    assert found["pageWidth"] <= found["viewport"], "the page scrolls sideways"
    assert found["wide"] == [], "wider than the screen, outside a scroll container with a cue"
    assert found["uncued"] == [], "scrolls sideways without showing that it does"

    for image in page.evaluate(FIGURES):
        assert image["left"] >= -1 and image["right"] <= image["viewport"] + 1, image  # the whole figure on screen
        assert not image["clipped"], image  # and not scrolled: every panel in sight
        assert image["phone"], image  # drawn for a phone too
        if width == 390:
            assert image["natural"] <= figures.PHONE_WIDEST * 100 + 1, image  # the phone's drawing, panels stacked

    small = [t for t in page.evaluate(TARGETS) if t["width"] < TOUCH_PX - 0.5 or t["height"] < TOUCH_PX - 0.5]
    assert small == [], "controls smaller than a finger"
    context.close()


# --- the explorer's charts hold their text ------------------------------------------------------

OUTSIDE = """() => [...document.querySelectorAll('.rmsnorm-explorer svg')].flatMap(svg => {
  const frame = svg.getBoundingClientRect();
  const box = svg.viewBox.baseVal;
  const sized = Math.abs(box.width / box.height - frame.width / frame.height) < 0.01;
  return [...svg.querySelectorAll('text')].filter(t => t.textContent.trim()).map(t => {
    const r = t.getBoundingClientRect();
    const inside = r.left >= frame.left - 0.5 && r.right <= frame.right + 0.5
                && r.top >= frame.top - 0.5 && r.bottom <= frame.bottom + 0.5;
    const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(t.getScreenCTM().a, t.getScreenCTM().b);
    return {text: t.textContent, inside, px, sized,
            viewBox: [box.width, box.height], drawn: [svg.getAttribute('width'), svg.getAttribute('height')]};
  });
})"""


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_explorer_s_charts_hold_their_text_at_any_setting(browser, server, width, mode):
    context, page, errors = open_page(browser, server, "book/scale-and-epsilon", width, mode)
    root = page.locator(".rmsnorm-explorer")
    root.scroll_into_view_if_needed()
    page.wait_for_selector(".rmsnorm-explorer[data-ready='true']")
    settings = [
        (WORKED, "0", "1e-05"),
        (WORKED, "4", "0.0"),  # off the axis to the right: the longest legend
        (TINY, "-4", "0.01"),  # off to the left
        ("activation row (d = 8, seed 0)", "-1.43", "1e-06"),
    ]
    for vector, exponent, eps in settings:
        root.locator("[data-control='vector']").select_option(value=vector)
        root.locator("[data-control='eps']").select_option(label=eps if eps != "0.0" else "0")
        root.locator("[data-control='scale']").evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); }", exponent
        )
        texts = page.evaluate(OUTSIDE)
        assert len(texts) > 20
        assert [t for t in texts if not t["inside"]] == [], (vector, exponent, eps)
        assert all(t["sized"] and [float(n) for n in t["drawn"]] == t["viewBox"] for t in texts)
        assert min(t["px"] for t in texts) >= 10.5  # drawn at its own size: 11 px on a phone too
    inside = page.evaluate(
        """() => { const svg = document.querySelectorAll('.rmsnorm-explorer svg')[1];
                   const m = svg.querySelector("[data-role='marker']").getBBox();
                   const f = svg.querySelector('rect').getBBox();
                   return f.y <= m.y && m.y + m.height <= f.y + f.height; }"""
    )
    assert inside  # the marker's shape, within the frame
    slider = root.locator("[data-control='scale']").bounding_box()
    assert slider["width"] >= (300 if width == 390 else 400)  # eight decades need the room
    assert errors == []
    context.close()


def test_the_marker_on_the_plateau_sits_on_the_curve(browser, server):
    """At the plateau mean(x-hat²) is 1: the cross is drawn there, on the curve, not clamped below it."""
    context, page, _ = open_page(browser, server, "book/scale-and-epsilon", 1280)
    root = page.locator(".rmsnorm-explorer")
    page.wait_for_selector(".rmsnorm-explorer[data-ready='true']")
    root.locator("[data-control='scale']").evaluate(
        "(el) => { el.value = '2'; el.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    gap = page.evaluate(
        """() => {
            const svg = document.querySelectorAll('.rmsnorm-explorer svg')[1];
            const marker = svg.querySelector("[data-role='marker']"), curve = svg.querySelector('path[fill=none]');
            const m = marker.getBBox(), cx = m.x + m.width / 2, cy = m.y + m.height / 2;
            let best = Infinity;
            for (let s = 0; s <= curve.getTotalLength(); s += 0.5) {
              const p = curve.getPointAtLength(s);
              best = Math.min(best, Math.hypot(p.x - cx, p.y - cy));
            }
            return best;
        }"""
    )
    assert gap < 2  # user units, at most a stroke's width away
    context.close()


# --- print --------------------------------------------------------------------------------------

PRINTED = """() => {
  const page = document.documentElement.clientWidth;
  const figures = [...document.querySelectorAll('figure img, .rmsnorm-explorer img, .rmsnorm-explorer svg')]
    .filter(e => e.checkVisibility())
    .map(e => ({src: (e.currentSrc || e.src || 'svg').split('/').pop().slice(0, 20),
                right: e.getBoundingClientRect().right, left: e.getBoundingClientRect().left,
                natural: e.naturalWidth || 0}));
  const boxes = [...document.querySelectorAll('.prediction')].map(b => ({
    question: b.querySelector('.prediction-question').checkVisibility(),
    line: getComputedStyle(b.querySelector('.prediction-form')).borderBottomStyle === 'solid'
          && b.querySelector('.prediction-form').checkVisibility(),
    controls: [...b.querySelectorAll('input, button, summary, .prediction-answer p')]
                .filter(e => e.checkVisibility()).length,
  }));
  const answers = document.querySelector('details.print-answers');
  return {page, figures, boxes, answers: answers && answers.querySelector('ol').checkVisibility()
          ? answers.querySelector('ol').innerText : null,
          breaks: answers ? getComputedStyle(answers).breakBefore : null};
}"""


@pytest.mark.parametrize("page_path", PAGES)
def test_printed_figures_fit_the_page_and_boxes_are_questions_with_their_answers_at_the_end(browser, server, page_path):
    context, page, errors = open_page(browser, server, page_path, PRINT_WIDTH)
    page.emulate_media(media="print")
    page.set_viewport_size({"width": PRINT_WIDTH, "height": 1123})
    page.wait_for_function(
        "() => [...document.querySelectorAll('figure img')].every(i => i.complete && i.naturalWidth > 0)"
    )
    found = page.evaluate(PRINTED)
    wider = [f for f in found["figures"] if f["right"] > found["page"] + 1 or f["left"] < -1]
    assert wider == [], "figures wider than the printed page"
    if page_path in ("book/formula", "book/history"):
        assert all(f["natural"] > 600 for f in found["figures"] if f["natural"]), "the page-width drawing in print"
    boxes = page.locator(".prediction[data-exercise]").evaluate_all("els => els.map(e => e.dataset.exercise)")
    assert all(b["question"] and b["line"] and b["controls"] == 0 for b in found["boxes"]), found["boxes"]
    if boxes:
        assert found["breaks"] == "page" and found["answers"] is not None
        for exercise_id in boxes:
            assert reference(COURSE.get(exercise_id)).message in found["answers"]
    else:
        assert found["answers"] is None
    assert errors == []
    context.close()


def test_a_printed_pdf_of_a_page_with_wide_figures_is_made(browser, server, tmp_path):
    """Chromium's own PDF of a page with two-panel figures: the same print layout, and a file a reader gets."""
    context, page, _ = open_page(browser, server, "book/scale-and-epsilon", 1280)
    page.emulate_media(media="print")
    pdf = page.pdf(path=str(tmp_path / "scale-and-epsilon.pdf"), format="A4", margin={"left": "1cm", "right": "1cm"})
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page") > 3
    context.close()


# --- without JavaScript -------------------------------------------------------------------------


@pytest.mark.parametrize("page_path", ["book/predict", "book/history", "book/scale-and-epsilon"])
def test_without_javascript_check_stays_on_the_page_and_the_page_says_what_needs_it(browser, server, page_path):
    context, page, _ = open_page(browser, server, page_path, 390, java_script_enabled=False, every_answer=False)
    navigations = []
    page.on("framenavigated", lambda frame: frame == page.main_frame and navigations.append(frame.url))
    url = page.url
    box = page.locator(".prediction[data-exercise]").first
    assert box.locator(".prediction-noscript").is_visible()
    field = box.locator("input.prediction-input")
    field.fill("0.5")
    field.press("Enter")
    box.locator("button").click()
    assert field.input_value() == "0.5"  # nothing reloaded: what was typed is still there
    # The control: the same form made to submit (a GET, its input named) does leave the page. Its
    # navigation comes after any that Check started, so if the first one seen is the control's,
    # Check started none.
    box.locator("form").evaluate("f => { f.method = 'get'; f.querySelector('input').name = 'control'; }")
    with page.expect_navigation():
        field.press("Enter")
    assert navigations == [f"{url}?control=0.5"]
    page.go_back(wait_until="networkidle")
    if page_path == "book/scale-and-epsilon":
        explorer = page.locator(".rmsnorm-explorer")
        assert explorer.locator(".rmsnorm-explorer-noscript").is_visible()
        assert explorer.locator("select").first.is_disabled()  # controls that cannot work do not look live
        assert explorer.locator("img[data-role='static-figure']").is_visible()
    context.close()


# --- keyboard and screen reader -----------------------------------------------------------------


def test_each_input_is_named_by_its_question_and_each_button_by_its_box(browser, server):
    context, page, _ = open_page(browser, server, "book/exercises", 1280, every_answer=False)
    page.evaluate("() => document.querySelectorAll('details.prediction-review').forEach(d => { d.open = true; })")
    for exercise_id, exercise in COURSE.exercises.items():
        box = page.locator(f".prediction[data-exercise='{exercise_id}']")
        question = box.locator(".prediction-question").text_content()
        assert box.get_by_role("textbox", name=question, exact=True).count() == 1, exercise_id
        assert box.get_by_role("button", name=f"Check: {exercise.title}", exact=True).count() == 1
    context.close()


def test_a_choice_is_a_radio_group_that_still_takes_a_typed_letter(browser, server):
    context, page, _ = open_page(browser, server, "book/exercises", 390, every_answer=False)
    page.evaluate("() => document.querySelectorAll('details.prediction-review').forEach(d => { d.open = true; })")
    box = page.locator(".prediction[data-exercise='zero-row-zero-eps']")
    group = box.get_by_role("radiogroup", name=box.locator(".prediction-question").text_content())
    radios = group.get_by_role("radio")
    assert radios.count() >= 3
    radios.nth(1).click()
    assert box.locator("input.prediction-input").input_value() == "B"
    assert radios.nth(1).get_attribute("aria-checked") == "true"
    page.keyboard.press("ArrowDown")  # arrow keys move the choice, and the focus with it
    assert (
        radios.nth(2).get_attribute("aria-checked") == "true" and radios.nth(1).get_attribute("aria-checked") == "false"
    )
    assert radios.nth(2).evaluate("e => e === document.activeElement")
    page.keyboard.press("Enter")  # Enter checks the chosen option
    status = box.locator(".prediction-verdict")
    assert status.get_attribute("data-outcome") in ("correct", "wrong")
    assert status.text_content().count(", you said C") == 1
    box.locator("input.prediction-input").fill("a")  # a typed letter chooses its option
    assert radios.nth(0).get_attribute("aria-checked") == "true"
    assert [radios.nth(k).get_attribute("tabindex") for k in range(radios.count())].count("0") == 1
    context.close()


def test_the_verdict_is_the_one_live_announcement(browser, server):
    """A check is announced once: by its box's verdict, not again by the progress count."""
    context, page, _ = open_page(browser, server, "book/exercises", 1280, every_answer=False)
    live = page.evaluate(
        """() => [...document.querySelectorAll('.bd-article :is([aria-live], [role=status], [role=alert], [role=log])')]
             .map(e => e.className)"""
    )
    assert len([name for name in live if name == "prediction-verdict"]) == len(COURSE.exercises)
    assert all("verdict" in name for name in live), live  # a box's verdict, or a verdict check() printed
    assert page.locator(".prediction-progress [aria-live], .prediction-progress [role=status]").count() == 0
    context.close()


def test_the_skip_link_reaches_the_article_s_text(browser, server):
    context, page, _ = open_page(browser, server, "book/history", 1280, every_answer=False)
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.closest('#pst-skip-link') !== null")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.closest('.bd-article') !== null"), page.evaluate(
        "() => document.activeElement.outerHTML.slice(0, 120)"
    )
    # from there, Tab walks the article's own links and controls, and nothing else, to the first box
    outside, tabs = [], 1
    while not page.evaluate("() => document.activeElement.closest('.prediction') !== null") and tabs < 60:
        page.keyboard.press("Tab")
        tabs += 1
        if not page.evaluate("() => document.activeElement.closest('.bd-article') !== null"):
            outside.append(page.evaluate("() => document.activeElement.outerHTML.slice(0, 80)"))
    print(f"\nfrom the skip link to the first box: {tabs} Tabs")
    assert outside == [] and tabs < 60
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_no_control_covers_a_verdict(browser, server, width):
    context, page, _ = open_page(browser, server, "book/scale-and-epsilon", width, every_answer=False)
    box = page.locator(".prediction[data-exercise]").first
    box.locator("input.prediction-input").fill("0.5")
    box.locator("input.prediction-input").press("Enter")
    verdict = box.locator(".prediction-verdict")
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    for where in ("center", "end", "start"):
        verdict.evaluate(f"e => e.scrollIntoView({{block: '{where}'}})")
        page.mouse.wheel(0, -120)  # a reader scrolling back up: the theme's "Back to top" shows now
        page.wait_for_function("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        covered = verdict.evaluate(
            """(v) => {
                const r = v.getBoundingClientRect(), top = document.querySelector('.bd-header-article');
                const below = Math.max(r.top, top ? top.getBoundingClientRect().bottom : 0);
                const points = [];
                for (const fx of [0.05, 0.5, 0.95]) for (const fy of [0.2, 0.8]) {
                  const x = r.left + fx * r.width, y = r.top + fy * r.height;
                  if (y < below || y > window.innerHeight) continue;  // under the page's own header, or off screen
                  const hit = document.elementFromPoint(x, y);
                  if (!v.contains(hit)) points.push(hit ? hit.id || hit.className || hit.tagName : 'nothing');
                }
                return points;
            }"""
        )
        assert covered == [], (where, covered)
    context.close()
