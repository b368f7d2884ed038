"""The kernel-free prediction boxes: one judge with check(), pages that wait for them, and answers that last.

* Parity: for each kind of answer, at least 10,000 generated strings (digits and spaces
  of every script, fullwidth forms, zero-width and direction marks, controls,
  ligatures, combining marks, very long text, near-miss numbers) go through the page's
  judge in one call, and through check(); outcome, shown answer and words must agree.
* Waiting: on every chapter page, with storage cleared, no written form of a box's
  reference is visible outside the boxes until the box has a verdict; once every box
  has one, every part of the page is visible; without JavaScript nothing is hidden.
* Keeping: the first and last prediction of each exercise are kept in this browser,
  counted, downloaded as a file the grader scores as the page did, cleared only after
  a confirmation, and recovered from a corrupt store; where the browser refuses to keep
  them, or its store is full, the page still opens and says they will not last.
"""

from __future__ import annotations

import functools
import http.server
import json
import random
import re
import subprocess
import sys
import threading
import time
import unicodedata

import numpy as np
import pytest

from conftest import HTML, ROOT, SCREENSHOTS, QuietHandler, page_with_errors
from leaks import expected_renderings
from predict_check import reading
from predict_check.box import DATA_GLOBAL, DATA_SCRIPT, exercise_data
from predict_check.kinds import Choice, Number, Place, Shape, Vector
from predict_check.sheet_reader import AnswerSheet
from predict_check.verdicts import reference
from rmsnorm_course import check
from rmsnorm_course.pages import COURSE

READY = "() => [...document.querySelectorAll('.prediction')].every(box => box.dataset.ready === 'true')"
UNFOLD = "() => document.querySelectorAll('details.prediction-review').forEach(d => { d.open = true; })"
STORE = "rmsnorm-course/answers"
STRINGS_PER_KIND = 10_000
# one exercise of each kind, judged by the page and by check()
PARITY = {
    "placed on an axis": "crossover-rms",
    "placed on a circle": "circle-image",
    "number": "reciprocal-rms",
    "number in a unit": "fused-bytes",
    "vector": "normalized",
    "shape": "output-shape",
    "choice": "zero-row-zero-eps",
}


# --- strings a person, or a hostile file, might type -------------------------------------------


def _characters() -> dict[str, list[str]]:
    """Pools of characters by what they are, from Unicode's own data."""
    pools: dict[str, list[str]] = {"digits": [], "spaces": [], "format": [], "controls": [], "compat": [], "marks": []}
    for code in range(0x30000):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF:
            continue
        category = unicodedata.category(char)
        if category == "Nd":
            pools["digits"].append(char)
        elif char.isspace() or category == "Zs":
            pools["spaces"].append(char)
        elif category == "Cf":
            pools["format"].append(char)
        elif category == "Cc":
            pools["controls"].append(char)
        elif category in ("Mn", "Me"):
            pools["marks"].append(char)
        elif unicodedata.normalize("NFKC", char) != char:
            pools["compat"].append(char)
    pools["fullwidth"] = [chr(c) for c in range(0xFF01, 0xFF5F)]
    pools["ligatures"] = ["\ufb00", "\ufb01", "\ufb02", "\ufb03", "\ufb04", "\ufb05", "\ufb06", "\u017f", "\u0132"]
    pools["signs"] = ["-", "+", "\u2212", "\u2013", "\ufe63", "\uff0d", ".", ",", "e", "E", "[", "]", "(", ")"]
    pools["quotes"] = ['"', "'", "\u201c", "\u201d", "\u2018", "\u2019", "`"]
    return pools


POOLS = _characters()


def _other_digits(text: str, rng: random.Random) -> str:
    """The same text with each ASCII digit written in a randomly chosen script's digits."""
    blocks = [d for d in POOLS["digits"] if unicodedata.digit(d) == 0]
    zero = rng.choice(blocks)
    return "".join(chr(ord(zero) + int(c)) if "0" <= c <= "9" else c for c in text)


def _mutate(text: str, rng: random.Random) -> str:
    choice = rng.randrange(12)
    if choice == 0:
        return _other_digits(text, rng)
    if choice == 1:
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" and rng.random() < 0.5 else c for c in text)
    pool = rng.choice(list(POOLS))
    insert = "".join(rng.choice(POOLS[pool]) for _ in range(rng.randint(1, 3)))
    where = rng.randint(0, len(text))
    if choice == 2:
        return insert + text
    if choice == 3:
        return text + insert
    if choice == 4:
        quote = rng.choice(POOLS["quotes"])
        return quote + text + quote
    if choice == 5:
        return text[:where] + text[where + 1 :]  # one character dropped
    if choice == 6:
        return text * rng.choice([2, 3]) if len(text) < 50 else text
    if choice == 7:
        return rng.choice(["x" * 499, "9" * 500, " " * 501, "\u200b" * 600, "(" * 300]) + text
    return text[:where] + insert + text[where:]


# numpy's and PyTorch's print formats, and text built to make a reader of them backtrack
PRINTED = [
    "array([0.84852814, 1.13137026])",
    "[0.84852814 1.13137026]",
    "np.float64(12.5)",
    "numpy.int64(8)",
    "tensor(12.5000)",
    "tensor([0.8485, 1.1314], dtype=torch.float64)",
    "tensor(0.2828, grad_fn=<MulBackward0>)",
    "torch.Size([2, 5, 3])",
    "array(" + ", a=      " * 49 + "!",
    "tensor(" + "(" * 200 + ")",
    "array([1, 2], dtype=int32",
    "Array([1, 2])",
]


def _near(value: float, rng: random.Random) -> str:
    places = rng.randint(0, 9)
    shift = rng.choice([0, 0, 1, -1, 5, -5]) * 10.0 ** -rng.randint(4, 8)
    text = f"{value + shift:.{places}f}"
    return rng.choice([text, f"{value + shift:.{places}e}", text.lstrip("0") or "0", "+" + text])


def generated(exercise_id: str, count: int = STRINGS_PER_KIND, seed: int = 20) -> list[str]:
    """``count`` strings for one exercise: its right, close, slipped and wrong answers, mutated every which way."""
    rng = random.Random(seed)
    exercise = COURSE.exercises[exercise_id]
    kind, solution = exercise.kind, exercise.solve()
    seeds = [kind.toml(solution.answer).strip('"'), "", " ", "twelve", "[]", "()", "[1, 2", "1e999", "9" * 400]
    seeds += ["1/4", "-3/0", " 25 / 2 ", "1e-5/3", "0,28", "-12,5", "8 bytes", "8B", "8 MiB", "4%", "2x5x3", "2 X 5"]
    seeds += [*PRINTED, "116.6\u00b0", "116.6 degrees", "-243.4 deg", "117 \u00b0C", "Option B", "option (c)", "B - A"]
    seeds += [kind.toml(value).strip('"') for value, _ in solution.slips]
    for _ in range(40):
        if isinstance(kind, Place):
            seeds.append(_near(solution.answer * rng.choice([1, 1.05, 0.9, 1.2, 0.86, 1.15]), rng))
            seeds.append(str(solution.answer + rng.choice([-360, 360, 720, -5, 5, 4.9, -5.1, 180])))
            seeds.append(_near(solution.answer, rng) + rng.choice(["\u00b0", " degrees", " degree", "deg", " rad"]))
        elif isinstance(kind, Number):
            seeds.append(_near(solution.answer, rng))
            seeds.append(f"{rng.randint(-9, 99)}/{rng.randint(0, 9)}")
            seeds.append(f"{_near(solution.answer, rng)} {rng.choice(['bytes', 'byte', 'B', 'b', 'MiB', 'or so'])}")
            seeds.append(
                rng.choice(["np.float64({})", "tensor({})", "array({})", "tensor({}, dtype=torch.float64)"]).format(
                    _near(solution.answer, rng)
                )
            )
        elif isinstance(kind, Vector):
            body = ", ".join(_near(v, rng) for v in solution.answer)
            seeds.append(rng.choice(["[{}]", "({})", "[{},]", "{}", "{},"]).format(body))
            spaced = "  ".join(_near(v, rng) for v in solution.answer)  # numpy's print format, spaced
            printed = rng.choice(
                ["array([{}])", "tensor([{}])", "array([{}], dtype=float32)", "tensor([{}], requires_grad=True)"]
            )
            seeds += [f"[{spaced}]", f"[ {spaced} ]", printed.format(body)]
        elif isinstance(kind, Shape):
            sizes = [str(n + rng.choice([0, 0, 1])) for n in solution.answer]
            separator = rng.choice([", ", ",", " , ", "x", " x ", "\u00d7", "X", " "])
            seeds.append(rng.choice(["({})", "[{}]", "{}", "({},)", "torch.Size([{}])"]).format(separator.join(sizes)))
        else:
            assert isinstance(kind, Choice)
            index = rng.randrange(len(kind.options))
            letter, words = kind.letters[index], kind.options[index]
            seeds.append(
                rng.choice(
                    [
                        letter,
                        letter.lower(),
                        f"({letter})",
                        f"{letter})",
                        words,
                        words.upper() + ".",
                        f"{letter}) {words}",
                        f"{letter}.  {words}",
                        f"Option {letter}",
                        f"option {letter.lower()}.",
                        f"{letter} - {words}",
                        f"{letter} \u2013 {words}",
                        f"{letter}: {words}",
                        f"Option {letter}: {words}",
                        f"{kind.letters[(index + 1) % len(kind.letters)]} - {words}",  # a letter and another's words
                    ]
                )
            )
    strings = list(seeds)
    while len(strings) < count:
        text = rng.choice(seeds)
        for _ in range(rng.randint(1, 3)):
            text = _mutate(text, rng)
        strings.append(text)
    return strings


