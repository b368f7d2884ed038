"""RMSNorm against LayerNorm on activations, and the two placements of eps."""

from __future__ import annotations

import numpy as np
import pytest

from rmsnorm_course.core.gradcheck import numeric_gradient
from rmsnorm_course.core.reference import DEFAULT_EPS
from rmsnorm_course.studies.comparison import (
    IMPLEMENTATIONS,
    activation_comparison,
    identities,
    placement_curves,
    rms_norm_eps_outside,
)


def test_activation_statistics_on_a_small_seeded_batch():
    comparison = activation_comparison(shape=(4, 8, 64), offset=1.5, seed=3)
    stats = comparison.statistics()
    assert stats["input"].mean == pytest.approx(1.5, abs=0.1)
    assert stats["RMSNorm"].rms == pytest.approx(1.0, abs=1e-5)
    assert stats["LayerNorm"].mean == pytest.approx(0.0, abs=1e-12)
    assert stats["LayerNorm"].std == pytest.approx(1.0, abs=1e-5)
    # RMSNorm keeps the offset: its mean is the input's mean over its RMS, row by row.
    rows = comparison.inputs.reshape(-1, 64)
    expected = np.mean(rows.mean(axis=1) / np.sqrt(np.mean(rows**2, axis=1) + 1e-5))  # the chapter's eps
    assert stats["RMSNorm"].mean == pytest.approx(expected, rel=1e-12)


def test_same_seed_same_numbers():
    a, b = activation_comparison(shape=(2, 3, 8)), activation_comparison(shape=(2, 3, 8))
    assert np.array_equal(a.rms_normed, b.rms_normed)


def test_eps_outside_the_root_adds_to_the_rms_itself():
    # [3, 4] / (sqrt(12.5) + 0.5), to 30 digits by decimal arithmetic
    np.testing.assert_allclose(
        rms_norm_eps_outside([3.0, 4.0], 0.5), [0.743396058595772478, 0.991194744794363305], rtol=1e-15
    )


def test_placement_values_and_slopes():
    eps = 1e-5
    r = np.array([1e-6, 1e-3, 1.0])
    curves = placement_curves(r, eps)
    np.testing.assert_allclose(curves.inside, r / np.sqrt(r**2 + eps), rtol=1e-14)
    np.testing.assert_allclose(curves.outside, r / (r + eps), rtol=1e-14)
    for i, rv in enumerate(r):
        h = rv * 1e-4
        inside = numeric_gradient(lambda t: float(t[0] / np.sqrt(t[0] ** 2 + eps)), [rv], h)[0]
        outside = numeric_gradient(lambda t: float(t[0] / (t[0] + eps)), [rv], h)[0]
        assert curves.inside_slope[i] == pytest.approx(inside, rel=1e-6)
        assert curves.outside_slope[i] == pytest.approx(outside, rel=1e-6)
    # Near zero the slopes approach 1/sqrt(eps) inside and 1/eps outside.
    assert curves.inside_slope[0] == pytest.approx(1 / np.sqrt(eps), rel=1e-6)
    assert curves.outside_slope[0] == pytest.approx(1 / eps, rel=0.2)


def test_implementations_table_names_each_placement_and_its_source():
    assert all(i.source for i in IMPLEMENTATIONS)
    assert {i.placement.split(":")[0] for i in IMPLEMENTATIONS} == {"inside", "outside"}  # the page contrasts both


def test_the_course_row_gives_the_functions_default_eps():
    row = next(i for i in IMPLEMENTATIONS if i.name.startswith("this course"))
    assert row.eps == f"{DEFAULT_EPS:g}"  # the column is "default eps", not the chapter's worked one


@pytest.mark.end_to_end
def test_the_pytorch_row_says_what_pytorch_does():
    """Held to PyTorch itself, which make test-e2e installs (requirements-e2e.txt); the course does not depend on it."""
    import torch

    row = next(i for i in IMPLEMENTATIONS if i.name.startswith("PyTorch"))
    assert "float32's machine epsilon for float16" in row.eps and "float16, bfloat16 in float32" in row.precision
    for values in ([300.0, 1.0], [1e-4, 2e-4]):
        x16 = np.array(values, dtype=np.float16)
        got = torch.nn.functional.rms_norm(torch.tensor(x16), (2,)).numpy()
        x32 = x16.astype(np.float32)
        ms = np.mean(x32**2)
        with_fp32_eps = (x32 / np.sqrt(ms + np.finfo(np.float32).eps)).astype(np.float16)
        np.testing.assert_allclose(got.astype(np.float32), with_fp32_eps.astype(np.float32), rtol=2e-3)
        assert np.all(np.isfinite(got))  # 300**2 overflows float16, so it was squared in float32
    tiny = np.array([1e-4, 2e-4], dtype=np.float16)
    with_fp16_eps = tiny.astype(np.float32) / np.sqrt(np.mean(tiny.astype(np.float32) ** 2) + np.finfo(np.float16).eps)
    got = torch.nn.functional.rms_norm(torch.tensor(tiny), (2,)).numpy().astype(np.float32)
    assert not np.allclose(got, with_fp16_eps, rtol=0.05)


@pytest.mark.end_to_end
def test_the_boundaries_page_s_pytorch_column_is_what_pytorch_gives():
    """Recorded with PyTorch (``PYTORCH_VERSION``), which the page says the tests check wherever it is installed."""
    import torch

    from rmsnorm_course.pages.boundaries import CONTRASTS, describe

    for contrast in CONTRASTS:
        x = torch.tensor(contrast.x, dtype=torch.float64)
        gain = None if contrast.gain is None else torch.tensor(contrast.gain, dtype=torch.float64)
        got = torch.nn.functional.rms_norm(x, (x.shape[-1],), gain, contrast.eps).numpy()
        assert describe(got) == contrast.pytorch, contrast.request


def test_identities_tie_layer_norm_to_rms_norm_of_the_centred_row():
    comparison = activation_comparison(shape=(3, 5, 16))
    tie = identities(comparison)
    assert tie.layer_norm_as_rms_norm_of_centered <= 1e-14
    assert tie.mean_square_split <= 1e-14
    # and the identities are not vacuous: without centring, RMSNorm is far from LayerNorm here
    x = comparison.inputs
    assert np.max(np.abs(comparison.layer_normed - comparison.rms_normed)) > 0.1
    assert np.all(np.mean(x**2, axis=-1) > np.var(x, axis=-1) + 0.1)  # the offset adds its mean squared
