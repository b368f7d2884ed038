"""The implementation: the precision policy, and the cast order it chooses."""

from __future__ import annotations

from types import SimpleNamespace

from ..precision import cast_order
from . import holds


def values() -> SimpleNamespace:
    order = cast_order()
    holds(order.differ > 0, "the two cast orders differ")
    holds(order.max_ulps <= 1, "by at most one float16 ulp")
    return SimpleNamespace(
        half_values=f"{order.values:,}", half_differ=f"{order.differ:,}", half_ulps=f"{order.max_ulps:g}"
    )
