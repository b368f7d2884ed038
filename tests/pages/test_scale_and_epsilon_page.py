"""The scale-and-epsilon page: what it says of PyTorch's code is what that code does, and its slips are named."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rmsnorm_course import check

PAGE = (Path(__file__).resolve().parents[2] / "book" / "scale-and-epsilon.md").read_text(encoding="utf-8")


def test_pytorch_s_composite_is_said_to_be_its_fallback_not_its_rms_norm():
    """Issue 49: ``rms_norm_symint`` calls ``at::_fused_rms_norm`` in the ordinary case, not the composite."""
    said = " ".join(PAGE[PAGE.index("PyTorch's C++") :].split())
    assert "`rms_norm_symint`" in said and "`_fused_rms_norm`" in said
    assert said.index("`_fused_rms_norm`") < said.index("`rms_norm_composite`")
    assert "falls back on" in said


def test_the_crossover_s_slips_are_named():
    eps, level = 1e-5, 0.8
    ms = eps * level / (1 - level)  # ms / (ms + eps) = level
    assert "the mean square" in check("crossover-rms", f"{ms:.6g}").message
    assert "eps takes half" in check("crossover-rms", f"{np.sqrt(eps):.6f}").message
    assert check("crossover-rms", f"{np.sqrt(ms):.6f}").correct
    assert "Without eps" in check("crossover-rms", "0").message  # ms / (ms + 0) is 1 at every RMS above 0
