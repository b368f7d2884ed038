"""A class graded in one run: every answers file judged by the same registry, a row each, and a tally per exercise.

The pytest grader (``exercises/`` at the repository root) grades one file, one test
per exercise. An instructor with a folder of files wants one table instead, from one
process: each file is read and judged exactly as the grader does (``AnswerSheet``),
a file that cannot be read becomes a row that says why, and the others go on. Each
row names its student (``students``) and carries its points (``policy``).

Two CSV files come out: ``csv_text``, one row per student with numbers a spreadsheet or
an LMS reads (id, score, maximum, percentage, points per exercise); and ``long_csv_text``,
one row per student and exercise with the answer as typed and its verdict.
"""

from __future__ import annotations

import csv
import io
import stat
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from predict_check import verdicts
from predict_check.errors import AnswerKindError
from predict_check.exercises import Course
from predict_check.sheets import AnswerSheet, FirstTry
from predict_check.slips import carried_from
from predict_check.untrusted import csv_cell, quoted, visible
from predict_check.verdicts import Outcome, Verdict

from .policy import Policy
from .publish import file_identity
from .students import Pattern, Student, identify, label_of

SUFFIX = ".toml"  # a folder stands for the entries in it whose names hold this, in any case
SKIPPED = ("__MACOSX",)  # what an archive made on a Mac holds beside the files: no student's
TOP = 3  # answers per exercise the summary shows


@dataclass(frozen=True)
class Source:
    """A file to grade, and how the class knows it: its path inside the folder given, or as it was named."""

    path: Path
    label: str


@dataclass(frozen=True)
class GradedFile:
    """One answers file: its sheet, a verdict on every exercise (in the registry's order), and on each first try.

    ``first_tries`` holds None where the file records no first prediction; ``carried``
    the earlier exercise a wrong answer follows from, where it follows from one.
    """

    sheet: AnswerSheet
    verdicts: tuple[Verdict, ...]
    first_tries: tuple[FirstTry | None, ...] = ()
    label: str = ""
    student: Student = field(default_factory=lambda: Student(""))
    carried: tuple[str | None, ...] = ()
    points: tuple[float, ...] = ()
    late: bool = False
    late_factor: float = 1.0
    maximum: float = 0.0

    @property
    def path(self) -> Path:
        return self.sheet.path

    @property
    def course(self) -> Course:
        return self.sheet.course

    @property
    def score(self) -> int:
        """How many exercises are right (the pytest grader's score)."""
        return verdicts.score(self.verdicts)

    @property
    def total(self) -> float:
        """The points earned, late factor applied."""
        return sum(self.points) * (self.late_factor if self.late else 1.0)

    @property
    def percentage(self) -> float:
        return 100 * self.total / self.maximum if self.maximum else 0.0

    @property
    def needs_review(self) -> bool:
        return self.sheet.needs_review

    def problems(self) -> list[str]:
        """The sheet's problems, naming the file as the class knows it (its label), not by the teacher's folders."""
        if not self.label:
            return self.sheet.problems()
        return [problem.replace(self.sheet.name, visible(self.label)) for problem in self.sheet.problems()]

    def count(self, outcome: Outcome) -> int:
        return sum(verdict.outcome is outcome for verdict in self.verdicts)

    def typed(self, position: int) -> str | None:
        """The answer to the exercise at ``position`` as the student wrote it."""
        return self.sheet.typed(self.verdicts[position].exercise_id)


@dataclass(frozen=True)
class Found:
    """The files to grade, each once and in order, words on everything passed over, and the folders read."""

    sources: list[Source]
    passed_over: list[str]
    folders: list[Path] = field(default_factory=list)

    @property
    def paths(self) -> list[Path]:
        return [source.path for source in self.sources]


