"""What RMSNorm does to a vector, seen as geometry, and what its gradient looks like.

At eps = 0 RMSNorm sends every nonzero x in d dimensions to x * sqrt(d) / |x|: a
point on the sphere of radius sqrt(d), in x's own direction. LayerNorm first removes
the mean, the component along the all-ones vector, so its outputs lie on the part of
that sphere orthogonal to all-ones (for d = 2, just the two points +-(1, -1)). A
finite eps pulls inputs whose RMS is near sqrt(eps) or below inside the sphere.

The gradient follows from the same picture: the output does not change when x moves
along itself (scale invariance), so at eps = 0 the gradient with respect to x has no
component along x. It is tangent to the sphere, and it shrinks as 1/a when x grows by a.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.baselines import layer_norm
from ..core.rmsnorm import rms_norm, rms_norm_backward, rms_norm_forward
from .example import EPS, GAIN, INPUT, UPSTREAM

SHRINK_SCALES = np.geomspace(1e-5, 1.0, 11)  # the worked example times these, toward zero


@dataclass(frozen=True)
class Geometry:
    """Two-dimensional inputs and where each normalization sends them."""

    inputs: np.ndarray  # (n, 2): seeded vectors of many lengths, the worked example first
    rms_images: np.ndarray  # rms_norm at eps = 0
    layer_images: np.ndarray  # LayerNorm at eps = 0
    radius: float  # sqrt(d)
    eps: float
    shrink_scales: np.ndarray
    shrink_inputs: np.ndarray  # the worked example times each scale
    shrink_images: np.ndarray  # their rms_norm at eps

    @property
    def largest_radius_error(self) -> float:
        """max | |x-hat| - sqrt(d) | over the inputs, at eps = 0: rounding only."""
        return float(np.max(np.abs(np.linalg.norm(self.rms_images, axis=-1) - self.radius)))

    @property
    def largest_layer_sum(self) -> float:
        """max |sum of LayerNorm's output|: its component along all-ones, zero to rounding."""
        return float(np.max(np.abs(self.layer_images.sum(axis=-1))))


def geometry(count: int = 24, seed: int = 0, eps: float = EPS) -> Geometry:
    """Seeded 2-D inputs with lengths from 0.1 to 10, and the worked example shrunk toward zero."""
    rng = np.random.default_rng(seed)
    angles = rng.uniform(0, 2 * np.pi, count)
    lengths = 10 ** rng.uniform(-1, 1, count)
    inputs = np.vstack([INPUT, np.column_stack([np.cos(angles), np.sin(angles)]) * lengths[:, None]])
    shrink_inputs = np.outer(SHRINK_SCALES, INPUT)
    return Geometry(
        inputs=inputs,
        rms_images=rms_norm(inputs, eps=0.0),
        layer_images=layer_norm(inputs, eps=0.0),
        radius=float(np.sqrt(inputs.shape[-1])),
        eps=eps,
        shrink_scales=SHRINK_SCALES,
        shrink_inputs=shrink_inputs,
        shrink_images=rms_norm(shrink_inputs, eps=eps),
    )


@dataclass(frozen=True)
class GradientPicture:
    """The worked example's gradient with respect to x, and the facts the backward page checks."""

    x: np.ndarray
    normalized: np.ndarray  # x-hat at eps = 0, on the circle of radius sqrt(d)
    grad_x: np.ndarray  # at eps = 0, with the worked example's gain and upstream gradient
    dot_at_zero: float  # grad_x . x at eps = 0: rounding level
    dot_at_eps: float  # grad_x . x at the chapter's eps: small, not zero
    scale: float
    scaled_grad_x: np.ndarray  # the gradient at scale * x, eps = 0
    batch: tuple[int, ...]  # a batch shape, and ...
    saved_shape: tuple[int, ...]  # ... the shape of what the forward keeps for the backward at that shape


def gradient_picture(scale: float = 10.0, eps: float = EPS, batch: tuple[int, ...] = (2, 3, 4)) -> GradientPicture:
    """The worked example's gradient at eps = 0 and at ``eps``, and at ``scale`` times x."""
    x = np.array(INPUT)
    grad_x, _ = rms_norm_backward(x, GAIN, 0.0, UPSTREAM)
    grad_at_eps, _ = rms_norm_backward(x, GAIN, eps, UPSTREAM)
    scaled, _ = rms_norm_backward(scale * x, GAIN, 0.0, UPSTREAM)
    return GradientPicture(
        x=x,
        normalized=rms_norm(x, eps=0.0),
        grad_x=grad_x,
        dot_at_zero=float(grad_x @ x),
        dot_at_eps=float(grad_at_eps @ x),
        scale=scale,
        scaled_grad_x=scaled,
        batch=batch,
        saved_shape=rms_norm_forward(np.ones(batch), eps=eps).inverse_rms.shape,
    )
