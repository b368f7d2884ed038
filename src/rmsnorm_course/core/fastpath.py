"""The fast path: the same RMSNorm, computed one cache-sized block of rows at a time.

RMSNorm is memory-bound. A forward pass must read x once and write y once, so
copying x into a preallocated array is the limit on any machine. The reference
path in reference.py streams memory several times, with full-size temporaries for
x**2, x-hat and the output. Here the rows are taken a block at a time, small
enough to stay in cache, so every temporary is block-sized:

* the mean squares come from ``np.vecdot``, without a squared copy of x;
* 1/RMS and the gain are joined into one block-sized factor, so y = x * factor
  is a single elementwise product;
* when the output has the compute dtype, x is first copied into it (a plain copy
  is the fastest way through memory) and each block is then scaled in place.

The reference stays the authority. A block where any row needs more care (squares
that overflow or underflow, or a factor 1/RMS * gain outside the normal range)
goes through the reference arithmetic, and an input the reference would reject is
handed to the reference's own checks, so both paths raise the same errors.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Iterator

import numpy as np
import numpy.typing as npt

from .checks import check_values, checked_request, output_dtype, require_finite_rows
from .errors import OutputArrayError, OutputDtypeError, OutputOverlapError, OutputShapeError
from .reference import DEFAULT_EPS, gradients, normalize, safe_floor

BLOCK_BYTES = 1024 * 1024  # a block and its output stay in cache, and its fixed cost is a few microseconds
FEW_ROWS = 8  # up to this many rows, each row's 1/RMS costs less in Python floats than in numpy calls


def worth_blocking(*arrays: object) -> bool:
    """Blocks pay off for real-valued arrays of one shape larger than a block.

    Anything else (lists, small inputs, mismatched shapes, unsupported dtypes) takes
    the reference path, which also words every rejection.
    """
    first = arrays[0]
    same_kind = all(
        isinstance(array, np.ndarray) and array.dtype.kind in "biuf" and array.shape == np.shape(first)
        for array in arrays
    )
    return same_kind and first.nbytes > BLOCK_BYTES


def rms_norm_small(x: object, gain: object, eps: object) -> np.ndarray | None:
    """The cheapest correct route for an ordinary request of at most two blocks; None sends it down the full path.

    It takes float32 or float64 arrays of at most ``2 * BLOCK_BYTES``, no gain or a
    gain of their dtype and shape (d,) whose sum is finite, and a float eps in
    [0, inf): straight-line numpy, a few calls fewer than the formula as written,
    with no error state to set up, since the one step that can overflow is an
    ``np.einsum``, which reports an overflow only as an infinite result.
    A row whose mean square plus eps is not finite, or so small that its squares
    lose digits, sends the whole request to the full path, whose checks raise
    what the reference would.
    """
    if not (type(x) is np.ndarray and x.dtype.char in "fd" and type(eps) is float and 0.0 <= eps < math.inf):
        return None
    if not (x.ndim and x.size and x.nbytes <= 2 * BLOCK_BYTES):
        return None
    if gain is not None and not (
        type(gain) is np.ndarray
        and gain.dtype == x.dtype
        and gain.shape == x.shape[-1:]
        and math.isfinite(np.add.reduce(gain))  # a finite sum has no NaN or infinity in it
    ):
        return None
    sums = np.einsum("...j,...j->...", x, x)  # unlike vecdot, never warns: an overflow is an infinite sum
    inverse_rms = _inverse_rms(np.asarray(sums), x.shape[-1], eps)
    if inverse_rms is None:
        return None
    y = np.multiply(x, inverse_rms)
    return y if gain is None else np.multiply(y, gain, out=y)


def rms_norm_blocked(
    x: npt.ArrayLike,
    gain: npt.ArrayLike | None = None,
    eps: float = DEFAULT_EPS,
    out: np.ndarray | None = None,
    block_bytes: int = BLOCK_BYTES,
) -> np.ndarray:
    """RMSNorm of the last axis, written into ``out`` (a new array if None) a block of rows at a time.

    An input of at most two blocks is one block. Beyond the output only row-sized
    scratch is allocated (block-sized where the dtype is converted), except that an
    ``out`` whose rows are not contiguous in memory is staged through one full copy.
    """
    callers_gain = gain
    x, gain, eps = checked_request(x, gain, eps)
    scale = None if callers_gain is None else gain
    working = gain.dtype
    out = _checked_out(out, x, callers_gain)
    result = out if out.flags.c_contiguous else np.empty(x.shape, out.dtype)
    checked = False

    with np.errstate(all="ignore"):  # an overflow or underflow sends its block to the reference
        for source, target in _row_blocks(x, result, rows_per_block(x, working, block_bytes)):
            block = source.astype(working, copy=False)
            into = target if target.dtype == working else np.empty(block.shape, working)
            inverse_rms = _inverse_rms(np.asarray(np.vecdot(block, block)), block.shape[-1], eps)
            if inverse_rms is not None:
                np.multiply(block, inverse_rms, out=into)
            else:
                if not checked:  # raises, naming the row, if the reference would
                    check_values(x, eps)
                    checked = True
                into[...] = normalize(block, eps)[2]
            if scale is not None:
                into *= scale
            if into is not target:
                np.copyto(target, into, casting="unsafe")

    if result is not out:
        np.copyto(out, result)
    return out


def _inverse_rms(sums: np.ndarray, width: int, eps: float) -> np.ndarray | float | None:
    """1/sqrt(mean(x**2) + eps) of every row (shape [..., 1]) from its sum of squares, or None if a row needs care.

    With S the sum of squares and d the width, 1/sqrt(S/d + eps) = sqrt(d) / sqrt(S + d*eps).
    A row needs care when S + d*eps is not finite, or so small that its squares lose
    digits to underflow (which no row can be when eps itself is above that floor);
    then the reference redoes it. For a few rows, plain Python floats do this in less
    time than numpy calls would.
    """
    floor, ceiling = _limits(sums.dtype)
    if sums.size <= FEW_ROWS:
        factors = []
        for total in sums.ravel().tolist():
            total += width * eps
            if not width * floor <= total <= ceiling:  # False on NaN too
                return None
            factors.append(math.sqrt(width) / math.sqrt(total))
        return factors[0] if len(factors) == 1 else np.array(factors, sums.dtype).reshape(*sums.shape, 1)
    sums += width * eps
    if not np.maximum.reduce(sums, None) <= ceiling:  # NaN fails too
        return None
    if eps < floor and not width * floor <= np.minimum.reduce(sums, None):
        return None
    np.sqrt(sums, out=sums)
    return np.divide(math.sqrt(width), sums, out=sums)[..., None]


@functools.cache
def _limits(dtype: np.dtype) -> tuple[float, float]:
    """The range a row's mean square plus eps must lie in for the plain arithmetic to be exact to rounding."""
    return safe_floor(dtype), float(np.finfo(dtype).max)


