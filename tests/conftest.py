"""Fixtures the unit tests share. Helpers that build inputs live in modules named for what they
build: hostile.py (hostile answer files), submissions.py (a generated class), leaks.py (the
forms an answer can be written in), highprecision.py (the exact reference), book_pages.py
(the pages in reading order)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import configuration

ROOT = Path(__file__).resolve().parents[1]


# What Hypothesis keeps between runs goes to a temporary folder, not to .hypothesis/ in the repository.
# One folder per checkout, so that two checkouts (or users) on one machine never share what it keeps.
_CHECKOUT = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
configuration.set_hypothesis_home_dir(Path(tempfile.gettempdir()) / f"rmsnorm-course-hypothesis-{_CHECKOUT}")


@pytest.fixture
def in_a_folder_of_its_own(tmp_path, monkeypatch):
    """Relative outputs (a gradebook, feedback pages) land in the test's own folder."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def make_on_a_copy(tmp_path):
    """``make`` run on a copy of what its grading targets read (the Makefile and exercises/), in a temporary folder.

    The copy's environment is the one running the tests (``VENV`` is its prefix, and
    ``-o`` tells make never to remake its install stamp), so the run installs nothing
    and writes nothing into the repository, whatever the checkout holds.
    """
    copy = tmp_path / "repository"
    copy.mkdir()
    shutil.copy2(ROOT / "Makefile", copy / "Makefile")
    shutil.copytree(ROOT / "exercises", copy / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    prefix = Path(sys.prefix)
    environment = {key: value for key, value in os.environ.items() if not key.startswith("MAKE")}

    def make(*arguments: str, cwd: Path = tmp_path) -> subprocess.CompletedProcess:
        command = ["make", "--no-print-directory", "-C", str(copy), f"VENV={prefix}", "-o", str(prefix / ".installed")]
        return subprocess.run(
            [*command, *arguments], capture_output=True, text=True, cwd=cwd, env=environment, timeout=600
        )

    return make


@pytest.fixture
def class_figure_stand_in(monkeypatch):
    """The class figure's bytes as a stand-in made from the tallies it would draw, for tests of how a run's files
    are written and replaced, not of what the figure shows (test_class_figure.py draws it): rendering it is most
    of a run's time. Two classes with different results still get different bytes."""
    from classroom import report

    monkeypatch.setattr(report, "class_results_figure", lambda tallies: tuple(tallies))
    monkeypatch.setattr(report, "png_bytes", lambda tallies: b"\x89PNG stand-in\n" + repr(tallies).encode())
