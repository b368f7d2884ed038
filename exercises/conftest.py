"""The grader's report: one line of words per failed exercise, no tracebacks, and a score last.

``pytest exercises`` grades exercises/answers.toml; ``pytest exercises --answers=PATH``
grades another file. A whole class is graded in one run by ``python -m classroom grade``,
with the same reader and verdicts.
"""

from pathlib import Path

from predict_check.pytest_plugin import hooks
from rmsnorm_course.pages import COURSE

pytest_addoption, pytest_configure, grader, score_in_junit = hooks(COURSE, Path(__file__).parent / "answers.toml")
