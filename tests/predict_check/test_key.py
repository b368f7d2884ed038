"""The answer key: cached per version of the sources that compute it, and never trusted over them.

Every expected answer is worked out here from the question's inputs, never read from the key.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from blocking import within
from predict_check import key
from predict_check.errors import AnswerKeyWarning
from predict_check.exercises import Solution
from rmsnorm_course import check
from rmsnorm_course.pages import COURSE
from rmsnorm_course.studies.cache import VARIABLE

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "rmsnorm_course"
KEY = key.key_of(COURSE)
FORGOTTEN = {"rmsnorm_course", "predict_check"}  # what a process that answers from a copy imports afresh
MEAN_SQUARE = (3.0**2 + 4.0**2) / 2  # the registered question asks about x = [3, 4]


@pytest.fixture
def cached(tmp_path, monkeypatch):
    """A key of its own, warmed with the mean square, and this process's memory of it forgotten."""
    monkeypatch.setenv(VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setattr(KEY, "solved", {})
    assert key.solution(COURSE.exercises["mean-square"]).answer == MEAN_SQUARE
    KEY.solved.clear()
    return KEY.path


def contents(path: Path) -> dict:
    """The key's data, as this user sealed it."""
    return json.loads(KEY.folder.read(path))


def sealed(path: Path, data: object) -> None:
    """``data`` written as the key, sealed by this user: as a solver or a writer gone wrong would leave it."""
    assert KEY.folder.write(path, (data if isinstance(data, bytes) else json.dumps(data).encode()))


def edit(path: Path, exercise_id: str, **fields: object) -> None:
    """Change one cached entry as a hand (or a bad disk) might, leaving the rest of the file as it was."""
    data = path.read_bytes()
    seal, _, payload = data.partition(b"\n")
    entries = json.loads(payload)
    entries["solutions"][exercise_id].update(fields)
    path.write_bytes(seal + b"\n" + json.dumps(entries).encode())


def never():
    raise AssertionError("solved again")


def test_the_answer_key_is_cached_per_version_and_read_back_without_solving(cached):
    data = contents(cached)
    assert data["version"] == COURSE.version and data["solutions"]["mean-square"]["answer"] == MEAN_SQUARE
    assert key.solution(dataclasses.replace(COURSE.exercises["mean-square"], solver=never)).answer == MEAN_SQUARE


def test_a_variant_is_solved_for_its_own_inputs_and_not_read_from_the_cached_key(cached):
    exercise = COURSE.exercises["mean-square"]
    first = exercise.variant(0)
    x1, x2 = first.given["x"]
    assert key.solution(first).answer == (x1 * x1 + x2 * x2) / 2
    assert key.solution(exercise).answer == MEAN_SQUARE  # the cached answer is still the registered question's


@pytest.mark.parametrize("spoilt", [b"not JSON at all", {"solutions": {"mean-square": 3}}, {"solutions": []}, [1, 2]])
def test_a_sealed_key_that_is_not_one_is_said_and_computed_afresh(cached, spoilt):
    sealed(cached, spoilt)
    with pytest.warns(AnswerKeyWarning, match=re.escape(str(cached))):
        assert key.solution(COURSE.exercises["mean-square"]).answer == MEAN_SQUARE
    assert contents(cached)["solutions"]["mean-square"]["answer"] == MEAN_SQUARE


def test_an_answer_edited_by_hand_is_not_trusted(cached):
    edit(cached, "mean-square", answer=1.0)  # of the right type: only the seal it was cached with tells
    with pytest.warns(AnswerKeyWarning, match=rf"{re.escape(str(cached))} is not as this user cached it"):
        assert key.solution(COURSE.exercises["mean-square"]).answer == MEAN_SQUARE
    KEY.solved.clear()
    assert (
        key.solution(dataclasses.replace(COURSE.exercises["mean-square"], solver=never)).answer == MEAN_SQUARE
    )  # cached anew


@pytest.mark.parametrize(
    ("exercise_id", "answer", "kind"),
    [("mean-square", "12.5", "number"), ("mean-square", [12.5], "number"), ("output-shape", [[2], 5, 3], "shape"),
     ("output-shape", [2, -5, 3], "shape"), ("normalized", [1.0], "vector"), ("eps-near-zero", "Z", "choice")],
)  # fmt: skip
def test_an_answer_of_the_wrong_kind_is_refused_even_with_a_matching_seal(cached, exercise_id, answer, kind):
    """As a key written by a solver that returned the wrong thing would be: said, solved again, graded rightly."""
    right = key.solution(COURSE.exercises[exercise_id])
    KEY.solved.clear()
    data = contents(cached)
    data["solutions"][exercise_id]["answer"] = answer
    sealed(cached, data)
    with pytest.warns(AnswerKeyWarning, match=f"the cached answer to {exercise_id} is not what a {kind} exercise"):
        assert key.solution(COURSE.exercises[exercise_id]).answer == right.answer
    KEY.solved.clear()
    assert check(exercise_id, COURSE.exercises[exercise_id].kind.toml(right.answer)).correct


def forged(cached: Path, tmp_path: Path, monkeypatch, answer: object) -> None:
    """The key in ``cached`` replaced by one that anyone who can write the cache folder, but not read this user's
    files, can make: the key their own run of the same code writes, with the answer they chose."""
    exercise = COURSE.exercises["mean-square"]
    with monkeypatch.context() as theirs:
        for variable, folder in (("HOME", "home"), ("XDG_CONFIG_HOME", "config"), (VARIABLE, "cache")):
            theirs.setenv(variable, str(tmp_path / "theirs" / folder))
        theirs.setattr(KEY, "solved", {})
        their_exercise = dataclasses.replace(exercise, solver=lambda **_: Solution(answer, "forged"))
        assert key.solution(their_exercise).answer == answer
    (their_key,) = (tmp_path / "theirs" / "cache").glob("answer-key-*.json")
    cached.write_bytes(their_key.read_bytes())
    KEY.solved.clear()


def test_a_key_written_by_anyone_else_is_said_and_not_trusted(cached, tmp_path, monkeypatch):
    """Whoever can write the cache folder cannot make "3" correct, even with the code that writes the key."""
    forged(cached, tmp_path, monkeypatch, 3.0)
    with pytest.warns(AnswerKeyWarning, match=re.escape(str(cached))):
        assert not check("mean-square", "3").correct
    assert check("mean-square", str(MEAN_SQUARE)).correct


def test_a_fifo_in_place_of_the_key_is_said_and_not_waited_for(cached):
    cached.unlink()
    os.mkfifo(cached)
    with pytest.warns(AnswerKeyWarning, match="not a regular file"):
        solved = within(5, lambda: key.solution(COURSE.exercises["mean-square"]), cached)
    assert solved.answer == MEAN_SQUARE


def test_a_changed_question_with_a_warm_key_is_answered_anew(tmp_path):
    """A copy of the package answers, then its question is edited: the next process sees the new answer."""
    source = tmp_path / "src"
    shutil.copytree(PACKAGE, source / "rmsnorm_course", ignore=shutil.ignore_patterns("__pycache__"))

    def verdicts(*answers: str) -> list[str]:
        """The outcome of each answer, checked in order by a process that imports the copy afresh.

        The process is forked from this one with the course and the engine forgotten: importing
        numpy and matplotlib again is most of what a new interpreter would spend.
        """
        read, write = os.pipe()
        child = os.fork()
        if child == 0:  # the new process: nothing of it returns to the tests but what it writes
            code = 70
            try:
                os.close(read)
                for name in [name for name in sys.modules if name.split(".")[0] in FORGOTTEN]:
                    del sys.modules[name]
                os.environ[VARIABLE] = str(tmp_path / "cache")
                sys.path.insert(0, str(source))
                importlib.invalidate_caches()
                course = importlib.import_module("rmsnorm_course")
                said = [course.__file__, *(course.check("mean-square", answer).outcome.name for answer in answers)]
                os.write(write, " ".join(said).encode())
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            said = pipe.read().decode()
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        imported, *outcomes = said.split()
        assert Path(imported).is_relative_to(source)  # the copy, not the package under test
        return outcomes

    assert verdicts(str(MEAN_SQUARE)) == ["CORRECT"]
    assert len(list((tmp_path / "cache").glob("answer-key-*.json"))) == 1  # warm
    registry = source / "rmsnorm_course" / "pages" / "predict.py"
    declared = r'("mean-square",.*?given=)\{"x": X\}'
    asked, count = re.subn(declared, r'\1{"x": (3.0, 5.0)}', registry.read_text(), count=1, flags=re.S)
    assert count == 1
    registry.write_text(asked, encoding="utf-8")
    assert verdicts(str((3.0**2 + 5.0**2) / 2), str(MEAN_SQUARE)) == ["CORRECT", "WRONG"]


def test_a_grade_of_record_leaves_the_process_reading_the_kept_key_again(cached):
    """Only inside a grade of record is every answer computed: a class graded in this process changes no page's key."""
    with key.key_of_record(COURSE) as answers:
        assert key.solution(COURSE.exercises["mean-square"]).answer == MEAN_SQUARE  # computed, and compared
        assert answers.said().endswith("the kept key was not trusted, only compared")
    KEY.solved.clear()  # what this process remembers forgotten: the kept key is read, not solved again
    assert key.solution(dataclasses.replace(COURSE.exercises["mean-square"], solver=never)).answer == MEAN_SQUARE
