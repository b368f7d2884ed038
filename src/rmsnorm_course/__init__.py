"""RMSNorm, taught by prediction and evidence: the package behind the course chapter."""

from .core.errors import RMSNormError
from .core.layer import RMSNorm
from .core.rmsnorm import RMSNormForward, rms_norm, rms_norm_backward, rms_norm_forward
from .exercises.feedback import check

__all__ = [
    "RMSNorm",
    "RMSNormError",
    "RMSNormForward",
    "check",
    "rms_norm",
    "rms_norm_backward",
    "rms_norm_forward",
]
