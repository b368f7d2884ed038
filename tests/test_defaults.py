"""The chapter's worked values never rest on a function's default eps.

The pages whose values are timings are left out (book_pages.timed): their sizes and eps
are set by name there. Three names, three meanings: ``studies.example.EPS`` is the chapter's
eps, the one every worked value uses; ``core.reference.DEFAULT_EPS`` is the functions' default,
and ``core.baselines.BASELINE_EPS`` the baselines'. In a copy of the source with both defaults
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

from book_pages import timed, values
from rmsnorm_course.pages import COURSE, PAGES

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = {  # where each default is set, and the value given it in the copy
    "rmsnorm_course/core/reference.py": ("DEFAULT_EPS", "1e-3"),
    "rmsnorm_course/core/baselines.py": ("BASELINE_EPS", "1e-3"),
}
WORKED = "import json, sys\nfrom test_defaults import worked\njson.dump(worked(), sys.stdout)"


def worked() -> dict:
    """Every exercise's answer and every untimed page's printed values, as this process's source computes them."""
    answers = {exercise.id: repr(exercise.solve().answer) for exercise in COURSE}
    printed = {
        page: {k: v for k, v in vars(values(page)).items() if isinstance(v, str)} for page in PAGES if not timed(page)
    }
    return json.loads(json.dumps({"answers": answers, "pages": printed}))


def worked_values(source: Path, tmp_path: Path) -> dict:
    """The worked values of the copy ``source``, computed afresh: its studies cache in a folder of their own."""
    path = os.pathsep.join((str(source), str(ROOT / "tests")))
    environment = dict(os.environ, PYTHONPATH=path, RMSNORM_COURSE_CACHE=str(tmp_path / "cache"))
    run = subprocess.run(
        [sys.executable, "-c", WORKED], env=environment, cwd=tmp_path, capture_output=True, text=True, check=True
    )
    return json.loads(run.stdout)


def test_changing_the_functions_defaults_moves_no_worked_value(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(ROOT / "src", source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for module, (name, value) in DEFAULTS.items():
        path = source / module
        changed, count = re.subn(
            rf"^{name} = [0-9.e+-]+", f"{name} = {value}", path.read_text(encoding="utf-8"), flags=re.M
        )
        assert count == 1, module
        path.write_text(changed, encoding="utf-8")
    before = worked()  # the source as it is, in this process: what the studies cached is read
    assert len(before["answers"]) >= 30 and len(before["pages"]) >= len(PAGES) - 2
    assert worked_values(source, tmp_path) == before
