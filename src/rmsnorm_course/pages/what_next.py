"""What you can now do: every check of the evidence report, and the gain folded into the next projection."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..core.layer import RMSNorm
from ..studies import evidence
from ..studies.block import PreNormBlock, fold_gain
from ..studies.thresholds import ROUNDING
from . import EPS, holds


def values(exercises: int) -> SimpleNamespace:
    """The page's values; the number of the chapter's predictions is the registry's, handed in by the page."""
    collected = evidence.collect()
    verdicts = collected.checks()
    holds(collected.passed, "every check of the evidence report passed")
    block = PreNormBlock(width=8, seed=0)
    row = np.random.default_rng(3).normal(size=8)
    norm = RMSNorm.from_gain(np.random.default_rng(4).uniform(0.5, 1.5, 8), eps=EPS)
    projection = block.mix.value
    through_gain = norm(row) @ projection
    folded = norm.forward(row).normalized @ fold_gain(norm.gain.value, projection)
    difference = float(np.max(np.abs(through_gain - folded)))
    holds(difference <= 10 * ROUNDING, "the gain folds into the projection")
    return SimpleNamespace(
        checks=len(verdicts),
        passed=sum(ok for _, ok in verdicts),
        exercises=exercises,
        fold_difference=f"{difference:.1e}",
    )
