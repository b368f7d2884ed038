"""Regrades: overrides.toml sets one student's exercise to a verdict or to points, with a reason on their page."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path

import pytest

from classroom.__main__ import main
from hostile import ALL_RIGHT, M, with_answer
from test_lms_export import CANVAS_HEADER, canvas_export, read_csv, write_csv

pytestmark = pytest.mark.usefixtures("in_a_folder_of_its_own")
REGRADE = "Regrade: <b>117</b> is the angle asked."


def rows(name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((Path("out") / name).read_text(encoding="utf-8-sig"))))


@pytest.fixture
def folder(tmp_path) -> Path:
    (tmp_path / "class").mkdir()
    ana = 'id = "301"\n' + with_answer("circle-image", '"a hundred and seventeen"')
    (tmp_path / "class" / "ana.toml").write_text(ana, encoding="utf-8")
    (tmp_path / "class" / "ben.toml").write_text('name = "Ben Ode"\n' + with_answer("mean-square", "25"))
    return tmp_path / "class"


def test_an_override_sets_a_verdict_or_points_with_the_reason_on_the_page_and_settles_the_review(folder, tmp_path):
    (tmp_path / "overrides.toml").write_text(
        f'[301.circle-image]\nverdict = "correct"\nreason = "{REGRADE}"\n'
        '["Ben Ode".mean-square]\npoints = 0.5\nreason = "Half a point: the sum, not the mean."\n',
        encoding="utf-8",
    )
    assert main(["grade", str(folder), "--overrides", "overrides.toml", "--out", "out"]) == 0
    gradebook = {row["file"]: row for row in rows("grades.csv")}
    assert (gradebook["ana.toml"]["points"], gradebook["ana.toml"]["circle-image"]) == (str(M), "1")
    assert (gradebook["ben.toml"]["points"], gradebook["ben.toml"]["mean-square"]) == (str(M - 0.5), "0.5")
    assert gradebook["ana.toml"]["needs review"] == ""  # the override settled it, and the queue says so
    assert [(row["exercise"], row["what"], row["what to do"]) for row in rows("review.csv")] == [
        ("circle-image", "answer not read", "settled by the override of circle-image: " + REGRADE)
    ]
    long = {(row["file"], row["exercise"]): row for row in rows("grades-long.csv")}
    assert long[("ana.toml", "circle-image")]["verdict"] == "correct"
    assert long[("ana.toml", "circle-image")]["note"] == "set by the teacher: Regrade: <b>117</b> is the angle asked."
    page = Path("out/feedback/001-ana.html").read_text(encoding="utf-8")
    assert "Set by your teacher: Regrade: &lt;b&gt;117&lt;/b&gt; is the angle asked." in page
    text = Path("out/feedback/002-ben-ode.txt").read_text(encoding="utf-8")
    assert "Set by your teacher: Half a point: the sum, not the mean." in text


def test_settled_releases_a_row_held_for_review_with_the_reason_in_the_gradebook_and_the_queue(folder, tmp_path):
    assert main(["grade", str(folder), "--out", "before"]) == 0
    held = list(csv.DictReader(io.StringIO(Path("before/grades.csv").read_text(encoding="utf-8-sig"))))
    assert [row["needs review"] for row in held] == ["yes", ""]  # Ana's answer could not be read
    (tmp_path / "overrides.toml").write_text(
        '[301]\nsettled = "Looked: words, not a number; =no points."\n'
        '["Ben Ode".mean-square]\npoints = 0.5\nreason = "Half a point."\n',
        encoding="utf-8",
    )
    assert main(["grade", str(folder), "--overrides", "overrides.toml", "--out", "out"]) == 0
    gradebook = {row["file"]: row for row in rows("grades.csv")}
    ana = gradebook["ana.toml"]
    assert (ana["needs review"], ana["points"], ana["circle-image"]) == ("", str(M - 1), "0")
    assert ana["problems"] == "answers not read: circle-image | settled: Looked: words, not a number; =no points."
    assert gradebook["ben.toml"]["mean-square"] == "0.5"  # an exercise's override works beside it
    assert [(row["what"], row["what to do"]) for row in rows("review.csv")] == [
        ("answer not read", "settled: Looked: words, not a number; =no points.")
    ]
    assert "provisional" not in Path("out/feedback/001-ana.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("overrides", "says"),
    [
        (
            '[302.mean-square]\nverdict = "correct"\nreason = "x"\n',
            "the overrides name no student '302'; did you mean '301'?",
        ),
        ('[301.mean-sqare]\nverdict = "correct"\nreason = "x"\n', "there is no exercise 'mean-sqare'; did you mean"),
        ('[301.mean-square]\npoints = 2\nreason = "x"\n', "points must be a number from 0 to 1, the exercise's points"),
        ('[301.mean-square]\nverdict = "excellent"\nreason = "x"\n', "verdict must be one of correct, right so far"),
        ('[301.mean-square]\nverdict = "correct"\n', "expected a reason in quotes"),
        ("[301]\nsettled = 1\n", '[301]: expected settled = "the reason", in quotes'),
        ('[301]\nsettled = "x"\nmean-square = 1\n', "'301' must hold tables like [301.mean-square]"),
    ],
)
def test_an_override_that_cannot_be_applied_is_refused_and_nothing_is_written(
    folder, tmp_path, capsys, overrides, says
):
    (tmp_path / "overrides.toml").write_text(overrides, encoding="utf-8")
    assert main(["grade", str(folder), "--overrides", "overrides.toml", "--out", "out"]) == 1
    assert re.search(re.escape(says), capsys.readouterr().err)
    assert not Path("out").exists()


def canvas_folder(tmp_path: Path, text: str) -> tuple[Path, Path]:
    """Ana Lee's file as Canvas names it, and Canvas's export that knows her (SIS login ``alee``)."""
    folder = tmp_path / "canvas"
    folder.mkdir()
    (folder / "leeana_70001_678910_answers.toml").write_text(text, encoding="utf-8")
    return folder, write_csv(tmp_path / "export.csv", canvas_export())


# a quote never closed and a list never closed: lines not read (an unquoted B or 0,282843 is read as its text)
LINES_NOT_READ = with_answer("eps-near-zero", '"B', with_answer("reciprocal-rms", "[0.282843", ALL_RIGHT))


def test_an_exercise_s_override_settles_a_line_not_read_and_releases_the_row_in_one_pass(tmp_path):
    folder, export = canvas_folder(tmp_path, LINES_NOT_READ)
    (tmp_path / "overrides.toml").write_text(
        '[70001.reciprocal-rms]\nverdict = "correct"\nreason = "[0.282843 is the reciprocal RMS."\n'
        '["alee".eps-near-zero]\nverdict = "correct"\nreason = "B, quote unclosed: right."\n',  # her SIS login
        encoding="utf-8",
    )
    grade = ["grade", str(folder), "--pattern", "canvas", "--lms-gradebook", str(export), "--column"]
    assert main([*grade, "RMSNorm predictions", "--overrides", "overrides.toml", "--out", "out"]) == 0
    (row,) = rows("grades.csv")
    assert (row["needs review"], row["points"]) == ("", str(M))
    queued = [(item["exercise"], item["what"], item["what to do"]) for item in rows("review.csv")]
    BY = "settled by the override of "
    assert queued == [
        ("reciprocal-rms", "line not read", f"{BY}reciprocal-rms: [0.282843 is the reciprocal RMS."),
        ("eps-near-zero", "line not read", f"{BY}eps-near-zero: B, quote unclosed: right."),
    ]
    filled = {line[1]: line for line in read_csv(Path("out/canvas-grades.csv"))}
    assert filled["70001"][CANVAS_HEADER.index("RMSNorm predictions (4242)")] == str(M)
    assert zipfile.ZipFile("out/canvas-feedback.zip").namelist() == ["feedback_70001_678910_lee-ana.txt"]


def test_settled_on_a_row_that_needs_no_review_is_a_warning(tmp_path, capsys):
    folder, _ = canvas_folder(tmp_path, ALL_RIGHT)
    (tmp_path / "overrides.toml").write_text('[70001]\nsettled = "Looked."\n', encoding="utf-8")
    assert main(["grade", str(folder), "--pattern", "canvas", "--overrides", "overrides.toml", "--out", "out"]) == 0
    assert "warning: settled is given where no review is needed (leeana (70001)): is it the student" in (
        capsys.readouterr().err
    )


def test_a_row_s_points_set_by_hand_release_it_with_the_reason_in_the_gradebook_the_queue_and_the_page(tmp_path):
    folder, export = canvas_folder(tmp_path, LINES_NOT_READ)
    (tmp_path / "overrides.toml").write_text(
        '["alee"]\npoints = 0\nreason = "An edited copy of the key: integrity case 14."\n', encoding="utf-8"
    )
    grade = ["grade", str(folder), "--pattern", "canvas", "--lms-gradebook", str(export), "--column"]
    assert main([*grade, "RMSNorm predictions", "--overrides", "overrides.toml", "--out", "out"]) == 0
    (row,) = rows("grades.csv")
    assert (row["needs review"], row["points"], row["percentage"]) == ("", "0", "0")
    said = "settled by the row's points set by hand (0): An edited copy of the key: integrity case 14."
    assert row["problems"].endswith(said)
    assert {item["what to do"] for item in rows("review.csv")} == {said}
    page = " ".join(Path("out/feedback/001-lee-ana.txt").read_text(encoding="utf-8").split())
    assert f"Score: 0 of {M} points (0%)" in page
    assert "Your score was set by your teacher: An edited copy of the key: integrity case 14." in page


def test_two_tables_that_name_one_student_by_id_and_by_name_are_merged(tmp_path):
    (tmp_path / "class").mkdir()
    text = with_answer("grad-x", "[0.4, -0.3]", with_answer("mean-square", "25", ALL_RIGHT))  # two wrong answers
    (tmp_path / "class" / "jose.toml").write_text('id = "102"\nname = "Jose Perez"\n' + text, encoding="utf-8")
    (tmp_path / "overrides.toml").write_text(
        '[102.mean-square]\nverdict = "correct"\nreason = "Regrade."\n'
        '["Jose Perez".grad-x]\npoints = 0\nreason = "No credit: fewer decimals than asked."\n',
        encoding="utf-8",
    )
    assert main(["grade", "class", "--overrides", "overrides.toml", "--out", "out"]) == 0
    (row,) = rows("grades.csv")
    assert (row["points"], row["mean-square"], row["grad-x"]) == (str(M - 1), "1", "0")  # both applied: 41 of 42


def test_two_tables_that_set_one_student_s_exercise_two_ways_are_refused(tmp_path, capsys):
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "jose.toml").write_text('id = "102"\nname = "Jose Perez"\n' + ALL_RIGHT, encoding="utf-8")
    (tmp_path / "overrides.toml").write_text(
        '[102.grad-x]\npoints = 1\nreason = "a"\n["Jose Perez".grad-x]\npoints = 0\nreason = "b"\n', encoding="utf-8"
    )
    assert main(["grade", "class", "--overrides", "overrides.toml", "--out", "out"]) == 1
    said = "the overrides name one student twice, as '102' and 'Jose Perez', and set grad-x two ways; expected it set"
    assert said in capsys.readouterr().err and not Path("out").exists()
