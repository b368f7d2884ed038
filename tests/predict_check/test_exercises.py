"""A course's exercises: what a declaration adds to the solver's slips, about each set of inputs."""

from __future__ import annotations

import pytest

from predict_check import Course, Number, Outcome, Solution
from predict_check.verdicts import checker

THIRDS = Course("thirds-course", "the thirds course", cache_variable="THIRDS_COURSE_CACHE")
STOPPED = "That stops at three decimals; a third never ends."


@THIRDS.exercise(
    "third",
    "A third",
    "What is {x} divided by three?",
    Number(),
    "Divide by three.",
    given={"x": 1.0},
    variants=({"x": 2.0},),
    misconceptions=((lambda x: round(x / 3, 3), STOPPED),),
)
def _third(x) -> Solution:
    return Solution(x / 3, f"{x:g} / 3 = {x / 3:.6f}.")


@pytest.fixture(autouse=True)
def nothing_kept(monkeypatch):
    monkeypatch.setenv(THIRDS.cache_variable, "off")


def test_a_declared_misconception_is_named_where_it_would_otherwise_be_right_so_far():
    check = checker(THIRDS)
    assert check("third", "0.3333").outcome is Outcome.CLOSE  # four figures, all right
    stopped = check("third", "0.333")  # three figures, all right: but it is the misconception's own value
    assert stopped.outcome is Outcome.WRONG and stopped.message == STOPPED and stopped.slips == (STOPPED,)


def test_a_misconception_is_computed_from_each_variant_s_own_inputs():
    check = checker(THIRDS)
    assert check("third", "0.667", variant=1).message == STOPPED  # 2 / 3 stopped at three decimals
    assert check("third", "0.333", variant=1).outcome is Outcome.WRONG
    assert check("third", "0.333", variant=1).message != STOPPED  # not this variant's misconception
