"""The boxes of implementation.md: The implementation."""

from __future__ import annotations

import numpy as np

from predict_check import RIGHT, Choice, Solution

from ..core.rmsnorm import rms_norm
from ..studies import precision
from .course import COURSE, X, nums

HALF = precision.HALF_PRECISION_ROW[0]  # the precision page's float16 example
HALF_MAX = float(np.finfo(np.float16).max)


def _float16_square_option(square: np.float16) -> str:
    """The option that names what float16 made of the square."""
    if np.isinf(square):
        return "inf"
    if np.isnan(square):
        return "nan"
    return f"{float(square):g}"


@COURSE.exercise(
    "half-precision-square",
    f"{HALF:g} squared in float16",
    f"In float16, what is {HALF:g} squared?",
    Choice.of(
        {
            f"{HALF**2:g}": f"{HALF**2:g} is the exact square, but it is larger than any finite float16 can be.",
            f"{HALF_MAX:g}": (
                f"{HALF_MAX:g} is float16's largest value, and a result too large to hold is not clamped to it."
            ),
            "inf": RIGHT,
            "nan": "NaN comes from operations with no value, like 0 / 0; squaring a finite number always has one.",
        }
    ),
    f"float16's largest finite value is {HALF_MAX:g}.",
)
def _half_precision_square() -> Solution:
    with np.errstate(over="ignore"):
        square = np.square(np.float16(HALF))
    return Solution(
        _float16_square_option(square),
        f"np.square(np.float16({HALF:g})) is {square}: {HALF**2:g} is past float16's largest value, so it overflows.",
        detail="A result too large for its format is not clamped: it becomes infinity.",
    )


@COURSE.exercise(
    "integer-dtype",
    "Integers in: which dtype out?",
    f"rms_norm is handed the integer array {nums(X)} (dtype int64). x / RMS needs floating point. In which "
    "dtype does the output come back, if the package keeps as many of an int64's digits as it can?",
    Choice.of(
        {
            "int64": "x / RMS is rarely a whole number, so an integer output would round the result away.",
            "float16": (
                f"float16 overflows above {HALF_MAX:g} and keeps about three digits; the policy never "
                "narrows integers that far."
            ),
            "float32": "int64 values can need more than float32's 24 significant bits; the policy does not risk it.",
            "float64": RIGHT,
        }
    ),
    "Compare the significant bits each float format keeps with an int64's 63.",
)
def _integer_dtype() -> Solution:
    dtype = rms_norm(np.array(X, dtype=np.int64)).dtype
    return Solution(
        str(dtype),
        f"{dtype}: of the three formats it keeps the most of an int64's digits.",
        detail=f"rms_norm(np.array({nums(X)}, dtype=int64)) returns {dtype}; integers and bools are computed in it.",
    )
