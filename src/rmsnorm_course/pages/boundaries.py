"""Boundaries: all-zero rows, rows too large or too small to square, empty batches, and every refusal."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..core.format import fmt, given
from ..core.rmsnorm import rms_norm, rms_norm_backward
from ..studies import evidence, example
from ..studies.example import EPS
from . import holds

HUGE, TINY = (1e200, 2e200), (1e-200, 2e-200)  # squares overflow, squares underflow (float64)
EMPTY = (0, 16, 4)


def values() -> SimpleNamespace:
    collected = evidence.collect()
    holds(all(r.as_expected for r in collected.rejections), "every request is refused as expected")
    expected = np.array([1.0, 2.0]) / np.sqrt(2.5)
    for row in (HUGE, TINY):
        holds(np.allclose(rms_norm(np.array(row), eps=0.0), expected, rtol=1e-15, atol=0), "rescaled rows are right")
    empty = np.zeros(EMPTY)
    _, grad_gain = rms_norm_backward(empty, np.ones(EMPTY[-1]), EPS, empty)
    holds(rms_norm(empty).shape == EMPTY and np.array_equal(grad_gain, np.zeros(EMPTY[-1])), "an empty batch")
    holds(np.array_equal(collected.batch_output[0], collected.primary.forward.output), "rows never mix")
    return SimpleNamespace(
        collected=collected,
        eps=f"{EPS:g}",
        zero_row=given(example.ZERO_ROW),
        zero_out=fmt(collected.zero_output),
        batch="[" + ", ".join(given(row) for row in example.BATCH) + "]",
        batch_row0=fmt(collected.batch_output[0]),
        batch_row1=fmt(collected.batch_output[1]),
        n_boundaries=str(len(collected.rejections)),
        n_classes=str(len({r.case.expected for r in collected.rejections})),
    )
