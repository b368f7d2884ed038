"""The answers file the boxes save in a kernel: the page's download, kept across pages, read back as typed.

A learner in JupyterLab answers in the widget and presses "Save my answers"; the file
next to the notebook is the one the page's "Download my answers" writes (the byte-for-byte
comparison with the page is in browser_tests/test_predictions.py), and the grader scores it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rmsnorm_course import check
from rmsnorm_course.grading.answers import AnswerSheet
from rmsnorm_course.grading.errors import AnswersFileError
from rmsnorm_course.grading.feedback import Outcome, reference
from rmsnorm_course.grading.saved_answers import Typed, save_typed, typed_answers_file
from rmsnorm_course.questions.registry import EXERCISES
from rmsnorm_course.views.prediction import GO_ON, KernelAnswers, Prediction

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = {  # exercise id -> typed text that TOML, a terminal or a page would read as something else
    "mean-square": '12.5"\nnormalized = "[0.848528, 1.131371]',
    "reciprocal-rms": "\\u0030.282843\\",
    "normalized": "[0.848528,\t1.131371]\r\n",
    "output": '"""',
    "output-shape": "(2, 5, 3)\x00\x1b[2J\x7f",
    "eps-near-zero": "C\u202e",
    "tiny-normalized": "<script>alert(1)</script>",
    "tiny-scaled": "[#, ']'] # a comment",
    "plateau-value": "\U0001f600 1",
    "anchor-mean": "x" * 500,
}


def widgets_in(box) -> list:
    """Every widget inside ``box``, depth first."""
    found = [box]
    for child in getattr(box, "children", ()):
        found += widgets_in(child)
    return found


def part(box, kind: str, description: str | None = None):
    return next(
        widget
        for widget in widgets_in(box)
        if type(widget).__name__ == kind and (description is None or widget.description == description)
    )


def html_of(box) -> str:
    return "\n".join(widget.value for widget in widgets_in(box) if type(widget).__name__ == "HTML")


def test_whatever_is_typed_is_read_back_exactly_as_typed(tmp_path):
    typed = Typed(first=dict(HOSTILE), last={key: text[::-1] for key, text in HOSTILE.items()})
    path = tmp_path / "answers.toml"
    path.write_text(typed_answers_file(typed), encoding="utf-8")
    sheet = AnswerSheet.read(path)
    assert sheet.unreadable is None and sheet.unknown_ids() == []
    assert {key: sheet.answers[key] for key in HOSTILE} == {key: text[::-1] for key, text in HOSTILE.items()}
    assert dict(sheet.first_tries) == HOSTILE
    assert sheet.answers["normalized"] != "[0.848528, 1.131371]"  # the typed quote opened no second key


def test_a_lone_surrogate_is_saved_as_the_replacement_character(tmp_path):
    path = tmp_path / "answers.toml"
    path.write_text(typed_answers_file(Typed(first={"mean-square": "1\ud8002"}, last={"mean-square": "1\ud8002"})))
    assert AnswerSheet.read(path).answers["mean-square"] == "1\ufffd2"


def test_the_file_lists_every_exercise_then_the_first_tries(tmp_path):
    text = typed_answers_file(
        Typed(first={"reciprocal-rms": "0.28", "mean-square": "25"}, last={"mean-square": "12.5"})
    )
    lines = text.splitlines()
    assert lines[:4] == [
        "# My predictions, typed in the RMSNorm chapter's prediction boxes.",
        "# Grade them with:  pytest exercises --answers=answers.toml",
        'mean-square = "12.5"',
        'reciprocal-rms = ""',
    ]
    assert len(lines) == 2 + len(EXERCISES) + 8 and text.endswith(
        '\n[first-tries]\nmean-square = "25"\nreciprocal-rms = "0.28"\n\n'
        "# The exercises whose answer you asked to see before your first prediction.\n"
        "[shown-before-first-try]\n"
    )


