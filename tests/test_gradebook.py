"""A class graded in one run: rows that match the scores known by construction, and a tally per exercise."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from classroom.__main__ import main
from classroom.files import answer_files
from classroom.gradebook import csv_text, grade_files, header, long_csv_text, tally
from hostile import HOSTILE, M
from predict_check.verdicts import Outcome
from rmsnorm_course.pages import COURSE
from submissions import generate_class, write_class

CLASS = generate_class(300)


def read_csv(text: str) -> dict[str, dict[str, str]]:
    """File name -> its row, from gradebook CSV text."""
    rows = list(csv.DictReader(io.StringIO(text)))
    return {Path(row["file"]).name: row for row in rows}


def verdict_words(text: str) -> dict[str, dict[str, str]]:
    """File name -> exercise id -> verdict word, from the long gradebook's CSV text."""
    words: dict[str, dict[str, str]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        words.setdefault(Path(row["file"]).name, {})[row["exercise"]] = row["verdict"]
    return words


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """The generated class, written to a folder and graded in one run of ``python -m classroom grade``."""
    root = tmp_path_factory.mktemp("class")
    paths = write_class(root / "submissions", CLASS)
    before = {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in paths}
    status = main(["grade", str(root / "submissions"), "--out", str(root / "out")])
    after = {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in paths}
    long = (root / "out" / "grades-long.csv").read_text(encoding="utf-8-sig")
    return status, (root / "out" / "grades.csv").read_text(encoding="utf-8-sig"), before == after, long


def test_the_generated_class_has_every_kind_of_answer():
    words = {word for submission in CLASS for word in submission.verdicts.values()}
    assert words == {"correct", "wrong", "not answered", "unreadable"}
    assert len({submission.score for submission in CLASS}) > 10
    assert sum(submission.score == 0 for submission in CLASS) >= 6  # the files hostile whole


@pytest.mark.end_to_end
def test_a_class_of_300_files_is_graded_in_one_run_to_its_known_scores(graded_class):
    status, text, unchanged, long = graded_class
    assert status == 0 and unchanged
    rows, words = read_csv(text), verdict_words(long)
    assert list(rows) == [submission.name for submission in CLASS] == list(words)
    for submission in CLASS:
        row = rows[submission.name]
        assert int(row["points"]) == submission.score == int(row["exercises correct"]), submission.name
        assert row["maximum points"] == str(M) and float(row["percentage"]) == pytest.approx(
            100 * submission.score / M, abs=0.05
        )
        assert words[submission.name] == submission.verdicts, submission.name
        points = {exercise_id: row[exercise_id] for exercise_id in COURSE.exercises}
        assert points == {i: "1" if word == "correct" else "0" for i, word in submission.verdicts.items()}


@pytest.mark.end_to_end
def test_a_file_refused_whole_says_why_in_its_row_and_the_rest_are_graded(graded_class):
    _, text, _, _ = graded_class
    rows = read_csv(text)
    troubled = {name for name, row in rows.items() if row["problems"]}
    refused = {s.name for s in CLASS if set(s.verdicts.values()) == {"unreadable"}}
    unread = {  # a file read whole with answers it could not read says which, as a row needing review does
        s.name: [i for i, word in s.verdicts.items() if word == "unreadable"]
        for s in CLASS
        if s.name not in refused and "unreadable" in s.verdicts.values()
    }
    assert troubled == refused | set(unread) and len(refused) == 6
    assert {name: rows[name]["problems"] for name in unread} == {
        name: f"answers not read: {', '.join(ids)}" for name, ids in unread.items()
    }
    assert "nests arrays 500 deep" in rows["student-016.toml"]["problems"]
    assert sum(int(row["points"]) > 0 for row in rows.values()) == len(CLASS) - len(refused)


@pytest.mark.end_to_end
def test_the_csv_has_a_column_per_exercise_in_the_registry_s_order(graded_class):
    _, text, _, _ = graded_class
    columns = text.splitlines()[0].split(",")
    assert columns[:5] == ["id", "name", "points", "maximum points", "percentage"]
    assert columns[columns.index("mean-square") : columns.index("mean-square") + M] == list(COURSE.exercises)
    assert columns[-5:] == ["file", "other files", "feedback page", "problems", "answer key"]
    assert tuple(columns) == header(list(COURSE.exercises))


def test_the_tally_counts_each_outcome_and_names_the_most_common_slip(tmp_path):
    answers = {"a": "25", "b": "25", "c": "14", "d": '""', "e": "12.5", "f": '"12.5"', "g": '"twelve"', "h": "12.0"}
    paths = []
    for name, value in answers.items():
        paths.append(tmp_path / f"{name}.toml")
        paths[-1].write_text(f"mean-square = {value}\n", encoding="utf-8")
    (mean_square, reciprocal, *_) = tally(COURSE, grade_files(COURSE, paths))
    assert mean_square.counts == {
        Outcome.CORRECT: 2,
        Outcome.CLOSE: 0,  # 12.5 is exact: no shorter answer is right so far
        Outcome.WRONG: 4,
        Outcome.NOT_ANSWERED: 1,
        Outcome.UNREADABLE: 1,
    }
    commonest = mean_square.groups[0]
    assert (commonest.shown, commonest.count, commonest.outcome) == ("25", 2, Outcome.WRONG)
    assert commonest.note == "That is the sum of the squares; the mean divides it by d."
    assert mean_square.share(Outcome.CORRECT) == pytest.approx(2 / 8)
    assert reciprocal.counts[Outcome.NOT_ANSWERED] == 8 and reciprocal.groups == ()


def test_a_wrong_answer_that_no_slip_explains_has_no_note(tmp_path):
    path = tmp_path / "a.toml"
    path.write_text("mean-square = 13\n", encoding="utf-8")
    (mean_square, *_) = tally(COURSE, grade_files(COURSE, [path]))
    assert [(group.shown, group.note) for group in mean_square.groups] == [("13", None)]


def test_a_folder_stands_for_the_entries_whose_names_hold_toml_and_the_rest_get_a_word(tmp_path):
    for name in ("b.toml", "a.toml", "notes.txt", "BOB.TOML", "carol.toml.txt", "dave.toml "):
        (tmp_path / name).write_text("", encoding="utf-8")
    (tmp_path / "nested.toml").mkdir()  # a folder is read one level down: this one holds nothing
    (tmp_path / "Ana_7_assignsubmission_file_").mkdir()
    (tmp_path / "Ana_7_assignsubmission_file_" / "answers.toml").write_text("", encoding="utf-8")
    found = answer_files([tmp_path, tmp_path / "missing.toml", tmp_path / "notes.txt", tmp_path / "a.toml"])
    names = [
        "Ana_7_assignsubmission_file_/answers.toml",
        "BOB.TOML",
        "a.toml",
        "b.toml",
        "carol.toml.txt",
        "dave.toml ",
    ]
    assert found.paths == [tmp_path / n for n in names] + [tmp_path / "missing.toml", tmp_path / "notes.txt"]
    assert [source.label for source in found.sources][:2] == ["Ana_7_assignsubmission_file_/answers.toml", "BOB.TOML"]
    assert any("1 entry whose name holds no .toml, such as 'notes.txt'" in word for word in found.passed_over)
    assert any(word.endswith("a.toml again; graded once") for word in found.passed_over)  # named twice: one row
    assert f"{tmp_path / 'nested.toml'} holds no answers file (*.toml); nothing in it was graded" in found.passed_over


def test_a_missing_file_is_a_row_that_says_so(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text("mean-square = 12.5\n", encoding="utf-8")
    graded = grade_files(COURSE, [tmp_path / "gone.toml", good])
    rows = read_csv(csv_text(COURSE, graded))
    assert rows["gone.toml"]["points"] == "0" and "cannot open" in rows["gone.toml"]["problems"]
    assert rows["good.toml"]["points"] == "1" and rows["good.toml"]["mean-square"] == "1"
    assert verdict_words(long_csv_text(graded))["good.toml"]["mean-square"] == "correct"


def test_every_hostile_file_is_a_row_with_its_score(tmp_path):
    paths = []
    for hostile in HOSTILE:
        paths.append(tmp_path / f"{hostile.name}.toml")
        paths[-1].write_bytes(hostile.content)
    rows = read_csv(csv_text(COURSE, grade_files(COURSE, paths)))
    assert {name: int(row["points"]) for name, row in rows.items()} == {f"{h.name}.toml": h.score for h in HOSTILE}


def test_a_cell_that_looks_like_a_formula_is_shown_not_evaluated(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("=HYPERLINK(1).toml").write_text('"=1+1" = 2\n', encoding="utf-8")
    (row,) = csv.DictReader(io.StringIO(csv_text(COURSE, grade_files(COURSE, ["=HYPERLINK(1).toml"]))))
    assert row["file"] == "'=HYPERLINK(1).toml"
    assert row["problems"].startswith("'=HYPERLINK(1).toml, line 1: there is no exercise '=1+1'")
