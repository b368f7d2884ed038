"""RMSNorm inside the model: a working pre-norm block, and who decides weight decay."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..core.parameters import adamw_parameter_groups
from ..studies.block import PreNormBlock
from . import holds

WIDTH, SEED, INPUT_SEED, LOUDER = 8, 0, 1, 100.0  # the page's block, its input, and how much louder the stream gets


def _row_rms(values: np.ndarray) -> np.ndarray:
    return np.sqrt(np.mean(values**2, axis=-1))


def values() -> SimpleNamespace:
    block = PreNormBlock(width=WIDTH, index=0, seed=SEED)
    x = np.random.default_rng(INPUT_SEED).normal(size=(2, 5, WIDTH))
    quiet, loud = block.trace(x), block.trace(LOUDER * x)
    holds(np.allclose(_row_rms(quiet.attention_input), 1, atol=1e-4), "each branch reads rows of RMS close to one")
    holds(np.max(np.abs(loud.attention_input - quiet.attention_input)) < 1e-4, "the branches see almost the same input")
    holds(np.all(_row_rms(loud.out) / _row_rms(quiet.out) > 10), "the identity path carries the larger stream")
    post = block.attention_norm(LOUDER * x + block.mixing(LOUDER * x))
    holds(np.allclose(_row_rms(post), 1, atol=1e-4), "post-norm brings every row of the sum back to RMS one")
    holds(np.all(_row_rms(loud.h) > 10), "pre-norm's stream goes on at the scale it came in with")
    residual = loud.out - block.mixing(loud.attention_input) - block.feed_forward(loud.ffn_input)
    holds(np.allclose(residual, LOUDER * x), "the identity path carries the stream through untouched")
    groups = adamw_parameter_groups(block.parameters())
    holds(groups.no_decay == tuple(f"decoder.block.0.{n}_norm.gain" for n in ("attention", "ffn")), "the gains")
    return SimpleNamespace(block=block, groups=groups)
