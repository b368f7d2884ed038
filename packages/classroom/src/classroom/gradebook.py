"""A class graded in one run: every answers file judged by the course's exercises, one row per student, a tally each.

The pytest grader grades one file, one test per exercise. A teacher with a folder of
files wants one table instead, from one process: each file is read and judged exactly
as the grader does (``AnswerSheet``), a file that cannot be read becomes a row that says
why, and the others go on. Each row names its student (``students``) and carries its
points (``policy``). A student's files are one row (``rows``): the latest attempt counts
and the others are listed on it.

Two CSV files come out: ``csv_text``, one row per student with numbers a spreadsheet or
an LMS reads (id, points, maximum points, percentage, the points of each exercise); and
``long_csv_text``, one row per student and exercise with the answer as typed and its verdict.
"""

from __future__ import annotations

import csv
import functools
import io
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from predict_check import (
    AnswerSheet,
    Choice,
    Course,
    Exercise,
    FirstTry,
    GradingError,
    Outcome,
    Verdict,
    answers_file,
    carried_from,
    csv_cell,
    judge,
    quoted,
    score,
    visible,
)

from .files import Source, label_of
from .policy import NOT_ASSIGNED, Policy
from .students import Pattern, Student, identify

TOP = 3  # answers per exercise the summary shows
REVISIT_FIRST = 3  # exercises a page (and Moodle's comment) names to revisit first; every one has its section below
APART = 2  # seconds between two files' times that order them: an unzip sets a folder's times alike
CUT_SHORT = 0.25  # the share of the assigned exercises missing from a file (not even "") that says it was cut short
SHIFTED = 3  # answers that are each the next (or the last) exercise's answer: a file shifted by a line
SETTLED_BY = "settled by the override of "  # how an item an exercise's override settled says so


