"""One answers file graded by pytest for any installed course, from any folder: no grading folder needed.

A course installed from its wheel has no folder of grading tests beside it. ``grade`` runs
pytest on this module instead, with the course's hooks (``pytest_plugin.hooks``) as a plugin
that asks this module's one test once per exercise: the report is the one a course's own
folder prints, a line of words per failed exercise and the score last. pytest reads its
settings from ``grading.ini`` beside this module, and no conftest or plugin but the course's:
no folder's settings change a grade.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

from .exercises import Course
from .pytest_plugin import Grader, hooks, judged


def grade(course: Course, answers: Path, options: Sequence[str] = ()) -> int:
    """Grade ``answers`` (taken from the current folder) with pytest: its status, 0 only if every answer is right.

    ``options`` go to pytest as they are (``-v``).
    """
    plugin = ModuleType("predict_check.graded_course")
    plugin.pytest_addoption, plugin.pytest_configure, plugin.grader, plugin.score_in_junit = hooks(course, answers)
    plugin.pytest_generate_tests = _each_exercise(course)
    here = Path(__file__)
    isolated = [f"--config-file={here.with_suffix('.ini')}", f"--confcutdir={here.parent}", "--disable-plugin-autoload"]
    return int(pytest.main([*isolated, "-p", "no:cacheprovider", *options, str(here)], plugins=[plugin]))


def _each_exercise(course: Course):
    ids = list(course.exercises)

    def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
        if "exercise_id" in metafunc.fixturenames:
            metafunc.parametrize("exercise_id", ids)

    return pytest_generate_tests


def test_answer(exercise_id: str, grader: Grader, request: pytest.FixtureRequest) -> None:
    """Is the answer right? The test ``grade`` collects here, once per exercise of the course it grades."""
    judged(exercise_id, grader, request)
