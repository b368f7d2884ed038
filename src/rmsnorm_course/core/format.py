"""How the chapter writes numbers: six decimals, everywhere.

The book's prose, its tables and figures, the report, the exercises' explanations
and the tests all print values through ``fmt``, so a number reads the same wherever
it appears.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def fmt(values: Iterable[float] | float | np.ndarray) -> str:
    """Six decimals, as the chapter prints them: ``[0.848528, 1.131370]``."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 0:
        return f"{float(array):.6f}"
    return "[" + ", ".join(fmt(v) for v in array) + "]"
