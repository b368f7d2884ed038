"""The cache-blocked kernel: RMSNorm's forward a block of rows at a time, for arrays beyond the caches.

RMSNorm is memory-bound. A forward pass must read x once and write y once, so
copying x into a preallocated array is the limit on any machine. The formula as
written streams memory several times, with full-size temporaries for the sums,
x-hat and the output. Here the rows are taken a block at a time, a block the size of
the L2 cache the machine reports (``block_bytes``), so that a block of x is still
in the caches when it is read again (a third of L2, small enough that x's block and
the output's both fit in it, timed 1.3 times as long at 128 MiB on a 512 KiB L2). A
block takes three trips: each row's sum of squares (core's ``row_dots``) and its
1/RMS in float64 rounded once (core's ``inverse_rms``); each row's factor 1/RMS *
gain, written into the output; x times it, there. Joined so, the output is written
by numpy's fastest loops, over arrays of one shape (rows narrower than
``JOIN_WIDTH`` build the factor from the gain tiled as a block, a fourth trip, where
the input is ``SCRATCH_SHARE`` blocks or more).

An input of up to two L2 caches (``whole_bytes``) is taken whole, in no more numpy
calls than the formula as written (``_taken_whole``).

Every row's S + d*eps is kept, and one test of their range after the last block
(core's ``outside``) finds the rows that need more care: squares that overflow or
underflow, a factor 1/RMS * gain that would not be a normal number, NaN. Those are
redone by core's own arithmetic (``normalize``), after core's own checks, so the
kernel refuses what core refuses, with core's messages, and agrees with core to
within a few units in the last place (the factor rounds 1/RMS * gain before x
multiplies it, where core rounds x * 1/RMS first).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..core.checks import check_values, checked_out, checked_request
from ..core.errors import RMSNormError
from ..core.reference import (
    CHUNK,
    DEFAULT_EPS,
    inverse_rms,
    normalize,
    outside,
    row_dots,
    safe_floor,
    safe_totals,
)
from .caches import cache_bytes

FEW_ROWS = 16  # up to this many rows, each row's 1/RMS costs less in Python floats than in numpy calls
BLOCK_RANGE = (128 * 1024, 4 * 1024 * 1024)  # bytes: a block's fixed cost stays small, and it stays in cache
WHOLE_CACHES = 2  # an input of at most this many L2 caches is taken whole, in one block: faster there than blocks
JOIN_WIDTH = 2816  # elements: from this row width up, numpy builds 1/RMS * gain as fast as it copies
SCRATCH_SHARE = 32  # blocks: an input of fewer gets no block of scratch, which would be over 1/32 of its output
UNKNOWN_CACHE = 1024 * 1024  # the L2 cache a machine that reports none is taken to have


def block_bytes(cache: int | None = None) -> int:
    """A block's bytes: one core's L2 cache, within ``BLOCK_RANGE``.

    A block of x and its block of output must stay in cache between their visits, and a
    block must be large enough that its fixed cost (a few numpy calls, a few microseconds)
    is small beside its streaming time. ``make bench`` sweeps the choice.
    """
    low, high = BLOCK_RANGE
    return min(max(_l2(cache), low), high)


def whole_bytes(cache: int | None = None) -> int:
    """The largest input taken whole, in one block: ``WHOLE_CACHES`` times one core's L2 cache.

    Up to there the whole-array steps (the sums, then x * 1/RMS, then the gain) stream
    from cache, and the blocks' fixed costs would outweigh what they save. At most two of
    the largest blocks, whatever the cache reported.
    """
    return min(WHOLE_CACHES * _l2(cache), 2 * BLOCK_RANGE[1])


def _l2(cache: int | None) -> int:
    """``cache``, or where it is None the L2 cache this machine reports; ``UNKNOWN_CACHE`` where that is none."""
    return (cache_bytes(2) if cache is None else cache) or UNKNOWN_CACHE


BLOCK_BYTES, WHOLE_BYTES = block_bytes(), whole_bytes()


def rms_norm_blocked(
    x: npt.ArrayLike,
    gain: npt.ArrayLike | None = None,
    eps: float = DEFAULT_EPS,
    out: np.ndarray | None = None,
    block_bytes: int | None = None,
) -> np.ndarray:
    """RMSNorm of the last axis, written into ``out`` (a new array if None) a block of rows at a time.

    Beyond the output only block-sized scratch is allocated, except that an ``out``
    whose rows are not contiguous in memory is staged through one full copy.
    ``block_bytes`` defaults to ``BLOCK_BYTES``, the size this machine's cache gives, and
    an input of at most ``WHOLE_BYTES`` is then taken whole; a ``block_bytes`` given
    takes whole an input of at most one such block.

    ``out`` is written as the blocks go, not in one step: an interrupted call (Ctrl+C)
    leaves some of its rows written and the rest as they were, and an input refused for
    its values (a NaN, or an all-zero row at eps 0), found once the blocks are written,
    leaves it holding what those blocks gave. Core's ``rms_norm(out=)`` writes in one
    step, for a caller who needs ``out`` whole or untouched.
    """
    size, whole = (BLOCK_BYTES, WHOLE_BYTES) if block_bytes is None else (block_bytes, block_bytes)
    if _ordinary(x, gain, eps) and x.nbytes <= whole and _fits(out, x, gain):
        y = _taken_whole(x, gain, eps, out)
        if y is not None:
            return y
    callers_gain = gain
    x, gain, eps = checked_request(x, gain, eps)
    out = _checked_out(out, x, callers_gain, eps)
    result = out if out.flags.c_contiguous else np.empty(x.shape, out.dtype)
    if not x.size:
        return out
    width, working = x.shape[-1], gain.dtype
    scale = None if callers_gain is None else gain  # no gain: y is x-hat
    sources, targets = x.reshape(-1, width), result.reshape(-1, width)
    with np.errstate(all="ignore"):  # a row that overflows or underflows is found below and redone
        totals = _scale_blocks(sources, targets, scale, working, eps, rows_per_block(x, working, size))
        careful = outside(totals, *_joined_totals(working, width, scale))
        if careful is not None:
            check_values(x, eps)  # raises, naming the row, as core would
            redone = normalize(sources[careful].astype(working, copy=False), eps)[2]
            targets[careful] = redone if scale is None else redone * scale
    if result is not out:
        np.copyto(out, result)
    return out


def _checked_out(out: np.ndarray | None, x: np.ndarray, gain: object, eps: float) -> np.ndarray:
    """Core's ``checked_out``, in core's order: an input refused for its values is refused for them first."""
    try:
        return checked_out(out, x, gain)
    except RMSNormError:
        check_values(x, eps)
        raise


def _ordinary(x: object, gain: object, eps: object) -> bool:
    """A C-ordered float32 or float64 array, no gain or one of its dtype and width, and a float eps in [0, inf).

    Such a request needs none of ``checked_request``'s conversions; these few tests
    cost less than its general ones, which is what small inputs are timed on.
    """
    return (
        type(x) is np.ndarray
        and x.dtype.char in "fd"
        and x.ndim > 0
        and x.shape[-1] > 0
        and x.flags.c_contiguous
        and type(eps) is float
        and 0.0 <= eps < math.inf
        and (gain is None or (type(gain) is np.ndarray and gain.dtype == x.dtype and gain.shape == x.shape[-1:]))
    )


def _taken_whole(x: np.ndarray, gain: np.ndarray | None, eps: float, out: np.ndarray | None) -> np.ndarray | None:
    """An ordinary input taken whole, in no more numpy calls than the formula makes; None if anything needs care.

    Core's steps: the sums as ``row_dots`` takes them, 1/RMS in float64 (for a few rows
    in Python floats, fewer calls than numpy takes) rounded once, y = (x * 1/RMS) * gain.
    An eps the dtype cannot hold, a gain whose squares do not add up to a finite sum, or
    a row outside the safe range, sends the request to the full path, which checks and
    words it.
    """
    width, dtype = x.shape[-1], x.dtype
    floor, biggest, chunk, tiniest = _ORDINARY[dtype.char]
    if eps and not tiniest <= eps <= biggest:
        return None
    eps = float(dtype.type(eps))  # eps as the dtype holds it
    shift, low = width * eps, width * floor  # low as safe_totals has it
    with np.errstate(over="ignore", invalid="ignore"):  # an infinite sum is found below; a gain may overflow y
        if width <= chunk:
            sums = np.vecdot(x, x)
        else:
            rows = x.reshape(-1, width)
            sums = row_dots(rows, rows).reshape(x.shape[:-1])
        if gain is not None and not math.isfinite(np.vecdot(gain, gain)):
            return None
        inverses = _few_inverses if x.size <= FEW_ROWS * width else _many_inverses
        inverse = inverses(sums, shift, low, biggest, width, dtype)
        if inverse is None:
            return None
        y = np.multiply(x, inverse, out=out)
        return y if gain is None else np.multiply(y, gain, out=y)


def _few_inverses(
    sums: np.ndarray, shift: float, low: float, high: float, width: int, dtype: np.dtype
) -> float | np.ndarray | None:
    """Each row's 1/RMS in Python floats, rounded once to ``dtype``; None if any S + d*eps lies outside [low, high].

    One row's stays a Python float, which numpy rounds to ``dtype`` as it multiplies.
    """
    inverse = []
    for total in sums.ravel().tolist():
        total += shift
        if not low <= total <= high:  # False on NaN
            return None
        inverse.append(math.sqrt(width / total))
    return inverse[0] if len(inverse) == 1 else np.array(inverse, dtype).reshape(*sums.shape, 1)


def _many_inverses(
    sums: np.ndarray, shift: float, low: float, high: float, width: int, dtype: np.dtype
) -> np.ndarray | None:
    """Each row's 1/RMS as core's ``inverse_rms`` has it, a column; None if any S + d*eps lies outside [low, high]."""
    totals = np.add(sums, shift, dtype=np.float64)
    if not (low <= np.minimum.reduce(totals, None) and np.maximum.reduce(totals, None) <= high):
        return None
    return inverse_rms(totals, width, dtype)[..., None]


# What _taken_whole looks up by dtype.char: the safe floor, the largest value, the chunk, the least positive value.
_ORDINARY = {
    char: (safe_floor(info.dtype), float(info.max), CHUNK[info.dtype.itemsize], float(info.smallest_subnormal))
    for char, info in ((char, np.finfo(char)) for char in "fd")
}


def _fits(out: object, x: np.ndarray, gain: np.ndarray | None) -> bool:
    """No ``out``, or one ``checked_out`` surely accepts, asked without raising (anything in doubt goes there)."""
    return out is None or (
        type(out) is np.ndarray
        and out.shape == x.shape
        and out.dtype == x.dtype
        and out.flags.writeable
        and not np.may_share_memory(out, x)
        and (gain is None or not np.may_share_memory(out, gain))
    )


def _scale_blocks(
    sources: np.ndarray, targets: np.ndarray, gain: np.ndarray | None, working: np.dtype, eps: float, step: int
) -> np.ndarray:
    """Write each row of ``sources``, normalized and scaled, into ``targets`` by blocks; return each S + d*eps."""
    rows, width = sources.shape
    totals = np.empty(rows)  # float64: the range test after the last block reads them
    step = min(step, rows)
    inverse = np.empty(step, working)
    converted = None if _as_they_are(sources, working) else np.empty((step, width), working)
    written = None if targets.dtype == working else np.empty((step, width), working)
    narrow = gain is not None and width < JOIN_WIDTH and rows >= SCRATCH_SHARE * step
    tiled = np.tile(gain, (step, 1)) if narrow else None
    for start in range(0, rows, step):
        span = slice(start, min(start + step, rows))
        n = span.stop - start
        block = _in_dtype(sources[span], converted)
        total = row_dots(block, block, totals[span], width * eps)
        column = inverse_rms(total, width, working, inverse[:n])[:, None]
        into = targets[span] if written is None else written[:n]
        _factors(column, gain, tiled, into)
        np.multiply(into, block, out=into)
        if written is not None:
            np.copyto(targets[span], into, casting="unsafe")
    return totals


def _factors(column: np.ndarray, gain: np.ndarray | None, tiled: np.ndarray | None, into: np.ndarray) -> None:
    """Write each row's factor 1/RMS * gain into ``into``: one product, or a copy and a product with ``tiled``.

    Both give the same bits. Rows narrower than ``JOIN_WIDTH`` take the gain tiled as a
    block where the input has room for one (``SCRATCH_SHARE``), since numpy multiplies a
    column by a row at a third of its speed there.
    """
    if tiled is None and gain is not None:
        np.multiply(column, gain, out=into)
        return
    np.copyto(into, column)
    if tiled is not None:
        np.multiply(into, tiled[: len(into)], out=into)


def _joined_totals(working: np.dtype, width: int, gain: np.ndarray | None) -> tuple[float, float]:
    """The range of S + d*eps in which ``_scale_blocks`` is right: core's ``safe_totals``, and for a gain, narrower.

    With a gain, 1/RMS = sqrt(d / (S + d*eps)) times every gain coordinate must be a
    normal number, with a factor of two to spare for rounding: 1/RMS * max|g| at most
    half the largest value, so S + d*eps >= d * (2 max|g| / largest)**2, and 1/RMS times
    the least nonzero |g| at least twice the least normal value, so S + d*eps <= d *
    (least |g| / (2 * least normal))**2.
    """
    low, high = safe_totals(working, width)
    magnitudes = None if gain is None else np.abs(gain[gain != 0])
    if magnitudes is None or not magnitudes.size:  # no gain, or zeros, whose products are zeros
        return low, high
    info = np.finfo(working)
    above = 2 * float(np.maximum.reduce(magnitudes)) / float(info.max)
    below = float(np.minimum.reduce(magnitudes)) / (2 * float(info.tiny))  # may be inf: no limit then
    return max(low, width * above * above), min(high, width * below * below)


def rows_per_block(x: np.ndarray, working: np.dtype, block_bytes: int) -> int:
    """Rows per block: as many as fit in ``block_bytes`` of the compute dtype, and at least one."""
    return max(1, block_bytes // (x.shape[-1] * working.itemsize))


def _as_they_are(rows: np.ndarray, working: np.dtype) -> bool:
    """Rows the arithmetic can read in place: in the compute dtype, each row contiguous, as ``row_dots`` needs."""
    return rows.dtype == working and rows.strides[-1] == rows.itemsize


def _in_dtype(block: np.ndarray, scratch: np.ndarray | None) -> np.ndarray:
    """``block`` itself, or, where there is scratch, converted and copied into it."""
    if scratch is None:
        return block
    converted = scratch[: len(block)]
    np.copyto(converted, block, casting="unsafe")
    return converted
