"""What RMSNorm costs, the kernel's forward measured against the formulas as written (``formulas``), by stopwatch.

RMSNorm is memory-bound: per element it does a few arithmetic operations but
must read x and write y, so memory, not arithmetic, sets its speed. The yardstick
is a copy of x into a preallocated array, the least any normalization must do,
and every time here is a multiple of that copy. Times are medians over repeats
that interleave the contenders, so a busy machine slows them all alike; ratios
carry over between machines, absolute times do not.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core.rmsnorm import rms_norm_backward
from ..studies.example import EPS
from ..studies.formulas import (
    layer_norm_formula,
    layer_norm_formula_backward,
    rms_norm_formula,
    rms_norm_formula_backward,
)
from .caches import last_level_cache
from .kernel import rms_norm_blocked

# Zhang and Sennrich (2019) report RMSNorm cutting running time by 7% to 64% against LayerNorm.
PAPER_SPEEDUP = (0.07, 0.64)

# Forward, per element: square, add into the row sum, multiply by 1/RMS, multiply by the gain.
FORWARD_FLOPS_PER_ELEMENT = 4


def arithmetic_intensity(dtype: npt.DTypeLike) -> float:
    """Forward flops per byte moved: each element is read once and written once."""
    return FORWARD_FLOPS_PER_ELEMENT / (2 * np.dtype(dtype).itemsize)


# --- the stopwatch ------------------------------------------------------------------


@dataclass(frozen=True)
class Spread:
    """A ratio of two contenders' times, round by round: its median and its range over the rounds."""

    median: float
    low: float
    high: float

    @property
    def clear(self) -> str:
        """ "longer" or "shorter" when every round agrees, else "within the spread": what a sentence may claim."""
        return "longer" if self.low > 1 else "shorter" if self.high < 1 else "within the spread"


@dataclass(frozen=True)
class Timings:
    """Seconds per call of each contender in every round; a round runs every contender once, in turn."""

    samples: dict[str, np.ndarray]

    def median(self, name: str) -> float:
        return float(np.median(self.samples[name]))

    def medians(self) -> dict[str, float]:
        return {name: self.median(name) for name in self.samples}

    def ratio(self, name: str, to: str) -> Spread:
        """``name``'s time over ``to``'s, taken within each round, so that load shared by a round cancels."""
        per_round = self.samples[name] / self.samples[to]
        return Spread(float(np.median(per_round)), float(per_round.min()), float(per_round.max()))

    def ratios(self, to: str) -> dict[str, Spread]:
        """Every contender's time over ``to``'s, round by round: the one ratio the chapter shows for each."""
        return {name: self.ratio(name, to) for name in self.samples}


def timings(runs: Mapping[str, Callable[[], object]], repeats: int = 7, warmup: int = 1, number: int = 1) -> Timings:
    """Wall time of one call of each run, round by round; every round runs each in turn, so load falls on all alike.

    Each sample times ``number`` calls in a row and divides, so that calls of a few
    microseconds are timed over a span the clock and the scheduler cannot blur.
    """
    for _ in range(warmup):
        for run in runs.values():
            run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            for _ in range(number):
                run()
            times[name].append((time.perf_counter() - start) / number)
    return Timings({name: np.array(spans) for name, spans in times.items()})


def median_seconds(
    runs: Mapping[str, Callable[[], object]], repeats: int = 7, warmup: int = 1, number: int = 1
) -> dict[str, float]:
    """Median wall time of one call of each run (``timings``, summed up by its medians)."""
    return timings(runs, repeats, warmup, number).medians()


def batch_bytes(cache: int | None = None) -> int:
    """The cost batch: twice the largest cache the machine reports, within ``BATCH_RANGE`` (timings must stay short)."""
    low, high = BATCH_RANGE
    cache = last_level_cache() if cache is None else cache
    return low if cache is None else int(min(max(2 * cache, low), high))


# --- the comparison the chapter shows --------------------------------------------------

FORWARD, BACKWARD = "forward", "backward"
COPY, INTO_OUT, PACKAGE = "copy of x (the limit)", "kernel into out", "kernel"
FORMULA, LAYER_FORMULA = "RMSNorm formula", "LayerNorm formula"
BATCH_RANGE = (32 * 2**20, 64 * 2**20)  # bytes of the cost batch: at least 32 MiB, at most 64 MiB
TOKENS, WIDTH = 1024, 2048  # the cost batch's sequence length and width; its batch size follows from its bytes
FLOAT32 = np.dtype(np.float32)
SWEEP_WIDTH = 1024  # a row's width; an input smaller than one such row is one shorter row
SWEEP_BYTES = (*(4 * 1024 * 4**k for k in range(7)), 32 * 2**20)  # 4 KiB, 16 KiB, ... 16 MiB, 32 MiB
SAMPLE_BYTES = 2**20  # each timed sample streams at least this much, so small sizes are timed over many calls


