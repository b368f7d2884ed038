"""A LLaMA decoder's forward pass in numpy, shaped like the model: the package's ``rms_norm`` is its norm.

    h = embedding[tokens]
    for each block:
        h = h + attention(rms_norm(h, attention_norm))     causal, grouped-query, rotary positions
        h = h + feed_forward(rms_norm(h, ffn_norm))        SwiGLU: w2(silu(w1 x) * w3 x)
    logits = rms_norm(h, norm) @ output.T

Everything runs in float32, the dtype the weights are stored in once dequantized: that
is how the model runs, and it holds the weights in half the memory float64 would need
(0.54 GB rather than 1.1 GB for SmolLM2-135M). Every intermediate stays float32, so no
product quietly upcasts a weight matrix. The forward keeps what the chapter measures:
the residual stream after the embedding and after every block, the stream halfway
through each block (what the feed-forward norm reads), and the logits at every position.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core.rmsnorm import rms_norm
from ..studies.threads import one_blas_thread

DTYPE = np.float32

Norm = Callable[[np.ndarray, "np.ndarray | None"], np.ndarray]  # (rows, gain or None) -> normalized rows


@dataclass(frozen=True)
class Config:
    """A LLaMA model's shape, as its file states it."""

    blocks: int
    width: int
    hidden: int  # the feed-forward's inner width
    heads: int
    kv_heads: int  # grouped-query attention: each key/value head serves heads // kv_heads query heads
    rope_base: float
    eps: float
    vocab: int

    @property
    def head_width(self) -> int:
        return self.width // self.heads


@dataclass(frozen=True)
class Block:
    """One decoder block's weights; every matrix maps (..., in) to (..., out) as ``x @ w.T``.

    A gain of ``None`` is a gain of ones: a norm whose gain was folded into the projections after it.
    """

    attention_norm: np.ndarray | None
    wq: np.ndarray  # (heads * head_width, width), each head's rows in pairs (2i, 2i + 1) that rotate together
    wk: np.ndarray  # (kv_heads * head_width, width), the same pairs
    wv: np.ndarray
    wo: np.ndarray
    ffn_norm: np.ndarray | None
    w1: np.ndarray  # the gate, through SiLU
    w2: np.ndarray  # down, back to the width
    w3: np.ndarray  # up, multiplied by the gate


@dataclass(frozen=True)
class Weights:
    """The whole model: the embedding, the blocks, the final norm's gain and the output projection."""

    embedding: np.ndarray  # (vocab, width)
    blocks: tuple[Block, ...]
    norm: np.ndarray | None
    output: np.ndarray  # (vocab, width); the embedding itself where the file ties them


@dataclass(frozen=True)
class Trace:
    """One forward pass: the tokens, the residual stream as it grows, and the logits at every position."""

    token_ids: np.ndarray  # (positions,)
    stream: np.ndarray  # (blocks + 1, positions, width): after the embedding, then after each block
    halfway: np.ndarray  # (blocks, positions, width): after each block's attention, before its feed-forward
    logits: np.ndarray  # (positions, vocab)

    def norm_inputs(self) -> np.ndarray:
        """(2 * blocks + 1, positions, width): what each RMSNorm read, in the order they run.

        Block 1's attention norm, block 1's feed-forward norm, ..., then the final norm, which
        reads the stream after the last block.
        """
        pairs = np.stack([self.stream[:-1], self.halfway], axis=1).reshape(-1, *self.stream.shape[1:])
        return np.concatenate([pairs, self.stream[-1:]])


def norm_gains(weights: Weights) -> list[np.ndarray | None]:
    """Every norm's gain, in the order ``Trace.norm_inputs`` lists what they read."""
    pairs = [gain for block in weights.blocks for gain in (block.attention_norm, block.ffn_norm)]
    return [*pairs, weights.norm]


def rotation(config: Config, positions: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of each position's angle for each pair, (positions, 1, head_width / 2): theta_i = base**(-2i/d)."""
    frequencies = config.rope_base ** (-np.arange(0, config.head_width, 2) / config.head_width)
    angles = np.outer(np.arange(positions), frequencies)[:, None, :]
    return np.cos(angles).astype(DTYPE), np.sin(angles).astype(DTYPE)


def rotate(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Rotary positions: each pair (x[2i], x[2i+1]) of every head turned by its position's angle."""
    even, odd = x[..., 0::2], x[..., 1::2]
    rotated = np.empty_like(x)
    rotated[..., 0::2] = even * cos - odd * sin
    rotated[..., 1::2] = even * sin + odd * cos
    return rotated


def softmax(scores: np.ndarray) -> np.ndarray:
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)


def attention(x: np.ndarray, block: Block, config: Config, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Causal self-attention with grouped-query heads: query head j reads key/value head j // group."""
    positions, head_width = x.shape[0], config.head_width
    q = rotate((x @ block.wq.T).reshape(positions, config.heads, head_width), cos, sin)
    k = rotate((x @ block.wk.T).reshape(positions, config.kv_heads, head_width), cos, sin)
    v = (x @ block.wv.T).reshape(positions, config.kv_heads, head_width)
    group = config.heads // config.kv_heads
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    scores = np.einsum("thd,shd->hts", q, k) / DTYPE(np.sqrt(head_width))
    scores[:, np.triu(np.ones((positions, positions), dtype=bool), k=1)] = -np.inf  # no position reads a later one
    mixed = np.einsum("hts,shd->thd", softmax(scores), v).reshape(positions, config.width)
    return mixed @ block.wo.T


def feed_forward(x: np.ndarray, block: Block) -> np.ndarray:
    """SwiGLU: w2(silu(w1 x) * (w3 x)), with silu(z) = z * sigmoid(z)."""
    gate = x @ block.w1.T
    with np.errstate(over="ignore"):  # exp(-z) overflows to inf for z < -88 in float32: sigmoid is then 0, as it should
        silu = gate / (1 + np.exp(-gate))
    return (silu * (x @ block.w3.T)) @ block.w2.T


def model_norm(config: Config) -> Norm:
    """The model's own norm: RMSNorm at the eps its file states."""
    return functools.partial(rms_norm, eps=config.eps)


# products of a few rows by matrices a few hundred wide: more threads
# only wait on each other
@one_blas_thread
def forward(
    weights: Weights,
    config: Config,
    token_ids: npt.ArrayLike,
    norm: Norm | None = None,
) -> Trace:
    """Run the model over ``token_ids``; keep every stage the chapter
    measures.

    ``norm`` replaces every RMSNorm (``model_norm`` by default): another
    eps, or LayerNorm.
    """
    norm = norm or model_norm(config)
    token_ids = np.asarray(token_ids, dtype=np.int64)
    cos, sin = rotation(config, len(token_ids))
    h = weights.embedding[token_ids]
    stream, halfway = [h], []
    for block in weights.blocks:
        read = norm(h, block.attention_norm)
        h = h + attention(read, block, config, cos, sin)
        halfway.append(h)
        h = h + feed_forward(norm(h, block.ffn_norm), block)
        stream.append(h)
    logits = norm(h, weights.norm) @ weights.output.T
    return Trace(token_ids, np.stack(stream), np.stack(halfway), logits)
