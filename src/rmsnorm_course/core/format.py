"""How the chapter writes numbers: six decimals, everywhere.

The book's prose, its tables and figures, the report, the exercises' explanations
and the tests all print computed values through ``fmt``, so a number reads the same
wherever it appears. An input the chapter chose is written as it was typed
(``given``), a difference that may be far below a millionth keeps its digits
(``difference``), and a power of ten is written short (``exponent``).
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


def given(values: Iterable[float]) -> str:
    """An input as the chapter typed it, not as computed: ``[3, 4]``, ``[0.0003, 0.0004]``."""
    return "[" + ", ".join(f"{float(v):g}" for v in values) + "]"


def difference(value: float) -> str:
    """How far apart two results are: six decimals, or three significant figures below a thousandth."""
    return f"{value:.6f}" if abs(value) >= 1e-3 else f"{value:.3g}"


def exponent(value: float, digits: int = 0) -> str:
    """A small number in powers of ten, as the chapter writes them: ``1e-5``, ``2.4e-5``, not ``1e-05``."""
    return f"{value:.{digits}e}".replace("e-0", "e-")


def binary_size(nbytes: int) -> str:
    """A size in bytes as the chapter writes it: ``64 KiB``, ``1 MiB``, ``32 MiB``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:g} {unit}"
    return f"{nbytes:g} bytes"
