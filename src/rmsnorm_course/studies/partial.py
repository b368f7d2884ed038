"""pRMSNorm's estimate (Zhang and Sennrich, 2019): the RMS from the first p% of a row, and how far off it is.

The kernels page studies it; the real model's page and measurements apply it to SmolLM2-135M's rows.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

LLAMA_WIDTHS = (4096, 5120, 8192)  # LLaMA's model widths, 7B, 13B and 65B
SHARE = 0.0625  # p = 6.25%, a sixteenth of the row: the share the chapter studies
SHARES = (0.01, 0.02, 0.04, SHARE, 0.125, 0.25, 0.5, 1.0)  # p: the share of a row the estimate reads
ROWS = 500  # enough for a median steady to a few percent; the page and its box share the one run


@dataclass(frozen=True)
class PartialRms:
    """The typical relative error of the RMS estimated from the first p of a row, per width."""

    shares: np.ndarray
    median_error: dict[int, np.ndarray]  # width -> median |estimate / RMS - 1| over rows, per share

    def error(self, width: int, share: float = SHARE) -> float:
        """The median error at one width and one of the measured shares."""
        return float(self.median_error[width][int(np.flatnonzero(self.shares == share)[0])])


def values_read(share: float, width: int) -> int:
    """How many of a row's ``width`` values an estimate from the first ``share`` of it reads (at least one)."""
    return max(1, int(share * width))


def partial_error(x: np.ndarray, share: float) -> np.ndarray:
    """Each row's |RMS of its first ``share`` / RMS of the whole row - 1|."""
    whole = np.sqrt(np.mean(np.square(x), axis=-1))
    part = np.sqrt(np.mean(np.square(x[:, : values_read(share, x.shape[-1])]), axis=-1))
    return np.abs(part / whole - 1)


@functools.cache
def partial_rms(widths=LLAMA_WIDTHS, shares=SHARES, rows: int = ROWS, seed: int = 0) -> PartialRms:
    """Rows of independent standard normal values: the RMS of their first p, against the whole row's."""
    rng = np.random.default_rng(seed)
    errors = {}
    for width in widths:
        x = rng.standard_normal((rows, width))
        errors[width] = np.array([np.median(partial_error(x, share)) for share in shares])
    return PartialRms(np.asarray(shares), errors)
