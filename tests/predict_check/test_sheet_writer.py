"""The answers file the boxes save in a kernel: the page's download, kept across pages, read back as typed.

A learner in JupyterLab answers in the widget and presses "Save my answers"; the file
next to the notebook is the one the page's "Download my answers" writes (the byte-for-byte
comparison with the page is in browser_tests/test_predictions.py), and the grader scores it.
Saves from two kernels merge, the newer answer winning, and two at once lose nothing; a
save that fails says why, naming the file, and keeps every prediction in the kernel.
"""

from __future__ import annotations

import asyncio
import datetime
import errno
import html
import multiprocessing
import os
import re
import runpy
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from predict_check.box import ENTER_SETTLES, LAB_BOX, LAB_HOLD, LAB_OPEN, LAB_WAITING, SHOW_ANSWER, KernelAnswers
from predict_check.errors import AnswersFileError
from predict_check.sheet_reader import AnswerSheet
from predict_check.sheet_writer import MOMENT, Predictions, moment, read_typed, save_typed, typed_answers_file
from predict_check.verdicts import Outcome, reference
from rmsnorm_course import check
from rmsnorm_course.pages import COURSE, Prediction

ROOT = Path(__file__).resolve().parents[2]
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


def said(box) -> str:
    """What the box says under its Save button, as the reader reads it."""
    return html.unescape(re.sub(r"<[^>]+>", "", html_of(box)))


def type_in(box, text: str) -> None:
    """Type ``text`` in the box and press Check (the field sends its value as it is left, before the click)."""
    part(box, "Text").value = text
    part(box, "Button", "Check").click()


def right_answer(exercise_id: str) -> str:
    exercise = COURSE.exercises[exercise_id]
    return exercise.kind.toml(exercise.solve().answer).strip('"')


