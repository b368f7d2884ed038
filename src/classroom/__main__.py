"""``python -m classroom grade FOLDER [FILE ...] --out grades``: a class's answer files graded in one run.

Every file is read as data, never run or changed, and judged by the course's own
exercises (``--course NAME``; the one installed course by default), found through the
engine (``predict_check.courses``). The outputs are the gradebook, the long gradebook, a
figure and a feedback page per student (``report``), replaced as one folder.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from predict_check import courses
from predict_check.errors import GradingError
from predict_check.exercises import Course
from predict_check.untrusted import visible

from . import policy, report
from .gradebook import answer_files, grade_files, tally
from .publish import PublishError
from .students import Pattern

VALUED = ("--gradebook", "--feedback", "--out", "--pattern", "--policy", "--title", "--note", "--note-file")
VALUED += ("--formats", "--course")  # the options that take a value: the word after one is its value, whatever it is


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m classroom", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", metavar="command", required=True)
    grade = commands.add_parser(
        "grade",
        help="grade many answer files in one run",
        description="Grade answer files in one run: a summary per exercise, and optionally a CSV gradebook with a "
        "figure beside it and a feedback page per file. Files are read as data, never run or changed. "
        "A name the shell expanded is a file even when it begins with a dash; put -- before names to be sure.",
    )
    grade.add_argument("sources", nargs="*", metavar="PATH", help="an answers file, or a folder of *.toml files")
    grade.add_argument("--out", type=Path, metavar="DIR", help="write everything into DIR, replaced as one folder")
    grade.add_argument("--gradebook", type=Path, metavar="CSV", help="write the gradebook here, the rest beside it")
    grade.add_argument("--feedback", type=Path, metavar="DIR", help="write one feedback page per file here")
    grade.add_argument("--pattern", metavar="P", help="read name and id from file names: canvas, moodle, blackboard, "
                       "or a template like {id}-{name}.toml")  # fmt: skip
    grade.add_argument("--policy", type=Path, metavar="TOML", help="points per exercise, credit, late factor")
    grade.add_argument("--title", metavar="TEXT", help="the course's title, on every feedback page")
    grade.add_argument("--note", metavar="TEXT", help="a note from the teacher, on every feedback page")
    grade.add_argument("--note-file", type=Path, metavar="FILE", help="the note, from a text file")
    grade.add_argument("--formats", default=",".join(report.FORMATS), metavar="LIST",
                       help="the feedback pages' forms: html, txt, md (default: all three)")  # fmt: skip
    grade.add_argument("--names", action="store_true", help="name the students behind each answer in the summary")
    model = commands.add_parser("model", help="SmolLM2-135M's next token after TEXT, and its residual stream's RMS")
    model.add_argument("text", metavar="TEXT", help="the text the model reads")
    model.add_argument("--json", action="store_true", help="print one JSON object")
    grade.add_argument("--course", metavar="NAME", help="the course whose exercises the files answer")
    named_files: list[str] = []
    if argv[:1] == ["grade"]:
        argv, named_files = _names_that_are_files(argv)
    args = parser.parse_args(argv)
    try:
        course = courses.load(args.course)
    except GradingError as error:
        print(f"nothing graded: {error}", file=sys.stderr)
        return 1
    return grade_class(course, named_files + args.sources, args)


def _names_that_are_files(argv: list[str]) -> tuple[list[str], list[str]]:
    """Names the shell expanded that begin with a dash (``--feedback=x.toml``) taken as files, not as options.

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
    try:
        pattern = Pattern.of(args.pattern) if args.pattern else None
        chosen = policy.load(course, args.policy) if args.policy else policy.Policy.default(course)
        options = report.Options(args.title, _note(args), _formats(args.formats), args.names)
    except (GradingError, OSError, UnicodeDecodeError) as error:
        print(f"nothing written: {_said(error)}", file=sys.stderr)
        return 1
    found = answer_files(sources)
    for word in found.passed_over:
        print(f"passed over: {word}", file=sys.stderr)
    named = ", ".join(visible(source) for source in sources)
    if not found.sources:
        print(f"no answer files (*.toml) in {named}; expected a folder of them, or their paths", file=sys.stderr)
        return 1
    if not any(os.path.lexists(path) for path in found.paths):  # a mistyped folder must not replace the last results
        print(
            f"nothing to grade: no such file or folder as {named}; expected a folder of answer files, or their paths",
            file=sys.stderr,
        )
        return 1
    graded = grade_files(course, found.sources, pattern, chosen)
    try:
        report.write(course, graded, args.gradebook, args.feedback, args.out, options, found.folders)
    except report.OutputError as error:
        print(f"nothing written: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"nothing written: {_said(error)}; expected a folder this user may write in", file=sys.stderr)
        return 1
    if args.gradebook is None and args.out is None:
        lines = [f"score: {file.score}/{len(file.verdicts)}  {visible(file.label)}\n" for file in graded]
        sys.stdout.write("".join(lines))
    sys.stdout.write(report.summary(course, graded, tally(course, graded), args.names))
    pages = f"{len(graded)} feedback page{'s' * (len(graded) != 1)}"
    if args.out is not None:
        print(f"wrote {visible(str(args.out))}: the gradebooks, the figure and {pages}")
    if args.gradebook is not None:
        print(f"wrote {visible(str(args.gradebook))} and the figure {visible(str(args.gradebook.with_suffix('.png')))}")
    if args.feedback is not None:
        print(f"wrote {pages} in {visible(str(args.feedback))}")
    return 0


def _said(error: BaseException) -> str:
    """An error in words that name the user's path: a ``PublishError`` is already so; others name their file."""
    if isinstance(error, OSError) and not isinstance(error, PublishError):
        where = f"cannot write {visible(str(error.filename))}: " if error.filename is not None else ""
        return where + str(error.strerror or error)
    return str(error.args[1] if isinstance(error, PublishError) and len(error.args) > 1 else error)


def _note(args: argparse.Namespace) -> str | None:
    if args.note_file is not None:
        return args.note_file.read_text(encoding="utf-8")
    return args.note


def _formats(text: str) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(part.strip().lower() for part in text.split(",") if part.strip()))
    unknown = [part for part in chosen if part not in report.FORMATS]
    if unknown or not chosen:
        raise GradingError(f"--formats takes html, txt and md, separated by commas; got {visible(text)}")
    return chosen


def run(argv: list[str] | None = None) -> int:
    """``main``, quietly stopped when its reader goes away (``grade ... | head``): the outputs are written by then."""
    try:
        status = main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more reaches the closed pipe
        return 1
    return status


if __name__ == "__main__":
    sys.exit(run())
