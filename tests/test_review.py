"""The review queue: every answer and line that could not be read, with its text as typed (as text), every file not
counted or not graded, and every file whose answers are shifted by a line, in review.csv and in the summary."""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

import pytest

from classroom.__main__ import main
from hostile import ALL_RIGHT, SOLUTIONS, M, with_answer
from predict_check import answers_file
from predict_check.sheet_writer import Predictions, typed_answers_file
from rmsnorm_course.pages import COURSE

pytestmark = pytest.mark.usefixtures("in_a_folder_of_its_own")
ANSWERS = re.findall(r"^([a-z0-9-]+) = (.*)$", SOLUTIONS, re.M)  # each exercise and its reference, in order


def queue(out: str = "out") -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((Path(out) / "review.csv").read_text(encoding="utf-8-sig"))))


def shifted(start: int, count: int) -> str:
    """The reference answers with ``count`` of them, from ``start``, moved up a line: each the next one's answer."""
    lines = []
    for n, (exercise_id, answer) in enumerate(ANSWERS):
        given = ANSWERS[n + 1][1] if start <= n < start + count else answer
        lines.append(f"{exercise_id} = {given}")
    return "\n".join(lines) + "\n"


def test_every_answer_and_line_not_read_is_queued_with_its_text_as_typed(tmp_path, capsys):
    folder = tmp_path / "class"
    folder.mkdir()
    text = with_answer("mean-square", '"twelve and a half"', with_answer("plateau-value", '"=HYPERLINK(1)"', ALL_RIGHT))
    (folder / "a.toml").write_text(text, encoding="utf-8")
    b = with_answer("output-shape", "[2, 5, 3", ALL_RIGHT) + "no-such = 1\n"
    (folder / "b.toml").write_text(b, encoding="utf-8")
    assert main(["grade", str(folder), "--out", "out"]) == 0
    rows = [(row["file"], row["exercise"], row["what"], row["as typed"]) for row in queue()]
    assert rows == [
        ("a.toml", "mean-square", "answer not read", "twelve and a half"),
        ("a.toml", "plateau-value", "answer not read", "'=HYPERLINK(1)"),  # shown as text, never a formula
        ("b.toml", "output-shape", "line not read", "output-shape = [2, 5, 3"),
        ("b.toml", "", "no such exercise", ""),
    ]
    said = capsys.readouterr().out
    assert "review queue (4 in review.csv): answer not read: 2; line not read: 1; no such exercise: 1" in said
    assert "  a mean-square: answer not read 'twelve and a half': expected a number" in said


def test_answers_shifted_by_a_line_are_queued_and_the_file_needs_review(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "shifted.toml").write_text(shifted(0, 6), encoding="utf-8")
    (folder / "one-slip.toml").write_text(shifted(0, 1), encoding="utf-8")  # one answer moved: a slip, no shift
    reference = dict(ANSWERS)
    slips = with_answer("output", reference["normalized"], ALL_RIGHT)  # x-hat for the output: a slip it names
    slips = with_answer("tiny-scaled", reference["tiny-normalized"], slips)  # the unscaled row's x-hat: another
    slips = with_answer("integer-dtype", reference["half-precision-square"], slips)  # a letter: shared by chance
    (folder / "named-slips.toml").write_text(slips, encoding="utf-8")
    assert main(["grade", str(folder), "--out", "out"]) == 0
    found = {row["file"]: row for row in queue() if row["what"] == "answers shifted by a line"}
    assert list(found) == ["shifted.toml"]
    assert found["shifted.toml"]["what to do"].startswith(
        "6 answers are each the answer to the exercise beside theirs: " + ", ".join(i for i, _ in ANSWERS[:6])
    )
    rows = {row["file"]: row for row in csv.DictReader(Path("out/grades.csv").open(encoding="utf-8-sig"))}
    assert (rows["shifted.toml"]["needs review"], rows["shifted.toml"]["points"]) == ("yes", str(M - 6))
    assert rows["one-slip.toml"]["needs review"] == ""
    assert (rows["named-slips.toml"]["needs review"], rows["named-slips.toml"]["points"]) == ("", str(M - 3))


def test_every_row_that_needs_review_says_why_in_the_gradebook_s_problems(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "shifted.toml").write_text(shifted(0, 6), encoding="utf-8")
    (folder / "unread.toml").write_text(with_answer("mean-square", '"twelve and a half"', ALL_RIGHT), encoding="utf-8")
    for name in ("a.toml", "b.toml"):  # one student's two files, changed at the same time: which counts is a guess
        (folder / name).write_text('id = "7"\n' + ALL_RIGHT, encoding="utf-8")
        os.utime(folder / name, (1_700_000_000, 1_700_000_000))
    assert main(["grade", str(folder), "--out", "out"]) == 0
    rows = {row["file"]: row for row in csv.DictReader(Path("out/grades.csv").open(encoding="utf-8-sig"))}
    assert {name: row["needs review"] for name, row in rows.items()} == {
        "shifted.toml": "yes", "unread.toml": "yes", "b.toml": "yes"
    }  # fmt: skip
    assert rows["shifted.toml"]["problems"] == "answers shifted by a line: " + ", ".join(i for i, _ in ANSWERS[:6])
    assert rows["unread.toml"]["problems"] == "answers not read: mean-square"
    assert rows["b.toml"]["problems"] == (
        "cannot tell which of 2 files came last (changed within 2 seconds, as an unzip leaves them); counted b.toml"
    )


