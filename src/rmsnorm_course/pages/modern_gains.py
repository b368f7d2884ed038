"""RMSNorm in today's models, gains and attention: a gain stored as 1 + w, and QK-norm per head or across heads."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..studies import modern, precision
from . import holds


def values() -> SimpleNamespace:
    decay = modern.gain_decay()
    holds(decay.plain[-1] < 0.5 < 1 < decay.one_plus[-1] < decay.one_plus[0], "plain toward zero, 1 + w toward one")
    at_start = modern.gain_cast_order(trained=False)
    holds(at_start.differ == 0, "at initialisation the two orders give the same bits")
    casts = precision.cast_order()  # the implementation page's measurement: one quantity, one value
    holds(casts.differ > 0, "once the gain has moved, LLaMA's order and Gemma's differ")
    holds(modern.gain_cast_order().max_ulps == casts.max_ulps, "in LLaMA's and Gemma's own code, by as many ulps")
    attention = modern.qk_norm()
    holds(attention.entropy[-1] < 0.01, "without QK-norm each query attends to one key")
    holds(attention.entropy_normed.min() > 0.8 * attention.entropy_normed.max(), "with QK-norm the entropy holds")
    holds(attention.largest_logit_normed.max() <= modern.qk_logit_bound(), "the logits stay under the bound")
    heads = modern.head_lengths()
    holds(np.allclose(heads.per_head, 1.0), "per head, every head's query has length sqrt(d)")
    holds(np.ptp(heads.across_heads) > 0.5, "across heads, one head's length is not fixed")
    return SimpleNamespace(
        rate=f"{modern.DECAY_PER_STEP:g}",
        decay=decay,
        steps=f"{decay.steps[-1]:,}",
        plain_end=f"{decay.plain[-1]:.6f}",  # as the box's verdict gives them
        one_plus_end=f"{decay.one_plus[-1]:.6f}",
        start_values=f"{at_start.values:,}",
        cast_values=f"{casts.values:,}",
        cast_differ=f"{casts.differ:,}",
        cast_ulps=f"{casts.max_ulps:g}",
        width=modern.HEAD_WIDTH,
        positions=modern.POSITIONS,
        attention=attention,
        bound=f"{modern.qk_logit_bound():g}",
        scale_max=f"{attention.scales[-1]:g}",
        logit_max=f"{attention.largest_logit[-1]:,.0f}",
        logit_normed=f"{attention.largest_logit_normed[-1]:.2f}",
        entropy_end=f"{attention.entropy[-1]:.2g}",
        entropy_normed_end=f"{attention.entropy_normed[-1]:.2f}",
        entropy_uniform=f"{attention.uniform_entropy:.2f}",
        heads=modern.HEADS,
        head_lengths=heads,
        shortest_head=f"{heads.across_heads.min():.2f}",
        longest_head=f"{heads.across_heads.max():.2f}",
        bound_across=f"{modern.qk_logit_bound_across_heads():g}",
    )
