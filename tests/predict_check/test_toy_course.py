"""The engine with a course of its own: it declares, judges, keeps, reads and grades without the RMSNorm course."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from toy import TOY, path, register

from classroom.__main__ import main as classroom_main
from predict_check import GradingError, Outcome, load_course
from predict_check import __main__ as engine
from predict_check.key import key_of
from predict_check.sheet_reader import AnswerSheet
from predict_check.sheet_writer import answers_file
from predict_check.verdicts import checker

check = checker(TOY)


def test_answers_are_judged_by_the_toy_course_s_own_solvers():
    assert check("double", "7").correct  # 2 * 3.5
    assert check("double", "12.25").outcome is Outcome.WRONG and "squares" in check("double", "12.25").message
    assert check("pair", "[1.5, 2.5]").correct
    assert check("letter", "A").correct and check("letter", "b").outcome is Outcome.WRONG


def test_its_answers_file_is_graded_and_its_key_kept_in_its_own_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(TOY.cache_variable, str(tmp_path / "kept"))
    monkeypatch.setattr(key_of(TOY), "solved", {})
    blank = answers_file(TOY)
    assert blank.count('= ""') == 3 and "the toy course" in blank
    filled = tmp_path / "answers.toml"
    filled.write_text(blank.replace('double = ""', "double = 7").replace('letter = ""', 'letter = "C"'))
    sheet = AnswerSheet.read(TOY, filled)
    outcomes = [sheet.grade(exercise_id).outcome for exercise_id in TOY.exercises]
    assert outcomes == [Outcome.CORRECT, Outcome.NOT_ANSWERED, Outcome.WRONG]
    assert [path.name.split("-")[:2] for path in (tmp_path / "kept").iterdir()] == [["answer", "key"]]


def test_the_engine_runs_a_course_without_importing_any_other():
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from toy import TOY; from predict_check.verdicts import checker; "
        "assert checker(TOY)('double', '7').correct; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'rmsnorm_course', 'classroom'}))"
    )
    run = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


# --- the toy course installed beside the RMSNorm course, and found by name -------------------------


@pytest.fixture
def registered(tmp_path, monkeypatch):
    """The toy course registered as a second installed course, its answer key kept in ``tmp_path``."""
    folder = register(tmp_path / "installed")
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setenv(TOY.cache_variable, str(tmp_path / "kept"))
    return folder


def test_an_installed_course_is_found_by_its_name_and_none_is_picked_for_you(registered):
    assert load_course("toy-course") is TOY
    with pytest.raises(GradingError, match=r"no course was named; expected one of .*rmsnorm-course, toy-course"):
        load_course()


def test_its_blank_file_says_to_grade_it_as_the_toy_course_grades_its_files(registered, capsys):
    assert engine.main(["template", "--course", "toy-course"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "# Predict, then check: your answers to the exercises of the toy course."
    grading = lines.index("# Grade this file with:")
    assert lines[grading + 1 : grading + 3] == [
        "#     python -m pytest toy-grader --answers=/path/to/answers.toml",
        "# where /path/to is the folder this file is in.",
    ]
    assert [line for line in lines if not line.startswith("#") and line] == ['double = ""', 'pair = ""', 'letter = ""']
    assert not [line for line in lines if "make grade" in line or "exercises" in line.split("course")[-1]]


def test_its_reference_answers_are_its_solvers_answers(registered, capsys):
    assert engine.main(["solutions", "--course", "toy-course"]) == 0
    assert tomllib.loads(capsys.readouterr().out) == {"double": 7.0, "pair": [1.5, 2.5], "letter": "A"}


def test_a_course_that_is_not_installed_is_named_visibly_with_those_that_are(registered, capsys):
    assert engine.main(["template", "--course", "toy\x1b[2J"]) == 1
    said = capsys.readouterr()
    assert said.out == "" and "\x1b" not in said.err
    assert "there is no course 'toy\\x1b[2J'" in said.err and "rmsnorm-course, toy-course" in said.err


def test_python_m_predict_check_prints_the_template_of_the_course_it_is_given(tmp_path):
    environment = dict(os.environ, PYTHONPATH=path(register(tmp_path)), TOY_COURSE_CACHE="off")
    line = [sys.executable, "-P", "-m", "predict_check", "template", "--course", "toy-course"]
    run = subprocess.run(line, capture_output=True, text=True, env=environment, cwd=tmp_path, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("# Predict, then check: your answers to the exercises of the toy course.\n")


def answers(folder: Path, name: str, double: str, pair: str, letter: str) -> Path:
    """One student's file, typed into the toy course's blank file."""
    filled = answers_file(TOY).replace('double = ""', f"double = {double}").replace('pair = ""', f"pair = {pair}")
    path = folder / f"{name}.toml"
    path.write_text(f'name = "{name}"\n' + filled.replace('letter = ""', f"letter = {letter}"), encoding="utf-8")
    return path


TOY_CONFTEST = """\
from pathlib import Path

from predict_check.pytest_plugin import hooks
from toy import TOY

pytest_addoption, pytest_configure, grader, score_in_junit = hooks(TOY, Path(__file__).parent / "answers.toml")
"""
TOY_TEST = (
    "from predict_check.pytest_plugin import answer_test\nfrom toy import TOY\n\ntest_answer = answer_test(TOY)\n"
)


def test_pytest_grades_a_file_of_the_toy_course_with_the_engine_s_plugin(registered, pytester):
    grading = pytester.mkdir("toy-grader")  # the toy course's grading folder: two small files, as a course's own
    (grading / "conftest.py").write_text(TOY_CONFTEST, encoding="utf-8")
    (grading / "test_answers.py").write_text(TOY_TEST, encoding="utf-8")
    (grading / "answers.toml").write_text(answers_file(TOY), encoding="utf-8")
    ana = answers(pytester.path, "ana", "7", '""', '"C"')
    result = pytester.runpytest_inprocess(str(grading), f"--answers={ana}", "-p", "no:hypothesispytest")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.stdout.lines[-1] == "score: 1/3"
    result.stdout.fnmatch_lines(["NOT ANSWERED *test_answer?pair?*", "WRONG *test_answer?letter?*"], consecutive=False)
    assert pytester.runpytest_inprocess(str(grading), "-p", "no:hypothesispytest").stdout.lines[-1] == "score: 0/3"


def test_the_class_grader_grades_a_class_of_the_toy_course_by_its_name(registered, tmp_path, capsys):
    handed_in = tmp_path / "handed-in"
    handed_in.mkdir()
    answers(handed_in, "ana", "7", "[1.5, 2.5]", '"a"')
    answers(handed_in, "ben", "12.25", "[1.5, 2.5]", '"b"')
    grades = tmp_path / "grades"
    assert classroom_main(["grade", "--course", "toy-course", "--out", str(grades), "--", str(handed_in)]) == 0
    rows = {row["name"]: row for row in csv.DictReader((grades / "grades.csv").open(encoding="utf-8-sig"))}
    assert {name: (row["points"], row["maximum points"]) for name, row in rows.items()} == {
        "ana": ("3", "3"),
        "ben": ("1", "3"),
    }
    assert rows["ben"]["answer key"].split()[0] == "toy-course"
    assert "That squares it." in capsys.readouterr().out  # the summary names the slip behind ben's answer