def test_a_student_who_handed_in_no_answers_file_has_a_row_that_says_so_and_is_queued(tmp_path, capsys):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "leeana_70001_678910_answers.toml").write_text(ALL_RIGHT, encoding="utf-8")
    (folder / "beckertom_69437_678901_essay.docx").write_bytes(b"PK\x03\x04 a word processor's file")
    (folder / "teacher-notes.txt").write_text("not a student's\n", encoding="utf-8")
    assert main(["grade", str(folder), "--pattern", "canvas", "--out", "out"]) == 0
    rows = {row["id"]: row for row in csv.DictReader(Path("out/grades.csv").open(encoding="utf-8-sig"))}
    assert sorted(rows) == ["69437", "70001"]
    assert (rows["69437"]["points"], rows["69437"]["percentage"], rows["69437"]["needs review"]) == ("", "", "yes")
    said = capsys.readouterr().out  # the row is in no mean, nor any exercise's count (the figure's)
    assert said.startswith(f"graded 1 student (2 files): mean {M} of {M} points (100%), {M} of {M} exercises right; "
                           "1 not graded (no answers file), in no mean\n")  # fmt: skip
    assert "\nmean-square: 1/1 right of those who answered\n" in said
    assert "beckertom_69437_678901_essay.docx is no answers file; not graded" in rows["69437"]["problems"]
    queued = {(row["file"], row["what"]) for row in queue()}
    assert queued == {("beckertom_69437_678901_essay.docx", "not graded"), ("teacher-notes.txt", "not graded")}
    stem = Path("out/feedback", rows["69437"]["feedback page"]).with_suffix("")
    for form in ("txt", "html", "md"):  # the page gives no score, as the gradebook gives none
        page = stem.with_suffix(f".{form}").read_text(encoding="utf-8")
        assert "Score: not graded: no answers file was handed in (what you handed in is no answers file)" in page
        assert " points" not in page
    long = csv.DictReader(Path("out/grades-long.csv").open(encoding="utf-8-sig"))
    long = [row for row in long if row["id"] == "69437"]
    assert len(long) == M and {(row["verdict"], row["points"]) for row in long} == {("unreadable", "")}


def test_a_blank_template_the_answer_key_and_one_file_from_two_students_are_held_for_review(tmp_path, capsys):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "blank.toml").write_text(answers_file(COURSE), encoding="utf-8")
    (folder / "key.toml").write_text(SOLUTIONS, encoding="utf-8")
    own = with_answer("mean-square", "25", ALL_RIGHT)  # the blank file typed in, one answer wrong: one's own
    edited = with_answer("mean-square", "25", SOLUTIONS)  # the key's own text with one answer changed
    (folder / "ana.toml").write_text(shifted(0, 1), encoding="utf-8")
    (folder / "ben.toml").write_text(shifted(0, 1), encoding="utf-8")  # Ana's file, byte for byte
    (folder / "own.toml").write_text(own, encoding="utf-8")
    (folder / "edited.toml").write_text(edited, encoding="utf-8")
    for name in ("cal.toml", "dee.toml"):  # right throughout in the one template: alike by themselves, no copy
        (folder / name).write_text(ALL_RIGHT, encoding="utf-8")
    assert main(["grade", str(folder), "--out", "out"]) == 0
    rows = {row["file"]: row for row in csv.DictReader(Path("out/grades.csv").open(encoding="utf-8-sig"))}
    assert {name: row["needs review"] for name, row in rows.items()} == {
        "ana.toml": "yes", "ben.toml": "yes", "blank.toml": "yes", "key.toml": "yes", "own.toml": "",
        "cal.toml": "", "dee.toml": "", "edited.toml": "yes",
    }  # fmt: skip
    assert rows["blank.toml"]["problems"] == "every answer is empty: the blank answers file, no attempt"
    assert rows["key.toml"]["problems"] == "the file is the answer key itself, as the course writes it"
    assert rows["edited.toml"]["problems"].startswith("the file starts as the answer key does")
    assert rows["ana.toml"]["problems"] == "the same file, byte for byte, as another student's: ben"
    held = {row["file"]: row["what to do"] for row in queue() if row["what"] == "needs review"}
    assert sorted(held) == ["ana.toml", "ben.toml", "blank.toml", "edited.toml", "key.toml"]
    assert held["ben.toml"] == "the same file, byte for byte, as another student's: ana; check before grading it"


def test_a_file_cut_short_needs_review_and_a_download_from_the_book_does_not(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    kept = [line for line in ALL_RIGHT.splitlines() if not line.startswith("#")]
    cut = [n for n, line in enumerate(kept) if " = " in line][5]  # cut after the fifth exercise
    (folder / "cut.toml").write_text("\n".join(kept[:cut]) + "\n", encoding="utf-8")
    two_gone = "".join(
        f"{key} = {value}\n" for key, value in ANSWERS[:-2]
    )  # two exercises left out: fewer than a quarter
    (folder / "two-gone.toml").write_text(two_gone, encoding="utf-8")
    book = typed_answers_file(COURSE, Predictions(last={ANSWERS[0][0]: "12.5"}, name="Ana"))  # one prediction made
    (folder / "book.toml").write_text(book, encoding="utf-8")
    assert main(["grade", str(folder), "--out", "out"]) == 0
    rows = {row["file"]: row for row in csv.DictReader(Path("out/grades.csv").open(encoding="utf-8-sig"))}
    assert {name: row["needs review"] for name, row in rows.items()} == {
        "cut.toml": "yes", "two-gone.toml": "", "book.toml": "",
    }  # fmt: skip
    said = f"{M - 5} exercises are missing from the file, from {ANSWERS[5][0]} on: was it cut short?"
    assert rows["cut.toml"]["problems"] == said
    held = {row["file"]: row["what to do"] for row in queue() if row["what"] == "needs review"}
    assert held == {"cut.toml": said + "; check before grading it"}
