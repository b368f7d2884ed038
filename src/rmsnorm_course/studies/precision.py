"""How close RMSNorm lands, in units in the last place (ulps), across a dtype's whole range.

The yardstick for a float32 or float16 result is the formula evaluated in float64:
squares of float32 values can neither overflow nor underflow there, and 53 bits
are plenty to count float32 ulps. (The tests also hold float64 results to
60-digit decimal arithmetic.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core.rmsnorm import rms_norm
from .example import EPS
from .formulas import rms_norm_formula

FLOAT32_DECADES = range(-44, 38, 2)  # from float32's subnormals to just below its largest value
HALF_PRECISION_ROW = (300.0, 1.0)  # 300**2 exceeds float16's largest value, 65504
FITTING_ROW = (250.0, 10.0)  # 250**2 = 62,500 still fits: float16 holds it as 62,496
FAILURE_ULPS = 1000  # an error this large is no longer rounding: the result is simply wrong


def ulps_off(got: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Worst distance per row between ``got`` and ``reference``, in ulps of got's dtype; inf if not finite."""
    got64 = got.astype(np.float64)
    spacing = np.spacing(np.abs(reference).astype(got.dtype)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        distance = np.abs(got64 - reference) / spacing
    distance[~np.isfinite(got64)] = np.inf
    return distance.max(axis=-1)


def rows_at(exponents: npt.ArrayLike, width: int, dtype: npt.DTypeLike, seed: int = 0) -> np.ndarray:
    """One row per exponent: random signs and mantissas in [1, 10), times 10**exponent."""
    exponents = np.asarray(exponents, dtype=float)
    rng = np.random.default_rng(seed)
    mantissas = rng.uniform(1, 10, (exponents.size, width)) * rng.choice([-1, 1], (exponents.size, width))
    return (mantissas * 10.0 ** exponents[:, None]).astype(dtype)


@dataclass(frozen=True)
class Sweep:
    """Worst error per row of the package and of the plain formula, one row per decade."""

    exponents: np.ndarray
    package_ulps: np.ndarray
    formula_ulps: np.ndarray

    @property
    def formula_failures(self) -> int:
        """Rows where the formula is off by more than FAILURE_ULPS, or gives no finite answer."""
        return int(np.sum(self.formula_ulps > FAILURE_ULPS))


def sweep(
    dtype: npt.DTypeLike = np.float32, exponents: npt.ArrayLike = FLOAT32_DECADES, width: int = 8, eps: float = 0.0
) -> Sweep:
    """Normalize a row at every decade with the package and with the formula; count each one's ulps."""
    x = rows_at(exponents, width, dtype)
    gain = np.ones(width, dtype=dtype)
    reference = rms_norm_formula(x.astype(np.float64), np.ones(width), eps)
    with np.errstate(all="ignore"):
        formula = rms_norm_formula(x, gain, eps)
    return Sweep(np.asarray(exponents), ulps_off(rms_norm(x, gain, eps), reference), ulps_off(formula, reference))


@dataclass(frozen=True)
class CastOrder:
    """float16 rows normalized in two orders of rounding: how many values differ, and by how many ulps at most."""

    values: int
    differ: int
    max_ulps: float

    @classmethod
    def between(cls, reference: np.ndarray, other: np.ndarray) -> CastOrder:
        """``other`` against ``reference``, in ulps of ``reference``'s dtype (``ulps_off``)."""
        ulps = ulps_off(other, reference.astype(np.float64))
        return cls(values=reference.size, differ=int(np.sum(reference != other)), max_ulps=float(np.max(ulps)))


def cast_order(rows: int = 1000, width: int = 64, seed: int = 0) -> CastOrder:
    """How often rounding twice (cast, then the gain in float16) differs from rounding once.

    Rounding once is this package's order (the gain applied in float32, one cast);
    rounding twice is LLaMA's reference order (x-hat cast back to float16, then the gain).
    """
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, width)).astype(np.float16)
    gain = rng.uniform(0.5, 1.5, width).astype(np.float16)
    once = rms_norm(x, gain, EPS)
    twice = rms_norm(x, None, EPS) * gain  # x-hat comes back as float16, then float16 times float16
    return CastOrder.between(twice, once)


# --- bfloat16: float32's range, 8 significant bits --------------------------------------

BFLOAT16_SIGNIFICAND_BITS = 8  # 7 stored and 1 implicit: float32's top 16 bits
SUM_LENGTH = 4096  # a row this wide, summed one square at a time


def to_bfloat16(x: npt.ArrayLike) -> np.ndarray:
    """Round float32 values to the nearest bfloat16 (ties to even), returned as float32.

    numpy has no bfloat16, but a bfloat16 is the top half of a float32, so rounding
    the bit pattern at bit 16 gives exactly the value a bfloat16 would hold.
    """
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


SIGNIFICAND_BITS = {"bfloat16": BFLOAT16_SIGNIFICAND_BITS, "float16": 11, "float8 E4M3": 4, "float8 E5M2": 3}


def round_to_bits(x: float, bits: int) -> float:
    """``x`` rounded to ``bits`` significant bits, ties to even: a format with that significand, exponent to spare."""
    if x == 0:
        return 0.0
    mantissa, exponent = math.frexp(x)  # x = mantissa * 2**exponent, 0.5 <= |mantissa| < 1
    return round(mantissa * 2**bits) * 2.0 ** (exponent - bits)


def stalled_sum(value: float, count: int, bits: int) -> float:
    """Add ``value`` ``count`` times, rounding the total to ``bits`` significant bits after every addition."""
    total = 0.0
    for _ in range(count):
        total = round_to_bits(total + value, bits)
    return total


def pairwise_sum(value: float, count: int, bits: int) -> float:
    """Add ``count`` copies of ``value`` in pairs, then pairs of pairs, rounding each sum to ``bits`` bits.

    Every addition joins two partial sums of about the same size, so none is lost to a
    gap far larger than itself: the tree order most vectorized sums use.
    """
    sums = [round_to_bits(value, bits)] * count
    while len(sums) > 1:
        pairs = [round_to_bits(a + b, bits) for a, b in zip(sums[0::2], sums[1::2], strict=False)]
        sums = pairs + ([sums[-1]] if len(sums) % 2 else [])
    return sums[0]


@dataclass(frozen=True)
class Bfloat16:
    """What bfloat16 keeps of float32 (the range) and what it drops (the digits)."""

    square_of_row: float  # HALF_PRECISION_ROW[0]**2 in bfloat16: finite, unlike float16
    largest: float
    spacing_at_one: float  # the gap above 1.0: 2**-7
    running_sum: float  # SUM_LENGTH ones, summed one at a time in bfloat16
    float32_sum: float  # the same sum in float32

    @property
    def mean_square_ratio(self) -> float:
        """The mean square a bfloat16 accumulator reports for a row of ones, over the true one."""
        return self.running_sum / self.float32_sum


def bfloat16() -> Bfloat16:
    value = np.float32(HALF_PRECISION_ROW[0])
    largest, above_one = np.array([0x7F7F0000, 0x3F800000 + (1 << 16)], np.uint32).view(np.float32)
    return Bfloat16(
        square_of_row=float(to_bfloat16(to_bfloat16(value) ** 2)),
        largest=float(largest),
        spacing_at_one=float(above_one) - 1,  # the next bit pattern above 1.0
        running_sum=stalled_sum(1.0, SUM_LENGTH, BFLOAT16_SIGNIFICAND_BITS),
        float32_sum=float(np.sum(np.ones(SUM_LENGTH, np.float32))),  # the squares of a row of ones, in float32
    )
