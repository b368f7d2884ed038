"""The fast path: the same RMSNorm, computed one cache-sized block of rows at a time.

RMSNorm is memory-bound. A forward pass must read x once and write y once, so
copying x into a preallocated array is the limit on any machine. The reference
path in reference.py streams memory several times, with full-size temporaries for
x**2, x-hat and the output. Here the rows are taken a block at a time, a block
twice the L2 cache the machine reports (``block_bytes``), so that each block is
still in cache when it is read the second time:

* the sums of squares come from ``np.vecdot``, without a squared copy of x; a row
  wider than a chunk (``CHUNK``) is summed a chunk at a time and the chunks added
  in float64, so a float32 row of 10**7 elements still lands within an ulp or two;
* each row's 1/RMS is worked out in float64 and rounded once; rows wide enough
  (``FOLD_WIDTH``) join it with the gain into one factor, so each block is scaled
  by a single multiplication written straight into the output; narrower rows are
  scaled by 1/RMS and then by the gain, laid out as a block;
* an input of one block takes a short route with no more numpy calls than the
  formula as written, its 1/RMS in Python floats for up to ``FEW_ROWS`` rows.

The reference stays the authority. Every row's mean square is kept, and one test of
their range, after the last block, says whether any row needed more care (squares
that overflow or underflow, a factor 1/RMS * gain outside the normal range, NaN).
Those rows are redone by the reference arithmetic, after the reference's own checks,
so both paths raise the same errors.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from .checks import check_values, checked_request, output_dtype, require_finite_rows
from .errors import OutputArrayError, OutputDtypeError, OutputOverlapError, OutputShapeError
from .machine import cache_bytes
from .reference import DEFAULT_EPS, gradients, normalize, safe_floor

# Elements summed by one dot product, by itemsize; the chunks' sums are added in float64. Measured
# on random rows and on rows of a repeating pattern (whose rounding errors add up rather than
# cancel), a chunk this long is summed to within 1.5 and 3 units of its dtype's eps.
CHUNK = {2: 4096, 4: 4096, 8: 1024}
FEW_ROWS = 16  # up to this many rows, each row's 1/RMS costs less in Python floats than in numpy calls
FOLD_WIDTH = 2816  # elements: from this row width up, numpy builds 1/RMS times the gain as fast as a plain product
SCRATCH_SHARE = 32  # blocks: an input of fewer gets no block of scratch, which would be over 1/32 of its output
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


def worth_blocking(*arrays: object) -> bool:
    """The backward's blocks pay off for real-valued arrays of one shape larger than a block.

    Anything else (lists, small inputs, mismatched shapes, unsupported dtypes) takes
    the reference path, which also words every rejection.
    """
    first = arrays[0]
    same_kind = all(
        isinstance(array, np.ndarray) and array.dtype.kind in "biuf" and array.shape == np.shape(first)
        for array in arrays
    )
    return same_kind and first.nbytes > BLOCK_BYTES


def rms_norm_blocked(
    x: npt.ArrayLike,
    gain: npt.ArrayLike | None = None,
    eps: float = DEFAULT_EPS,
    out: np.ndarray | None = None,
    block_bytes: int = BLOCK_BYTES,
) -> np.ndarray:
    """RMSNorm of the last axis, written into ``out`` (a new array if None) a block of rows at a time.

    Beyond the output only row-sized scratch is allocated (block-sized where there
    is more than one block), except that an ``out`` whose rows are not contiguous in
    memory is staged through one full copy.
    """
    if _ordinary(x, gain, eps) and x.nbytes <= block_bytes and (out is None or _fits(out, x, gain)):
        y = _one_block(x, gain, eps, out)
        if y is not None:
            return y
    callers_gain = gain
    x, gain, eps = checked_request(x, gain, eps)
    out = _checked_out(out, x, callers_gain)
    result = out if out.flags.c_contiguous else np.empty(x.shape, out.dtype)
    width, working = x.shape[-1], gain.dtype
    if not x.size:
        return out
    scale = None if callers_gain is None else gain  # no gain: the factor is 1/RMS alone
    sources, targets = x.reshape(-1, width), result.reshape(-1, width)
    step = rows_per_block(x, working, block_bytes)
    factor = _Factor(scale, working, eps, width, room=len(sources) >= SCRATCH_SHARE * step)
    with np.errstate(all="ignore"):  # a row that overflows or underflows is found below and redone
        totals = _scale_blocks(sources, targets, factor, step)
        careful = _outside(totals, factor.low, factor.high)
        if careful is not None:
            check_values(x, eps)  # raises, naming the row, if the reference would
            rows = sources[careful].astype(working, copy=False)
            redone = normalize(rows, eps)[2]
            targets[careful] = redone if scale is None else redone * scale
    if result is not out:
        np.copyto(out, result)
    return out


def _ordinary(x: object, gain: object, eps: object) -> bool:
    """A float32 or float64 array, no gain or an array of its dtype and width, and a float eps in [0, inf).

    Such a request needs none of ``checked_request``'s conversions; these few tests
    cost less than its general ones, which is what small inputs are timed on.
    """
    return (
        type(x) is np.ndarray
        and x.dtype.char in "fd"
        and x.ndim > 0
        and x.shape[-1] > 0
        and type(eps) is float
        and 0.0 <= eps < math.inf
        and (gain is None or (type(gain) is np.ndarray and gain.dtype == x.dtype and gain.shape == x.shape[-1:]))
    )


def _one_block(x: np.ndarray, gain: np.ndarray | None, eps: float, out: np.ndarray | None) -> np.ndarray | None:
    """An ordinary input of one block, in no more numpy calls than the formula makes; None if anything needs care.

    y = (x * 1/RMS) * gain, as the reference orders it: in one block the second pass
    costs less than finding the gain's range, which joining 1/RMS and the gain would
    need. For a few rows, 1/RMS is worked out in Python floats, fewer calls than numpy
    takes. A gain whose squares do not add up to a finite sum, or a row outside the
    safe range, sends the request to the full path, which checks and words it.
    """
    width, dtype = x.shape[-1], x.dtype
    floor, biggest, chunk = _ORDINARY[dtype.char]
    shift, low = width * eps, width * floor
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is an infinite sum, found below
        if width <= chunk:
            sums = np.vecdot(x, x)
        else:
            sums = row_sums(x.reshape(-1, width), np.empty(x.size // width)).reshape(x.shape[:-1])
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
        inverse = np.sqrt(np.divide(width, totals), out=np.empty(totals.shape, dtype), casting="same_kind")[..., None]
    y = np.multiply(x, inverse, out=out)
    return y if gain is None else np.multiply(y, gain, out=y)


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


def _outside(totals: np.ndarray | list[float], low: float, high: float) -> np.ndarray | None:
    """The indices of rows whose S + d*eps lies outside [low, high] (NaN included), or None if there are none."""
    if isinstance(totals, list):
        if all(low <= total <= high for total in totals):  # False on NaN
            return None
        totals = np.array(totals)
    elif low <= np.minimum.reduce(totals) and np.maximum.reduce(totals) <= high:
        return None
    return np.flatnonzero(~((totals >= low) & (totals <= high)))


def _scale_blocks(sources: np.ndarray, targets: np.ndarray, factor: _Factor, step: int) -> np.ndarray:
    """Scale every row of ``sources`` into ``targets`` a block at a time; return each row's S + d*eps."""
    rows = len(sources)
    working = factor.dtype
    totals = np.empty(rows)  # float64: the range test after the last block reads them
    step = min(step, rows)
    inverse = np.empty(step, working)
    scratch = factor.scratch(step)
    converted = None if sources.dtype == working else np.empty((step, sources.shape[-1]), working)
    written = None if targets.dtype == working else np.empty((step, sources.shape[-1]), working)
    for span in _blocks(rows, step):
        n = span.stop - span.start
        block = sources[span]
        if converted is not None:
            block = converted[:n]
            np.copyto(block, sources[span], casting="unsafe")
        total = row_sums(block, totals[span], factor.shift)
        into = targets[span] if written is None else written[:n]
        factor.scale(block, total, inverse[:n], scratch, into)
        if written is not None:
            np.copyto(targets[span], into, casting="unsafe")
    return totals