def _batch(shape: tuple[int, ...], dtype: npt.DTypeLike, seed: int) -> tuple[np.ndarray, ...]:
    """x, an upstream gradient, a gain and a bias, seeded."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    grad_output = rng.standard_normal(shape).astype(dtype)
    gain = rng.uniform(0.5, 1.5, shape[-1]).astype(dtype)
    bias = rng.uniform(-0.5, 0.5, shape[-1]).astype(dtype)
    return x, grad_output, gain, bias


def _forward_runs(x: np.ndarray, gain: np.ndarray, out: np.ndarray) -> dict[str, Callable[[], object]]:
    """The copy, the kernel's forward into ``out`` and into a new array, and the formula: the chapter's contenders."""
    return {
        COPY: lambda: np.copyto(out, x),
        INTO_OUT: lambda: rms_norm_blocked(x, gain, out=out),
        PACKAGE: lambda: rms_norm_blocked(x, gain),
        FORMULA: lambda: rms_norm_formula(x, gain),
    }


def cost_shape(nbytes: int | None = None) -> tuple[int, int, int]:
    """Batch, tokens, width of the float32 cost batch of ``nbytes`` (``batch_bytes()`` if None)."""
    nbytes = batch_bytes() if nbytes is None else nbytes
    return max(1, nbytes // (TOKENS * WIDTH * FLOAT32.itemsize)), TOKENS, WIDTH


def cost_timings(
    shape: tuple[int, ...] | None = None, dtype: npt.DTypeLike = np.float32, repeats: int = 7, seed: int = 0
) -> dict[str, Timings]:
    """Forward and backward times of the copy, the package, the RMSNorm and LayerNorm formulas, round by round.

    The package's forward is the kernel's (``rms_norm_blocked``); its backward is core's ``rms_norm_backward``.
    """
    x, grad_output, gain, bias = _batch(shape or cost_shape(), dtype, seed)
    forward = _forward_runs(x, gain, np.empty_like(x))
    forward[LAYER_FORMULA] = lambda: layer_norm_formula(x, gain, bias)
    backward = {
        COPY: forward[COPY],
        "rms_norm_backward": lambda: rms_norm_backward(x, gain, EPS, grad_output),
        FORMULA: lambda: rms_norm_formula_backward(x, gain, EPS, grad_output),
        LAYER_FORMULA: lambda: layer_norm_formula_backward(x, gain, EPS, grad_output),
    }
    return {FORWARD: timings(forward, repeats), BACKWARD: timings(backward, repeats)}


@dataclass(frozen=True)
class SizeSweep:
    """Forward times of the copy, the kernel and the formula at growing input sizes, in one dtype."""

    elements: np.ndarray  # elements of x at each size
    seconds: dict[str, np.ndarray]  # contender -> median seconds of one call at each size
    dtype: np.dtype = FLOAT32

    @property
    def nbytes(self) -> np.ndarray:
        return self.elements * self.dtype.itemsize

    def nanoseconds_per_element(self, name: str) -> np.ndarray:
        return 1e9 * self.seconds[name] / self.elements

    def speedup(self, name: str) -> np.ndarray:
        """How many times faster than the formula ``name`` ran at each size (below 1: slower)."""
        return self.seconds[FORMULA] / self.seconds[name]

    def slower_than_formula(self, name: str) -> np.ndarray:
        """The input sizes (bytes) at which ``name`` took longer than the formula."""
        return self.nbytes[self.speedup(name) < 1]


def size_sweep(
    dtype: npt.DTypeLike = np.float32,
    sizes: tuple[int, ...] = SWEEP_BYTES,
    width: int = SWEEP_WIDTH,
    repeats: int = 7,
    seed: int = 0,
) -> SizeSweep:
    """Time the forward contenders on inputs of ``sizes`` bytes, rows of ``width``, from cache-sized up."""
    dtype = np.dtype(dtype)
    seconds: dict[str, list[float]] = {COPY: [], INTO_OUT: [], PACKAGE: [], FORMULA: []}
    counts = []
    for nbytes in sizes:
        elements = nbytes // dtype.itemsize
        x, _, gain, _ = _batch((max(1, elements // width), min(width, elements)), dtype, seed)
        number = max(1, SAMPLE_BYTES // x.nbytes)
        for name, span in median_seconds(_forward_runs(x, gain, np.empty_like(x)), repeats, number=number).items():
            seconds[name].append(span)
        counts.append(x.size)
    return SizeSweep(np.array(counts), {name: np.array(spans) for name, spans in seconds.items()}, dtype)
