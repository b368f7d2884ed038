"""A gradebook that adds up, opened as the teacher opens it: a spreadsheet's import, rows held in no count,
each exercise's points after the late factor, a student the export does not know said so; and the pages'
words to the student: lateness and its cost, where first tries were kept, a page for one who handed in nothing."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from classroom.__main__ import main
from hostile import ALL_RIGHT, SOLUTIONS, M, with_answer
from predict_check import answers_file
from rmsnorm_course.pages import COURSE
from submissions import excel_rows
from test_lms_export import MOODLE_HEADER, canvas_export, moodle_class, moodle_worksheet, read_csv, write_csv

pytestmark = pytest.mark.usefixtures("in_a_folder_of_its_own")


def test_every_csv_the_teacher_opens_reads_right_in_a_spreadsheet_s_import(tmp_path):
    moodle_class(tmp_path / "class")  # Ana Pérez: a name a cp1252 reading breaks
    (tmp_path / "class" / "Cy Lee_303_assignsubmission_file_" / "answers.toml").write_text(
        with_answer("mean-square", '"douze"', ALL_RIGHT), encoding="utf-8"
    )  # an answer not read: review.csv has a row
    worksheet = write_csv(tmp_path / "worksheet.csv", moodle_worksheet())
    assert main(["grade", "class", "--pattern", "moodle", "--lms-gradebook", str(worksheet), "--out", "out"]) == 0
    gradebook = excel_rows(Path("out/grades.csv").read_bytes())
    assert [row["name"] for row in gradebook] == ["Ana P\u00e9rez", "Cy Lee"]
    long = excel_rows(Path("out/grades-long.csv").read_bytes())
    assert len(long) == 2 * M and long[0]["name"] == "Ana P\u00e9rez"
    (item,) = excel_rows(Path("out/review.csv").read_bytes())
    assert (item["name"], item["exercise"], item["as typed"]) == ("Cy Lee", "mean-square", "douze")


def test_rows_held_for_review_are_in_no_exercise_s_count_nor_the_figure(tmp_path, capsys):
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "right.toml").write_text(ALL_RIGHT, encoding="utf-8")
    (tmp_path / "class" / "blank.toml").write_text(answers_file(COURSE), encoding="utf-8")  # the blank template
    (tmp_path / "class" / "key.toml").write_text(SOLUTIONS, encoding="utf-8")  # the answer key itself
    copy = with_answer("mean-square", "25", ALL_RIGHT)
    for name in ("copy-a.toml", "copy-b.toml"):  # two copies that share a wrong answer
        (tmp_path / "class" / name).write_text(copy, encoding="utf-8")
    assert main(["grade", "class", "--out", "out"]) == 0
    said = capsys.readouterr().out
    assert "; 4 held for review, in no mean nor exercise's count" in said
    assert "\nmean-square: 1/1 right of those who answered\n" in said  # 1 student counted: 4 are held
    assert "    25 (" not in said  # the copies' shared wrong answer is in no count
    from classroom import report
    from classroom.gradebook import grade_files, rows

    graded = rows(grade_files(COURSE, sorted((tmp_path / "class").iterdir())))
    assert {t.files for t in report.Run(COURSE, graded).tallies} == {1}  # the figure is drawn from these


def test_each_exercise_s_points_are_after_the_late_factor_and_add_up_to_the_row_s(tmp_path):
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "leeana_LATE_70001_678910_answers.toml").write_text(ALL_RIGHT, encoding="utf-8")
    (tmp_path / "policy.toml").write_text("[late]\nfactor = 0.8\n", encoding="utf-8")
    assert main(["grade", "class", "--pattern", "canvas", "--policy", "policy.toml", "--out", "out"]) == 0
    (row,) = excel_rows(Path("out/grades.csv").read_bytes())
    assert (row["points"], row["mean-square"]) == (f"{0.8 * M:g}", "0.8")
    assert abs(sum(float(row[exercise]) for exercise in COURSE.exercises) - float(row["points"])) < 1e-9
    long = excel_rows(Path("out/grades-long.csv").read_bytes())
    assert {entry["points"] for entry in long} == {"0.8"}


def test_a_student_the_export_does_not_know_is_said_so_never_by_canvas_s_slug(tmp_path):
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "walkersam_70009_678999_answers.toml").write_text(ALL_RIGHT, encoding="utf-8")
    export = write_csv(tmp_path / "export.csv", canvas_export())
    grade = ["grade", "class", "--pattern", "canvas", "--lms-gradebook", str(export)]
    assert main([*grade, "--column", "RMSNorm predictions", "--out", "out"]) == 0
    (row,) = excel_rows(Path("out/grades.csv").read_bytes())
    assert (row["id"], row["name"]) == ("70009", "not in the LMS's export")
    (page,) = Path("out/feedback").glob("001-*.txt")
    text = page.read_text(encoding="utf-8")  # the file's own name is said as it is; the student is not named by it
    assert page.name == "001-not-in-the-lms-s-export.txt" and "Student: not in the LMS's export (id 70009)" in text
    assert not any("walkersam" in cell for line in read_csv(Path("out/review.csv")) for cell in line[:2])


def test_moodle_s_comment_and_canvas_s_page_say_lateness_and_what_it_cost(tmp_path):
    moodle_class(tmp_path / "moodle")
    (tmp_path / "late.csv").write_text("id,late\n301,yes\n", encoding="utf-8")
    (tmp_path / "policy.toml").write_text('[late]\nfactor = 0.8\nroster = "late.csv"\n', encoding="utf-8")
    worksheet = write_csv(tmp_path / "worksheet.csv", moodle_worksheet())
    grade = ["grade", "moodle", "--pattern", "moodle", "--policy", "policy.toml", "--lms-gradebook", str(worksheet)]
    assert main([*grade, "--out", "out"]) == 0
    comment = read_csv(Path("out/moodle-grades.csv"))[1][MOODLE_HEADER.index("Feedback comments")]
    cost = f"You handed in late: your points are multiplied by 0.8, so {M} become {0.8 * M:g}, {0.2 * M:g} taken off"
    assert cost in comment
    (tmp_path / "canvas").mkdir()
    (tmp_path / "canvas" / "leeana_LATE_70001_678910_answers.toml").write_text(ALL_RIGHT, encoding="utf-8")
    assert main(["grade", "canvas", "--pattern", "canvas", "--policy", "policy.toml", "--out", "out2"]) == 0
    (page,) = zipfile.ZipFile("out2/canvas-feedback.zip").namelist()
    assert cost in " ".join(zipfile.ZipFile("out2/canvas-feedback.zip").read(page).decode().split())


def test_a_student_who_handed_in_no_answers_file_gets_a_page_in_the_zip_that_says_so(tmp_path, capsys):
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "beckertom_69437_678901_essay.docx").write_bytes(b"PK\x03\x04 a word processor's file")
    (tmp_path / "class" / "leeana_70001_678910_answers.toml").write_text(ALL_RIGHT, encoding="utf-8")
    export = write_csv(tmp_path / "export.csv", canvas_export())
    grade = ["grade", "class", "--pattern", "canvas", "--lms-gradebook", str(export), "--column", "RMSNorm predictions"]
    assert main([*grade, "--out", "out"]) == 0
    assert "held back" not in capsys.readouterr().err  # blank in the export: nothing to grade, not held for review
    archive = zipfile.ZipFile("out/canvas-feedback.zip")
    assert sorted(archive.namelist()) == ["feedback_69437_678901_becker-tom.txt", "feedback_70001_678910_lee-ana.txt"]
    assert "Score: not graded: no answers file was handed in" in archive.read(sorted(archive.namelist())[0]).decode()


def test_a_page_says_you_and_where_your_first_tries_were_kept(tmp_path):
    (tmp_path / "class").mkdir()
    first = '\n[first-tries]\nmean-square = "12.5"\n'
    (tmp_path / "class" / "a.toml").write_text(ALL_RIGHT + first, encoding="utf-8")
    assert main(["grade", "class", "--out", "out"]) == 0
    for form in ("txt", "html", "md"):
        page = " ".join(Path(f"out/feedback/001-a.{form}").read_text(encoding="utf-8").split())
        assert "the student" not in page and "their browser" not in page
        assert "your own record, kept where you typed them (your browser, or the file you saved from JupyterLab)" in (
            page.replace("\\", "")
        )
