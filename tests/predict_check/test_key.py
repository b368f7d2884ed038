"""The answer key: kept per version of the sources that compute it, and never trusted over them.

Every expected answer is worked out here from the question's inputs, never read from the key.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from predict_check import key
from predict_check.errors import AnswerKeyWarning

from rmsnorm_course import check
from rmsnorm_course.pages import COURSE
from rmsnorm_course.studies import kept as keeping

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "rmsnorm_course"
KEY = key.key_of(COURSE)
MEAN_SQUARE = (3.0**2 + 4.0**2) / 2  # the registered question asks about x = [3, 4]


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """A key of its own, warmed with the mean square, and this process's memory of it forgotten."""
    monkeypatch.setenv(keeping.VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setattr(KEY, "solved", {})
    assert key.solution(COURSE.exercises["mean-square"]).answer == MEAN_SQUARE
    KEY.solved.clear()
    return KEY.path


def edit(path: Path, exercise_id: str, **fields: object) -> None:
    """Change one kept entry as a hand (or a bad disk) might, leaving the rest of the file as it was."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["solutions"][exercise_id].update(fields)
    path.write_text(json.dumps(data), encoding="utf-8")


def never():
    raise AssertionError("solved again")


def test_the_answer_key_is_kept_per_version_and_read_back_without_solving(kept):
    data = json.loads(kept.read_text(encoding="utf-8"))
    assert data["version"] == COURSE.version and data["solutions"]["mean-square"]["answer"] == MEAN_SQUARE
    assert key.solution(dataclasses.replace(COURSE.exercises["mean-square"], solver=never)).answer == MEAN_SQUARE


def test_a_variant_is_solved_for_its_own_inputs_and_not_read_from_the_kept_key(kept):
    exercise = COURSE.exercises["mean-square"]
    first = exercise.variant(0)
    x1, x2 = first.given["x"]
    assert key.solution(first).answer == (x1 * x1 + x2 * x2) / 2
    assert key.solution(exercise).answer == MEAN_SQUARE  # the kept answer is still the registered question's


def test_a_key_that_is_not_one_is_said_and_computed_afresh(kept):
    for spoilt in ("not JSON at all", '{"fingerprint": "' + KEY.fingerprint + '", "solutions": {"mean-square": 3}}'):
        kept.write_text(spoilt, encoding="utf-8")
        KEY.solved.clear()
        with pytest.warns(AnswerKeyWarning, match=re.escape(str(kept))):
            assert key.solution(COURSE.exercises["mean-square"]).answer == MEAN_SQUARE
        assert json.loads(kept.read_text(encoding="utf-8"))["solutions"]["mean-square"]["answer"] == MEAN_SQUARE


def test_an_answer_edited_by_hand_is_not_trusted(kept):
    edit(kept, "mean-square", answer=1.0)  # of the right type: only the digest it was kept with tells
    with pytest.warns(AnswerKeyWarning, match=rf"{re.escape(str(kept))}: the kept answer to mean-square is not as"):
        assert key.solution(COURSE.exercises["mean-square"]).answer == MEAN_SQUARE
    KEY.solved.clear()
    assert (
        key.solution(dataclasses.replace(COURSE.exercises["mean-square"], solver=never)).answer == MEAN_SQUARE
    )  # kept anew


@pytest.mark.parametrize(
    ("exercise_id", "answer", "kind"),
    [("mean-square", "12.5", "number"), ("mean-square", [12.5], "number"), ("output-shape", [[2], 5, 3], "shape"),
     ("output-shape", [2, -5, 3], "shape"), ("normalized", [1.0], "vector"), ("eps-near-zero", "Z", "choice")],
)  # fmt: skip
def test_an_answer_of_the_wrong_kind_is_refused_even_with_a_matching_digest(kept, exercise_id, answer, kind):
    """As a key written by a solver that returned the wrong thing would be: said, solved again, graded rightly."""
    right = key.solution(COURSE.exercises[exercise_id])
    KEY.solved.clear()
    data = json.loads(kept.read_text(encoding="utf-8"))
    entry = {name: value for name, value in data["solutions"][exercise_id].items() if name != "digest"}
    entry["answer"] = answer
    edit(kept, exercise_id, answer=answer, digest=KEY._digest(entry))
    with pytest.warns(AnswerKeyWarning, match=f"the kept answer to {exercise_id} is not what a {kind} exercise takes"):
        assert key.solution(COURSE.exercises[exercise_id]).answer == right.answer
    KEY.solved.clear()
    assert check(exercise_id, COURSE.exercises[exercise_id].kind.toml(right.answer)).correct


def test_a_changed_question_with_a_warm_key_is_answered_anew(tmp_path):
    """A copy of the package answers, then its question is edited: the next process sees the new answer."""
    source = tmp_path / "src"
    shutil.copytree(PACKAGE, source / "rmsnorm_course", ignore=shutil.ignore_patterns("__pycache__"))
    environment = dict(os.environ, PYTHONPATH=str(source), **{keeping.VARIABLE: str(tmp_path / "cache")})

    def verdict(answer: str) -> str:
        code = f"import rmsnorm_course as c; print(c.__file__); print(c.check('mean-square', {answer!r}).outcome.name)"
        run = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True)
        imported, outcome = run.stdout.split()
        assert Path(imported).is_relative_to(source)  # the copy, not the package under test
        return outcome

    assert verdict(str(MEAN_SQUARE)) == "CORRECT"
    assert len(list((tmp_path / "cache").glob("answer-key-*.json"))) == 1  # warm
    registry = source / "rmsnorm_course" / "pages" / "predict.py"
    declared = r'("mean-square",.*?given=)\{"x": X\}'
    asked, count = re.subn(declared, r'\1{"x": (3.0, 5.0)}', registry.read_text(), count=1, flags=re.S)
    assert count == 1
    registry.write_text(asked, encoding="utf-8")
    assert verdict(str((3.0**2 + 5.0**2) / 2)) == "CORRECT"
    assert verdict(str(MEAN_SQUARE)) == "WRONG"
