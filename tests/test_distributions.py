"""Each of the three distributions declares every package its sources import, and requirements.txt installs all three.

The imports are read from the sources (every ``import`` anywhere in a module, with ``ast``),
and each is matched to the installed distribution that provides it; a package of the
standard library, or one of the distribution's own, needs no declaration.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = {  # the folder of each distribution's pyproject.toml, and its package's sources
    "rmsnorm-course": (ROOT, ROOT / "src" / "rmsnorm_course"),
    "predict-check": (
        ROOT / "packages" / "predict-check",
        ROOT / "packages" / "predict-check" / "src" / "predict_check",
    ),
    "classroom": (ROOT / "packages" / "classroom", ROOT / "packages" / "classroom" / "src" / "classroom"),
}


def imported(sources: Path) -> set[str]:
    """The top-level names every module under ``sources`` imports, its own relative imports left out."""
    names = set()
    for path in sources.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"__future__", sources.name}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(folder: Path) -> set[str]:
    dependencies = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    return {canonical(re.match(r"[A-Za-z0-9._-]+", dependency).group()) for dependency in dependencies}


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_a_distribution_declares_every_package_it_imports(distribution):
    folder, sources = DISTRIBUTIONS[distribution]
    providers = metadata.packages_distributions()
    needed = {canonical(providers[name][0]) for name in imported(sources)}
    assert needed - declared(folder) == set()


def test_requirements_install_the_three_distributions():
    installed = {
        line.split()[-1] for line in (ROOT / "requirements.txt").read_text().splitlines() if line.startswith("-e ")
    }
    assert {str(folder.relative_to(ROOT)) for folder, _ in DISTRIBUTIONS.values()} == installed
