"""The kernel-free prediction boxes judge what is typed exactly as check() does.

For every exercise, a table of typed strings (its reference answer, each pitfall's
answer, a wrong one, unreadable ones, empty ones, spelling variants the reader
accepts, the same answers in quotes as the answers file invites, and hostile text)
goes into the page's box and into check() through kinds.read_typed; the verdict
text must be the same, word for word.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, page_with_errors
from rmsnorm_course import check
from rmsnorm_course.exercises.answers import AnswerSheet
from rmsnorm_course.exercises.feedback import reference
from rmsnorm_course.exercises.kinds import Choice, Number, Shape, Vector, read_typed
from rmsnorm_course.exercises.registry import EXERCISES

HOSTILE = [
    'a "quoted" \\ back\\slash',
    "<script>alert(1)</script>",
    '<b>bold</b> & "quotes"',
    "x" * 10_000,
    "'unclosed",
    "[1, 2",
    "\u2212",
    "\u00a0\t",
    "[1,,2]",
    "1e999",
    "9" * 5000,  # more digits than Python makes into an int
    "''",
    '""',
    "' '",
]


def typed(kind, value) -> str:
    """A value written as a reader would type it: the answers file's own spelling."""
    return kind.toml(kind.read(value) if isinstance(kind, Choice) and isinstance(value, str) else value)


def table(exercise_id: str) -> list[str]:
    exercise = EXERCISES[exercise_id]
    kind, solution = exercise.kind, exercise.solve()
    rows = [typed(kind, solution.answer), "", "   "]
    rows += [kind.toml(kind.read(value)) for value, _ in solution.pitfalls]
    # typed inside quotes, as the answers file's "" invites: read as the value in the quotes
    right = typed(kind, solution.answer)
    rows += [f'"{right}"', f"'{right}'", f'" {right} "']
    rows += [f'"{kind.toml(kind.read(value))}"' for value, _ in solution.pitfalls]
    if isinstance(kind, Number):
        value = solution.answer
        rows += [
            repr(value),
            f"{value:.6f}",
            f'"{value}"',
            "12345",
            "twelve",
            f"{value:e}",
            f"[{value}]",
            "-" + repr(value),
        ]
        rows += [f"\u2212{abs(value)}"]
    elif isinstance(kind, Vector):
        values = solution.answer
        rows += ["(" + ", ".join(repr(v) for v in values) + ")", "[" + ", ".join(f"{v:.6f}" for v in values) + ",]"]
        rows += ["[9, 9]", "[1]", "twelve", "[a, b]", "5", '"5"', '"[1, 2"']
        rows += ["[" + ", ".join(f'"{v:.6f}"' for v in values) + "]", "[" + ", ".join(f"'{v!r}'" for v in values) + "]"]
    elif isinstance(kind, Shape):
        shape = solution.answer
        rows += [
            "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")",
            "[1]",
            "7",
            "[2.5, 3]",
            "[-1]",
            '"(' + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ')"',
            "[" + ", ".join(f'"{n}"' for n in shape) + "]",
            '"[2.5, 3]"',
            '"B, T, d"',
        ]
    elif isinstance(kind, Choice):
        letter = kind.letters[solution.answer]
        wrong = next(c for c in kind.letters if c != letter)
        words = kind.options[solution.answer]
        rows += [letter.lower(), f"{letter})", f"({letter})", f"{letter}. {words}", words, words.upper() + ".", wrong]
        rows += ["Z", "2", f"{wrong}) {words}", "none of these", f"\"'{letter}'\"", f"'{words}'", f'"{wrong}"', "'2'"]
    return rows + HOSTILE


def expected_text(exercise_id: str, answer: str) -> str:
    verdict = check(exercise_id, read_typed(answer))
    said = f" (you said {verdict.answer})" if verdict.answer is not None else ""
    return f"{verdict.label} {verdict.mark}{said}: {verdict.message}"


@pytest.fixture(scope="module")
def exercises_page(browser, server):
    context = browser.new_context()
    page, errors = page_with_errors(context, f"{server}/book/exercises.html")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.prediction')].every(box => box.dataset.ready === 'true')"
    )
    yield page, errors
    context.close()


def test_every_exercise_has_one_box_with_a_label_an_input_and_a_status(exercises_page):
    page, errors = exercises_page
    boxes = page.locator(".prediction[data-exercise]")
    assert sorted(boxes.evaluate_all("els => els.map(e => e.dataset.exercise)")) == sorted(EXERCISES)
    for exercise_id in EXERCISES:
        box = page.locator(f".prediction[data-exercise='{exercise_id}']")
        assert box.locator("input[type='text']").count() == 1 and box.locator("[role='status']").count() == 1
        field = box.locator("input").get_attribute("id")
        assert box.locator(f"label[for='{field}']").count() == 1
    assert errors == []


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_the_page_gives_check_s_verdict_for_every_typed_answer(exercises_page, exercise_id):
    page, errors = exercises_page
    box = page.locator(f".prediction[data-exercise='{exercise_id}']")
    status = box.locator("[role='status']")
    mismatches = []
    for answer in table(exercise_id):
        box.locator("input").fill(answer)
        box.locator("input").press("Enter")
        shown = status.evaluate("el => el.textContent")
        if shown != expected_text(exercise_id, answer):
            mismatches.append((answer[:60], shown[:300], expected_text(exercise_id, answer)[:300]))
    assert mismatches == []
    assert status.locator("*").evaluate_all("els => els.map(e => e.tagName)") == ["STRONG", "SPAN", "SPAN"]
    assert errors == []


