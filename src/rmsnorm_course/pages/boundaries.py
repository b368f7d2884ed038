"""Boundaries: all-zero rows, rows too large or too small to square, empty batches, and every refusal."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from predict_check import RIGHT, Choice, Solution

from ..core.errors import RMSNormError
from ..core.format import fmt, given
from ..core.rmsnorm import rms_norm, rms_norm_backward
from ..studies import evidence, example, formulas
from . import COURSE, EACH_ONE, EPS, PAIR, UNIT, G, each_one, holds, nums, stages_of, unit

HUGE, TINY = (1e200, 2e200), (1e-200, 2e-200)  # squares overflow, squares underflow (float64)
EMPTY = (0, 16, 4)


def values() -> SimpleNamespace:
    collected = evidence.collect()
    holds(all(r.as_expected for r in collected.rejections), "every request is refused as expected")
    expected = np.array([1.0, 2.0]) / np.sqrt(2.5)
    for row in (HUGE, TINY):
        holds(np.allclose(rms_norm(np.array(row), eps=0.0), expected, rtol=1e-15, atol=0), "rescaled rows are right")
    empty = np.zeros(EMPTY)
    _, grad_gain = rms_norm_backward(empty, np.ones(EMPTY[-1]), EPS, empty)
    holds(rms_norm(empty).shape == EMPTY and np.array_equal(grad_gain, np.zeros(EMPTY[-1])), "an empty batch")
    holds(np.array_equal(collected.batch_output[0], collected.primary.forward.output), "rows never mix")
    return SimpleNamespace(
        collected=collected,
        eps=f"{EPS:g}",
        zero_row=given(example.ZERO_ROW),
        zero_out=fmt(collected.zero_output),
        batch="[" + ", ".join(given(row) for row in example.BATCH) + "]",
        batch_row0=fmt(collected.batch_output[0]),
        batch_row1=fmt(collected.batch_output[1]),
        n_boundaries=str(len(collected.rejections)),
        n_classes=str(len({r.case.expected for r in collected.rejections})),
    )


OUTCOMES = {  # what can become of the all-zero row (example.ZERO_ROW)
    "zeros": "a row of zeros",
    "nan": "a row of NaNs",
    "inf": "a row of plus infinities",
    "error": "an error naming the row",
}


def _zero_row_outcome(eps: float) -> tuple[str, str]:
    """Run RMSNorm on the all-zero row and say which option happened, quoting the result."""
    try:
        output = rms_norm(example.ZERO_ROW, G, eps)
    except RMSNormError as error:
        return OUTCOMES["error"], f"rms_norm({nums(example.ZERO_ROW)}, g, eps={eps:g}) refused it: {error}"
    return _outcome_of(output), f"rms_norm({nums(example.ZERO_ROW)}, g, eps={eps:g}) returned {fmt(output)}"


def _outcome_of(output: np.ndarray) -> str:
    """The option that says what a row came out as."""
    for key, test in (("zeros", lambda y: y == 0), ("nan", np.isnan), ("inf", np.isposinf)):
        if np.all(test(output)):
            return OUTCOMES[key]
    raise AssertionError(f"{fmt(output)} matches none of the options {OUTCOMES}")


@COURSE.exercise(
    "zero-row-positive-eps",
    "An all-zero row, with eps > 0",
    f"What does RMSNorm's formula give for the all-zero row {nums(example.ZERO_ROW)} with eps = {EPS:g}?",
    Choice.of(
        {
            OUTCOMES["zeros"]: RIGHT,
            OUTCOMES["nan"]: "NaN needs 0 / 0, and with eps > 0 the denominator sqrt(0 + eps) is not zero.",
            OUTCOMES["inf"]: "Infinity needs a division by zero, and sqrt(0 + eps) is not zero.",
            OUTCOMES["error"]: "With eps > 0 the division is well defined for every row, so nothing needs refusing.",
        }
    ),
    "With eps > 0, can the denominator sqrt(mean(x**2) + eps) be zero?",
)
def _zero_row_positive_eps() -> Solution:
    option, quoted = _zero_row_outcome(EPS)
    return Solution(
        option,
        "A row of zeros: the denominator is sqrt(0 + eps), not zero, and 0 divided by it is 0.",
        detail=f"{quoted}.",
    )


@COURSE.exercise(
    "zero-row-zero-eps",
    "An all-zero row, with eps = 0",
    f"With eps = 0, what does RMSNorm's formula, computed as written in floating point, give for the all-zero row "
    f"{nums(example.ZERO_ROW)}?",
    Choice.of(
        {
            OUTCOMES["zeros"]: "With eps = 0 the denominator is sqrt(0) = 0: what is 0 divided by 0?",
            OUTCOMES["nan"]: RIGHT,
            OUTCOMES["inf"]: "Infinity is a nonzero number divided by 0; here the numerator is 0 too.",
            OUTCOMES["error"]: "Floating-point division raises nothing: it gives every quotient a value of its own.",
        }
    ),
    "With eps = 0 both the numerator and the denominator are 0. What value does floating point give 0 / 0?",
)
def _zero_row_zero_eps() -> Solution:
    with np.errstate(invalid="ignore"):
        output = formulas.rms_norm_formula(np.asarray(example.ZERO_ROW, dtype=float), G, 0.0)
    option, quoted = _zero_row_outcome(0.0)
    assert option == OUTCOMES["error"], quoted  # the detail says the package refuses the row
    return Solution(
        _outcome_of(output),
        f"A row of NaNs: with eps = 0 each entry is 0 / sqrt(0) = 0 / 0, which floating point calls NaN "
        f"({fmt(output)}).",
        detail=f"This package refuses the row instead, naming it: {quoted}. A NaN would spread through every later "
        "layer.",
    )


@COURSE.exercise(
    "huge-row",
    "A row whose squares overflow",
    "With eps = 0, what is x-hat of the row {row}, whose squares overflow float64?",
    PAIR,
    "x-hat depends only on the direction of x, and the package rescales rows whose squares overflow.",
    given={"row": (1e200, 2e200)},
    variants=(
        {"row": (1e200, 3e200)},
        {"row": (-2e250, 1e250)},
        {"row": (3e300, 4e300)},
        {"row": (5e180, -5e180)},
        {"row": (1e160, 7e160)},
    ),
    nonfinite=(
        "inf and nan come from the formula as written, whose squares overflow; the package divides the row by its "
        "largest magnitude before squaring, so nothing overflows."
    ),
    misconceptions=((lambda row: each_one(row), EACH_ONE), (lambda row: unit(row), UNIT)),
)
def _huge_row(row) -> Solution:
    normalized = stages_of(row, eps=example.IDEAL_EPS).normalized
    largest = max(abs(v) for v in row)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.asarray(row) / np.sqrt(np.mean(np.square(row)))
    return Solution(
        tuple(normalized.tolist()),
        f"{fmt(normalized)}, the x-hat of {nums(np.asarray(row) / largest)}: the row is divided by its largest "
        "magnitude before squaring.",
        slips=((tuple(naive.tolist()), "That is the formula as written; the package rescales before squaring."),),
        detail=f"The formula as written squares first, and squares of {largest:g} are past float64's largest value.",
    )