def row_sums(block: np.ndarray, into: np.ndarray, plus: float = 0.0) -> np.ndarray:
    """Each row's sum of squares, plus ``plus``, in float64 ``into``; a row wider than a chunk goes chunk by chunk.

    Within a chunk the sum runs in the block's dtype (``np.vecdot``, a few ulps at
    most over ``CHUNK`` elements); the chunks' sums are added in float64, so a wide
    float32 row is summed as accurately as a short one.
    """
    width, chunk = block.shape[-1], CHUNK[block.dtype.itemsize]
    if width <= chunk:
        return np.add(np.vecdot(block, block), plus, out=into, dtype=np.float64)
    whole = width - width % chunk
    chunks = block[:, :whole].reshape(len(block), -1, chunk)
    np.add.reduce(np.vecdot(chunks, chunks), axis=-1, dtype=np.float64, out=into)
    if whole < width:
        tail = block[:, whole:]
        np.add(into, np.vecdot(tail, tail), out=into, dtype=np.float64)
    return np.add(into, plus, out=into) if plus else into


class _Factor:
    """The per-row factor 1/RMS = sqrt(d / (S + d*eps)), the gain, and the range of S + d*eps they are safe in.

    With S a row's sum of squares and d the width, 1/RMS = 1/sqrt(S/d + eps) =
    sqrt(d / (S + d*eps)), computed in float64 and rounded once to the working dtype.
    Rows at least ``FOLD_WIDTH`` wide join 1/RMS and the gain into one block-sized
    factor, so the block is scaled in one multiplication; narrower rows are scaled by
    1/RMS and then by the gain laid out as a block (``np.tile``), since numpy
    multiplies by a column of per-row numbers at half speed, and builds the joined
    factor no faster, for rows narrower than that. Either takes a block of scratch,
    so only an input of at least ``SCRATCH_SHARE`` blocks (``room``) gets one; a
    smaller one is scaled by 1/RMS, then by the gain as it is.

    A row may take this arithmetic when S + d*eps is finite, at least d times the
    reference's safe floor (no digits lost to underflow), and, where 1/RMS and the
    gain are joined, 1/RMS times every nonzero gain is a normal number:
    ``low <= S + d*eps <= high``; ``_outside`` finds the rows that are not.
    """

    def __init__(self, gain: np.ndarray | None, dtype: np.dtype, eps: float, width: int, room: bool = True):
        self.gain, self.dtype, self.width, self.room = gain, dtype, width, room
        self.shift = width * eps
        self.fold = gain is not None and room and width >= FOLD_WIDTH
        self.low, self.high = _safe_totals(dtype, width, gain if self.fold else None)

    def scratch(self, rows: int) -> np.ndarray | None:
        """What ``scale`` works in: room for the joined factor, the tiled gain, or nothing."""
        if self.gain is None or not self.room:
            return None
        return np.empty((rows, self.width), self.dtype) if self.fold else np.tile(self.gain, (rows, 1))

    def scale(self, block: np.ndarray, total: np.ndarray, inverse: np.ndarray, scratch, into: np.ndarray) -> None:
        """``into = block * 1/RMS * gain`` from each row's S + d*eps in ``total``; ``inverse`` receives 1/RMS."""
        column = np.sqrt(np.divide(self.width, total), out=inverse, casting="same_kind")[:, None]
        n = len(block)
        if self.fold:
            np.multiply(block, np.multiply(column, self.gain, out=scratch[:n]), out=into)
        else:
            np.multiply(block, column, out=into)
            if self.gain is not None:
                np.multiply(into, self.gain if scratch is None else scratch[:n], out=into)


