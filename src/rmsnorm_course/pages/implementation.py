"""The implementation: the precision policy, and the cast order it chooses."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..studies.precision import cast_order
from . import holds


def values() -> SimpleNamespace:
    order = cast_order()
    holds(order.differ > 0, "the two cast orders differ")
    holds(order.max_ulps <= 1, "by at most one float16 ulp")
    half_max = float(np.finfo(np.float16).max)
    root = float(np.sqrt(half_max))
    nearest = np.float16(root)  # float16's value nearest the root, and the next one up
    with np.errstate(over="ignore"):
        squares = np.square(np.array([nearest, np.nextafter(nearest, np.float16(np.inf))], dtype=np.float16))
    holds(np.isfinite(squares[0]) and np.isinf(squares[1]), "float16 can square only the numbers up to its root")
    return SimpleNamespace(
        half_values=f"{order.values:,}",
        half_differ=f"{order.differ:,}",
        half_ulps=f"{order.max_ulps:g}",
        half_max=f"{half_max:g}",
        half_root=f"{root:.1f}",
    )
