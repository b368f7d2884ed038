"""One error type for every rejected RMSNorm request.

Each boundary is its own subclass, so a caller can catch exactly the case it
expects, and every message says what was wrong and what was expected.
All of them are ``ValueError``s, because each one is a bad value handed in.
"""

from __future__ import annotations


class RMSNormError(ValueError):
    """A request that RMSNorm refuses; ``boundary`` names which rule it broke."""

    boundary = "rmsnorm"


class InvalidEpsilon(RMSNormError):
    boundary = "invalid-epsilon"


class EmptyFeatureWidth(RMSNormError):
    boundary = "empty-feature-width"


class GainShapeError(RMSNormError):
    boundary = "gain-shape"


class InputRankZero(RMSNormError):
    boundary = "rank-zero"


class WidthMismatch(RMSNormError):
    boundary = "width-mismatch"


class ZeroEnergyRow(RMSNormError):
    boundary = "zero-energy-epsilon-zero"


class NonFiniteValue(RMSNormError):
    boundary = "non-finite"


class UnsupportedDtype(RMSNormError):
    boundary = "unsupported-dtype"


class GradientShapeError(RMSNormError):
    boundary = "gradient-shape"


class ParameterNameError(RMSNormError):
    boundary = "parameter-name"


class GradientCheckError(RMSNormError):
    boundary = "gradient-check-settings"


class BroadcastShapeError(RMSNormError):
    boundary = "broadcast-shapes"


class UpstreamGradientRequired(RMSNormError):
    boundary = "upstream-required"


class UpstreamShapeError(GradientShapeError):
    boundary = "tape-upstream-shape"


class LogDomainError(RMSNormError):
    boundary = "log-domain"


class SquareOverflow(RMSNormError):
    boundary = "square-overflow"


class OutputArrayError(RMSNormError):
    boundary = "output-array"


class OutputShapeError(RMSNormError):
    boundary = "output-shape"


class OutputDtypeError(RMSNormError):
    boundary = "output-dtype"


class OutputOverlapError(RMSNormError):
    boundary = "output-overlap"


class MaskedArrayError(RMSNormError):
    boundary = "masked-array"


class FeatureWidthTooLarge(RMSNormError):
    boundary = "width-too-large"
