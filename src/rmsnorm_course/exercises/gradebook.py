"""A class graded in one run: every answers file judged by the same registry, a row each, and a tally per exercise.

The pytest grader (``exercises/`` at the repository root) grades one file, one test
per exercise. An instructor with a folder of files wants one table instead, from one
process: each file is read and judged exactly as the grader does (``AnswerSheet``),
a file that cannot be read becomes a row that says why, and the others go on.
"""

from __future__ import annotations

import csv
import io
import stat
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import feedback
from .answers import AnswerSheet
from .feedback import Outcome, Verdict
from .registry import EXERCISES
from .untrusted import csv_cell, quoted, visible

SUFFIX = ".toml"  # a folder stands for the entries in it whose names hold this, in any case


@dataclass(frozen=True)
class GradedFile:
    """One answers file: its sheet, a verdict on every exercise (in the registry's order), and on each first try.

    ``first_tries`` holds None where the file records no first prediction.
    """

    sheet: AnswerSheet
    verdicts: tuple[Verdict, ...]
    first_tries: tuple[Verdict | None, ...] = ()

    @property
    def path(self) -> Path:
        return self.sheet.path

    @property
    def score(self) -> int:
        return feedback.score(self.verdicts)

    def problems(self) -> list[str]:
        return self.sheet.problems()


@dataclass(frozen=True)
class Found:
    """The files to grade, each once and in order, and words on everything passed over."""

    paths: list[Path]
    passed_over: list[str]


def answer_files(sources: Iterable[str | Path]) -> Found:
    """The files to grade: a folder stands for the entries in it whose names hold ``.toml`` (any case), in name order.

    Any other path stands for itself, and one that does not exist is kept, so that its row
    can say so. An entry is graded once however often it is named (a hard link counts as
    the same file); a folder that cannot be listed, and the files in one whose names hold
    no ``.toml``, are passed over with a word on each.
    """
    found: list[Path] = []
    passed_over: list[str] = []
    seen: dict[tuple[int, int], Path] = {}
    for source in map(Path, sources):
        entries = [source]
        if _is_folder(source):
            try:
                listed = sorted(source.iterdir())
            except OSError as error:
                passed_over.append(f"cannot list {visible(str(source))}: {error.strerror}; nothing in it was graded")
                continue
            entries = [path for path in listed if SUFFIX in path.name.casefold()]
            others = [path.name for path in listed if SUFFIX not in path.name.casefold()]
            if others:
                example = quoted(others[0])
                passed_over.append(
                    f"{visible(str(source))}: {len(others)} entr{'y' if len(others) == 1 else 'ies'} whose name holds "
                    f"no {SUFFIX}, such as {example}, passed over"
                )
        for path in entries:
            identity = _identity(path)
            if identity is not None and identity in seen:
                passed_over.append(f"{visible(str(path))} is {visible(str(seen[identity]))} again; graded once")
                continue
            if identity is not None:
                seen[identity] = path
            found.append(path)
    return Found(found, passed_over)


def _is_folder(path: Path) -> bool:
    """A real folder, not a link to one (a link is graded as an entry, and refused as a link)."""
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def _identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of the entry itself (a link is not followed), or None if it cannot be looked at."""
    try:
        status = path.lstat()
    except OSError:
        return None
    return status.st_dev, status.st_ino


def grade_file(path: str | Path) -> GradedFile:
    """Read one file (never run, never written) and judge every exercise in it."""
    sheet = AnswerSheet.read(path)
    return GradedFile(
        sheet,
        tuple(sheet.grade(exercise_id) for exercise_id in EXERCISES),
        tuple(sheet.first_try(exercise_id) for exercise_id in EXERCISES),
    )


def grade_files(paths: Iterable[str | Path]) -> list[GradedFile]:
    """Every file graded in turn, in this process; an unreadable one is a row that says why."""
    return [grade_file(path) for path in paths]


@dataclass(frozen=True)
class ExerciseTally:
    """One exercise across a class: how many files got each outcome, and the most common wrong answer."""

    exercise_id: str
    counts: Mapping[Outcome, int]
    common_wrong: str | None = None  # as the grader shows answers: 25, [0.6, 0.8], B
    common_count: int = 0
    note: str | None = None  # the known slip behind that answer, or None when it matches none
    first_right: int = 0  # files whose recorded first prediction was right
    first_recorded: int = 0  # files that record a first prediction

    @property
    def files(self) -> int:
        return sum(self.counts.values())

    @property
    def right(self) -> int:
        return self.counts[Outcome.CORRECT]

    def share(self, outcome: Outcome) -> float:
        """The fraction of files with this outcome (0 for an empty class)."""
        return self.counts[outcome] / self.files if self.files else 0.0


def tally(graded: Sequence[GradedFile]) -> list[ExerciseTally]:
    """Each exercise's outcomes across the class; ties between wrong answers go to the first file's."""
    tallies = []
    for position, exercise_id in enumerate(EXERCISES):
        verdicts = [file.verdicts[position] for file in graded]
        firsts = [file.first_tries[position] for file in graded if file.first_tries[position] is not None]
        first = {"first_right": sum(verdict.correct for verdict in firsts), "first_recorded": len(firsts)}
        counts = Counter({outcome: 0 for outcome in Outcome})
        counts.update(verdict.outcome for verdict in verdicts)
        wrong = [verdict for verdict in verdicts if verdict.outcome is Outcome.WRONG]
        if not wrong:
            tallies.append(ExerciseTally(exercise_id, dict(counts), **first))
            continue
        answer, count = Counter(verdict.answer for verdict in wrong).most_common(1)[0]
        slips = next(verdict.slips for verdict in wrong if verdict.answer == answer)
        tallies.append(ExerciseTally(exercise_id, dict(counts), answer, count, " ".join(slips) or None, **first))
    return tallies


HEADER = ("file", "score", "out of", *EXERCISES, *(f"{id} first try" for id in EXERCISES), "problems")


def csv_text(graded: Sequence[GradedFile]) -> str:
    """The gradebook as CSV: a row per file with its score and each exercise's verdict word.

    A file's name and its problems are shown as ``untrusted.csv_cell`` writes them: on
    one line, with no control character, and never as the start of a formula.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    for file in graded:
        words = [verdict.outcome.value for verdict in file.verdicts]
        firsts = ["" if first is None else "right" if first.correct else "not right" for first in file.first_tries]
        problems = " | ".join(file.problems())
        writer.writerow([csv_cell(str(file.path)), file.score, len(EXERCISES), *words, *firsts, csv_cell(problems)])
    return buffer.getvalue()
