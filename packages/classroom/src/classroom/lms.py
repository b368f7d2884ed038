"""The learning platform's own gradebook filled in, and the feedback files it takes back in one upload.

- Canvas: Grades, Export gives a CSV whose header is Student, ID, SIS User ID, SIS Login ID,
  Section, then each assignment as ``Title (id)``; a "Points Possible" row follows (and
  maybe one about manual posting). ``--column`` names the assignment: its title, or the
  whole header.
- Moodle: the assignment's "Download grading worksheet" gives a CSV: Identifier
  (``Participant 301``), Full name, ..., Grade, Maximum Grade, ..., Feedback comments.

``filled`` writes a copy with each graded student's points in the column (and, for
Moodle, a short comment under "Feedback comments"); a student who handed in nothing,
and one whose row needs review (held back: no grade is final before a person looks),
keeps the cell as exported, blank. An export whose ids repeat, or whose column is out of
other points than the policy's maximum, is refused. ``feedback_zip`` names each page as
the LMS's bulk upload matches it: Canvas's "Re-Upload Submissions" by the user's id and
the handed-in file's id, the first two numbers between underscores in the name
(``feedback_69437_678901_tom-becker.txt``; Canvas shows it under the name of the file
handed in, so it is the plain-text page, readable whatever its name); Moodle's "Upload
multiple feedback files in a zip" by the participant's number in a folder's name
(``ana-perez_301_assignfeedback_file_/feedback.html``). A row held for review has no page in the zip; one with
no answers file has its page, which says so.
"""

from __future__ import annotations

import csv
import functools
import html
import io
import math
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from predict_check import GradingError, quoted, slug, visible

from .feedback import late_said, whole_said
from .gradebook import REVISIT_FIRST, GradedFile, number
from .students import counted, repeated

BOM = "\ufeff"
FORM = {"canvas": "txt", "moodle": "html"}  # the page each LMS's upload takes
ID_COLUMNS = {"canvas": ("ID", "SIS User ID", "SIS Login ID"), "moodle": ("Identifier", "ID number")}
ASSIGNMENT = re.compile(r"(?P<title>.*) \((?P<id>[0-9]+)\)")  # a Canvas assignment's column: Title (12345)
DIGITS = re.compile(r"[0-9]+")


class LmsError(GradingError):
    """An LMS export that cannot be filled: it says what was wrong and what was expected."""

    boundary = "lms"


@dataclass(frozen=True)
class Export:
    """An LMS's exported gradebook as read: its rows (the header first), which column to fill, who is in it."""

    lms: str  # "canvas" or "moodle"
    rows: list[list[str]]
    column: int
    maximum: float | None  # the points the column is out of, where the export says
    bom: bool

    @property
    def header(self) -> list[str]:
        return self.rows[0]

    @functools.cached_property
    def columns(self) -> dict[str, int]:
        """Each column's place, by its name in the header (the first, where two share a name)."""
        return {name: index for index, name in reversed(list(enumerate(self.header)))}

    def cell(self, row: list[str], name: str) -> str:
        """A row's value in the column of that name ("" where the export has no such column)."""
        index = self.columns.get(name)
        value = row[index].strip() if index is not None and index < len(row) else ""
        return DIGITS.findall(value)[-1] if name == "Identifier" and DIGITS.search(value) else value

    @functools.cached_property
    def students(self) -> list[int]:
        """The rows that are students: those with an id (not the header, nor the points possible)."""
        first = ID_COLUMNS[self.lms][0]
        return [n for n, row in enumerate(self.rows) if n and self.cell(row, first)]

    def name(self, row: list[str]) -> str:
        if self.lms == "moodle":
            return self.cell(row, "Full name")
        return self.cell(row, "Student") or f"{self.cell(row, 'FirstName')} {self.cell(row, 'LastName')}".strip()

    @functools.cached_property
    def names(self) -> dict[str, str]:
        """Id -> name, for every id the export gives a student: the record, the name every output uses."""
        names = {}
        for row in (self.rows[n] for n in self.students):
            name = self.name(row)
            names |= {value: name for column in ID_COLUMNS[self.lms] if (value := self.cell(row, column))}
        return names


