"""``python -m predict_check template [--course NAME]``: print a course's blank answers file, in the course's words.

``python -m predict_check solutions [--course NAME]`` prints the same file filled with the
reference answers. The course is one of those installed (``courses``): with one installed, no
name is needed. Each file's header says how the course grades it (``Course.grade_file``).
"""

from __future__ import annotations

import argparse
import sys

from .commands import piped
from .courses import load_course
from .errors import GradingError
from .sheet_writer import answers_file

COMMANDS = {"template": "the blank answers file students fill in", "solutions": "the file with the reference answers"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m predict_check", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", metavar="command", required=True)
    for name, said in COMMANDS.items():
        command = commands.add_parser(name, help=said, description=f"Print {said}.")
        command.add_argument("--course", metavar="NAME", help="the installed course (by default the one installed)")
    args = parser.parse_args(argv)
    try:
        course = load_course(args.course)
    except GradingError as error:
        print(f"no answers file: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(answers_file(course, solutions=args.command == "solutions"))
    return 0


run = piped(main)


if __name__ == "__main__":
    sys.exit(run())
