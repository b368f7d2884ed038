"""The import contracts in pyproject.toml hold, a planted import breaks each one, and no module is left out.

The contracts (import-linter's) say the engine never imports a course, the class grader or a
book; the course and the class grader never import each other; the maths needs no engine,
widgets or plots; the judge no widget, pytest or notebook reader; the class grader only the
engine's public API; the book's extensions never the class grader; and each package's modules
import downhill only. Each planted import is made in a copy of the sources, so the tree under
test is never changed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache", "--no-logo", "pyproject.toml"]
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
PLANTED = [
    ("predict_check/kinds.py", "import rmsnorm_course", "The engine never imports a course"),
    ("rmsnorm_course/studies/partial.py", "import classroom.gradebook", "The course and the class grader never"),
    ("rmsnorm_course/core/reference.py", "import matplotlib", "The maths imports nothing"),
    ("predict_check/verdicts.py", "import pytest", "The judge needs no widget"),
    ("classroom/report.py", "import predict_check.verdicts", "The class grader uses the engine's public API"),
    ("book/_ext/sources.py", "import classroom", "The book's extensions use the engine"),
    ("rmsnorm_course/core/reference.py", "import rmsnorm_course.studies.example", "The course: the maths"),
    ("predict_check/reading.py", "import predict_check.cache", "The engine: what an answer is"),
    ("classroom/withheld.py", "import classroom.figure", "The class grader: one student's file"),
]
SOURCES = [ROOT / "src", ROOT / "packages/predict-check/src", ROOT / "packages/classroom/src"]


def lint(tree: Path) -> subprocess.CompletedProcess:
    """lint-imports over ``tree``: the packages from its ``src``, the book from the folder itself."""
    environment = dict(os.environ, PYTHONPATH=str(tree / "src"))
    return subprocess.run(LINT, cwd=tree, env=environment, capture_output=True, text=True, check=False)


def copy_of_the_tree(tmp_path: Path) -> Path:
    ignored = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for source in SOURCES:
        shutil.copytree(source, tmp_path / "src", ignore=ignored, dirs_exist_ok=True)
    shutil.copytree(ROOT / "book" / "_ext", tmp_path / "book" / "_ext", ignore=ignored)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def verdicts(run: subprocess.CompletedProcess) -> dict[str, str]:
    """Each contract's name, and KEPT or BROKEN, from what lint-imports said."""
    said = " ".join(run.stdout.split())  # a long contract's name is wrapped over two lines
    return {contract["name"]: re.search(re.escape(contract["name"]) + r" (KEPT|BROKEN)\b", said).group(1)
            for contract in CONTRACTS}  # fmt: skip


def test_the_tree_keeps_every_contract(tmp_path):
    run = lint(copy_of_the_tree(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert set(verdicts(run).values()) == {"KEPT"}
    assert f"{len(CONTRACTS)} kept, 0 broken" in run.stdout


def test_every_contract_has_an_import_planted_that_breaks_it():
    planted = [next(c["name"] for c in CONTRACTS if c["name"].startswith(contract)) for *_, contract in PLANTED]
    assert sorted(planted) == sorted(contract["name"] for contract in CONTRACTS)


@pytest.mark.parametrize(("module", "planted", "contract"), PLANTED, ids=[contract for *_, contract in PLANTED])
def test_a_planted_import_breaks_its_contract(tmp_path, module, planted, contract):
    tree = copy_of_the_tree(tmp_path)
    source = tree / module if module.startswith("book/") else tree / "src" / module
    future = "from __future__ import annotations\n"
    text = source.read_text(encoding="utf-8")
    assert future in text, f"{module} has no line to plant after"
    source.write_text(text.replace(future, f"{future}{planted}  # planted\n", 1), encoding="utf-8")
    run = lint(tree)
    assert run.returncode == 1, run.stdout + run.stderr
    assert verdicts(run)[next(c["name"] for c in CONTRACTS if c["name"].startswith(contract))] == "BROKEN", run.stdout


def layered(contract: dict) -> set[str]:
    """The modules a layers contract names, each layer split into its siblings."""
    return {name.strip() for layer in contract["layers"] for name in re.split(r"[|:]", layer)}


def modules_in(package: Path) -> set[str]:
    """A package's own modules and subpackages, as its sources hold them (its ``__init__`` is the container)."""
    files = {path.stem for path in package.glob("*.py") if path.name != "__init__.py"}
    return files | {path.parent.name for path in package.glob("*/__init__.py")}


def outside_every_layer(roots: list[Path]) -> list[str]:
    """Each module of a layered package that no layer names: import-linter would let it import anything."""
    found = []
    for contract in (contract for contract in CONTRACTS if contract["type"] == "layers"):
        for container in contract["containers"]:
            package = next(root / container for root in roots if (root / container / "__init__.py").is_file())
            found += [f"{container}.{name}" for name in sorted(modules_in(package) - layered(contract))]
    return found


def test_every_module_of_each_package_is_in_a_layer():
    assert outside_every_layer(SOURCES) == []


def test_a_new_module_outside_every_layer_is_found(tmp_path):
    tree = copy_of_the_tree(tmp_path)
    (tree / "src" / "predict_check" / "newcomer.py").write_text('"""A module no layer names."""\n', encoding="utf-8")
    (tree / "src" / "classroom" / "extra").mkdir()
    (tree / "src" / "classroom" / "extra" / "__init__.py").write_text("", encoding="utf-8")
    assert outside_every_layer([tree / "src"]) == ["predict_check.newcomer", "classroom.extra"]


def test_importing_the_course_loads_its_maths_only():
    code = (
        "import sys, rmsnorm_course; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'predict_check', 'classroom', 'matplotlib'}), "
        "sorted(m for m in sys.modules if m.startswith('rmsnorm_course.') and not m.startswith('rmsnorm_course.core')))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[] []"