def _row_blocks(x: np.ndarray, result: np.ndarray, step: int) -> Iterable[tuple[np.ndarray, np.ndarray]]:
    """Matching blocks of rows of ``x`` and ``result``; an input of at most two blocks is one, unreshaped."""
    width = x.shape[-1]
    rows = x.size // width
    if rows == 0:
        return ()
    if rows <= 2 * step:
        return ((x, result),)
    sources, targets = x.reshape(-1, width), result.reshape(-1, width)
    return ((sources[span], targets[span]) for span in _blocks(rows, step))


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
    in_place = dtype == working
    if in_place:
        np.copyto(grad_x, grad_output)
    inputs = x.reshape(-1, width)
    upstreams = (grad_x if in_place else grad_output).reshape(-1, width)
    targets = grad_x.reshape(-1, width)

    step = rows_per_block(x, working, block_bytes)
    product, factor = np.empty((step, width), working), np.empty((step, width), working)
    converted_x = None if x.dtype == working else np.empty((step, width), working)
    converted_up = None if in_place or grad_output.dtype == working else np.empty((step, width), working)
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
            inverse_rms = 1 / np.sqrt(np.vecdot(block, block) / width + eps)
            np.multiply(upstream, block, out=product[:n])
            through_gain = product[:n] @ gain
            if in_range(inverse_rms) and np.isfinite(through_gain).all():
                grad_gain += inverse_rms @ product[:n]
                projection = inverse_rms * through_gain / width  # mean(u * x-hat)
                np.multiply(inverse_rms[:, None], gain, out=factor[:n])
                np.multiply(upstream, factor[:n], out=result)  # r * u
                np.multiply(block, inverse_rms[:, None], out=product[:n])  # x-hat
                np.multiply(product[:n], (inverse_rms * projection)[:, None], out=product[:n])
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
