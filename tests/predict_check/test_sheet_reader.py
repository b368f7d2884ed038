"""Answer files: the template, the reference answers, and reading a student's file as data."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from predict_check.errors import AnswersFileError, GradingError
from predict_check.kinds import Place
from predict_check.sheet_reader import AnswerSheet
from predict_check.sheet_writer import answers_file
from predict_check.verdicts import Outcome
from rmsnorm_course import RMSNormError
from rmsnorm_course.__main__ import main
from rmsnorm_course.pages import COURSE

SHIPPED = Path(__file__).resolve().parents[2] / "exercises" / "answers.toml"


def write(tmp_path: Path, text: str, name: str = "answers.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_shipped_template_is_the_generated_one():
    """Questions, options and ids match the registry; answers a student filled in are set aside."""
    shipped = SHIPPED.read_text(encoding="utf-8")
    blanked = re.sub(rf"^({'|'.join(map(re.escape, COURSE.exercises))}) = .*$", r'\1 = ""', shipped, flags=re.M)
    assert blanked == answers_file(COURSE), "run make boxes"


def test_the_template_lists_every_exercise_unanswered_with_its_prompt():
    text = answers_file(COURSE)
    assert tomllib.loads(text) == dict.fromkeys(COURSE.exercises, "")
    for exercise in COURSE.exercises.values():
        assert f"# {exercise.prompt[:40]}" in text


def test_the_template_shows_the_options_of_every_choice():
    assert "#   D) an error naming the row" in answers_file(COURSE)


def test_the_solutions_file_is_all_correct(tmp_path):
    sheet = AnswerSheet.read(COURSE, write(tmp_path, answers_file(COURSE, solutions=True)))
    assert [sheet.grade(i).outcome for i in COURSE.exercises] == [Outcome.CORRECT] * len(COURSE.exercises)


def test_the_solutions_file_holds_the_seed_values():
    answers = tomllib.loads(answers_file(COURSE, solutions=True))
    assert answers["mean-square"] == 12.5
    assert answers["grad-x"] == [0.407293, -0.30547]
    assert answers["gain-gradient-shape"] == [3]
    assert answers["zero-row-zero-eps"] == "B"  # the formula's NaN, 0 / 0 (the seed asked the package's refusal)


def test_python_m_rmsnorm_course_solutions_prints_the_solutions_file(capsys):
    assert main(["solutions"]) == 0
    assert capsys.readouterr().out == answers_file(COURSE, solutions=True)
    assert main(["template"]) == 0
    assert capsys.readouterr().out == answers_file(COURSE)


def test_an_unknown_command_is_refused(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["answers"])
    assert stopped.value.code == 2
    assert "invalid choice: 'answers'" in capsys.readouterr().err


def test_a_malformed_line_is_listed_with_its_fix_and_every_other_line_is_graded(tmp_path):
    path = write(tmp_path, 'mean-square = 12.5\nnormalized =\noutput = ""\n')
    sheet = AnswerSheet.read(COURSE, path)
    assert sheet.unreadable is None and sheet.needs_review
    assert sheet.grade("mean-square").correct
    assert (
        sheet.grade("normalized").message
        == 'line 2 could not be read: write your answer after "=", or "" to leave it blank.'
    )
    assert sheet.problems() == [
        f'{path}, line 2: write your answer after "=", or "" to leave it blank; write it as  normalized = ""'
    ]
    assert issubclass(AnswersFileError, GradingError) and not issubclass(AnswersFileError, RMSNormError)
    assert AnswersFileError.boundary == "answers-file"


def test_an_answer_without_its_quotes_is_graded_as_the_same_text_in_quotes(tmp_path):
    """Quoting changes nothing: an unquoted letter, number or decimal comma is judged as the quoted text is."""
    bare = "eps-near-zero = B\nhalf-precision-square = 255\nreciprocal-rms = 0,282843\noutput = [1,272792, 0,565685]\n"
    quoted = re.sub(r"= (.*)$", lambda m: f"= '{m[1]}'", bare, flags=re.M)
    sheets = [AnswerSheet.read(COURSE, write(tmp_path, text, name)) for text, name in ((bare, "a"), (quoted, "b"))]
    for exercise_id in ("eps-near-zero", "half-precision-square", "reciprocal-rms", "output"):
        unquoted, quoted_verdict = (sheet.grade(exercise_id) for sheet in sheets)
        assert (unquoted.outcome, unquoted.message) == (quoted_verdict.outcome, quoted_verdict.message), exercise_id
    bare_sheet = sheets[0]
    assert not bare_sheet.problems()  # no line is left unread
    assert bare_sheet.grade("eps-near-zero").correct and bare_sheet.grade("half-precision-square").correct
    assert "decimal comma" in bare_sheet.grade("reciprocal-rms").message
    assert "decimal commas" in bare_sheet.grade("output").message  # TOML reads four whole numbers; they were two


def test_a_missing_file_or_one_that_is_not_text_says_so(tmp_path):
    assert "cannot open" in AnswerSheet.read(COURSE, tmp_path / "nowhere.toml").unreadable
    binary = tmp_path / "answers.toml"
    binary.write_bytes(b"mean-square = \x81\xff\n")  # 0x81 is a character neither in UTF-8 nor in Windows-1252
    assert AnswerSheet.read(COURSE, binary).unreadable.endswith(
        "is not text: byte 0x81 on line 1 is not UTF-8, and byte 0x81 is no character in Windows-1252 either; "
        "expected a TOML file saved as UTF-8"
    )


def test_a_file_refused_whole_grades_nothing(tmp_path):
    sheet = AnswerSheet.read(COURSE, write(tmp_path, "mean-square = " + "[" * 40 + "]" * 40 + "\n"))
    verdict = sheet.grade("mean-square")
    assert verdict.outcome is Outcome.UNREADABLE and "not graded" in sheet.explain(verdict)
    assert "(line 1)" in sheet.explain(verdict)


def test_unknown_ids_are_named_with_their_line_and_the_nearest_id(tmp_path):
    sheet = AnswerSheet.read(COURSE, write(tmp_path, 'mean-sqare = 12.5\noutput = ""\n[notes]\ntext = "hi"\n'))
    problems = sheet.unknown_ids()
    assert len(problems) == 2
    assert "line 1: there is no exercise 'mean-sqare'; did you mean 'mean-square'?" in problems[0]
    assert "line 3: there is no exercise 'notes'" in problems[1]


def test_explain_names_the_id_and_line_without_the_expected_value(tmp_path):
    text = 'mean-square = 13\nreciprocal-rms = "twelve"\noutput = ""\ngrad-x = {a = 1}\n'
    sheet = AnswerSheet.read(COURSE, write(tmp_path, text))
    wrong, unreadable = sheet.explain(sheet.grade("mean-square")), sheet.explain(sheet.grade("reciprocal-rms"))
    assert wrong.startswith("mean-square (line 1): ✗ Not yet, you said 13: Hint:") and "12.5" not in wrong
    assert unreadable == (
        "reciprocal-rms (line 2): ✗ Cannot read this answer: "
        "expected a number, like 0.5; got text that is not a number."
    )
    assert sheet.explain(sheet.grade("output")).startswith("output (line 3): not answered.")
    grad_x = sheet.explain(sheet.grade("grad-x"))
    assert grad_x.startswith("grad-x (line 4): ✗ Cannot read this answer: expected a list")
    assert sheet.explain(sheet.grade("grad-gain")).startswith("grad-gain: not answered.")


def test_reading_and_grading_never_change_the_file(tmp_path):
    path = write(tmp_path, answers_file(COURSE, solutions=True))
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    sheet = AnswerSheet.read(COURSE, path)
    for exercise_id in COURSE.exercises:
        sheet.explain(sheet.grade(exercise_id))
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_the_template_asks_a_picture_box_for_the_number_to_type_and_never_for_a_marker():
    """Someone typing the file has no figure: each picture box's line says what the number measures."""
    text = answers_file(COURSE)
    places = [exercise for exercise in COURSE.exercises.values() if isinstance(exercise.kind, Place)]
    assert places
    for exercise in places:
        entry = text[: text.index(f"\n{exercise.id} = ")].rsplit("\n\n", 1)[1]
        heading = entry.split("\n", 1)[0]
        assert "marker" not in heading and heading.endswith(f"{exercise.id}: {exercise.kind.typed()}")
        label = exercise.kind.axis.label.replace(" (log scale)", "")
        assert label in heading and "type the number" in entry
