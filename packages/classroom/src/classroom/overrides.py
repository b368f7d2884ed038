"""A teacher's regrades: ``overrides.toml`` sets one student's exercise to a verdict or to points, with a reason.

    [69437.circle-image]    # the student: an id, a name in quotes, or a SIS id, login or email the export gives
    verdict = "correct"     # correct, right so far, wrong or not answered; or instead
    points = 1.5            # the exercise's points, at most what the policy gives it
    reason = "116.6 degrees is the angle asked: right."

The reason is shown on the student's page and in the long gradebook. An exercise's override
settles that exercise's items in the review queue, whatever kept it from being read (its
answer, or its line), and says so there; a row is released once none is left. A row held
for review is released by ``settled``, its reason shown in the gradebook's problems and the
review queue; a row's points set by hand (an integrity case) release it too:

    [1028]                  # the student
    settled = "Looked: a line slipped; graded as it stands."

    ["ana@uni.edu"]
    points = 0
    reason = "An edited copy of the answer key: integrity case 14."

Every student and exercise named must be in the gradebook: one that is not is refused,
with what was expected. Tables that name one student twice (by id and by name) are one:
merged, or refused where both set the same thing otherwise.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from predict_check import Course, GradingError, Outcome, quoted, visible

from .gradebook import GradedFile
from .lms import ID_COLUMNS, Export
from .policy import Policy

SETTLED = "settled"  # the key that releases a row held for review, with the reason
ROW = "points"  # a student's own points = ...: the whole row's points, set by hand, with a reason = ... beside it
IDENTITIES = ("SIS User ID", "SIS Login ID", "Email", "Email address", "ID number", "Username")  # the export's others
VERDICTS = {outcome.value: outcome for outcome in Outcome if outcome is not Outcome.UNREADABLE}


class OverridesError(GradingError):
    """An overrides file that cannot be used: it says what was wrong and what was expected."""

    boundary = "overrides"


@dataclass(frozen=True)
class Override:
    """An exercise set by hand: to an outcome (its points follow the policy) or to points, and why; or a row settled."""

    outcome: Outcome | None
    points: float | None
    reason: str


def load(course: Course, policy: Policy, path: Path) -> dict[str, dict[str, Override]]:
    """Student (id or name) -> exercise -> its override, every value checked."""
    name = visible(str(path))
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as error:
        raise OverridesError(f"cannot read the overrides file {name}: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as error:
        raise OverridesError(f"the overrides file {name} is not TOML in UTF-8: {error}") from None
    return {student: _table(course, policy, name, student, table) for student, table in _tables(data, name).items()}


def _table(course: Course, policy: Policy, name: str, student: str, table: Mapping[str, object]) -> dict:
    """One student's table: its exercises' overrides, ``settled``, and the row's own points, each checked."""
    read = {
        exercise: _settled(name, student, value)
        if exercise == SETTLED
        else _override(course, policy, name, student, exercise, value)
        for exercise, value in table.items()
        if exercise not in (ROW, "reason")
    }
    if ROW in table or "reason" in table:
        read[ROW] = _row(policy, name, student, table.get(ROW), table.get("reason"))
    return read


def _row(policy: Policy, name: str, student: str, points: object, reason: object) -> Override:
    where = f"{name}: [{visible(student)}]"
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not 0 <= points <= policy.maximum:
        raise OverridesError(f"{where}: the row's points must be a number from 0 to {policy.maximum:g}, the "
                             'maximum, with a reason, like  points = 0  reason = "integrity case: ..."')  # fmt: skip
    if not isinstance(reason, str) or not reason.strip():
        raise OverridesError(f'{where}: the row\'s points need a reason in quotes, like  reason = "integrity case"')
    return Override(None, float(points), reason.strip())


def _tables(data: Mapping[str, object], name: str) -> Mapping[str, Mapping[str, object]]:
    for student, table in data.items():
        keys = (SETTLED, ROW, "reason")
        exercises = [value for key, value in table.items() if key not in keys] if isinstance(table, dict) else []
        if not isinstance(table, dict) or not all(isinstance(value, dict) for value in exercises):
            raise OverridesError(f"{name}: {quoted(student)} must hold tables like [{student}.mean-square]")
    return data


def _settled(name: str, student: str, reason: object) -> Override:
    if not isinstance(reason, str) or not reason.strip():
        raise OverridesError(f'{name}: [{visible(student)}]: expected settled = "the reason", in quotes')
    return Override(None, None, reason.strip())


