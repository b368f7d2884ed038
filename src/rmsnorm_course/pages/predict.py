"""Predict, then test the epsilon boundary: the worked example and the three scale cards."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..core.format import difference, fmt, given
from ..core.rmsnorm import rms_norm
from ..studies import evidence, example
from ..studies.example import EPS
from ..studies.thresholds import BARELY_MOVES, ROUNDING, VISIBLY_MOVES
from . import holds

LIFTING_FACTOR = 100.0  # the factor that does bring the tiny vector to the plateau; ten does not


def _mean_square_of_x_hat(x: np.ndarray) -> float:
    return float(np.mean(np.square(rms_norm(x, None, EPS))))


def values() -> SimpleNamespace:
    ideal, production, near_zero = evidence.scale_cards()
    holds(ideal.max_difference <= ROUNDING, "with eps = 0 the two vectors agree to rounding")
    holds(production.max_difference < BARELY_MOVES, "with eps > 0 they differ too little to matter")
    holds(near_zero.max_difference > VISIBLY_MOVES, "for the tiny vector x-hat moves visibly")
    tiny = np.asarray(example.TINY_INPUT)
    tenfold, lifted = example.SCALE_FACTOR * tiny, LIFTING_FACTOR * tiny
    tenfold_ms = float(np.mean(np.square(tenfold)))
    tenfold_plateau, lifted_plateau = _mean_square_of_x_hat(tenfold), _mean_square_of_x_hat(lifted)
    holds(tenfold_ms < 2 * EPS and tenfold_plateau < 0.6, "ten times the tiny vector is not lifted out of the regime")
    holds(lifted_plateau > 0.99, "a hundred times the tiny vector reaches the plateau")
    return SimpleNamespace(
        x=given(example.INPUT),
        g=given(example.GAIN),
        eps=f"{EPS:g}",
        a=f"{example.SCALE_FACTOR:g}",
        tiny=given(example.TINY_INPUT),
        tiny_ms=f"{float(np.mean(np.square(tiny))):.3g}",
        ideal_diff=difference(ideal.max_difference),
        production_diff=difference(production.max_difference),
        near_zero_diff=difference(near_zero.max_difference),
        tenfold_ms=f"{tenfold_ms:.3g}",
        tenfold_times_eps=f"{tenfold_ms / EPS:.3g}",
        tenfold_plateau=fmt(tenfold_plateau),
        lift=f"{LIFTING_FACTOR:g}",
        lifted_plateau=fmt(lifted_plateau),
        cards=(ideal, production, near_zero),
    )
