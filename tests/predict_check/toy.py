"""A course of three exercises, declared as any course declares its own: the engine's tests need no real course.

``register(folder)`` installs it as a course's distribution would (``courses``): an entry point,
in a ``.dist-info`` that ``importlib.metadata`` reads once the folder and this module's folder are
on the path (``path``), so that the engine's tools find it by name.
"""

from __future__ import annotations

import os
from pathlib import Path

from predict_check import RIGHT, Choice, Course, Number, Solution, Vector

HERE = Path(__file__).resolve().parent
GRADE_FILE = "python -m pytest toy-grader --answers=/path/to/{file}"  # how the toy's own files say to grade them
TOY = Course("toy-course", "the toy course", cache_variable="TOY_COURSE_CACHE", grade_file=GRADE_FILE)


@TOY.exercise("double", "Twice a number", "What is twice {x}?", Number(stated=False), "Add it to itself.", {"x": 3.5})
def _double(x) -> Solution:
    return Solution(2 * x, f"2 * {x:g} = {2 * x:g}.", slips=((x * x, "That squares it."),))


@TOY.exercise("pair", "A pair, halved", "Halve each of {x}.", Vector(2), "Divide each by two.", {"x": (3.0, 5.0)})
def _pair(x) -> Solution:
    return Solution(tuple(v / 2 for v in x), "Each divided by two.")


@TOY.exercise(
    "letter",
    "The first letter",
    "Which letter comes first?",
    Choice.of({"a": RIGHT, "b": "It comes second.", "c": "It comes third."}),
    "Say the alphabet.",
)
def _letter() -> Solution:
    return Solution("a", "A comes first.")


def register(folder: Path) -> Path:
    """``folder`` holding the toy course's registration, as its distribution's metadata would hold it."""
    info = folder / "toy_course-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-course\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[predict_check.courses]\ntoy-course = toy:TOY\n", encoding="utf-8")
    return folder


def path(folder: Path) -> str:
    """A ``PYTHONPATH`` on which another process finds the toy course registered in ``folder``, and its module."""
    return os.pathsep.join([str(folder), str(HERE)])
