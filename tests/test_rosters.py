"""Rosters and LMS exports as long as a university's: the duplicate-id check makes one look-up per row (never a
count of the whole list per row), the rows it names are the file's own, a long read says how far it has got, and a
column out of no finite number of points above 0 is refused in words.

No test times anything: the linear check is counted in comparisons, and the rows are named as the file numbers them.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from classroom import lms, students
from classroom.policy import PolicyError, load
from rmsnorm_course.pages import COURSE

CANVAS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "RMSNorm predictions (4242)"]
MOODLE = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade", "Feedback comments"]


class Counted(str):
    """An id that counts how often it is compared for equality: what a quadratic check does n * n times."""

    comparisons = 0

    def __eq__(self, other: object) -> bool:
        Counted.comparisons += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def roster(folder: Path, ids: list[str]) -> Path:
    """A policy whose late roster gives ``ids``, in order, one a row."""
    (folder / "roster.csv").write_text("id,late\n" + "".join(f"{i},no\n" for i in ids), encoding="utf-8")
    (folder / "policy.toml").write_text('[late]\nroster = "roster.csv"\n', encoding="utf-8")
    return folder / "policy.toml"


def canvas(folder: Path, ids: list[str], points: str = "42.00") -> Path:
    rows = [CANVAS, ["    Points Possible", "", "", "", "", points]]
    rows += [[f"Student {n}", i, f"S{n}", f"login{n}", "RMSNorm 101", ""] for n, i in enumerate(ids)]
    with (folder / "export.csv").open("w", encoding="utf-8", newline="") as file:
        csv.writer(file).writerows(rows)
    return folder / "export.csv"


def moodle(folder: Path, maximum: str) -> Path:
    rows = [MOODLE, ["Participant 301", "Ana Pérez", "ana@example.com", "Submitted", "", maximum, ""]]
    with (folder / "worksheet.csv").open("w", encoding="utf-8", newline="") as file:
        csv.writer(file).writerows(rows)
    return folder / "worksheet.csv"


@pytest.mark.parametrize("size", [1_000, 4_000])
def test_the_duplicate_check_compares_each_id_a_bounded_number_of_times(size):
    """One repeat, at the very end: a count per id would compare about size * size / 2 times."""
    ids = [Counted(f"{n:07d}") for n in range(size)] + [Counted(f"{size - 1:07d}")]
    Counted.comparisons = 0
    assert students.repeated(ids) == (f"{size - 1:07d}", [size - 1, size])
    assert Counted.comparisons <= 2 * len(ids)


@pytest.mark.parametrize(
    ("ids", "expected"),
    [(["7", "8", "9"], None), (["102", "7", "102"], ("102", [0, 2])), (["1", "2", "2", "1", "2"], ("2", [1, 2, 4]))],
)
def test_the_duplicate_check_names_the_first_id_given_again_and_every_place_it_is_at(ids, expected):
    assert students.repeated(ids) == expected


def test_a_roster_s_repeated_id_is_named_on_the_rows_the_file_numbers_even_after_rows_without_an_id(tmp_path):
    policy = roster(tmp_path, ["102", "", "7", "  ", "102", *map(str, range(1000, 3000)), "102"])
    expected = "gives the id '102' on rows 2 and 6 and 2007; expected each student once"
    with pytest.raises(PolicyError, match=re.escape(expected)):
        load(COURSE, policy)


def test_an_export_s_repeated_id_is_named_on_its_lines(tmp_path):
    export = canvas(tmp_path, [*map(str, range(500, 2500)), "501"])
    with pytest.raises(lms.LmsError, match=re.escape("gives the ID '501' on lines 4 and 2003; expected each student")):
        lms.read(export, "RMSNorm predictions")


def test_a_long_roster_and_a_long_export_say_how_far_they_have_been_read(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(students, "PROGRESS", 2)
    ids = [str(n) for n in range(1, 6)]
    assert set(load(COURSE, roster(tmp_path, ids)).late_ids) == set(ids)
    said = capsys.readouterr().err.splitlines()
    assert [line.rpartition(": ")[2] for line in said] == ["2 rows so far", "4 rows so far"]
    assert all(line.startswith("reading the roster ") and "roster.csv" in line for line in said)
    lms.read(canvas(tmp_path, ids), "RMSNorm predictions")  # a header, Points Possible and five students
    assert capsys.readouterr().err.count("rows so far") == 3


@pytest.mark.parametrize("points", ["nan", "NaN", "inf", "-inf", "1e400", "0", "0.00", "-42"])
@pytest.mark.parametrize("lms_name", ["canvas", "moodle"])
def test_a_column_out_of_no_finite_number_of_points_above_0_is_refused_in_words(tmp_path, points, lms_name):
    export = canvas(tmp_path, ["69437"], points) if lms_name == "canvas" else moodle(tmp_path, points)
    said = "Points Possible" if lms_name == "canvas" else "Maximum Grade"
    with pytest.raises(lms.LmsError, match=re.escape(f"is out of '{points}' points (its {said}); expected a number")):
        lms.read(export, "RMSNorm predictions" if lms_name == "canvas" else None)


@pytest.mark.parametrize(("points", "maximum"), [("42.00", 42.0), ("", None), ("0.5", 0.5)])
def test_a_column_out_of_a_number_of_points_or_none_is_read(tmp_path, points, maximum):
    assert lms.read(canvas(tmp_path, ["69437"], points), "RMSNorm predictions").maximum == maximum
