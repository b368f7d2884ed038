"""What RMSNorm costs, measured against the formulas as written (``formulas``), by stopwatch.

RMSNorm is memory-bound: per element it does a few arithmetic operations but
must read x and write y, so memory, not arithmetic, sets its speed. The yardstick
is a copy of x into a preallocated array, the least any normalization must do,
and every time here is a multiple of that copy. Times are medians over repeats
that interleave the contenders, so a busy machine slows them all alike; ratios
carry over between machines, absolute times do not.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable, Mapping

import numpy as np
import numpy.typing as npt

from ..core.rmsnorm import DEFAULT_EPS, rms_norm, rms_norm_backward
from .formulas import layer_norm_formula, layer_norm_formula_backward, rms_norm_formula, rms_norm_formula_backward

# Zhang and Sennrich (2019) report RMSNorm cutting running time by 7% to 64% against LayerNorm.
PAPER_SPEEDUP = (0.07, 0.64)

# Forward, per element: square, add into the row sum, multiply by 1/RMS, multiply by the gain.
FORWARD_FLOPS_PER_ELEMENT = 4


def arithmetic_intensity(dtype: npt.DTypeLike) -> float:
    """Forward flops per byte moved: each element is read once and written once."""
    return FORWARD_FLOPS_PER_ELEMENT / (2 * np.dtype(dtype).itemsize)


# --- the stopwatch ------------------------------------------------------------------


def median_seconds(runs: Mapping[str, Callable[[], object]], repeats: int = 7, warmup: int = 1) -> dict[str, float]:
    """Median wall time of each run; every round runs each once, so load falls on all alike."""
    for _ in range(warmup):
        for run in runs.values():
            run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(spans)) for name, spans in times.items()}


def peak_extra_bytes(run: Callable[[], object]) -> int:
    """Peak memory a run allocates beyond what it hands back (numpy reports to tracemalloc)."""
    tracemalloc.start()  # traces only what is allocated from here on
    try:
        result = run()
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return max(0, peak - kept)


# --- the comparison the chapter shows --------------------------------------------------

FORWARD, BACKWARD = "forward", "backward"
COST_SHAPE = (8, 128, 512)  # batch, tokens, width: the batch the book times


def cost_ratios(
    shape: tuple[int, ...] = COST_SHAPE, dtype: npt.DTypeLike = np.float32, repeats: int = 15, seed: int = 0
) -> dict[str, dict[str, float]]:
    """Forward and backward times of RMSNorm and LayerNorm as multiples of one copy of x."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    grad_output = rng.standard_normal(shape).astype(dtype)
    gain = rng.uniform(0.5, 1.5, shape[-1]).astype(dtype)
    bias = rng.uniform(-0.5, 0.5, shape[-1]).astype(dtype)
    out = np.empty_like(x)
    forward = {
        "copy of x (the limit)": lambda: np.copyto(out, x),
        "rms_norm into out": lambda: rms_norm(x, gain, out=out),
        "rms_norm": lambda: rms_norm(x, gain),
        "RMSNorm formula": lambda: rms_norm_formula(x, gain),
        "LayerNorm formula": lambda: layer_norm_formula(x, gain, bias),
    }
    backward = {
        "rms_norm_backward": lambda: rms_norm_backward(x, gain, DEFAULT_EPS, grad_output),
        "RMSNorm formula": lambda: rms_norm_formula_backward(x, gain, DEFAULT_EPS, grad_output),
        "LayerNorm formula": lambda: layer_norm_formula_backward(x, gain, DEFAULT_EPS, grad_output),
    }
    runs = {(FORWARD, name): run for name, run in forward.items()}
    runs.update({(BACKWARD, name): run for name, run in backward.items()})
    times = median_seconds(runs, repeats)
    copy = times[FORWARD, "copy of x (the limit)"]
    ratios: dict[str, dict[str, float]] = {FORWARD: {}, BACKWARD: {}}
    for (direction, name), seconds in times.items():
        ratios[direction][name] = seconds / copy
    return ratios
