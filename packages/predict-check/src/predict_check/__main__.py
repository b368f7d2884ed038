"""``python -m predict_check template [--course NAME]``: print a course's blank answers file, in the course's words.

``python -m predict_check solutions [--course NAME]`` prints the same file filled with the
reference answers; ``python -m predict_check grade [--course NAME] FILE`` grades an answers
file with pytest (``grading``), from any folder, as the course's own grading folder would.
The course is one of those installed (``courses``): with one installed, no name is needed.
Each file's header says how the course grades it (``Course.grade_file``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .commands import piped
from .courses import load_course
from .errors import GradingError
from .sheet_writer import answers_file

COMMANDS = {"template": "the blank answers file students fill in", "solutions": "the file with the reference answers"}
COURSE = "the installed course (by default the one installed)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m predict_check", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", metavar="command", required=True)
    for name, said in COMMANDS.items():
        command = commands.add_parser(name, help=said, description=f"Print {said}.")
        command.add_argument("--course", metavar="NAME", help=COURSE)
    grading = commands.add_parser(
        "grade", help="grade an answers file", description="Grade an answers file: words for each answer not right."
    )
    grading.add_argument("--course", metavar="NAME", help=COURSE)
    grading.add_argument("-v", "--verbose", action="store_true", help="say every exercise's verdict")
    grading.add_argument("answers", type=Path, metavar="FILE", help="the answers file, from the current folder")
    args = parser.parse_args(argv)
    try:
        course = load_course(args.course)
    except GradingError as error:
        print(f"no {'grade' if args.command == 'grade' else 'answers file'}: {error}", file=sys.stderr)
        return 1
    if args.command == "grade":
        from .grading import grade  # pytest loads only to grade

        return grade(course, args.answers, ["-v"] if args.verbose else [])
    sys.stdout.write(answers_file(course, solutions=args.command == "solutions"))
    return 0


run = piped(main)


if __name__ == "__main__":
    sys.exit(run())
