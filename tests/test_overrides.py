"""Regrades: overrides.toml sets one student's exercise to a verdict or to points, with a reason on their page."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from classroom.__main__ import main
from hostile import M, with_answer

pytestmark = pytest.mark.usefixtures("in_a_folder_of_its_own")


def rows(name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((Path("out") / name).read_text(encoding="utf-8"))))


@pytest.fixture
def folder(tmp_path) -> Path:
    (tmp_path / "class").mkdir()
    ana = 'id = "301"\n' + with_answer("circle-image", '"a hundred and seventeen"')
    (tmp_path / "class" / "ana.toml").write_text(ana, encoding="utf-8")
    (tmp_path / "class" / "ben.toml").write_text('name = "Ben Ode"\n' + with_answer("mean-square", "25"))
    return tmp_path / "class"


def test_an_override_sets_a_verdict_or_points_with_the_reason_on_the_page_and_settles_the_review(folder, tmp_path):
    (tmp_path / "overrides.toml").write_text(
        '[301.circle-image]\nverdict = "correct"\nreason = "Regrade: <b>117</b> is the angle asked."\n'
        '["Ben Ode".mean-square]\npoints = 0.5\nreason = "Half a point: the sum, not the mean."\n',
        encoding="utf-8",
    )
    assert main(["grade", str(folder), "--overrides", "overrides.toml", "--out", "out"]) == 0
    gradebook = {row["file"]: row for row in rows("grades.csv")}
    assert (gradebook["ana.toml"]["points"], gradebook["ana.toml"]["circle-image"]) == (str(M), "1")
    assert (gradebook["ben.toml"]["points"], gradebook["ben.toml"]["mean-square"]) == (str(M - 0.5), "0.5")
    assert gradebook["ana.toml"]["needs review"] == "" and rows("review.csv") == []  # the override settled it
    long = {(row["file"], row["exercise"]): row for row in rows("grades-long.csv")}
    assert long[("ana.toml", "circle-image")]["verdict"] == "correct"
    assert long[("ana.toml", "circle-image")]["note"] == "set by the teacher: Regrade: <b>117</b> is the angle asked."
    page = Path("out/feedback/001-ana.html").read_text(encoding="utf-8")
    assert "Set by your teacher: Regrade: &lt;b&gt;117&lt;/b&gt; is the angle asked." in page
    text = Path("out/feedback/002-ben-ode.txt").read_text(encoding="utf-8")
    assert "Set by your teacher: Half a point: the sum, not the mean." in text


def test_settled_releases_a_row_held_for_review_with_the_reason_in_the_gradebook_and_the_queue(folder, tmp_path):
    assert main(["grade", str(folder), "--out", "before"]) == 0
    held = list(csv.DictReader(io.StringIO(Path("before/grades.csv").read_text(encoding="utf-8"))))
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
