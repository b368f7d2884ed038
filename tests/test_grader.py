"""The pytest grader, run the way students and instructors run it: in a subprocess, on answer files.

Every run here is ``python -m pytest exercises [--answers PATH]``; the checks read its
terminal output and its ``--junitxml`` report.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hostile import HOSTILE, Hostile, with_answer
from leaks import expected_renderings
from submissions import quoted, wrong

from rmsnorm_course.exercises.answers import answers_file
from rmsnorm_course.exercises.registry import EXERCISES, Exercise

ROOT = Path(__file__).resolve().parent.parent
M = len(EXERCISES)


def command(answers: Path | None, *options: str) -> list[str]:
    # The property-testing plugin is of no use to the grader; leaving it out saves a second per run.
    line = [sys.executable, "-m", "pytest", str(ROOT / "exercises"), "-p", "no:hypothesispytest", *options]
    return line + (["--answers", str(answers)] if answers is not None else [])


def grade(answers: Path | None, *options: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(command(answers, *options), cwd=cwd, capture_output=True, text=True, timeout=300)


def last_line(run: subprocess.CompletedProcess) -> str:
    return run.stdout.rstrip().splitlines()[-1]


def assert_no_traceback(run: subprocess.CompletedProcess) -> None:
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


def test_the_reference_answers_pass_every_test(tmp_path):
    answers, report = tmp_path / "solutions.toml", tmp_path / "report.xml"
    answers.write_text(answers_file(solutions=True), encoding="utf-8")
    before = (answers.read_bytes(), answers.stat().st_mtime_ns)
    run = grade(answers, "--junitxml", str(report))
    assert run.returncode == 0, run.stdout
    assert last_line(run) == f"score: {M}/{M}"
    assert f"{M} passed" in run.stdout
    assert failures(report) == dict.fromkeys(EXERCISES)
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite.get("tests") == str(M) and suite.get("failures") == "0"
    assert suite.find("properties/property[@name='score']").get("value") == f"{M}/{M}"
    assert (answers.read_bytes(), answers.stat().st_mtime_ns) == before


def test_the_blank_template_fails_every_test_as_not_answered(tmp_path):
    answers, report = tmp_path / "answers.toml", tmp_path / "report.xml"
    answers.write_text(answers_file(), encoding="utf-8")
    run = grade(answers, "-v", "--junitxml", str(report))
    assert run.returncode == 1
    assert last_line(run) == f"score: 0/{M}"
    assert run.stdout.count(" NOT ANSWERED") >= M
    messages = failures(report)
    assert set(messages) == set(EXERCISES)
    for exercise_id, message in messages.items():
        assert f"{exercise_id} (line " in message and "not answered" in message
    assert_no_traceback(run)


def test_without_answers_option_the_shipped_file_is_graded_and_left_alone():
    shipped = ROOT / "exercises" / "answers.toml"
    before = (shipped.read_bytes(), shipped.stat().st_mtime_ns)
    run = grade(None)
    assert f"answers file: {shipped}" in run.stdout
    assert re.fullmatch(rf"score: \d+/{M}", last_line(run))
    assert (shipped.read_bytes(), shipped.stat().st_mtime_ns) == before


@pytest.fixture(scope="module")
def one_wrong_runs(tmp_path_factory):
    """For each exercise, grade a file in which only that answer is wrong (one run per core at a time)."""
    folder = tmp_path_factory.mktemp("one-wrong")

    def run(exercise: Exercise) -> tuple[subprocess.CompletedProcess, Path]:
        answers, report = folder / f"{exercise.id}.toml", folder / f"{exercise.id}.xml"
        answers.write_text(with_answer(exercise.id, wrong(exercise)), encoding="utf-8")
        return grade(answers, "--junitxml", str(report)), report

    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        return dict(zip(EXERCISES, pool.map(run, EXERCISES.values())))


@pytest.mark.parametrize("exercise", EXERCISES.values(), ids=list(EXERCISES))
def test_one_wrong_answer_fails_exactly_its_test_with_its_hint(one_wrong_runs, exercise):
    run, report = one_wrong_runs[exercise.id]
    assert run.returncode == 1
    assert last_line(run) == f"score: {M - 1}/{M}"
    messages = failures(report)
    assert [i for i, message in messages.items() if message is not None] == [exercise.id]
    message = messages[exercise.id]
    assert "Not yet, you said" in message and f"Hint: {exercise.hint}" in message
    for rendering in expected_renderings(exercise):
        assert rendering not in message and rendering not in run.stdout.split("short test summary")[0]
    assert_no_traceback(run)


def test_a_malformed_file_names_the_line_and_grades_nothing(tmp_path):
    answers = tmp_path / "answers.toml"
    answers.write_text(with_answer("reciprocal-rms", ""), encoding="utf-8")  # the value left out
    line = answers.read_text().splitlines().index("reciprocal-rms = ") + 1
    report = tmp_path / "report.xml"
    run = grade(answers, "--junitxml", str(report))
    assert run.returncode == 1
    assert last_line(run) == f"score: 0/{M}"
    assert f"is not valid TOML: Invalid value (at line {line}," in run.stdout
    assert "answers file problems" in run.stdout
    assert all("not graded" in message for message in failures(report).values())
    assert_no_traceback(run)


def test_an_answer_of_the_wrong_kind_is_named_by_id_and_line(tmp_path):
    answers = tmp_path / "answers.toml"
    answers.write_text(with_answer("mean-square", '"twelve"'), encoding="utf-8")
    line = answers.read_text().splitlines().index('mean-square = "twelve"') + 1
    run = grade(answers)
    assert run.returncode == 1
    assert f"mean-square (line {line}): ✗ Cannot read this answer: expected a number" in run.stdout
    assert last_line(run) == f"score: {M - 1}/{M}"
    assert_no_traceback(run)


def test_an_unknown_id_is_named_and_fails_the_run_even_when_every_answer_is_right(tmp_path):
    answers = tmp_path / "answers.toml"
    text = answers_file(True) + "mean-sqare = 12.5\n"
    answers.write_text(text, encoding="utf-8")
    run = grade(answers)
    assert run.returncode == 1
    line = len(text.splitlines())
    assert f"line {line}: there is no exercise 'mean-sqare'; did you mean 'mean-square'?" in run.stdout
    assert last_line(run) == f"score: {M}/{M}"
    assert_no_traceback(run)


def test_a_relative_answers_path_is_read_from_where_pytest_starts(tmp_path):
    (tmp_path / "mine.toml").write_text(answers_file(True), encoding="utf-8")
    run = grade(Path("mine.toml"), cwd=tmp_path)
    assert run.returncode == 0, run.stdout
    assert f"answers file: {tmp_path / 'mine.toml'}" in run.stdout
    assert last_line(run) == f"score: {M}/{M}"


def test_every_right_answer_typed_inside_the_quotes_is_graded_right(tmp_path):
    text = answers_file(True)
    for exercise in EXERCISES.values():
        text = with_answer(exercise.id, quoted(exercise), text)
    answers = tmp_path / "answers.toml"
    answers.write_text(text, encoding="utf-8")
    assert 'reciprocal-rms = "0.282843"' in text and 'output-shape = "[2, 5, 3]"' in text
    run = grade(answers)
    assert run.returncode == 0, run.stdout
    assert last_line(run) == f"score: {M}/{M}"


# One hostile file per way the grader can end (the whole table is read in-process by
# test_toml_reader, and graded in one run by test_gradebook): each run here takes a second.
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
    )
]


@pytest.fixture(scope="module")
def hostile_runs(tmp_path_factory):
    """Each sampled hostile file graded by the pytest grader (two runs at a time)."""
    folder = tmp_path_factory.mktemp("hostile")

    def run(hostile: Hostile) -> subprocess.CompletedProcess:
        answers = folder / f"{hostile.name}.toml"
        answers.write_bytes(hostile.content)
        return grade(answers)

    with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        return dict(zip((h.name for h in GRADER_SAMPLE), pool.map(run, GRADER_SAMPLE)))


@pytest.mark.parametrize("hostile", GRADER_SAMPLE, ids=[h.name for h in GRADER_SAMPLE])
def test_a_hostile_file_ends_in_words_and_a_score_line_never_a_traceback(hostile_runs, hostile: Hostile):
    run = hostile_runs[hostile.name]
    assert last_line(run) == f"score: {hostile.score}/{M}"
    assert run.returncode == (0 if hostile.score == M and hostile.says is None else 1)
    if hostile.says is not None:
        assert hostile.says in run.stdout
    assert "INTERNALERROR" not in run.stdout + run.stderr
    assert_no_traceback(run)