def answer_files(sources: Iterable[str | Path]) -> Found:
    """The files to grade: a folder stands for the entries in it whose names hold ``.toml`` (any case), in name order.

    A folder named on the command line is read even through a link (the user named it);
    inside it, each real folder is read one level down (an LMS's folder per student), and
    a link is graded as an entry (and refused as a link). Any other path stands for
    itself, and one that does not exist is kept, so that its row can say so. An entry is
    graded once however often it is named (a hard link counts as the same file); a folder
    that cannot be listed, and entries whose names hold no ``.toml``, are passed over with a word.
    """
    found: list[Source] = []
    passed_over: list[str] = []
    folders: list[Path] = []
    seen: dict[tuple[int, int], Path] = {}
    for given in sources:
        source = Path(given)
        if _is_folder(source, follow=True):
            folders.append(source)
            entries = _folder_entries(source, passed_over)
        else:
            entries = [Source(source, label_of(source, None, str(given)))]
        for entry in entries:
            identity = file_identity(entry.path)
            if identity is not None and identity in seen:
                passed_over.append(f"{visible(str(entry.path))} is {visible(str(seen[identity]))} again; graded once")
                continue
            if identity is not None:
                seen[identity] = entry.path
            found.append(entry)
    return Found(found, passed_over, folders)


def _folder_entries(folder: Path, passed_over: list[str]) -> list[Source]:
    """The answers files in a folder and, one level down, in each folder in it."""
    listed = _listed(folder, passed_over)
    if listed is None:
        return []
    entries: list[Source] = []
    others: list[str] = []
    for path in listed:
        if path.name in SKIPPED or path.name.startswith("._"):
            continue
        if _is_folder(path, follow=False):
            inner = _listed(path, passed_over) or []
            inner = [p for p in inner if not p.name.startswith("._")]
            answers = [p for p in inner if SUFFIX in p.name.casefold()]
            others += [f"{path.name}/{p.name}" for p in inner if SUFFIX not in p.name.casefold()]
            if not answers:
                passed_over.append(f"{visible(str(path))} holds no answers file (*{SUFFIX}); nothing in it was graded")
            entries += [Source(p, label_of(p, folder, "")) for p in answers]
        elif SUFFIX in path.name.casefold():
            entries.append(Source(path, label_of(path, folder, "")))
        else:
            others.append(path.name)
    if others:
        passed_over.append(
            f"{visible(str(folder))}: {len(others)} entr{'y' if len(others) == 1 else 'ies'} whose name holds "
            f"no {SUFFIX}, such as {quoted(others[0])}, passed over"
        )
    return entries


def _listed(folder: Path, passed_over: list[str]) -> list[Path] | None:
    try:
        return sorted(folder.iterdir())
    except OSError as error:
        passed_over.append(f"cannot list {visible(str(folder))}: {error.strerror}; nothing in it was graded")
        return None


def _is_folder(path: Path, follow: bool) -> bool:
    """A folder; through a link only when ``follow`` (a folder the user named, not an entry inside one)."""
    try:
        return stat.S_ISDIR((path.stat() if follow else path.lstat()).st_mode)
    except (OSError, RuntimeError):
        return False


def _changed(path: Path) -> float | None:
    try:
        return path.lstat().st_mtime
    except OSError:
        return None


def grade_file(
    course: Course, path: str | Path | Source, pattern: Pattern | None = None, policy: Policy | None = None
) -> GradedFile:
    """Read one file (never run, never written), judge every exercise of the course in it, and name its student."""
    source = path if isinstance(path, Source) else Source(Path(path), label_of(Path(path), None, str(path)))
    policy = policy or Policy.default(course)
    sheet = AnswerSheet.read(course, source.path)
    ids = list(course.exercises)
    judged = tuple(sheet.grade(exercise_id) for exercise_id in ids)
    outcomes = {verdict.exercise_id: verdict.outcome for verdict in judged}
    student = identify(source.label, sheet.identity("name"), sheet.identity("id"), pattern)
    return GradedFile(
        sheet,
        judged,
        tuple(sheet.first_try(exercise_id) for exercise_id in ids),
        source.label,
        student,
        tuple(carried_from(course, exercise_id, sheet.answers, outcomes) for exercise_id in ids),
        tuple(policy.earned([verdict.outcome for verdict in judged])),
        policy.late(student.id, student.late, _changed(source.path)),
        policy.late_factor,
        policy.maximum,
    )


def grade_files(
    course: Course, paths: Iterable[str | Path | Source], pattern: Pattern | None = None, policy: Policy | None = None
) -> list[GradedFile]:
    """Every file graded in turn, in this process; an unreadable one is a row that says why."""
    return [grade_file(course, path, pattern, policy) for path in paths]


# --- the class at a glance ---------------------------------------------------------------------


@dataclass(frozen=True)
class AnswerGroup:
    """Answers to one exercise that come to the same thing: the commonest way it was written, and who gave it."""

    shown: str
    outcome: Outcome
    count: int
    note: str | None  # the slip behind it, the earlier exercise it follows from, or None
    students: tuple[str, ...]


