"""RMSNorm in today's models, blocks, kernels and estimates: where the norms sit, sandwich norms, fused kernels,
and the partial RMS."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .. import modern
from ..roofline import roofline
from . import holds


def values() -> SimpleNamespace:
    depth = modern.stream_through_depth()
    for arrangement in ("pre-norm", "sandwich"):
        holds(abs(depth.growth_exponent(arrangement) - 0.5) < 0.1, f"{arrangement} grows as the square root")
        relative = np.abs(
            depth.stream_rms[arrangement][modern.FIT_FROM :] / depth.reference(arrangement)[modern.FIT_FROM :] - 1
        )
        holds(relative.max() < 0.15, f"{arrangement} follows its reference")
    holds(depth.growth_exponent("post-norm") < 0.05, "post-norm stays at one")
    unfused, fused = modern.KERNELS
    roof = roofline()
    holds(fused.intensity() < roof.ridge, "both kernels sit on the sloped part of the roof")
    partial = modern.partial_rms()
    holds(all(0.01 <= partial.error(w) < 0.1 for w in modern.LLAMA_WIDTHS), "a few per cent at LLaMA's widths")
    holds(all(np.all(np.diff(e) <= 0) for e in partial.median_error.values()), "the error falls as the share grows")
    kinds = modern.partial_rms_by_kind()
    gaussian = kinds[next(iter(kinds))]
    holds(max(kinds.values()) > 5 * gaussian, "heavy tails and outliers are far worse than independent normals")
    return SimpleNamespace(
        depth=modern.DEPTH,
        width=modern.STREAM_WIDTH,
        branch_gain=f"{modern.BRANCH_GAIN:g}",
        step_pre=f"{modern.BRANCH_GAIN**2:g}",
        fit_from=modern.FIT_FROM,
        stream=depth,
        pre_end=f"{depth.stream_rms['pre-norm'][-1]:.1f}",
        pre_reference=f"{depth.reference('pre-norm')[-1]:.1f}",
        sandwich_end=f"{depth.stream_rms['sandwich'][-1]:.2f}",
        sandwich_reference=f"{depth.reference('sandwich')[-1]:.2f}",
        post_end=f"{depth.stream_rms['post-norm'][-1]:.2f}",
        exponent_pre=f"{depth.growth_exponent('pre-norm'):.2f}",
        exponent_sandwich=f"{depth.growth_exponent('sandwich'):.2f}",
        kernels=modern.KERNELS,
        roof=roof,
        saving=f"{unfused.bytes_per_element() / fused.bytes_per_element():.2f}",
        share=f"{modern.SHARE:.2%}",
        widths=", ".join(str(w) for w in modern.LLAMA_WIDTHS),
        errors=", ".join(f"{partial.error(w):.1%}" for w in modern.LLAMA_WIDTHS),
        partial=partial,
        kinds=kinds,
        read=modern.values_read(modern.SHARE, modern.LLAMA_WIDTHS[0]),
        first_width=modern.LLAMA_WIDTHS[0],
    )
