"""The RMSNorm layer: one named gain vector (one number per feature), no bias, normalization over the last axis."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .checks import check_eps, check_gain, shown
from .errors import EmptyFeatureWidth, FeatureWidthTooLarge
from .parameters import NamedParameter
from .rmsnorm import DEFAULT_EPS, RMSNormForward, rms_norm, rms_norm_backward, rms_norm_forward


class RMSNorm:
    """A layer that owns its gain (initialised to ones) and its eps.

    >>> layer = RMSNorm(2, name="decoder.block.0.attention_norm.gain")
    >>> layer([3.0, 4.0]).round(6).tolist()
    [0.848528, 1.13137]
    """

    def __init__(
        self,
        width: int,
        eps: float = DEFAULT_EPS,
        name: str = "gain",
    ):
        whole = isinstance(width, (int, np.integer))
        if isinstance(width, bool) or not whole or width < 1:
            expected = "expected a whole number of features >= 1"
            raise EmptyFeatureWidth(
                f"layer width is {shown(width)}; {expected}",
            )
        self.eps = check_eps(eps)
        try:
            ones = np.ones(int(width))
        except (ValueError, MemoryError):
            # more elements than numpy can index, or than memory holds
            raise FeatureWidthTooLarge(
                f"layer width is {shown(width)}: no gain that wide "
                "fits in this machine's memory; expected the width "
                "of the features the layer normalizes"
            ) from None
        self.gain = NamedParameter(name, ones)

    @classmethod
    def from_gain(
        cls,
        gain: npt.ArrayLike,
        eps: float = DEFAULT_EPS,
        name: str = "gain",
    ) -> RMSNorm:
        """Build a layer around an existing gain vector (copied,
        so the caller's array stays theirs)."""
        values = check_gain(gain)
        layer = cls(values.shape[0], eps, name)
        layer.gain.value[:] = values
        return layer

    @property
    def width(self) -> int:
        return self.gain.value.shape[0]

    def parameters(self) -> tuple[NamedParameter, ...]:
        return (self.gain,)

    def forward(self, x: npt.ArrayLike) -> RMSNormForward:
        return rms_norm_forward(x, self.gain.value, self.eps)

    def __call__(self, x: npt.ArrayLike) -> np.ndarray:
        """``rms_norm`` with this layer's gain and eps."""
        return rms_norm(x, self.gain.value, self.eps)

    def backward(
        self,
        x: npt.ArrayLike,
        grad_output: npt.ArrayLike,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(grad_x, grad_gain)`` for this layer at input ``x``."""
        gain = self.gain.value
        return rms_norm_backward(x, gain, self.eps, grad_output)

    def __repr__(self) -> str:
        width, eps, name = self.width, self.eps, self.gain.name
        return f"RMSNorm(width={width}, eps={eps}, name={name!r})"
