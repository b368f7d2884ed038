"""Predict, then check: a course-agnostic engine for prediction exercises.

A course declares its exercises in a ``Course`` (``exercises``): each a question, the
kind of answer it takes (``kinds``), a hint, and a solver that computes the answer.
The engine reads what a person types (``reading``), judges it at the precision the
question asks (``verdicts``), keeps each computed answer keyed by the sources that
computed it (``key``), reads and grades answers files (``sheets``), writes what the
boxes save (``saved``), grades a file under pytest (``pytest_plugin``), and draws each
exercise as a box, a widget in Jupyter and a kernel-free form in a built page (``box``);
in JupyterLab its extension (``lab/``) holds back what follows a box until it is answered.
It writes what a box and a listing of the code need on their page (``pages``, ``listings``).
It never imports a course.
"""

from __future__ import annotations

from .box import Box
from .exercises import Carried, Course, Exercise, Solution
from .kinds import RIGHT, Axis, Choice, Number, Outcome, Place, Shape, Vector
from .verdicts import Verdict

__all__ = [
    "RIGHT",
    "Axis",
    "Box",
    "Carried",
    "Choice",
    "Course",
    "Exercise",
    "Number",
    "Outcome",
    "Place",
    "Shape",
    "Solution",
    "Vector",
    "Verdict",
]
