"""Grade one answers file under pytest: one test per exercise, words for each failure, and a score last.

A course's grading folder holds two small files: a ``conftest.py`` that takes the hooks
(``hooks(course, template)``) and a ``test_answers.py`` that takes the test
(``answer_test(course)``). ``pytest FOLDER`` then grades the template beside them;
``pytest FOLDER --answers=PATH`` grades another file (a relative PATH is taken from where
pytest was started; with the ``=``, a name that begins with a dash is a name too). With
``--junitxml FILE`` every exercise becomes a test case whose failure message is the
verdict, and the suite carries the score.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from .exercises import Course
from .sheet_reader import SELF_RECORDED, AnswerSheet
from .untrusted import visible
from .verdicts import Verdict, score


def hooks(course: Course, template: Path) -> tuple[Callable, ...]:
    """``pytest_addoption``, ``pytest_configure`` and the ``grader`` and ``score_in_junit`` fixtures, for a conftest."""

    def pytest_addoption(parser: pytest.Parser) -> None:
        parser.addoption(
            "--answers",
            metavar="PATH",
            default=None,
            help=f"answers file to grade (default: {template.parent.name}/{template.name}); "
            "write --answers=PATH for a name that begins with a dash",
        )

    def pytest_configure(config: pytest.Config) -> None:
        given = config.getoption("answers", default=None)  # absent when this folder is reached late, by `pytest .`
        path = template if given is None else config.invocation_params.dir / given
        report = getattr(config.option, "xmlpath", None)
        if report and _same_file(config.invocation_params.dir / report, path):
            raise pytest.UsageError(
                f"--junitxml {visible(report)} is the answers file itself, which the grader never writes; "
                "expected a report path of its own"
            )
        config.pluginmanager.register(Grader(AnswerSheet.read(course, path)), Grader.name)

    return pytest_addoption, pytest_configure, grader, score_in_junit


def answer_test(course: Course) -> Callable:
    """The test, one per exercise: is the answer in the answers file right? A failure says why in words."""

    @pytest.mark.parametrize("exercise_id", list(course.exercises))
    def test_answer(exercise_id: str, grader: Grader, request: pytest.FixtureRequest) -> None:
        judged(exercise_id, grader, request)

    return test_answer


def judged(exercise_id: str, grader: Grader, request: pytest.FixtureRequest) -> None:
    """The answer to ``exercise_id`` graded; where it is not right, the test fails with the verdict in words."""
    verdict = grader.grade(request.node.nodeid, exercise_id)
    if not verdict.correct:
        pytest.fail(grader.sheet.explain(verdict), pytrace=False)


def _same_file(first: Path, second: Path) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:  # either does not exist yet: not the same file
        return False


class Grader:
    """Counts the exercises answered correctly and shapes what the terminal shows."""

    name = "predict-check-grader"

    def __init__(self, sheet: AnswerSheet):
        self.sheet = sheet
        self.verdicts: dict[str, Verdict] = {}  # by test node id

    def grade(self, nodeid: str, exercise_id: str) -> Verdict:
        verdict = self.verdicts[nodeid] = self.sheet.grade(exercise_id)
        return verdict

    @property
    def score(self) -> str:
        return f"{score(self.verdicts.values())}/{len(self.sheet.course)}"

    def problems(self) -> list[str]:
        return self.sheet.problems()

    def pytest_report_header(self) -> str:
        return f"answers file: {self.sheet.name}"

    def pytest_report_teststatus(self, report: pytest.TestReport):
        """Say "NOT ANSWERED", "WRONG" or "UNREADABLE" where pytest would say "FAILED"."""
        verdict = self.verdicts.get(report.nodeid)
        if verdict is not None and report.when == "call" and report.failed:
            return "failed", "F", (verdict.outcome.value.upper(), {"red": True})
        return None

    def pytest_terminal_summary(self, terminalreporter) -> None:
        problems = self.problems()
        if problems:
            terminalreporter.section("answers file problems")
            for problem in problems:
                terminalreporter.write_line(problem)
        if self.sheet.notes:
            terminalreporter.section("how the file was read")
            for note in self.sheet.notes:
                terminalreporter.write_line(note)
        firsts = {exercise_id: self.sheet.first_try(exercise_id) for exercise_id in self.sheet.course.exercises}
        recorded = {exercise_id: first for exercise_id, first in firsts.items() if first is not None}
        if recorded:
            right = sum(first.right for first in recorded.values())
            terminalreporter.section(f"first tries, your own record: {right} of {len(recorded)} right")
            terminalreporter.write_line(f"The {SELF_RECORDED}.")
            for exercise_id, first in recorded.items():
                flag = " (no final answer)" if first.unanswered else ""
                terminalreporter.write_line(f"{exercise_id}: {first.word}{flag}")
        variants = self.sheet.variant_tries()
        if variants:
            right = sum(verdict.correct for *_, verdict in variants)
            terminalreporter.section(f"practice variants: {right} of {len(variants)} right (not part of the score)")

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session):
        if self.problems() and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED  # an answer nobody graded is not a pass
        result = yield
        if session.config.option.collectonly:
            return result
        terminal = session.config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None:
            terminal.write_line(f"score: {self.score}")
        else:
            print(f"score: {self.score}")
        return result


@pytest.fixture(scope="session")
def grader(pytestconfig: pytest.Config) -> Grader:
    return pytestconfig.pluginmanager.get_plugin(Grader.name)


@pytest.fixture(scope="session", autouse=True)
def score_in_junit(grader: Grader, record_testsuite_property):
    """Put the score on the test suite of a ``--junitxml`` report, once every exercise is graded."""
    yield
    record_testsuite_property("score", grader.score)