def _safe_totals(dtype: np.dtype, width: int, gain: np.ndarray | None) -> tuple[float, float]:
    """The range of S + d*eps in which sqrt(d / (S + d*eps)) * gain is computed right in ``dtype``.

    1/RMS at most 1/sqrt(safe floor) keeps the squares' digits, at most max/|g| keeps
    the factor finite, and at least tiny/|g| (smallest nonzero gain) keeps it normal;
    the squares' sum itself must be finite in ``dtype``.
    """
    floor, tiny, biggest = _limits(dtype)
    largest = smallest = 1.0
    if gain is not None:
        magnitudes = np.abs(gain)
        largest = float(np.maximum.reduce(magnitudes))
        smallest = float(np.minimum.reduce(magnitudes))
        if smallest == 0.0:
            nonzero = magnitudes[magnitudes != 0]
            smallest = float(nonzero.min()) if nonzero.size else 1.0
            largest = largest or 1.0
    highest_inverse = min(biggest / largest, 1 / math.sqrt(floor))
    lowest_inverse = tiny / smallest
    return width / highest_inverse / highest_inverse, min(biggest, width / lowest_inverse / lowest_inverse)


@functools.cache
def _limits(dtype: np.dtype) -> tuple[float, float, float]:
    """The reference's safe floor for a mean square, and the smallest normal and largest finite ``dtype`` values."""
    info = np.finfo(dtype)
    return safe_floor(dtype), float(info.tiny), float(info.max)


