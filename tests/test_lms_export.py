"""The LMS round trip: Canvas's gradebook export and Moodle's offline grading worksheet filled in, ready to import,
and each student's page named and zipped as the LMS's bulk feedback upload matches it.

The exports are written here as each LMS writes them (Canvas: Student, ID, SIS User ID, SIS Login ID, Section, each
assignment as "Title (id)", a "Points Possible" row; Moodle: Identifier "Participant N", ..., Grade, Maximum Grade,
..., Feedback comments). What each cell must hold is known from how the class is built.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path

import pytest

from classroom.__main__ import main
from hostile import ALL_RIGHT, REFERENCE, SOLUTIONS, M, with_answer
from predict_check import answers_file
from rmsnorm_course.pages import COURSE

pytestmark = pytest.mark.usefixtures("in_a_folder_of_its_own")
TYPED = re.compile(r'^([a-z0-9-]+) = ""$', re.M)
THREE_RIGHT = TYPED.sub(lambda m: f"{m[1]} = {REFERENCE[m[1]]}", answers_file(COURSE), count=3)  # the rest left ""
CANVAS_HEADER = [
    "Student", "ID", "SIS User ID", "SIS Login ID", "Section", "RMSNorm predictions (4242)", "Quiz 1 (4243)",
    "Current Points", "Final Points", "Current Score", "Unposted Current Score", "Final Score", "Unposted Final Score",
]  # fmt: skip
MOODLE_HEADER = [
    "Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade", "Grade can be changed",
    "Last modified (submission)", "Last modified (grade)", "Feedback comments",
]  # fmt: skip


def canvas_export(points: str = f"{M:.2f}", twice: bool = False) -> list[list[str]]:
    only = ["(read only)"] * 6
    rows = [
        CANVAS_HEADER,
        ["    Points Possible", "", "", "", "", points, "10.00", *only],
        ["Becker, Tom", "69437", "S0101", "tbecker", "RMSNorm 101", "", "8.00", "8.00", "8.00", "80", "80", "80", "80"],
        ["Lee, Ana", "70001", "S0102", "alee", "RMSNorm 101", "", "9.00", "9.00", "9.00", "90", "90", "90", "90"],
        ["Okafor, Chloe", "70002", "S0103", "cokafor", "RMSNorm 101", "", "", "", "", "", "", "", ""],
    ]
    return rows + ([["Becker, Tom", "69437", "", "", "RMSNorm 102", "", "", "", "", "", "", "", ""]] if twice else [])


def moodle_worksheet(maximum: str = f"{M:.2f}") -> list[list[str]]:
    when = "Friday, 14 March 2025, 10:00 AM"
    return [
        MOODLE_HEADER,
        [
            "Participant 301",
            "Ana P\u00e9rez",
            "ana@example.com",
            "Submitted for grading",
            "",
            maximum,
            "Yes",
            when,
            "-",
            "",
        ],
        ["Participant 302", "Ben Ode", "ben@example.com", "No submission", "", maximum, "Yes", "-", "-", ""],
        ["Participant 303", "Cy Lee", "cy@example.com", "Submitted for grading", "", maximum, "Yes", when, "-", ""],
    ]


def write_csv(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as file:
        csv.writer(file).writerows(rows)
    return path


def read_csv(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))


def canvas_class(folder: Path) -> None:
    folder.mkdir()
    (folder / "beckertom_69437_678901_answers-draft.toml").write_text(THREE_RIGHT, encoding="utf-8")
    (folder / "beckertom_69437_678950_answers.toml").write_text('name = "Tom Becker"\n' + SOLUTIONS, encoding="utf-8")
    (folder / "okaforchloe_70002_678960_answers.toml").write_text(THREE_RIGHT, encoding="utf-8")


def moodle_class(folder: Path) -> None:
    for participant, text in (("Ana P\u00e9rez_301", ALL_RIGHT), ("Cy Lee_303", THREE_RIGHT)):
        (folder / f"{participant}_assignsubmission_file_").mkdir(parents=True)
        (folder / f"{participant}_assignsubmission_file_" / "answers.toml").write_text(text, encoding="utf-8")


def test_canvas_s_export_is_filled_for_each_graded_student_and_left_as_it_was_for_the_rest(tmp_path):
    canvas_class(tmp_path / "class")
    export = write_csv(tmp_path / "export.csv", canvas_export())
    args = ["grade", "class", "--pattern", "canvas", "--lms-gradebook", str(export), "--column", "RMSNorm predictions"]
    assert main([*args, "--out", "out"]) == 0
    filled, before = read_csv(Path("out/canvas-grades.csv")), canvas_export()
    column = CANVAS_HEADER.index("RMSNorm predictions (4242)")
    points = {"69437": str(M), "70002": "3"}
    expected = [[*row[:column], points.get(row[1], row[column]), *row[column + 1 :]] for row in before]
    assert filled == expected  # Lee handed in nothing: the cell stays blank; every other cell is as exported
    rows = {row["id"]: row for row in csv.DictReader(Path("out/grades.csv").open(encoding="utf-8-sig"))}
    assert (rows["69437"]["name"], rows["70002"]["name"]) == ("Becker, Tom", "Okafor, Chloe")  # the LMS's record
    assert rows["69437"]["problems"] == ""  # the file's own "Tom Becker": the same name


def test_a_student_in_the_export_who_handed_in_nothing_is_named_in_the_summary(tmp_path, capsys):
    canvas_class(tmp_path / "class")  # Becker and Okafor hand in files; Lee, in the export, nothing at all
    export = write_csv(tmp_path / "export.csv", canvas_export())
    assert main(["grade", "class", "--pattern", "canvas", "--lms-gradebook", str(export),
                 "--column", "RMSNorm predictions"]) == 0  # fmt: skip
    said = capsys.readouterr().out
    assert "1 student in the LMS's export handed in nothing: no row, no page, their cell left as the export had it: " \
        "Lee, Ana\n" in said  # fmt: skip


def test_the_lms_s_name_is_used_and_a_file_that_names_its_student_otherwise_is_said_not_held(tmp_path):
    canvas_class(tmp_path / "class")
    own = 'name = "Tommy B."\n' + ALL_RIGHT
    (tmp_path / "class" / "beckertom_69437_678950_answers.toml").write_text(own, encoding="utf-8")
    export = write_csv(tmp_path / "export.csv", canvas_export())
    args = ["grade", "class", "--pattern", "canvas", "--lms-gradebook", str(export), "--column", "RMSNorm predictions"]
    assert main([*args, "--out", "out"]) == 0
    rows = {row["id"]: row for row in csv.DictReader(Path("out/grades.csv").open(encoding="utf-8-sig"))}
    tom = rows["69437"]
    assert (tom["name"], tom["needs review"], tom["points"]) == ("Becker, Tom", "", str(M))
    assert rows["69437"]["problems"] == (
        "the file names its student 'Tommy B.'; the LMS's record (or the roster) names them 'Becker, Tom'"
    )


def test_moodle_s_worksheet_gets_each_grade_and_a_feedback_comment(tmp_path):
    moodle_class(tmp_path / "class")
    worksheet = write_csv(tmp_path / "worksheet.csv", moodle_worksheet())
    assert main(["grade", "class", "--pattern", "moodle", "--lms-gradebook", str(worksheet), "--out", "out"]) == 0
    filled = read_csv(Path("out/moodle-grades.csv"))
    grade, comments = MOODLE_HEADER.index("Grade"), MOODLE_HEADER.index("Feedback comments")
    assert [row[grade] for row in filled] == ["Grade", str(M), "", "3"]
    assert filled[1][comments] == (
        f"<p>You have {M} of {M} points (100%); {M} of {M} exercises right.</p><p>Every exercise is on your feedback "
        "page, attached.</p>"
    )
    share = f"{100 * 3 / M:.1f}".rstrip("0").rstrip(".")
    said = f"<p>You have 3 of {M} points ({share}%); 3 of {M} exercises right.</p><p>Revisit first: "
    assert filled[3][comments].startswith(said)
    assert filled[2][comments] == "" and [row[:grade] for row in filled] == [row[:grade] for row in moodle_worksheet()]


@pytest.mark.parametrize("lms", ["canvas", "moodle"])
def test_a_row_that_needs_review_is_held_back_from_the_filled_export_and_said_so(tmp_path, capsys, lms):
    (canvas_class if lms == "canvas" else moodle_class)(tmp_path / "class")
    unread = with_answer("mean-square", '"twelve and a half"', ALL_RIGHT)  # one answer not read: a person looks first
    where = (
        "okaforchloe_70002_678960_answers.toml" if lms == "canvas" else "Cy Lee_303_assignsubmission_file_/answers.toml"
    )
    (tmp_path / "class" / where).write_text(unread, encoding="utf-8")
    export = write_csv(tmp_path / "export.csv", canvas_export() if lms == "canvas" else moodle_worksheet())
    args = ["--lms-gradebook", str(export)] + (["--column", "RMSNorm predictions"] if lms == "canvas" else [])
    assert main(["grade", "class", "--pattern", lms, *args, "--out", "out"]) == 0
    filled = read_csv(Path(f"out/{lms}-grades.csv"))
    column = filled[0].index("RMSNorm predictions (4242)" if lms == "canvas" else "Grade")
    held = "Okafor, Chloe (70002)" if lms == "canvas" else "Cy Lee (303)"
    assert [row[column] for row in filled[1:]] == (
        [f"{M:.2f}", str(M), "", ""] if lms == "canvas" else [str(M), "", ""]
    )
    said = capsys.readouterr()
    line = f"1 student held back for review, their grade left blank in the LMS's file: {held}"
    assert f"warning: {line}" in said.err and f"\n{line}\n" in said.out


def zip_names(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_feedback_pages_are_zipped_as_each_lms_s_bulk_upload_matches_them(tmp_path, capsys):
    canvas_class(tmp_path / "canvas")
    (tmp_path / "canvas" / "by-email.toml").write_text('id = "70001"\n' + THREE_RIGHT, encoding="utf-8")
    assert main(["grade", "canvas", "--pattern", "canvas", "--out", "out-canvas"]) == 0
    said = capsys.readouterr().err
    assert "warning: 1 student (by-email (70001) first) has no page in canvas-feedback.zip: their files" in said
    pages = zip_names(Path("out-canvas/canvas-feedback.zip"))
    # Canvas takes the first two numbers between underscores: the user's id, and the id of the file handed in
    matched = {tuple(part for part in name.split("_") if part.isdigit())[:2]: data for name, data in pages.items()}
    assert sorted(matched) == [("69437", "678950"), ("70002", "678960")]  # the file that counts
    assert matched[("69437", "678950")] == Path("out-canvas/feedback/001-tom-becker.txt").read_bytes()  # any name reads
    moodle_class(tmp_path / "moodle")
    assert main(["grade", "moodle", "--pattern", "moodle", "--out", "out-moodle"]) == 0
    pages = zip_names(Path("out-moodle/moodle-feedback.zip"))
    # Moodle takes a folder's name as full name, participant, plugin type and plugin: fullname_301_assignfeedback_file_
    parts = {tuple(name.split("/")[0].split("_", 4)[1:4]): data for name, data in pages.items()}
    assert sorted(parts) == [("301", "assignfeedback", "file"), ("303", "assignfeedback", "file")]
    assert parts[("301", "assignfeedback", "file")] == Path("out-moodle/feedback/001-ana-perez.html").read_bytes()


@pytest.mark.parametrize("lms", ["canvas", "moodle"])
def test_a_row_held_for_review_has_no_page_in_the_feedback_zip_and_its_page_says_the_grade_is_provisional(
    tmp_path, capsys, lms
):
    (canvas_class if lms == "canvas" else moodle_class)(tmp_path / "class")
    where = (
        "okaforchloe_70002_678960_answers.toml" if lms == "canvas" else "Cy Lee_303_assignsubmission_file_/answers.toml"
    )
    (tmp_path / "class" / where).write_text(with_answer("mean-square", '"twelve and a half"', ALL_RIGHT))
    assert main(["grade", "class", "--pattern", lms, "--out", "out"]) == 0
    pages = zip_names(Path(f"out/{lms}-feedback.zip"))
    held, sent, stem = ("70002", "69437", "002-okaforchloe") if lms == "canvas" else ("303", "301", "002-cy-lee")
    assert [held in name for name in pages] == [False] and sent in next(iter(pages))  # only the row not held
    for form in ("txt", "html", "md"):
        page = Path(f"out/feedback/{stem}.{form}").read_text(encoding="utf-8")
        assert "provisional, held for review" in page  # the teacher's copy says so
    assert (
        "provisional"
        not in Path(f"out/feedback/001-{'tom-becker' if lms == 'canvas' else 'ana-perez'}.txt").read_text()
    )
    said = capsys.readouterr()
    who = "okaforchloe (70002)" if lms == "canvas" else "Cy Lee (303)"  # Canvas's slug: no export names her
    line = f"1 page left out of {lms}-feedback.zip, held for review (in feedback/ for you, marked provisional): {who}"
    assert f"warning: {line}" in said.err and f"\n{line}\n" in said.out


def test_an_export_that_gives_a_student_twice_is_refused_before_anything_is_written(tmp_path, capsys):
    canvas_class(tmp_path / "class")
    export = write_csv(tmp_path / "export.csv", canvas_export(twice=True))
    args = ["grade", "class", "--pattern", "canvas", "--lms-gradebook", str(export), "--column", "RMSNorm predictions"]
    assert main([*args, "--out", "out"]) == 1
    said = capsys.readouterr().err
    assert "gives the ID '69437' on lines 3 and 6; expected each student once: export the gradebook again" in said
    assert not Path("out").exists()


@pytest.mark.parametrize("lms", ["canvas", "moodle"])
def test_a_column_out_of_other_points_than_the_policy_is_refused(tmp_path, capsys, lms):
    (canvas_class if lms == "canvas" else moodle_class)(tmp_path / "class")
    export = canvas_export(points="41.00") if lms == "canvas" else moodle_worksheet(maximum="100.00")
    args = ["--lms-gradebook", str(write_csv(tmp_path / "export.csv", export))]
    args += ["--column", "RMSNorm predictions"] if lms == "canvas" else []
    assert main(["grade", "class", "--pattern", lms, *args, "--out", "out"]) == 1
    said = capsys.readouterr().err
    assert f"points in the LMS, and the policy's exercises add up to {M}; expected the same maximum" in said
    assert not Path("out").exists()


def test_a_graded_student_the_export_does_not_know_is_queued_and_a_column_must_be_named(tmp_path, capsys):
    canvas_class(tmp_path / "class")
    (tmp_path / "class" / "newstudent_80000_678999_answers.toml").write_text(SOLUTIONS, encoding="utf-8")
    export = write_csv(tmp_path / "export.csv", canvas_export())
    assert main(["grade", "class", "--pattern", "canvas", "--lms-gradebook", str(export), "--out", "out"]) == 1
    assert (
        "no --column was given; expected --column with one assignment of 'RMSNorm predictions (4242)', 'Quiz 1 (4243)'"
        in capsys.readouterr().err
    )
    args = ["--lms-gradebook", str(export), "--column", "RMSNorm predictions (4242)"]
    assert main(["grade", "class", "--pattern", "canvas", *args, "--out", "out"]) == 0
    queued = list(csv.DictReader(Path("out/review.csv").open(encoding="utf-8-sig")))
    assert [(row["id"], row["what"]) for row in queued if row["what"] == "not in the LMS's export"] == [
        ("80000", "not in the LMS's export")
    ]


def test_canvas_is_said_to_deduct_for_lateness_again_where_the_policy_does(tmp_path, capsys):
    canvas_class(tmp_path / "class")
    (tmp_path / "policy.toml").write_text("[late]\nfactor = 0.8\n", encoding="utf-8")
    export = write_csv(tmp_path / "export.csv", canvas_export())
    args = ["--lms-gradebook", str(export), "--column", "RMSNorm predictions", "--policy", "policy.toml"]
    assert main(["grade", "class", "--pattern", "canvas", *args, "--out", "out"]) == 0
    assert "warning: Canvas may deduct for lateness again on import" in capsys.readouterr().err


def test_a_row_s_points_set_by_hand_are_explained_in_moodle_s_comment_and_in_no_exercise_s_count(tmp_path, capsys):
    """An integrity case's answers are not the student's own work: counted nowhere, and the comment gives the reason."""
    moodle_class(tmp_path / "class")
    worksheet = write_csv(tmp_path / "worksheet.csv", moodle_worksheet())
    (tmp_path / "overrides.toml").write_text('["Ana P\u00e9rez"]\npoints = 0\nreason = "Case 14."\n', encoding="utf-8")
    grade = [
        "grade",
        "class",
        "--pattern",
        "moodle",
        "--lms-gradebook",
        str(worksheet),
        "--overrides",
        "overrides.toml",
    ]
    assert main([*grade, "--out", "out"]) == 0
    filled = read_csv(Path("out/moodle-grades.csv"))
    comment = filled[1][MOODLE_HEADER.index("Feedback comments")]
    assert comment.startswith(f"<p>You have 0 of {M} points (0%); {M} of {M} exercises right.</p>")
    assert "<p>Your score was set by your teacher: Case 14.</p>" in comment
    said = capsys.readouterr().out
    assert "\nmean-square: 1/1 right" in said  # Cy Lee's alone: Ana's reference answers are in no count
