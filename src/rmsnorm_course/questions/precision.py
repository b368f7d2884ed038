"""The boxes of precision.md: Precision."""

from __future__ import annotations

import math

import numpy as np

from predict_check import Axis, Place, Solution, Vector

from ..core.rmsnorm import rms_norm
from ..studies import precision
from ..studies.formulas import rms_norm_formula
from .course import COURSE, EPS

HALF = Vector(len(precision.FITTING_ROW), decimals=2)  # float16 keeps about three digits: two decimals are fair


@COURSE.exercise(
    "float16-formula-row",
    "The formula, all in float16",
    "Computed as written, every step in float16, what does x / sqrt(mean(x**2) + eps) give for the row x = {row}, "
    "eps = {eps}?",
    HALF,
    "Follow the squares: does each fit below float16's largest value? Then the mean, its root, and the division.",
    given={"row": tuple(precision.FITTING_ROW), "eps": EPS},
    variants=(
        {"row": tuple(precision.HALF_PRECISION_ROW)},
        {"row": (100.0, 200.0)},
        {"row": (2.0, 260.0)},
        {"row": (200.0, 200.0)},
        {"row": (1000.0, 2.0)},
    ),
    nonfinite=(
        "A square too large for float16 does become inf, and so does the root of the mean; but a finite number "
        "divided by inf is no inf. Check each square against float16's largest value, 65504."
    ),
)
def _float16_formula_row(row, eps) -> Solution:
    half = np.array(row, dtype=np.float16)
    with np.errstate(over="ignore", under="ignore"):
        formula = rms_norm_formula(half, np.ones(len(half), dtype=np.float16), eps)
        squares = np.square(half)
    upcast = rms_norm(half, None, eps)
    answer = tuple(round(float(v), HALF.decimals) for v in formula)
    slips = [
        (
            tuple(float(v) for v in upcast),
            "That is what the package returns, computing in float32; the formula as written stays in float16.",
        )
    ]
    if np.all(np.isfinite(squares)):
        slips.append(((0.0,) * len(row), "A row of zeros needs a square past float16's largest value, 65504."))
        why = (
            f"every square fits in float16 (the largest, {float(np.max(squares)):,.0f}, is below 65,504), so the "
            "formula works as it does in float64, to float16's digits"
        )
    else:
        too_large = ", ".join(f"{v:g}" for v in half[~np.isfinite(squares)])
        why = (
            f"the square of {too_large} overflows float16 to inf, so the mean and its root are inf, and every "
            "finite x divided by inf is 0"
        )
    return Solution(
        tuple(float(v) for v in formula),
        f"[{', '.join(f'{v:.2f}' for v in answer)}]: {why}.",
        slips=tuple(slips),
        detail=f"rms_norm computes in float32 and returns [{', '.join(f'{float(v):.2f}' for v in upcast)}].",
    )


SUM_AXIS = Axis(1.0, 1e5, "log", "the running total where it stops growing (log scale)")


@COURSE.exercise(
    "sum-stall",
    "Where a low-precision sum stops",
    "Add {count} squares, each equal to {square}, one at a time, rounding the total to {dtype} ({bits} "
    "significant bits) after each addition. Place the marker where the total stops growing.",
    Place(SUM_AXIS, tolerance=0.1),
    "With b significant bits, neighbours near T are T / 2**(b-1) apart; an addition of half that gap or less is lost.",
    given={
        "count": precision.SUM_LENGTH,
        "square": 1.0,
        "dtype": "bfloat16",
        "bits": precision.SIGNIFICAND_BITS["bfloat16"],
    },
    variants=(
        {"dtype": "float16", "bits": precision.SIGNIFICAND_BITS["float16"]},
        {"square": 4.0},
        {"dtype": "float8 E4M3", "bits": precision.SIGNIFICAND_BITS["float8 E4M3"]},
        {"square": 0.25},
        {"dtype": "float8 E5M2", "bits": precision.SIGNIFICAND_BITS["float8 E5M2"], "square": 9.0},
    ),
)
def _sum_stall(count, square, dtype, bits) -> Solution:
    total = precision.stalled_sum(square, count, bits)
    exact = square * count
    gap = 2.0 ** (math.frexp(total)[1] - bits)  # the spacing of bits-bit numbers from total up
    if not square <= gap / 2 < exact:
        raise AssertionError(f"{count} squares of {square} at {bits} bits: the sum at {total:g} is no stall")
    return Solution(
        total,
        f"At {total:g}: there {dtype}'s neighbours are {gap:g} apart, and {square:g} is no more than half that, "
        "so each addition rounds back.",
        slips=((exact, f"That is the exact sum; rounding to {bits} bits stops it long before."),),
        detail=f"The exact total would be {exact:g}; every square added after the stall is lost.",
        picture={"level": total},
    )
