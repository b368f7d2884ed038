"""The class as an instructor reads it (summary, CSV, figure) and each student's feedback page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from leaks import expected_renderings
from submissions import generate_class, slip, write_class

from rmsnorm_course.__main__ import main
from rmsnorm_course.exercises.gradebook import csv_text, grade_files, tally
from rmsnorm_course.exercises.registry import EXERCISES
from rmsnorm_course.views.class_report import OutputError, feedback_markdown, feedback_names, outputs, summary

CLASS = generate_class(40, seed=7)


@pytest.fixture(autouse=True)
def in_a_folder_of_its_own(tmp_path, monkeypatch):
    """Relative outputs land in the test's own folder."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return grade_files(write_class(tmp_path_factory.mktemp("class"), CLASS))


def sections(page: str) -> dict[str, str]:
    """Exercise id -> its section of a feedback page."""
    parts = re.split(r"^## \d+\. ", page, flags=re.M)[1:]
    return {re.match(r"[a-z0-9-]+", part).group(): part for part in parts}


def test_the_summary_counts_right_answers_and_names_the_most_common_slip(graded):
    text = summary(graded, tally(graded))
    mean = sum(s.score for s in CLASS) / len(CLASS)
    assert text.splitlines()[0] == f"graded 40 answer files: mean score {mean:.1f}/{len(EXERCISES)}"
    for exercise_id in EXERCISES:
        right = sum(s.verdicts[exercise_id] == "correct" for s in CLASS)
        (line,) = [line for line in text.splitlines() if line.startswith(exercise_id + " ")]
        assert re.search(rf"\s{right}/40\s", line), line
    # mean-square is 12.5: the slip (the sum of squares) answers 25, the other wrong answer 2 * 12.5 + 1, as 26.0
    slips = sum("mean-square" in s.slips for s in CLASS)
    wrong = [s for s in CLASS if s.verdicts["mean-square"] == "wrong"]
    others = len(wrong) - slips
    (line,) = [line for line in text.splitlines() if line.startswith("mean-square ")]
    if slips > others or (slips == others and "mean-square" in wrong[0].slips):  # a tie goes to the first file
        written = slip(EXERCISES["mean-square"])  # 25, as the file writes it
        assert f"  {written} ({slips} files): That is the sum of the squares; the mean divides it by d." in line
    else:
        assert f"  26.0 ({others} files): no known slip gives this answer" in line


def test_the_summary_names_each_file_refused_whole():
    graded = grade_files([Path("no/such/answers.toml")])
    text = summary(graded, tally(graded))
    assert "1 with problems" in text and "cannot open no/such/answers.toml" in text


def test_feedback_gives_each_verdict_and_hint_and_never_a_wrong_one_s_answer(graded):
    for file, submission in zip(graded, CLASS):
        page = feedback_markdown(file)
        head = f"# Feedback on your predictions\n\nAnswers file: ` {submission.name} `\n\nScore: {submission.score}/"
        assert page.startswith(head + f"{len(EXERCISES)}\n")
        if set(submission.verdicts.values()) == {"unreadable"}:
            assert "Nothing in this file was graded" in page
            continue
        for exercise_id, section in sections(page).items():
            exercise, word = EXERCISES[exercise_id], submission.verdicts[exercise_id]
            assert {"correct": "Correct", "wrong": "Not yet", "not answered": "Your turn"}.get(
                word, "Cannot read this answer"
            ) in section.splitlines()[2]
            if word == "correct":
                assert exercise.solve().explanation in re.sub(r"\\(.)", r"\1", section)  # as Markdown shows it
                continue
            for rendering in expected_renderings(exercise):
                assert rendering not in section, (submission.name, exercise_id, rendering)
            if word == "wrong":
                assert "Hint: " in re.sub(r"\\(.)", r"\1", section)  # as Markdown shows it


def test_markup_in_an_answer_is_escaped(tmp_path):
    path = tmp_path / "answers.toml"
    path.write_text('mean-square = "<img src=x onerror=alert(1)> *bold* [link](http://x)"\n', encoding="utf-8")
    (file,) = grade_files([path])
    section = sections(feedback_markdown(file))["mean-square"]
    assert "img" not in section and "bold" not in section and "link" not in section  # never shown back at all
    assert "got text that is not a number" in section


def test_feedback_names_are_unique_per_file():
    graded = grade_files([Path("a/x.toml"), Path("b/x.toml"), Path("c/x.toml"), Path("y.toml")])
    assert feedback_names(graded) == ["x.md", "x-2.md", "x-3.md", "y.md"]


def test_no_output_may_replace_a_graded_file(tmp_path):
    answers = tmp_path / "answers.csv"
    answers.write_text("mean-square = 12.5\n", encoding="utf-8")
    graded = grade_files([answers])
    with pytest.raises(OutputError, match="would replace a graded answers file"):
        outputs(graded, answers, None)
    with pytest.raises(OutputError, match=r"does not end in \.csv"):
        outputs(graded, tmp_path / "grades.txt", None)
    md = tmp_path / "answers.md"
    md.write_text("mean-square = 12.5\n", encoding="utf-8")
    with pytest.raises(OutputError, match="would replace a graded answers file"):
        outputs(grade_files([md]), None, tmp_path)