def python_verdict(exercise_id: str, text: str) -> list:
    verdict = check(exercise_id, text)
    return [verdict.outcome.name.lower(), verdict.answer, verdict.message, verdict.detail or None]


@pytest.fixture(scope="module")
def review_page(browser, server):
    context = browser.new_context()
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    page.wait_for_function(READY)
    page.evaluate(UNFOLD)  # the review page folds each box under its title
    yield page, errors
    context.close()


@pytest.mark.parametrize("kind", list(PARITY))
def test_the_page_and_check_agree_on_ten_thousand_strings_of_each_kind(review_page, kind):
    page, errors = review_page
    exercise_id = PARITY[kind]
    strings = generated(exercise_id)
    assert len(strings) >= STRINGS_PER_KIND
    started = time.perf_counter()
    shown = page.evaluate(
        "([data, strings]) => strings.map(s => { const v = window.predictCheckJudge(data, s);"
        " return [v.outcome, v.answer === undefined ? null : v.answer, v.message, v.detail || null]; })",
        [json.loads(json.dumps(exercise_data(COURSE.get(exercise_id)))), strings],
    )
    expected = [python_verdict(exercise_id, text) for text in strings]
    seconds = time.perf_counter() - started
    disagreements = [(text[:80], got, want) for text, got, want in zip(strings, shown, expected) if got != want]
    outcomes = sorted({verdict[0] for verdict in expected})
    print(f"\n{kind}: {len(strings)} strings, {len(disagreements)} disagreements, {seconds:.1f} s, outcomes {outcomes}")
    assert disagreements == []
    assert {"correct", "wrong", "unreadable", "not_answered"} <= set(outcomes)
    assert errors == []


@pytest.mark.parametrize(
    ("exercise_id", "typed"),
    [
        ("mean-square", "\uff11\uff12.\uff15"),
        ("mean-square", "\u0661\u0662.\u0665"),
        ("output-shape", "(\u0662, \u0665, \u0663)"),
        ("normalized", "[\uff10.848528, 1.13137]"),
        ("mean-square", "\x1c12.5"),
        ("mean-square", "\x8512.5"),
        ("mean-square", "\ufeff12.5"),
        ("zero-row-zero-eps", "(C)"),
        ("zero-row-zero-eps", "an error that names the ro\u0077"),
        ("eps-near-zero", "\ufb01xed"),
        ("reciprocal-rms", "0.2828"),
        ("plateau-value", "1"),
        ("plateau-value", "0.99"),
        ("tiny-normalized", "[0.0943, 0.1257]"),
        ("scaled-ideal", "10.182338"),
        ("one-plus-gain", "1.110364"),
        ("reciprocal-rms", "0,28"),
        ("normalized", "0.848528, 1.131370"),
        ("grad-x-scaled", "1/4"),
        ("fused-bytes", "8 bytes"),
        ("forward-bytes", "256 MiB"),
        ("output-shape", "2x5x3"),
        ("reciprocal-rms", "0.282842"),
        ("reciprocal-rms", "0.7e+0000000"),
        ("mean-square", "4%"),
        ("mean-square", "Infinity"),
        ("huge-row", "[inf, inf]"),
        ("huge-row", "[nan, NaN]"),
        ("float16-formula-row", "[inf, -INF]"),
        ("float16-formula-row", "[0, 0]"),
        ("output", "[1.27279221, 0.56568513]"),
        ("output", "[1.2727926, 0.5656852]"),
        ("normalized", "[1, 1]"),
        ("normalized", "[0.84852814 1.13137026]"),
        ("normalized", "array([0.848528, 1.131370])"),
        ("grad-gain", "[1, -2]"),
        ("reciprocal-rms", "0.3"),
        ("reciprocal-rms", "0.283"),
        ("reciprocal-rms", "28.3%"),
        ("anchor-mean", "1"),
        ("anchor-mean", "0.894"),
        ("tiny-scaled", "[0.6, 0.8]"),
        ("huge-row", "[1, 1]"),
        ("plateau-value", "1.00"),
        ("mean-square", "np.float64(12.5)"),
        ("mean-square", "tensor(12.5000)"),
        ("output-shape", "torch.Size([2, 5, 3])"),
        ("circle-image", "116.6\u00b0"),
        ("circle-image", "116.6 degrees"),
        ("zero-row-zero-eps", "Option D"),
        ("zero-row-positive-eps", "A - a row of zeros"),
        ("zero-row-positive-eps", "B - a row of zeros"),
    ],
)
def test_the_cases_that_once_disagreed_agree(review_page, exercise_id, typed):
    page, _ = review_page
    shown = page.evaluate(
        "([data, s]) => { const v = window.predictCheckJudge(data, s);"
        " return [v.outcome, v.answer ?? null, v.message, v.detail || null]; }",
        [exercise_data(COURSE.get(exercise_id)), typed],
    )
    assert shown == python_verdict(exercise_id, typed)


FORMS = ("#", " 1#2 ", "[#0.5, 1#]", '"#B#"', "#12#5#")  # a listed character alone, in a number, a list, quotes


def test_the_page_reads_every_listed_character_as_python_does(review_page):
    """One list of what students type for ASCII, served to the page as data: the page and Python read it alike."""
    page, errors = review_page
    texts = [form.replace("#", char) for char in reading.CHARACTERS for form in FORMS]
    shown = page.evaluate(
        "texts => texts.map(t => { const r = window.predictCheckReading.typed(t); return [r.text, r.entries]; })", texts
    )
    expected = [
        [typed.text, None if typed.entries is None else list(typed.entries)] for typed in map(reading.typed, texts)
    ]
    assert shown == expected
    assert errors == []


def test_a_verdict_reads_as_one_balanced_sentence(review_page):
    page, _ = review_page
    box = page.locator(".prediction[data-exercise='eps-near-zero']")
    box.locator("input.prediction-input").fill("A")
    box.locator("input.prediction-input").press("Enter")
    text = box.locator(".prediction-verdict").text_content()
    verdict = check("eps-near-zero", "A")
    assert text == f"{verdict.mark} {verdict.label}, you said A: {verdict.message}"
    assert text.count("(") == text.count(")")
    fold = box.locator(".prediction-more details")
    assert fold.locator("summary").text_content() == "Hint" and not fold.locator("p").is_visible()
    fold.locator("summary").click()
    assert fold.locator("p").text_content() == verdict.detail


def test_an_answer_past_the_grader_s_limit_is_refused_in_the_box_and_not_kept(review_page):
    page, _ = review_page
    box = page.locator(".prediction[data-exercise='mean-square']")
    box.locator("input.prediction-input").fill("\u20ac" * 90_000)
    box.locator("input.prediction-input").press("Enter")
    assert box.locator(".prediction-verdict").get_attribute("data-outcome") == "unreadable"
    assert box.locator(".prediction-verdict").text_content().endswith(check("mean-square", "\u20ac" * 90_000).message)
    stored = page.evaluate(f"() => window.localStorage.getItem('{STORE}')")
    assert stored is None or "mean-square" not in json.loads(stored)["answers"]


# --- pages that wait ---------------------------------------------------------------------------

