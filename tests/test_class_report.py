"""The class as an instructor reads it (summary, CSV, figure) and each student's feedback page."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from classroom.__main__ import main
from classroom.feedback import HELD_BACK, feedback_html, feedback_markdown, page_stems
from classroom.gradebook import csv_text, grade_files, long_csv_text, spreadsheet_bytes, tally
from classroom.report import OutputError, Run, refuse, summary
from hostile import ALL_RIGHT, with_answer, without
from leaks import unstated
from rmsnorm_course.pages import COURSE
from submissions import generate_class, slip, write_class

pytestmark = pytest.mark.usefixtures("in_a_folder_of_its_own")

CLASS = generate_class(40, seed=7)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return grade_files(COURSE, write_class(tmp_path_factory.mktemp("class"), CLASS))


def sections(page: str) -> dict[str, str]:
    """Exercise id -> its section of a feedback page (the id stands in brackets after the verdict)."""
    parts = re.split(r"^## \d+\. ", page, flags=re.M)[1:]
    found = {}
    for part in parts:
        head = re.search(r"^\S+ [^\n]*?\(([a-z0-9\\-]+)\)$", part, flags=re.M)
        if head:
            found[head.group(1).replace("\\", "")] = part
    return found


def unescaped(markdown: str) -> str:
    """Markdown's escapes taken out: the text as a reader sees it."""
    return re.sub(r"\\(.)", r"\1", markdown)


def test_the_summary_s_mean_is_over_the_rows_exported_and_says_how_many_are_held_for_review(tmp_path, capsys):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "all-right.toml").write_text(ALL_RIGHT, encoding="utf-8")
    (folder / "held.toml").write_text(with_answer("mean-square", '"twelve and a half"', ALL_RIGHT), encoding="utf-8")
    (folder / "one-missing.toml").write_text(without("mean-square", ALL_RIGHT), encoding="utf-8")
    assert main(["grade", str(folder)]) == 0
    (first,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("graded ")]
    total = len(COURSE.exercises)
    mean = (total + total - 1) / 2  # all right, and one not answered; the held row (M - 1) is in no mean
    assert first == (
        f"graded 3 students (3 files): mean {round(mean, 1):g} of {total} points ({round(100 * mean / total, 1):g}%), "
        f"{round(mean, 1):g} of {total} exercises right; 1 held for review, in no mean nor exercise's count"
    )


def test_the_summary_counts_every_outcome_of_those_who_answered_and_groups_the_answers(graded):
    text = summary(COURSE, graded, tally(COURSE, graded))
    settled = [s for s in CLASS if "unreadable" not in s.verdicts.values()]  # a file with one not read is held
    mean = sum(s.score for s in settled) / len(settled)
    total = len(COURSE.exercises)
    assert text.splitlines()[0] == (
        f"graded 40 students (40 files): mean {round(mean, 1):g} of {total} points "
        f"({round(100 * mean / total, 1):g}%), {round(mean, 1):g} of {total} exercises right; "
        f"{len(CLASS) - len(settled)} held for review, in no mean nor exercise's count"
    )
    for exercise_id in COURSE.exercises:
        words = [s.verdicts[exercise_id] for s in CLASS]
        right, answered = words.count("correct"), sum(word != "not answered" for word in words)
        (line,) = [line for line in text.splitlines() if line.startswith(exercise_id + ": ")]
        assert line.startswith(f"{exercise_id}: {right}/{answered} right of those who answered"), line
        if words.count("wrong"):
            assert f"{words.count('wrong')} wrong" in line
    # mean-square is 12.5: the slip (the sum of squares) answers 25, the other wrong answer 2 * 12.5 + 1, as 26.0
    slips = sum("mean-square" in s.slips for s in CLASS)
    wrong = sum(s.verdicts["mean-square"] == "wrong" for s in CLASS)
    unreadable = sum(s.verdicts["mean-square"] == "unreadable" for s in CLASS)
    block = text.split("\nmean-square: ")[1].split("\nreciprocal-rms: ")[0]
    written = slip(COURSE.exercises["mean-square"])  # 25, as the file writes it
    note = "That is the sum of the squares; the mean divides it by d."
    assert f"    {written} ({students(slips)}): {note}" in block
    assert f"    26.0 ({students(wrong - slips)}): no known slip gives this answer" in block
    assert f"    (could not be read) ({students(unreadable)})" in block


def students(count: int) -> str:
    return f"{count} student{'s' * (count != 1)}"


def test_the_summary_says_who_needs_review_and_why():
    graded = grade_files(COURSE, [Path("no/such/answers.toml")])
    text = summary(COURSE, graded, tally(COURSE, graded), items=Run(COURSE, graded).items)
    assert "review queue (1 in review.csv): file not read: 1" in text and "cannot open no/such/answers.toml" in text


