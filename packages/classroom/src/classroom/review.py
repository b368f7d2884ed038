"""The review queue: everything a person should look at before the grades are imported, one line each.

Every answer that could not be read (with its text as typed, shown as text), a line
that could not be read, a key that names no exercise, a file that could not be read at
all, a student's files that were not counted (and a group where the latest is a guess),
a file whose answers are shifted by a line (each is the next exercise's answer), a file
that may be no attempt (the blank template, the key, another student's file), a file
handed in that is no answers file, and a graded student the LMS's export does not know.
``review.csv`` holds them all; the summary counts them and lists the first few. What an
override settled stays listed, saying which override settled it and why, and so do the items of a row
``settled`` or given its points by hand.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from predict_check import Outcome, Verdict, csv_cell, one_line, quoted, visible

from .files import Found
from .gradebook import SETTLED_BY, GradedFile, typed_cell, who

HEADER = ("id", "name", "file", "exercise", "what", "as typed", "what to do")
LISTED = 12  # items the summary lists before it counts the rest


@dataclass(frozen=True)
class Item:
    """One thing to look at: whose, which file and exercise, what it is, the text as typed, and what to do."""

    file: GradedFile | None
    label: str
    exercise: str
    what: str
    typed: str | None
    todo: str


def queue(graded: Sequence[GradedFile], found: Found | None = None, unknown: Sequence[GradedFile] = ()) -> list[Item]:
    """Every item, row by row in the gradebook's order, then what no row holds."""
    items = [item for file in graded for item in _items(file)]
    items += [Item(file, file.label, "", "not in the LMS's export", None, "add the student to the course in the LMS, "
                   "or enter the grade by hand") for file in unknown]  # fmt: skip
    rowed = {label for file in graded for label in (file.label, *file.others)}
    for other in found.others if found else ():
        if other.label not in rowed:
            items.append(Item(None, other.label, "", "not graded", None, "no answers file (*.toml): grade it by hand"))
    return items


def _items(file: GradedFile) -> list[Item]:
    unread = "file not read" if file.graded else "not graded"
    items = [Item(file, file.label, "", unread, None, file.problems()[0])] if file.sheet.unreadable else []
    if file.sheet.unreadable is None:
        bad = {line.key for line in file.sheet.bad if line.table is None}
        items += [
            Item(file, file.label, line.key or "", "line not read", line.text,
                 (line.table is None and _overridden(file, line.key)) or _fix(line))
            for line in file.sheet.bad
        ]  # fmt: skip
        items += [Item(file, file.label, "", "no such exercise", None, said) for said in file.sheet.unknown_ids()]
        items += [
            Item(file, file.label, verdict.exercise_id, "answer not read", file.typed(position),
                 _overridden(file, verdict.exercise_id) or verdict.message)
            for position, verdict in enumerate(map(_as_read, file.verdicts, [file] * len(file.verdicts)))
            if verdict.outcome is Outcome.UNREADABLE and verdict.exercise_id not in {*bad, *file.shifted}
        ]  # fmt: skip
    if file.shifted:
        said = (
            f"{len(file.shifted)} answers are each the answer to the exercise beside theirs: {', '.join(file.shifted)}"
        )
        items.append(Item(file, file.label, "", "answers shifted by a line", None, said + "; check for a missing line"))
    items += [Item(file, other, "", "not counted", None, f"the latest file counts: {visible(file.label)}")
              for other in file.others]  # fmt: skip
    if file.undecided:
        items.append(Item(file, file.label, "", "which file counts?", None, file.undecided))
    if file.doubt:
        items.append(Item(file, file.label, "", "needs review", None, f"{file.doubt}; check before grading it"))
    whole = file.settled_by() if file.settled or file.whole else None
    if whole:
        return [item if item.todo.startswith(SETTLED_BY) else replace(item, todo=whole) for item in items]
    return items


def _as_read(verdict: Verdict, file: GradedFile) -> Verdict:
    """The verdict as the file's answer got it, before an override set it: what the queue says was not read."""
    return file.sheet.grade(verdict.exercise_id) if verdict.exercise_id in file.regraded else verdict


def _overridden(file: GradedFile, exercise_id: str | None) -> str | None:
    """What settled an exercise's item: its override, with the teacher's reason; None where none did."""
    return file.settled_by(exercise_id) if exercise_id in file.regraded else None


def _fix(line) -> str:
    return line.fix + (f"; write it as  {visible(line.suggestion)}" if line.suggestion else "")


def csv_text(items: Sequence[Item]) -> str:
    """``review.csv``: one row per item, every student's text shown as text, never as a formula."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(HEADER)
    for item in items:
        student = item.file.student if item.file else None
        writer.writerow([
            csv_cell(student.id or "") if student else "",
            csv_cell(student.name) if student else "",
            csv_cell(item.label),
            item.exercise,
            item.what,
            typed_cell(item.typed),
            csv_cell(item.todo, composed=True),
        ])  # fmt: skip
    return buffer.getvalue()


def summary(items: Sequence[Item]) -> list[str]:
    """The summary's section: how many of each kind, then the first few items, one line each."""
    if not items:
        return ["review queue: nothing to review"]
    kinds = Counter(item.what for item in items)
    settled = sum(item.todo.startswith("settled") for item in items)
    lines = [f"review queue ({len(items)} in review.csv): " + "; ".join(f"{what}: {n}" for what, n in kinds.items())
             + (f"; {settled} settled by the overrides" if settled else "")]  # fmt: skip
    for item in items[:LISTED]:
        whose = who(item.file) if item.file else visible(item.label)
        where = f" {item.exercise}" if item.exercise else ""
        typed = f" {quoted(item.typed)}" if item.typed else ""
        lines.append(f"  {whose}{where}: {item.what}{typed}: {one_line(item.todo)}")
    if len(items) > LISTED:
        lines.append(f"  and {len(items) - LISTED} more in review.csv")
    return lines