from book_pages import CHAPTER as CHAPTER_PAGES  # noqa: E402

GATED = [page for page in CHAPTER_PAGES if page != "book/exercises"]

VISIBLE_TEXT = """(asked) => {
  const root = document.querySelector('.bd-article');
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const parts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent.checkVisibility()) continue;
    const box = parent.closest('.prediction');  // a box's own question may state what it asks about
    const own = box && (asked === '*' || box.dataset.exercise === asked);
    if (own && parent.closest('.prediction-question, .prediction-options')) continue;
    parts.push(node.textContent);
  }
  return parts.join(' ');
}"""
HIDDEN_BLOCKS = "() => document.querySelectorAll('.prediction-later').length"
LAST_PARAGRAPH = ".bd-article section > p"  # the prose, not a folded output's


def written_forms(exercise_id: str) -> list[str]:
    """Every written form of a number, vector or shape answer: at three significant figures or more, whole.

    A form the box's own question states is a given, not a leak (the output's shape is the input's,
    which the question must state): the question is what asks for the step beyond it.
    """
    exercise = COURSE.exercises[exercise_id]
    if isinstance(exercise.kind, Choice):
        return []
    reference = exercise.kind.show(exercise.solve().answer)
    forms = (*expected_renderings(exercise, whole=True), reference)
    return [form for form in forms if len(form) >= 4 and not shown_whole(form, exercise.prompt)]


def shown_whole(form: str, text: str) -> bool:
    """``form`` in ``text`` where it starts a number: 8 is not in 128, 0.8 or 8.5; 0.2828 is in 0.28284271."""
    end = "" if "." in form else r"(?!\w|\.\d)"  # more decimals still give a decimal answer away
    return re.search(rf"(?<![\w.]){re.escape(form)}{end}", text) is not None


def typed_answer(exercise_id: str) -> str:
    exercise = COURSE.exercises[exercise_id]
    return exercise.kind.toml(exercise.solve().answer).strip('"')


def answer(page, exercise_id: str, typed: str | None = None, outcome: str = "correct") -> None:
    box = page.locator(f".prediction[data-exercise='{exercise_id}']")
    box.locator("input.prediction-input").fill(typed_answer(exercise_id) if typed is None else typed)
    box.locator("input.prediction-input").press("Enter")
    assert box.locator(".prediction-verdict").get_attribute("data-outcome") == outcome


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("page_path", GATED)
def test_a_learner_answering_in_order_never_sees_an_answer_before_its_box(browser, server, page_path, width):
    """Every box of the page answered right, in order, from cleared storage: before each box's verdict, none of
    its answer's written forms is visible anywhere on the page, earlier verdicts and their folds included."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page, errors = page_with_errors(context, f"{server}/{page_path}.html")
    page.wait_for_function(READY)
    boxes = page.locator(".prediction[data-exercise]").evaluate_all("els => els.map(e => e.dataset.exercise)")
    leaks = []
    for exercise_id in boxes:
        box = page.locator(f".prediction[data-exercise='{exercise_id}']")
        assert box.is_visible(), f"{exercise_id} is out of sight although every box before it is answered"
        page.evaluate("() => document.querySelectorAll('.prediction-more details').forEach(d => { d.open = true; })")
        text = page.evaluate(VISIBLE_TEXT, exercise_id)
        leaks += [(exercise_id, form) for form in written_forms(exercise_id) if shown_whole(form, text)]
        answer(page, exercise_id)
    assert leaks == []
    assert page.evaluate(HIDDEN_BLOCKS) == 0  # every box answered: every part of the page is there
    prose = page.locator(LAST_PARAGRAPH)
    assert prose.count() == 0 or prose.last.is_visible()
    assert errors == []
    context.close()


def test_the_gate_stays_shut_on_a_wrong_or_so_far_answer_and_opens_on_a_right_one(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page, errors = page_with_errors(context, f"{server}/book/backward.html")
    page.wait_for_function(READY)
    after = page.locator(LAST_PARAGRAPH).last
    assert not after.is_visible()
    answer(page, "grad-x", "[0.5, 0.5]", "wrong")
    answer(page, "grad-x", "[0.424264, -0.282843]", "wrong")  # the RMS held constant: a named slip
    assert not after.is_visible() and page.evaluate(HIDDEN_BLOCKS) > 0
    answer(page, "grad-x", "[0.4073, -0.3055]", "close")  # right so far
    assert not after.is_visible() and page.evaluate(HIDDEN_BLOCKS) > 0
    answer(page, "grad-x")
    assert page.evaluate(HIDDEN_BLOCKS) > 0  # the next box holds what follows it
    assert page.locator(".prediction[data-exercise='grad-gain']").is_visible()
    answer(page, "grad-x", "[0.5, 0.5]", "wrong")  # once opened, the page stays open
    assert page.locator(".prediction[data-exercise='grad-gain']").is_visible()
    page.reload(wait_until="networkidle")
    page.wait_for_function(READY)
    assert page.locator(".prediction[data-exercise='grad-gain']").is_visible()
    assert errors == []
    context.close()


def test_one_for_the_plateau_is_the_eps_free_slip_and_keeps_the_page_held(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page, _ = page_with_errors(context, f"{server}/book/follow-one-vector.html")
    page.wait_for_function(READY)
    answer(page, "plateau-value", "1", "wrong")
    status = page.locator(".prediction[data-exercise='plateau-value'] .prediction-verdict").text_content()
    assert "eps = 0 ideal" in status and status == check("plateau-value", "1").sentence
    assert not page.locator(".bd-article p").last.is_visible()
    context.close()


@pytest.mark.parametrize("page_path", GATED)
def test_a_box_that_holds_the_page_says_what_waits_below_it(browser, server, page_path):
    """Where a page stops, the box says so, and names every section still to come by its heading."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page, _ = page_with_errors(context, f"{server}/{page_path}.html")
    page.wait_for_function(READY)
    boxes = page.locator(".prediction[data-exercise]")
    if boxes.count() == 0:
        context.close()
        return
    first = boxes.first
    notice = first.locator(".prediction-hold")
    assert notice.is_visible()
    text = notice.text_content()
    assert text.startswith("To go on, answer above or show the answer. Waiting below: ")
    later = page.evaluate(
        """(box) => [...document.querySelectorAll('.bd-article h2, .bd-article h3')]
            .filter(h => box.compareDocumentPosition(h) & Node.DOCUMENT_POSITION_FOLLOWING)
            .map(h => h.textContent.replace(/#$/, '').trim())""",
        first.element_handle(),
    )
    for heading in later:
        assert f"the section \u201c{heading}\u201d" in text, (heading, text)
    answer(page, first.get_attribute("data-exercise"))
    assert not notice.is_visible()
    context.close()


def test_the_explorer_s_page_names_its_sections_and_figures_where_it_stops(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page, _ = page_with_errors(context, f"{server}/book/scale-and-epsilon.html")
    page.wait_for_function(READY)
    text = page.locator(".prediction[data-exercise='crossover-rms'] .prediction-hold").text_content()
    for section in ("Three scale cards", "Epsilon inside or outside the square root", "Explore it yourself"):
        assert f"the section \u201c{section}\u201d" in text
    assert re.search(r"\d+ figures", text)
    context.close()


def test_a_contents_link_to_a_held_section_goes_to_the_box_that_holds_it(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page, _ = page_with_errors(context, f"{server}/book/scale-and-epsilon.html")
    page.wait_for_function(READY)
    link = page.locator(".bd-toc a[href='#explorer'], .bd-toc a[href='#explore-it-yourself']").first
    page.evaluate("() => window.scrollTo(0, 0)")
    link.click()
    box = page.locator(".prediction[data-exercise='crossover-rms']")
    page.wait_for_function(
        "() => document.activeElement === document.querySelector(\".prediction[data-exercise='crossover-rms'] input\")"
    )
    assert box.is_visible() and box.locator("input.prediction-input").evaluate("e => e === document.activeElement")
    top = box.evaluate("e => e.getBoundingClientRect().top")
    assert 0 <= top < 900
    context.close()


class HeldHandler(QuietHandler):
    """The book, except that a page asked for with ``?held`` arrives up to the end of its article, and the rest
    (and with it the moment the page is complete) only once the test sets ``server.released``."""

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if query != "held":
            return super().do_GET()
        data = (HTML / path.lstrip("/")).read_bytes()
        cut = data.index(b"</article>")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[:cut])
        self.wfile.flush()
        self.server.released.wait(timeout=240)
        self.wfile.write(data[cut:])


@pytest.fixture(scope="module")
def held_server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(HeldHandler, directory=str(HTML)))
    httpd.released = threading.Event()
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd
    httpd.released.set()
    httpd.shutdown()


