"""The built HTML book: every page there, no errors shown, images present, computed numbers in the text.

`make test` builds the book first; these tests read `_build/html`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from book_pages import PAGES
from predict_check import box
from predict_check.verdicts import reference
from rmsnorm_course.core.format import fmt
from rmsnorm_course.pages import COURSE
from rmsnorm_course.studies import evidence
from rmsnorm_course.views import static_explorer

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"


def toc_pages() -> list[str]:
    return list(PAGES)


@pytest.fixture(scope="module")
def pages() -> dict[str, BeautifulSoup]:
    if not (HTML / "index.html").exists():
        pytest.fail("the book is not built: run `make book` (make test does it first)")
    return {page: BeautifulSoup((HTML / f"{page}.html").read_text(), "html.parser") for page in toc_pages()}


def text_of(soup: BeautifulSoup) -> str:
    main = soup.find("main") or soup
    # Sphinx typesets straight quotes as curly ones; compare the words, not the typography.
    return " ".join(
        main.get_text(" ")
        .replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
        .split()
    )


@pytest.mark.parametrize("page", toc_pages())
def test_every_toc_page_is_built(page):
    assert (HTML / f"{page}.html").is_file()


@pytest.mark.parametrize("page", toc_pages())
def test_no_error_output_or_traceback(pages, page):
    soup = pages[page]
    assert "Traceback (most recent call last)" not in soup.get_text()
    assert not soup.select(".output.traceback, .output.stderr, div.cell_output .traceback")


@pytest.mark.parametrize("page", toc_pages())
def test_the_page_scripts_are_linked_once_each_and_never_inlined(pages, page):
    soup = pages[page]
    for script in (*box.SCRIPTS, static_explorer.SCRIPT):
        linked = [s["src"] for s in soup.find_all("script", src=True) if s["src"].split("?")[0].endswith(script.name)]
        assert len(linked) == 1
        assert (HTML / Path(page).parent / linked[0].split("?")[0]).resolve().read_text() == script.read_text()
    inline = [s for s in soup.find_all("script", src=False) if "use strict" in (s.string or "")]
    assert inline == []
    assert not soup.find_all("script", type="application/vnd.jupyter.widget-state+json")


@pytest.mark.parametrize("page", toc_pages())
def test_every_image_exists_and_has_alt_text(pages, page):
    for image in pages[page].find_all("img"):
        source = image.get("src", "")
        assert not source.startswith(("http://", "https://", "//")), source
        if not source.startswith("data:"):
            assert (HTML / Path(page).parent / source).resolve().is_file(), source
        assert image.get("alt", "").strip(), f"image without alt text: {source}"


def test_title_and_author_are_the_projects(pages):
    index = pages["book/index"]
    assert "RMSNorm" in index.title.get_text()
    assert "The RMSNorm course authors" in index.get_text()


def typed(values) -> str:
    """An input as the chapter types it: [3, 4]."""
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


def expected_values() -> dict[str, list[str]]:
    p, h = evidence.primary(), evidence.history()
    _, production, near_zero = evidence.scale_cards()
    return {
        "book/predict": [f"{near_zero.max_difference:.6f}", f"{production.max_difference:.3g}"],
        "book/backward": [fmt(p.grad_x), fmt(p.grad_gain), typed(p.upstream)],
        "book/history": [fmt(h.batch_with_companion), fmt(h.batch_with_itself), fmt(h.rms_mean)],
        "book/boundaries": [fmt(rms_norm_row) for rms_norm_row in evidence.collect().batch_output],
        "book/scale-and-epsilon": [f"{production.max_difference:.3g}", fmt(near_zero.scaled)],
        "book/follow-one-vector": [typed(p.x), fmt(p.forward.output)],
    }


@pytest.mark.parametrize(("page", "values"), expected_values().items())
def test_glued_values_appear_in_the_text(pages, page, values):
    text = text_of(pages[page])
    for value in values:
        assert value in text, f"{value} missing from {page}"


def test_every_boundary_message_is_on_the_boundaries_page(pages):
    text = text_of(pages["book/boundaries"])
    for rejection in evidence.collect().rejections:
        assert " ".join(rejection.message.split()) in text


def test_bibliography_lists_the_four_papers(pages):
    text = text_of(pages["book/references"]).lower()
    for title in ("batch normalization", "layer normalization", "root mean square layer normalization", "llama"):
        assert title in text


def test_implementation_page_shows_the_source_as_it_is(pages):
    code = pages["book/implementation"].get_text()
    source = (ROOT / "src" / "rmsnorm_course" / "core" / "layer.py").read_text()
    start = source.index("class RMSNorm")
    first_lines = source[start : source.index('"""', start)].strip()
    assert " ".join(first_lines.split()) in " ".join(code.split())


