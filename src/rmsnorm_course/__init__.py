"""RMSNorm, taught by prediction and evidence: the package behind the course chapter."""

from .errors import RMSNormError
from .feedback import check
from .layer import RMSNorm
from .rmsnorm import RMSNormForward, rms_norm, rms_norm_backward, rms_norm_forward

__all__ = [
    "RMSNorm",
    "RMSNormError",
    "RMSNormForward",
    "check",
    "rms_norm",
    "rms_norm_backward",
    "rms_norm_forward",
]