def test_feedback_gives_each_verdict_and_hint_and_never_the_answer_of_an_exercise_not_right(graded):
    for file, submission in zip(graded, CLASS):
        page = feedback_markdown(file)
        head = (
            f"# Feedback on your predictions\n\nStudent: ` {submission.name.removesuffix('.toml')} `\n\n"
            f"Answers file: ` {submission.name} `\n\nScore: {submission.score} of {len(COURSE.exercises)} points"
        )
        assert page.startswith(head), page[:300]
        if set(submission.verdicts.values()) == {"unreadable"}:
            assert "Nothing in this file could be read" in page
            continue
        not_right = [i for i, word in submission.verdicts.items() if word != "correct"]
        assert unstated(page, file, not_right) == [], submission.name
        revisit = page.split("## Revisit first\n\n")[1].split("\n\n")[0].splitlines() if not_right else []
        assert (
            [line.split(". ")[0] for line in revisit]
            == [  # the first three not right, in the chapter's order
                f"- {number}"
                for number, exercise_id in enumerate(COURSE.exercises, start=1)
                if exercise_id in not_right
            ][:3]
        )
        for exercise_id, section in sections(page).items():
            exercise, word = COURSE.exercises[exercise_id], submission.verdicts[exercise_id]
            expected = {"correct": "Correct", "wrong": "Not yet", "not answered": "Your turn"}
            assert expected.get(word, "Cannot read this answer") in section.splitlines()[2]
            if word == "correct":
                explanation = exercise.solve().explanation
                assert explanation in unescaped(section) or HELD_BACK in unescaped(section)
            if word == "wrong":
                assert "Hint" in unescaped(section) or "Not quite" in unescaped(section)


def test_markup_in_an_answer_that_cannot_be_read_is_shown_back_as_text_only(tmp_path):
    typed = "<img src=x onerror=alert(1)> *bold* [link](http://x)"
    path = tmp_path / "answers.toml"
    path.write_text(f'mean-square = "{typed}"\n', encoding="utf-8")
    (file,) = grade_files(COURSE, [path])
    section = sections(feedback_markdown(file))["mean-square"]
    assert f"Your answer: ` {typed} `" in section and "got text that is not a number" in section
    assert "<img" not in re.sub(r"` .*? `", "", section)  # in a code span, and nowhere else
    page = feedback_html(file)
    assert "<code>&lt;img src=x onerror=alert(1)&gt; *bold* [link](http://x)</code>" in page and "<img" not in page


def test_feedback_pages_are_named_by_number_and_a_slug_whatever_the_files_names():
    graded = grade_files(COURSE, [Path("a/x.toml"), Path("b/x.toml"), Path("c/X.toml"), Path("José\n.toml")])
    assert page_stems(graded) == ["001-x", "002-x", "003-x", "004-jose"]


def test_no_output_may_replace_a_graded_file(tmp_path):
    (tmp_path / "class").mkdir()
    answers = tmp_path / "class" / "answers.csv"
    answers.write_text("mean-square = 12.5\n", encoding="utf-8")
    run = Run(COURSE, grade_files(COURSE, [answers]))
    with pytest.raises(OutputError, match=re.escape("holds a graded answers file, 'answers.csv'")):
        refuse(answers, run)  # the file itself
    with pytest.raises(OutputError, match=re.escape("holds a graded answers file, 'answers.csv'")):
        refuse(tmp_path / "class", run)
    (tmp_path / "out").mkdir()
    os.link(answers, tmp_path / "out" / "grades.csv")  # another name for the graded file, where a gradebook goes
    with pytest.raises(
        OutputError, match=re.escape("holds what the grade command did not write, such as 'grades.csv'")
    ):
        refuse(tmp_path / "out", run)