def as_python_runs(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``command`` (this Python, ``-m`` or ``-P -m``, a module and its arguments) run as that Python would run it
    from ``cwd``.

    The run is a forked copy of this process, the imports already made: a new interpreter
    would spend most of its time importing them again. Its output is read from its own files.
    """
    program, *options = command[: command.index("-m")]
    module, *arguments = command[command.index("-m") + 1 :]
    assert program == sys.executable and set(options) <= {"-P"}, command
    said = {name: tempfile.TemporaryFile() for name in ("stdout", "stderr")}
    child = os.fork()
    if child == 0:  # the run: nothing of it returns to the tests but its output and exit code
        code = 70
        try:
            os.chdir(cwd)
            for descriptor, name in ((1, "stdout"), (2, "stderr")):
                os.dup2(said[name].fileno(), descriptor)
                setattr(sys, name, open(descriptor, "w", encoding="utf-8", closefd=False))
            sys.argv = [module, *arguments]
            if "-P" not in options:  # as ``python -m`` sets it: the current folder first
                sys.path.insert(0, os.getcwd())
            try:
                runpy.run_module(module, run_name="__main__", alter_sys=True)
                code = 0
            except SystemExit as stopped:
                code = stopped.code if isinstance(stopped.code, int) else 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(child, 0)
    output = {}
    for name, file in said.items():
        file.seek(0)
        output[name] = file.read().decode("utf-8")
        file.close()
    return subprocess.CompletedProcess(command, os.waitstatus_to_exitcode(status), **output)


def score_line(run: subprocess.CompletedProcess) -> str:
    return run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-2000:]


def test_whatever_is_typed_is_read_back_exactly_as_typed(tmp_path):
    typed = Predictions(first=dict(HOSTILE), last={key: text[::-1] for key, text in HOSTILE.items()})
    path = tmp_path / "answers.toml"
    path.write_text(typed_answers_file(COURSE, typed), encoding="utf-8")
    sheet = AnswerSheet.read(COURSE, path)
    assert sheet.unreadable is None and sheet.unknown_ids() == []
    assert {key: sheet.answers[key] for key in HOSTILE} == {key: text[::-1] for key, text in HOSTILE.items()}
    assert dict(sheet.first_tries) == HOSTILE
    assert sheet.answers["normalized"] != "[0.848528, 1.131371]"  # the typed quote opened no second key


def test_a_lone_surrogate_is_saved_as_the_replacement_character(tmp_path):
    path = tmp_path / "answers.toml"
    path.write_text(
        typed_answers_file(COURSE, Predictions(first={"mean-square": "1\ud8002"}, last={"mean-square": "1\ud8002"}))
    )
    assert AnswerSheet.read(COURSE, path).answers["mean-square"] == "1\ufffd2"


def test_the_file_lists_every_exercise_then_the_first_tries_then_when_each_answer_was_typed(tmp_path):
    typed_at = {"mean-square": "2026-03-14T09:26:53.589Z"}
    text = typed_answers_file(
        COURSE,
        Predictions(
            first={"reciprocal-rms": "0.28", "mean-square": "25"}, last={"mean-square": "12.5"}, typed_at=typed_at
        ),
    )
    lines = text.splitlines()
    assert lines[:3] == [
        "# My predictions, typed in the prediction boxes of the RMSNorm chapter.",
        "# Grade them with:  python -m predict_check grade --course rmsnorm-course /path/to/answers.toml",
        "# where /path/to is the folder this file is in.",
    ]
    assert lines[3:5] == ['mean-square = "12.5"', 'reciprocal-rms = ""']
    assert len(lines) == 3 + len(COURSE.exercises) + 12 and text.endswith(
        '\n[first-tries]\nmean-square = "25"\nreciprocal-rms = "0.28"\n\n'
        "# The exercises whose answer you asked to see before your first prediction.\n"
        "[shown-before-first-try]\n\n"
        "# When each answer above was typed, so that saves from two pages keep the newer: not part of the score.\n"
        '[typed-at]\nmean-square = "2026-03-14T09:26:53.589Z"\n'
    )
    path = tmp_path / "answers.toml"
    path.write_text(text, encoding="utf-8")
    assert AnswerSheet.read(COURSE, path).problems() == []  # the grader ignores when an answer was typed


def test_the_file_s_own_comment_grades_it_where_it_says(tmp_path):
    """Saved anywhere (a download lands where the browser puts it), the comment's command grades the file.

    The command runs from another folder with the Python the course is installed in, as a
    learner's shell with that environment active would run it.
    """
    folder = tmp_path / "Downloads"
    folder.mkdir()
    path = folder / "answers-ana-perez-12345.toml"
    path.write_text(typed_answers_file(COURSE, Predictions(last={"mean-square": "12.5"}), path.name), encoding="utf-8")
    comment = path.read_text(encoding="utf-8").splitlines()[1]
    program, *arguments = shlex.split(comment.split(":  ", 1)[1].replace("/path/to", str(folder)))
    assert program == "python"
    run = as_python_runs([sys.executable, *arguments], cwd=tmp_path)
    assert score_line(run) == f"score: 1/{len(COURSE.exercises)}"


def test_the_widget_keeps_the_first_try_shows_the_answer_and_saves_a_file_the_grader_scores(tmp_path, monkeypatch):
    notebooks = tmp_path / "Ana's course $HOME" / "book"  # a folder a shell would split, or expand, unquoted
    notebooks.mkdir(parents=True)
    monkeypatch.chdir(notebooks)  # as the kernel of a notebook in this folder
    kept = KernelAnswers(COURSE)
    box = Prediction("mean-square").widget(kept)
    type_in(box, "25")
    type_in(box, "twelve")  # unreadable: no prediction, nothing kept
    type_in(box, "12.5")
    assert "✓ Correct, you said 12.5" in html_of(box)
    assert "Your first try, kept for the grader: ✗ Not yet, you said 25" in html_of(box)
    answer = reference(COURSE.get("mean-square"))
    assert f"<code>{answer.answer}</code>" not in html_of(box)
    part(box, "Button", "Show the answer (and go on without a prediction)").click()
    assert f"<code>{answer.answer}</code>: {answer.message}" in html_of(box)

    other = Prediction("reciprocal-rms").widget(kept)  # a second box of the same kernel
    type_in(other, "0.282843")
    # one tally, under every box: the mean square was right only at its second try
    assert f"2 of {len(COURSE.exercises)} checked, 2 right now, 1 right on the first try" in said(box)
    part(other, "Button", "Save my answers").click()
    saved = notebooks / "answers.toml"
    assert f"Saved 2 of {len(COURSE.exercises)} predictions to {saved}." in said(box)

    # the command the box prints, run as printed from another folder (a terminal opens in the server's)
    command = said(box).split("Grade it in a terminal with:  ", 1)[1].splitlines()[0]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    grader = as_python_runs(shlex.split(command), cwd=elsewhere)
    assert score_line(grader) == f"score: 2/{len(COURSE.exercises)}"
    assert "first tries, your own record: 1 of 2 right" in grader.stdout


def press_enter(box) -> None:
    """What the field sends when Enter is pressed in it: a message of its own (its value, if new, follows)."""
    part(box, "Text")._handle_custom_msg({"event": "submit"}, [])


def test_a_field_is_judged_on_enter_or_check_never_on_leaving_it():
    kept = KernelAnswers(COURSE)
    box = Prediction("reciprocal-rms").widget(kept)
    part(box, "Text").value = "0.28"  # half typed, then the reader clicks elsewhere: the field sends its value
    assert kept.kept == {} and "Not yet" not in said(box)
    part(box, "Text").value = "0.282843"
    press_enter(box)
    assert kept.kept["reciprocal-rms"].first == "0.282843" and "✓ Correct" in said(box)


def test_the_value_enter_sends_after_its_own_message_is_the_one_judged():
    """Enter's message comes first, the new value after it: in a kernel, the value that follows is judged."""

    async def typed_then_entered():
        kept = KernelAnswers(COURSE)
        box = Prediction("mean-square").widget(kept)
        press_enter(box)
        part(box, "Text").value = "12.5"  # arrives just after Enter's message
        assert kept.kept["mean-square"].first == "12.5"
        press_enter(box)  # Enter again, the text unchanged: no value follows, and it is judged a moment later
        await asyncio.sleep(ENTER_SETTLES * 2)
        part(box, "Text").value = "13"  # then left with other text: not judged
        await asyncio.sleep(ENTER_SETTLES * 2)
        return kept.kept["mean-square"]

    kept = asyncio.run(typed_then_entered())
    assert (kept.first, kept.last, kept.outcome) == ("12.5", "12.5", Outcome.CORRECT)


def test_a_kernel_s_tally_starts_from_the_file_saved_next_to_its_notebook(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = {"mean-square": "25", "reciprocal-rms": "0.282843", "normalized": "[1, 1]"}
    last = {"mean-square": "12.5", "reciprocal-rms": "0.282843", "normalized": "[1, 1]", "output": ""}
    save_typed(COURSE, tmp_path / "answers.toml", Predictions(first=first, last=last, shown=frozenset({"normalized"})))
    kept = KernelAnswers(COURSE)  # a fresh kernel, as another page opens
    assert kept.count() == f"3 of {len(COURSE.exercises)} checked, 2 right now, 1 right on the first try"
    box = Prediction("mean-square").widget(kept)
    assert part(box, "Text").value == "12.5" and "Your first try, kept for the grader: ✗ Not yet" in said(box)
    type_in(Prediction("output").widget(kept), right_answer("output"))
    assert kept.count() == f"4 of {len(COURSE.exercises)} checked, 3 right now, 2 right on the first try"


def test_a_kernel_s_tally_counts_what_other_kernels_saved_once_it_saves(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one, other = KernelAnswers(COURSE), KernelAnswers(COURSE)
    type_in(Prediction("mean-square").widget(one), "12.5")
    one.save()
    type_in(Prediction("reciprocal-rms").widget(other), "0.3")
    other.save()
    assert other.count() == f"2 of {len(COURSE.exercises)} checked, 1 right now, 1 right on the first try"


def test_a_file_the_boxes_did_not_write_gives_the_tally_nothing_and_is_left_as_it_is(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "answers.toml").write_text('mean-square = 12.5\nmy-notes = "mine"\n', encoding="utf-8")
    assert (
        KernelAnswers(COURSE).count() == f"0 of {len(COURSE.exercises)} checked, 0 right now, 0 right on the first try"
    )
    assert (tmp_path / "answers.toml").read_text(encoding="utf-8") == 'mean-square = 12.5\nmy-notes = "mine"\n'


def test_a_box_drawn_again_shows_what_its_kernel_kept():
    kept = KernelAnswers(COURSE)
    type_in(Prediction("output-shape").widget(kept), "(2, 5)")
    again = Prediction("output-shape").widget(kept)
    assert part(again, "Text").value == "(2, 5)"
    assert check("output-shape", "(2, 5)").sentence in html_of(again)


def test_typed_text_never_becomes_markup_in_the_widget():
    kept = KernelAnswers(COURSE)
    box = Prediction("tiny-normalized").widget(kept)
    type_in(box, "[<b>1</b>, 2]")
    type_in(box, "<script>alert(1)</script>")
    assert "<script>" not in html_of(box) and "<b>" not in html_of(box)


def test_a_chapter_box_carries_the_note_that_says_how_to_go_on_and_a_review_box_does_not():
    chapter = Prediction("mean-square").widget(KernelAnswers(COURSE))
    notes = [widget for widget in widgets_in(chapter) if LAB_HOLD in widget._dom_classes]
    assert [html.unescape(note.value) for note in notes] == [f"<p style='margin: 0.3em 0;'>{LAB_WAITING}</p>"]
    assert notes[0].layout.display == "none"  # the extension shows it while cells wait, and only then
    review = Prediction("mean-square", gate=False).widget(KernelAnswers(COURSE))
    assert [widget for widget in widgets_in(review) if LAB_HOLD in widget._dom_classes] == []
    assert LAB_WAITING not in html_of(review)


def opens(box) -> bool:
    """Whether the box's widget tells the JupyterLab extension that what follows it may show."""
    assert LAB_BOX in box._dom_classes
    return LAB_OPEN in box._dom_classes


def checked(box, typed: str) -> None:
    """Type in the box and press Check, as a learner does."""
    part(box, "Text").value = typed
    part(box, "Button", "Check").click()


def test_a_box_lets_the_page_go_on_once_right_or_once_its_answer_is_shown_as_the_page_does():
    kept = KernelAnswers(COURSE)
    box = Prediction("reciprocal-rms").widget(kept)
    for typed in ("0.3", "0.2828", ""):  # wrong, right so far, and nothing
        checked(box, typed)
        assert not opens(box), typed
    checked(box, right_answer("reciprocal-rms"))
    assert opens(box)
    checked(box, "0.3")  # once right, the page stays open
    assert opens(box) and opens(Prediction("reciprocal-rms").widget(kept))  # drawn again, as it was left
    assert not opens(Prediction("reciprocal-rms").widget(KernelAnswers(COURSE)))  # another kernel knows nothing

    shown = Prediction("mean-square").widget(kept)
    assert not opens(shown)
    part(shown, "Button", SHOW_ANSWER).click()
    assert opens(shown)


def test_saving_keeps_the_first_try_and_what_other_pages_saved(tmp_path):
    path = tmp_path / "answers.toml"
    save_typed(
        COURSE, path, Predictions(first={"mean-square": "25"}, last={"mean-square": "12.5"})
    )  # one page's kernel
    later = Predictions(first={"mean-square": "13", "grad-x": "[1, 2]"}, last={"mean-square": "13", "grad-x": "[1, 2]"})
    save_typed(COURSE, path, later)  # another page's kernel, or this one restarted
    sheet = AnswerSheet.read(COURSE, path)
    assert sheet.answers["mean-square"] == "13" and sheet.first_tries["mean-square"] == "25"
    assert sheet.answers["grad-x"] == "[1, 2]" and sheet.first_tries["grad-x"] == "[1, 2]"


def test_saving_over_the_page_s_download_keeps_its_practice_answers(tmp_path):
    path = tmp_path / "answers.toml"
    path.write_text(
        typed_answers_file(
            COURSE,
            Predictions(first={"output": "[1, 0.5]"}, last={"output": "[1, 0.5]"}, variants={"output": {2: "7"}}),
        )
    )
    save_typed(COURSE, path, Predictions(first={"mean-square": "12.5"}, last={"mean-square": "12.5"}))
    sheet = AnswerSheet.read(COURSE, path)
    assert sheet.answers["output"] == "[1, 0.5]" and sheet.answers["variants"] == {"output": {"2": "7"}}
    assert [(exercise_id, number) for exercise_id, number, _ in sheet.variant_tries()] == [("output", 2)]


@pytest.mark.parametrize(
    "written",
    [
        "mean-square = 12.5\n",  # a number written by hand, not the text a box keeps
        'mean-squares = "12.5"\n',  # a key that names no exercise
        'mean-square = "12.5\n',  # not TOML
        "zero-row-zero-eps = B\n",  # a letter without its quotes: read as "B", but typed by hand
        "mean-square = 12,5\n",  # a decimal comma without quotes, likewise
        "[first-tries]\nmean-square = [3, 4]\n",
        '[variants.output]\n99 = "1"\n',  # no such variant
        '[typed-at]\nmean-square = "<b>2026</b>"\n',  # no moment the boxes write
    ],
)
def test_a_file_the_boxes_did_not_write_is_left_as_it_is(tmp_path, written):
    path = tmp_path / "answers.toml"
    path.write_text(written)
    with pytest.raises(AnswersFileError):
        save_typed(COURSE, path, Predictions(first={"mean-square": "12.5"}, last={"mean-square": "12.5"}))
    assert path.read_text() == written
    kept = KernelAnswers(COURSE)
    kept.record("mean-square", "12.5", check("mean-square", "12.5"))
    assert kept.save(tmp_path).startswith("Not saved: ")
    assert path.read_text() == written and [p.name for p in tmp_path.iterdir()] == ["answers.toml"]


def test_the_blank_template_is_filled_in_where_it_lies(tmp_path):
    path = tmp_path / "answers.toml"
    path.write_text((ROOT / "exercises" / "answers.toml").read_text())
    save_typed(COURSE, path, Predictions(first={"mean-square": "12.5"}, last={"mean-square": "12.5"}))
    assert AnswerSheet.read(COURSE, path).grade("mean-square").correct


def test_only_predictions_the_grader_can_read_are_kept():
    kept = KernelAnswers(COURSE)
    for typed in ("", "twelve", "x" * 501):
        kept.record("mean-square", typed, check("mean-square", typed))
    assert kept.kept == {}
    kept.record("mean-square", "12.4", check("mean-square", "12.4"))
    kept.record("mean-square", "12.5", check("mean-square", "12.5"))
    kept.record("mean-square", "12.6", check("mean-square", "12.6"))
    entry = kept.kept["mean-square"]
    assert (entry.first, entry.first_outcome) == ("12.4", Outcome.WRONG)
    assert (entry.last, entry.outcome) == ("12.6", Outcome.WRONG)


def test_an_answer_shown_before_any_prediction_is_saved_as_shown_and_the_grader_says_so(tmp_path):
    kept = KernelAnswers(COURSE)
    box = Prediction("output").widget(kept)
    part(box, "Button", "Show the answer (and go on without a prediction)").click()
    type_in(box, reference(COURSE.get("output")).answer)  # typed after seeing it: no first try of one's own
    kept.save(tmp_path)
    sheet = AnswerSheet.read(COURSE, tmp_path / "answers.toml")
    assert sheet.shown_first == {"output"}
    assert sheet.first_try("output").word == "shown"


def test_a_name_added_to_the_saved_file_by_hand_is_kept_by_the_next_save(tmp_path):
    path = tmp_path / "answers.toml"
    save_typed(COURSE, path, Predictions(first={"mean-square": "25"}, last={"mean-square": "25"}))
    path.write_text('name = "Ana Pérez"\nid = "12345"\n' + path.read_text(encoding="utf-8"), encoding="utf-8")
    save_typed(COURSE, path, Predictions(first={"output": "[1, 2]"}, last={"output": "[1, 2]"}))
    sheet = AnswerSheet.read(COURSE, path)
    assert (sheet.identity("name"), sheet.identity("id")) == ("Ana Pérez", "12345")
    assert (sheet.answers["mean-square"], sheet.answers["output"]) == ("25", "[1, 2]")


def test_an_older_kernel_s_save_keeps_the_newer_answer_another_kernel_saved(tmp_path, monkeypatch):
    """Two pages, each its own kernel, save one file: answer by answer the newer wins, whichever kernel saves."""
    monkeypatch.chdir(tmp_path)  # the predict page's kernel and the review page's, both next to their notebooks
    predict, review = KernelAnswers(COURSE), KernelAnswers(COURSE)
    predicted = Prediction("normalized").widget(predict)
    reviewed = Prediction("normalized").widget(review)
    path = tmp_path / "answers.toml"

    type_in(predicted, "[0.6, 0.8]")
    part(predicted, "Button", "Save my answers").click()
    assert not AnswerSheet.read(COURSE, path).grade("normalized").correct
    type_in(reviewed, right_answer("normalized"))
    part(reviewed, "Button", "Save my answers").click()
    assert AnswerSheet.read(COURSE, path).grade("normalized").correct
    part(predicted, "Button", "Save my answers").click()  # its kernel still holds the older answer
    sheet = AnswerSheet.read(COURSE, path)
    assert sheet.grade("normalized").correct and sheet.problems() == []

    type_in(predicted, "[0.5, 0.5]")  # typed after: now the newer
    part(predicted, "Button", "Save my answers").click()
    assert AnswerSheet.read(COURSE, path).answers["normalized"] == "[0.5, 0.5]"
    assert AnswerSheet.read(COURSE, path).first_tries["normalized"] == "[0.6, 0.8]"


@pytest.mark.parametrize(
    ("in_the_file", "in_the_kernel", "kept"),
    [
        ("2026-03-14T09:26:53.589Z", "2026-03-14T09:26:53.590Z", "kernel"),
        ("2026-03-14T09:26:53.590Z", "2026-03-14T09:26:53.589Z", "file"),
        ("2026-03-14T09:26:53.589Z", "2025-12-31T23:59:59.999Z", "file"),
        (None, "2025-12-31T23:59:59.999Z", "kernel"),  # a file saved before answers had moments
    ],
)
def test_the_answer_typed_last_is_saved_whatever_kernel_saves(tmp_path, in_the_file, in_the_kernel, kept):
    path = tmp_path / "answers.toml"
    moments = {"mean-square": in_the_file} if in_the_file else {}
    save_typed(COURSE, path, Predictions(first={"mean-square": "25"}, last={"mean-square": "25"}, typed_at=moments))
    saved = Predictions(
        first={"mean-square": "12.5"}, last={"mean-square": "12.5"}, typed_at={"mean-square": in_the_kernel}
    )
    written = save_typed(COURSE, path, saved)
    answer, at = ("12.5", in_the_kernel) if kept == "kernel" else ("25", in_the_file)
    sheet = AnswerSheet.read(COURSE, path)
    assert (sheet.answers["mean-square"], sheet.answers["typed-at"]["mean-square"]) == (answer, at)
    assert written.last["mean-square"] == answer and sheet.first_tries["mean-square"] == "25"


def test_an_answer_stamped_later_than_now_does_not_beat_a_new_one(tmp_path):
    """A clock set wrong once (2099) must not keep that answer over every answer typed since."""
    path = tmp_path / "answers.toml"
    future = {"mean-square": "2099-01-01T00:00:00.000Z"}
    save_typed(COURSE, path, Predictions(first={"mean-square": "25"}, last={"mean-square": "25"}, typed_at=future))
    now = {"mean-square": moment()}
    save_typed(COURSE, path, Predictions(first={"mean-square": "12.5"}, last={"mean-square": "12.5"}, typed_at=now))
    sheet = AnswerSheet.read(COURSE, path)
    assert (sheet.answers["mean-square"], sheet.answers["typed-at"]["mean-square"]) == ("12.5", now["mean-square"])


def test_a_moment_is_now_as_the_page_writes_it_and_never_repeats():
    before = datetime.datetime.now(datetime.UTC) - datetime.timedelta(milliseconds=1)  # a moment drops the rest
    first = moment()
    assert before <= datetime.datetime.fromisoformat(first) <= datetime.datetime.now(datetime.UTC)
    moments = [first] + [moment() for _ in range(999)]
    assert all(MOMENT.fullmatch(at) for at in moments) and moments == sorted(set(moments))


ROUNDS = 25  # without the folder's lock nearly every round loses an answer: 25 rounds catch it


def _save_in_each_folder(barrier, folders: list[str], exercise_id: str) -> None:
    """One kernel's side: in each folder, answer one exercise and press Save at the moment the other kernel does."""
    for folder in folders:
        kept = KernelAnswers(COURSE)
        kept.record(exercise_id, right_answer(exercise_id), check(exercise_id, right_answer(exercise_id)))
        barrier.wait()
        assert kept.save(Path(folder)).startswith("Saved ")


def test_two_kernels_saving_at_once_lose_nothing(tmp_path):
    folders = [tmp_path / str(number) for number in range(ROUNDS)]
    for folder in folders:
        folder.mkdir()
    processes = multiprocessing.get_context("fork")  # copies of this process, each a kernel, no imports again
    barrier = processes.Barrier(2)
    kernels = [
        processes.Process(target=_save_in_each_folder, args=(barrier, list(map(str, folders)), exercise_id))
        for exercise_id in ("mean-square", "output")
    ]
    for kernel in kernels:
        kernel.start()
    for kernel in kernels:
        kernel.join(timeout=600)
    assert [kernel.exitcode for kernel in kernels] == [0, 0]
    lost = [
        folder.name
        for folder in folders
        if not all(
            AnswerSheet.read(COURSE, folder / "answers.toml").grade(i).correct for i in ("mean-square", "output")
        )
    ]
    assert lost == []


def test_a_saved_file_keeps_its_mode_and_a_new_one_gets_the_umask_s(tmp_path):
    kept = KernelAnswers(COURSE)
    kept.record("mean-square", "12.5", check("mean-square", "12.5"))
    path = tmp_path / "answers.toml"
    path.write_text(typed_answers_file(COURSE, Predictions()), encoding="utf-8")
    path.chmod(0o644)
    assert kept.save(tmp_path).startswith("Saved ")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    path.unlink()
    umask = os.umask(0o027)
    try:
        assert kept.save(tmp_path).startswith("Saved ")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_save_refused_says_why_naming_the_file_and_keeps_every_prediction(tmp_path, monkeypatch):
    path = tmp_path / "answers.toml"
    save_typed(COURSE, path, Predictions(first={"output": "[1, 2]"}, last={"output": "[1, 2]"}))
    before = path.read_bytes()
    kept = KernelAnswers(COURSE)
    kept.record("mean-square", "12.5", check("mean-square", "12.5"))
    real_open = os.open

    def refused(file, flags, *args, **kwargs):  # a folder where no new file can be made, as one a user may not write
        if flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), file)
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refused)
    message = kept.save(tmp_path)
    monkeypatch.undo()
    assert message.startswith(f"Not saved: cannot write {path}: {os.strerror(errno.EACCES)}. ")
    assert "still kept in this kernel" in message and message.count(str(tmp_path)) == 1  # no other file named
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["answers.toml"]
    assert kept.save(tmp_path).startswith("Saved ") and AnswerSheet.read(COURSE, path).grade("mean-square").correct