def _override(course: Course, policy: Policy, name: str, student: str, exercise: str, value: dict) -> Override:
    where = f"{name}: [{visible(student)}.{visible(exercise)}]"
    try:
        course.get(exercise)
    except GradingError as error:  # no such exercise
        raise OverridesError(f"{where}: {error}") from None
    if policy.points[exercise] == 0:
        raise OverridesError(f"{where}: the policy assigns no points to {exercise}; expected an assigned exercise")
    reason, verdict, points = value.get("reason"), value.get("verdict"), value.get("points")
    if set(value) - {"reason", "verdict", "points"} or (verdict is None) == (points is None):
        raise OverridesError(f"{where}: expected a verdict or points, and a reason")
    if not isinstance(reason, str) or not reason.strip():
        raise OverridesError(f'{where}: expected a reason in quotes, like  reason = "regrade request: ..."')
    if verdict is not None and verdict not in VERDICTS:
        raise OverridesError(f"{where}: verdict must be one of {', '.join(VERDICTS)}")
    largest = policy.points[exercise]
    if points is not None and (
        isinstance(points, bool) or not isinstance(points, (int, float)) or not 0 <= points <= largest
    ):
        raise OverridesError(f"{where}: points must be a number from 0 to {largest:g}, the exercise's points")
    return Override(VERDICTS.get(verdict), None if points is None else float(points), reason.strip())


def identities(export: Export | None) -> dict[str, str]:
    """Each other identity the LMS's export gives a student (SIS id, login, email) -> the LMS's own id.

    So one overrides file serves Canvas and Moodle: both give the university's SIS id, login or email.
    """
    if export is None:
        return {}
    first = ID_COLUMNS[export.lms][0]
    said = [column for column in IDENTITIES if column in export.header]
    return {
        export.cell(export.rows[n], column): export.cell(export.rows[n], first)
        for n in export.students
        for column in said
        if export.cell(export.rows[n], column)
    }


def apply(
    rows: Sequence[GradedFile],
    overrides: Mapping[str, Mapping[str, Override]],
    policy: Policy,
    aliases: Mapping[str, str] | None = None,
) -> list[GradedFile]:
    """Each row with its overrides applied; a student named that no row is refused with the nearest names.

    A student may be named by id, name, or another identity the export gives (``identities``);
    tables that name one row are merged, and refused where they set one thing two ways.
    """
    known = {key: row for row in rows for key in (row.student.id, row.student.name) if key}
    by_id = {row.student.id: row for row in rows if row.student.id}
    for alias, lms_id in (aliases or {}).items():
        if lms_id in by_id:
            known.setdefault(alias, by_id[lms_id])
    changed: dict[int, dict[str, Override]] = {}
    named: dict[tuple[int, str], str] = {}
    for student, table in overrides.items():
        row = known.get(student)
        if row is None:
            near = difflib.get_close_matches(student, list(known), n=3)
            expected = (
                f"did you mean {' or '.join(map(quoted, near))}?"
                if near
                else "expected an id or a name of the gradebook"
            )
            raise OverridesError(f"the overrides name no student {quoted(student)}; {expected}")
        merged = changed.setdefault(id(row), {})
        for key, override in table.items():
            if key in merged and merged[key] != override:
                raise OverridesError(
                    f"the overrides name one student twice, as {quoted(named[id(row), key])} and {quoted(student)}, "
                    f"and set {visible(key)} two ways; expected it set once"
                )
            merged[key], named[id(row), key] = override, student
    return [_regraded(row, changed[id(row)], policy) if id(row) in changed else row for row in rows]


def _regraded(row: GradedFile, table: Mapping[str, Override], policy: Policy) -> GradedFile:
    verdicts, points, right = list(row.verdicts), list(row.points), set(row.right)
    for position, verdict in enumerate(row.verdicts):
        override = table.get(verdict.exercise_id)
        if override is None:
            continue
        if override.outcome is not None:
            verdicts[position] = replace(verdict, outcome=override.outcome)
            points[position] = policy.points[verdict.exercise_id] * policy.credit(override.outcome)
            right.discard(verdict.exercise_id)
            right |= {verdict.exercise_id} if override.outcome is Outcome.CORRECT else set()
        else:
            points[position] = override.points
    reasons = {exercise: override.reason for exercise, override in table.items() if exercise not in (SETTLED, ROW)}
    settled = table[SETTLED].reason if SETTLED in table else None
    whole = (table[ROW].points, table[ROW].reason) if ROW in table else None
    return replace(row, verdicts=tuple(verdicts), points=tuple(points), right=frozenset(right), regraded=reasons,
                   settled=settled, whole=whole)  # fmt: skip
