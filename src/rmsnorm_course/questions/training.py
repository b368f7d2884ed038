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
    "Each of the three networks is now trained for {steps} Adam steps from the start above. Which ends with the "
    "lowest loss on examples it never saw? A hunch is asked for: reason from the start.",
    Choice.of(
        {
            TRAINING["none"]: "Without a norm the stream grows with depth and the first steps are spent taming it.",
            TRAINING["layer"]: "Subtracting the mean is the one thing LayerNorm adds; does this task need it?",
            TRAINING["rms"]: "RMSNorm does less than LayerNorm, not more; what could it gain here?",
            TRAINING["close"]: RIGHT,
        }
    ),
    "Which gaps at the start were large, and which small? Training starts from there, with the same steps for all.",
    given={"steps": training.Setup().steps},
)
def _training_outcome(steps) -> Solution:
    runs = training.experiment(training.Setup(steps=steps))  # the same cached runs as the training page
    none, layer, rms = (runs[variant].held_out_loss for variant in training.VARIANTS)
    gap = abs(layer - rms) / min(layer, rms)
    if none < min(layer, rms):
        key = "none"
    elif gap <= CLOSE_SHARE:
        key = "close"
    else:
        key = "layer" if layer < rms else "rms"
    lower = training.LAYER_NORM if layer < rms else training.RMS_NORM
    return Solution(
        TRAINING[key],
        f"Held-out losses: {none:.3g} without a norm, {layer:.3g} with LayerNorm, {rms:.3g} with RMSNorm.",
        detail=f"The two norms end {gap:.0%} apart, and {lower}'s is the lower, on this one seed.",
    )