@dataclass(frozen=True)
class ExerciseTally:
    """One exercise across a class: how many files got each outcome, and the answers that were not right."""

    exercise_id: str
    counts: Mapping[Outcome, int]
    groups: tuple[AnswerGroup, ...] = ()
    first_right: int = 0  # files whose recorded first prediction was right
    first_recorded: int = 0  # files that record a first prediction (or a shown answer)
    first_shown: int = 0  # files whose answer was shown before the first prediction

    @property
    def files(self) -> int:
        return sum(self.counts.values())

    @property
    def attempted(self) -> int:
        """Files that give an answer, readable or not."""
        return self.files - self.counts[Outcome.NOT_ANSWERED]

    @property
    def right(self) -> int:
        return self.counts[Outcome.CORRECT]

    def share(self, outcome: Outcome) -> float:
        """The fraction of files with this outcome (0 for an empty class)."""
        return self.counts[outcome] / self.files if self.files else 0.0

    @property
    def _wrong(self) -> AnswerGroup | None:
        return next((group for group in self.groups if group.outcome is Outcome.WRONG), None)

    @property
    def common_wrong(self) -> str | None:
        """The commonest wrong answer, as the grader shows answers: 25, [0.6, 0.8], B."""
        return self._wrong.shown if self._wrong else None

    @property
    def common_count(self) -> int:
        return self._wrong.count if self._wrong else 0

    @property
    def note(self) -> str | None:
        return self._wrong.note if self._wrong else None


def tally(course: Course, graded: Sequence[GradedFile]) -> list[ExerciseTally]:
    """Each exercise's outcomes across the class, and its answers that were not right, grouped, commonest first.

    Answers group by what they say, not how they are written (``1``, ``1.0`` and
    ``1.000000`` are one answer): by the slip they match, by the earlier exercise they
    follow from, else by their value at the precision asked. Ties go to the answer met first.
    """
    tallies = []
    for position, exercise in enumerate(course):
        exercise_id = exercise.id
        verdicts = [file.verdicts[position] for file in graded]
        firsts = [file.first_tries[position] for file in graded if file.first_tries[position] is not None]
        counts = Counter({outcome: 0 for outcome in Outcome})
        counts.update(verdict.outcome for verdict in verdicts)
        tallies.append(
            ExerciseTally(
                exercise_id,
                dict(counts),
                _groups(exercise.kind, graded, position),
                sum(first.right for first in firsts),
                len(firsts),
                sum(first.word == "shown" for first in firsts),
            )
        )
    return tallies


def _groups(kind, graded: Sequence[GradedFile], position: int) -> tuple[AnswerGroup, ...]:
    members: dict[tuple, list[GradedFile]] = {}
    for file in graded:
        verdict = file.verdicts[position]
        if verdict.outcome in (Outcome.CORRECT, Outcome.NOT_ANSWERED):
            continue
        members.setdefault(_group_key(file, position, kind), []).append(file)
    groups = []
    for key, files in members.items():
        verdict = files[0].verdicts[position]
        shown = Counter(file.typed(position) or file.verdicts[position].answer or "" for file in files)
        shown = shown.most_common(1)[0][0]  # the commonest way it was typed
        if key[0] == "unreadable":
            shown = "(could not be read)"
        note = _group_note(key, files)
        students = tuple(_who(file) for file in files)
        groups.append(AnswerGroup(shown, verdict.outcome, len(files), note, students))
    groups.sort(key=lambda group: -group.count)  # stable: a tie keeps the answer met first
    return tuple(groups[:TOP])


def _group_key(file: GradedFile, position: int, kind) -> tuple:
    verdict = file.verdicts[position]
    if verdict.outcome is Outcome.UNREADABLE:
        return ("unreadable",)
    if verdict.slips:
        return ("slip", verdict.slips)
    if file.carried[position] is not None:
        return ("carried", file.carried[position])
    try:
        value = kind.read(file.sheet.answers.get(verdict.exercise_id)).value
    except AnswerKindError:
        return ("shown", verdict.answer)
    decimals = getattr(kind, "decimals", None)
    if decimals is not None:
        values = value if isinstance(value, tuple) else (value,)
        value = tuple(round(v, decimals) if v == v else "nan" for v in values)
    return (verdict.outcome.name, value)


