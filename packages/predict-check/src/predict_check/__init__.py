"""Predict, then check: a course-agnostic engine for prediction exercises.

A course declares its exercises in a ``Course`` (``exercises``): each a question, the
kind of answer it takes (``kinds``), a hint, and a solver that computes the answer.
The engine reads what a person types (``reading``), judges it at the precision the
question asks (``verdicts``), keeps each computed answer keyed by the sources that
computed it (``key``), reads and grades answers files (``sheet_reader``), writes the blank
one, the reference answers and what the boxes save (``sheet_writer``), grades a file under
pytest (``pytest_plugin``), and draws each exercise as a box, a widget in Jupyter and a
kernel-free form in a built page (``box``), whose scripts a Jupyter Book serves (``sphinx``);
in JupyterLab its extension (``lab/``) holds back what follows a box until it is answered right or its answer shown.
It writes what a box and a listing of the code need in their page's cells (``page_cells``,
``listings``), prints a course's blank answers file (``python -m predict_check template``) and
grades one from any folder, with no grading folder beside the course (``grading``, ``grade``).
It never imports a course: the installed ones are found by name (``courses``).

Its public API is the names below: what a course declares itself with, and all that a grader
of any course (the class grader) uses.

- A course: ``Course`` (its exercises, declared with ``@course.exercise``), ``Exercise``,
  ``Solution`` (what a solver returns), ``Carried`` (an answer computed from an earlier one),
  the kinds of answer ``Number``, ``Vector``, ``Shape``, ``Choice`` (``RIGHT`` marks its right
  option), ``Place`` (a number placed with a marker on a figure's ``Axis``) and ``Box`` (its box).
- Finding and grading one: ``load_course(name)`` (an installed course, by its entry point),
  ``AnswerSheet`` (one answers file, read and graded), ``judge(exercise, answer)`` (a
  ``Verdict``, whose ``Outcome`` says right, right so far, wrong, not answered or unreadable),
  ``score(verdicts)`` (how many are right), ``solution(exercise)`` (the reference ``Solution``,
  from the answer key), ``key_of_record(course)`` (a context in which every answer is computed, for a grade
  of record), ``carried_from`` (the earlier wrong answer a wrong answer follows from),
  ``FirstTry`` (a first prediction as a file records it) and ``SELF_RECORDED`` (what every output
  says of first tries), ``answers_file(course, solutions)`` (the blank file, or the reference
  answers), and ``GradingError`` (what cannot be graded, and why).
- A student's text, shown only as text: ``visible`` (on one line, controls written out),
  ``quoted``, ``one_line``, ``shortened`` (as a verdict shows an answer back), ``code_span``
  (Markdown), ``csv_cell`` (a cell that never starts a formula) and ``slug`` (ASCII letters for
  a file name).
- ``piped(main)``: a command, stopped quietly when its reader goes away.
"""

from __future__ import annotations

from .box import Box
from .commands import piped
from .courses import load_course
from .errors import GradingError
from .exercises import Carried, Course, Exercise, Solution
from .key import key_of_record, solution
from .kinds import RIGHT, Axis, Choice, Number, Outcome, Place, Shape, Vector, shortened
from .sheet_reader import SELF_RECORDED, AnswerSheet, FirstTry
from .sheet_writer import answers_file
from .slips import carried_from
from .untrusted import code_span, csv_cell, one_line, quoted, slug, visible
from .verdicts import Verdict, judge, score

__all__ = [
    "RIGHT",
    "SELF_RECORDED",
    "AnswerSheet",
    "Axis",
    "Box",
    "Carried",
    "Choice",
    "Course",
    "Exercise",
    "FirstTry",
    "GradingError",
    "Number",
    "Outcome",
    "Place",
    "Shape",
    "Solution",
    "Vector",
    "Verdict",
    "answers_file",
    "carried_from",
    "code_span",
    "csv_cell",
    "judge",
    "key_of_record",
    "load_course",
    "one_line",
    "piped",
    "quoted",
    "score",
    "shortened",
    "slug",
    "solution",
    "visible",
]
