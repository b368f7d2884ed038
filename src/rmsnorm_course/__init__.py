"""RMSNorm, taught by prediction and evidence: the package behind the course chapter."""

from .errors import RMSNormError
from .layer import RMSNorm
from .rmsnorm import RMSNormForward, rms_norm, rms_norm_backward, rms_norm_forward

__all__ = [
    "RMSNorm",
    "RMSNormError",
    "RMSNormForward",
    "rms_norm",
    "rms_norm_backward",
    "rms_norm_forward",
]