def test_a_deleted_notebook_folder_is_said_in_words_and_nothing_kept_is_lost(tmp_path, monkeypatch):
    notebooks = tmp_path / "book"
    notebooks.mkdir()
    monkeypatch.chdir(notebooks)  # the kernel's folder, next to the notebook
    kept = KernelAnswers(COURSE)
    box = Prediction("mean-square").widget(kept)
    type_in(box, "12.5")
    shutil.rmtree(notebooks)  # moved or deleted while the kernel runs
    part(box, "Button", "Save my answers").click()
    assert f"Not saved: the folder {notebooks}, where this notebook was, no longer exists" in said(box)
    assert kept.kept["mean-square"].last == "12.5"
    notebooks.mkdir()  # put back
    part(box, "Button", "Save my answers").click()
    assert f"Saved 1 of {len(COURSE.exercises)} predictions to {notebooks / 'answers.toml'}." in said(box)
    assert AnswerSheet.read(COURSE, notebooks / "answers.toml").grade("mean-square").correct


def test_a_course_no_distribution_registers_names_no_grade_command_that_would_fail(tmp_path, monkeypatch):
    monkeypatch.setattr(COURSE, "name", "not-installed")  # the grade command finds a course by its name
    kept = KernelAnswers(COURSE)
    kept.record("mean-square", "12.5", check("mean-square", "12.5"))
    assert kept.save(tmp_path) == f"Saved 1 of {len(COURSE.exercises)} predictions to {tmp_path / 'answers.toml'}."