@pytest.mark.parametrize("page", toc_pages())
def test_no_page_loads_anything_from_another_host(pages, page):
    soup = pages[page]
    for tag, attribute in (("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src")):
        for element in soup.find_all(tag):
            target = element.get(attribute, "")
            if tag == "link" and "stylesheet" not in element.get("rel", []) and "icon" not in element.get("rel", []):
                continue
            assert not target.startswith(("http://", "https://", "//")), f"{tag} {target}"
    assert "THEBE_JS_URL" not in str(soup)


def test_mathjax_is_served_from_the_book():
    assert (HTML / "_static" / "mathjax" / "tex-chtml.js").is_file()


def test_the_review_page_has_every_box_once_holding_nothing_back_and_folds_each_answer(pages):
    soup = BeautifulSoup((HTML / "book" / "exercises.html").read_text(), "html.parser")  # a copy: details come out
    boxes = soup.select(".prediction[data-exercise]")
    assert [box["data-exercise"] for box in boxes] == list(COURSE.exercises)
    assert {box["data-gate"] for box in boxes} == {"false"}
    folded = [details.extract() for details in soup.find_all("details")]
    inside, outside = " ".join(text_of(details) for details in folded), text_of(soup)
    for exercise_id in COURSE.exercises:
        answer = reference(COURSE.get(exercise_id))
        assert f"{answer.answer} : {answer.message}" in inside  # code, then a colon
        assert answer.message not in outside


PREDICTION_CALL = re.compile(r'Prediction\("([a-z0-9-]+)"\)')


def chapter_pages() -> list[str]:
    """The chapter's pages in reading order, the review page left out."""
    return [page for page in toc_pages() if page != "book/exercises"]


def test_every_exercise_is_asked_on_exactly_one_chapter_page():
    asked: dict[str, list[str]] = {exercise_id: [] for exercise_id in COURSE.exercises}
    for page in chapter_pages():
        for exercise_id in PREDICTION_CALL.findall((ROOT / f"{page}.md").read_text()):
            asked[exercise_id].append(page)
    assert {exercise_id: pages for exercise_id, pages in asked.items() if len(pages) != 1} == {}


def test_the_registry_lists_the_exercises_in_the_order_the_chapter_asks_them():
    asked = [found for page in chapter_pages() for found in PREDICTION_CALL.findall((ROOT / f"{page}.md").read_text())]
    assert list(COURSE.exercises) == asked


def test_the_boundaries_page_counts_requests_and_the_boundaries_they_meet(pages):
    text = text_of(pages["book/boundaries"])
    requests, boundaries = map(int, re.search(r"These (\d+) requests, meeting (\d+) boundaries", text).groups())
    assert boundaries < requests


def test_the_tools_refusals_sit_apart_from_the_requests_a_user_makes(pages):
    soup = pages["book/boundaries"]
    folded = [cell for cell in soup.select(".cell.tag_hide-output") if "Error" in cell.get_text()]
    users, tools = folded  # both folded, with the side-by-side table before them: the page stays short
    assert "InvalidEpsilon" in users.get_text() and "LogDomainError" not in users.get_text()
    assert "LogDomainError" in tools.get_text() and "InvalidEpsilon" not in tools.get_text()
    assert "[[3, 4], [0, 5]]" in text_of(soup)  # the batch as the page typed it


def test_reading_order_puts_each_topic_where_it_is_the_subject(pages):
    order = toc_pages()
    assert order.index("book/follow-one-vector") == order.index("book/predict") + 1  # the recap follows the first page
    scale, history = text_of(pages["book/scale-and-epsilon"]), text_of(pages["book/history"])
    for topic in ("Epsilon inside or outside the square root", "Real implementations differ"):
        assert topic in scale and topic not in history
    implementation = text_of(pages["book/implementation"])
    assert "def compute_dtype" not in implementation and "Precision" in implementation


# --- after every box, the code that checks it ------------------------------------------------------

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
CHAPTER = [page for page in toc_pages() if page not in ("book/index", "book/exercises", "book/references")]


