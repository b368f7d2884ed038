"""The chapter's worked values never rest on a function's default eps.

The cost pages, whose figures are timings, are left out: their sizes and eps are set by
name there. Three names, three meanings: ``studies.example.EPS`` is the chapter's eps, the one every
worked value uses; ``core.reference.DEFAULT_EPS`` is the functions' default, and
``core.baselines.BASELINE_EPS`` the baselines'. In a copy of the source with both defaults
changed, every exercise's answer and every page's printed value stay as they are.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = {  # where each default is set, and the value given it in the copy
    "rmsnorm_course/core/reference.py": ("DEFAULT_EPS", "1e-3"),
    "rmsnorm_course/core/baselines.py": ("BASELINE_EPS", "1e-3"),
}
WORKED = """
import json, sys, types
from rmsnorm_course.pages import COURSE
from rmsnorm_course.pages import (backward, boundaries, follow_one_vector, formula, history, implementation,
    in_the_model, index, modern_blocks, modern_gains, precision, predict, scale_and_epsilon, training)
answers = {exercise.id: repr(exercise.solve().answer) for exercise in COURSE}
printed = {}
for page in (backward, boundaries, follow_one_vector, formula, history, implementation, in_the_model, index,
             modern_blocks, modern_gains, precision, predict, training):
    printed[page.__name__] = {k: v for k, v in vars(page.values()).items() if isinstance(v, str)}
printed["scale"] = {k: v for k, v in vars(scale_and_epsilon.values(0.01, 100)).items() if isinstance(v, str)}
json.dump({"answers": answers, "pages": printed}, sys.stdout)
"""


def worked_values(source: Path, tmp_path: Path) -> dict:
    environment = dict(os.environ, PYTHONPATH=str(source), RMSNORM_COURSE_CACHE="off")
    run = subprocess.run(
        [sys.executable, "-c", WORKED], env=environment, cwd=tmp_path, capture_output=True, text=True, check=True
    )
    return json.loads(run.stdout)


def test_changing_the_functions_defaults_moves_no_worked_value(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(ROOT / "src", source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    before = worked_values(source, tmp_path)
    for module, (name, value) in DEFAULTS.items():
        path = source / module
        changed, count = re.subn(
            rf"^{name} = [0-9.e+-]+", f"{name} = {value}", path.read_text(encoding="utf-8"), flags=re.M
        )
        assert count == 1, module
        path.write_text(changed, encoding="utf-8")
    after = worked_values(source, tmp_path)
    assert len(before["answers"]) >= 30 and after == before
