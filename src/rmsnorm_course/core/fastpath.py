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
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from .checks import check_values, checked_request, output_dtype, require_finite_rows
from .errors import OutputArrayError, OutputDtypeError, OutputOverlapError, OutputShapeError
from .reference import DEFAULT_EPS, gradients, normalize, safe_floor

BLOCK_BYTES = 256 * 1024  # a block with its scratch and its output stays in a 2 MiB cache
MIN_BLOCK_BYTES = 64 * 1024  # below this, a block's fixed bookkeeping outweighs what a smaller scratch saves


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


def rms_norm_blocked(
    x: npt.ArrayLike,
    gain: npt.ArrayLike | None = None,
    eps: float = DEFAULT_EPS,
    out: np.ndarray | None = None,
    block_bytes: int = BLOCK_BYTES,
) -> np.ndarray:
    """RMSNorm of the last axis, written into ``out`` (a new array if None) block by block.

    Beyond the output only block-sized scratch is allocated, except that an input or
    an ``out`` whose rows are not contiguous in memory is staged through one full copy.
    """
    callers_gain = gain
    x, gain, eps = checked_request(x, gain, eps)
    out = _checked_out(out, x, callers_gain)
    width, working = x.shape[-1], gain.dtype
    result = out if out.flags.c_contiguous else np.empty(x.shape, out.dtype)
    in_place = result.dtype == working
    if in_place:
        np.copyto(result, x)
    source = (result if in_place else x).reshape(-1, width)
    target = result.reshape(-1, width)

    step = rows_per_block(x, working, block_bytes)
    factor = np.empty((step, width), working)
    converted = None if in_place else np.empty((step, width), working)
    in_range = _InRange(gain)
    check_once = functools.cache(lambda: check_values(x, eps))

    with np.errstate(all="ignore"):  # every overflow and underflow is looked at below
        for rows in _blocks(target.shape[0], step):
            block = _in_dtype(source[rows], working, converted)
            inverse_rms = 1 / np.sqrt(np.vecdot(block, block) / width + eps)
            if in_range(inverse_rms):
                np.multiply(inverse_rms[:, None], gain, out=factor[: len(block)])
                np.multiply(block, factor[: len(block)], out=target[rows])
            else:
                check_once()  # raises, naming the row, if the reference would
                _, _, normalized = normalize(block, eps)
                np.multiply(normalized, gain, out=target[rows])

    if result is not out:
        np.copyto(out, result)
    return out


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
    """Rows per block: at most ``block_bytes``, and at most 1/32 of the input, so scratch stays small.

    Each block costs a few microseconds of bookkeeping, so no block is cut smaller
    than ``MIN_BLOCK_BYTES`` for the 1/32 rule's sake: a small input goes in a few blocks.
    """
    row_bytes = x.shape[-1] * working.itemsize
    budget = min(block_bytes, max(MIN_BLOCK_BYTES, x.size * working.itemsize // 32))
    return max(1, budget // row_bytes)


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
