"""RMSNorm over the last axis: the forward with its intermediates, the output alone, and the backward.

    y = g * x / sqrt(mean(x**2) + eps)

The mean runs over the final axis only, so every row (one feature vector) is
normalized on its own. Precision policy, in one line: integers and bools become
float64, float16 is computed in float32 and handed back as float16, float32 and
float64 stay as they are, and eps is taken as the compute dtype holds it. Each
function checks the request (``checks``), then runs the arithmetic (``reference``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .checks import checked_out, validated, validated_upstream
from .reference import DEFAULT_EPS, RMSNormForward, gradients, normalize

__all__ = ["DEFAULT_EPS", "RMSNormForward", "rms_norm", "rms_norm_backward", "rms_norm_forward"]


def rms_norm_forward(x: npt.ArrayLike, gain: npt.ArrayLike | None = None, eps: float = DEFAULT_EPS) -> RMSNormForward:
    """Run RMSNorm and keep every intermediate: the mean square, 1/RMS, x-hat and the output."""
    x, gain, eps, out_dtype = validated(x, gain, eps)
    mean_square, inverse_rms, normalized = normalize(x, eps)
    with np.errstate(over="ignore"):  # a gain can carry x-hat past float16's range
        return RMSNormForward(
            mean_square=mean_square,
            inverse_rms=inverse_rms,
            normalized=normalized.astype(out_dtype, copy=False),
            output=(normalized * gain).astype(out_dtype, copy=False),
        )


def rms_norm(
    x: npt.ArrayLike,
    gain: npt.ArrayLike | None = None,
    eps: float = DEFAULT_EPS,
    *,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Normalize the last axis of ``x`` by its root mean square, then apply ``gain``: the forward's output.

    ``out``, if given, receives the result and is returned: an array of the input's
    shape and output dtype that shares no memory with the input. It is written in
    one step once the whole result is computed, so a rejected input, or an
    interrupted call, leaves it as it was.
    """
    y = rms_norm_forward(x, gain, eps).output
    if out is None:
        return y
    np.copyto(checked_out(out, np.asarray(x), gain), y)
    return out


def rms_norm_backward(
    x: npt.ArrayLike,
    gain: npt.ArrayLike | None,
    eps: float,
    grad_output: npt.ArrayLike,
) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form gradients ``(grad_x, grad_gain)`` for an upstream ``grad_output``.

    With r = 1/sqrt(mean(x**2) + eps), x-hat = x * r and u = grad_output * g:

        grad_x    = r * (u - x-hat * mean(u * x-hat))      (per row)
        grad_gain = sum over every row of grad_output * x-hat     shape (d,)

    Both come back in the input's dtype.
    """
    x, gain, eps, out_dtype = validated(x, gain, eps)
    grad_output = validated_upstream(grad_output, x)
    grad_x, grad_gain = gradients(x, gain, eps, grad_output)
    with np.errstate(over="ignore"):  # float16 may not hold a gradient
        return grad_x.astype(out_dtype, copy=False), grad_gain.astype(out_dtype)
