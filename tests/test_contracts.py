"""The import contracts in pyproject.toml hold, and each fails when an upward import is planted.

The contracts (import-linter's) say the engine never imports a course or the class grader,
the two never import each other, and each package's modules import downhill only. Each
planted import is made in a copy of the source, so the tree under test is never changed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache", "--no-logo", "pyproject.toml"]
PLANTED = [
    ("predict_check/kinds.py", "import rmsnorm_course.pages", "The engine never imports a course"),
    ("rmsnorm_course/studies/training.py", "import classroom.gradebook", "The course and the class grader never"),
    ("rmsnorm_course/core/reference.py", "import rmsnorm_course.studies.example", "The course: the maths"),
    ("predict_check/reading.py", "import predict_check.cache", "The engine: what an answer is"),
    ("classroom/withheld.py", "import classroom.figure", "The class grader: one student's file"),
]


def lint(tree: Path) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(tree / "src"))
    return subprocess.run(LINT, cwd=tree, env=environment, capture_output=True, text=True, check=False)


SOURCES = [ROOT / "src", ROOT / "packages/predict-check/src", ROOT / "packages/classroom/src"]


def copy_of_the_tree(tmp_path: Path) -> Path:
    for source in SOURCES:
        ignored = shutil.ignore_patterns("__pycache__", "*.egg-info")
        shutil.copytree(source, tmp_path / "src", ignore=ignored, dirs_exist_ok=True)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def test_the_tree_keeps_every_contract(tmp_path):
    run = lint(copy_of_the_tree(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 kept, 0 broken" in run.stdout


@pytest.mark.parametrize(("module", "planted", "contract"), PLANTED, ids=[module for module, *_ in PLANTED])
def test_a_planted_upward_import_breaks_its_contract(tmp_path, module, planted, contract):
    tree = copy_of_the_tree(tmp_path)
    source = tree / "src" / module
    future = "from __future__ import annotations\n"
    text = source.read_text(encoding="utf-8").replace(future, f"{future}{planted}  # planted\n", 1)
    source.write_text(text, encoding="utf-8")
    run = lint(tree)
    assert run.returncode == 1, run.stdout
    said = " ".join(run.stdout.split())  # a long contract's name is wrapped over two lines
    verdict = re.search(re.escape(contract) + r".*? (KEPT|BROKEN)\b", said)
    assert verdict is not None and verdict.group(1) == "BROKEN", run.stdout


def test_importing_the_course_loads_its_maths_only():
    code = (
        "import sys, rmsnorm_course; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'predict_check', 'classroom', 'matplotlib'}), "
        "sorted(m for m in sys.modules if m.startswith('rmsnorm_course.') and not m.startswith('rmsnorm_course.core')))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[] []"
