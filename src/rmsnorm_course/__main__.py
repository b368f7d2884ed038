"""``python -m rmsnorm_course``: print the checked evidence report; exit 1 if a check fails.

``python -m rmsnorm_course solutions`` prints an answers file filled with the reference
answers; ``python -m rmsnorm_course template`` prints the blank one students fill in.
"""

from __future__ import annotations

import argparse
import sys

from .exercises import answers as grading
from .studies import evidence
from .views import report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rmsnorm_course", description=__doc__.splitlines()[0])
    parser.add_argument(
        "command",
        nargs="?",
        default="report",
        choices=["report", "solutions", "template"],
        help="report (the default): the evidence report; solutions: the answers file with the reference answers; "
        "template: the blank answers file",
    )
    command = parser.parse_args(argv).command
    if command == "report":
        collected = evidence.collect()
        sys.stdout.write(report.render(collected))
        return 0 if collected.passed else 1
    sys.stdout.write(grading.answers_file(solutions=command == "solutions"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