def test_the_widget_keeps_the_first_try_shows_the_answer_and_saves_a_file_the_grader_scores(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # as the kernel of a notebook in this folder
    kept = KernelAnswers()
    box = Prediction("mean-square").widget(kept)
    field = part(box, "Text")
    field.value = "25"
    field.value = "twelve"  # unreadable: no prediction, nothing kept
    field.value = "12.5"
    assert "✓ Correct, you said 12.5" in html_of(box)
    assert "Your first try, kept for the grader: ✗ Not yet, you said 25" in html_of(box)
    answer = reference("mean-square")
    assert f"<code>{answer.answer}</code>" not in html_of(box)
    part(box, "Button", "Show the answer (and go on without a prediction)").click()
    assert f"<code>{answer.answer}</code>: {answer.message}" in html_of(box)

    other = Prediction("reciprocal-rms").widget(kept)  # a second box of the same kernel
    part(other, "Text").value = "0.282843"
    assert f"2 of {len(EXERCISES)} predictions checked, 2 right" in html_of(box)  # one tally, under every box
    part(other, "Button", "Save my answers").click()
    saved = tmp_path / "answers.toml"
    assert f"Saved 2 of {len(EXERCISES)} predictions to {saved}" in html_of(box)

    command = [sys.executable, "-m", "pytest", str(ROOT / "exercises"), "--answers", str(saved), "-q"]
    grader = subprocess.run([*command, "-p", "no:cacheprovider"], capture_output=True, text=True, cwd=ROOT)
    assert grader.stdout.strip().splitlines()[-1] == f"score: 2/{len(EXERCISES)}"
    assert "first tries, your own record: 1 of 2 right" in grader.stdout


def test_a_box_drawn_again_shows_what_its_kernel_kept():
    kept = KernelAnswers()
    part(Prediction("output-shape").widget(kept), "Text").value = "(2, 5)"
    again = Prediction("output-shape").widget(kept)
    assert part(again, "Text").value == "(2, 5)"
    assert check("output-shape", "(2, 5)").sentence in html_of(again)


def test_typed_text_never_becomes_markup_in_the_widget():
    kept = KernelAnswers()
    box = Prediction("tiny-normalized").widget(kept)
    part(box, "Text").value = "[<b>1</b>, 2]"
    part(box, "Text").value = "<script>alert(1)</script>"
    assert "<script>" not in html_of(box) and "<b>" not in html_of(box)


def test_a_chapter_box_says_how_to_go_on_and_a_review_box_does_not():
    assert GO_ON in html_of(Prediction("mean-square").widget(KernelAnswers()))
    assert GO_ON not in html_of(Prediction("mean-square", gate=False).widget(KernelAnswers()))


def test_saving_keeps_the_first_try_and_what_other_pages_saved(tmp_path):
    path = tmp_path / "answers.toml"
    save_typed(path, Typed(first={"mean-square": "25"}, last={"mean-square": "12.5"}))  # one page's kernel
    later = Typed(first={"mean-square": "13", "grad-x": "[1, 2]"}, last={"mean-square": "13", "grad-x": "[1, 2]"})
    save_typed(path, later)  # another page's kernel, or this one restarted
    sheet = AnswerSheet.read(path)
    assert sheet.answers["mean-square"] == "13" and sheet.first_tries["mean-square"] == "25"
    assert sheet.answers["grad-x"] == "[1, 2]" and sheet.first_tries["grad-x"] == "[1, 2]"


def test_saving_over_the_page_s_download_keeps_its_practice_answers(tmp_path):
    path = tmp_path / "answers.toml"
    path.write_text(
        typed_answers_file(
            Typed(first={"output": "[1, 0.5]"}, last={"output": "[1, 0.5]"}, variants={"output": {2: "7"}})
        )
    )
    save_typed(path, Typed(first={"mean-square": "12.5"}, last={"mean-square": "12.5"}))
    sheet = AnswerSheet.read(path)
    assert sheet.answers["output"] == "[1, 0.5]" and sheet.answers["variants"] == {"output": {"2": "7"}}
    assert [(exercise_id, number) for exercise_id, number, _ in sheet.variant_tries()] == [("output", 2)]


@pytest.mark.parametrize(
    "written",
    [
        "mean-square = 12.5\n",  # a number written by hand, not the text a box keeps
        'mean-squares = "12.5"\n',  # a key that names no exercise
        'mean-square = "12.5\n',  # not TOML
        "[first-tries]\nmean-square = [3, 4]\n",
        '[variants.output]\n99 = "1"\n',  # no such variant
    ],
)
def test_a_file_the_boxes_did_not_write_is_left_as_it_is(tmp_path, written):
    path = tmp_path / "answers.toml"
    path.write_text(written)
    with pytest.raises(AnswersFileError):
        save_typed(path, Typed(first={"mean-square": "12.5"}, last={"mean-square": "12.5"}))
    assert path.read_text() == written
    kept = KernelAnswers()
    kept.record("mean-square", "12.5", check("mean-square", "12.5"))
    assert kept.save(tmp_path).startswith("Not saved: ")
    assert path.read_text() == written and [p.name for p in tmp_path.iterdir()] == ["answers.toml"]


def test_the_blank_template_is_filled_in_where_it_lies(tmp_path):
    path = tmp_path / "answers.toml"
    path.write_text((ROOT / "exercises" / "answers.toml").read_text())
    save_typed(path, Typed(first={"mean-square": "12.5"}, last={"mean-square": "12.5"}))
    assert AnswerSheet.read(path).grade("mean-square").correct


def test_only_predictions_the_grader_can_read_are_kept():
    kept = KernelAnswers()
    for typed in ("", "twelve", "x" * 501):
        kept.record("mean-square", typed, check("mean-square", typed))
    assert kept.kept == {}
    kept.record("mean-square", "12.4", check("mean-square", "12.4"))
    kept.record("mean-square", "12.5", check("mean-square", "12.5"))
    kept.record("mean-square", "12.6", check("mean-square", "12.6"))
    entry = kept.kept["mean-square"]
    assert (entry.first, entry.last, entry.outcome, entry.right) == ("12.4", "12.6", Outcome.WRONG, True)


def test_an_answer_shown_before_any_prediction_is_saved_as_shown_and_the_grader_says_so(tmp_path):
    kept = KernelAnswers()
    box = Prediction("output").widget(kept)
    part(box, "Button", "Show the answer (and go on without a prediction)").click()
    part(box, "Text").value = reference("output").answer  # typed after seeing it: no first try of one's own
    kept.save(tmp_path)
    sheet = AnswerSheet.read(tmp_path / "answers.toml")
    assert sheet.shown_first == {"output"}
    assert sheet.first_try("output").word == "shown"


def test_a_name_added_to_the_saved_file_by_hand_is_kept_by_the_next_save(tmp_path):
    path = tmp_path / "answers.toml"
    save_typed(path, Typed(first={"mean-square": "25"}, last={"mean-square": "25"}))
    path.write_text('name = "Ana Pérez"\nid = "12345"\n' + path.read_text(encoding="utf-8"), encoding="utf-8")
    save_typed(path, Typed(first={"output": "[1, 2]"}, last={"output": "[1, 2]"}))
    sheet = AnswerSheet.read(path)
    assert (sheet.identity("name"), sheet.identity("id")) == ("Ana Pérez", "12345")
    assert (sheet.answers["mean-square"], sheet.answers["output"]) == ("25", "[1, 2]")