def test_the_grade_command_writes_the_csv_the_figure_and_a_page_per_file(tmp_path, capsys):
    paths = write_class(tmp_path / "in", CLASS[:5])
    status = main(["grade", *map(str, paths), "--gradebook", str(tmp_path / "out/g.csv"), "--feedback", "fb"])
    assert status == 0
    out = capsys.readouterr().out
    assert (tmp_path / "out/g.csv").read_text(encoding="utf-8") == csv_text(grade_files(paths))
    assert (tmp_path / "out/g.png").read_bytes().startswith(b"\x89PNG")
    assert sorted(p.name for p in Path("fb").iterdir()) == [p.with_suffix(".md").name for p in paths]
    assert f"wrote {tmp_path / 'out/g.csv'} and the figure {tmp_path / 'out/g.png'}" in out
    assert "wrote 5 feedback pages in fb" in out


def test_without_a_gradebook_the_command_prints_each_score(tmp_path, capsys):
    paths = write_class(tmp_path / "in", CLASS[:3])
    assert main(["grade", str(tmp_path / "in")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == [f"score: {s.score}/{len(EXERCISES)}  {p}" for s, p in zip(CLASS[:3], paths)]
    assert list(tmp_path.iterdir()) == [tmp_path / "in"]


def test_an_empty_folder_or_a_clash_writes_nothing_and_says_why(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["grade", str(tmp_path / "empty"), "--gradebook", "g.csv"]) == 1
    assert "no answer files (*.toml) in" in capsys.readouterr().err
    answers = tmp_path / "answers.csv"
    answers.write_text("mean-square = 12.5\n", encoding="utf-8")
    before = answers.read_bytes()
    assert main(["grade", str(answers), "--gradebook", str(answers)]) == 1
    assert "nothing written: writing" in capsys.readouterr().err
    assert answers.read_bytes() == before and not (tmp_path / "answers.png").exists()


def test_an_output_folder_that_cannot_be_made_is_named(tmp_path, capsys):
    answers = tmp_path / "answers.toml"
    answers.write_text("mean-square = 12.5\n", encoding="utf-8")
    (tmp_path / "taken").write_text("a file, not a folder\n", encoding="utf-8")
    assert main(["grade", str(answers), "--gradebook", str(tmp_path / "taken" / "grades.csv")]) == 1
    assert f"cannot write {tmp_path / 'taken'}" in capsys.readouterr().err


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("holds", "says"),
    [
        ({"alice.toml": "mean-square = 12.5\n"}, "holds what the grade command did not write, such as 'alice.toml'"),
        ({"my-notes.md": "the teacher's own notes\n"}, "holds what the grade command did not write"),
        ({"syllabus.txt": "week 1\n", "subs/a.toml": ""}, "holds what the grade command did not write"),
    ],
)
def test_a_feedback_folder_the_command_did_not_write_is_refused_and_nothing_is_written(tmp_path, capsys, holds, says):
    paths = write_class(tmp_path / "in", CLASS[:2])
    for name, text in holds.items():
        (tmp_path / "fb" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "fb" / name).write_text(text, encoding="utf-8")
    before = snapshot(tmp_path)
    args = ["grade", *map(str, paths), "--gradebook", str(tmp_path / "g.csv"), "--feedback", str(tmp_path / "fb")]
    assert main(args) == 1
    assert says in capsys.readouterr().err
    assert snapshot(tmp_path) == before  # the folder, the class and everything else as they were; no gradebook


def test_a_feedback_folder_that_holds_the_files_being_graded_is_refused(tmp_path, capsys):
    paths = write_class(tmp_path / "class", CLASS[:2])
    before = snapshot(tmp_path)
    assert main(["grade", str(tmp_path / "class"), "--feedback", str(tmp_path / "class")]) == 1
    assert "holds a graded answers file" in capsys.readouterr().err
    assert snapshot(tmp_path) == before and all(path.exists() for path in paths)


def test_a_feedback_folder_an_earlier_run_wrote_is_replaced_by_the_next(tmp_path, capsys):
    paths = write_class(tmp_path / "in", CLASS[:3])
    (tmp_path / "fb").mkdir()  # an empty folder is fine too
    assert main(["grade", *map(str, paths[:3]), "--feedback", str(tmp_path / "fb")]) == 0
    assert main(["grade", *map(str, paths[:2]), "--feedback", str(tmp_path / "fb")]) == 0
    assert sorted(p.name for p in (tmp_path / "fb").iterdir() if p.suffix == ".md") == sorted(
        p.with_suffix(".md").name for p in paths[:2]
    )


def test_a_folder_that_does_not_exist_is_nothing_to_grade_and_the_last_results_stay(tmp_path, capsys):
    write_class(tmp_path / "class", CLASS[:3])
    outputs_args = ["--gradebook", str(tmp_path / "out/g.csv"), "--feedback", str(tmp_path / "out/fb")]
    assert main(["grade", str(tmp_path / "class"), *outputs_args]) == 0
    before = snapshot(tmp_path / "out")
    assert main(["grade", str(tmp_path / "clas"), *outputs_args]) == 1  # a typing slip
    assert f"nothing to grade: no such file or folder as {tmp_path / 'clas'}" in capsys.readouterr().err
    assert snapshot(tmp_path / "out") == before


def test_a_feedback_page_names_the_file_as_its_student_knows_it_never_the_teacher_s_folders(tmp_path):
    folder = tmp_path / "teacher" / "term 2"
    folder.mkdir(parents=True)
    (folder / "ana.toml").write_text("mean-square = 12.5\nno-such-exercise = 1\n", encoding="utf-8")
    (folder / "ben.toml").write_text("mean-square = [1,\n", encoding="utf-8")
    for file in grade_files([folder / "ana.toml", folder / "ben.toml"]):
        page = feedback_markdown(file)
        assert str(tmp_path) not in page and "teacher" not in page
        assert f"` {file.path.name}" in page  # its problem still names it
