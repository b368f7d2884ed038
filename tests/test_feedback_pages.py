"""Feedback that neither leaks nor starves: held back by value whatever its length, never a hint for the student's own
answer, every unanswered question kept, the teacher's note line by line, the student's real name, and only the
exercises the policy assigns."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from classroom.__main__ import main
from hostile import ALL_RIGHT, REFERENCE, SOLUTIONS, M, with_answer
from predict_check import answers_file
from rmsnorm_course.pages import COURSE

pytestmark = pytest.mark.usefixtures("in_a_folder_of_its_own")
HELD_BACK = "The reasoning is held back here"


def graded_page(tmp_path: Path, text: str, *options: str, name: str = "a.toml") -> str:
    """The plain-text page of one file graded by the command (its first page)."""
    (tmp_path / "class").mkdir(exist_ok=True)
    (tmp_path / "class" / name).write_text(text, encoding="utf-8")
    assert main(["grade", "class", "--out", "out", *options]) == 0
    return next(path for path in sorted(Path("out/feedback").glob("001-*.txt"))).read_text(encoding="utf-8")


def section(page: str, exercise_id: str) -> str:
    start = page.index(f"({exercise_id})")
    return page[start : page.find("\n\n", start)]


def test_a_short_answer_not_yet_right_is_held_back_from_another_exercise_s_reasoning(tmp_path):
    right = REFERENCE["mean-square"]  # a short number, which the reciprocal RMS's reasoning starts from
    page = graded_page(tmp_path, with_answer("mean-square", str(2 * float(right))))  # reciprocal-rms is right
    assert f" {right}" not in page
    assert HELD_BACK in section(page, "reciprocal-rms")


def test_the_hint_for_the_student_s_own_answer_is_never_held_back(tmp_path):
    text = with_answer("float16-formula-row", "[inf, inf]", with_answer("half-precision-square", '""'))
    said = section(graded_page(tmp_path, text), "float16-formula-row")  # whose answer, inf, is not yet right
    exercise = COURSE.exercises["float16-formula-row"]
    assert " ".join(said.split()).count(" ".join(exercise.nonfinite.split())) == 1 and HELD_BACK not in said
    assert "Hint: " + " ".join(exercise.hint.split()) in " ".join(said.split())


def test_every_unanswered_exercise_keeps_its_question(tmp_path):
    page = " ".join(graded_page(tmp_path, answers_file(COURSE)).split())  # the blank file: nothing answered
    assert HELD_BACK not in page
    for exercise in COURSE:
        assert " ".join(exercise.prompt.split()) in page, exercise.id


def test_the_teacher_s_note_keeps_its_lines_on_every_page(tmp_path):
    note = tmp_path / "note.txt"
    note.write_text("Well done.\nSee me on Thursday.\n\nRevisit the first item.\n", encoding="utf-8")
    page = graded_page(tmp_path, SOLUTIONS, "--note-file", str(note))
    assert "Note from your teacher:\n  Well done.\n  See me on Thursday.\n\n  Revisit the first item.\n" in page
    assert "\\n" not in page
    html = Path("out/feedback/001-a.html").read_text(encoding="utf-8")
    assert "<p>Well done.<br>See me on Thursday.</p>" in html and "<p>Revisit the first item.</p>" in html
    markdown = Path("out/feedback/001-a.md").read_text(encoding="utf-8")
    assert "` Well done. `\\\n` See me on Thursday. `\n" in markdown  # a hard line break between the lines


def test_a_name_the_file_gives_is_used_never_the_lms_slug(tmp_path):
    page = graded_page(tmp_path, 'name = "Tom Becker"\n' + SOLUTIONS, "--pattern", "canvas",
                       name="beckertom_69437_678901_answers.toml")  # fmt: skip
    assert "Student: Tom Becker (id 69437)" in page
    (row,) = csv.DictReader(Path("out/grades.csv").open(encoding="utf-8-sig"))
    assert (row["id"], row["name"]) == ("69437", "Tom Becker")


def test_pages_summary_and_gradebook_hold_only_the_exercises_the_policy_assigns(tmp_path, capsys):
    (tmp_path / "policy.toml").write_text("[points]\ndefault = 0\nmean-square = 2\nnormalized = 1\n")
    page = graded_page(tmp_path, with_answer("normalized", "[0.6, 0.8]", ALL_RIGHT), "--policy", "policy.toml")
    assert "Score: 2 of 3 points (66.7%); 1 of 2 exercises right" in page
    assert "1. The mean square (mean-square)" in page and "2. x-hat of the worked example (normalized)" in page
    assert "(reciprocal-rms)" not in page and "3. " not in page
    said = capsys.readouterr().out
    assert "\nmean-square: " in said and "\nnormalized: " in said and "\nreciprocal-rms: " not in said
    header = Path("out/grades.csv").read_text(encoding="utf-8-sig").splitlines()[0].split(",")
    assert [column for column in header if column in COURSE.exercises] == ["mean-square", "normalized"]
    assert len(COURSE.exercises) == M > 2


def test_answers_shifted_by_a_line_are_said_on_the_student_s_own_page(tmp_path):
    answers = re.findall(r"^([a-z0-9-]+) = (.*)$", SOLUTIONS, re.M)
    shifted = "".join(
        f"{key} = {answers[n + 1][1] if 3 <= n < 9 else value}\n" for n, (key, value) in enumerate(answers)
    )
    page = " ".join(graded_page(tmp_path, shifted).split())
    titles = [COURSE.exercises[key].title for key, _ in answers[3:9]]
    said = f"Your answers to \u201c{titles[0]}\u201d, \u201c{titles[1]}\u201d,"
    assert said in page
    line = f"look shifted by a line: check your file from the line of \u201c{titles[0]}\u201d ({answers[3][0]} = "
    assert line in page and "Your teacher will look at it." in page
    assert said in " ".join(Path("out/feedback/001-a.html").read_text(encoding="utf-8").split())
    assert "shifted" not in graded_page(tmp_path, with_answer("output", answers[4][1]))  # one answer moved: a slip


def test_the_teacher_s_note_stands_apart_from_what_could_not_be_read_and_three_exercises_come_first(tmp_path):
    text = with_answer("zero-row-zero-eps", '"D')  # a quote never closed: a line not read
    for exercise_id in ("mean-square", "output", "grad-x", "huge-row"):
        text = with_answer(exercise_id, '""', text)
    page = graded_page(tmp_path, text, "--note", "See me on Thursday.")
    _, rest = page.split(
        "Note from your teacher:\n  See me on Thursday.\n\nAbout your answers file:\n  - a.toml, line "
    )
    assert rest.split("\n\n")[1].splitlines() == [
        "Revisit first:", "  1. The mean square: ? Your turn", "  4. The output, after the gain: ? Your turn",
        "  19. The input's gradient: ? Your turn",
    ]  # fmt: skip
    html = Path("out/feedback/001-a.html").read_text(encoding="utf-8")
    assert html.index("See me on Thursday.") < html.index("<h2>About your answers file</h2>") < html.index("line ")
    assert html.split("<h2>Revisit first</h2>")[1].split("</ul>")[0].count("<li>") == 3


@pytest.mark.parametrize("policy", ["", "[late]\nfactor = 0.5\n"])
def test_a_file_the_lms_marks_late_is_late_on_its_row_and_its_page_and_costs_what_the_policy_says(tmp_path, policy):
    (tmp_path / "policy.toml").write_text(policy, encoding="utf-8")
    page = graded_page(tmp_path, ALL_RIGHT, "--pattern", "canvas", "--policy", "policy.toml",
                       name="leeana_LATE_70001_678910_answers.toml")  # fmt: skip
    (row,) = csv.DictReader(Path("out/grades.csv").open(encoding="utf-8-sig"))
    points = M * 0.5 if policy else M
    assert (row["late"], row["points"]) == ("yes", f"{points:g}")
    said = f"your points are multiplied by 0.5, so {M} become {points:g}, {M - points:g} taken off for lateness."
    said = said if policy else "no points are taken off for it."
    assert f"Score: {points:g} of {M} points" in page and f"You handed in late: {said}" in " ".join(page.split())


def test_an_exercise_the_policy_does_not_assign_is_named_in_one_phrase_on_page_gradebook_and_summary(tmp_path, capsys):
    (tmp_path / "policy.toml").write_text("[points]\nmean-square = 0\n", encoding="utf-8")
    text = with_answer("reciprocal-rms", "0.2", with_answer("mean-square", "25", ALL_RIGHT))  # the sum, carried on
    page = " ".join(graded_page(tmp_path, text, "--policy", "policy.toml").split())
    assert "This follows from your answer to \u201cThe mean square\u201d (not assigned, 0 points):" in page
    long = list(csv.DictReader(Path("out/grades-long.csv").open(encoding="utf-8-sig")))
    assert [row["note"] for row in long if row["exercise"] == "reciprocal-rms"] == [
        "follows from mean-square (not assigned, 0 points)"
    ]
    said = capsys.readouterr().out
    assert "\nnot assigned, 0 points: mean-square\n" in said
    assert "(1 student): follows from the slip in mean-square (not assigned, 0 points): " in said
