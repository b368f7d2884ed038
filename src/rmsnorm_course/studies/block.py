"""A pre-norm residual block in numpy: where RMSNorm sits inside a decoder.

    h   = x + mix(attention_norm(x))
    out = h + feed_forward(ffn_norm(h))

Each learned branch reads a normalized copy of the residual stream; the identity
path carries the stream itself, never normalized. ``mix`` stands in for attention:
every position averages the positions up to it, then a learned projection.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core.layer import RMSNorm
from ..core.parameters import NamedParameter
from .example import EPS
from .threads import one_blas_thread


@dataclass(frozen=True)
class BlockTrace:
    """The residual stream and what each branch saw, for one forward pass."""

    x: np.ndarray
    attention_input: np.ndarray
    h: np.ndarray
    ffn_input: np.ndarray
    out: np.ndarray


class PreNormBlock:
    """Decoder block ``index`` with two RMSNorm layers and small seeded weights."""

    def __init__(self, width: int, index: int = 0, hidden: int | None = None, seed: int = 0, eps: float = EPS):
        prefix = f"decoder.block.{index}"
        hidden = hidden or 4 * width
        rng = np.random.default_rng(seed)
        self.attention_norm = RMSNorm(width, eps, f"{prefix}.attention_norm.gain")
        self.ffn_norm = RMSNorm(width, eps, f"{prefix}.ffn_norm.gain")
        self.mix = NamedParameter(f"{prefix}.attention.mix.weight", rng.normal(0, width**-0.5, (width, width)))
        self.up = NamedParameter(f"{prefix}.feed_forward.up.weight", rng.normal(0, width**-0.5, (width, hidden)))
        self.down = NamedParameter(f"{prefix}.feed_forward.down.weight", rng.normal(0, hidden**-0.5, (hidden, width)))

    def parameters(self) -> tuple[NamedParameter, ...]:
        return (*self.attention_norm.parameters(), self.mix, *self.ffn_norm.parameters(), self.up, self.down)

    def mixing(self, x: np.ndarray) -> np.ndarray:
        """Causal average over the sequence axis (-2), then a learned projection."""
        counts = np.arange(1, x.shape[-2] + 1).reshape(-1, 1)
        return (np.cumsum(x, axis=-2) / counts) @ self.mix.value

    def feed_forward(self, x: np.ndarray) -> np.ndarray:
        return np.maximum(x @ self.up.value, 0.0) @ self.down.value

    @one_blas_thread
    def trace(self, x: npt.ArrayLike) -> BlockTrace:
        x = np.asarray(x, dtype=np.float64)
        attention_input = self.attention_norm(x)
        h = x + self.mixing(attention_input)
        ffn_input = self.ffn_norm(h)
        out = h + self.feed_forward(ffn_input)
        return BlockTrace(x, attention_input, h, ffn_input, out)

    def __call__(self, x: npt.ArrayLike) -> np.ndarray:
        return self.trace(x).out


def fold_gain(gain: npt.ArrayLike, projection: npt.ArrayLike) -> np.ndarray:
    """diag(gain) @ projection: the gain merged into the next projection, so (g * x-hat) W = x-hat (fold_gain(g, W)).

    RMSNorm's output only ever reaches the model through a projection (attention's
    query, key and value, or the feed-forward's first layer), so an inference engine
    may drop the gain and use this matrix instead.
    """
    return np.asarray(gain, dtype=np.float64)[:, None] * np.asarray(projection, dtype=np.float64)