VISIBLE_OR_NOT_TEXT = VISIBLE_TEXT.replace("if (!parent.checkVisibility()) continue;", "")
assert VISIBLE_OR_NOT_TEXT != VISIBLE_TEXT


@pytest.mark.parametrize("page_path", ["book/formula", "book/backward", "book/boundaries"])
def test_a_page_still_arriving_shows_no_answer_either(browser, held_server, page_path):
    """On a slow connection the article is drawn before the page is complete: it waits all the same."""
    context = browser.new_context(viewport={"width": 390, "height": 900})
    page = context.new_page()
    held_server.released.clear()
    try:
        page.goto(f"http://127.0.0.1:{held_server.server_address[1]}/{page_path}.html?held", wait_until="commit")
        count = (HTML / f"{page_path}.html").read_text(encoding="utf-8").count('class="prediction"')
        page.wait_for_function(f"() => document.querySelectorAll('.prediction').length === {count}", timeout=120_000)
        assert page.evaluate("() => document.readyState") == "loading"
        boxes = page.locator(".prediction[data-exercise]").evaluate_all("els => els.map(e => e.dataset.exercise)")
        present = page.evaluate(VISIBLE_OR_NOT_TEXT, "*")
        arrived = [form for box in boxes for form in written_forms(box) if shown_whole(form, present)]
        assert arrived, "the held part of the page holds no answer: this test would see nothing"
        visible = page.evaluate(VISIBLE_TEXT, "*")
        assert [form for form in arrived if shown_whole(form, visible)] == []
    finally:
        held_server.released.set()
    page.wait_for_function(READY, timeout=120_000)
    assert page.evaluate(HIDDEN_BLOCKS) > 0  # from here on, the boxes decide
    assert not page.evaluate("() => document.documentElement.classList.contains('prediction-loading')")
    context.close()


def test_show_the_answer_lets_the_reader_go_on_one_step_at_a_time(browser, server):
    context = browser.new_context()
    page, _ = page_with_errors(context, f"{server}/book/backward.html")
    page.wait_for_function(READY)
    first, second = page.locator(".prediction[data-exercise]").all()[:2]
    assert first.is_visible() and not second.is_visible()
    first.locator("summary").click()
    page.wait_for_function("() => document.querySelectorAll('.prediction')[1].checkVisibility()")
    assert second.is_visible() and page.evaluate(HIDDEN_BLOCKS) > 0  # the second box now waits in turn
    page.reload(wait_until="networkidle")
    page.wait_for_function(READY)
    assert page.locator(".prediction[data-exercise]").nth(1).is_visible()  # what was shown stays shown
    context.close()


@pytest.mark.parametrize("page_path", ["book/predict", "book/backward", "book/boundaries"])
def test_without_javascript_nothing_is_hidden(browser, server, page_path):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server}/{page_path}.html", wait_until="networkidle")
    assert page.locator(".prediction-later").count() == 0
    assert page.locator(LAST_PARAGRAPH).last.is_visible()
    box = page.locator(".prediction[data-exercise]").first
    assert box.locator(".prediction-question").is_visible()
    box.locator("summary").click()
    assert box.locator("details p").is_visible()
    context.close()


PRINTED_TEXT = """() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), parts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent.checkVisibility() && !parent.closest('.print-answers')) parts.push(node.textContent);
  }
  return parts.join(' ');
}"""
KEY = """() => [...document.querySelectorAll('details.print-answers > ol > li')].map(li => ({
  id: li.dataset.exercise, text: li.innerText,
  code: [...li.querySelectorAll('div.cell_input pre')].filter(pre => pre.checkVisibility()).length,
  opened: [...li.children].filter(child => !['STRONG', 'CODE'].includes(child.tagName)).length}))"""
OPENED = "() => document.querySelectorAll('.bd-article .prediction-after').length"


@pytest.mark.parametrize("page_path", GATED)
def test_printed_a_page_is_a_worksheet_and_every_answer_with_its_code_is_in_the_key_at_its_end(
    browser, server, page_path
):
    """Every box answered right, so that on screen each verdict, its fold, its figure's truth and all the text it
    opened are there; printed, no written form of any box's reference answer comes before the answers that close the
    page: not in a verdict, an output, a figure or the text. What each verdict opened (its code, what that printed,
    what the text says after it) is printed under that box's answer."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page, errors = page_with_errors(context, f"{server}/{page_path}.html")
    page.wait_for_function(READY)
    boxes = page.locator(".prediction[data-exercise]").evaluate_all("els => els.map(e => e.dataset.exercise)")
    for exercise_id in boxes:
        answer(page, exercise_id)
    page.evaluate("() => document.querySelectorAll('.prediction-more details').forEach(d => { d.open = true; })")
    page.emulate_media(media="print")
    text = page.evaluate(PRINTED_TEXT)
    assert [(i, form) for i in boxes for form in written_forms(i) if shown_whole(form, text)] == []
    key = page.evaluate(KEY)
    assert [item["id"] for item in key] == boxes
    assert sum(item["opened"] for item in key) == page.evaluate(OPENED)  # all it left out of the text, and no more
    for item in key:
        assert item["opened"] > 0 and item["code"] > 0, item  # each answer with the code that computes it
        assert reference(COURSE.exercises[item["id"]]).message in item["text"]
    assert errors == []
    context.close()


def test_printed_nothing_waits_what_a_verdict_opens_is_in_the_answers_and_the_rest_in_the_text(browser, server):
    """With no box answered the screen holds most of the page back; on paper nothing waits: each block is printed
    in the text, or, where a verdict opens it, in the answers."""
    context = browser.new_context()
    page, _ = page_with_errors(context, f"{server}/book/backward.html")
    page.wait_for_function(READY)
    assert page.evaluate(HIDDEN_BLOCKS) > 0
    page.emulate_media(media="print")
    printed = page.evaluate(
        """() => [...document.querySelectorAll('.bd-article .prediction-later')].map(block =>
             block.checkVisibility() ? 'text' : block.classList.contains('prediction-after') ? 'answers' : 'missing')"""
    )
    assert "missing" not in printed and {"text", "answers"} <= set(printed)
    last = page.locator(LAST_PARAGRAPH).last
    copied = "(p) => [...document.querySelectorAll('.print-answers p')].some(c => c.textContent === p.textContent)"
    assert last.is_visible() or last.evaluate(copied)
    context.close()


LOOK = """(e) => { const s = getComputedStyle(e);
  return [s.backgroundColor, s.color, s.borderTopColor, s.borderTopStyle, s.borderRadius, s.fontSize, s.minHeight]; }"""


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_show_the_answer_goes_once_a_box_is_answered_right_and_try_another_looks_like_its_buttons(
    browser, server, mode
):
    """A box answered right has nothing left to show; "Try another" is one of the box's buttons, light and dark,
    and its field says what to type as the box's own does."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(f"window.localStorage.setItem('mode', {json.dumps(mode)});")
    page, errors = page_with_errors(context, f"{server}/book/predict.html")
    page.wait_for_function(READY)
    box = page.locator(".prediction[data-exercise='mean-square']")
    fold = box.locator("details.prediction-answer")
    answer(page, "mean-square", "25", "wrong")
    assert fold.is_visible()
    answer(page, "mean-square")
    assert not fold.is_visible()
    answer(page, "mean-square", "25", "wrong")  # once right, the page stays open, and the fold stays gone
    assert not fold.is_visible()
    page.reload(wait_until="networkidle")
    page.wait_for_function(READY)
    assert not fold.is_visible() and box.locator("input.prediction-input").input_value() == "25"
    another = box.locator(".prediction-another")
    check_button = box.locator(":scope > form button")
    assert another.is_visible() and another.evaluate(LOOK) == check_button.evaluate(LOOK)
    another.click()
    variant = box.locator(".prediction-variant")
    hint = variant.locator("label")
    assert hint.is_visible() and hint.text_content() == box.locator(":scope > form label").text_content()
    field = variant.locator("input")
    assert field.get_attribute("aria-describedby") == hint.get_attribute("id")
    assert hint.get_attribute("for") == field.get_attribute("id")
    assert field.evaluate(LOOK) == box.locator("input.prediction-input").evaluate(LOOK)
    assert variant.locator("button").evaluate(LOOK) == check_button.evaluate(LOOK)
    assert errors == []
    context.close()


