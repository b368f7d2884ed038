"""``python -m predict_check grade``: one answers file graded by the engine alone, as a student without a checkout.

The run is a subprocess, from a folder whose own pytest settings and conftest would break any
run that read them; the checkout's settings (its pyproject.toml's options, its root conftest)
lie above the engine's sources, so a run that read those would break as well.
"""

from __future__ import annotations

import re
import subprocess
import sys

from predict_check import __main__ as engine
from rmsnorm_course.pages import COURSE

GRADE = [sys.executable, "-P", "-m", "predict_check", "grade", "--course", "rmsnorm-course"]


def test_the_engine_grades_a_file_with_no_folder_s_settings_one_answer_right_one_wrong(tmp_path):
    (tmp_path / "conftest.py").write_text("raise SystemExit('a folder conftest ran')\n", encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --no-such-option\n", encoding="utf-8")
    (tmp_path / "ana.toml").write_text("mean-square = 12.5\nreciprocal-rms = 3\n", encoding="utf-8")  # 1/sqrt(12.5)
    done = subprocess.run([*GRADE, "-v", "ana.toml"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.splitlines()[-1] == f"score: 1/{len(COURSE.exercises)}"
    assert re.search(r"test_answer\[mean-square\] PASSED", done.stdout)
    assert re.search(r"^WRONG .*test_answer\[reciprocal-rms\]", done.stdout, re.M)
    assert "answers file: ana.toml" in done.stdout


def test_a_course_not_installed_is_said_and_nothing_graded(capsys):
    assert engine.main(["grade", "--course", "no-such-course", "ana.toml"]) == 1
    assert capsys.readouterr().err.startswith("no grade: there is no course 'no-such-course'; expected one of")