@dataclass(frozen=True)
class GradedFile:
    """One student's counted file: its sheet, a verdict on each assigned exercise (in the course's order), and more.

    ``first_tries`` holds None where the file records no first prediction; ``carried``
    the earlier exercise a wrong answer follows from; ``right`` every exercise right in
    the file, assigned or not (what a page may state). ``others`` are the student's other
    files, not counted; ``undecided`` says why the counted one is a guess; ``shifted``
    names the answers that are each a neighbouring exercise's; ``regraded`` the teacher's
    reason for each exercise set by hand (``overrides``); ``doubt`` why the file may be no
    attempt of the student's own (the blank template, the answer key, another student's file)
    or not all of it (cut short); ``renamed`` the name it gives itself where the record names another.
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
    right: frozenset[str] = frozenset()
    changed: float | None = None  # when the file was last changed
    others: tuple[str, ...] = ()
    undecided: str | None = None
    shifted: tuple[str, ...] = ()
    regraded: Mapping[str, str] = field(default_factory=dict)
    graded: bool = True  # False for a file handed in that is no answers file (a .docx): a row, not graded
    doubt: str | None = None
    settled: str | None = None  # the teacher's reason for releasing a row held for review (``overrides``)
    whole: tuple[float, str] | None = None  # the row's points set by hand, and why (an integrity case: ``overrides``)
    renamed: str | None = None  # the name the file gives itself where the record (LMS, roster) names another

    @property
    def path(self) -> Path:
        return self.sheet.path

    @property
    def course(self) -> Course:
        return self.sheet.course

    def named(self, exercise_id: str, shown: str | None = None) -> str:
        """An exercise as an output names it (by ``shown``, else its id), marked where the policy does not assign it."""
        assigned = any(verdict.exercise_id == exercise_id for verdict in self.verdicts)
        return (shown or exercise_id) + ("" if assigned else f" ({NOT_ASSIGNED})")

    @property
    def score(self) -> int:
        """How many exercises are right (the pytest grader's score)."""
        return score(self.verdicts)

    @property
    def factor(self) -> float:
        """What the points are multiplied by: the late factor for a late file, else 1."""
        return self.late_factor if self.late else 1.0

    @property
    def total(self) -> float:
        """The points earned, late factor applied; or the row's points as the teacher set them."""
        return self.whole[0] if self.whole else sum(self.points) * self.factor

    def settled_by(self, exercise_id: str = "") -> str | None:
        """What settled an exercise's item (its override), or the whole row (``settled``, its points), in words."""
        if exercise_id in self.regraded:
            return f"{SETTLED_BY}{exercise_id}: {self.regraded[exercise_id]}"
        if self.whole:
            return f"settled by the row's points set by hand ({number(self.whole[0])}): {self.whole[1]}"
        return f"settled: {self.settled}" if self.settled else None

    @property
    def percentage(self) -> float:
        return 100 * self.total / self.maximum if self.maximum else 0.0

    @property
    def needs_review(self) -> bool:
        """Whether a person should look (a line or an answer not read, an unknown key, a guess, a shift, a doubt),
        and has not settled it."""
        return self.settled is None and self.whole is None and bool(self.reasons())

    def reasons(self) -> list[str]:
        """Why the row needs review, each in words (grades.csv's problems): none for a row that does not.

        An exercise's override settles what kept that exercise from being read (its answer or its line)."""
        bad = {line.key for line in self.sheet.bad}
        unread = [
            v.exercise_id
            for v in self.verdicts
            if v.outcome is Outcome.UNREADABLE and v.exercise_id not in {*bad, *self.shifted, *self.regraded}
        ]
        shifted = [exercise_id for exercise_id in self.shifted if exercise_id not in self.regraded]
        return [
            *self.open_problems(),
            *([f"answers not read: {', '.join(unread)}"] if unread and self.sheet.unreadable is None else []),
            *([f"answers shifted by a line: {', '.join(shifted)}"] if shifted else []),
            *filter(None, [self.undecided, self.doubt]),
        ]

    def open_problems(self) -> list[str]:
        """The problems no exercise's override settled: a line not read whose exercise the teacher set is settled."""
        problems = self.problems()
        if self.sheet.unreadable is not None:
            return problems
        lines = len(self.sheet.bad)
        kept = [
            problem
            for problem, line in zip(problems, self.sheet.bad)
            if not (line.table is None and line.key in self.regraded)
        ]
        return kept + problems[lines:]

    def problems(self) -> list[str]:
        """The sheet's problems, naming the file as the class knows it (its label), not by the teacher's folders."""
        if not self.label:
            return self.sheet.problems()
        return [problem.replace(self.sheet.name, visible(self.label)) for problem in self.sheet.problems()]

    def count(self, outcome: Outcome) -> int:
        return sum(verdict.outcome is outcome for verdict in self.verdicts)

    def typed(self, position: int) -> str | None:
        """The answer to the exercise at ``position`` as the student wrote it, a line that could not be read too."""
        exercise_id = self.verdicts[position].exercise_id
        bad = self.sheet.bad_line(exercise_id)
        return self.sheet.typed(exercise_id) or (bad.text if bad else None)


def grade_file(
    course: Course,
    path: str | Path | Source,
    pattern: Pattern | None = None,
    policy: Policy | None = None,
    names: Mapping[str, str] | None = None,
    graded: bool = True,
) -> GradedFile:
    """Read one file (never run, never written), judge every exercise of the course in it, and name its student.

    A file handed in that is no answers file (not ``graded``) is a row that says so.
    """
    source = path if isinstance(path, Source) else Source(Path(path), label_of(Path(path), None, str(path)))
    policy = policy or Policy.default(course)
    if graded:
        sheet = AnswerSheet.read(course, source.path)
    else:
        sheet = AnswerSheet(course, source.path, unreadable=f"{visible(source.label)} is no answers file; not graded")
    judged = {exercise.id: sheet.grade(exercise.id) for exercise in course}
    ids = policy.assigned
    outcomes = {exercise_id: verdict.outcome for exercise_id, verdict in judged.items()}
    student = identify(source.label, sheet.identity("name"), sheet.identity("id"), pattern, names or policy.names)
    changed = _changed(source.path)
    return GradedFile(
        sheet,
        tuple(judged[exercise_id] for exercise_id in ids),
        tuple(sheet.first_try(exercise_id) for exercise_id in ids),
        source.label,
        student,
        tuple(carried_from(course, exercise_id, sheet.answers, outcomes) for exercise_id in ids),
        tuple(policy.points[exercise_id] * policy.credit(outcomes[exercise_id]) for exercise_id in ids),
        policy.late(student.id, student.late, changed),
        policy.late_factor,
        policy.maximum,
        frozenset(exercise_id for exercise_id, outcome in outcomes.items() if outcome is Outcome.CORRECT),
        changed,
        shifted=_shifted(course, sheet, judged),
        graded=graded,
        doubt=_doubt(course, sheet, judged) or _cut_short(sheet, ids),
        renamed=_renamed(sheet.identity("name"), (names or policy.names).get(student.id or "")),
    )


def _renamed(own: str | None, record: str | None) -> str | None:
    """Where the file names its student otherwise than the record (the LMS, the roster) does: said, not held back.

    The same words in another order are the same name (Canvas writes ``Becker, Tom``).
    """
    if own is None or record is None or _words(own) == _words(record):
        return None
    return f"the file names its student {quoted(own)}; the LMS's record (or the roster) names them {quoted(record)}"


def _words(name: str) -> list[str]:
    return sorted(name.replace(",", " ").casefold().split())


def grade_files(
    course: Course,
    paths: Iterable[str | Path | Source],
    pattern: Pattern | None = None,
    policy: Policy | None = None,
    names: Mapping[str, str] | None = None,
) -> list[GradedFile]:
    """Every file graded in turn, in this process; an unreadable one is a row that says why."""
    return [grade_file(course, path, pattern, policy, names) for path in paths]


def _changed(path: Path) -> float | None:
    try:
        return path.lstat().st_mtime
    except OSError:
        return None


def contents(path: Path) -> bytes | None:
    """A file's text as bytes, line endings and a byte-order mark aside: what makes two files the same."""
    try:
        return path.read_bytes().removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")
    except OSError:
        return None


@functools.cache
def _key(course: Course) -> bytes:
    return answers_file(course, solutions=True).encode()


def _doubt(course: Course, sheet: AnswerSheet, judged: Mapping[str, Verdict]) -> str | None:
    """Why a readable file is no attempt: every answer empty (the blank template), the answer key, or the key edited."""
    if sheet.unreadable is not None:
        return None
    if all(verdict.outcome is Outcome.NOT_ANSWERED for verdict in judged.values()):
        return "every answer is empty: the blank answers file, no attempt"
    text = contents(sheet.path)
    if text == _key(course):
        return "the file is the answer key itself, as the course writes it"
    if text is not None and text.startswith(_key(course).partition(b"\n")[0]):
        return "the file starts as the answer key does: the key's own text, edited, not a file of the student's own"
    return None


def _cut_short(sheet: AnswerSheet, assigned: Sequence[str]) -> str | None:
    """Where ``CUT_SHORT`` of the assigned exercises or more are not in the file at all, not even as ``""``.

    The blank file and the book's download list every exercise; a file that stops part way
    would otherwise read as "not answered" from there on.
    """
    present = {*sheet.answers, *(line.key for line in sheet.bad)}
    missing = [exercise_id for exercise_id in assigned if exercise_id not in present]
    if sheet.unreadable is not None or not missing or len(missing) < CUT_SHORT * len(assigned):
        return None
    return f"{len(missing)} exercises are missing from the file, from {missing[0]} on: was it cut short?"


def _shifted(course: Course, sheet: AnswerSheet, judged: Mapping[str, Verdict]) -> tuple[str, ...]:
    """The answers that are each the reference of the exercise after (or before) theirs, where ``SHIFTED`` or more are.

    A file whose answers slid down or up a line scores almost nothing and says why nowhere:
    each answer is right, for its neighbour.
    """
    exercises = list(course)
    for step in (1, -1):
        slid = [
            exercise.id
            for index, exercise in enumerate(exercises)
            if 0 <= index + step < len(exercises)
            and judged[exercise.id].outcome in (Outcome.WRONG, Outcome.UNREADABLE)
            and _tells_a_shift(exercise, judged[exercise.id])
            and judge(exercises[index + step], sheet.answers.get(exercise.id)).correct
        ]
        if len(slid) >= SHIFTED:
            return tuple(slid)
    return ()


def _tells_a_shift(exercise: Exercise, verdict: Verdict) -> bool:
    """Whether a neighbour's answer here tells of a shift: one this exercise cannot read (a vector in a choice's
    place) does; a letter, which a wrong choice shares by chance one time in three, does not, nor a number
    its own exercise names as a slip (x-hat given for the output)."""
    if verdict.outcome is Outcome.UNREADABLE:
        return True
    return not isinstance(exercise.kind, Choice) and not verdict.slips


# --- one row per student -----------------------------------------------------------------------


def rows(files: Sequence[GradedFile]) -> list[GradedFile]:
    """One row per student: files grouped by id, else by a known name; the latest attempt counts.

    The latest is the answers file with the highest LMS attempt number, else the one
    changed last. The row lists the other files; where two could be the latest, or one
    id is given by files that name different students, the row says so (``undecided``).
    """
    groups: dict[object, list[GradedFile]] = {}
    for file in files:
        groups.setdefault(file.student.key or ("file", file.label), []).append(file)
    return _the_same([_counted(group) for group in groups.values()])


def _the_same(counted: list[GradedFile]) -> list[GradedFile]:
    """Rows whose files are the same, byte for byte, as another student's, each with a doubt that names the others.

    Only files that share an answer not right: students filling in one template, right
    throughout, write the same bytes by themselves; the same wrong answer is what a copy shares.
    """
    alike: dict[bytes, list[int]] = {}
    for index, file in enumerate(counted):
        if file.graded and file.doubt is None and file.sheet.unreadable is None and _something_not_right(file):
            alike.setdefault(contents(file.path), []).append(index)
    for indices in (indices for indices in alike.values() if len(indices) > 1):
        for index in indices:
            others = ", ".join(who(counted[other]) for other in indices if other != index)
            doubt = f"the same file, byte for byte, as another student's: {others}"
            counted[index] = replace(counted[index], doubt=doubt)
    return counted


def _something_not_right(file: GradedFile) -> bool:
    return any(not verdict.correct and verdict.outcome is not Outcome.NOT_ANSWERED for verdict in file.verdicts)


def _attempt(file: GradedFile) -> tuple:
    return (file.graded, file.student.attempt or 0, file.changed or 0.0)


def _counted(group: list[GradedFile]) -> GradedFile:
    if len(group) == 1:
        return group[0]
    ranked = sorted(group, key=_attempt)
    latest, others = ranked[-1], ranked[:-1]
    undecided = None
    if _attempt(others[-1])[:2] == _attempt(latest)[:2] and _attempt(latest)[2] - _attempt(others[-1])[2] < APART:
        undecided = (f"cannot tell which of {len(group)} files came last (changed within {APART} seconds, as an "
                     f"unzip leaves them); counted {visible(latest.label)}")  # fmt: skip
    named = sorted(set(filter(None, (file.sheet.identity("name") for file in group))))  # as the files name themselves
    if len(named) > 1:
        undecided = f"files of one id name {len(named)} students: {', '.join(map(visible, named))}"
    return replace(latest, others=tuple(file.label for file in others), undecided=undecided)


# --- first tries, counted one way everywhere ----------------------------------------------------


def first_word(first: FirstTry) -> str:
    """A first try as the long gradebook gives it: ``right``, ``right so far``, ``not right`` or ``shown``."""
    if first.shown or first.verdict is None:
        return "shown"
    return {Outcome.CORRECT: "right", Outcome.CLOSE: "right so far"}.get(first.verdict.outcome, "not right")


def counted_firsts(file: GradedFile) -> list[FirstTry] | None:
    """The first tries that count: those of exercises the file gives a final answer to; None if it records none."""
    if all(first is None for first in file.first_tries):
        return None
    return [first for first in file.first_tries if first is not None and not first.unanswered]


def first_counts(firsts: Iterable[FirstTry]) -> tuple[int, int, int]:
    """First predictions, those right, and answers shown before a first prediction."""
    words = [first_word(first) for first in firsts]
    return len(words) - words.count("shown"), words.count("right"), words.count("shown")


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
    """One exercise across a class: how many students got each outcome, the answers that were not right, first tries."""

    exercise_id: str
    counts: Mapping[Outcome, int]
    groups: tuple[AnswerGroup, ...] = ()
    first_tries: tuple[int, int, int] = (0, 0, 0)  # first predictions, right ones, answers shown first

    @property
    def files(self) -> int:
        return sum(self.counts.values())

    @property
    def attempted(self) -> int:
        """Students who give an answer, readable or not."""
        return self.files - self.counts[Outcome.NOT_ANSWERED]

    @property
    def right(self) -> int:
        return self.counts[Outcome.CORRECT]

    def share(self, outcome: Outcome) -> float:
        """The fraction of students with this outcome (0 for an empty class)."""
        return self.counts[outcome] / self.files if self.files else 0.0


def exercise_ids(course: Course, graded: Sequence[GradedFile]) -> list[str]:
    """The exercises a class's rows give, in the course's order (every one for an empty class)."""
    return [verdict.exercise_id for verdict in graded[0].verdicts] if graded else list(course.exercises)


def tally(course: Course, graded: Sequence[GradedFile]) -> list[ExerciseTally]:
    """Each exercise's outcomes across the class, and its answers that were not right, grouped, commonest first.

    Answers group by what they say, not how they are written (``1``, ``1.0`` and
    ``1.000000`` are one answer): by the slip they match, by the earlier exercise they
    follow from, else by their value at the precision asked. Ties go to the answer shown
    first in sorted order, so the summary is the same whatever order the files come in.
    """
    tallies = []
    for position, exercise_id in enumerate(exercise_ids(course, graded)):
        counts = Counter(dict.fromkeys(Outcome, 0))
        counts.update(file.verdicts[position].outcome for file in graded)
        firsts = [first for file in graded for first in [file.first_tries[position]] if first and not first.unanswered]
        groups = _groups(course.exercises[exercise_id].kind, graded, position)
        tallies.append(ExerciseTally(exercise_id, dict(counts), groups, first_counts(firsts)))
    return tallies


def _groups(kind, graded: Sequence[GradedFile], position: int) -> tuple[AnswerGroup, ...]:
    members: dict[tuple, list[GradedFile]] = {}
    for file in graded:
        if file.verdicts[position].outcome not in (Outcome.CORRECT, Outcome.NOT_ANSWERED):
            members.setdefault(_group_key(file, position, kind), []).append(file)
    groups = []
    for key, files in members.items():
        typed = Counter(file.typed(position) or file.verdicts[position].answer or "" for file in files)
        shown = min(typed, key=lambda text: (-typed[text], text))  # the commonest way it was typed
        if key[0] == "unreadable":
            shown = "(could not be read)"
        students = tuple(sorted(who(file) for file in files))
        groups.append(AnswerGroup(shown, files[0].verdicts[position].outcome, len(files), _note(key, files), students))
    groups.sort(key=lambda group: (-group.count, group.shown))
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
    except GradingError:  # an answer its kind cannot read
        return ("shown", verdict.answer)
    decimals = getattr(kind, "decimals", None)
    if decimals is not None:
        values = value if isinstance(value, tuple) else (value,)
        value = tuple(round(v, decimals) if v == v else "nan" for v in values)
    return ("COARSE" if verdict.coarse else verdict.outcome.name, value)


# An answer too coarse to tell the reference from a known slip, or to judge at all: scored as a wrong answer is.
TOO_COARSE = "too few digits to judge: it reads as the answer at the decimals given, and scores as not right"


def _note(key: tuple, files: list[GradedFile]) -> str | None:
    if key[0] == "slip":
        return " ".join(key[1])
    if key[0] == "carried":
        upstream = key[1]
        said = Counter(" ".join(file.sheet.grade(upstream).slips) for file in files)
        slips = min(said, key=lambda text: (-said[text], text))
        upstream = files[0].named(upstream)
        earlier = f"the slip in {upstream}: {slips}" if slips else f"a wrong answer to {upstream}"
        return f"follows from {earlier}"
    if key[0] == "CLOSE":
        return "right so far: fewer decimals than asked"
    if key[0] == "COARSE":
        return TOO_COARSE
    return None


def who(file: GradedFile) -> str:
    """A student as the summary names them: the name, and the id in brackets."""
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
    "points",
    "maximum points",
    "percentage",
    "late",
    "needs review",
    *(f"exercises {outcome.value}" for outcome in COUNTS),
    f"first tries {OWN}",
    f"first tries right {OWN}",
    f"answers shown first {OWN}",
)
LAST_COLUMNS = ("file", "other files", "feedback page", "problems", "answer key")
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
LONGEST_TYPED = 500  # characters of an answer a cell shows (the most the grader reads in one answer)


