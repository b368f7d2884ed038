"""Today's variants in their few lines: each computes what the chapter says it does."""

from __future__ import annotations

import numpy as np

from rmsnorm_course import rms_norm
from rmsnorm_course.studies import variants

RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 8))


def test_llama_s_order_and_gemma_s_agree_in_float32_and_with_a_gain_of_one():
    w = np.zeros(8, dtype=np.float32)
    assert np.array_equal(
        variants.gemma_rms_norm(X.astype(np.float32), w), variants.llama_rms_norm(X.astype(np.float32), 1 + w)
    )
    np.testing.assert_allclose(variants.llama_rms_norm(X, np.ones(8), eps=1e-5), rms_norm(X, eps=1e-5), rtol=1e-6)


def test_per_head_every_head_has_length_sqrt_d_across_heads_only_the_whole_query_does():
    q = RNG.normal(size=(2, 16)) * np.repeat([1.0, 5.0, 0.2, 3.0], 4)  # four heads of width four, unequal scales
    per_head = variants.qk_norm_per_head(q, 4, np.ones(4), eps=0.0)
    across = variants.qk_norm_across_heads(q, 4, np.ones(16), eps=0.0)
    np.testing.assert_allclose(np.linalg.norm(per_head, axis=-1), 2.0)  # sqrt(4)
    np.testing.assert_allclose(np.linalg.norm(across.reshape(2, 16), axis=-1), 4.0)  # sqrt(16), all heads
    assert np.ptp(np.linalg.norm(across, axis=-1)) > 1.0


def test_a_sandwich_block_adds_a_branch_of_rms_one_whatever_the_branch():
    h = RNG.normal(size=(4, 8))
    added = variants.sandwich_block(h, lambda z: 1000 * z, eps=0.0) - h
    np.testing.assert_allclose(np.sqrt(np.mean(added**2, axis=-1)), 1.0)


def test_the_fused_kernel_returns_the_stream_and_its_norm():
    h, f = RNG.normal(size=(2, 4, 8))
    stream, normed = variants.fused_add_rms_norm(h, f, np.ones(8), eps=1e-5)
    np.testing.assert_array_equal(stream, h + f)
    np.testing.assert_allclose(normed, rms_norm(h + f, eps=1e-5), rtol=1e-12)


def test_a_partial_rms_of_the_whole_row_is_the_rms():
    whole = variants.partial_rms_norm(X, np.ones(8), share=1.0, eps=0.0)
    np.testing.assert_allclose(whole, rms_norm(X, eps=0.0), rtol=1e-12)
    first_half = variants.partial_rms_norm(X, np.ones(8), share=0.5, eps=0.0)
    expected = X / np.sqrt(np.mean(X[:, :4] ** 2, axis=-1, keepdims=True))
    np.testing.assert_allclose(first_half, expected, rtol=1e-12)


def test_the_partial_rms_adds_eps_to_the_root_as_its_authors_code_does():
    row = np.array([[3.0, 4.0, 0.0, 0.0]])  # the first half's RMS is sqrt(12.5)
    got = variants.partial_rms_norm(row, np.ones(4), share=0.5, eps=0.5)
    np.testing.assert_allclose(got, row / (np.sqrt(12.5) + 0.5), rtol=1e-12)  # x / (rms + eps), not sqrt(ms + eps)
