"""This machine's roofline: how fast memory feeds a core, how fast the core computes, and RMSNorm between.

Two ceilings bound any kernel: memory bandwidth times the kernel's arithmetic
intensity (flops per byte moved), and the processor's peak flop rate. Both are
measured here, at build time, so the picture is of the machine that built the book:
bandwidth from a copy of a large array (one read and one write per element), the
peak from a float32 matrix product (2 n**3 flops on 3 n**2 numbers, far above the
ridge). The kernel's forward is then placed on it at RMSNorm's own intensity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..studies.threads import one_blas_thread
from .kernel import rms_norm_blocked
from .timings import FORWARD_FLOPS_PER_ELEMENT, arithmetic_intensity, batch_bytes, median_seconds

MATMUL_SIZE = 1024
ROW_WIDTH = 4096  # the model-sized batch's rows; from the kernel's JOIN_WIDTH up it makes PASSES trips
PASSES = 3  # the kernel's trips through each block: the sums of squares, the factor 1/RMS * gain, x times it


@dataclass(frozen=True)
class Roofline:
    """The two ceilings and RMSNorm's measured forward, in bytes and flops per second."""

    bandwidth: float  # bytes per second, from the copy
    peak: float  # flops per second, from the matrix product
    intensity: float  # RMSNorm forward flops per byte (float32)
    achieved: float  # RMSNorm forward flops per second, measured (the kernel's forward into out)

    @property
    def ridge(self) -> float:
        """The intensity at which the two ceilings meet: below it, memory binds."""
        return self.peak / self.bandwidth

    def attainable(self, intensity: np.ndarray | float) -> np.ndarray:
        """The roof: min(peak, bandwidth x intensity)."""
        return np.minimum(self.peak, self.bandwidth * np.asarray(intensity, dtype=np.float64))

    @property
    def fraction_of_roof(self) -> float:
        """How much of what memory allows at RMSNorm's intensity the measured forward reached."""
        return float(self.achieved / self.attainable(self.intensity))


@one_blas_thread  # one core's roof: the kernel runs on one core too
def roofline(elements: int | None = None, size: int = MATMUL_SIZE, repeats: int = 5, seed: int = 0) -> Roofline:
    """Measure the copy, the matrix product and the kernel's forward into out (medians of interleaved repeats).

    The copy and the forward stream ``elements`` float32 numbers in rows of ``ROW_WIDTH``
    (the cost batch, sized from the cache the machine reports, if None).
    """
    elements = batch_bytes() // 4 if elements is None else elements
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((max(1, elements // ROW_WIDTH), ROW_WIDTH), dtype=np.float32)
    out = np.empty_like(x)
    gain = np.ones(ROW_WIDTH, np.float32)
    a, b = (rng.standard_normal((size, size), dtype=np.float32) for _ in range(2))
    product = np.empty((size, size), np.float32)
    seconds = median_seconds(
        {
            "copy": lambda: np.copyto(out, x),
            "matmul": lambda: np.matmul(a, b, out=product),
            "rms_norm": lambda: rms_norm_blocked(x, gain, out=out),
        },
        repeats,
    )
    return Roofline(
        bandwidth=2 * x.nbytes / seconds["copy"],
        peak=2 * size**3 / seconds["matmul"],
        intensity=arithmetic_intensity(np.float32),
        achieved=FORWARD_FLOPS_PER_ELEMENT * x.size / seconds["rms_norm"],
    )