def _group_note(key: tuple, files: list[GradedFile]) -> str | None:
    if key[0] == "slip":
        return " ".join(key[1])
    if key[0] == "carried":
        upstream = key[1]
        place = list(files[0].course.exercises).index(upstream)
        slips = Counter(" ".join(file.verdicts[place].slips) for file in files).most_common(1)[0][0]
        earlier = f"the slip in {upstream}: {slips}" if slips else f"a wrong answer to {upstream}"
        return f"follows from {earlier}"
    if key[0] == "CLOSE":
        return "right so far: fewer decimals than asked"
    return None


def _who(file: GradedFile) -> str:
    student = file.student
    return visible(student.name) + (f" ({visible(student.id)})" if student.id else "")


# --- the gradebook files -----------------------------------------------------------------------


def number(value: float, places: int = 2) -> str:
    """A number as a spreadsheet reads it: a point for decimals, no grouping, no trailing zeros."""
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


COUNTS = (Outcome.CORRECT, Outcome.CLOSE, Outcome.WRONG, Outcome.NOT_ANSWERED, Outcome.UNREADABLE)
OWN = "(own record)"
FIRST_COLUMNS = (
    "id",
    "name",
    "score",
    "maximum",
    "percentage",
    "late",
    "needs review",
    *(outcome.value for outcome in COUNTS),
    f"first tries {OWN}",
    f"first tries right {OWN}",
    f"answers shown first {OWN}",
)
LAST_COLUMNS = ("file", "feedback page", "problems", "answer key")


def header(course: Course) -> tuple[str, ...]:
    """The gradebook's columns: who, the score, the counts, each exercise's points, and where it came from."""
    return (*FIRST_COLUMNS, *course.exercises, *LAST_COLUMNS)


LONG_HEADER = (
    "id",
    "name",
    "file",
    "exercise",
    "answer as typed",
    "verdict",
    "points",
    "note",
    f"first try {OWN}",
    f"first try as typed {OWN}",
)


def csv_text(course: Course, graded: Sequence[GradedFile], pages: Sequence[str] | None = None) -> str:
    """The gradebook: a row per file, its student, score, maximum and percentage, and each exercise's points.

    Numbers are written as numbers (``number``); a name, a file's label and its problems
    are shown as ``untrusted.csv_cell`` writes them: on one line, with no control
    character, and never as the start of a formula. ``pages`` names each file's feedback page.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header(course))
    key = f"{course.name} {course.version}"
    for index, file in enumerate(graded):
        firsts = [first for first in file.first_tries if first is not None]
        writer.writerow(
            [
                csv_cell(file.student.id or ""),
                csv_cell(file.student.name),
                number(file.total),
                number(file.maximum),
                number(file.percentage, 1),
                "yes" if file.late else "",
                "yes" if file.needs_review else "",
                *(file.count(outcome) for outcome in COUNTS),
                sum(first.word != "shown" for first in firsts),
                sum(first.right for first in firsts),
                sum(first.word == "shown" for first in firsts),
                *(number(points) for points in file.points),
                csv_cell(file.label),
                pages[index] if pages else "",
                csv_cell(" | ".join(file.problems()), composed=True),
                key,
            ]
        )
    return buffer.getvalue()


def long_csv_text(graded: Sequence[GradedFile]) -> str:
    """One row per student and exercise: the answer as typed, its verdict, its points, and the first try.

    The answer as typed is the student's text, shown as text (``csv_cell``); an answer
    that could not be read is left out, as every verdict leaves it out.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(LONG_HEADER)
    for file in graded:
        for position, verdict in enumerate(file.verdicts):
            first = file.first_tries[position]
            typed = file.typed(position) if verdict.outcome is not Outcome.UNREADABLE else None
            first_typed = file.sheet.typed(verdict.exercise_id, "first-tries") if first and first.verdict else None
            carried = file.carried[position]
            note = " ".join(verdict.slips) or (f"follows from {carried}" if carried else "")
            writer.writerow(
                [
                    csv_cell(file.student.id or ""),
                    csv_cell(file.student.name),
                    csv_cell(file.label),
                    verdict.exercise_id,
                    csv_cell(typed or ""),
                    verdict.outcome.value,
                    number(file.points[position]),
                    note,
                    (first.word + (", no final answer" if first.unanswered else "")) if first else "",
                    csv_cell(first_typed or ""),
                ]
            )
    return buffer.getvalue()
