"""From BatchNorm and LayerNorm to RMSNorm in language models: where the statistics come from, on rows and batches."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from predict_check import RIGHT, Choice, Solution

from ..core.format import fmt, given
from ..studies import evidence, example, side_by_side
from ..studies.comparison import ACTIVATION_OFFSET, ACTIVATION_SEED, ACTIVATION_SHAPE, activation_comparison, identities
from ..studies.thresholds import ROUNDING
from . import COURSE, EPS, holds, nums


def values() -> SimpleNamespace:
    activations = activation_comparison()
    tie = identities(activations)
    holds(tie.layer_norm_as_rms_norm_of_centered <= 100 * ROUNDING, "LayerNorm(x) = RMSNorm(x - mean)")
    holds(tie.mean_square_split <= 100 * ROUNDING, "the mean square splits into mean squared plus variance")
    h = evidence.history()
    holds(not np.allclose(h.batch_with_companion, h.batch_with_itself), "BatchNorm's output changes")
    holds(np.array_equal(h.layer_norm_with_companion, h.layer_norm_with_itself), "LayerNorm ignores the companion")
    holds(np.array_equal(h.rms_norm_with_companion, h.rms_norm_with_itself), "RMSNorm ignores the companion")
    stats = activations.statistics()
    holds(abs(stats["RMSNorm"].rms - 1) < 1e-5, "both outputs have RMS one")
    holds(abs(stats["LayerNorm"].mean) < 1e-12, "LayerNorm's mean is zero to rounding")
    zero_mean = side_by_side.statistics()
    rms_lines = side_by_side.code_lines(side_by_side.SmallRMSNorm.__call__)
    layer_lines = side_by_side.code_lines(side_by_side.SmallLayerNorm.__call__)
    holds(rms_lines < layer_lines, "RMSNorm's code is shorter")
    holds(abs(zero_mean["RMSNorm"].rms - 1) < 1e-5 and abs(zero_mean["LayerNorm"].mean) < 1e-12, "zero-mean rows")
    return SimpleNamespace(
        rms_lines=f"{rms_lines} line{'s' * (rms_lines != 1)}",
        layer_lines=layer_lines,
        side_eps=f"{side_by_side.SIDE_BY_SIDE_EPS:g}",
        side_shape=str(side_by_side.ACTIVATIONS),
        zero_mean=zero_mean,
        zero_rms_mean=f"{zero_mean['RMSNorm'].mean:.6f}",
        zero_rms_std=f"{zero_mean['RMSNorm'].std:.6f}",
        zero_ln_std=f"{zero_mean['LayerNorm'].std:.6f}",
        anchor=given(example.ANCHOR),
        companion=given(example.COMPANION),
        eps=f"{example.EPS:g}",
        activations=activations,
        identity_rows=f"{int(np.prod(activations.inputs.shape[:-1])):,}",
        identity_layer=f"{tie.layer_norm_as_rms_norm_of_centered:.1e}",
        identity_split=f"{tie.mean_square_split:.1e}",
        history=h,
        bn_a=fmt(h.batch_with_companion),
        bn_b=fmt(h.batch_with_itself),
        ln=fmt(h.layer_norm_with_companion),
        rms=fmt(h.rms_norm_with_companion),
        rms_mean=fmt(h.rms_mean),
        stats=stats,
        shape=str(ACTIVATION_SHAPE),
        offset=f"{ACTIVATION_OFFSET:g}",
        seed=str(ACTIVATION_SEED),
        rms_out_mean=f"{stats['RMSNorm'].mean:.3f}",
        rms_out_rms=f"{stats['RMSNorm'].rms:.6f}",
        ln_out_mean=f"{stats['LayerNorm'].mean:.1e}",
        ln_out_std=f"{stats['LayerNorm'].std:.6f}",
    )


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
