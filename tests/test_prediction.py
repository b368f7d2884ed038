"""Prediction boxes: the data the page judges with, the page contract, and the live widget."""

from __future__ import annotations

import json
import re

import pytest
from bs4 import BeautifulSoup

from rmsnorm_course import check
from rmsnorm_course.exercises.feedback import Outcome, reference
from rmsnorm_course.exercises.kinds import read_typed
from rmsnorm_course.exercises.registry import EXERCISES
from rmsnorm_course.views.prediction import Prediction, exercise_data, prediction_html


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_the_page_data_holds_what_check_judges_with(exercise_id):
    exercise, solution = EXERCISES[exercise_id], EXERCISES[exercise_id].solve()
    data = json.loads(json.dumps(exercise_data(exercise_id)))
    assert data["prompt"] == exercise.prompt and data["hint"] == exercise.hint
    assert data["explanation"] == reference(exercise_id).message == solution.explanation
    assert data["tolerance"] == exercise.tolerance
    assert check(exercise_id, read_typed(exercise.kind.toml(data["answer"]))).outcome is Outcome.CORRECT
    assert [note for _, note in data["pitfalls"]] == [note for _, note in solution.pitfalls]
    assert {look["word"] for look in data["looks"].values()} == {
        check(exercise_id, ...).label, check(exercise_id, "\u2603").label, reference(exercise_id).label,
        "Not yet",
    }  # fmt: skip


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_the_reference_answer_typed_in_quotes_is_right(exercise_id):
    exercise = EXERCISES[exercise_id]
    written = exercise.kind.toml(exercise.solve().answer)  # 0.5, [0.5, -1.25], [4, 7] or "B"
    for quoted in (f'"{written}"', f"'{written}'", f'" {written} "'):
        assert Prediction(exercise_id).verdict(quoted).outcome is Outcome.CORRECT, quoted


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_each_box_keeps_the_page_contract(exercise_id):
    soup = BeautifulSoup(prediction_html(exercise_id), "html.parser")
    box = soup.select_one(f'.prediction[data-exercise="{exercise_id}"]')
    (field,) = box.select("input[type=text]")
    assert box.select_one(f'label[for="{field["id"]}"]') is not None
    assert len(box.select('[role="status"]')) == 1
    assert box.select_one("details summary").get_text().startswith("Check your prediction first")
    data = box.select_one("script.prediction-data").string
    assert "<" not in data and json.loads(data)["id"] == exercise_id


def test_a_prompt_is_shown_as_text_never_as_markup():
    html = prediction_html("pre-norm-placement")
    assert re.search(r"<li>[A-D]\) ", html)
    assert all("<" not in option for option in re.findall(r"<li>(.*?)</li>", html))


def test_the_widget_checks_what_is_typed_as_the_page_reads_it():
    box = Prediction("mean-square")
    assert box.verdict(" 12.5 ") == check("mean-square", 12.5)
    assert box.verdict("").outcome is Outcome.NOT_ANSWERED
    assert box.verdict('"12.5"') == check("mean-square", 12.5)  # typed in quotes, read as the number
    assert box.verdict('"twelve"').outcome is Outcome.UNREADABLE
    bundle = box._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and 'class="prediction"' in bundle["text/html"]
