"""The pre-norm block: identity path outside the normalization, branches behind it."""

from __future__ import annotations

import numpy as np

from rmsnorm_course.core.parameters import adamw_parameter_groups
from rmsnorm_course.studies.block import PreNormBlock, fold_gain


def test_identity_path_carries_the_stream_unnormalized():
    block = PreNormBlock(width=6, seed=2)
    x = 50 * np.random.default_rng(0).normal(size=(3, 4, 6))
    t = block.trace(x)
    np.testing.assert_allclose(t.h - block.mixing(t.attention_input), x, rtol=1e-13)
    np.testing.assert_allclose(t.out - block.feed_forward(t.ffn_input), t.h, rtol=1e-13)


def test_branches_read_unit_rms_rows():
    block = PreNormBlock(width=6, seed=2)
    t = block.trace(1e3 * np.random.default_rng(1).normal(size=(2, 5, 6)))
    np.testing.assert_allclose(np.sqrt(np.mean(t.attention_input**2, axis=-1)), 1.0, rtol=1e-9)
    np.testing.assert_allclose(np.sqrt(np.mean(t.ffn_input**2, axis=-1)), 1.0, rtol=1e-9)


def test_mixing_is_causal():
    block = PreNormBlock(width=4, seed=0)
    x = np.random.default_rng(2).normal(size=(1, 5, 4))
    changed = x.copy()
    changed[0, 3:] += 10.0
    np.testing.assert_array_equal(block.mixing(x)[0, :3], block.mixing(changed)[0, :3])


def test_parameter_names_and_decay_groups():
    block = PreNormBlock(width=4, index=3)
    groups = adamw_parameter_groups(block.parameters())
    assert groups.no_decay == ("decoder.block.3.attention_norm.gain", "decoder.block.3.ffn_norm.gain")
    assert set(groups.decay) == {
        "decoder.block.3.attention.mix.weight",
        "decoder.block.3.feed_forward.up.weight",
        "decoder.block.3.feed_forward.down.weight",
    }


def test_the_gain_folds_into_the_next_projection():
    rng = np.random.default_rng(5)
    x_hat, gain, projection = rng.normal(size=(3, 4)), rng.uniform(0.5, 1.5, 4), rng.normal(size=(4, 6))
    folded = fold_gain(gain, projection)
    for i in range(4):
        np.testing.assert_array_equal(folded[i], gain[i] * projection[i])
    np.testing.assert_allclose((x_hat * gain) @ projection, x_hat @ folded, rtol=1e-13)
