"""``python -m rmsnorm_course``: print the checked evidence report; exit 1 if a check fails.

``python -m rmsnorm_course solutions`` prints an answers file filled with the reference
answers; ``python -m rmsnorm_course template`` prints the blank one students fill in;
``python -m rmsnorm_course grade FOLDER [FILE ...] --gradebook grades.csv`` grades a
class's answer files in one run (see ``views.class_report``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .exercises.answers import answers_file
from .exercises.gradebook import answer_files, grade_files, tally
from .exercises.untrusted import visible
from .studies import evidence
from .views import class_report, report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rmsnorm_course", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", metavar="command")
    commands.add_parser("report", help="the evidence report (the default)")
    commands.add_parser("solutions", help="the answers file with the reference answers")
    commands.add_parser("template", help="the blank answers file")
    grade = commands.add_parser(
        "grade",
        help="grade many answer files in one run",
        description="Grade answer files in one run: a summary per exercise, and optionally a CSV gradebook with a "
        "figure beside it and a Markdown feedback page per file. Files are read as data, never run or changed.",
    )
    grade.add_argument("sources", nargs="+", metavar="PATH", help="an answers file, or a folder of *.toml files")
    grade.add_argument("--gradebook", type=Path, metavar="CSV", help="write the gradebook here, and the figure as PNG")
    grade.add_argument("--feedback", type=Path, metavar="DIR", help="write one Markdown feedback page per file here")
    args = parser.parse_args(argv)
    if args.command in (None, "report"):
        collected = evidence.collect()
        sys.stdout.write(report.render(collected))
        return 0 if collected.passed else 1
    if args.command == "grade":
        return grade_class(args.sources, args.gradebook, args.feedback)
    sys.stdout.write(answers_file(solutions=args.command == "solutions"))
    return 0


def grade_class(sources: list[str], gradebook: Path | None, feedback: Path | None) -> int:
    """Grade every file, write the outputs, print the summary; 1 when there is nothing to grade or nowhere to write."""
    found = answer_files(sources)
    for word in found.passed_over:
        print(f"passed over: {word}", file=sys.stderr)
    named = ", ".join(visible(source) for source in sources)
    if not found.paths:
        print(f"no answer files (*.toml) in {named}; expected a folder of them, or their paths", file=sys.stderr)
        return 1
    if not any(os.path.lexists(path) for path in found.paths):  # a mistyped folder must not replace the last results
        print(
            f"nothing to grade: no such file or folder as {named}; expected a folder of answer files, or their paths",
            file=sys.stderr,
        )
        return 1
    graded = grade_files(found.paths)
    try:
        class_report.write(graded, gradebook, feedback)
    except class_report.OutputError as error:
        print(f"nothing written: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        where = visible(str(error.filename))
        print(f"cannot write {where}: {error.strerror}; expected a folder this user may write in", file=sys.stderr)
        return 1
    if gradebook is None:
        sys.stdout.write("".join(f"score: {file.score}/{len(file.verdicts)}  {file.sheet.name}\n" for file in graded))
    sys.stdout.write(class_report.summary(graded, tally(graded)))
    if gradebook is not None:
        print(f"wrote {visible(str(gradebook))} and the figure {visible(str(gradebook.with_suffix('.png')))}")
    if feedback is not None:
        print(f"wrote {len(graded)} feedback pages in {visible(str(feedback))}")
    return 0


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
