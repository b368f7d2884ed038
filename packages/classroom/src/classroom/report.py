"""A graded class as a teacher reads it (the summary), and everything a run writes, as one folder.

``python -m classroom grade FOLDER --out grades`` writes into ``grades/``:

- ``grades.csv`` (a row per student, numbers for a spreadsheet or an LMS) and
  ``grades-long.csv`` (a row per student and exercise, each answer as typed);
- ``review.csv``, the review queue (``review``), and ``grades.png``, the figure;
- ``feedback/``, a page per student as HTML, plain text and Markdown (``feedback``), and an index;
- with the LMS's export (``--lms-gradebook``), the export filled in (``canvas-grades.csv``
  or ``moodle-grades.csv``), and, where the files came named by that LMS, the pages zipped
  for its bulk feedback upload (``canvas-feedback.zip`` or ``moodle-feedback.zip``).

The folder is refused as a whole before anything is written (``refuse``), then replaced
whole (``publish``). It must be new, empty, or one the command wrote: it is replaced whole.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from predict_check import SELF_RECORDED, Course, Outcome, quoted, shortened, visible

from . import lms, review
from .feedback import RENDER, Options, feedback_pages, page_stems
from .figure import class_results_figure, png_bytes
from .files import Found, file_identity
from .gradebook import ExerciseTally, GradedFile, csv_text, long_csv_text, number, spreadsheet_bytes, tally, who
from .policy import NOT_ASSIGNED, Policy
from .publish import PublishError, publish

GRADEBOOK, LONG, FIGURE, REVIEW, FEEDBACK = "grades.csv", "grades-long.csv", "grades.png", "review.csv", "feedback"
LMS_FILES = tuple(f"{name}-{what}" for name in lms.ID_COLUMNS for what in ("grades.csv", "feedback.zip"))
PAGE_NAME = re.compile(r"(?:index|[0-9]{3,}-[a-z0-9-]*)\.(?:md|html|txt)")


class OutputError(ValueError):
    """An output folder the grade command cannot use: it says which, and what was expected."""


@dataclass(frozen=True)
class Run:
    """A graded class and what its outputs need: the rows, the files found, the pages' options, the LMS's export."""

    course: Course
    graded: Sequence[GradedFile]
    options: Options = field(default_factory=Options)
    found: Found | None = None
    export: lms.Export | None = None
    lms: str | None = None  # the LMS whose bulk feedback upload the pages are zipped for
    policy: Policy | None = None

    @cached_property
    def filled(self) -> tuple[bytes, list[GradedFile]] | None:
        return lms.filled(self.export, self.graded) if self.export is not None else None

    @cached_property
    def held(self) -> list[GradedFile]:
        """The rows the filled export leaves blank because they need review: not those it has no place for, nor
        those with no answers file (blank because there is nothing to grade, and said so)."""
        missing = {id(file) for file in self.filled[1]} if self.filled else set()
        held = [file for file in self.graded if self.filled and file.graded and file.needs_review]
        return [file for file in held if id(file) not in missing]

    @cached_property
    def left_out(self) -> str | None:
        """The pages the LMS's feedback zip leaves out because their rows are held for review, in words."""
        left = [file for file in self.graded if self.lms and file.graded and file.needs_review
                and lms.entry_name(self.lms, file) is not None]  # fmt: skip
        if not left:
            return None
        count = len(left)
        return (f"{count} page{'s' * (count != 1)} left out of {self.lms}-feedback.zip, held for review "
                f"(in feedback/ for you, marked provisional): " + ", ".join(who(file) for file in left))  # fmt: skip

    @cached_property
    def absent(self) -> str | None:
        """The export's students who handed in nothing at all, in words: no row, no page, their cell left as it was."""
        names = lms.absent(self.export, self.graded) if self.export is not None else []
        if not names:
            return None
        count = len(names)
        return (f"{count} student{'s' * (count != 1)} in the LMS's export handed in nothing: no row, no page, "
                f"their cell left as the export had it: " + ", ".join(names))  # fmt: skip

    @cached_property
    def items(self) -> list[review.Item]:
        return review.queue(self.graded, self.found, self.filled[1] if self.filled else ())

    @cached_property
    def tallies(self) -> list[ExerciseTally]:
        """Each exercise across the students graded: a row with no answers file, or held for review (the blank
        template, a copy, the key), is in no count, line or bar of the figure, as it is in no mean; nor is one whose
        points were set by hand (an integrity case), whose answers are not the student's own work."""
        return tally(self.course, [file for file in self.graded if file.graded and not file.needs_review
                                   and not file.whole])  # fmt: skip


