"""Binder's build, as repo2docker (the builder behind Binder) itself would plan it.

repo2docker prints its build recipe without Docker (``--no-build --no-run --debug``);
the recipe names the Python it would install and the steps it would run.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from conftest import ROOT


@pytest.fixture(scope="module")
def recipe() -> str:
    repo2docker = Path(sys.executable).parent / "repo2docker"
    run = subprocess.run(
        [str(repo2docker), "--no-build", "--no-run", "--debug", str(ROOT)],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return run.stdout + run.stderr


def test_binder_builds_on_a_python_the_pins_install_on(recipe):
    versions = re.findall(r"conda environment for python=(\d+\.\d+)", recipe)
    assert len(versions) == 1, "the recipe names no Python version"
    required = SpecifierSet(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"])
    assert versions[0] in required
    assert versions[0] == (ROOT / "runtime.txt").read_text().strip().removeprefix("python-")


def test_binder_installs_the_pins_then_runs_post_build(recipe):
    install = recipe.index('pip install --no-cache-dir -r "requirements.txt"')
    assert recipe.index("RUN ./postBuild") > install