def test_the_reference_answer_waits_in_a_dropdown_and_a_button_checks_too(exercises_page):
    page, _ = exercises_page
    box = page.locator(".prediction[data-exercise='mean-square']")
    assert box.locator("details").count() == 1 and not box.locator("details p").is_visible()
    answer = typed(EXERCISES["mean-square"].kind, EXERCISES["mean-square"].solve().answer)
    box.locator("input").fill(answer)
    box.get_by_role("button", name="Check").click()
    assert box.locator("[role='status']").evaluate("el => el.textContent") == expected_text("mean-square", answer)
    box.locator("summary").click()
    assert box.locator("details p").is_visible()


def test_answers_stay_in_the_browser_and_download_as_a_file_the_grader_scores_alike(browser, server, tmp_path):
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    page.goto(f"{server}/book/exercises.html", wait_until="networkidle")
    ready = "() => [...document.querySelectorAll('.prediction')].every(box => box.dataset.ready === 'true')"
    page.wait_for_function(ready)
    count = page.locator(".prediction-progress .prediction-count")
    assert count.text_content() == f"0 of {len(EXERCISES)} predictions checked"

    typed_answers = {}
    for position, exercise_id in enumerate(EXERCISES):
        rows = table(exercise_id)
        # the hostile texts first, then a spread of right, wrong, unreadable and empty answers
        answer = HOSTILE[position] if position < len(HOSTILE) else rows[(position * 5) % len(rows)]
        typed_answers[exercise_id] = answer
        box = page.locator(f".prediction[data-exercise='{exercise_id}']")
        box.locator("input").fill(answer)
        box.locator("input").press("Enter")
    outcomes = {
        exercise_id: page.locator(f".prediction[data-exercise='{exercise_id}'] [role='status']").get_attribute(
            "data-outcome"
        )
        for exercise_id in EXERCISES
    }
    answered = sum(read_typed(answer) is not None for answer in typed_answers.values())
    assert count.text_content() == f"{answered} of {len(EXERCISES)} predictions checked"

    with page.expect_download() as download:
        page.get_by_role("button", name="Download my answers").click()
    path = tmp_path / "answers.toml"
    download.value.save_as(path)
    sheet = AnswerSheet.read(path)
    assert sheet.unreadable is None and sheet.unknown_ids() == []
    assert {exercise_id: sheet.grade(exercise_id).outcome.name.lower() for exercise_id in EXERCISES} == outcomes

    command = [sys.executable, "-m", "pytest", str(ROOT / "exercises"), "--answers", str(path), "-q"]
    grader = subprocess.run([*command, "-p", "no:cacheprovider"], capture_output=True, text=True, cwd=ROOT)
    right = sum(outcome == "correct" for outcome in outcomes.values())
    assert grader.stdout.strip().splitlines()[-1] == f"score: {right}/{len(EXERCISES)}"

    page.reload(wait_until="networkidle")
    page.wait_for_function(ready)
    first = next(iter(EXERCISES))
    assert page.locator(f".prediction[data-exercise='{first}'] input").input_value() == typed_answers[first]
    assert count.text_content() == f"{answered} of {len(EXERCISES)} predictions checked"
    page.get_by_role("button", name="Clear my answers").click()
    assert count.text_content() == f"0 of {len(EXERCISES)} predictions checked"
    assert page.evaluate("() => window.localStorage.getItem('rmsnorm-course/answers')") is None
    context.close()


CHAPTER_PAGES = [entry["file"] for entry in yaml.safe_load((ROOT / "_toc.yml").read_text())["chapters"]]
ASKING_PAGES = CHAPTER_PAGES[: CHAPTER_PAGES.index("book/precision-and-cost") + 1]


@pytest.mark.parametrize("page_path", ASKING_PAGES)
def test_every_chapter_page_asks_at_least_one_prediction_that_answers_back(browser, server, page_path):
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server}/{page_path}.html", wait_until="networkidle")
    boxes = page.locator(".prediction[data-exercise]")
    assert boxes.count() >= 1
    page.wait_for_function("() => [...document.querySelectorAll('.prediction')].every(b => b.dataset.ready === 'true')")
    first = boxes.first
    exercise_id = first.get_attribute("data-exercise")
    assert exercise_id in EXERCISES
    first.locator("input").fill("")
    first.locator("input").press("Enter")
    assert first.locator("[role='status']").evaluate("el => el.textContent") == expected_text(exercise_id, "")
    context.close()


def test_without_javascript_the_question_and_the_folded_answer_remain(browser, server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server}/book/predict.html", wait_until="networkidle")
    box = page.locator(".prediction[data-exercise='mean-square']")
    assert box.locator(".prediction-question").is_visible()
    assert EXERCISES["mean-square"].prompt in box.locator(".prediction-question").inner_text()
    box.locator("summary").click()
    assert reference("mean-square").message in box.locator("details").inner_text()
    context.close()
