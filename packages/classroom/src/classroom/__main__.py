"""``python -m classroom grade FOLDER [FILE ...] --out grades``: a class's answer files graded in one run.

Every file is read as data, never run or changed, and judged by the course's own
exercises (``--course NAME``; the one installed course by default), found through the
engine (``predict_check.courses``). The outputs are one folder, replaced whole
(``report``): the gradebooks, the review queue, a figure, a feedback page per student,
and with ``--lms-gradebook`` the LMS's own export filled in and the pages zipped for it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from predict_check import Course, GradingError, key_of_record, load_course, piped, quoted, visible

from . import lms, overrides, policy, report
from .feedback import FORMATS, Options
from .files import Found, answer_files
from .gradebook import GradedFile, grade_file, grade_files, number, rows, who
from .publish import PublishError
from .students import Pattern

VALUED = ("--out", "--pattern", "--policy", "--overrides", "--lms-gradebook", "--column", "--title", "--note")
VALUED += ("--note-file", "--formats", "--course")  # the options that take a value: the word after one is its value
NOT_IN_EXPORT = "not in the LMS's export"  # the name of a student the export does not know, where no file names them


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    named_files: list[str] = []
    if argv[:1] == ["grade"]:
        argv, named_files = _names_that_are_files(argv)
    args = _parser().parse_args(argv)
    try:
        course = load_course(args.course)
    except GradingError as error:
        print(f"nothing graded: {error}", file=sys.stderr)
        return 1
    return grade_class(course, named_files + args.sources, args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m classroom", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", metavar="command", required=True)
    grade = commands.add_parser(
        "grade",
        help="grade many answer files in one run",
        description="Grade answer files in one run: a summary per exercise, and with --out a folder of the "
        "gradebooks, the review queue, a figure and a feedback page per student. Files are read as data, never "
        "run or changed. A name the shell expanded is a file even when it begins with a dash; put -- before names "
        "to be sure.",
    )
    add = grade.add_argument
    add("sources", nargs="*", metavar="PATH", help="an answers file, or a folder of *.toml files")
    add("--out", type=Path, metavar="DIR", help="write everything into DIR, replaced as one folder")
    add("--pattern", metavar="P", help="read name and id from file names: canvas, moodle, blackboard, or a template "
        "like {id}-{name}.toml")  # fmt: skip
    add("--policy", type=Path, metavar="TOML", help="points per exercise, credit, late factor")
    add("--overrides", type=Path, metavar="TOML", help="exercises set by hand, per student, with a reason")
    add("--lms-gradebook", type=Path, metavar="CSV", help="the LMS's exported gradebook, to fill in: Canvas's export "
        "or Moodle's grading worksheet")  # fmt: skip
    add("--column", metavar="NAME", help="the assignment's column in Canvas's export")
    add("--title", metavar="TEXT", help="the course's title, on every feedback page")
    add("--note", metavar="TEXT", help="a note from the teacher, on every feedback page")
    add("--note-file", type=Path, metavar="FILE", help="the note, from a text file")
    add("--formats", default=",".join(FORMATS), metavar="LIST", help="the feedback pages' forms: html, txt, md")
    add("--names", action="store_true", help="name the students behind each answer in the summary")
    add("--course", metavar="NAME", help="the course whose exercises the files answer")
    return parser


def _names_that_are_files(argv: list[str]) -> tuple[list[str], list[str]]:
    """Names the shell expanded that begin with a dash (``--out=x.toml``) taken as files, not as options.

    A word that begins with a dash, holds ``.toml`` and names an existing entry is a file,
    unless it is the value of the option before it; every word after ``--`` is a file too.
    """
    kept, files = argv[:1], []
    for index, word in enumerate(argv[1:], start=1):
        previous = argv[index - 1]
        if "--" in argv[1:index]:
            kept.append(word)
        elif word.startswith("-") and ".toml" in word.casefold() and os.path.lexists(word) and previous not in VALUED:
            files.append(word)
        else:
            kept.append(word)
    return kept, files


def grade_class(course: Course, sources: list[str], args: argparse.Namespace) -> int:
    """Grade every file, write the outputs, print the summary; 1 when there is nothing to grade or nowhere to write."""
    if not sources:
        print("name a folder of answer files, or the files: grade submissions/ --out grades", file=sys.stderr)
        return 1
    with key_of_record(course) as answers:  # a grade of record trusts no kept file: each answer is computed here
        return _graded_class(course, sources, args, answers.said)


def _graded_class(course: Course, sources: list[str], args: argparse.Namespace, said: Callable[[], str]) -> int:
    """The class graded against the key of record; ``said`` tells, once graded, how its answers were got."""
    try:
        run = _graded(course, sources, args)
    except (GradingError, OSError, UnicodeDecodeError) as error:
        print(f"nothing written: {_said(error)}", file=sys.stderr)
        return 1
    if run is None:
        return 1
    for warning in _warnings(run, args):
        print(f"warning: {warning}", file=sys.stderr)
    try:
        written = report.write(run, args.out) if args.out is not None else []
    except report.OutputError as error:
        print(f"nothing written: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"nothing written: {_said(error)}; expected a folder this user may write in", file=sys.stderr)
        return 1
    if args.out is None:
        sys.stdout.write("".join(f"score: {_scored(file)}  {visible(file.label)}\n" for file in run.graded))
    sys.stdout.write(
        report.summary(course, run.graded, run.tallies, args.names, run.items, run.held, run.left_out, run.absent)
    )
    print(said())
    if _lateness_unknown(run, args):
        print(f"late: unknown: {args.pattern}'s file names carry no late mark; give one in the policy (--policy): "
              '[late] deadline = 2025-03-14T23:59:00+01:00, or roster = "late.csv"')  # fmt: skip
    if written:
        print(f"wrote {visible(str(args.out))}: {', '.join(name for name in written if '/' not in name)}, "
              f"and {len(run.graded)} feedback page{'s' * (len(run.graded) != 1)} in each form")  # fmt: skip
    return 0


def _lateness_unknown(run: report.Run, args: argparse.Namespace) -> bool:
    """Files named by an LMS whose names mark no lateness (all but Canvas's), with no deadline and no roster."""
    rule = run.policy is not None and (run.policy.deadline is not None or run.policy.late_ids)
    return args.pattern is not None and args.pattern != "canvas" and not rule


def _scored(file: GradedFile) -> str:
    return f"{file.score}/{len(file.verdicts)} exercises right, {number(file.total)} of {number(file.maximum)} points"


def _graded(course: Course, sources: list[str], args: argparse.Namespace) -> report.Run | None:
    """Read the options and the files, grade them into one row per student; None (with words) when nothing is there."""
    pattern = Pattern.of(args.pattern) if args.pattern else None
    chosen = policy.load(course, args.policy) if args.policy else policy.Policy.default(course)
    options = Options(args.title, _note(args), _formats(args.formats))
    export = lms.read(args.lms_gradebook, args.column) if args.lms_gradebook else None
    if export is not None:
        lms.refuse_another_maximum(export, chosen.maximum)
    found = answer_files(sources)
    for word in found.passed_over:
        print(f"passed over: {word}", file=sys.stderr)
    if not _anything(found, sources):
        return None
    names = {**(export.names if export else {}), **chosen.names}
    handed_in = [other for other in found.others if pattern is not None and pattern.match(other.label)]
    files = grade_files(course, found.sources, pattern, chosen, names)
    files += [grade_file(course, other, pattern, chosen, names, graded=False) for other in handed_in]
    graded = _unknown_named(rows(files), export, args.pattern)
    if args.overrides is not None:
        table = overrides.load(course, chosen, args.overrides)
        graded = overrides.apply(graded, table, chosen, overrides.identities(export))
    preset = args.pattern if args.pattern in lms.ID_COLUMNS else None
    return report.Run(course, graded, options, found, export, export.lms if export else preset, chosen)


def _unknown_named(graded: list[GradedFile], export: lms.Export | None, pattern: str | None) -> list[GradedFile]:
    """A student the export does not know, whose file names no one, said as such: never by Canvas's slug."""
    if export is None or pattern != "canvas":  # only Canvas's file names give a slug (walkersam) for a name
        return graded
    known = export.names
    return [
        replace(file, student=replace(file.student, name=NOT_IN_EXPORT))
        if (file.student.id or "") not in known and file.sheet.identity("name") is None
        else file
        for file in graded
    ]


def _anything(found: Found, sources: list[str]) -> bool:
    named = ", ".join(visible(source) for source in sources)
    if not found.sources and not found.others:
        print(f"no answer files (*.toml) in {named}; expected a folder of them, or their paths", file=sys.stderr)
        return False
    if not any(os.path.lexists(path) for path in found.paths + [other.path for other in found.others]):
        print(f"nothing to grade: no such file or folder as {named}; expected a folder of answer files, or their "
              "paths", file=sys.stderr)  # fmt: skip  # a mistyped folder must not replace the last results
        return False
    return True


def _warnings(run: report.Run, args: argparse.Namespace) -> list[str]:
    """What may be a mistake: a pattern or roster ids that match nothing, lateness counted twice."""
    said = []
    labels = [source.label for source in run.found.sources] if run.found else []
    if args.pattern and labels:
        pattern = Pattern.of(args.pattern)
        unmatched = [label for label in labels if not pattern.match(label)]
        if unmatched:
            said.append(f"the pattern {quoted(args.pattern)} matches {len(labels) - len(unmatched)} of the "
                        f"{len(labels)} files' names, not {quoted(unmatched[0])}: those are named by their own "
                        "lines or their file names")  # fmt: skip
    ids = {file.student.id for file in run.graded}
    stray = [student_id for student_id in run.policy.late_ids if student_id not in ids] if run.policy else []
    if stray:
        said.append(f"the roster's ids {', '.join(map(quoted, stray[:5]))} match no student's file "
                    "(ids are compared as written: 0102 is not 102)")  # fmt: skip
    unzipped = [file for file in run.graded if run.lms and file.graded and lms.entry_name(run.lms, file) is None]
    if unzipped:
        count, has = len(unzipped), "has" if len(unzipped) == 1 else "have"
        said.append(f"{count} student{'s' * (count != 1)} ({who(unzipped[0])} first) {has} no page in "
                    f"{run.lms}-feedback.zip: their files do not carry {run.lms.title()}'s numbers")  # fmt: skip
    needless = [who(file) for file in run.graded if file.settled and not file.reasons()]
    if needless:
        said.append(f"settled is given where no review is needed ({', '.join(needless)}): "
                    "is it the student you meant?")  # fmt: skip
    if run.held:
        said.append(report.held_back(run.held))
    if run.left_out:
        said.append(run.left_out)
    if run.export is not None and run.export.lms == "canvas" and run.policy and run.policy.late_factor != 1:
        said.append("Canvas may deduct for lateness again on import: turn off its automatic late deduction "
                    "(the course's Gradebook settings, Late Policies) or drop [late] from the policy")  # fmt: skip
    return said


def _said(error: BaseException) -> str:
    """An error in words that name the user's path: a ``PublishError`` is already so; others name their file."""
    if isinstance(error, OSError) and not isinstance(error, PublishError):
        where = f"cannot write {visible(str(error.filename))}: " if error.filename is not None else ""
        return where + str(error.strerror or error)
    return str(error.args[1] if isinstance(error, PublishError) and len(error.args) > 1 else error)


def _note(args: argparse.Namespace) -> str | None:
    if args.note_file is not None:
        return args.note_file.read_text(encoding="utf-8-sig")
    return args.note


def _formats(text: str) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(part.strip().lower() for part in text.split(",") if part.strip()))
    unknown = [part for part in chosen if part not in FORMATS]
    if unknown or not chosen:
        raise GradingError(f"--formats takes html, txt and md, separated by commas; got {visible(text)}")
    return chosen


run = piped(main)  # stopped quietly when its reader goes away (grade ... | head): the outputs are written by then


if __name__ == "__main__":
    sys.exit(run())
