"""``python -m rmsnorm_course``: print the checked evidence report; exit 1 if a check fails."""

from __future__ import annotations

import sys

from . import evidence, report


def main(argv: list[str] | None = None) -> int:
    collected = evidence.collect()
    sys.stdout.write(report.render(collected))
    return 0 if collected.passed else 1


if __name__ == "__main__":
    sys.exit(main())
