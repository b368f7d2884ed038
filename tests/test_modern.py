"""Today's variants, each against what it must show: closed forms, bounds, and the growth laws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rmsnorm_course.studies import modern


def test_decay_shrinks_the_stored_parameter_so_a_one_plus_w_gain_heads_for_one():
    decay = modern.gain_decay(start=1.3, rate=0.01, steps=200)
    kept = 0.99**200  # the share of the stored value left after 200 steps
    assert decay.plain[-1] == pytest.approx(1.3 * kept, rel=1e-12)
    assert decay.one_plus[-1] == pytest.approx(1 + 0.3 * kept, rel=1e-12)
    assert decay.plain[0] == decay.one_plus[0] == 1.3  # the same gain before any decay
    assert np.all(np.diff(decay.plain) < 0) and np.all(decay.one_plus > 1)


def test_the_two_gains_give_the_same_forward_at_initialisation():
    x = np.random.default_rng(3).normal(size=(4, 16))
    assert modern.same_forward_at_initialisation(x)


def test_qk_norm_bounds_the_logits_and_keeps_attention_spread_as_the_scale_grows():
    attention = modern.qk_norm.__wrapped__(scales=(0.1, 1.0, 100.0), width=16, positions=8, seed=2)
    bound = modern.qk_logit_bound(16)
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
    depth = modern.stream_through_depth(depth=12, width=64, branch_gain=4.0, seed=1)
    assert np.allclose(depth.stream_rms["post-norm"][1:], 1, atol=1e-4)  # the stream itself is normalized
    # sandwich: each block adds a branch of RMS one in a new direction, so the mean square grows by about one
    sandwich = depth.stream_rms["sandwich"]
    assert 0.35 < depth.growth_exponent("sandwich") < 0.65
    assert sandwich[-1] ** 2 == pytest.approx(sandwich[0] ** 2 + 12, rel=0.25)
    # pre-norm: the branch's own gain reaches the stream, so it grows faster than sandwich
    assert depth.stream_rms["pre-norm"][-1] > 2 * sandwich[-1]


def test_fusing_the_add_saves_reading_the_new_stream_back():
    unfused, fused = modern.KERNELS
    assert unfused.bytes_per_element(2) - fused.bytes_per_element(2) == 2  # one 16-bit array fewer: h' is not read back
    assert fused.bytes_per_element(4) == 16  # h and f in, h' and y out, four bytes each
    assert fused.intensity(2) > unfused.intensity(2)


def test_an_rms_from_part_of_a_row_errs_by_about_one_over_root_two_n():
    partial = modern.partial_rms(widths=(1024,), shares=(0.0625, 0.25, 1.0), rows=4000, seed=5)
    errors = partial.median_error[1024]
    assert errors[-1] == 0  # the whole row is the RMS
    for share, error in zip(partial.shares[:-1], errors[:-1]):
        count = int(share * 1024)
        # the finite-population factor: the part is drawn from the same row it is compared with
        spread = modern.partial_rms_spread(count) * math.sqrt(1 - share)
        assert error == pytest.approx(0.6745 * spread, rel=0.15)  # the median of |normal| is 0.6745 sigma
