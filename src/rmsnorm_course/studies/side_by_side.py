"""RMSNorm and LayerNorm as two small classes, side by side: the code shows what RMSNorm leaves out.

Each is the formula in numpy with eps = 1e-6, a gain of ones and, for LayerNorm, a bias
of zeros; ``statistics`` applies both to the same activations. The history page lists
both classes whole, so their lines fit the page's column: 72 characters.
"""

from __future__ import annotations

import inspect

import numpy as np

from .comparison import Statistics

SIDE_BY_SIDE_EPS = 1e-6
ACTIVATIONS = (16, 128, 512)  # batch, sequence, features


class SmallRMSNorm:
    """One statistic per row: the mean square."""

    def __init__(self, width: int, eps: float = SIDE_BY_SIDE_EPS):
        self.eps, self.gain = eps, np.ones(width)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        mean_square = np.mean(x**2, axis=-1, keepdims=True)
        return self.gain * x / np.sqrt(mean_square + self.eps)


class SmallLayerNorm:
    """Two statistics per row: the mean, subtracted, and the
    variance."""

    def __init__(self, width: int, eps: float = SIDE_BY_SIDE_EPS):
        self.eps, self.gain = eps, np.ones(width)
        self.bias = np.zeros(width)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        centred = x - np.mean(x, axis=-1, keepdims=True)
        variance = np.mean(centred**2, axis=-1, keepdims=True)
        normalized = centred / np.sqrt(variance + self.eps)
        return self.gain * normalized + self.bias


def code_lines(method) -> int:
    """The lines of a method's body that do the work: no signature, docstring or blank line."""
    body = inspect.getsource(method).splitlines()[1:]
    return sum(1 for line in body if line.strip() and not line.strip().startswith(('"""', "#")))


def statistics(offset: float = 0.0, seed: int = 0) -> dict[str, Statistics]:
    """Mean, standard deviation and RMS of seeded activations, and of both classes' outputs."""
    x = np.random.default_rng(seed).standard_normal(ACTIVATIONS) + offset
    width = ACTIVATIONS[-1]
    return {
        "input": Statistics.of(x),
        "RMSNorm": Statistics.of(SmallRMSNorm(width)(x)),
        "LayerNorm": Statistics.of(SmallLayerNorm(width)(x)),
    }
