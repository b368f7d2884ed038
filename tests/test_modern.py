"""Today's variants, each against what it must show: closed forms, bounds, and the growth laws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rmsnorm_course.pages import modern_blocks, modern_gains, modern_kernels
from rmsnorm_course.studies import partial


def test_decay_shrinks_the_stored_parameter_so_a_one_plus_w_gain_heads_for_one():
    decay = modern_gains.gain_decay(start=1.3, rate=0.01, steps=200)
    kept = 0.99**200  # the share of the stored value left after 200 steps
    assert decay.plain[-1] == pytest.approx(1.3 * kept, rel=1e-12)
    assert decay.one_plus[-1] == pytest.approx(1 + 0.3 * kept, rel=1e-12)
    assert decay.plain[0] == decay.one_plus[0] == 1.3  # the same gain before any decay
    assert np.all(np.diff(decay.plain) < 0) and np.all(decay.one_plus > 1)


def test_llama_and_gemma_round_the_same_gain_in_a_different_order():
    casts = modern_gains.gain_cast_order(rows=50, width=16, seed=3)
    assert casts.values == 800 and 0 < casts.differ < casts.values  # the orders differ, but not everywhere
    assert casts.max_ulps <= 1  # the same gain: rounding once or twice parts by one ulp at most


def test_at_initialisation_llama_s_order_and_gemma_s_give_the_same_bits():
    assert modern_gains.gain_cast_order(rows=50, width=16, seed=3, trained=False).differ == 0  # a gain of exactly one


def test_a_query_normalized_across_heads_fixes_only_the_heads_together():
    lengths = modern_gains.head_lengths.__wrapped__(heads=4, width=16, seed=5)
    assert np.allclose(lengths.per_head, 1.0)
    assert np.mean(lengths.across_heads**2) == pytest.approx(1.0)  # their mean squares average to one
    assert np.ptp(lengths.across_heads) > 0.1  # but one head's length is not fixed
    assert modern_gains.qk_logit_bound_across_heads(4, 16) == 16.0  # a head holding all the energy: H sqrt(d)


def test_qk_norm_bounds_the_logits_and_keeps_attention_spread_as_the_scale_grows():
    attention = modern_gains.qk_norm.__wrapped__(scales=(0.1, 1.0, 100.0), width=16, positions=8, seed=2)
    bound = modern_gains.qk_logit_bound(16)
    assert bound == 4.0  # |q| |k| / sqrt(d) = sqrt(d) sqrt(d) / sqrt(d)
    assert np.all(attention.largest_logit_normed <= bound + 1e-9)
    # without the norm the logits grow as the scale squared: 100 times the scale, 10,000 times the logits
    assert attention.largest_logit[2] / attention.largest_logit[1] == pytest.approx(1e4, rel=1e-9)
    # with it, the logits do not depend on the scale (beyond eps at the smallest scale)
    assert attention.largest_logit_normed[2] == pytest.approx(
        attention.largest_logit_normed[1], rel=3e-5
    )  # eps: 1e-5 on each side
    assert attention.uniform_entropy == pytest.approx(math.log(8))
    assert attention.entropy[0] == pytest.approx(math.log(8), abs=0.05)  # small logits: nearly uniform
    assert attention.entropy[2] < 0.1 < attention.entropy_normed[2]  # one key takes almost all, unless normed


def test_each_arrangement_of_the_norms_moves_the_stream_as_its_formula_says():
    depth = modern_blocks.stream_through_depth(depth=12, width=64, branch_gain=4.0, seed=1)
    assert np.allclose(depth.stream_rms["post-norm"][1:], 1, atol=1e-4)  # the stream itself is normalized
    # sandwich: each block adds a branch of RMS one in a new direction, so the mean square grows by about one
    sandwich, pre = depth.stream_rms["sandwich"], depth.stream_rms["pre-norm"]
    assert 0.35 < depth.growth_exponent("sandwich") < 0.65
    assert sandwich[-1] ** 2 == pytest.approx(sandwich[0] ** 2 + 12, rel=0.25)
    # pre-norm: the branch's own gain reaches the stream, a step of 16 in mean square, by the same law
    assert 0.35 < depth.growth_exponent("pre-norm") < 0.65
    assert pre[-1] ** 2 == pytest.approx(pre[0] ** 2 + 16 * 12, rel=0.25)
    assert depth.reference("pre-norm")[-1] == pytest.approx(math.sqrt(1 + 16 * 12))
    assert depth.reference("sandwich")[-1] == pytest.approx(math.sqrt(13))


def test_fusing_the_add_saves_reading_the_new_stream_back():
    unfused, fused = modern_kernels.KERNELS
    assert unfused.bytes_per_element(2) - fused.bytes_per_element(2) == 2  # one 16-bit array fewer: h' is not read back
    assert fused.bytes_per_element(4) == 16  # h and f in, h' and y out, four bytes each
    assert fused.intensity(2) > unfused.intensity(2)


def test_an_rms_from_part_of_a_row_errs_by_about_one_over_root_two_n():
    estimate = partial.partial_rms(widths=(1024,), shares=(0.0625, 0.25, 1.0), rows=4000, seed=5)
    errors = estimate.median_error[1024]
    assert errors[-1] == 0  # the whole row is the RMS
    for share, error in zip(estimate.shares[:-1], errors[:-1]):
        count = int(share * 1024)
        # the finite-population factor: the part is drawn from the same row it is compared with
        spread = modern_kernels.partial_rms_spread(count) * math.sqrt(1 - share)
        assert error == pytest.approx(0.6745 * spread, rel=0.15)  # the median of |normal| is 0.6745 sigma


def test_the_table_s_normal_rows_are_the_figure_s_at_the_same_width():
    """One quantity, one value: the partial RMS of independent normals at LLaMA's width, as each study draws it."""
    normal = next(iter(modern_kernels.partial_rms_by_kind().values()))
    assert normal == partial.partial_rms().error(partial.LLAMA_WIDTHS[0])


def test_heavy_tails_and_an_outlier_channel_make_the_partial_rms_far_worse():
    errors = modern_kernels.partial_rms_by_kind.__wrapped__(width=1024, share=0.0625, rows=200, seed=4)
    normal, offset, heavy, outlier = errors.values()
    assert offset < normal < heavy < outlier
    # the outlier channel of 60 is never read: the estimate misses its share of the mean square
    whole = math.sqrt((1023 + 60**2) / 1024)
    assert outlier == pytest.approx(1 - 1 / whole, rel=0.05)