def test_the_grade_command_writes_the_gradebooks_the_review_queue_the_figure_and_a_page_per_file(tmp_path, capsys):
    paths = write_class(tmp_path / "in", CLASS[:5])
    assert main(["grade", *map(str, paths), "--out", "out"]) == 0
    out = capsys.readouterr().out
    graded = grade_files(COURSE, paths)
    pages = [f"{n:03d}-{p.stem}.html" for n, p in enumerate(paths, start=1)]
    assert (tmp_path / "out/grades.csv").read_bytes() == spreadsheet_bytes(csv_text(COURSE, graded, pages))
    assert (tmp_path / "out/grades-long.csv").read_bytes() == spreadsheet_bytes(long_csv_text(graded))
    assert (tmp_path / "out/grades.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "out/review.csv").read_text(encoding="utf-8-sig").startswith("id,name,file,exercise,what,")
    stems = [f"{n:03d}-{p.stem}" for n, p in enumerate(paths, start=1)] + ["index"]
    assert sorted(p.name for p in Path("out/feedback").iterdir()) == sorted(
        f"{s}.{f}" for s in stems for f in ("md", "html", "txt")
    )
    assert "wrote out: grades-long.csv, grades.csv, grades.png, review.csv, and 5 feedback pages in each form" in out
    assert not [p for p in tmp_path.rglob(".*")]  # nothing left over beside the outputs


def test_without_an_output_folder_the_command_prints_each_score_in_exercises_and_points(tmp_path, capsys):
    paths = write_class(tmp_path / "in", CLASS[:3])
    assert main(["grade", str(tmp_path / "in")]) == 0
    lines = capsys.readouterr().out.splitlines()
    m = len(COURSE.exercises)
    assert lines[:3] == [
        f"score: {s.score}/{m} exercises right, {s.score} of {m} points  {p.name}" for s, p in zip(CLASS[:3], paths)
    ]
    assert list(tmp_path.iterdir()) == [tmp_path / "in"]


def test_an_empty_folder_or_a_clash_writes_nothing_and_says_why(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["grade", str(tmp_path / "empty"), "--out", "out"]) == 1
    assert "no answer files (*.toml) in" in capsys.readouterr().err
    answers = tmp_path / "answers.csv"
    answers.write_text("mean-square = 12.5\n", encoding="utf-8")
    before = answers.read_bytes()
    assert main(["grade", str(answers), "--out", str(answers)]) == 1
    assert "nothing written: the folder answers.csv holds a graded answers file" in capsys.readouterr().err.replace(
        f"{tmp_path}/", ""
    )
    assert answers.read_bytes() == before and sorted(tmp_path.iterdir()) == [answers, tmp_path / "empty"]


@pytest.mark.usefixtures("class_figure_stand_in")
def test_an_output_folder_that_cannot_be_made_is_named(tmp_path, capsys):
    answers = tmp_path / "answers.toml"
    answers.write_text("mean-square = 12.5\n", encoding="utf-8")
    (tmp_path / "taken").write_text("a file, not a folder\n", encoding="utf-8")
    assert main(["grade", str(answers), "--out", str(tmp_path / "taken" / "grades")]) == 1
    assert f"cannot write {tmp_path / 'taken' / 'grades'}" in capsys.readouterr().err


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("holds", "says"),
    [
        ({"alice.toml": "mean-square = 12.5\n"}, "holds what the grade command did not write, such as 'alice.toml'"),
        ({"feedback/my-notes.md": "the teacher's own\n"}, "did not write, such as 'feedback/my-notes.md'"),
        ({"syllabus.txt": "week 1\n", "subs/a.toml": ""}, "holds what the grade command did not write"),
    ],
)
def test_an_output_folder_the_command_did_not_write_is_refused_and_nothing_is_written(tmp_path, capsys, holds, says):
    paths = write_class(tmp_path / "in", CLASS[:2])
    for name, text in holds.items():
        (tmp_path / "out" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "out" / name).write_text(text, encoding="utf-8")
    before = snapshot(tmp_path)
    assert main(["grade", *map(str, paths), "--out", str(tmp_path / "out")]) == 1
    assert says in capsys.readouterr().err
    assert snapshot(tmp_path) == before  # the folder, the class and everything else as they were


def test_an_output_folder_that_holds_the_files_being_graded_is_refused(tmp_path, capsys):
    paths = write_class(tmp_path / "class", CLASS[:2])
    before = snapshot(tmp_path)
    assert main(["grade", *map(str, paths), "--out", str(tmp_path / "class")]) == 1
    assert "holds a graded answers file" in capsys.readouterr().err
    assert snapshot(tmp_path) == before and all(path.exists() for path in paths)


@pytest.mark.usefixtures("class_figure_stand_in")
def test_an_output_folder_an_earlier_run_wrote_is_replaced_by_the_next(tmp_path, capsys):
    paths = write_class(tmp_path / "in", CLASS[:3])
    (tmp_path / "out").mkdir()  # an empty folder is fine too
    assert main(["grade", *map(str, paths[:3]), "--out", str(tmp_path / "out")]) == 0
    assert main(["grade", *map(str, paths[:2]), "--out", str(tmp_path / "out")]) == 0
    assert sorted(p.name for p in (tmp_path / "out" / "feedback").iterdir() if p.suffix == ".md") == sorted(
        [f"{n:03d}-{p.stem}.md" for n, p in enumerate(paths[:2], start=1)] + ["index.md"]
    )


@pytest.mark.usefixtures("class_figure_stand_in")
def test_a_folder_that_does_not_exist_is_nothing_to_grade_and_the_last_results_stay(tmp_path, capsys):
    write_class(tmp_path / "class", CLASS[:3])
    assert main(["grade", str(tmp_path / "class"), "--out", str(tmp_path / "out")]) == 0
    before = snapshot(tmp_path / "out")
    assert main(["grade", str(tmp_path / "clas"), "--out", str(tmp_path / "out")]) == 1  # a typing slip
    assert f"nothing to grade: no such file or folder as {tmp_path / 'clas'}" in capsys.readouterr().err
    assert snapshot(tmp_path / "out") == before


def test_a_feedback_page_names_the_file_as_its_student_knows_it_never_the_teacher_s_folders(tmp_path):
    folder = tmp_path / "teacher" / "term 2"
    folder.mkdir(parents=True)
    (folder / "ana.toml").write_text("mean-square = 12.5\nno-such-exercise = 1\n", encoding="utf-8")
    (folder / "ben.toml").write_text("mean-square = [1,\n", encoding="utf-8")
    for file in grade_files(COURSE, [folder / "ana.toml", folder / "ben.toml"]):
        page = feedback_markdown(file)
        assert str(tmp_path) not in page and "teacher" not in page
        assert f"` {file.path.name}" in page  # its problem still names it
        assert f"Student: ` {file.path.stem} `" in page
