"""Predict, then test the epsilon boundary: the worked example and the three scale cards."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...core.format import fmt
from .. import evidence, example
from ..example import EPS
from ..thresholds import BARELY_MOVES, ROUNDING, VISIBLY_MOVES
from . import holds


def values() -> SimpleNamespace:
    ideal, production, near_zero = evidence.scale_cards()
    holds(ideal.max_difference <= ROUNDING, "with eps = 0 the two vectors agree to rounding")
    holds(production.max_difference < BARELY_MOVES, "with eps > 0 they differ too little to matter")
    holds(near_zero.max_difference > VISIBLY_MOVES, "for the tiny vector x-hat moves visibly")
    return SimpleNamespace(
        x=fmt(example.INPUT),
        g=fmt(example.GAIN),
        eps=f"{EPS:g}",
        a=f"{example.SCALE_FACTOR:g}",
        tiny=fmt(example.TINY_INPUT),
        tiny_ms=f"{float(np.mean(np.square(example.TINY_INPUT))):.3g}",
        ideal_diff=f"{ideal.max_difference:.3g}",
        production_diff=f"{production.max_difference:.3g}",
        near_zero_diff=f"{near_zero.max_difference:.6f}",
        cards=(ideal, production, near_zero),
    )
