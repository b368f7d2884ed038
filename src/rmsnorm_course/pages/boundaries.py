"""Boundaries: all-zero rows, rows too large or too small to square, empty batches, and every refusal."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from predict_check import RIGHT, Choice, Solution

from ..core.errors import RMSNormError
from ..core.format import exponent, fmt, given
from ..core.rmsnorm import rms_norm, rms_norm_backward
from ..studies import evidence, example, formulas
from ..studies.evidence import Evidence
from ..studies.formulas import rms_norm_formula
from ..views.tables import markdown_table
from . import COURSE, EACH_ONE, EPS, PAIR, UNIT, G, each_one, holds, stages_of, unit

if TYPE_CHECKING:
    from IPython.display import Markdown

PYTORCH_VERSION = "2.13.0"
NAN, INF = float("nan"), float("inf")
EPS_SAID = exponent(EPS)  # the chapter's eps as the table writes it: 1e-5


@dataclass(frozen=True)
class Contrast:
    """One request, PyTorch's recorded result, and why the package acts as it does."""

    request: str
    x: tuple
    gain: tuple | None
    eps: float
    pytorch: str  # as ``describe`` writes it, recorded with PYTORCH_VERSION
    why: str

    def formula(self) -> str:
        """The formula as written, x / sqrt(mean(x**2) + eps) * g, in float64, whatever it gives."""
        x = np.asarray(self.x, dtype=np.float64)
        gain = np.ones(x.shape[-1:]) if self.gain is None else np.asarray(self.gain, dtype=np.float64)
        with np.errstate(all="ignore"):
            return describe(rms_norm_formula(x, gain, self.eps))

    def package(self) -> str:
        try:
            return describe(rms_norm(self.x, self.gain, self.eps))
        except RMSNormError as error:
            return f"refuses: {type(error).__name__}"


def describe(values: np.ndarray) -> str:
    """A result as the table writes it: six decimals, NaN and infinity named as numpy prints them."""
    return "an empty array" if np.size(values) == 0 else fmt(values)


CONTRASTS: tuple[Contrast, ...] = (
    Contrast(
        "the all-zero row [0, 0], eps = 0",
        (0.0, 0.0),
        None,
        0.0,
        "[nan, nan]",
        "0 / 0 has no value, and a NaN spreads to every later layer; the error names the row instead",
    ),
    Contrast(
        f"[nan, 1], eps = {EPS_SAID}",
        (NAN, 1.0),
        None,
        EPS,
        "[nan, nan]",
        "a NaN in a row makes the whole row NaN, silently; the error names the row",
    ),
    Contrast(
        f"[inf, 1], eps = {EPS_SAID}",
        (INF, 1.0),
        None,
        EPS,
        "[nan, 0.000000]",
        "an infinite value leaves nothing to normalize by",
    ),
    Contrast(
        "[3, 4] with the gain [1.5, inf]",
        (3.0, 4.0),
        (1.5, INF),
        EPS,
        "[1.272792, inf]",
        "a gain is learned; an infinite one means training has already failed",
    ),
    Contrast(
        f"[3, 4], eps = -{EPS_SAID}",
        (3.0, 4.0),
        None,
        -EPS,
        "[0.848528, 1.131371]",
        "a negative eps can take the root of a negative number (eps = -13 gives NaN here)",
    ),
    Contrast(
        "[3, 4], eps = NaN",
        (3.0, 4.0),
        None,
        NAN,
        "[nan, nan]",
        "eps must be a number that stabilizes the root",
    ),
    Contrast(
        "[3, 4], eps = infinity",
        (3.0, 4.0),
        None,
        INF,
        "[0.000000, 0.000000]",
        "an infinite eps divides every row down to zeros",
    ),
    Contrast(
        "[1e200, 2e200], eps = 0 (float64)",
        (1e200, 2e200),
        None,
        0.0,
        "[0.000000, 0.000000]",
        "the squares overflow to infinity; the package divides the row by its largest magnitude first",
    ),
    Contrast(
        "[1e-200, 2e-200], eps = 0 (float64)",
        (1e-200, 2e-200),
        None,
        0.0,
        "[inf, inf]",
        "the squares underflow to zero; the package rescales this row too",
    ),
)


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
        return OUTCOMES["error"], f"rms_norm({given(example.ZERO_ROW)}, g, eps={eps:g}) refused it: {error}"
    return _outcome_of(output), f"rms_norm({given(example.ZERO_ROW)}, g, eps={eps:g}) returned {fmt(output)}"


def _outcome_of(output: np.ndarray) -> str:
    """The option that says what a row came out as."""
    for key, test in (("zeros", lambda y: y == 0), ("nan", np.isnan), ("inf", np.isposinf)):
        if np.all(test(output)):
            return OUTCOMES[key]
    raise AssertionError(f"{fmt(output)} matches none of the options {OUTCOMES}")


@COURSE.exercise(
    "zero-row-positive-eps",
    "An all-zero row, with eps > 0",
    f"What does RMSNorm's formula give for the all-zero row {given(example.ZERO_ROW)} with eps = {EPS:g}?",
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
    f"{given(example.ZERO_ROW)}?",
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
    scaled = np.asarray(row) / largest
    slips = [(tuple(naive.tolist()), "That is the formula as written; the package rescales before squaring.")]
    if not np.allclose(scaled, normalized):  # a row whose x / M already has RMS one has no such slip
        slips.append((tuple(scaled.tolist()), "That is x / M, the rescaled row; it still goes through the formula."))
    return Solution(
        tuple(normalized.tolist()),
        f"{fmt(normalized)}, the x-hat of {given(scaled)}: the row is divided by its largest "
        "magnitude before squaring.",
        slips=tuple(slips),
        detail=f"The formula as written squares first, and squares of {largest:g} are past float64's largest value.",
    )


def refusals_table() -> Markdown:
    """Each contrast: what the formula, PyTorch and this package do with the request, and why."""
    return markdown_table(
        ["request", "the formula gives", f"PyTorch {PYTORCH_VERSION} `F.rms_norm`", "this package", "why"],
        [[c.request, c.formula(), c.pytorch, c.package(), c.why] for c in CONTRASTS],
        footer="The formula column is computed when the book is built, in float64, exactly as written; "
        f"the PyTorch column was recorded with PyTorch {PYTORCH_VERSION}, and the tests check it "
        "wherever PyTorch is installed.",
    )


def rejections_table(evidence: Evidence, tooling: bool = False) -> Markdown:
    """The refused requests of rms_norm and the layer, or (``tooling``) those of the tape, optimizer and checker."""
    return markdown_table(
        ["boundary", "request", "error", "message"],
        [
            [f"`{r.case.boundary}`", r.case.request, f"`{r.raised.__name__ if r.raised else 'accepted'}`", r.message]
            for r in evidence.rejections
            if r.from_tooling == tooling
        ],
    )
