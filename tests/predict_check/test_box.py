"""Prediction boxes: the data the page judges with, the page contract, and the live widget."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from toy import TOY

from predict_check import RIGHT, Choice, reading
from predict_check.box import (
    DATA_GLOBAL,
    LAB_BOX,
    LAB_FIGURE,
    LAB_HOLD,
    LAB_OPEN,
    STATIC,
    Box,
    answer_html,
    data_script,
    exercise_data,
    options_html,
    prediction_html,
    question_html,
)
from predict_check.kinds import Place
from predict_check.page_cells import BOX_TAG
from predict_check.verdicts import COARSE_LOOK, LOOKS, Outcome, page_words, reference
from rmsnorm_course import check
from rmsnorm_course.pages import COURSE, Prediction


@pytest.mark.parametrize("exercise_id", list(COURSE.exercises))
def test_the_page_data_holds_what_check_judges_with(exercise_id):
    exercise, solution = COURSE.exercises[exercise_id], COURSE.exercises[exercise_id].solve()
    data = json.loads(json.dumps(exercise_data(COURSE.get(exercise_id))))
    assert data["words"]["correct"] == reference(COURSE.get(exercise_id)).message == solution.explanation
    assert data["words"]["not_answered"] == check(exercise_id).message
    assert data["words"]["wrong"] == f"Hint: {exercise.hint}"
    assert [note for _, note in data["slips"]] == [note for _, note in solution.slips]
    assert data["kind"]["type"] == type(exercise.kind).__name__.lower()


@pytest.mark.parametrize("exercise_id", list(COURSE.exercises))
def test_the_reference_answer_typed_in_quotes_is_right(exercise_id):
    exercise = COURSE.exercises[exercise_id]
    written = exercise.kind.toml(exercise.solve().answer).strip('"')  # 0.5, [0.5, -1.25], [4, 7] or B
    for quoted in (written, f'"{written}"', f"'{written}'", f'" {written} "'):
        assert Prediction(exercise_id).verdict(quoted).outcome is Outcome.CORRECT, quoted


@pytest.mark.parametrize("exercise_id", list(COURSE.exercises))
def test_each_box_keeps_the_page_contract(exercise_id):
    soup = BeautifulSoup(prediction_html(COURSE.get(exercise_id)), "html.parser")
    box = soup.select_one(f'.prediction[data-exercise="{exercise_id}"]')
    assert box["data-gate"] == "true"
    (field,) = box.select("input[type=text]")
    label = box.select_one(f'label[for="{field["id"]}"]').get_text()
    assert label == f"Type {COURSE.exercises[exercise_id].kind.describe()}"
    assert len(box.select('[role="status"]')) == 1
    assert box.select_one("details summary").get_text().startswith("Show the answer")
    data = box.select_one("script.prediction-data").string
    assert "<" not in data and json.loads(data)["id"] == exercise_id


def test_a_box_is_titled_for_a_reader_never_by_its_id():
    for exercise_id, exercise in COURSE.exercises.items():
        question = BeautifulSoup(prediction_html(COURSE.get(exercise_id)), "html.parser").select_one(
            ".prediction-question"
        )
        assert question.get_text().startswith(f"Predict: {exercise.title}.") and not question.select("code")
        assert "-" not in exercise_id or exercise_id not in question.get_text()


def test_a_review_box_holds_nothing_back():
    assert 'data-gate="false"' in prediction_html(COURSE.get("mean-square"), gate=False)


def test_a_choice_box_says_a_letter_will_do_and_lists_its_options_as_a_radio_group_of_text():
    html = prediction_html(COURSE.get("pre-norm-placement"))
    assert "Type a letter from A to D, or the words of an option" in html and "in quotes" not in html
    box = BeautifulSoup(html, "html.parser")
    group = box.select_one("ul.prediction-options[role=radiogroup]")
    assert group["aria-labelledby"] == box.select_one(".prediction-question")["id"]
    options = group.select("li")
    assert [o["role"] for o in options] == ["radio"] * 4 and {o["aria-checked"] for o in options} == {"false"}
    assert [o["data-letter"] for o in options] == list("ABCD")
    assert all(re.match(r"[A-D]\) ", o.get_text()) for o in options)
    assert all("<" not in option for option in re.findall(r"<li[^>]*>(.*?)</li>", html))


@pytest.mark.parametrize("exercise_id", list(COURSE.exercises))
def test_each_box_is_named_by_its_question_and_its_button_by_its_title(exercise_id):
    box = BeautifulSoup(prediction_html(COURSE.get(exercise_id)), "html.parser")
    question = box.select_one(".prediction-question")
    (field,) = box.select("input[type=text]")
    assert field["aria-labelledby"] == question["id"]
    assert box.select_one(f"#{field['aria-describedby']}").name == "label"
    assert box.select_one("button")["aria-label"] == f"Check: {COURSE.exercises[exercise_id].title}"
    assert box.select_one("form")["method"] == "dialog"  # submits nowhere: without JavaScript the page stays
    assert "needs JavaScript" in box.select_one("noscript").get_text()
    assert not box.select("[style]")  # the look is the stylesheet's (course.css), light or dark


def test_the_shared_script_holds_the_rules_the_chapter_and_the_looks_as_data():
    prefix, suffix = f"{DATA_GLOBAL} = ", ";\n"
    script = data_script(COURSE)
    assert script.startswith(prefix) and script.endswith(suffix)
    shared = json.loads(script[len(prefix) : -len(suffix)])
    assert shared["rules"] == json.loads(json.dumps(reading.rules()))
    assert shared["chapter"] == list(COURSE.exercises)  # "Download my answers" writes them in the grader's order
    words = {word for _, word, _ in [*LOOKS.values(), COARSE_LOOK]}
    assert {look["word"] for look in shared["looks"].values()} == words


def test_the_page_words_are_the_verdict_words():
    exercise = COURSE.exercises["reciprocal-rms"]
    words = page_words(exercise)
    assert check("reciprocal-rms", "0.2828").message == words["close"]
    assert check("reciprocal-rms", "twelve").message == words["unreadable"].format(
        expected=words["expected"], found=words["found"]["text"].format(what="a number")
    )


def test_the_widget_checks_what_is_typed_as_check_does():
    box = Prediction("mean-square")
    assert box.verdict(" 12.5 ") == check("mean-square", 12.5)
    assert box.verdict("").outcome is Outcome.NOT_ANSWERED
    assert box.verdict('"12.5"') == check("mean-square", 12.5)  # typed in quotes, read as the number
    assert box.verdict('"twelve"').outcome is Outcome.UNREADABLE
    bundle = box._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and 'class="prediction"' in bundle["text/html"]
    assert bundle["text/plain"].startswith("Predict: The mean square.")


@pytest.mark.parametrize("exercise_id", list(COURSE.exercises))
def test_a_picture_box_widget_carries_the_figure_the_page_draws_and_no_other_box_does(exercise_id):
    """The JupyterLab extension draws the figure from this data with the page's own script."""
    exercise = COURSE.exercises[exercise_id]
    html = "".join(child.value for child in Prediction(exercise_id).widget().children if hasattr(child, "value"))
    figures = BeautifulSoup(html, "html.parser").select(f"div.{LAB_FIGURE}")
    if not isinstance(exercise.kind, Place):
        assert figures == []
        return
    page = exercise_data(exercise)
    (figure,) = figures
    assert json.loads(figure["data-picture"]) == {name: page[name] for name in ("kind", "answer", "picture")}
    assert figure.get_text().strip(), "words for where no figure can be drawn"


