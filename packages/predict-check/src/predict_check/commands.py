"""What the engine's commands and a course's share: a command stopped quietly when its reader goes away."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def piped(main: Callable[[list[str] | None], int]) -> Callable[[list[str] | None], int]:
    """``main``, quietly stopped when its reader goes away (``... | head``): what it wrote by then stands."""

    def run(argv: list[str] | None = None) -> int:
        try:
            status = main(argv)
            sys.stdout.flush()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more reaches the closed pipe
            return 1
        return status

    return run