# --- answers that last ---------------------------------------------------------------------------


def test_answers_are_kept_first_and_last_counted_downloaded_and_graded_as_shown(browser, server, tmp_path):
    context = browser.new_context(accept_downloads=True)
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    page.wait_for_function(READY)
    assert page.locator(".prediction-progress").is_visible()  # above the review page's folds, not inside one
    page.evaluate(UNFOLD)
    count = page.locator(".prediction-progress .prediction-count")
    assert count.text_content() == counted(0, 0, 0)
    tries = {  # exercise -> what is typed, in order: the first prediction, then the last
        "mean-square": ["25", "12.5"],
        "reciprocal-rms": ["0.2828", "twelve", "0.282843"],  # an unreadable try is no prediction
        "normalized": ["[0.848528, 1.131370]"],
        "output-shape": ["(2, 5)"],
        "zero-row-zero-eps": ["A"],
        "eps-near-zero": ["\u0661"],  # unreadable only: nothing kept
    }
    for exercise_id, answers in tries.items():
        box = page.locator(f".prediction[data-exercise='{exercise_id}']")
        for typed in answers:
            box.locator("input.prediction-input").fill(typed)
            box.locator("input.prediction-input").press("Enter")
    assert count.text_content() == counted(5, 3, 1)  # only normalized was right at its first try

    with page.expect_download() as download:
        page.get_by_role("button", name="Download my answers").click()
    path = tmp_path / "answers.toml"
    download.value.save_as(path)
    sheet = AnswerSheet.read(COURSE, path)
    assert sheet.unreadable is None and sheet.unknown_ids() == []
    assert sheet.grade("mean-square").correct and not sheet.first_try("mean-square").right
    assert sheet.first_try("reciprocal-rms").verdict.outcome.name == "CLOSE" and sheet.grade("reciprocal-rms").correct
    assert sheet.first_try("normalized").right and sheet.first_try("eps-near-zero") is None
    shown = {
        exercise_id: page.locator(f".prediction[data-exercise='{exercise_id}'] .prediction-verdict").get_attribute(
            "data-outcome"
        )
        for exercise_id in tries
    }
    assert shown["eps-near-zero"] == "unreadable"
    assert {i: sheet.grade(i).outcome.name.lower() for i in tries if i != "eps-near-zero"} == {
        i: o for i, o in shown.items() if i != "eps-near-zero"
    }

    command = [sys.executable, "-m", "pytest", str(ROOT / "exercises"), "--answers", str(path), "-q"]
    grader = subprocess.run([*command, "-p", "no:cacheprovider"], capture_output=True, text=True, cwd=ROOT)
    assert grader.stdout.strip().splitlines()[-1] == f"score: 3/{len(COURSE.exercises)}"
    assert "first tries, your own record: 1 of 5 right" in grader.stdout  # only normalized was right at once
    assert "kept by their browser and not checked by the grader" in grader.stdout

    page.reload(wait_until="networkidle")
    page.wait_for_function(READY)
    page.evaluate(UNFOLD)
    assert page.locator(".prediction[data-exercise='mean-square'] input.prediction-input").input_value() == "12.5"
    assert count.text_content() == counted(5, 3, 1)

    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Clear my answers").click()
    assert count.text_content() == counted(5, 3, 1)  # asked first: kept
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Clear my answers").click()
    assert count.text_content() == counted(0, 0, 0)
    stored = json.loads(page.evaluate(f"() => window.localStorage.getItem('{STORE}')"))
    assert stored["answers"] == {} and stored["firsts"]["mean-square"] == {
        "text": "25",
        "shown": False,
        "outcome": "wrong",
    }
    assert errors == []
    context.close()


def counted(checked: int, right: int, first: int) -> str:
    """The page's count, as a reader reads it."""
    return f"{checked} of {len(COURSE.exercises)} checked, {right} right now, {first} right on the first try"


def _download(page, tmp_path, name="answers.toml"):
    with page.expect_download() as download:
        page.get_by_role("button", name="Download my answers").click()
    assert download.value.suggested_filename == name
    path = tmp_path / name
    download.value.save_as(path)
    return AnswerSheet.read(COURSE, path)


def _answer(page, exercise_id, typed):
    box = page.locator(f".prediction[data-exercise='{exercise_id}']")
    box.locator("input.prediction-input").fill(typed)
    box.locator("input.prediction-input").press("Enter")


def test_the_count_on_a_chapter_page_says_how_many_were_right_at_the_first_try(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page, errors = page_with_errors(context, f"{server}/book/predict.html")
    page.wait_for_function(READY)
    count = page.locator(".prediction-progress .prediction-count")
    answer(page, "mean-square", "25", "wrong")
    assert count.text_content() == counted(1, 0, 0)
    answer(page, "mean-square")  # right, at the second try
    answer(page, "reciprocal-rms")  # right at the first
    assert count.text_content() == counted(2, 2, 1)
    answer(page, "normalized", "[1, 1]", "wrong")  # the misconception the page warns against, not "so far"
    answer(page, "normalized", "[0.8485, 1.1314]", "wrong")  # reads as the eps = 0 slip too: too few digits
    assert count.text_content() == counted(3, 2, 1)
    page.goto(f"{server}/book/formula.html", wait_until="networkidle")  # another page counts the same answers
    page.wait_for_function(READY)
    assert count.text_content() == counted(3, 2, 1)
    assert errors == []
    context.close()


SHOWN_STANDING = """(id) => [...document.querySelectorAll('details.prediction-review')].some(fold =>
  fold.querySelector(`.prediction[data-exercise="${id}"]`) &&
  fold.querySelector('.prediction-standing').textContent.includes('shown'))"""


def test_the_review_page_says_where_each_exercise_stands_without_opening_it(browser, server):
    context = browser.new_context()
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    page.wait_for_function(READY)
    folds = page.locator("details.prediction-review")
    page.evaluate(UNFOLD)
    answer(page, "mean-square", "25", "wrong")
    answer(page, "mean-square")
    answer(page, "reciprocal-rms")
    answer(page, "normalized", "[0.8485, 1.1314]", "wrong")  # too coarse to tell from the eps = 0 slip
    answer(page, "grad-x", "[0.4073, -0.3055]", "close")
    answer(page, "output", "[2, 2]", "wrong")
    page.locator(".prediction[data-exercise='output-shape'] details.prediction-answer summary").click()
    page.wait_for_function(SHOWN_STANDING, arg="output-shape")  # the toggle is a task of its own, after the click
    page.evaluate("() => document.querySelectorAll('details.prediction-review').forEach(d => { d.open = false; })")
    titles = dict(
        folds.evaluate_all(
            "els => els.map(e => [e.querySelector('.prediction').dataset.exercise,"
            " e.querySelector(':scope > summary').innerText])"
        )
    )
    assert titles["mean-square"] == "The mean square (\u2713 Correct, not right on the first try)"
    assert titles["reciprocal-rms"] == "The reciprocal RMS (\u2713 Correct, right on the first try)"
    assert titles["normalized"] == "x-hat of the worked example (\u00b1 Too few digits, not right on the first try)"
    assert titles["grad-x"] == "The input's gradient (\u2248 Right so far, not right on the first try)"
    assert titles["output"] == "The output, after the gain (\u2717 Not yet, not right on the first try)"
    assert titles["output-shape"] == "The output's shape (not tried, answer shown before a first try)"
    assert titles["grad-gain"] == "The gain's gradient (not tried)"
    assert all(not fold.evaluate("d => d.open") for fold in folds.all())  # said in the titles, every fold shut
    assert errors == []
    context.close()


def test_an_answer_kept_under_an_older_judge_is_judged_again_and_counted_as_it_stands_now(browser, server):
    context = browser.new_context()
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    kept = {  # as the page's judge once left them: [1, 1] was "right so far", eight decimals were wrong
        "answers": {
            "normalized": {"first": "[1, 1]", "last": "[1, 1]", "outcome": "close", "right": False},
            "output": {"first": "[1.27279221, 0.56568513]", "last": "[1.27279221, 0.56568513]", "outcome": "wrong"},
        },
        "shown": [],
        "firsts": {},
    }
    page.evaluate("([key, value]) => window.localStorage.setItem(key, value)", [STORE, json.dumps(kept)])
    page.reload(wait_until="networkidle")
    page.wait_for_function(READY)
    assert page.locator(".prediction-progress .prediction-count").text_content() == counted(2, 1, 1)
    stored = json.loads(page.evaluate(f"() => window.localStorage.getItem('{STORE}')"))
    assert stored["answers"]["normalized"]["outcome"] == "wrong" and stored["answers"]["output"]["right"] is True
    assert errors == []
    context.close()


def test_a_first_try_after_show_the_answer_is_recorded_as_shown(browser, server, tmp_path):
    context = browser.new_context(accept_downloads=True)
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    page.wait_for_function(READY)
    page.evaluate(UNFOLD)
    page.locator(".prediction[data-exercise='mean-square'] details.prediction-answer summary").click()
    _answer(page, "mean-square", "12.5")  # typed after the answer was shown
    page.locator(".prediction[data-exercise='output-shape'] details.prediction-answer summary").click()  # no try
    _answer(page, "reciprocal-rms", "0.282843")  # a first try of its own
    sheet = _download(page, tmp_path)
    assert sheet.grade("mean-square").correct
    assert sheet.first_try("mean-square").word == "shown" and not sheet.first_try("mean-square").right
    assert sheet.first_try("output-shape").word == "shown" and sheet.first_try("output-shape").unanswered
    assert sheet.first_try("reciprocal-rms").word == "right"
    assert errors == []
    context.close()


def test_clearing_the_answers_gives_no_fresh_first_try(browser, server, tmp_path):
    context = browser.new_context(accept_downloads=True)
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    page.wait_for_function(READY)
    page.evaluate(UNFOLD)
    _answer(page, "mean-square", "25")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Clear my answers").click()
    page.evaluate(UNFOLD)
    _answer(page, "mean-square", "12.5")  # right, but not at the first try
    sheet = _download(page, tmp_path)
    assert sheet.grade("mean-square").correct and sheet.first_try("mean-square").word == "not right"
    assert sheet.typed("mean-square", "first-tries") == "25"
    assert errors == []
    context.close()


def test_an_edited_store_is_reported_only_as_the_student_s_own_record(browser, server, tmp_path):
    context = browser.new_context(accept_downloads=True)
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    forged = {"answers": {}, "shown": [], "firsts": {"mean-square": {"text": "12.5", "shown": False}}}
    page.evaluate("([key, value]) => window.localStorage.setItem(key, value)", [STORE, json.dumps(forged)])
    page.reload(wait_until="networkidle")
    page.wait_for_function(READY)
    sheet = _download(page, tmp_path)
    first = sheet.first_try("mean-square")
    assert first.right and first.unanswered  # carried into the download as it was edited: no final answer beside it
    answers = tmp_path / "answers.toml"
    command = [sys.executable, "-P", "-m", "classroom", "grade", str(answers), "--out", str(tmp_path / "out")]
    graded = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    said = "first try*: first tries are the student's own record, kept by their browser and not checked"
    assert said in graded.stdout
    long = (tmp_path / "out" / "grades-long.csv").read_text(encoding="utf-8")
    assert "first try (own record)" in long.splitlines()[0]
    assert ',mean-square,,not answered,0,,"right, no final answer",12.5\n' in long
    assert errors == []
    context.close()


def test_the_download_carries_the_name_and_id_asked_once_and_is_named_after_them(browser, server, tmp_path):
    context = browser.new_context(accept_downloads=True)
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    page.wait_for_function(READY)
    typed, asked = ["Ana P\u00e9rez", "12345"], []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept(typed[len(asked) - 1])))
    sheet = _download(page, tmp_path, "answers-ana-perez-12345.toml")
    assert (sheet.identity("name"), sheet.identity("id")) == ("Ana P\u00e9rez", "12345") and not sheet.problems()
    sheet = _download(page, tmp_path, "answers-ana-perez-12345.toml")
    assert sheet.identity("name") == "Ana P\u00e9rez" and len(asked) == 2  # asked once: no dialog the second time
    assert errors == []
    context.close()