# --- the summary ---------------------------------------------------------------------------------


def summary(course: Course, graded: Sequence[GradedFile], tallies: Sequence[ExerciseTally], names: bool = False,
            items: Sequence[review.Item] = (), held: Sequence[GradedFile] = (),
            left_out: str | None = None, absent: str | None = None) -> str:  # fmt: skip
    """The class at a glance: the means in points and in exercises, the review queue, who is held back, each exercise.

    Students are named only with ``names`` (a summary may be shown to a class), except in the review queue.
    """
    assigned = len(tallies)
    maximum = graded[0].maximum if graded else float(assigned)
    files = len(graded) + sum(len(file.others) for file in graded)
    not_graded = sum(not file.graded for file in graded)
    graded = [file for file in graded if file.graded]  # a row with no answers file is in no mean
    settled = [file for file in graded if not file.needs_review]  # nor one held for review: the mean is exported
    mean = sum(file.total for file in settled) / len(settled) if settled else 0.0
    right = sum(file.score for file in settled) / len(settled) if settled else 0.0
    share = 100 * mean / maximum if maximum else 0.0
    held_count = len(graded) - len(settled)
    means = (f"mean {number(mean, 1)} of {number(maximum)} points ({number(share, 1)}%), {number(right, 1)} of "
             f"{assigned} exercises right" if settled else "no mean yet, every one held for review" if graded
             else "no mean")  # fmt: skip
    lines = [
        f"graded {len(graded)} student{'s' * (len(graded) != 1)} ({files} file{'s' * (files != 1)}): {means}"
        + (f"; {held_count} held for review, in no mean nor exercise's count" if held_count else "")
        + (f"; {not_graded} not graded (no answers file), in no mean" if not_graded else ""),
        *review.summary(items),
    ]
    if held:
        lines.append(held_back(held))
    lines += [said for said in (left_out, absent) if said]
    unassigned = [
        exercise_id for exercise_id in course.exercises if exercise_id not in {t.exercise_id for t in tallies}
    ]
    if unassigned and tallies:
        lines.append(f"{NOT_ASSIGNED}: {', '.join(unassigned)}")
    if any(first is not None for file in graded for first in file.first_tries):
        lines.append(f"first try*: {SELF_RECORDED}")
    for t in tallies:
        lines.append(_exercise_line(t))
        for group in t.groups:
            said = f"{group.count} student{'s' * (group.count != 1)}"
            note = group.note or ("no known slip gives this answer" if group.outcome is Outcome.WRONG else "")
            who = f" [{', '.join(group.students)}]" if names else ""
            lines.append(f"    {shortened(visible(group.shown))} ({said}){': ' + note if note else ''}{who}")
    return "\n".join(lines) + "\n"


def held_back(held: Sequence[GradedFile]) -> str:
    """The students whose grade the filled export leaves blank until someone has reviewed them."""
    count = len(held)
    return (f"{count} student{'s' * (count != 1)} held back for review, their grade left blank in the LMS's file: "
            + ", ".join(who(file) for file in held))  # fmt: skip


def _exercise_line(t: ExerciseTally) -> str:
    counts = [f"{t.counts[o]} {o.value}" for o in (Outcome.CLOSE, Outcome.WRONG, Outcome.UNREADABLE) if t.counts[o]]
    predictions, right, shown = t.first_tries
    missing = f", {t.counts[Outcome.NOT_ANSWERED]} not answered" if t.counts[Outcome.NOT_ANSWERED] else ""
    first = f"; first try* right {right}/{predictions}" if predictions else ""
    first += f" ({shown} shown first)" if shown else ""
    return (f"{t.exercise_id}: {t.right}/{t.attempted} right of those who answered{missing}"
            + (f"; {', '.join(counts)}" if counts else "") + first)  # fmt: skip


# --- the folder of outputs: refused as a whole, then written as one --------------------------------


