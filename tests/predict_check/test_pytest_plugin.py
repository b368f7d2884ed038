"""The pytest grader, run the way students and instructors run it, on answer files.

Every run here is ``pytest exercises [--answers PATH]``: in this process (pytester), so
each run costs a fraction of a second, and once in a subprocess, exactly as a student
types it. The checks read its terminal output and its ``--junitxml`` report.
"""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from hostile import HOSTILE, Hostile, with_answer
from leaks import expected_renderings
from predict_check.sheet_writer import answers_file
from rmsnorm_course.pages import COURSE
from submissions import quoted, wrong

ROOT = Path(__file__).resolve().parents[2]
M = len(COURSE.exercises)
# The property-testing plugin is of no use to the grader; leaving it out saves a second per run.
OPTIONS = (str(ROOT / "exercises"), "-p", "no:hypothesispytest")


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def grade(pytester, monkeypatch):
    """Run the grader in this process, from ``cwd`` (the project by default), as ``pytest exercises`` would."""

    def run(answers: Path | None, *options: str, cwd: Path = ROOT) -> Run:
        monkeypatch.chdir(cwd)
        answers_option = ("--answers", str(answers)) if answers is not None else ()
        result = pytester.runpytest_inprocess(*OPTIONS, *options, *answers_option)
        return Run(int(result.ret), result.stdout.str(), result.stderr.str())

    return run


def last_line(run: Run) -> str:
    return run.stdout.rstrip().splitlines()[-1]


def assert_no_traceback(run: Run) -> None:
    output = run.stdout + run.stderr
    assert "Traceback" not in output
    assert not re.search(r"test_answers\.py:\d+|^(E|>) {3}", output, flags=re.M)


def failures(report: Path) -> dict[str, str | None]:
    """Exercise id -> failure message (None for a pass), from a --junitxml report."""
    cases = ET.parse(report).getroot().iter("testcase")
    found = {}
    for case in cases:
        failure = case.find("failure")
        exercise_id = re.fullmatch(r"test_answer\[(.+)\]", case.get("name")).group(1)
        found[exercise_id] = None if failure is None else failure.get("message")
    return found


