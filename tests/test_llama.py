"""The LLaMA forward pass, on a two-block model, against a reference written the other common way.

The reference loops over heads in float64, with its own RMSNorm, and rotates the halves of
each head (x[i] with x[i + d/2]) after reordering the query and key rows the way a loader
for that layout does; the forward rotates neighbouring pairs of the rows as stored.
"""

from __future__ import annotations

import numpy as np
import pytest

import tiny_llama
from rmsnorm_course.model import llama

CONFIG = tiny_llama.CONFIG
TOKENS = [1, 5, 7, 2, 4, 9, 3]


def half_split(w: np.ndarray, heads: int) -> np.ndarray:
    """Rows reordered so that each head's pairs (2i, 2i + 1) become (i, i + d/2)."""
    return w.reshape(heads, -1, 2, w.shape[-1]).swapaxes(1, 2).reshape(w.shape)


def reference(weights: llama.Weights, config: llama.Config, tokens: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(logits, stream) of the same model, computed head by head in float64."""
    d, n = config.head_width, len(tokens)

    def norm(x, gain):
        return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + config.eps) * gain

    angles = np.arange(n)[:, None] * config.rope_base ** (-np.arange(0, d, 2) / d)
    cos, sin = np.tile(np.cos(angles), 2), np.tile(np.sin(angles), 2)

    def rope(x):  # (n, d): x * cos + rotate_half(x) * sin
        return x * cos + np.concatenate([-x[:, d // 2 :], x[:, : d // 2]], axis=1) * sin

    h = weights.embedding[tokens].astype(np.float64)
    stream = [h]
    for block in weights.blocks:
        b = {name: np.asarray(getattr(block, name), np.float64) for name in ("wq", "wk", "wv", "wo", "w1", "w2", "w3")}
        wq, wk = half_split(b["wq"], config.heads), half_split(b["wk"], config.kv_heads)
        x = norm(h, block.attention_norm)
        heads = []
        for head in range(config.heads):
            kv = head // (config.heads // config.kv_heads)
            q = rope(x @ wq[head * d : (head + 1) * d].T)
            k = rope(x @ wk[kv * d : (kv + 1) * d].T)
            v = x @ b["wv"][kv * d : (kv + 1) * d].T
            scores = q @ k.T / np.sqrt(d) + np.triu(np.full((n, n), -np.inf), 1)
            weights_ = np.exp(scores - scores.max(axis=1, keepdims=True))
            heads.append(weights_ / weights_.sum(axis=1, keepdims=True) @ v)
        h = h + np.concatenate(heads, axis=1) @ b["wo"].T
        x = norm(h, block.ffn_norm)
        gate = x @ b["w1"].T
        h = h + (gate / (1 + np.exp(-gate)) * (x @ b["w3"].T)) @ b["w2"].T
        stream.append(h)
    return norm(h, weights.norm) @ np.asarray(weights.output, np.float64).T, np.stack(stream)


@pytest.fixture(scope="module")
def weights():
    return tiny_llama.weights()


def test_the_forward_matches_a_reference_that_rotates_halves_of_reordered_rows(weights):
    trace = llama.forward(weights, CONFIG, TOKENS)
    logits, stream = reference(weights, CONFIG, TOKENS)
    np.testing.assert_allclose(trace.logits, logits, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(trace.stream, stream, rtol=1e-4, atol=1e-5)


def test_rotating_pairs_of_the_reordered_rows_would_not_match(weights):
    """The layout matters: the same forward on rows already reordered for halves gives other logits."""
    reordered = llama.Weights(
        weights.embedding,
        tuple(
            llama.Block(**{**vars(b), "wq": half_split(b.wq, CONFIG.heads), "wk": half_split(b.wk, CONFIG.kv_heads)})
            for b in weights.blocks
        ),
        weights.norm,
        weights.output,
    )
    logits, _ = reference(weights, CONFIG, TOKENS)
    assert np.abs(llama.forward(reordered, CONFIG, TOKENS).logits - logits).max() > 1e-2


def test_no_position_reads_a_later_one(weights):
    first = llama.forward(weights, CONFIG, TOKENS)
    changed = llama.forward(weights, CONFIG, [*TOKENS[:-1], 8])
    np.testing.assert_allclose(changed.logits[:-1], first.logits[:-1], rtol=1e-6, atol=1e-6)
    assert np.abs(changed.logits[-1] - first.logits[-1]).max() > 1e-3


def test_each_norm_reads_what_the_trace_lists_with_its_own_gain(weights):
    seen = []

    def recording(x, gain):
        seen.append((x.copy(), gain))
        return llama.model_norm(CONFIG)(x, gain)

    trace = llama.forward(weights, CONFIG, TOKENS, recording)
    inputs, gains = trace.norm_inputs(), llama.norm_gains(weights)
    assert len(seen) == len(inputs) == len(gains) == 2 * CONFIG.blocks + 1
    for (x, gain), listed, expected_gain in zip(seen, inputs, gains):
        np.testing.assert_array_equal(x, listed)
        assert gain is expected_gain
    np.testing.assert_array_equal(inputs[-1], trace.stream[-1])  # the final norm reads the last block's output


def test_rotation_leaves_only_the_distance_between_positions(weights):
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal((2, 1, 1, CONFIG.head_width)).astype(np.float32)
    cos, sin = llama.rotation(CONFIG, 12)

    def score(m: int, n: int) -> float:
        return float(np.sum(llama.rotate(q, cos[m], sin[m]) * llama.rotate(k, cos[n], sin[n])))

    assert score(5, 2) == pytest.approx(score(11, 8), rel=1e-5)
    assert score(5, 2) != pytest.approx(score(5, 4), rel=1e-2)
    assert np.linalg.norm(llama.rotate(q, cos[7], sin[7])) == pytest.approx(np.linalg.norm(q), rel=1e-6)


def test_every_stage_stays_float32(weights):
    trace = llama.forward(weights, CONFIG, TOKENS)
    assert {trace.stream.dtype, trace.halfway.dtype, trace.logits.dtype} == {np.dtype(np.float32)}
