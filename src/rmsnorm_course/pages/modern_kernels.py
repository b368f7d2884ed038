"""RMSNorm in today's models, kernels and estimates: fused add + RMSNorm on the roofline, and the partial RMS."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..perf.roofline import roofline
from ..studies import modern
from . import holds


def values() -> SimpleNamespace:
    unfused, fused = modern.KERNELS
    roof = roofline()
    holds(fused.intensity() < roof.ridge, "both kernels sit on the sloped part of the roof")
    partial = modern.partial_rms()
    holds(all(0.01 <= partial.error(w) < 0.1 for w in modern.LLAMA_WIDTHS), "a few per cent at LLaMA's widths")
    holds(all(np.all(np.diff(e) <= 0) for e in partial.median_error.values()), "the error falls as the share grows")
    kinds = modern.partial_rms_by_kind()
    gaussian = kinds[next(iter(kinds))]
    holds(max(kinds.values()) > 5 * gaussian, "heavy tails and outliers are far worse than independent normals")
    holds(gaussian == partial.error(modern.LLAMA_WIDTHS[0]), "the table's normal rows are the figure's")
    return SimpleNamespace(
        kernels=modern.KERNELS,
        roof=roof,
        saving=f"{unfused.bytes_per_element() / fused.bytes_per_element():.2f}",
        share=f"{modern.SHARE:.2%}",
        widths=", ".join(str(w) for w in modern.LLAMA_WIDTHS),
        errors=", ".join(f"{partial.error(w):.1%}" for w in modern.LLAMA_WIDTHS),
        partial=partial,
        kinds=kinds,
        read=modern.values_read(modern.SHARE, modern.LLAMA_WIDTHS[0]),
        spread=f"{modern.partial_rms_spread(modern.values_read(modern.SHARE, modern.LLAMA_WIDTHS[0])):.1%}",
        first_width=modern.LLAMA_WIDTHS[0],
    )