def test_cancelling_the_name_asks_no_id_and_the_next_download_asks_for_the_name_again(browser, server, tmp_path):
    """Cancelled, or left blank, the name is not asked after: no id prompt follows, nothing is kept, and the file is
    named as a blank one is; the next download asks again, and a name given then is kept with its id."""
    context = browser.new_context(accept_downloads=True)
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    page.wait_for_function(READY)
    replies, asked = [None, "  ", "Ana", "7"], []  # cancel; a blank name; then a name and an id

    def reply(dialog) -> None:
        asked.append(dialog.message)
        typed = replies[len(asked) - 1]
        dialog.dismiss() if typed is None else dialog.accept(typed)

    page.on("dialog", reply)
    sheet = _download(page, tmp_path)
    assert len(asked) == 1 and sheet.identity("name") is None  # cancelled: no question about the id
    sheet = _download(page, tmp_path)
    assert len(asked) == 2 and asked[1] == asked[0] and sheet.identity("name") is None  # asked again; blank
    sheet = _download(page, tmp_path, "answers-ana-7.toml")
    assert len(asked) == 4 and (sheet.identity("name"), sheet.identity("id")) == ("Ana", "7")
    _download(page, tmp_path, "answers-ana-7.toml")
    assert len(asked) == 4  # kept: not asked again
    assert errors == []
    context.close()


@pytest.mark.parametrize(
    "stored", ["42", '"abc"', "[]", "{", '{"answers": {"mean-square": 12.5}}', '{"mean-square": "12.5"}']
)
def test_a_corrupt_store_is_set_aside_and_saving_goes_on(browser, server, tmp_path, stored):
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    page.goto(f"{server}/book/exercises.html", wait_until="networkidle")
    page.evaluate("([key, value]) => window.localStorage.setItem(key, value)", [STORE, stored])
    page.reload(wait_until="networkidle")
    page.wait_for_function(READY)
    page.evaluate(UNFOLD)
    assert page.locator(".prediction-set-aside").is_visible()
    box = page.locator(".prediction[data-exercise='mean-square']")
    box.locator("input.prediction-input").fill("12.5")
    box.locator("input.prediction-input").press("Enter")
    count = page.locator(".prediction-progress .prediction-count")
    assert count.text_content() == counted(1, 1, 1)
    with page.expect_download() as download:
        page.get_by_role("button", name="Download my answers").click()
    path = tmp_path / "answers.toml"
    download.value.save_as(path)
    assert AnswerSheet.read(COURSE, path).grade("mean-square").correct
    assert page.evaluate("(key) => window.localStorage.getItem(key)", f"{STORE}/set-aside") == stored  # not lost
    context.close()


CALLER = "const caller = () => new Error().stack.split('\\n')[3];"  # the script that asked, in what it throws
STORAGE = {  # the browser's store, as a privacy setting or a full disk leaves it: each use throws
    "refused": CALLER + "Object.defineProperty(window, 'localStorage', { configurable: true, get() { "
    "throw new DOMException('Access is denied for this document ' + caller(), 'SecurityError'); } });",
    "full": CALLER + "Storage.prototype.setItem = function () { "
    "throw new DOMException('Setting the value exceeded the quota ' + caller(), 'QuotaExceededError'); };",
}
UNKEPT = (
    "This browser does not let the page keep your answers: they will be gone once you close or reload this page. "
    "Download my answers still saves them as a file."
)


@pytest.mark.parametrize("storage", list(STORAGE))
def test_with_storage_refused_or_full_a_right_answer_opens_the_page_which_says_answers_will_not_last(
    browser, server, tmp_path, storage
):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    context.add_init_script(STORAGE[storage])
    page, errors = page_with_errors(context, f"{server}/book/backward.html")
    page.wait_for_function(READY)
    following = page.locator(".prediction[data-exercise='grad-gain']")
    answer(page, "grad-x", "[0.5, 0.5]", "wrong")
    assert not following.is_visible()
    answer(page, "grad-x")
    assert following.is_visible()  # the page went on
    notice = page.locator(".prediction-progress .prediction-unkept")
    assert notice.is_visible() and notice.text_content() == UNKEPT
    assert page.get_by_text(UNKEPT).count() == 1  # said once
    assert not page.locator(".prediction-progress .prediction-note").is_visible()  # not "kept in this browser"
    count = page.locator(".prediction-progress .prediction-count")
    assert count.text_content() == counted(1, 1, 0)  # right at the second try
    sheet = _download(page, tmp_path)
    assert sheet.grade("grad-x").correct and sheet.first_try("grad-x").word == "not right" and not sheet.problems()
    assert [error for error in errors if "/_static/prediction" in error] == []  # the theme's own may throw
    context.close()