# What _one_block looks up for float32 and float64, by dtype.char: the safe floor, the largest value, the chunk.
_ORDINARY = {
    char: (safe_floor(np.dtype(char)), float(np.finfo(char).max), CHUNK[np.dtype(char).itemsize]) for char in "fd"
}


def rms_norm_backward_blocked(
    x: npt.ArrayLike,
    gain: npt.ArrayLike | None,
    eps: float,
    grad_output: np.ndarray,
    block_bytes: int = BLOCK_BYTES,
) -> tuple[np.ndarray, np.ndarray]:
    """``(grad_x, grad_gain)`` as in ``rms_norm_backward``, block by block.

    With P = grad_output * x the two row sums the backward needs are matrix-vector
    products: sum_j P * gain gives mean(u * x-hat) and sum_i (1/RMS) * P gives grad_gain.
    ``grad_output`` must be an array of x's shape (``worth_blocking`` checks it).
    """
    x, gain, eps = checked_request(x, gain, eps)
    width, working, dtype = x.shape[-1], gain.dtype, output_dtype(x.dtype)
    grad_x, grad_gain = np.empty(x.shape, dtype), np.zeros(width, working)
    in_place = dtype == working  # each block's gradient is written straight into grad_x
    inputs, upstreams, targets = (array.reshape(-1, width) for array in (x, grad_output, grad_x))

    step = rows_per_block(x, working, block_bytes)
    product, factor = np.empty((step, width), working), np.empty((step, width), working)
    sums, inverse = np.empty(step), np.empty(step, working)
    converted_x = None if x.dtype == working else np.empty((step, width), working)
    converted_up = None if grad_output.dtype == working else np.empty((step, width), working)
    scratch = None if in_place else np.empty((step, width), working)
    in_range = _InRange(gain)

    @functools.cache
    def check_once() -> None:
        check_values(x, eps)
        require_finite_rows(grad_output, "grad_output")

    with np.errstate(all="ignore"):  # every overflow and underflow is looked at below
        for rows in _blocks(targets.shape[0], step):
            block = _in_dtype(inputs[rows], working, converted_x)
            upstream = _in_dtype(upstreams[rows], working, converted_up)
            n = len(block)
            result = targets[rows] if in_place else scratch[:n]
            totals = row_sums(block, sums[:n], width * eps)
            inverse_rms = np.sqrt(np.divide(width, totals), out=inverse[:n], casting="same_kind")
            np.multiply(upstream, block, out=product[:n])
            through_gain = product[:n] @ gain
            if in_range(inverse_rms) and np.isfinite(through_gain).all():
                grad_gain += inverse_rms @ product[:n]
                projection = inverse_rms * through_gain / width  # mean(u * x-hat)
                np.multiply(inverse_rms[:, None], gain, out=factor[:n])
                np.multiply(upstream, factor[:n], out=result)  # r * u
                np.multiply(block, (inverse_rms * inverse_rms * projection)[:, None], out=product[:n])
                np.subtract(result, product[:n], out=result)  # r * (u - x-hat * projection)
            else:
                check_once()  # raises, naming the row, if the reference would
                block_grad_x, block_grad_gain = gradients(block, gain, eps, upstream)
                result[...] = block_grad_x
                grad_gain += block_grad_gain
            if not in_place:
                np.copyto(targets[rows], result, casting="same_kind")

    return grad_x, grad_gain.astype(dtype, copy=False)


