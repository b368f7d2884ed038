"""The implementation: the precision policy, and the cast order it chooses."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import RIGHT, Choice, Solution

from ..core.rmsnorm import rms_norm
from ..studies.precision import cast_order
from ..views.tables import markdown_table
from . import COURSE, holds

if TYPE_CHECKING:
    from IPython.display import Markdown


def values() -> SimpleNamespace:
    order = cast_order()
    holds(order.differ > 0, "the two cast orders differ")
    holds(order.max_ulps <= 1, "by at most one float16 ulp")
    root = float(np.sqrt(HALF_MAX))
    nearest = np.float16(root)  # float16's value nearest the root, and the next one up
    with np.errstate(over="ignore"):
        squares = np.square(np.array([nearest, np.nextafter(nearest, np.float16(np.inf))], dtype=np.float16))
    holds(np.isfinite(squares[0]) and np.isinf(squares[1]), "float16 can square only the numbers up to its root")
    return SimpleNamespace(
        half_values=f"{order.values:,}",
        half_differ=f"{order.differ:,}",
        half_ulps=f"{order.max_ulps:g}",
        half_max=f"{HALF_MAX:g}",
        half_root=f"{root:.1f}",
    )


HALF_MAX = float(np.finfo(np.float16).max)
SQUARED = (128.0, 255.0, 256.0, HALF_MAX)  # values to square in float16: which is the largest that stays finite?
NEIGHBOURS = (2**24 + 1, 2**24)  # two int64 values float32 cannot tell apart
ROW = f"[{NEIGHBOURS[0]}, {NEIGHBOURS[1]}]"
FORMATS = (np.float16, np.float32, np.float64)


def _largest_finite_square() -> float:
    with np.errstate(over="ignore"):
        squares = np.square(np.array(SQUARED, dtype=np.float16))
    return max(v for v, square in zip(SQUARED, squares, strict=True) if np.isfinite(square))


@COURSE.exercise(
    "half-precision-square",
    "The largest square float16 holds",
    f"Of {', '.join(f'{v:g}' for v in SQUARED[:-1])} and {HALF_MAX:g}, which is the largest whose square is still "
    "a finite float16?",
    Choice.of(
        {
            "128": "128 squared, 16384, is finite, but so is the square of a larger one of these.",
            "255": RIGHT,
            "256": f"256 squared is 65536, just past float16's largest finite value, {HALF_MAX:g}.",
            f"{HALF_MAX:g}": f"{HALF_MAX:g} is float16's largest value itself; its square is far past it.",
        }
    ),
    f"float16's largest finite value is {HALF_MAX:g}; compare each square with it.",
)
def _half_precision_square() -> Solution:
    largest = _largest_finite_square()
    with np.errstate(over="ignore"):
        square, past = np.square(np.float16(largest)), np.square(np.float16(largest + 1))
    return Solution(
        f"{largest:g}",
        f"{largest:g}: its square, {largest**2:g}, is below {HALF_MAX:g} and float16 holds it as {float(square):g}; "
        f"{largest + 1:g} squared is {(largest + 1) ** 2:g}, past it.",
        detail=f"np.square(np.float16({largest + 1:g})) is {past}: a result too large for its format is not clamped "
        "to the largest value; it becomes infinity.",
    )


def _tells_apart(dtype) -> bool:
    """Whether x-hat of the two neighbours, computed in ``dtype``, has two different coordinates."""
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.array(NEIGHBOURS, dtype=dtype)
        x_hat = x / np.sqrt(np.mean(x**2))
    return bool(np.all(np.isfinite(x_hat)) and x_hat[0] != x_hat[1])


@COURSE.exercise(
    "integer-dtype",
    "Which format tells two integers apart",
    f"rms_norm is handed the int64 row {ROW}, that is 2**24 + 1 and 2**24, and computes x / RMS in a "
    "float format. In which of these must it compute for the two coordinates of x-hat to come out different?",
    Choice.of(
        {
            "float16": "float16's largest value is 65504: both coordinates overflow before anything is divided.",
            "float32": "float32 keeps every whole number only up to 2**24, so 2**24 + 1 rounds to 2**24.",
            "float64": RIGHT,
            "any float format": "A format must first hold 2**24 + 1 and 2**24 apart; look at each format's bits.",
        }
    ),
    "Compare the whole numbers each float format holds exactly with 2**24 + 1.",
)
def _integer_dtype() -> Solution:
    apart = [np.dtype(dtype).name for dtype in FORMATS if _tells_apart(dtype)]
    output = rms_norm(np.array(NEIGHBOURS, dtype=np.int64))
    if apart != [output.dtype.name]:
        raise AssertionError(f"x-hat's coordinates differ in {apart}, but rms_norm computes integers in {output.dtype}")
    return Solution(
        apart[0],
        f"{apart[0]}: of the three formats, only it holds 2**24 + 1 apart from 2**24, so the package computes "
        "integers in it.",
        detail=f"rms_norm(np.array({ROW}, dtype=int64)) returns {output.dtype}: [{output[0]:.9f}, {output[1]:.9f}].",
    )


def float_formats_table() -> Markdown:
    """float16, float32 and float64: the significant bits each keeps and the largest number each holds."""
    rows = []
    for dtype in FORMATS:
        info = np.finfo(dtype)
        bits = info.nmant + 1
        rows.append([np.dtype(dtype).name, bits, f"{float(info.max):.6g}"])
    return markdown_table(["format", "significant bits", "largest finite value"], rows)