def test_the_downloaded_rules_are_the_package_s(server):
    import urllib.request

    with urllib.request.urlopen(f"{server}/_static/{DATA_SCRIPT}") as response:
        script = response.read().decode()
    data = json.loads(script.removeprefix(f"{DATA_GLOBAL} = ").removesuffix(";\n"))
    assert data["rules"] == json.loads(json.dumps(reading.rules()))


UNUSUAL = {
    "mean-square": "\uff11\uff12.\uff15",
    "reciprocal-rms": "\x1c0.282843\x85",
    "normalized": "[\uff10.848528, 1.13137]",
    "output": '"[1.272792, 0.565685]"\u007f',
    "output-shape": "(\u0662, \u0665, \u0663)",
    "zero-row-zero-eps": "(C)",
    "eps-near-zero": "\ufeff'B'",
    "tiny-normalized": "[0.0943, 0.1257]",
    "plateau-value": "1",
    "anchor-mean": "\\u0030.894427",
}


def test_a_download_of_unusual_text_grades_exactly_as_the_page_showed(browser, server, tmp_path):
    context = browser.new_context(accept_downloads=True)
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    page.wait_for_function(READY)
    page.evaluate(UNFOLD)
    shown = {}
    for exercise_id, typed in UNUSUAL.items():
        box = page.locator(f".prediction[data-exercise='{exercise_id}']")
        box.locator("input.prediction-input").fill(typed)
        box.locator("input.prediction-input").press("Enter")
        shown[exercise_id] = box.locator(".prediction-verdict").text_content()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download my answers").click()
    path = tmp_path / "answers.toml"
    download.value.save_as(path)
    sheet = AnswerSheet.read(COURSE, path)
    assert sheet.unreadable is None
    kept = {exercise_id: text for exercise_id, text in shown.items() if "Cannot read" not in text}
    assert {exercise_id: sheet.grade(exercise_id).sentence for exercise_id in kept} == kept
    assert {exercise_id: check(exercise_id, UNUSUAL[exercise_id]).sentence for exercise_id in shown} == shown
    assert errors == []
    context.close()


TYPED_AT = "([key, id]) => (JSON.parse(window.localStorage.getItem(key)).answers[id] || {}).at || null"


def test_the_page_s_download_is_byte_for_byte_the_file_the_widget_saves(browser, server, tmp_path):
    """The same predictions, typed in the page and in a kernel's widgets, give the same answers file."""
    from predict_check.box import KernelAnswers
    from predict_check.sheet_writer import typed_answers_file

    # a first try, the unusual text, then a quote, a backslash and a tab (a text field keeps no line break)
    tries = {exercise_id: ["0.5", typed, '1"\\\t'] for exercise_id, typed in UNUSUAL.items()}
    tries["zero-row-zero-eps"] = ["(C)"]
    tries["plateau-value"] = ["twelve", "1"]  # an unreadable try is no prediction, in either
    context = browser.new_context(accept_downloads=True)
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    page.wait_for_function(READY)
    page.evaluate(UNFOLD)
    kernel = KernelAnswers(COURSE)
    for exercise_id, answers in tries.items():
        field = page.locator(f".prediction[data-exercise='{exercise_id}'] input.prediction-input")
        for typed in answers:
            field.fill(typed)
            field.press("Enter")
            at = page.evaluate(TYPED_AT, [STORE, exercise_id])  # the kernel's typing, at the page's moment
            kernel.record(exercise_id, typed, check(exercise_id, typed), at)
    with page.expect_download() as download:
        page.get_by_role("button", name="Download my answers").click()
    path = tmp_path / "answers.toml"
    download.value.save_as(path)
    assert path.read_bytes() == typed_answers_file(COURSE, kernel.typed()).encode("utf-8")
    assert errors == []
    context.close()


# --- answers placed on a picture, and practice with fresh inputs -----------------------------------

PLACED = {exercise_id: e for exercise_id, e in COURSE.exercises.items() if isinstance(e.kind, Place)}


def _page_of(exercise_id: str) -> str:
    for page_path in GATED:
        if f'Prediction("{exercise_id}")' in (ROOT / f"{page_path}.md").read_text(encoding="utf-8"):
            return page_path
    raise AssertionError(f"no chapter page asks {exercise_id}")


def _shown_but(context, exercise_id: str) -> None:
    """As if every other box's answer had been opened: the page holds nothing back before this one."""
    state = json.dumps({"answers": {}, "shown": [i for i in COURSE.exercises if i != exercise_id]})
    context.add_init_script(f"window.localStorage.setItem('{STORE}', {json.dumps(state)});")


def _picture_box(browser, exercise_id: str, address: str, width: int = 1280, **options):
    """A picture box's page with every box before it opened, scrolled to the box: (context, page, errors, box)."""
    context = browser.new_context(viewport={"width": width, "height": 900}, **options)
    _shown_but(context, exercise_id)
    page, errors = page_with_errors(context, f"{address}/{_page_of(exercise_id)}.html")
    page.wait_for_function(READY)
    box = page.locator(f".prediction[data-exercise='{exercise_id}']")
    box.scroll_into_view_if_needed()
    return context, page, errors, box


def _place_by_keys(box, kind, answer) -> None:
    marker = box.locator(":scope > .prediction-figure .prediction-marker")
    marker.focus()
    marker.press("Home")
    for _ in range(3000):
        value = float(box.locator("input.prediction-input").input_value() or "nan")
        if kind.distance(value, answer) <= kind.tolerance / 2:
            return
        marker.press("ArrowRight")
    raise AssertionError("the marker never reached the answer by keys")


def _place_by_pointer(page, box, kind, answer) -> None:
    svg = box.locator(":scope > .prediction-figure svg")
    frame = svg.bounding_box()
    if kind.axis.scale == "angle":
        circle = svg.locator("circle").first.bounding_box()
        cx, cy, r = circle["x"] + circle["width"] / 2, circle["y"] + circle["height"] / 2, circle["width"] / 2
        page.mouse.click(cx + r * np.cos(np.radians(answer)), cy - r * np.sin(np.radians(answer)))
        return
    low, high = frame["x"], frame["x"] + frame["width"]  # the value grows with x: search for the answer's pixel
    middle = frame["y"] + frame["height"] * 0.7
    for _ in range(40):
        x = (low + high) / 2
        page.mouse.click(x, middle)
        value = float(box.locator("input.prediction-input").input_value())
        if kind.distance(value, answer) <= kind.tolerance / 2:
            return
        low, high = (x, high) if value < answer else (low, x)
    raise AssertionError("no pixel of the axis holds the answer")


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("how", ["keys", "pointer"])
@pytest.mark.parametrize("exercise_id", list(PLACED))
def test_a_picture_box_is_answered_on_its_figure_and_graded_as_typed(
    browser, server, tmp_path, exercise_id, how, width
):
    exercise = PLACED[exercise_id]
    kind, answer = exercise.kind, exercise.solve().answer
    context, page, errors, box = _picture_box(browser, exercise_id, server, width, accept_downloads=True)
    marker = box.locator(":scope > .prediction-figure .prediction-marker")
    assert marker.get_attribute("role") == "slider" and marker.get_attribute("aria-valuetext")
    truth = box.locator(":scope > .prediction-figure .prediction-picture-truth")
    assert truth.evaluate("g => g.childElementCount") == 0  # nothing of the answer before a verdict
    (_place_by_keys(box, kind, answer) if how == "keys" else _place_by_pointer(page, box, kind, answer))
    placed = box.locator("input.prediction-input").input_value()
    assert marker.get_attribute("aria-valuenow") == placed  # the control announces where it stands
    box.locator("input.prediction-input").press("Enter")
    verdict = box.locator(".prediction-verdict")
    assert verdict.get_attribute("data-outcome") == "correct"
    assert verdict.text_content() == check(exercise_id, placed).sentence
    assert truth.evaluate("g => g.childElementCount") > 0  # the truth, drawn over the guess
    svg = box.locator(":scope > .prediction-figure svg").bounding_box()
    assert svg["width"] <= width
    with page.expect_download() as download:
        page.get_by_role("button", name="Download my answers").click()
    path = tmp_path / "answers.toml"
    download.value.save_as(path)
    assert AnswerSheet.read(COURSE, path).grade(exercise_id).correct
    command = [sys.executable, "-m", "pytest", str(ROOT / "exercises"), "--answers", str(path), "-q"]
    grader = subprocess.run([*command, "-p", "no:cacheprovider"], capture_output=True, text=True, cwd=ROOT)
    assert grader.stdout.strip().splitlines()[-1] == f"score: 1/{len(COURSE.exercises)}"
    assert errors == []
    context.close()