def read(path: Path, column: str | None) -> Export:
    """Canvas's export or Moodle's worksheet, checked: one column to fill, each student once."""
    shown = visible(str(path))
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as error:
        raise LmsError(f"cannot read {shown}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise LmsError(f"{shown} is not UTF-8; expected the CSV file as the LMS exported it") from None
    rows = list(counted(csv.reader(io.StringIO(text.removeprefix(BOM))), shown))
    header = rows[0] if rows else []
    if "Identifier" in header and "Grade" in header:
        export = Export("moodle", rows, _moodle_column(header, column, shown), None, text.startswith(BOM))
    elif {"ID", "Section"} <= set(header):
        export = Export("canvas", rows, _canvas_column(header, column, shown), None, text.startswith(BOM))
    else:
        raise LmsError(
            f"{shown} is neither Canvas's gradebook export (Student, ID, ..., Section) nor Moodle's grading "
            "worksheet (Identifier, ..., Grade); expected one of them as the LMS wrote it"
        )
    _refuse_repeats(export, shown)
    return Export(export.lms, rows, export.column, _maximum(export), export.bom)


def _moodle_column(header: list[str], column: str | None, shown: str) -> int:
    if column not in (None, "Grade"):
        raise LmsError(f"{shown} is Moodle's grading worksheet: its grades go in 'Grade'; expected no --column")
    return header.index("Grade")


def _canvas_column(header: list[str], column: str | None, shown: str) -> int:
    assignments = [name for name in header if ASSIGNMENT.fullmatch(name)]
    found = [n for n, name in enumerate(header) if column is not None and column in (name, _title(name))]
    if len(found) != 1:
        listed = ", ".join(map(quoted, assignments)) or "none"
        said = "no --column was given" if column is None else f"{quoted(column)} names {len(found)} columns"
        raise LmsError(f"{shown}: {said}; expected --column with one assignment of {listed}")
    return found[0]


def _title(name: str) -> str:
    found = ASSIGNMENT.fullmatch(name)
    return found.group("title") if found else name


def _maximum(export: Export) -> float | None:
    """The points the column is out of: Canvas's "Points Possible" row, or Moodle's "Maximum Grade"; None where blank.

    One that is no finite number above 0 (``nan``, ``inf``, 0, below 0) is refused: no maximum could match it.
    """
    if export.lms == "canvas":
        row = next((row for row in export.rows[1:] if row and row[0].strip() == "Points Possible"), None)
        value = row[export.column] if row is not None and export.column < len(row) else ""
    else:
        value = next((export.cell(export.rows[n], "Maximum Grade") for n in export.students), "")
    try:
        maximum = float(value.replace(",", ".") if "." not in value else value.replace(",", ""))
    except ValueError:
        return None
    if not math.isfinite(maximum) or maximum <= 0:
        said = "Points Possible" if export.lms == "canvas" else "Maximum Grade"
        raise LmsError(f"the column {quoted(export.header[export.column])} is out of {quoted(value)} points "
                       f"(its {said}); expected a number of points above 0: set the assignment's points in the LMS "
                       "and export again")  # fmt: skip
    return maximum


def _refuse_repeats(export: Export, shown: str) -> None:
    for column in ID_COLUMNS[export.lms]:
        given = [(n, value) for n in export.students if (value := export.cell(export.rows[n], column))]
        twice = repeated([value for _, value in given])
        if twice is not None:
            lines = " and ".join(str(given[place][0] + 1) for place in twice[1])
            raise LmsError(f"{shown} gives the {column} {quoted(twice[0])} on lines {lines}; "
                           "expected each student once: export the gradebook again")  # fmt: skip


def refuse_another_maximum(export: Export, maximum: float) -> None:
    """Refuse a column out of other points than the policy's: the LMS would scale nothing, and the grades be off."""
    if export.maximum is not None and abs(export.maximum - maximum) > 0.005:
        column = quoted(export.header[export.column])
        raise LmsError(
            f"the column {column} is out of {export.maximum:g} points in the LMS, and the policy's exercises add up "
            f"to {maximum:g}; expected the same maximum: set the assignment's points to {maximum:g} and export "
            f"again, or give the policy points that add up to {export.maximum:g}"
        )


def filled(export: Export, graded: Sequence[GradedFile]) -> tuple[bytes, list[GradedFile]]:
    """A copy of the export with the points of each graded student not held for review; the rows it has no place for."""
    rows = [list(row) for row in export.rows]
    places = {}
    for column in reversed(ID_COLUMNS[export.lms]):  # the LMS's own id wins over the others
        places |= {export.cell(rows[n], column): n for n in export.students if export.cell(rows[n], column)}
    comments = export.header.index("Feedback comments") if "Feedback comments" in export.header else None
    missing = []
    for file in graded:
        n = places.get(file.student.id or "")
        if n is None:
            missing.append(file)
            continue
        if not file.graded or file.needs_review:
            continue
        rows[n] += [""] * (len(export.header) - len(rows[n]))
        rows[n][export.column] = number(file.total)
        if comments is not None:
            rows[n][comments] = comment(file)
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return ((BOM if export.bom else "") + buffer.getvalue()).encode("utf-8"), missing


def absent(export: Export, graded: Sequence[GradedFile]) -> list[str]:
    """The export's students whom no row graded names: they handed in nothing, and their cell is left as it was."""
    ids = {file.student.id for file in graded if file.student.id}
    rows = (export.rows[n] for n in export.students)
    return [
        visible(export.name(row))
        for row in rows
        if not any(export.cell(row, column) in ids for column in ID_COLUMNS[export.lms] if export.cell(row, column))
    ]


def comment(file: GradedFile) -> str:
    """A short feedback comment, in the HTML Moodle's comments take: the score, lateness and what it cost, what to
    revisit, where the page is."""
    score = (f"You have {number(file.total)} of {number(file.maximum)} points ({number(file.percentage, 1)}%); "
             f"{file.score} of {len(file.verdicts)} exercises right.")  # fmt: skip
    titles = [file.course.get(v.exercise_id).title for v in file.verdicts if v.outcome.name != "CORRECT"]
    titles = titles[:REVISIT_FIRST]
    revisit = f"<p>Revisit first: {html.escape('; '.join(titles))}.</p>" if titles else ""
    said = "".join(f"<p>{html.escape(words)}</p>" for words in (whole_said(file), late_said(file)) if words)
    return f"<p>{html.escape(score)}</p>{said}{revisit}<p>Every exercise is on your feedback page, attached.</p>"


def feedback_zip(lms: str, graded: Sequence[GradedFile], pages: Sequence[bytes]) -> tuple[bytes, int]:
    """Each student's page (in the LMS's ``FORM``) named as its bulk feedback upload expects, zipped; how many.

    A row held for review sends no page: its score is provisional, and its grade is not in the LMS's file. A
    student who handed in no answers file gets a page that says so.
    """
    buffer = io.BytesIO()
    count = 0
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file, data in zip(graded, pages):
            name = entry_name(lms, file)
            if name is not None and (not file.graded or not file.needs_review):  # nothing handed in: a page says so
                entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                entry.external_attr = 0o644 << 16
                archive.writestr(entry, data, zipfile.ZIP_DEFLATED)
                count += 1
    return buffer.getvalue(), count


def entry_name(lms: str, file: GradedFile) -> str | None:
    """The page's name in the zip, made of the LMS's numbers and an ASCII slug only; None where it has no numbers."""
    student_id, who = file.student.id or "", slug(file.student.name) or "student"
    if not DIGITS.fullmatch(student_id):
        return None
    if lms == "moodle":
        return f"{who}_{student_id}_assignfeedback_file_/feedback.html"
    attempt = file.student.attempt
    return f"feedback_{student_id}_{attempt}_{who}.txt" if attempt is not None else None
