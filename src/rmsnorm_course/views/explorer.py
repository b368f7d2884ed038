"""The scale/epsilon explorer's model: what the sliders show, computed by ``rms_norm``.

The explorer multiplies a chosen vector x by a positive scale a and compares the
RMS-rescaled vectors x-hat(x) and x-hat(a x) at a chosen eps. The ipywidgets
front end and the book's static page both read this model, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import RMSNormError
from ..core.format import difference, fmt
from ..core.rmsnorm import DEFAULT_EPS, rms_norm_forward
from ..studies.evidence import normalized_mean_square, scale_card
from ..studies.example import EPS, INPUT, SCALE_FACTOR, TINY_INPUT

SCALE_MIN, SCALE_MAX = 1e-4, 1e4
EPS_CHOICES = tuple(sorted({0.0, 1e-8, 1e-6, DEFAULT_EPS, EPS, 1e-4, 1e-2}))  # both defaults among them
RMS_WINDOW = (1e-6, 1e3)  # the curve's RMS axis: every eps's crossover, sqrt(eps), with decades to spare


def _feature_vector(width: int = 8, seed: int = 0) -> tuple[float, ...]:
    """A seeded activation-like row, so the explorer shows more than two coordinates."""
    return tuple(np.random.default_rng(seed).normal(size=width).round(3).tolist())


def _label(name: str, values: tuple[float, ...]) -> str:
    """A menu entry that shows its vector: written from the vector, never typed beside it."""
    return f"{name} [{', '.join(f'{v:g}' for v in values)}]"


WORKED, TINY = _label("worked example", INPUT), _label("tiny", TINY_INPUT)  # the menu's names for the two vectors
ACTIVATION_ROW = "activation row (d = 8, seed 0)"
VECTORS: dict[str, tuple[float, ...]] = {WORKED: INPUT, TINY: TINY_INPUT, ACTIVATION_ROW: _feature_vector()}
START_VECTOR = WORKED


@dataclass(frozen=True)
class ExplorerState:
    """Everything the explorer displays for one setting of its controls."""

    vector: str
    scale: float
    eps: float
    x: np.ndarray
    normalized: np.ndarray
    scaled_normalized: np.ndarray
    scaled_rms: float
    scaled_normalized_mean_square: float

    @property
    def max_difference(self) -> float:
        """max |x-hat(a x) - x-hat(x)|: zero in the eps = 0 ideal."""
        return float(np.max(np.abs(self.scaled_normalized - self.normalized)))

    @property
    def off_axis(self) -> str | None:
        """'left' or 'right' when a·x's RMS lies outside ``RMS_WINDOW`` (its marker sits at that edge), else None."""
        low, high = RMS_WINDOW
        return "left" if self.scaled_rms < low else "right" if self.scaled_rms > high else None


def held_scale(scale: float) -> float:
    """``scale`` held to the slider's range: a value forced past it (10**±1e308, 0, inf) shows its nearest end.

    NaN is no scale at all, and is refused.
    """
    if np.isnan(scale):
        raise RMSNormError(f"the scale a is nan; expected a number from {SCALE_MIN:g} to {SCALE_MAX:g}")
    return float(min(max(scale, SCALE_MIN), SCALE_MAX))


def explore(vector: str = START_VECTOR, scale: float = SCALE_FACTOR, eps: float = EPS) -> ExplorerState:
    """The explorer's readouts for input ``VECTORS[vector]`` scaled by ``scale`` (``held_scale``) at ``eps``."""
    scale = held_scale(scale)
    card = scale_card(vector, VECTORS[vector], eps, scale)
    return ExplorerState(
        vector=vector,
        scale=scale,
        eps=float(eps),
        x=card.x,
        normalized=card.original,
        scaled_normalized=card.scaled,
        scaled_rms=float(np.sqrt(np.mean(np.square(scale * card.x)))),
        scaled_normalized_mean_square=float(np.mean(np.square(card.scaled))),
    )


def readout_rows(state: ExplorerState) -> list[tuple[str, str]]:
    """The numbers the explorer prints, as (label, text) pairs, in every front end."""
    return [
        ("scale a", f"{state.scale:.6g}"),
        ("x-hat(x)", fmt(state.normalized)),
        ("x-hat(a·x)", fmt(state.scaled_normalized)),
        ("max |x-hat(a·x) - x-hat(x)|", difference(state.max_difference)),
        ("RMS of a·x", f"{state.scaled_rms:.6g}"),
        ("mean of x-hat(a·x) squared", f"{state.scaled_normalized_mean_square:.6f}"),
    ]


BAR_HEADROOM = 1.15  # the bars' axis reaches this far beyond the largest |x-hat_i|, in the figure and the page


def bar_limit(vector: str) -> float:
    """The largest |x-hat_i| the vector can reach (at eps = 0), so its bars keep one scale as the controls move."""
    x = np.array(VECTORS[vector], dtype=np.float64)
    return float(np.max(np.abs(rms_norm_forward(x, None, 0.0).normalized)))


def normalized_mean_square_curve(rms: np.ndarray, eps: float) -> np.ndarray:
    """mean(x-hat**2) for inputs whose RMS is each value of ``rms`` (positive), by ``rms_norm`` itself.

    A width-one row [r] has RMS r, so its x-hat**2 is the curve ms / (ms + eps) at ms = r**2.
    """
    return normalized_mean_square(np.asarray(rms, dtype=np.float64)[:, None], eps)