def test_clear_my_answers_asks_first_then_forgets_every_answer_here_and_in_the_file_keeping_first_tries(
    tmp_path, monkeypatch
):
    """As the page's "Clear my answers": after a confirmation, no answer is kept; the first predictions stay."""
    monkeypatch.chdir(tmp_path)
    kept = KernelAnswers(COURSE)
    box, other = Prediction("mean-square").widget(kept), Prediction("reciprocal-rms").widget(kept)
    type_in(box, "25")
    type_in(box, "12.5")
    type_in(other, right_answer("reciprocal-rms"))
    part(box, "Button", "Save my answers").click()
    assert opens(box) and opens(other)
    part(box, "Button", "Clear my answers").click()
    assert any(read_typed(COURSE, tmp_path / "answers.toml").last.values())  # asked, not yet done
    assert "Your first predictions stay recorded as they were." in said(box)
    part(box, "Button", "No, keep them").click()
    assert kept.kept and opens(box)
    part(box, "Button", "Clear my answers").click()
    part(box, "Button", "Yes, forget them").click()
    assert f"0 of {len(COURSE.exercises)} checked" in said(box)
    assert "Cleared: no answer is kept now" in said(box)
    assert not opens(box) and not opens(other)  # what follows each box waits again
    assert part(box, "Text").value == "" and "Correct" not in said(other)
    saved = read_typed(COURSE, tmp_path / "answers.toml")
    assert not any(saved.last.values())
    assert saved.first == {"mean-square": "25", "reciprocal-rms": right_answer("reciprocal-rms")}
    type_in(box, "12.5")  # answered again: the first try is still the one before the clearing
    assert kept.kept["mean-square"].first == "25" and "Your first try, kept for the grader: ✗ Not yet" in said(box)


def test_clear_my_answers_leaves_a_file_the_boxes_did_not_write_as_it_is(tmp_path):
    path = tmp_path / "answers.toml"
    path.write_text("zero-row-zero-eps = B\n")
    kept = KernelAnswers(COURSE)
    kept.record("mean-square", "12.5", check("mean-square", "12.5"))
    said = kept.clear(tmp_path)
    assert said.startswith("Cleared in this kernel; ") and "was left as it is" in said
    assert path.read_text() == "zero-row-zero-eps = B\n" and not kept.kept
