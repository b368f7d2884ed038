"""One test per exercise: is the answer in the answers file right?

A failure says what was wrong in words: "not answered", the hint for a wrong answer,
or why an answer could not be read. It never shows the expected value.
"""

from predict_check.pytest_plugin import answer_test
from rmsnorm_course.pages import COURSE

test_answer = answer_test(COURSE)
