"""Does the centre matter in training? The three networks' curves, and what they do and do not show."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .. import training
from . import holds

CLOSE_SHARE = 0.2  # "within a fifth of each other": the held-out losses of the two norms, relative to the lower


def values() -> SimpleNamespace:
    setup = training.Setup()
    runs = training.experiment(setup)
    none, layer, rms = (runs[v] for v in training.VARIANTS)
    _, y_held = training.task(setup, held_out=True)
    held_zero = float(np.mean(np.square(y_held)))
    ratio = np.maximum(layer.losses / rms.losses, rms.losses / layer.losses)
    held_gap = abs(layer.held_out_loss - rms.held_out_loss) / min(layer.held_out_loss, rms.held_out_loss)
    holds(none.stream_rms_before[-1] > 10 * rms.stream_rms_before[-1], "without normalization, depth compounds")
    holds(none.final_loss > 10 * max(layer.final_loss, rms.final_loss), "the unnormalized network stays far above")
    holds(none.held_out_loss > held_zero > max(layer.held_out_loss, rms.held_out_loss), "held-out losses' order")
    holds(held_gap <= CLOSE_SHARE, "on held-out examples the two norms end within a fifth of each other")
    holds(max(layer.final_loss, rms.final_loss) < min(layer.held_out_loss, rms.held_out_loss) / 5, "memorizing")
    return SimpleNamespace(
        setup=setup,
        runs=runs,
        train_depth=setup.depth,
        train_width=setup.width,
        train_examples=setup.examples,
        train_steps=setup.steps,
        train_noise_floor=f"{setup.noise**2:g}",
        growth_none=f"{none.stream_rms_before[-1] / none.stream_rms_before[0]:.0f}",
        growth_rms=f"{rms.stream_rms_before[-1] / rms.stream_rms_before[0]:.1f}",
        growth_layer=f"{layer.stream_rms_before[-1] / layer.stream_rms_before[0]:.1f}",
        start_none=f"{none.losses[0]:,.0f}",
        start_rms=f"{rms.losses[0]:.2f}",
        final_none=f"{none.final_loss:.3g}",
        final_layer=f"{layer.final_loss:.2g}",
        final_rms=f"{rms.final_loss:.2g}",
        held_none=f"{none.held_out_loss:.3g}",
        held_layer=f"{layer.held_out_loss:.3f}",
        held_rms=f"{rms.held_out_loss:.3f}",
        held_zero=f"{held_zero:.3f}",
        held_gap=f"{held_gap:.0%}",
        close=f"{CLOSE_SHARE:.0%}",
        widest_gap=f"{ratio.max() - 1:.0%}",
        widest_step=int(np.argmax(ratio)),
        lower_at_widest="LayerNorm" if layer.losses[np.argmax(ratio)] < rms.losses[np.argmax(ratio)] else "RMSNorm",
    )