def header(ids: Sequence[str]) -> tuple[str, ...]:
    """The gradebook's columns: who, the points, the counts, each exercise's points, and where it came from."""
    return (*FIRST_COLUMNS, *ids, *LAST_COLUMNS)


def csv_text(course: Course, graded: Sequence[GradedFile], pages: Sequence[str] | None = None) -> str:
    """The gradebook: a row per student, their points, maximum and percentage, and each exercise's points.

    Numbers are written as numbers (``number``); a name, a file's label and its problems
    are shown as ``untrusted.csv_cell`` writes them: on one line, with no control
    character, and never as the start of a formula. ``pages`` names each row's feedback page.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header(exercise_ids(course, graded)))
    key = f"{course.name} {course.version}"
    for index, file in enumerate(graded):
        firsts = counted_firsts(file)
        writer.writerow(
            [
                csv_cell(file.student.id or ""),
                csv_cell(file.student.name),
                number(file.total) if file.graded else "",  # no answers file: no points, in no total
                number(file.maximum),
                number(file.percentage, 1) if file.graded else "",
                "yes" if file.late else "",
                "yes" if file.needs_review else "",
                *(file.count(outcome) for outcome in COUNTS),
                *(first_counts(firsts) if firsts is not None else ("", "", "")),
                *(number(points * file.factor) if file.graded else "" for points in file.points),
                csv_cell(file.label),
                csv_cell(" | ".join(file.others)),
                pages[index] if pages else "",
                csv_cell(
                    " | ".join(
                        [
                            *file.reasons(),
                            *filter(None, [file.renamed]),
                            *filter(None, [file.settled_by() if file.settled or file.whole else None]),
                        ]
                    ),
                    composed=True,
                ),
                key,
            ]
        )
    return buffer.getvalue()


def spreadsheet_bytes(text: str) -> bytes:
    """A CSV the teacher opens as a spreadsheet opens it right: UTF-8 with a byte-order mark (without one, Excel
    reads it as cp1252, "PÃ©rez"), its lines ended by CRLF as RFC 4180 writes them (the writers' terminator)."""
    return ("\ufeff" + text).encode("utf-8")


def typed_cell(text: str | None) -> str:
    """A student's answer for a cell: escaped as ``csv_cell`` does, and cut after ``LONGEST_TYPED`` characters."""
    if not text:
        return ""
    cut = text if len(text) <= LONGEST_TYPED else f"{text[:LONGEST_TYPED]}… ({len(text)} characters)"
    return csv_cell(cut)


def long_csv_text(graded: Sequence[GradedFile]) -> str:
    """One row per student and exercise: the answer as typed (one not read too, escaped), its verdict, its points."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(LONG_HEADER)
    for file in graded:
        for position, verdict in enumerate(file.verdicts):
            first = file.first_tries[position]
            first_typed = file.sheet.typed(verdict.exercise_id, "first-tries") if first and first.verdict else None
            carried = file.carried[position]
            note = " ".join(verdict.slips) or (f"follows from {file.named(carried)}" if carried else "")
            note = note or (TOO_COARSE if verdict.coarse else "")
            if verdict.exercise_id in file.regraded:
                note = f"set by the teacher: {visible(file.regraded[verdict.exercise_id])}"
            writer.writerow(
                [
                    csv_cell(file.student.id or ""),
                    csv_cell(file.student.name),
                    csv_cell(file.label),
                    verdict.exercise_id,
                    typed_cell(file.typed(position)),
                    verdict.outcome.value,
                    number(file.points[position] * file.factor) if file.graded else "",  # no answers file: none
                    csv_cell(note, composed=True),
                    (first_word(first) + (", no final answer" if first.unanswered else "")) if first else "",
                    typed_cell(first_typed),
                ]
            )
    return buffer.getvalue()
