"""Where the package keeps what it computes once: one environment variable, read here only.

``$RMSNORM_COURSE_CACHE`` names the folder every cache keeps its files in (the answer
key, the training page's runs); ``off`` keeps nothing, so no cache writes a file
anywhere. Unset, each cache falls back to its own default.
"""

from __future__ import annotations

import os
from pathlib import Path

VARIABLE = "RMSNORM_COURSE_CACHE"
OFF = "off"


def folder(default: Path | None = None) -> Path | None:
    """The folder the variable names; None where it says ``off``; ``default`` where it is unset or empty."""
    chosen = os.environ.get(VARIABLE, "")
    if chosen == OFF:
        return None
    return Path(chosen) if chosen else default