def _absolute(path: Path) -> Path:
    """The path from the root, ``..`` and ``.`` resolved in its words (a link in it stays a link)."""
    return Path(os.path.abspath(path))


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def refuse(out: Path, run: Run) -> None:
    """Refuse an output folder that is or holds the current folder, holds a graded file, lies inside a folder being
    graded, or holds anything the command did not write (it is replaced whole); a new or empty folder is fine."""
    where, shown = _absolute(out), visible(str(out))
    paths = [source.path for source in run.found.sources + run.found.others] if run.found else []
    paths += [file.path for file in run.graded]
    for path in paths:
        if _inside(_absolute(path), where):
            raise OutputError(f"the folder {shown} holds a graded answers file, {quoted(path.name)}; "
                              "expected a folder of its own for the outputs")  # fmt: skip
    if _inside(_absolute(Path.cwd()), where):
        raise OutputError(f"{shown} holds the current folder, and would be replaced whole; "
                          "expected a folder of its own for the outputs")  # fmt: skip
    for folder in run.found.folders if run.found else ():
        if _inside(where, _absolute(folder)) or _inside(where, _absolute(folder.resolve())):
            raise OutputError(f"{shown} is inside the folder being graded, {visible(str(folder))}; "
                              "expected outputs outside it")  # fmt: skip
    foreign = _foreign(out, {file_identity(path) for path in paths} - {None})
    if foreign is not None:
        raise OutputError(f"the folder {shown} holds what the grade command did not write, such as "
                          f"{quoted(foreign)}, and would be replaced whole; expected a new or empty folder, "
                          "or one an earlier grade command wrote")  # fmt: skip


def _foreign(out: Path, graded: set) -> str | None:
    """The first entry of ``out`` that no grade command writes there (or a graded file under another name)."""
    try:
        if not stat.S_ISDIR(out.lstat().st_mode):
            raise OutputError(f"{visible(str(out))} is not a folder; expected a folder for the outputs")
        entries = sorted(out.iterdir())
        pages = sorted((out / FEEDBACK).iterdir()) if (out / FEEDBACK).is_dir() else []
    except (FileNotFoundError, NotADirectoryError):  # nothing there yet (or no folder to make it in: said on writing)
        return None
    except OSError as error:
        raise OutputError(f"cannot look into {visible(str(out))}: {error.strerror}") from None
    for entry in entries + pages:
        known = entry.name in (GRADEBOOK, LONG, FIGURE, REVIEW, *LMS_FILES) or (
            entry.parent.name == FEEDBACK and PAGE_NAME.fullmatch(entry.name)
        )
        if entry.name == FEEDBACK and entry.parent == out and _real_folder(entry):
            continue
        if not known or file_identity(entry) in graded or entry.is_symlink():
            return str(entry.relative_to(out))
    return None


def _real_folder(path: Path) -> bool:
    return stat.S_ISDIR(path.lstat().st_mode)


def contents(run: Run) -> dict[str, bytes]:
    """Every output, by its path inside the folder."""
    graded, options = run.graded, run.options
    stems = page_stems(graded)
    form = "html" if "html" in options.formats else options.formats[0]
    pages = feedback_pages(graded, options)
    files = {
        GRADEBOOK: spreadsheet_bytes(csv_text(run.course, graded, [f"{stem}.{form}" for stem in stems])),
        LONG: spreadsheet_bytes(long_csv_text(graded)),
        REVIEW: spreadsheet_bytes(review.csv_text(run.items)),
        FIGURE: png_bytes(class_results_figure(run.tallies)),
        **{f"{FEEDBACK}/{name}": data for name, data in pages.items()},
    }
    if run.filled is not None:
        files[f"{run.export.lms}-grades.csv"] = run.filled[0]
    if run.lms is not None:
        form = lms.FORM[run.lms]
        sent = [
            pages.get(f"{stem}.{form}") or RENDER[form](file, options).encode() for stem, file in zip(stems, graded)
        ]
        files[f"{run.lms}-feedback.zip"] = lms.feedback_zip(run.lms, graded, sent)[0]
    return files


def write(run: Run, out: Path) -> list[str]:
    """Refuse the folder or write every output into it as one; the names written, in the folder's order."""
    refuse(out, run)
    files = contents(run)
    try:
        _absolute(out).parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise PublishError(error.errno, f"cannot write {visible(str(out))}: {error.strerror}") from None
    publish(_absolute(out), files, visible(str(out)))
    return sorted(files)
