"""A course of three exercises, declared as any course declares its own: the engine's tests need no real course."""

from __future__ import annotations

from predict_check import RIGHT, Choice, Course, Number, Solution, Vector

TOY = Course("toy-course", "the toy course", cache_variable="TOY_COURSE_CACHE")


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
