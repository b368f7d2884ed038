"""The boxes of history.md: From BatchNorm and LayerNorm to pre-norm language models."""

from __future__ import annotations

import numpy as np

from predict_check import RIGHT, Choice, Solution

from ..core.format import fmt
from ..studies import evidence, example
from .course import COURSE, nums

COMPANION_OPTIONS = {  # (BatchNorm's, LayerNorm's, RMSNorm's output changes) -> the option that says so
    (True, False, False): "BatchNorm's alone",
    (False, True, False): "LayerNorm's alone",
    (False, False, True): "RMSNorm's alone",
    (True, True, True): "all three norms'",
    (False, False, False): "none of the three's",
}


@COURSE.exercise(
    "companion-changes",
    "Whose output depends on the batch",
    f"The row {nums(example.ANCHOR)} is normalized next to {nums(example.COMPANION)}, then next to a copy "
    "of itself. Whose output for that row changes?",
    Choice.of(
        {
            COMPANION_OPTIONS[True, False, False]: RIGHT,
            COMPANION_OPTIONS[False, True, False]: (
                "LayerNorm's mean and variance come from the row's own features; a companion cannot reach them."
            ),
            COMPANION_OPTIONS[False, False, True]: (
                "RMSNorm's mean square comes from the row's own features; a companion cannot reach it."
            ),
            COMPANION_OPTIONS[True, True, True]: (
                "LayerNorm and RMSNorm take their statistics across one example's features; can a companion "
                "change those?"
            ),
            COMPANION_OPTIONS[False, False, False]: (
                "One of the three takes its statistics across the examples of the batch, so the companion enters them."
            ),
        }
    ),
    "Which of the three takes its statistics across the examples of a batch?",
)
def _companion_changes() -> Solution:
    h = evidence.history()
    changed = (
        not np.array_equal(h.batch_with_companion, h.batch_with_itself),
        not np.array_equal(h.layer_norm_with_companion, h.layer_norm_with_itself),
        not np.array_equal(h.rms_norm_with_companion, h.rms_norm_with_itself),
    )
    if changed not in COMPANION_OPTIONS:
        raise AssertionError(f"the outputs change as {changed}, which no option says")
    return Solution(
        COMPANION_OPTIONS[changed],
        "BatchNorm's alone: it takes each feature's statistics across the batch; the other two use one row.",
        detail=(
            f"BatchNorm gives {fmt(h.batch_with_companion)} and then {fmt(h.batch_with_itself)}; LayerNorm gives "
            f"{fmt(h.layer_norm_with_companion)} both times, RMSNorm {fmt(h.rms_norm_with_companion)} both times."
        ),
    )
