"""A class's grade of record trusts no kept file: each answer is computed in the run, the kept key only compared with
it, and the summary says so. The forger here holds all a same-user process holds, the secret too: it rewrites an
answer and seals the file anew, so that the seal alone cannot tell.

The expected mean square is worked out here from the question's inputs, never read from the key.
"""

from __future__ import annotations

import json

import pytest

from classroom.__main__ import main
from predict_check import key
from rmsnorm_course import check
from rmsnorm_course.pages import COURSE
from rmsnorm_course.studies.cache import VARIABLE

KEY = key.key_of(COURSE)
MEAN_SQUARE = (3.0**2 + 4.0**2) / 2  # the registered question asks about x = [3, 4]
FORGED = 3.0


@pytest.fixture
def forged_key(tmp_path, monkeypatch):
    """A key of its own with the mean square kept, then rewritten to 3 and sealed anew with this user's secret."""
    monkeypatch.setenv(VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name, value in (("solved", {}), ("computed", set()), ("of_record", False), ("differ", []), ("_read", None)):
        monkeypatch.setattr(KEY, name, value)
    assert key.solution(COURSE.exercises["mean-square"]).answer == MEAN_SQUARE
    data = json.loads(KEY.folder.read(KEY.path))
    data["solutions"]["mean-square"]["answer"] = FORGED
    assert KEY.folder.write(KEY.path, json.dumps(data).encode())  # the answer and its seal, rewritten
    KEY.solved.clear()
    KEY.computed.clear()


def test_a_forged_and_resealed_key_fools_the_trusting_check(forged_key):
    """What the classroom must not do: the student's own check trusts what this user sealed."""
    assert check("mean-square", "3").correct


def test_the_class_is_graded_against_answers_computed_in_the_run_and_the_summary_says_the_kept_key_differed(
    forged_key, tmp_path, capsys
):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "right.toml").write_text(f'id = "1"\nmean-square = "{MEAN_SQUARE:g}"\n', encoding="utf-8")
    (folder / "forged.toml").write_text(f'id = "2"\nmean-square = "{FORGED:g}"\n', encoding="utf-8")
    assert main(["grade", "--", str(folder / "right.toml"), str(folder / "forged.toml")]) == 0
    said = capsys.readouterr().out
    scores = [line.split()[1] for line in said.splitlines() if line.startswith("score: ")]
    assert scores == ["1/42", "0/42"]
    assert f"answer key: every answer computed in this run by {COURSE.name} {COURSE.version}" in said
    assert "the kept key said otherwise for mean-square, and was not used" in said
    KEY.solved.clear()
    assert not check("mean-square", "3").correct  # the kept key is written anew, right


def test_a_kept_key_that_agrees_is_said_to_be_compared_not_trusted(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name, value in (("solved", {}), ("computed", set()), ("of_record", False), ("differ", []), ("_read", None)):
        monkeypatch.setattr(KEY, name, value)
    key.solution(COURSE.exercises["mean-square"])
    (tmp_path / "one.toml").write_text(f'mean-square = "{MEAN_SQUARE:g}"\n', encoding="utf-8")
    assert main(["grade", "--", str(tmp_path / "one.toml")]) == 0
    said = capsys.readouterr().out
    assert "computed in this run" in said and "the kept key was not trusted, only compared" in said
    assert "said otherwise" not in said
