"""RMSNorm, taught by prediction and evidence: the package behind the course chapter.

``import rmsnorm_course`` loads the core only (the maths). ``check``, the exercises'
verdicts, loads on first use, with the pages that declare and solve them (``pages``) and
the engine that judges them (``predict_check``).
"""

from __future__ import annotations

from .core.errors import RMSNormError
from .core.layer import RMSNorm
from .core.rmsnorm import RMSNormForward, rms_norm, rms_norm_backward, rms_norm_forward

__all__ = [
    "RMSNorm",
    "RMSNormError",
    "RMSNormForward",
    "check",
    "rms_norm",
    "rms_norm_backward",
    "rms_norm_forward",
]


def __getattr__(name: str):
    """Load ``check`` when it is first asked for (PEP 562), not with the package."""
    if name == "check":
        from .pages import check

        return check
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
