"""A small reverse-mode tape over numpy arrays, and RMSNorm composed on it.

Each ``Tensor`` remembers the tensors it was made from and a rule that turns the
gradient arriving at it into one gradient per parent. ``backward`` visits every
node once, outputs before inputs, so a tensor used twice (``x`` in ``x * x``)
collects both contributions before passing anything on. RMSNorm is then built
from these primitives alone, and its gradients come from the tape, not from
the closed form in ``rmsnorm.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from . import errors
from .checks import as_real_array, compute_dtype, narrowed, output_dtype, row_name, validated, validated_upstream
from .reference import DEFAULT_EPS


class Tensor:
    """An array on the tape: its value, its gradient (filled by ``backward``), and how it was made."""

    __slots__ = ("_rule", "grad", "op", "parents", "value")

    def __init__(
        self, value: npt.ArrayLike, parents: tuple[Tensor, ...] = (), rule: Callable | None = None, op: str = ""
    ):
        array = as_real_array(value, "tensor value")
        self.value = array.astype(compute_dtype(array.dtype), copy=False)
        self.grad = np.zeros_like(self.value)
        self.parents, self._rule, self.op = parents, rule, op

    def __repr__(self) -> str:
        return f"Tensor(shape={self.value.shape}, op={self.op or 'leaf'!r})"

    def _operand(self, other: Tensor | npt.ArrayLike, op: str) -> Tensor:
        """The other side of ``op``: a plain number becomes a constant leaf in this tensor's dtype."""
        if not isinstance(other, Tensor):
            what = f"the operand of {op}"
            other = Tensor(narrowed(as_real_array(other, what), self.value.dtype, what))
        try:
            np.broadcast_shapes(self.value.shape, other.value.shape)
        except ValueError:
            raise errors.BroadcastShapeError(
                f"cannot apply {op} to shapes {self.value.shape} and {other.value.shape}; "
                "expected shapes that broadcast (equal, or 1, axis by axis from the right)"
            ) from None
        return other

    def __add__(self, other: Tensor | npt.ArrayLike) -> Tensor:
        other = self._operand(other, "+")

        def rule(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return _sum_to_shape(g, self.value.shape), _sum_to_shape(g, other.value.shape)

        return Tensor(self.value + other.value, (self, other), rule, "+")

    def __mul__(self, other: Tensor | npt.ArrayLike) -> Tensor:
        other = self._operand(other, "*")

        def rule(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return _sum_to_shape(g * other.value, self.value.shape), _sum_to_shape(g * self.value, other.value.shape)

        return Tensor(self.value * other.value, (self, other), rule, "*")

    __radd__ = __add__
    __rmul__ = __mul__

    def mean(self, axis: int = -1, keepdims: bool = True) -> Tensor:
        """Each input element receives 1/n of the gradient of the mean it fed."""
        n = self.value.shape[axis]

        def rule(g: np.ndarray) -> tuple[np.ndarray]:
            return (np.broadcast_to(g if keepdims else np.expand_dims(g, axis), self.value.shape) / n,)

        return Tensor(self.value.mean(axis=axis, keepdims=keepdims), (self,), rule, "mean")

    def log(self) -> Tensor:
        if not np.all(self.value > 0):
            bad = self.value[~(self.value > 0)].flat[0]
            raise errors.LogDomainError(f"log of {bad} (shape {self.value.shape}); expected every value > 0")
        return Tensor(np.log(self.value), (self,), lambda g: (g / self.value,), "log")

    def exp(self) -> Tensor:
        result = np.exp(self.value)
        return Tensor(result, (self,), lambda g: (g * result,), "exp")

    def topological_order(self) -> list[Tensor]:
        """Every node this tensor depends on, each after all of its parents (no recursion)."""
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            node, parents_done = stack.pop()
            if parents_done:
                order.append(node)
            elif id(node) not in seen:
                seen.add(id(node))
                stack.append((node, True))
                stack.extend((parent, False) for parent in node.parents if id(parent) not in seen)
        return order

    def backward(self, grad_output: npt.ArrayLike | None = None) -> None:
        """Add d(output)/d(node), weighted by ``grad_output``, to every node's ``grad``.

        Gradients accumulate across calls, as on a cumulative tape; within one call
        each node passes on its gradient only once every user of it has reported.
        """
        if grad_output is None:
            if self.value.size != 1:
                raise errors.UpstreamGradientRequired(
                    f"backward() without grad_output needs a single-element output, but this one has shape "
                    f"{self.value.shape}; expected grad_output of shape {self.value.shape}"
                )
            grad_output = np.ones_like(self.value)
        upstream = as_real_array(grad_output, "grad_output")
        if upstream.shape != self.value.shape:
            raise errors.UpstreamShapeError(
                f"grad_output has shape {upstream.shape}, but the output has shape {self.value.shape}; "
                "expected the same shape"
            )
        pending = {id(self): narrowed(upstream, self.value.dtype, "grad_output")}
        for node in reversed(self.topological_order()):
            g = pending.pop(id(node))
            node.grad = node.grad + g
            if node._rule is not None:
                for parent, parent_grad in zip(node.parents, node._rule(g)):
                    pending[id(parent)] = pending[id(parent)] + parent_grad if id(parent) in pending else parent_grad


def _sum_to_shape(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Undo broadcasting: sum the gradient over every axis the operand was stretched along."""
    grad = grad.sum(axis=tuple(range(grad.ndim - len(shape))))
    stretched = tuple(axis for axis, n in enumerate(shape) if n == 1 and grad.shape[axis] != 1)
    return grad.sum(axis=stretched, keepdims=True).reshape(shape)


@dataclass(frozen=True)
class TapeRMSNormForward:
    """The leaves and every named stage of RMSNorm on the tape, in the compute dtype."""

    x: Tensor
    gain: Tensor
    mean_square: Tensor
    inverse_rms: Tensor
    normalized: Tensor
    output: Tensor


def tape_rms_norm(
    x: npt.ArrayLike,
    gain: npt.ArrayLike | None = None,
    eps: float = DEFAULT_EPS,
) -> TapeRMSNormForward:
    """RMSNorm on the tape (``tape_forward``), after the checks every
    entry point makes."""
    x_value, gain_value, eps, _ = validated(x, gain, eps)
    return tape_forward(Tensor(x_value), Tensor(gain_value), eps)


def tape_forward(x: Tensor, gain: Tensor, eps: float) -> TapeRMSNormForward:
    """RMSNorm from primitives: x*x -> mean (kept) -> + eps -> log
    -> * -0.5 -> exp -> * x -> * gain.

    The tape computes the formula as written, with none of the
    reference's rescaling, so it refuses rows whose squares leave the
    float range.
    """
    # an overflow is reported by row just below
    with np.errstate(over="ignore"):
        mean_square = (x * x).mean(axis=-1)
    _check_mean_square(mean_square.value, eps)
    inverse_rms = ((mean_square + eps).log() * -0.5).exp()
    normalized = x * inverse_rms
    output = normalized * gain
    return TapeRMSNormForward(
        x,
        gain,
        mean_square,
        inverse_rms,
        normalized,
        output,
    )


def tape_rms_norm_gradients(
    x: npt.ArrayLike, gain: npt.ArrayLike | None, eps: float, grad_output: npt.ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """``(grad_x, grad_gain)`` by reverse mode alone, in the input's dtype like ``rms_norm_backward``."""
    forward = tape_rms_norm(x, gain, eps)
    forward.output.backward(validated_upstream(grad_output, forward.x.value))
    out_dtype = output_dtype(np.asarray(x).dtype)
    return forward.x.grad.astype(out_dtype, copy=False), forward.gain.grad.astype(out_dtype, copy=False)


def _check_mean_square(mean_square: np.ndarray, eps: float) -> None:
    """Stop before the log where the squares overflowed, or underflowed to 0 with eps = 0."""
    rows, batch_shape = mean_square.reshape(-1), mean_square.shape[:-1]
    if not np.all(np.isfinite(rows)):
        row = row_name(int(np.argmin(np.isfinite(rows))), batch_shape)
        raise errors.SquareOverflow(
            f"input {row} has squares that overflow to infinity on the tape, which squares x as written; "
            "expected smaller magnitudes (rms_norm rescales such rows)"
        )
    if eps == 0 and not np.all(rows > 0):
        row = row_name(int(np.argmin(rows > 0)), batch_shape)
        raise errors.ZeroEnergyRow(
            f"eps is 0 and input {row} has squares that underflow to a mean square of 0, so its RMS is 0 "
            "and x / RMS is undefined; expected eps > 0 or larger magnitudes"
        )
