"""Does the centre matter in training? The three networks' start, their curves, and what they do and do not show."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from predict_check import RIGHT, Choice, Solution

from ..studies import training
from . import COURSE, holds

CLOSE_SHARE = 0.2  # "within a fifth of each other": the held-out losses of the two norms, relative to the lower


def apart(a: float, b: float) -> float:
    """How far apart two losses are, relative to the lower: 0.05 is 5%."""
    return abs(a - b) / min(a, b)


def values() -> SimpleNamespace:
    setup = training.Setup()
    runs = training.experiment(setup)
    none, layer, rms = (runs[v] for v in training.VARIANTS)
    held_out = training.task(setup, held_out=True)
    held_zero = float(np.mean(np.square(held_out[1])))
    ratio = np.maximum(layer.losses / rms.losses, rms.losses / layer.losses)
    widest = int(np.argmax(ratio))
    held_gap = apart(layer.held_out_loss, rms.held_out_loss)
    train_gap = apart(layer.final_loss, rms.final_loss)
    norms = (layer, rms)
    held_lower = min(norms, key=lambda run: run.held_out_loss)
    holds(none.stream_rms_before[-1] > 10 * rms.stream_rms_before[-1], "without normalization, depth compounds")
    holds(none.losses[0] > 100 * max(layer.losses[0], rms.losses[0]), "the unnormalized network starts far above")
    holds(none.final_loss > 10 * max(layer.final_loss, rms.final_loss), "the unnormalized network stays far above")
    holds(none.held_out_loss > held_zero > max(layer.held_out_loss, rms.held_out_loss), "held-out losses' order")
    holds(held_gap <= CLOSE_SHARE, "on held-out examples the two norms end within a fifth of each other")
    holds(none.held_out_loss > 10 * max(layer.held_out_loss, rms.held_out_loss), "small beside what a norm bought")
    holds(train_gap > held_gap, "on the training set the two end further apart than on new examples")
    holds(max(layer.final_loss, rms.final_loss) < min(layer.held_out_loss, rms.held_out_loss) / 5, "memorizing")
    higher_at_widest, lower_at_widest = sorted(norms, key=lambda run: -run.losses[widest])
    return SimpleNamespace(
        setup=setup,
        runs=runs,
        examples=training.task(setup),
        held_out=held_out,
        initial=training.initial_weights(setup),
        train_depth=setup.depth,
        train_width=setup.width,
        train_examples=setup.examples,
        train_steps=setup.steps,
        train_noise_floor=f"{setup.noise**2:g}",
        growth_none=f"{none.stream_rms_before[-1] / none.stream_rms_before[0]:.0f}",
        growth_rms=f"{rms.stream_rms_before[-1] / rms.stream_rms_before[0]:.1f}",
        growth_layer=f"{layer.stream_rms_before[-1] / layer.stream_rms_before[0]:.1f}",
        start_none=f"{none.losses[0]:,.0f}",
        start_layer=f"{layer.losses[0]:.3g}",
        start_rms=f"{rms.losses[0]:.3g}",
        start_gap=f"{apart(layer.losses[0], rms.losses[0]):.0%}",
        final_none=f"{none.final_loss:.3g}",
        final_layer=f"{layer.final_loss:.2g}",
        final_rms=f"{rms.final_loss:.2g}",
        train_gap=f"{train_gap:.0%}",
        held_none=f"{none.held_out_loss:.3g}",
        held_layer=f"{layer.held_out_loss:.3g}",
        held_rms=f"{rms.held_out_loss:.3g}",
        held_zero=f"{held_zero:.3f}",
        held_gap=f"{held_gap:.0%}",
        held_lower=held_lower.variant,
        close=f"{CLOSE_SHARE:.0%}",
        widest_gap=f"{ratio[widest] - 1:.1%}",
        widest_step=widest,
        higher_at_widest=higher_at_widest.variant,
        lower_at_widest=lower_at_widest.variant,
    )


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
