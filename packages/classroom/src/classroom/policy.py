"""How a class's answers become points: per exercise, for "right so far", and for a late file.

The default is one point for each right answer and nothing else: the score the
pytest grader prints. A teacher changes it with a policy file, TOML like this::

    [points]            # points per exercise; any exercise not named gets the default
    default = 1
    grad-x = 2

    [credit]
    right-so-far = 0.5  # the share of an exercise's points for an answer right to fewer decimals than asked

    [late]
    factor = 0.8                          # a late file's points are multiplied by this
    deadline = 2025-03-14T23:59:00+01:00  # a file last changed after this is late (its own time)
    roster = "late.csv"                   # or: a CSV with an "id" column and this column,
    column = "late"                       #     where yes, true, 1 or late marks a late file

An exercise worth 0 points is not assigned: no page, summary or gradebook shows it, and where one
is named (a wrong answer follows from it) it is named with ``NOT_ASSIGNED``, the same words everywhere.
A file is late when the roster says so (a student the roster names is decided by
it alone), else when its LMS file name marks it late (Canvas writes ``LATE``), else
when it was changed after the deadline. A roster with a ``name`` column names its
students too. The policy file and the roster are read as data (UTF-8, with or without
a byte-order mark); anything in them that is not one of these is refused with what
was expected.
"""

from __future__ import annotations

import csv
import datetime
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from predict_check import Course, GradingError, Outcome, quoted, visible

from .students import counted, repeated

LATE_WORDS = ("yes", "y", "true", "1", "late", "x")
NOT_ASSIGNED = "not assigned, 0 points"  # an exercise the policy gives no points, wherever it is named
LARGEST_POINTS = 1_000


class PolicyError(GradingError):
    """A policy file that cannot be used: it says what was wrong and what was expected."""

    boundary = "policy"


@dataclass(frozen=True)
class Policy:
    """Points per exercise, the credit for "right so far", and what makes a file late and what that costs."""

    points: Mapping[str, float]  # every exercise's, in the course's order
    right_so_far: float = 0.0
    late_factor: float = 1.0
    deadline: datetime.datetime | None = None
    late_ids: Mapping[str, bool] = field(default_factory=dict)  # from the roster: id -> late
    names: Mapping[str, str] = field(default_factory=dict)  # from the roster: id -> name

    @classmethod
    def default(cls, course: Course) -> Policy:
        """One point an exercise, and nothing else counts: the score a student's own grader prints."""
        return cls(dict.fromkeys(course.exercises, 1.0))

    @property
    def maximum(self) -> float:
        return sum(self.points.values())

    @property
    def assigned(self) -> list[str]:
        """The exercises worth points, in the course's order: the ones pages, summary and gradebook show."""
        return [exercise_id for exercise_id, points in self.points.items() if points > 0]

    def credit(self, outcome: Outcome) -> float:
        """The share of an exercise's points an outcome earns."""
        return 1.0 if outcome is Outcome.CORRECT else self.right_so_far if outcome is Outcome.CLOSE else 0.0

    def earned(self, outcomes: Sequence[Outcome]) -> list[float]:
        """Each exercise's points, in the registry's order."""
        return [points * self.credit(o) for points, o in zip(self.points.values(), outcomes, strict=True)]

    def late(self, student_id: str | None, marked_late: bool, changed: float | None) -> bool:
        """Whether a file is late: by the roster, else the LMS's mark, else its time against the deadline."""
        if student_id is not None and student_id in self.late_ids:
            return self.late_ids[student_id]
        if marked_late:
            return True
        return self.deadline is not None and changed is not None and changed > self.deadline.timestamp()