def checks_after_boxes(soup: BeautifulSoup) -> dict[str, list]:
    """Each box's exercise id, with the code cells the page shows between it and the next box."""
    found, current = {}, None
    for cell in soup.select("div.cell"):
        box = cell.select_one(".prediction[data-exercise]")
        if box is not None:
            current = box["data-exercise"]
            found[current] = []
        elif current is not None and cell.select_one("div.cell_input"):
            found[current].append(cell)
    return found


def shows(answer_kind, answer, outputs: str) -> bool:
    """Whether the outputs print the answer: a number within the precision judged, every coordinate, the shape."""
    from predict_check.kinds import Place, Shape, Vector

    numbers = [float(n) for n in NUMBER.findall(outputs)]
    if isinstance(answer_kind, Shape):
        return str(tuple(answer)) in outputs
    if isinstance(answer_kind, Place):
        return any(answer_kind.distance(n, answer) <= answer_kind.tolerance / 10 for n in numbers)
    values = answer if isinstance(answer_kind, Vector) else (answer,)
    return all(any(abs(n - v) <= 5e-7 + 1e-9 * abs(v) for n in numbers) for v in values)


@pytest.mark.parametrize("page", CHAPTER)
def test_the_first_cell_after_every_box_shows_the_answer_it_computes(pages, page):
    from predict_check.kinds import Choice

    for exercise_id, cells in checks_after_boxes(pages[page]).items():
        assert cells, f"{exercise_id}: no code shown between its box and the next"
        exercise = COURSE.exercises[exercise_id]
        if isinstance(exercise.kind, Choice):
            continue
        output = cells[0].select_one("div.cell_output")  # the cell that opens with the verdict
        outputs = output.get_text(" ") if output else ""
        assert shows(exercise.kind, exercise.solve().answer, outputs), (exercise_id, outputs[:300])


def distinctive(answer_kind, answer) -> bool:
    """An answer no other number on a page is likely to print: a list, or a number of three figures or more."""
    from predict_check.kinds import Number, Place, Vector

    if isinstance(answer_kind, Vector):
        return True
    if not isinstance(answer_kind, (Number, Place)) or float(answer).is_integer():
        return False
    return len(f"{abs(float(answer)):.6g}".replace(".", "").strip("0")) >= 3


def printed_in_the_body(soup: BeautifulSoup) -> list[tuple[list[str], object]]:
    """Each cell the printed page keeps in its text, after a box: what follows a box up to the next heading or box goes
    to the answer key, and a folded output is not printed; with the boxes asked before it."""
    main, asked, box, found = soup.find("main") or soup, [], None, []
    for node in main.find_all(["h1", "h2", "h3", "h4", "div"]):
        if node.name != "div":
            box = None
        elif "cell" in node.get("class", []):
            held = node.select_one(".prediction[data-exercise]")
            if held is not None:
                box = held["data-exercise"]
                asked.append(box)
            elif (
                box is None and asked and "tag_hide-output" not in node["class"] and node.select_one("div.cell_output")
            ):
                found.append((list(asked), node.select_one("div.cell_output")))
    return found


@pytest.mark.parametrize("page", CHAPTER)
def test_printed_no_cell_outside_the_answer_key_shows_an_earlier_box_s_answer(pages, page):
    """On paper the answers are at the end; a later section's output must not print one before them."""
    for asked, output in printed_in_the_body(pages[page]):
        for exercise_id in asked:
            exercise = COURSE.exercises[exercise_id]
            answer = exercise.solve().answer
            if distinctive(exercise.kind, answer):
                assert not shows(exercise.kind, answer, output.get_text(" ")), (exercise_id, output.get_text()[:200])


PLUMBING = ("fastpath", "checks", "cost_timings", "perf_counter", "timeit", "validated", "rms_norm_blocked", "threads")


def shown_code(text: str) -> list[str]:
    """The code a reader sees on a page: visible cells, and the listings of the package's code."""
    shown = []
    for meta, body in re.findall(r"```\{code-cell\}[^\n]*\n(---\n.*?\n---\n|:tags:[^\n]*\n)?(.*?)```", text, re.S):
        if "remove-input" not in meta and "hide-input" not in meta:
            shown.append(body)
    shown += re.findall(r"```\{code-block\}[^\n]*\n(.*?)```", text, re.S)  # the package's code, listed
    return shown


@pytest.mark.parametrize("path", sorted((ROOT / "book").glob("*.md")), ids=lambda p: p.name)
def test_no_shown_listing_reaches_into_the_fast_path_the_checks_or_the_timing(path):
    for code in shown_code(path.read_text(encoding="utf-8")):
        assert not [word for word in PLUMBING if word in code], code[:200]
