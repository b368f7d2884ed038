"""One row per student, counted one way: a student's files grouped, the latest counting; first tries, points and
exercises said alike everywhere; the same summary whatever order the files come in.

Each class is written here, so what each row must say is known from how it was built.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import pytest

from classroom.__main__ import main
from hostile import ALL_RIGHT, M, with_answer
from predict_check import answers_file
from rmsnorm_course.pages import COURSE

pytestmark = pytest.mark.usefixtures("in_a_folder_of_its_own")


def right_answers(count: int) -> str:
    """The blank answers file with its first ``count`` reference answers typed in, the rest left blank."""
    text = ALL_RIGHT
    for exercise_id in list(COURSE.exercises)[count:]:
        text = with_answer(exercise_id, '""', text)
    return text


def write(path: Path, text: str, changed: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if changed is not None:
        os.utime(path, (changed, changed))
    return path


def gradebook(out: str = "out", name: str = "grades.csv") -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((Path(out) / name).read_text(encoding="utf-8-sig"))))


def test_a_canvas_student_s_two_files_are_one_row_the_latest_attempt_counting(tmp_path, capsys):
    draft = write(tmp_path / "class" / "beckertom_69437_678901_answers-draft.toml", right_answers(5))
    final = write(tmp_path / "class" / "beckertom_69437_678950_answers-1.toml", ALL_RIGHT)
    os.utime(draft, (2_000_000_000, 2_000_000_000))  # the draft was changed last: Canvas's own numbers decide
    write(tmp_path / "class" / "leeana_70001_678910_answers.toml", right_answers(3))
    assert main(["grade", "class", "--pattern", "canvas", "--out", "out"]) == 0
    rows = gradebook()
    assert [row["id"] for row in rows] == ["69437", "70001"]  # one row per student
    assert [(row["id"], row["points"], row["file"], row["other files"]) for row in rows] == [
        ("69437", str(M), final.name, draft.name),
        ("70001", "3", "leeana_70001_678910_answers.toml", ""),
    ]
    said = capsys.readouterr().out
    assert said.startswith(f"graded 2 students (3 files): mean {(M + 3) / 2:g} of {M} points")
    assert f"beckertom (69437): not counted: the latest file counts: {final.name}" in said


def test_a_moodle_student_s_two_files_are_one_row_the_one_changed_last_counting(tmp_path):
    folder = tmp_path / "class" / "Ana Perez_301_assignsubmission_file_"
    write(folder / "answers.toml", ALL_RIGHT, changed=1_700_000_100)
    write(folder / "old-answers.toml", right_answers(2), changed=1_700_000_000)
    assert main(["grade", "class", "--pattern", "moodle", "--out", "out"]) == 0
    (row,) = gradebook()
    assert (row["id"], row["name"], row["points"]) == ("301", "Ana Perez", str(M))
    assert row["other files"] == "Ana Perez_301_assignsubmission_file_/old-answers.toml"


def test_files_that_give_one_id_are_one_row_and_a_tie_needs_review(tmp_path):
    write(tmp_path / "class" / "a.toml", 'id = "7"\n' + right_answers(4), changed=1_700_000_000)
    write(tmp_path / "class" / "b.toml", 'id = "7"\n' + right_answers(6), changed=1_700_000_000)
    write(tmp_path / "class" / "c.toml", 'id = "8"\nname = "Ben"\n' + right_answers(1), changed=1_700_000_000)
    write(tmp_path / "class" / "d.toml", 'id = "8"\nname = "Bea"\n' + right_answers(2), changed=1_700_000_500)
    assert main(["grade", "class", "--out", "out"]) == 0
    rows = {row["id"]: row for row in gradebook()}
    assert sorted(rows) == ["7", "8"] and all(row["needs review"] == "yes" for row in rows.values())
    review = {row["id"]: row for row in gradebook(name="review.csv") if row["what"] == "which file counts?"}
    assert "cannot tell which of 2 files came last" in review["7"]["what to do"]
    assert "files of one id name 2 students: Bea, Ben" in review["8"]["what to do"]
    assert rows["8"]["points"] == "2"  # changed last


def test_files_named_only_by_their_file_names_stay_apart(tmp_path):
    write(tmp_path / "class" / "secA" / "bob.toml", right_answers(1))
    write(tmp_path / "class" / "secB" / "bob.toml", right_answers(2))
    assert main(["grade", "class", "--out", "out"]) == 0
    assert sorted(row["points"] for row in gradebook()) == ["1", "2"]  # a name made from a file's name is no one's


def test_first_tries_are_counted_one_way_in_the_summary_and_the_gradebook(tmp_path, capsys):
    first = '\n[first-tries]\nmean-square = "12.5"\nreciprocal-rms = "0.2828"\n'
    write(tmp_path / "class" / "a.toml", ALL_RIGHT + first)  # not the key's bytes: a row held is in no count
    write(tmp_path / "class" / "b.toml", ALL_RIGHT + "\n[shown-before-first-try]\nmean-square = true\n")
    write(tmp_path / "class" / "typed.toml", ALL_RIGHT)
    assert main(["grade", "class", "--out", "out"]) == 0
    rows = {row["file"]: row for row in gradebook()}
    columns = ("first tries (own record)", "first tries right (own record)", "answers shown first (own record)")
    assert [tuple(rows[name][column] for column in columns) for name in ("a.toml", "b.toml", "typed.toml")] == [
        ("2", "1", "0"),
        ("0", "0", "1"),
        ("", "", ""),  # a file that records no first try has none to count, not 0 of 0
    ]
    said = capsys.readouterr().out
    assert "mean-square: 3/3 right of those who answered; first try* right 1/1 (1 shown first)" in said
    assert "reciprocal-rms: 3/3 right of those who answered; first try* right 0/1" in said
    long = {(row["file"], row["exercise"]): row for row in gradebook(name="grades-long.csv")}
    assert long[("a.toml", "reciprocal-rms")]["first try (own record)"] == "right so far"
    assert long[("a.toml", "mean-square")]["first try (own record)"] == "right"


def test_points_and_exercises_are_named_wherever_both_appear(tmp_path, capsys):
    write(tmp_path / "policy.toml", "[points]\ndefault = 1\nmean-square = 4\n")
    write(tmp_path / "class" / "a.toml", right_answers(2))
    assert main(["grade", "class", "--policy", "policy.toml"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"score: 2/{M} exercises right, 5 of {M + 3} points  a.toml"
    assert (
        lines[1]
        == f"graded 1 student (1 file): mean 5 of {M + 3} points ({500 / (M + 3):.1f}%), 2 of {M} exercises right"
    )


def test_the_summary_is_the_same_whatever_order_the_files_come_in(tmp_path, capsys):
    answers = {"mean-square": ["13", "14", "13.0", "14.0"], "plateau-value": ["1", "1.0", "0.5", "0.25"]}
    summaries = []
    for order in (range(4), reversed(range(4))):
        folder = tmp_path / f"class-{len(summaries)}"
        for n, k in enumerate(order):
            text = ALL_RIGHT  # every line there: a file cut short is held for review, and in no exercise's count
            for key, values in answers.items():
                text = with_answer(key, values[k], text)
            write(folder / f"s{n}.toml", text)
        assert main(["grade", str(folder)]) == 0
        said = capsys.readouterr().out
        summaries.append(said[said.index("\nmean-square: ") :])
    assert summaries[0] == summaries[1]
    assert "    13 (2 students): no known slip gives this answer\n    14 (2 students)" in summaries[0]


def test_an_answer_not_read_is_in_the_long_gradebook_as_typed_and_the_file_needs_review(tmp_path):
    typed = "=1+1 twelve and a half \x1b[31m"
    write(tmp_path / "class" / "a.toml", with_answer("mean-square", f'"{typed}"'.replace("\x1b", "\\u001b")))
    assert main(["grade", "class", "--out", "out"]) == 0
    (row,) = gradebook()
    assert row["needs review"] == "yes"
    long = {r["exercise"]: r for r in gradebook(name="grades-long.csv")}
    assert long["mean-square"]["verdict"] == "unreadable"
    assert long["mean-square"]["answer as typed"] == "'=1+1 twelve and a half \\x1b[31m"  # never a formula or a control
    page = (Path("out") / "feedback" / "001-a.txt").read_text(encoding="utf-8")
    assert "Your answer: =1+1 twelve and a half \\x1b[31m\n" in page


def test_two_files_changed_within_two_seconds_are_in_no_order_and_need_review(tmp_path):
    folder = tmp_path / "class" / "Ana Perez_301_assignsubmission_file_"
    write(folder / "answers.toml", ALL_RIGHT)
    write(folder / "draft.toml", with_answer("mean-square", "25", ALL_RIGHT))
    os.utime(folder / "answers.toml", ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    os.utime(folder / "draft.toml", ns=(1_700_000_000_000_020_000, 1_700_000_000_000_020_000))  # 20 µs on: an unzip
    assert main(["grade", "class", "--pattern", "moodle", "--out", "out"]) == 0
    (row,) = gradebook()
    assert (row["needs review"], row["points"]) == ("yes", str(M - 1))  # the newer by its time, and said to be a guess
    (said,) = [row["what to do"] for row in gradebook(name="review.csv") if row["what"] == "which file counts?"]
    assert said.startswith("cannot tell which of 2 files came last (changed within 2 seconds")
    os.utime(folder / "draft.toml", (1_700_000_003, 1_700_000_003))  # three seconds on: the draft came last
    assert main(["grade", "class", "--pattern", "moodle", "--out", "out"]) == 0
    (row,) = gradebook()
    assert (row["needs review"], row["points"]) == ("", str(M - 1))


def test_an_answer_too_coarse_to_tell_from_a_slip_scores_as_not_right_and_is_said_so(tmp_path, capsys):
    """[0.849, 1.131] for x-hat reads as the answer and as x-hat at eps = 0: no half credit, and the outputs say why."""
    write(tmp_path / "policy.toml", "[credit]\nright-so-far = 0.5\n")
    write(tmp_path / "class" / "a.toml", with_answer("normalized", '"[0.849, 1.131]"', ALL_RIGHT))
    assert main(["grade", "class", "--policy", "policy.toml", "--out", "out"]) == 0
    said = capsys.readouterr().out
    group = next(line for line in said.splitlines() if line.startswith("    [0.849, 1.131]"))
    assert group.endswith(
        "too few digits to judge: it reads as the answer at the decimals given, and scores as not right"
    )
    assert gradebook()[0]["points"] == str(M - 1)
    long = {row["exercise"]: row for row in gradebook(name="grades-long.csv")}
    assert long["normalized"]["note"].startswith("too few digits to judge")


def test_a_class_whose_every_row_is_held_has_no_mean_yet(tmp_path, capsys):
    for name in ("a.toml", "b.toml"):
        write(tmp_path / "class" / name, answers_file(COURSE))  # the blank template, handed in: held for review
    assert main(["grade", "class"]) == 0
    head = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("graded "))
    assert head.startswith("graded 2 students (2 files): no mean yet, every one held for review")
