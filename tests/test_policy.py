"""The teacher's own files, read as a teacher saves them: a policy or roster with a byte-order mark, nesting refused
in words, a roster that names a student twice refused, and a word when roster ids or a pattern match nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from classroom.__main__ import main
from classroom.policy import PolicyError, load
from hostile import SOLUTIONS
from rmsnorm_course.pages import COURSE

pytestmark = pytest.mark.usefixtures("in_a_folder_of_its_own")


def test_a_policy_and_a_roster_saved_with_a_byte_order_mark_are_read(tmp_path):
    (tmp_path / "roster.csv").write_bytes("\ufeffid,late\n102,yes\n".encode())
    policy = tmp_path / "policy.toml"
    policy.write_bytes('\ufeff[points]\nmean-square = 3\n[late]\nfactor = 0.5\nroster = "roster.csv"\n'.encode())
    chosen = load(COURSE, policy)
    assert chosen.points["mean-square"] == 3 and chosen.late_ids == {"102": True}


def test_a_policy_nested_too_deep_is_refused_in_words():
    policy = Path("policy.toml")
    policy.write_text("[points]\nmean-square = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(PolicyError, match="nests lists or tables too deep to read"):
        load(COURSE, policy)


def test_a_roster_that_names_a_student_twice_is_refused(tmp_path):
    (tmp_path / "roster.csv").write_text("id,late\n102,no\n7,no\n102,yes\n", encoding="utf-8")
    (tmp_path / "policy.toml").write_text('[late]\nroster = "roster.csv"\n', encoding="utf-8")
    with pytest.raises(PolicyError, match=re.escape("gives the id '102' on rows 2 and 4; expected each student once")):
        load(COURSE, tmp_path / "policy.toml")


def test_roster_ids_and_a_pattern_that_match_no_file_are_said(tmp_path, capsys):
    (tmp_path / "class").mkdir()
    for name in ("0102-ana.toml", "beckertom_69437_678901_answers.toml"):
        (tmp_path / "class" / name).write_text(SOLUTIONS, encoding="utf-8")
    (tmp_path / "roster.csv").write_text("id,late\n102,yes\n69437,no\n", encoding="utf-8")
    (tmp_path / "policy.toml").write_text('[late]\nroster = "roster.csv"\n', encoding="utf-8")
    assert main(["grade", "class", "--pattern", "canvas", "--policy", "policy.toml"]) == 0
    said = capsys.readouterr().err
    assert "warning: the pattern 'canvas' matches 1 of the 2 files' names, not '0102-ana.toml'" in said
    assert "warning: the roster's ids '102' match no student's file (ids are compared as written" in said
    assert main(["grade", "class", "--pattern", "{id}_{name}.toml"]) == 0
    assert "warning: the pattern '{id}_{name}.toml' matches 1 of the 2 files' names" in capsys.readouterr().err


def test_moodle_s_names_mark_no_lateness_so_without_a_deadline_or_roster_the_summary_says_it_is_unknown(
    tmp_path, capsys
):
    folder = tmp_path / "class" / "Ana Perez_301_assignsubmission_file_"
    folder.mkdir(parents=True)
    (folder / "answers.toml").write_text(SOLUTIONS, encoding="utf-8")
    assert main(["grade", "class", "--pattern", "moodle"]) == 0
    assert "late: unknown: moodle's file names carry no late mark; give one in the policy" in capsys.readouterr().out
    (tmp_path / "policy.toml").write_text("[late]\ndeadline = 2025-03-14T23:59:00+01:00\n", encoding="utf-8")
    assert main(["grade", "class", "--pattern", "moodle", "--policy", "policy.toml"]) == 0
    assert "late: unknown" not in capsys.readouterr().out
    assert main(["grade", "class", "--pattern", "canvas"]) == 0  # Canvas's names mark a late file
    assert "late: unknown" not in capsys.readouterr().out
