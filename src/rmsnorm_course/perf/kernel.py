"""The fast path: reference.py's arithmetic, computed one cache-sized block of rows at a time.

RMSNorm is memory-bound. A forward pass must read x once and write y once, so
copying x into a preallocated array is the limit on any machine. The formula-shaped
code in reference.py streams memory several times, with full-size temporaries for
the sums, x-hat and the output. Here the rows are taken a block at a time, a block
twice the L2 cache the machine reports (``block_bytes``), so that each block is still
in cache when it is read the second time. Each block takes the reference's steps,
in the reference's own functions, written into scratch and the output rather than
into new arrays: each row's sum of squares (``row_dots``), its 1/RMS in float64
rounded once (``inverse_rms``), x * 1/RMS written straight into the output, then the
gain. An input of one block takes a short route with no more numpy calls than the
formula as written, its 1/RMS in Python floats for up to ``FEW_ROWS`` rows: the same
float64 arithmetic, rounded once.

Every row's S + d*eps is kept, and one test of their range after the last block
(``outside``) finds the rows that need more care. Those are redone as the reference
redoes them, after the reference's own checks, so both paths raise the same errors
and return the same bits.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from ..core.checks import as_real_array, check_values, checked_out, checked_request, output_dtype, validated_upstream
from ..core.reference import (
    CHUNK,
    DEFAULT_EPS,
    inverse_rms,
    normalize_rescaled,
    outside,
    projection_scale,
    row_dots,
    safe_floor,
    safe_totals,
)
from .caches import cache_bytes

FEW_ROWS = 16  # up to this many rows, each row's 1/RMS costs less in Python floats than in numpy calls
CACHE_MULTIPLE = 2  # a block is this many times one core's L2 cache (``make bench`` sweeps the choice)
BLOCK_RANGE = (256 * 1024, 8 * 1024 * 1024)  # bytes: a block's fixed cost stays small, and it stays in cache


def block_bytes(cache: int | None = None) -> int:
    """A block's bytes: ``CACHE_MULTIPLE`` times one core's L2 cache, within ``BLOCK_RANGE``; 1 MiB if unknown.

    A block must stay in cache between its two reads, and be large enough that its
    fixed cost (a few numpy calls, about 10 us) is small beside its streaming time.
    """
    cache = cache_bytes(2) if cache is None else cache
    low, high = BLOCK_RANGE
    return 2**20 if not cache else min(max(CACHE_MULTIPLE * cache, low), high)


BLOCK_BYTES = block_bytes()
BACKWARD_SHARE = 8  # backward blocks are this share of the forward's: x, grad_output, x-hat, grad_x stay in cache


def backward_block_bytes() -> int:
    """The backward's block: ``BLOCK_BYTES / BACKWARD_SHARE``, and no smaller than ``BLOCK_RANGE`` allows."""
    return max(BLOCK_BYTES // BACKWARD_SHARE, BLOCK_RANGE[0])


BACKWARD_BLOCKS_FROM = 64 * 1024  # bytes: from here up the backward's reused scratch beats the formula's temporaries


def worth_blocking(*arrays: object) -> bool:
    """The backward's blocks pay off for real-valued arrays of one shape, from ``BACKWARD_BLOCKS_FROM`` bytes up.

    Anything else (lists, small inputs, mismatched shapes, unsupported dtypes) takes
    the reference path, which also words every rejection. Up to one block both paths
    give the same bits, so the choice is one of speed alone.
    """
    first = arrays[0]
    same_kind = all(
        isinstance(array, np.ndarray) and array.dtype.kind in "biuf" and array.shape == np.shape(first)
        for array in arrays
    )
    return same_kind and first.nbytes >= BACKWARD_BLOCKS_FROM


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
    ``block_bytes`` defaults to ``BLOCK_BYTES``, the size this machine's cache gives.
    """
    size = BLOCK_BYTES if block_bytes is None else block_bytes
    if _ordinary(x, gain, eps) and x.nbytes <= size and _fits(out, x, gain):
        y = _one_block(x, gain, eps, out)
        if y is not None:
            return y
    callers_gain = gain
    x, gain, eps = checked_request(x, gain, eps)
    out = checked_out(out, x, callers_gain)
    result = out if out.flags.c_contiguous else np.empty(x.shape, out.dtype)
    if not x.size:
        return out
    width, working = x.shape[-1], gain.dtype
    scale = None if callers_gain is None else gain  # no gain: y is x-hat
    sources, targets = x.reshape(-1, width), result.reshape(-1, width)
    with np.errstate(all="ignore"):  # a row that overflows or underflows is found below and redone
        totals = _scale_blocks(sources, targets, scale, working, eps, rows_per_block(x, working, size))
        careful = outside(totals, *safe_totals(working, width))
        if careful is not None:
            check_values(x, eps)  # raises, naming the row, if the reference would
            redone = normalize_rescaled(sources[careful].astype(working, copy=False), eps)[2]
            targets[careful] = redone if scale is None else redone * scale
    if result is not out:
        np.copyto(out, result)
    return out


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


def _one_block(x: np.ndarray, gain: np.ndarray | None, eps: float, out: np.ndarray | None) -> np.ndarray | None:
    """An ordinary input of one block, in no more numpy calls than the formula makes; None if anything needs care.

    The reference's steps: the sums as ``row_dots`` takes them, 1/RMS in float64 (for a
    few rows in Python floats, fewer calls than numpy takes) rounded once, y = (x * 1/RMS)
    * gain. An eps the dtype cannot hold, a gain whose squares do not add up to a finite
    sum, or a row outside the safe range, sends the request to the full path, which
    checks and words it.
    """
    width, dtype = x.shape[-1], x.dtype
    floor, biggest, chunk, tiniest = _ORDINARY[dtype.char]
    if eps and not tiniest <= eps <= biggest:
        return None
    eps = float(dtype.type(eps))  # eps as the dtype holds it
    shift, low = width * eps, width * floor  # low as safe_totals has it
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is an infinite sum, found below
        if width <= chunk:
            sums = np.vecdot(x, x)
        else:
            rows = x.reshape(-1, width)
            sums = row_dots(rows, rows).reshape(x.shape[:-1])
        if gain is not None and not math.isfinite(np.vecdot(gain, gain)):
            return None
    if x.size <= FEW_ROWS * width:
        inverse = []
        for total in sums.ravel().tolist():
            total += shift
            if not low <= total <= biggest:  # False on NaN
                return None
            inverse.append(math.sqrt(width / total))
        inverse = inverse[0] if len(inverse) == 1 else np.array(inverse, dtype).reshape(*x.shape[:-1], 1)
    else:
        totals = np.add(sums, shift, dtype=np.float64)
        if not (low <= np.minimum.reduce(totals, None) and np.maximum.reduce(totals, None) <= biggest):
            return None
        inverse = inverse_rms(totals, width, dtype)[..., None]
    y = np.multiply(x, inverse, out=out)
    return y if gain is None else np.multiply(y, gain, out=y)


# What _one_block looks up by dtype.char: the safe floor, the largest value, the chunk, the least positive value.
_ORDINARY = {
    char: (safe_floor(info.dtype), float(info.max), CHUNK[info.dtype.itemsize], float(info.smallest_subnormal))
    for char, info in ((char, np.finfo(char)) for char in "fd")
}


def _fits(out: object, x: np.ndarray, gain: np.ndarray | None) -> bool:
    """No ``out``, or one ``_checked_out`` surely accepts, asked without raising (anything in doubt goes there)."""
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
    for span in _blocks(rows, step):
        n = span.stop - span.start
        block = _in_dtype(sources[span], converted)
        total = row_dots(block, block, totals[span], width * eps)
        into = targets[span] if written is None else written[:n]
        np.multiply(block, inverse_rms(total, width, working, inverse[:n])[:, None], out=into)
        if gain is not None:
            np.multiply(into, gain, out=into)
        if written is not None:
            np.copyto(targets[span], into, casting="unsafe")
    return totals


def rms_norm_backward_blocked(
    x: npt.ArrayLike,
    gain: npt.ArrayLike | None,
    eps: float,
    grad_output: np.ndarray,
    block_bytes: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(grad_x, grad_gain)`` as in ``rms_norm_backward``, block by block, in ``reference.gradients``'s steps.

    grad_x is the reference's bit for bit, and so is grad_gain of one block. grad_gain sums
    every row: here each block's rows in the compute dtype and the blocks' sums in float64,
    there all rows in the compute dtype, so beyond one block the two agree to rounding.
    ``grad_output`` must be an array of x's shape (``worth_blocking`` checks it).
    """
    size = backward_block_bytes() if block_bytes is None else block_bytes
    x, gain, eps = checked_request(x, gain, eps)
    grad_output = as_real_array(grad_output, "grad_output")  # a masked one is refused, not read without its mask
    width, working, dtype = x.shape[-1], gain.dtype, output_dtype(x.dtype)
    grad_x, grad_gain = np.empty(x.shape, dtype), np.zeros(width)
    in_place = dtype == working  # each block's gradient is written straight into grad_x
    inputs, upstreams, targets = (array.reshape(-1, width) for array in (x, grad_output, grad_x))

    step = max(1, min(rows_per_block(x, working, size), targets.shape[0]))
    normalized = np.empty((step, width), working)
    sums, dots, inverse, scale = np.empty(step), np.empty(step), np.empty(step, working), np.empty(step, working)
    converted_x = None if _as_they_are(inputs, working) else np.empty((step, width), working)
    converted_up = None if grad_output.dtype == working else np.empty((step, width), working)
    scratch = None if in_place else np.empty((step, width), working)
    low, high = safe_totals(working, width)

    @functools.cache
    def check_once() -> None:
        check_values(x, eps)
        validated_upstream(grad_output, x)

    with np.errstate(all="ignore"):  # every overflow and underflow is looked at below
        for rows in _blocks(targets.shape[0], step):
            block = _in_dtype(inputs[rows], converted_x)
            upstream = _in_dtype(upstreams[rows], converted_up)
            n = len(block)
            totals = row_dots(block, block, sums[:n], width * eps)
            r = inverse_rms(totals, width, working, inverse[:n])
            xhat = np.multiply(block, r[:, None], out=normalized[:n])
            careful = outside(totals, low, high)
            if careful is not None:
                check_once()  # raises, naming the row, if the reference would
                _, redone_r, redone = normalize_rescaled(block[careful], eps)
                r[careful], xhat[careful] = redone_r[:, 0], redone
            result = targets[rows] if in_place else scratch[:n]
            u = np.multiply(upstream, gain, out=result)
            products = row_dots(u, xhat, dots[:n])
            if not np.isfinite(np.add.reduce(products)):
                check_once()  # a NaN or infinity in grad_output, or one that did not fit the compute dtype
            grad_gain += np.einsum("ij,ij->j", upstream, xhat)
            c = projection_scale(products, r, width, scale[:n])[:, None]
            np.multiply(u, r[:, None], out=result)  # u * r
            np.subtract(result, np.multiply(xhat, c, out=xhat), out=result)  # u * r - x-hat * c
            if not in_place:
                np.copyto(targets[rows], result, casting="same_kind")
        return grad_x, grad_gain.astype(dtype)


def rows_per_block(x: np.ndarray, working: np.dtype, block_bytes: int) -> int:
    """Rows per block: as many as fit in ``block_bytes`` of the compute dtype, and at least one."""
    return max(1, block_bytes // (x.shape[-1] * working.itemsize))


def _blocks(rows: int, step: int) -> Iterator[slice]:
    for start in range(0, rows, step):
        yield slice(start, min(start + step, rows))


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
