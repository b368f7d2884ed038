"""The boxes of training.md: Does the centre matter in training?."""

from __future__ import annotations

from predict_check import RIGHT, Choice, Solution

from ..studies import training
from .course import COURSE

TRAINING = {  # which network ends lowest on held-out examples
    "none": "no normalization, ahead of both norms",
    "layer": "LayerNorm, by more than a fifth",
    "rms": "RMSNorm, by more than a fifth",
    "close": "the two norms, within a fifth",
}
CLOSE_SHARE = 0.2  # "within a fifth": the held-out losses of the two norms, relative to the lower


@COURSE.exercise(
    "training-outcome",
    "Which network generalizes best",
    "The 16-block network is trained three ways from the same start: with no normalization, with LayerNorm, "
    "with RMSNorm. Which ends with the lowest loss on examples it never saw?",
    Choice.of(
        {
            TRAINING["none"]: "Without a norm the stream grows with depth and the first steps are spent taming it.",
            TRAINING["layer"]: "Subtracting the mean is the one thing LayerNorm adds; does this task need it?",
            TRAINING["rms"]: "RMSNorm does less than LayerNorm, not more; what could it gain here?",
            TRAINING["close"]: RIGHT,
        }
    ),
    "Both norms keep every branch's input at RMS one; only one also subtracts the mean.",
)
def _training_outcome() -> Solution:
    runs = training.experiment(training.Setup())  # the same cached runs as the training page
    none, layer, rms = (runs[variant].held_out_loss for variant in training.VARIANTS)
    if none < min(layer, rms):
        key = "none"
    elif abs(layer - rms) <= CLOSE_SHARE * min(layer, rms):
        key = "close"
    else:
        key = "layer" if layer < rms else "rms"
    return Solution(
        TRAINING[key],
        f"Held-out losses: {none:.3g} without a norm, {layer:.3f} with LayerNorm, {rms:.3f} with RMSNorm.",
        detail="Subtracting the mean bought nothing on this task.",
    )
