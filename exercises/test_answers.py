"""One test per exercise: is the answer in the answers file right?

A failure says what was wrong in words: "not answered", the hint for a wrong answer,
or why an answer could not be read. It never shows the expected value.
"""

import pytest

from rmsnorm_course.questions.registry import EXERCISES


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_answer(exercise_id, grader, request):
    verdict = grader.grade(request.node.nodeid, exercise_id)
    if not verdict.correct:
        pytest.fail(grader.sheet.explain(verdict), pytrace=False)
