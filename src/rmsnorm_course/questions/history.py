"""The boxes of history.md: From BatchNorm and LayerNorm to RMSNorm in language models."""

from __future__ import annotations

import numpy as np

from predict_check import RIGHT, Choice, Solution

from ..core.format import fmt
from ..studies import evidence, example
from .course import COURSE, EPS, nums

COMPANION_OPTIONS = {  # what BatchNorm could give the anchor next to a copy of itself -> the option that says so
    "centred": "[-1, 1]: centred on its own mean",
    "zeros": "[0, 0]: zero in both features",
    "unchanged": "[1, 3]: the row left as it is",
    "nan": "NaN: the batch variance is 0",
}


def _batch_norm_option(h: evidence.History) -> str:
    """The option that says what BatchNorm gave the anchor next to a copy of itself."""
    given = h.batch_with_itself
    for key, same in (
        ("nan", np.all(np.isnan(given))),
        ("zeros", np.all(given == 0)),
        ("centred", np.allclose(given, h.layer_norm_with_itself, atol=1e-5)),
        ("unchanged", np.allclose(given, example.ANCHOR, atol=1e-5)),
    ):
        if same:
            return COMPANION_OPTIONS[key]
    raise AssertionError(f"BatchNorm gave {fmt(given)}, which no option says")


@COURSE.exercise(
    "companion-changes",
    "BatchNorm next to a copy",
    f"At eps = {EPS:g}, BatchNorm (in training) normalizes a batch of two rows: {nums(example.ANCHOR)} and a "
    "copy of it. What does it give for the first row?",
    Choice.of(
        {
            COMPANION_OPTIONS["centred"]: (
                "That centres the row on its own mean, as LayerNorm does; BatchNorm centres each feature on its mean "
                "over the batch."
            ),
            COMPANION_OPTIONS["zeros"]: RIGHT,
            COMPANION_OPTIONS["unchanged"]: (
                "BatchNorm centres and scales every feature, whatever the batch; what is each feature's mean here?"
            ),
            COMPANION_OPTIONS["nan"]: (
                "The variance is 0, but BatchNorm adds eps to it before the square root: look at the numerator."
            ),
        }
    ),
    "BatchNorm subtracts from each feature its mean over the examples of the batch: what is that mean here?",
)
def _companion_changes() -> Solution:
    h = evidence.history()
    return Solution(
        _batch_norm_option(h),
        "[0, 0]: with two equal rows, each feature's mean over the batch is the row's own value, so nothing is "
        "left after centring: the numerator is 0 in both features.",
        detail=(
            f"Next to {nums(example.COMPANION)} BatchNorm gives {fmt(h.batch_with_companion)} instead: the companion "
            f"changes it. LayerNorm gives {fmt(h.layer_norm_with_companion)} and RMSNorm (eps = 0) "
            f"{fmt(h.rms_norm_with_companion)} next to either."
        ),
    )