def load(course: Course, path: Path) -> Policy:
    """The policy in a TOML file, every value checked; a ``PolicyError`` says what is wrong."""
    name = visible(str(path))
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as error:
        raise PolicyError(f"cannot read the policy file {name}: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise PolicyError(f"the policy file {name} is not TOML in UTF-8: {error}") from None
    except RecursionError:
        raise PolicyError(f"the policy file {name} nests lists or tables too deep to read; expected "
                          "[points], [credit] and [late] tables of numbers and text") from None  # fmt: skip
    unknown = set(data) - {"points", "credit", "late"}
    if unknown:
        first = quoted(sorted(unknown)[0])
        raise PolicyError(f"the policy file {name} has {first}; expected [points], [credit], [late]")
    points = _points(course, data.get("points", {}), name)
    credit = _table(data.get("credit", {}), name, "credit", {"right-so-far"})
    late = _table(data.get("late", {}), name, "late", {"factor", "deadline", "roster", "column"})
    deadline = late.get("deadline")
    if deadline is not None:
        if not isinstance(deadline, datetime.datetime) or deadline.tzinfo is None:
            example = "2025-03-14T23:59:00Z"
            raise PolicyError(f"{name}: late.deadline must be a date and time with its offset, like {example}")
    roster: list[dict[str, str]] = []
    column = _text(late.get("column", "late"), name, "late.column")
    if "roster" in late:
        roster = _roster(path.parent / _text(late["roster"], name, "late.roster"), column)
    return Policy(
        points,
        _share(credit.get("right-so-far", 0.0), name, "credit.right-so-far"),
        _share(late.get("factor", 1.0), name, "late.factor"),
        deadline,
        {row["id"]: (row[column] or "").strip().lower() in LATE_WORDS for row in roster},
        {row["id"]: row["name"].strip() for row in roster if (row.get("name") or "").strip()},
    )


def _table(value: object, name: str, table: str, keys: set[str]) -> dict[str, object]:
    if not isinstance(value, dict):
        raise PolicyError(f"{name}: {table} must be a table, [{table}]")
    unknown = set(value) - keys
    if unknown:
        expected = ", ".join(sorted(keys))
        raise PolicyError(f"{name}: [{table}] has {quoted(sorted(unknown)[0])}; expected {expected}")
    return value


def _number(value: object, name: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PolicyError(f"{name}: {where} must be a number")
    return float(value)


def _share(value: object, name: str, where: str) -> float:
    share = _number(value, name, where)
    if not 0 <= share <= 1:
        raise PolicyError(f"{name}: {where} must be between 0 and 1; it is {share:g}")
    return share


def _text(value: object, name: str, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise PolicyError(f"{name}: {where} must be text in quotes")
    return value


def _points(course: Course, table: object, name: str) -> dict[str, float]:
    table = _table(table, name, "points", {"default", *course.exercises})
    default = _number(table.get("default", 1), name, "points.default")
    points = {}
    for exercise_id in course.exercises:
        value = _number(table.get(exercise_id, default), name, f"points.{exercise_id}")
        if not 0 <= value <= LARGEST_POINTS:
            raise PolicyError(f"{name}: points.{exercise_id} must be between 0 and {LARGEST_POINTS}")
        points[exercise_id] = value
    if sum(points.values()) == 0:
        raise PolicyError(f"{name}: every exercise is worth 0 points; expected at least one worth more")
    return points


def _roster(path: Path, column: str) -> list[dict[str, str]]:
    """The rows of a CSV the teacher keeps (an ``id`` column and the named one), each student once."""
    name = visible(str(path))
    try:
        with path.open(encoding="utf-8-sig", newline="") as file:
            rows = list(counted(csv.DictReader(file), f"the roster {name}"))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise PolicyError(f"cannot read the roster {name}: {error}") from None
    if not rows or "id" not in rows[0] or column not in rows[0]:
        raise PolicyError(f"the roster {name} needs an 'id' column and a {quoted(column)} column")
    kept = [(n, {**row, "id": row["id"].strip()}) for n, row in enumerate(rows, start=2) if (row["id"] or "").strip()]
    twice = repeated([row["id"] for _, row in kept])
    if twice is not None:
        lines = " and ".join(str(kept[place][0]) for place in twice[1])
        raise PolicyError(f"the roster {name} gives the id {quoted(twice[0])} on rows {lines}; "
                          "expected each student once")  # fmt: skip
    return [row for _, row in kept]
