"""Follow one feature vector: the worked example, stage by stage."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..core.format import fmt, given
from ..core.rmsnorm import rms_norm
from ..studies import evidence, example
from . import holds


def _mean_square_of_x_hat(x) -> float:
    return float(np.mean(np.square(rms_norm(x, None, example.EPS))))


def values() -> SimpleNamespace:
    primary = evidence.primary()
    worked, small = _mean_square_of_x_hat(example.INPUT), _mean_square_of_x_hat(example.SMALL_INPUT)
    small_times_eps = float(np.mean(np.square(example.SMALL_INPUT))) / example.EPS
    holds(1 - 1e-5 < worked < 1, "just under one for the figure's row")
    holds(small < 0.9, "well under one for the small row")
    return SimpleNamespace(
        primary=primary,
        x=given(primary.x),
        y=fmt(primary.forward.output),
        small=given(example.SMALL_INPUT),
        worked_plateau=fmt(worked),
        small_plateau=fmt(small),
        small_times_eps=f"{small_times_eps:.3g}",
    )