LABELS = """(svg) => {
  const frame = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim()).map(t => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  });
  const across = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5
                        && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  return {
    count: texts.length,
    overlapping: texts.flatMap((a, i) => texts.slice(i + 1).filter(b => across(a, b))
                                              .map(b => a.text + ' / ' + b.text)),
    outside: texts.filter(t => t.left < frame.left - 0.5 || t.right > frame.right + 0.5
                            || t.top < frame.top - 0.5 || t.bottom > frame.bottom + 0.5).map(t => t.text),
  };
}"""

# Every figure a box draws (its own and each variant's), in the box's own column, with the guess at
# each of ``values``, before the truth is drawn and after: the labels that overlap or leave the figure.
SWEEP = (
    """(box, sweeps) => {
  const labels = """
    + LABELS
    + """;
  const data = JSON.parse(box.querySelector('script.prediction-data').textContent);
  return [data, ...data.variants].flatMap((figureData, number) => {
    const holder = document.createElement('div');
    holder.className = 'prediction-figure';
    box.append(holder);
    const figure = window.predictCheckPicture.draw(holder, figureData, () => {});
    const found = [];
    for (const truth of [false, true]) {
      if (truth) figure.reveal();
      for (const value of sweeps[number]) {
        figure.typed(String(value));
        found.push({variant: number, value, truth, ...labels(holder.querySelector('svg'))});
      }
    }
    holder.remove();
    return found;
  });
}"""
)


def _placements(exercise) -> list[float]:
    """Where a learner might put the marker: the answer, each line the truth draws, the axis's ends, and between."""
    axis, solution = exercise.kind.axis, exercise.solve()
    marks = [value for _, value in (solution.picture or {}).get("marks", [])]
    if axis.scale == "angle":
        return [solution.answer, *range(0, 360, 15)]
    between = np.geomspace(axis.low, axis.high, 13) if axis.scale == "log" else np.linspace(axis.low, axis.high, 13)
    return [solution.answer, *marks, *(float(v) for v in between)]


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("exercise_id", list(PLACED))
def test_a_picture_s_labels_never_overlap_wherever_the_guess_stands_in_every_variant(
    browser, server, exercise_id, width
):
    exercise = PLACED[exercise_id]
    figures = [exercise, *(exercise.variant(number) for number in range(len(exercise.variants)))]
    context, _, errors, box = _picture_box(browser, exercise_id, server, width)
    found = box.evaluate(SWEEP, [_placements(figure) for figure in figures])
    assert len(found) == 2 * sum(len(_placements(figure)) for figure in figures)
    assert all(f["count"] >= (2 if f["truth"] else 1) for f in found)  # the guess's label, and the truth's
    assert [f for f in found if f["overlapping"] or f["outside"]] == []

    # the box itself, answered right: its truth drawn beside the guess
    field = box.locator("input.prediction-input")
    field.fill(repr(float(exercise.solve().answer)))
    field.press("Enter")
    assert box.locator(".prediction-verdict").get_attribute("data-outcome") == "correct"
    drawn = box.locator(":scope > .prediction-figure svg")
    shown = drawn.evaluate(LABELS)
    assert shown["overlapping"] == [] and shown["outside"] == [] and shown["count"] > 2
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    box.locator(":scope > .prediction-figure").screenshot(path=str(SCREENSHOTS / f"picture-{exercise_id}-{width}.png"))
    assert errors == []
    context.close()


FIGURE_EDGES = """(svg) => {
  const frame = svg.getBoundingClientRect();
  const drawn = [...svg.querySelectorAll('line, circle, polyline, text')].filter(e => e.checkVisibility())
    .map(e => e.getBoundingClientRect()).filter(r => r.width + r.height > 0);
  return {height: frame.height, gap: Math.min(...drawn.map(r => r.top)) - frame.top,
          texts: [...svg.querySelectorAll('text')].map(t => t.textContent)};
}"""


@pytest.mark.parametrize("exercise_id", ["crossover-rms", "circle-image"])
def test_a_picture_has_its_ticks_no_empty_space_above_its_axis_and_enter_on_the_marker_checks(
    browser, server, exercise_id
):
    """Before a verdict a straight axis is a strip of its own, with nothing blank above it (the truth's room was
    140 px of empty figure); the truth opens it, with a y axis under a curve. A circle has its degrees. Arrow
    keys move the marker and Enter on it checks where it stands, as the page's check() would."""
    exercise = PLACED[exercise_id]
    context, _, errors, box = _picture_box(browser, exercise_id, server)
    svg = box.locator(":scope > .prediction-figure svg")
    before = svg.evaluate(FIGURE_EDGES)
    marker = box.locator(":scope > .prediction-figure .prediction-marker")
    marker.focus()
    for _ in range(7):
        marker.press("ArrowRight")
    placed = box.locator("input.prediction-input").input_value()
    assert placed and marker.get_attribute("aria-valuenow") == placed
    marker.press("Enter")
    verdict = box.locator(".prediction-verdict")
    assert verdict.text_content() == check(exercise_id, placed).sentence
    field = box.locator("input.prediction-input")
    field.fill(repr(float(exercise.solve().answer)))
    field.press("Enter")
    assert verdict.get_attribute("data-outcome") == "correct"
    after = svg.evaluate(FIGURE_EDGES)
    if exercise.kind.axis.scale == "angle":
        assert {"0\u00b0", "90\u00b0", "180\u00b0", "270\u00b0"} <= set(before["texts"])
    else:
        assert before["gap"] < 40 and before["height"] < 0.65 * after["height"], (before, after)
        assert {"0", "0.5", "1", "mean(x-hat**2)"} <= set(after["texts"])  # the curve's axis, once it is drawn
    assert errors == []
    context.close()


def test_try_another_asks_fresh_inputs_judged_alike_and_never_scored(browser, server, tmp_path):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    page.wait_for_function(READY)
    page.evaluate(UNFOLD)
    box = page.locator(".prediction[data-exercise='mean-square']")
    assert not box.locator(".prediction-another").is_visible()  # offered once the box itself is answered
    answer(page, "mean-square", "25", "wrong")
    another = box.locator(".prediction-another")
    assert another.is_visible()
    variant = box.locator(".prediction-variant")
    tries = []
    for number, typed in ((1, None), (2, "20"), (3, "3/1")):
        another.click()
        question = variant.locator(".prediction-variant-question").text_content()
        exercise = COURSE.exercises["mean-square"].variant(number - 1)
        assert question == f"Variant {number}: {exercise.prompt}"
        text = typed if typed is not None else exercise.kind.toml(exercise.solve().answer)
        variant.locator("input").fill(text)
        variant.locator("input").press("Enter")
        shown = variant.locator(".prediction-variant-verdict").text_content()
        assert shown == check("mean-square", text, variant=number).sentence
        tries.append(check("mean-square", text, variant=number).correct)
    assert tries == [True, False, True]
    assert (
        variant.locator(".prediction-variant-count").text_content().startswith("Variant 3 of 5. 2 of 5 variants right")
    )
    count = page.locator(".prediction-progress .prediction-count")
    assert count.text_content() == counted(1, 0, 0)  # variants never count
    with page.expect_download() as download:
        page.get_by_role("button", name="Download my answers").click()
    path = tmp_path / "answers.toml"
    download.value.save_as(path)
    sheet = AnswerSheet.read(COURSE, path)
    assert not sheet.grade("mean-square").correct and sheet.problems() == []
    assert [(i, n, v.correct) for i, n, v in sheet.variant_tries()] == [
        ("mean-square", 1, True),
        ("mean-square", 2, False),
        ("mean-square", 3, True),
    ]
    command = [sys.executable, "-m", "pytest", str(ROOT / "exercises"), "--answers", str(path), "-q"]
    grader = subprocess.run([*command, "-p", "no:cacheprovider"], capture_output=True, text=True, cwd=ROOT)
    assert grader.stdout.strip().splitlines()[-1] == f"score: 0/{len(COURSE.exercises)}"
    assert "practice variants: 2 of 3 right (not part of the score)" in grader.stdout
    assert errors == []
    context.close()