@pytest.mark.end_to_end
def test_the_reference_answers_pass_every_test_in_a_real_run(tmp_path):
    answers, report = tmp_path / "solutions.toml", tmp_path / "report.xml"
    answers.write_text(answers_file(COURSE, solutions=True), encoding="utf-8")
    before = (answers.read_bytes(), answers.stat().st_mtime_ns)
    line = [sys.executable, "-m", "pytest", *OPTIONS, "--junitxml", str(report), "--answers", str(answers)]
    run = subprocess.run(line, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout
    assert last_line(run) == f"score: {M}/{M}"
    assert f"{M} passed" in run.stdout
    assert failures(report) == dict.fromkeys(COURSE.exercises)
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite.get("tests") == str(M) and suite.get("failures") == "0"
    assert suite.find("properties/property[@name='score']").get("value") == f"{M}/{M}"
    assert (answers.read_bytes(), answers.stat().st_mtime_ns) == before


def test_the_blank_template_fails_every_test_as_not_answered(grade, tmp_path):
    answers, report = tmp_path / "answers.toml", tmp_path / "report.xml"
    answers.write_text(answers_file(COURSE), encoding="utf-8")
    run = grade(answers, "-v", "--junitxml", str(report))
    assert run.returncode == 1
    assert last_line(run) == f"score: 0/{M}"
    assert run.stdout.count(" NOT ANSWERED") >= M
    messages = failures(report)
    assert set(messages) == set(COURSE.exercises)
    for exercise_id, message in messages.items():
        assert f"{exercise_id} (line " in message and "not answered" in message
    assert_no_traceback(run)


def test_without_answers_option_the_shipped_file_is_graded_and_left_alone(grade):
    shipped = ROOT / "exercises" / "answers.toml"
    before = (shipped.read_bytes(), shipped.stat().st_mtime_ns)
    run = grade(None)
    assert f"answers file: {shipped}" in run.stdout
    assert re.fullmatch(rf"score: \d+/{M}", last_line(run))
    assert (shipped.read_bytes(), shipped.stat().st_mtime_ns) == before


def sections(terminal: str) -> dict[str, str]:
    """Exercise id -> the text under its test's heading (``____ test_answer[id] ____``)."""
    parts = re.split(r"^_+ test_answer\[(.+?)\] _+$", terminal, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


@pytest.fixture
def all_wrong(grade, tmp_path):
    """One run of a file in which every answer is wrong: each test must fail with its own exercise's words."""
    text = answers_file(COURSE, True)
    for exercise in COURSE.exercises.values():
        text = with_answer(exercise.id, wrong(exercise), text)
    answers, report = tmp_path / "wrong.toml", tmp_path / "report.xml"
    answers.write_text(text, encoding="utf-8")
    return grade(answers, "--junitxml", str(report)), failures(report)


def test_each_wrong_answer_fails_its_own_test_with_its_hint_and_never_the_answer(all_wrong):
    run, messages = all_wrong
    assert run.returncode == 1
    assert last_line(run) == f"score: 0/{M}"
    assert list(messages) == list(COURSE.exercises)
    shown = sections(run.stdout.split("short test summary")[0])  # what the terminal shows under each test's name
    for exercise in COURSE.exercises.values():
        message = messages[exercise.id]
        assert f"{exercise.id} (line " in message and "Not yet, you said" in message
        assert f"Hint: {exercise.hint}" in message
        for rendering in expected_renderings(exercise):
            assert rendering not in message and rendering not in shown[exercise.id], (exercise.id, rendering)
    assert_no_traceback(run)


def test_a_malformed_line_is_named_with_its_fix_and_every_other_exercise_is_graded(grade, tmp_path):
    answers = tmp_path / "answers.toml"
    answers.write_text(with_answer("reciprocal-rms", ""), encoding="utf-8")  # the value left out
    line = answers.read_text().splitlines().index("reciprocal-rms = ") + 1
    report = tmp_path / "report.xml"
    run = grade(answers, "--junitxml", str(report))
    assert run.returncode == 1
    assert last_line(run) == f"score: {M - 1}/{M}"
    fix = f'line {line}: write your answer after "=", or "" to leave it blank; write it as  reciprocal-rms = ""'
    assert "answers file problems" in run.stdout and fix in run.stdout
    messages = failures(report)
    assert [exercise_id for exercise_id, message in messages.items() if message is not None] == ["reciprocal-rms"]
    assert f"line {line} could not be read" in messages["reciprocal-rms"]
    assert_no_traceback(run)


def test_a_name_that_begins_with_a_dash_is_a_name(grade, tmp_path):
    for name in ("-rf.toml", "-p.toml"):
        (tmp_path / name).write_text(answers_file(COURSE, True), encoding="utf-8")
        run = grade(None, f"--answers={name}", cwd=tmp_path)
        assert last_line(run) == f"score: {M}/{M}", run.stdout[-2000:]
        assert f"answers file: {tmp_path / name}" in run.stdout


def test_an_answer_of_the_wrong_kind_is_named_by_id_and_line(grade, tmp_path):
    answers = tmp_path / "answers.toml"
    answers.write_text(with_answer("mean-square", '"twelve"'), encoding="utf-8")
    line = answers.read_text().splitlines().index('mean-square = "twelve"') + 1
    run = grade(answers)
    assert run.returncode == 1
    assert f"mean-square (line {line}): ✗ Cannot read this answer: expected a number" in run.stdout
    assert last_line(run) == f"score: {M - 1}/{M}"
    assert_no_traceback(run)


def test_an_unknown_id_is_named_and_fails_the_run_even_when_every_answer_is_right(grade, tmp_path):
    answers = tmp_path / "answers.toml"
    text = answers_file(COURSE, True) + "mean-sqare = 12.5\n"
    answers.write_text(text, encoding="utf-8")
    run = grade(answers)
    assert run.returncode == 1
    line = len(text.splitlines())
    assert f"line {line}: there is no exercise 'mean-sqare'; did you mean 'mean-square'?" in run.stdout
    assert last_line(run) == f"score: {M}/{M}"
    assert_no_traceback(run)


def test_a_relative_answers_path_is_read_from_where_pytest_starts(grade, tmp_path):
    (tmp_path / "mine.toml").write_text(answers_file(COURSE, True), encoding="utf-8")
    run = grade(Path("mine.toml"), cwd=tmp_path)
    assert run.returncode == 0, run.stdout
    assert f"answers file: {tmp_path / 'mine.toml'}" in run.stdout
    assert last_line(run) == f"score: {M}/{M}"


def test_every_right_answer_typed_inside_the_quotes_is_graded_right(grade, tmp_path):
    text = answers_file(COURSE, True)
    for exercise in COURSE.exercises.values():
        text = with_answer(exercise.id, quoted(exercise), text)
    answers = tmp_path / "answers.toml"
    answers.write_text(text, encoding="utf-8")
    assert 'reciprocal-rms = "0.282843"' in text and 'output-shape = "[2, 5, 3]"' in text
    run = grade(answers)
    assert run.returncode == 0, run.stdout
    assert last_line(run) == f"score: {M}/{M}"


# One hostile file per way the grader can end (the whole table is read in-process by
# test_toml_reader, and graded in one run by test_gradebook).
GRADER_SAMPLE = [
    {h.name: h for h in HOSTILE}[name]
    for name in (
        "deep-arrays",  # the parser would recurse until it fails
        "huge-integer",  # the parser fails with an error of its own
        "one-long-line",
        "invalid-bytes",
        "duplicate-key",
        "long-dotted-key",
        "date",  # one answer refused, the rest graded
        "many-keys",  # problems with the file, every answer graded
        "long-text-answer",
        "python-code",
        "variant-keys-that-are-no-numbers",  # read by the summary after the score is counted
    )
]


@pytest.mark.parametrize("hostile", GRADER_SAMPLE, ids=[h.name for h in GRADER_SAMPLE])
def test_a_hostile_file_ends_in_words_and_a_score_line_never_a_traceback(grade, tmp_path, hostile: Hostile):
    answers = tmp_path / f"{hostile.name}.toml"
    answers.write_bytes(hostile.content)
    run = grade(answers)
    assert last_line(run) == f"score: {hostile.score}/{M}"
    assert run.returncode == (0 if hostile.score == M and hostile.says is None else 1)
    if hostile.says is not None:
        assert hostile.says in run.stdout
    assert "INTERNALERROR" not in run.stdout + run.stderr
    assert_no_traceback(run)
