"""RMSNorm in today's models, where the norms sit: the arrangements of today's models, and sandwich norms."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..studies import modern
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
    )