def test_the_jupyterlab_extension_knows_a_box_by_the_names_the_widget_and_the_page_cells_give():
    """The extension is JavaScript and cannot import them: it names each one as the Python does."""
    script = (STATIC.parent / "lab" / "extension.js").read_text(encoding="utf-8")
    for name in (BOX_TAG, LAB_BOX, LAB_OPEN, LAB_HOLD, LAB_FIGURE):
        assert f'= "{name}"; //' in script, name


HOSTILE = "\"><script>alert(1)</script><b onmouseover='x()'>&amp; \u2028"  # markup, a quote each way, an entity


@pytest.mark.parametrize("gate", [True, False])
def test_markup_in_every_field_of_a_box_is_shown_as_text(gate):
    """A course's id, title, prompt, hint and options go into the box's HTML as text, whatever they hold."""
    exercise = replace(
        TOY.exercises["letter"],
        id=HOSTILE,
        title=HOSTILE,
        prompt=HOSTILE,
        hint=HOSTILE,
        kind=Choice.of({"a": RIGHT, HOSTILE: HOSTILE}),
    )
    page = prediction_html(exercise, gate)
    widget = question_html(exercise) + options_html(exercise) + answer_html(exercise) + Box(exercise).figure_html()
    for html in (page, widget):
        soup = BeautifulSoup(html, "html.parser")
        assert [tag.name for tag in soup.find_all(["script", "b"])] == ["script"] * (html == page)  # the data alone
        assert not [name for tag in soup.find_all(True) for name in tag.attrs if name.startswith("on")]
    soup = BeautifulSoup(page, "html.parser")
    box = soup.select_one(".prediction")
    assert box["data-exercise"] == HOSTILE and box.select_one("input")["id"] == f"prediction-{HOSTILE}"
    assert box.select_one(".prediction-question").get_text() == f"Predict: {HOSTILE}. {HOSTILE}"
    assert box.select_one("button")["aria-label"] == f"Check: {HOSTILE}"
    assert [option.get_text() for option in box.select("li")] == ["A) a", f"B) {HOSTILE}"]
    assert json.loads(box.select_one("script.prediction-data").string)["id"] == HOSTILE
    assert gate or soup.select_one("details.prediction-review > summary").get_text() == HOSTILE


def test_every_readme_says_only_a_right_answer_or_show_the_answer_opens_what_follows_a_box():
    """The page opens what follows a box once it is answered right or its answer is shown; a ✗ Not yet waits."""
    root = Path(__file__).resolve().parents[2]
    for path in (root / "README.md", root / "packages" / "predict-check" / "README.md"):
        text = " ".join(path.read_text(encoding="utf-8").split())
        assert "has a verdict" not in text and "is answered or" not in text, path
        assert "answered right or" in text and re.search(r'Not yet".{0,60} keeps it waiting', text), path
