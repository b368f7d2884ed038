"""RMSNorm next to LayerNorm on activation-shaped data, and where eps goes.

On activations with a nonzero mean the two differ visibly: LayerNorm centers
each row, RMSNorm keeps the offset and only fixes the scale. Near zero they
differ again, this time by where each implementation puts its eps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.baselines import layer_norm
from ..core.rmsnorm import DEFAULT_EPS, rms_norm, rms_norm_backward
from .example import EPS

ACTIVATION_SHAPE = (16, 128, 512)
ACTIVATION_OFFSET = 1.5
ACTIVATION_SEED = 0


@dataclass(frozen=True)
class Statistics:
    """Mean, standard deviation and RMS over every value of one array."""

    mean: float
    std: float
    rms: float

    @classmethod
    def of(cls, values: np.ndarray) -> Statistics:
        return cls(float(np.mean(values)), float(np.std(values)), float(np.sqrt(np.mean(np.square(values)))))


@dataclass(frozen=True)
class ActivationComparison:
    """Seeded activations [B, T, d] with a mean offset, normalized both ways."""

    inputs: np.ndarray
    rms_normed: np.ndarray
    layer_normed: np.ndarray

    def statistics(self) -> dict[str, Statistics]:
        return {
            "input": Statistics.of(self.inputs),
            "RMSNorm": Statistics.of(self.rms_normed),
            "LayerNorm": Statistics.of(self.layer_normed),
        }


def activation_comparison(
    shape: tuple[int, ...] = ACTIVATION_SHAPE,
    offset: float = ACTIVATION_OFFSET,
    seed: int = ACTIVATION_SEED,
    eps: float = EPS,
) -> ActivationComparison:
    """Standard-normal activations shifted by ``offset``, seeded so every build sees the same numbers."""
    inputs = np.random.default_rng(seed).standard_normal(shape) + offset
    return ActivationComparison(inputs, rms_norm(inputs, None, eps), layer_norm(inputs, eps))


@dataclass(frozen=True)
class Identities:
    """Two identities that tie LayerNorm to RMSNorm, as the largest gap over every row."""

    layer_norm_as_rms_norm_of_centered: float  # max |LayerNorm(x) - RMSNorm(x - mean(x))|
    mean_square_split: float  # max |mean(x**2) - (mean(x)**2 + var(x))|, relative to mean(x**2)


def identities(comparison: ActivationComparison, eps: float = EPS) -> Identities:
    """Check LayerNorm(x) = RMSNorm(x - mean(x)) (no gain, no bias) and RMS**2 = mean**2 + variance."""
    x = comparison.inputs
    mean = np.mean(x, axis=-1, keepdims=True)
    mean_square = np.mean(np.square(x), axis=-1)
    split = np.square(mean[..., 0]) + np.var(x, axis=-1)
    return Identities(
        layer_norm_as_rms_norm_of_centered=float(np.max(np.abs(layer_norm(x, eps) - rms_norm(x - mean, None, eps)))),
        mean_square_split=float(np.max(np.abs(mean_square - split) / mean_square)),
    )


# --- eps inside or outside the square root -------------------------------


def rms_norm_eps_outside(x: np.ndarray, eps: float) -> np.ndarray:
    """The other placement, as in the original paper's code: x / (RMS(x) + eps)."""
    x = np.asarray(x, dtype=np.float64)
    return x / (np.sqrt(np.mean(np.square(x), axis=-1, keepdims=True)) + eps)


@dataclass(frozen=True)
class PlacementCurves:
    """For inputs of RMS r along one direction: output RMS and its slope d(output RMS)/dr, both placements."""

    rms: np.ndarray
    inside: np.ndarray
    outside: np.ndarray
    inside_slope: np.ndarray
    outside_slope: np.ndarray


def placement_curves(rms: np.ndarray, eps: float) -> PlacementCurves:
    """Values and slopes near zero for eps inside (this package) and outside the root.

    A width-one row [r] has RMS r, so the inside curve is ``rms_norm`` itself and its
    slope is ``rms_norm_backward`` with upstream 1. Outside, y = r / (r + eps) and
    dy/dr = eps / (r + eps)**2.
    """
    r = np.asarray(rms, dtype=np.float64)
    rows = r[:, None]
    inside_slope, _ = rms_norm_backward(rows, None, eps, np.ones_like(rows))
    return PlacementCurves(
        rms=r,
        inside=rms_norm(rows, None, eps)[:, 0],
        outside=rms_norm_eps_outside(rows, eps)[:, 0],
        inside_slope=inside_slope[:, 0],
        outside_slope=eps / np.square(r + eps),
    )


@dataclass(frozen=True)
class Implementation:
    """Where a well-known implementation puts eps, its default, its precision, and where that is written."""

    name: str
    eps: str
    placement: str
    precision: str
    source: str


IMPLEMENTATIONS: tuple[Implementation, ...] = (
    Implementation(
        "Zhang & Sennrich, PyTorch code",
        "1e-8",
        "outside: x / (RMS(x) + eps)",
        "input dtype",
        "bzhangGo/rmsnorm, rmsnorm_torch.py",
    ),
    Implementation(
        "Zhang & Sennrich, TensorFlow code",
        "1e-8",
        "inside: x * rsqrt(mean(x**2) + eps)",
        "input dtype",
        "bzhangGo/rmsnorm, rmsnorm_tensorflow.py",
    ),
    Implementation(
        "LLaMA reference model",
        "per checkpoint (norm_eps in params.json); class default 1e-6",
        "inside: x * rsqrt(mean(x**2) + eps)",
        "float32; cast back before the gain",
        "meta-llama/llama, llama/model.py",
    ),
    Implementation(
        "Hugging Face LlamaRMSNorm",
        "per model (rms_norm_eps in config); class default 1e-6",
        "inside: x * rsqrt(mean(x**2) + eps)",
        "float32; cast back before the gain",
        "huggingface/transformers, models/llama/modeling_llama.py",
    ),
    Implementation(
        "PyTorch torch.nn.RMSNorm, F.rms_norm",
        "if not given: float32's machine epsilon for float16 and bfloat16, else the input's",
        "inside: x * rsqrt(mean(x**2) + eps)",
        "float16, bfloat16 in float32; others as given",
        "torch.nn.functional.rms_norm (checked with PyTorch 2.13)",
    ),
    Implementation(
        "this course (rms_norm)",
        f"{DEFAULT_EPS:g}",  # the functions' default, as the column says; the chapter's worked eps is EPS
        "inside: x / sqrt(mean(x**2) + eps)",
        "float16 in float32; gain before one cast back",
        "src/rmsnorm_course/core/reference.py",
    ),
)