class _InRange:
    """Whether every row of a block can take the blocked arithmetic, judged by its 1/RMS.

    A row qualifies when its mean square plus eps is finite and at least the
    reference's safe floor (no overflow, no digits lost to underflow), and when
    1/RMS times every nonzero gain is a normal number. NaN never qualifies.
    """

    def __init__(self, gain: np.ndarray):
        info = np.finfo(gain.dtype)
        magnitudes = np.abs(gain[gain != 0])
        smallest, largest = (magnitudes.min(), magnitudes.max()) if magnitudes.size else (1.0, 1.0)
        self.low = info.tiny / smallest
        self.high = min(info.max / largest, 1 / np.sqrt(safe_floor(gain.dtype)))

    def __call__(self, inverse_rms: np.ndarray) -> bool:
        return bool(self.low <= inverse_rms.min() and inverse_rms.max() <= self.high)  # False on NaN


def _checked_out(out: np.ndarray | None, x: np.ndarray, gain: object) -> np.ndarray:
    """A new output array, or the caller's ``out`` once it is known to fit."""
    dtype = output_dtype(x.dtype)
    if out is None:
        return np.empty(x.shape, dtype)
    if not isinstance(out, np.ndarray):
        raise OutputArrayError(f"out is a {type(out).__name__}; expected a numpy array to write the result into")
    if out.shape != x.shape:
        raise OutputShapeError(f"out has shape {out.shape} but the input has shape {x.shape}; expected equal shapes")
    if out.dtype != dtype:
        raise OutputDtypeError(
            f"out has dtype {out.dtype}, but a {x.dtype} input gives {dtype}; expected an out of dtype {dtype}"
        )
    if not out.flags.writeable:
        raise OutputArrayError("out is read-only; expected a writeable array")
    for name, array in (("input", x), ("gain", gain)):
        if isinstance(array, np.ndarray) and np.shares_memory(out, array):
            raise OutputOverlapError(
                f"out shares memory with the {name}; expected a separate array, since the {name} is never modified"
            )
    return out


def rows_per_block(x: np.ndarray, working: np.dtype, block_bytes: int) -> int:
    """Rows per block: as many as fit in ``block_bytes`` of the compute dtype, and at least one."""
    return max(1, block_bytes // (x.shape[-1] * working.itemsize))


def _blocks(rows: int, step: int) -> Iterator[slice]:
    for start in range(0, rows, step):
        yield slice(start, min(start + step, rows))


def _in_dtype(block: np.ndarray, dtype: np.dtype, scratch: np.ndarray | None) -> np.ndarray:
    """``block`` in ``dtype``: itself when it already is, else converted into scratch."""
    if block.dtype == dtype:
        return block
    converted = scratch[: len(block)]
    np.copyto(converted, block, casting="unsafe")
    return converted
