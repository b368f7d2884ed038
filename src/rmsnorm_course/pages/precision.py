"""Precision: float16's overflow, bfloat16's lost squares, and the rescue for rows too large or small."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import Axis, Place, Solution, Vector

from ..core.rmsnorm import rms_norm
from ..studies import precision
from ..studies.formulas import rms_norm_formula
from ..studies.precision import Sweep
from ..views.figures import BLUE, GREY, ORANGE, SMALLEST_TEXT, for_phones, new_axes
from . import COURSE, EPS, holds

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def values() -> SimpleNamespace:
    fp16, fp32, fp64 = np.finfo(np.float16), np.finfo(np.float32), np.finfo(np.float64)
    row = np.array(precision.HALF_PRECISION_ROW, dtype=np.float16)
    with np.errstate(over="ignore"):
        formula16 = rms_norm_formula(row, np.ones(len(row), dtype=np.float16), EPS)
        holds(np.isinf(np.square(row)[0]) and np.all(formula16 == 0), "the formula in float16 returns zeros")
    fits = np.array(precision.FITTING_ROW, dtype=np.float16)
    fit_out = rms_norm_formula(fits, np.ones(len(fits), dtype=np.float16), EPS)
    exact = np.array(precision.FITTING_ROW) / np.sqrt(np.mean(np.square(precision.FITTING_ROW)) + EPS)
    holds(np.all(np.isfinite(np.square(fits))), "every square of the fitting row fits in float16")
    holds(np.array_equal(np.round(fit_out.astype(float), 2), np.round(exact, 2)), "the formula works, to two decimals")
    upcast = (row.astype(np.float64) / np.sqrt(np.mean(row.astype(np.float64) ** 2) + EPS)).astype(np.float16)
    holds(np.array_equal(rms_norm(row), upcast), "rms_norm computes it in a wider format")
    bf16 = precision.bfloat16()
    holds(np.isfinite(bf16.square_of_row) and bf16.running_sum < bf16.float32_sum, "bfloat16's sum stalls")
    pairwise = precision.pairwise_sum(1.0, precision.SUM_LENGTH, precision.BFLOAT16_SIGNIFICAND_BITS)
    holds(pairwise == precision.SUM_LENGTH, "a pairwise bfloat16 sum of the same ones is exact")
    result = precision.sweep(np.float32)
    with_eps = precision.sweep(np.float32, eps=EPS)
    failing = with_eps.exponents[with_eps.formula_ulps > precision.FAILURE_ULPS]
    holds(np.all(10.0 ** (2 * failing) > float(fp32.max)), "with eps, only rows whose squares overflow fail")
    holds(result.package_ulps.max() <= 2, "the package's worst error is a couple of ulps")
    holds(result.formula_failures >= 10, "the formula as written fails in many decades")
    return SimpleNamespace(
        fp16_max=f"{float(fp16.max):.0f}",
        fp16_exponent_bits=int(fp16.nexp),
        fp16_root=f"{float(np.ceil(np.sqrt(float(fp16.max)))):.0f}",
        half_value=f"{precision.HALF_PRECISION_ROW[0]:g}",
        half_row="[" + ", ".join(f"{v:g}" for v in precision.HALF_PRECISION_ROW) + "]",
        fit_row="[" + ", ".join(f"{v:g}" for v in precision.FITTING_ROW) + "]",
        fit_value=f"{precision.FITTING_ROW[0]:g}",
        fit_square=f"{float(np.square(fits)[0]):,.0f}",
        fit_out="[" + ", ".join(f"{float(v):.2f}" for v in fit_out) + "]",
        bf16_bits=precision.BFLOAT16_SIGNIFICAND_BITS,
        bf16_exponent_bits=int(fp32.nexp),  # bfloat16 keeps float32's exponent field
        bf16_square=f"{bf16.square_of_row:g}",
        bf16_largest=f"{bf16.largest:.3g}",
        bf16_spacing=f"{bf16.spacing_at_one:g}",
        bf16_length=f"{precision.SUM_LENGTH:,}",
        bf16_sum=f"{bf16.running_sum:,.0f}",
        bf16_true_sum=f"{bf16.float32_sum:,.0f}",
        bf16_pairwise=f"{pairwise:,.0f}",
        bf16_ratio=f"{bf16.mean_square_ratio:g}",
        bf16_output_factor=f"{bf16.mean_square_ratio**-0.5:g}",
        fp32_root=f"{float(np.sqrt(float(fp32.max))):.1e}",
        fp32_floor_root=f"{float(np.sqrt(float(fp32.tiny))):.1e}",
        fp64_root=f"{float(np.sqrt(fp64.max)):.1e}",
        fp64_floor_root=f"{float(np.sqrt(fp64.tiny)):.1e}",
        sweep_first=int(precision.FLOAT32_DECADES[0]),
        sweep_last=int(precision.FLOAT32_DECADES[-1]),
        sweep=result,
        failure_ulps=precision.FAILURE_ULPS,
        sweep_worst=f"{float(result.package_ulps.max()):.2f}",
        sweep_failures=result.formula_failures,
        sweep_rows=len(result.exponents),
        sweep_eps=f"{EPS:g}",
        sweep_failures_eps=with_eps.formula_failures,
    )


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
        slips=(
            (exact, f"That is the exact sum; rounding to {bits} bits stops it long before."),
            (
                square * 2 ** (bits - 1),
                "There the gap has grown to one square, and a whole gap still reaches the next neighbour; an "
                "addition is lost only once it is half the gap or less.",
            ),
        ),
        detail=f"The exact total would be {exact:g}; every square added after the stall is lost.",
        picture={"level": total},
    )


@for_phones
def precision_sweep_figure(result: Sweep) -> Figure:
    """Worst error per decade, package against formula; rows with no finite answer drawn on the top line."""
    ceiling = 1e9
    fig, (ax,) = new_axes(8.0, 3.2)
    formula = np.minimum(result.formula_ulps, ceiling)
    ax.plot(result.exponents, formula, "x", color=ORANGE, label="formula as written")
    ax.plot(result.exponents, result.package_ulps, "o", color=BLUE, label="rms_norm")
    ax.axhline(ceiling, color=GREY, linewidth=0.8, linestyle=":")
    ax.text(result.exponents[0], ceiling * 2, "no finite answer", fontsize=SMALLEST_TEXT, color=GREY)
    ax.set_yscale("symlog", linthresh=1)
    ax.set_ylim(0, ceiling * 20)
    ax.set_xlabel("decade of the row's values (log10 of magnitude)")
    ax.set_ylabel("worst error (ulps)")
    ax.legend(loc="center right")
    return fig
