"""The engine with a course of its own: it declares, judges, keeps, reads and grades without the RMSNorm course."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from toy import TOY

from predict_check import Outcome
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
