"""The boxes of precision.md: Precision."""

from __future__ import annotations

import math

import numpy as np

from predict_check import Axis, Place, Solution, Vector

from ..core.format import fmt
from ..core.rmsnorm import rms_norm
from ..studies import precision
from ..studies.formulas import rms_norm_formula
from .course import COURSE, EPS


@COURSE.exercise(
    "float16-formula-row",
    "The formula, all in float16",
    "Computed as written, every step in float16, what does x / sqrt(mean(x**2) + eps) give for the row x = {row}, "
    "eps = {eps}?",
    Vector(len(precision.HALF_PRECISION_ROW)),
    "Follow the squares: what is each in float16, what is their sum, its mean and its root?",
    given={"row": tuple(precision.HALF_PRECISION_ROW), "eps": EPS},
    variants=(
        {"row": (100.0, 200.0)},
        {"row": (200.0, 200.0)},
        {"row": (250.0, 10.0)},
        {"row": (1000.0, 2.0)},
        {"row": (4.0, 3.0)},
    ),
    nonfinite=(
        "The first square does overflow to inf in float16, and so does the root; but what is a finite number "
        "divided by inf?"
    ),
)
def _float16_formula_row(row, eps) -> Solution:
    half = np.array(row, dtype=np.float16)
    with np.errstate(over="ignore", under="ignore"):
        formula = rms_norm_formula(half, np.ones(len(half), dtype=np.float16), eps)
        squares = np.square(half)
    upcast = rms_norm(half, None, eps)
    return Solution(
        tuple(float(v) for v in formula),
        f"{fmt(formula)}: in float16 the squares are {fmt(squares)}, and the rest follows from them.",
        slips=(
            (
                tuple(float(v) for v in upcast),
                "That is what the package returns, computing in float32; the formula as written stays in float16.",
            ),
        ),
        detail=f"rms_norm computes in float32 and returns {fmt(upcast)} in float16.",
    )


SUM_AXIS = Axis(1.0, 1e5, "log", "the running total where it stops growing (log scale)")


@COURSE.exercise(
    "sum-stall",
    "Where a low-precision sum stops",
    "Add {count} squares of {value}, one at a time, rounding the total to {dtype} ({bits} significant bits) after "
    "each addition. Place the marker where the total stops growing.",
    Place(SUM_AXIS, tolerance=0.1),
    "With b significant bits, neighbours near T are T / 2**(b-1) apart; an addition of half that gap or less is lost.",
    given={
        "count": precision.SUM_LENGTH,
        "value": 1.0,
        "dtype": "bfloat16",
        "bits": precision.SIGNIFICAND_BITS["bfloat16"],
    },
    variants=(
        {"dtype": "float16", "bits": precision.SIGNIFICAND_BITS["float16"]},
        {"value": 2.0},
        {"dtype": "float8 E4M3", "bits": precision.SIGNIFICAND_BITS["float8 E4M3"]},
        {"value": 0.5},
        {"dtype": "float8 E5M2", "bits": precision.SIGNIFICAND_BITS["float8 E5M2"], "value": 3.0},
    ),
)
def _sum_stall(count, value, dtype, bits) -> Solution:
    square = value * value
    total = precision.stalled_sum(square, count, bits)
    exact = square * count
    gap = 2.0 ** (math.frexp(total)[1] - bits)  # the spacing of bits-bit numbers from total up
    return Solution(
        total,
        f"At {total:g}: there {dtype}'s neighbours are {gap:g} apart, and {square:g} is no more than half that, "
        "so each addition rounds back.",
        slips=((exact, f"That is the exact sum; rounding to {bits} bits stops it long before."),),
        detail=f"The exact total would be {exact:g}; every square added after the stall is lost.",
        picture={"level": total},
    )
