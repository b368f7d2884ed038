"""RMSNorm's maths apart from this package's policy: what the formula, PyTorch and this package each do.

The formula as written has an answer for almost every input: often NaN, infinity or
a row of zeros. PyTorch's ``F.rms_norm`` computes that answer and returns it. This
package refuses such requests with an ``RMSNormError`` that names the problem, or
rescales the rows whose squares overflow or underflow. Each ``Contrast`` is one
request: the formula's result is computed here, the package's by running it, and
PyTorch's was recorded with ``PYTORCH_VERSION`` (``pytorch_result`` recomputes it, and
a test compares the two wherever PyTorch is installed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import RMSNormError
from ..core.format import fmt
from ..core.rmsnorm import rms_norm
from .formulas import rms_norm_formula

PYTORCH_VERSION = "2.13.0"
NAN, INF = float("nan"), float("inf")


@dataclass(frozen=True)
class Contrast:
    """One request, the package's boundary it meets, PyTorch's recorded result, and why the package acts as it does."""

    boundary: str
    request: str
    x: tuple
    gain: tuple | None
    eps: float
    pytorch: str  # as ``describe`` writes it, recorded with PYTORCH_VERSION
    why: str

    def formula(self) -> str:
        """The formula as written, x / sqrt(mean(x**2) + eps) * g, in float64, whatever it gives."""
        x = np.asarray(self.x, dtype=np.float64)
        gain = np.ones(x.shape[-1:]) if self.gain is None else np.asarray(self.gain, dtype=np.float64)
        with np.errstate(all="ignore"):
            return describe(rms_norm_formula(x, gain, self.eps))

    def package(self) -> str:
        try:
            return describe(rms_norm(self.x, self.gain, self.eps))
        except RMSNormError as error:
            return f"refuses: {type(error).__name__}"


def describe(values: np.ndarray) -> str:
    """A result as the table writes it: six decimals, NaN and infinity named as numpy prints them."""
    return "an empty array" if np.size(values) == 0 else fmt(values)


CONTRASTS: tuple[Contrast, ...] = (
    Contrast(
        "zero-energy-epsilon-zero",
        "the all-zero row [0, 0], eps = 0",
        (0.0, 0.0),
        None,
        0.0,
        "[nan, nan]",
        "0 / 0 has no value, and a NaN spreads to every later layer; the error names the row instead",
    ),
    Contrast(
        "non-finite",
        "[nan, 1], eps = 1e-5",
        (NAN, 1.0),
        None,
        1e-5,
        "[nan, nan]",
        "a NaN in a row makes the whole row NaN, silently; the error names the row",
    ),
    Contrast(
        "non-finite",
        "[inf, 1], eps = 1e-5",
        (INF, 1.0),
        None,
        1e-5,
        "[nan, 0.000000]",
        "an infinite value leaves nothing to normalize by",
    ),
    Contrast(
        "non-finite",
        "[3, 4] with the gain [1.5, inf]",
        (3.0, 4.0),
        (1.5, INF),
        1e-5,
        "[1.272792, inf]",
        "a gain is learned; an infinite one means training has already failed",
    ),
    Contrast(
        "invalid-epsilon",
        "[3, 4], eps = -1e-5",
        (3.0, 4.0),
        None,
        -1e-5,
        "[0.848528, 1.131371]",
        "a negative eps can take the root of a negative number (eps = -13 gives NaN here)",
    ),
    Contrast(
        "invalid-epsilon",
        "[3, 4], eps = NaN",
        (3.0, 4.0),
        None,
        NAN,
        "[nan, nan]",
        "eps must be a number that stabilizes the root",
    ),
    Contrast(
        "invalid-epsilon",
        "[3, 4], eps = infinity",
        (3.0, 4.0),
        None,
        INF,
        "[0.000000, 0.000000]",
        "an infinite eps divides every row down to zeros",
    ),
    Contrast(
        "rescaled, not refused",
        "[1e200, 2e200], eps = 0 (float64)",
        (1e200, 2e200),
        None,
        0.0,
        "[0.000000, 0.000000]",
        "the squares overflow to infinity; the package divides the row by its largest magnitude first",
    ),
    Contrast(
        "rescaled, not refused",
        "[1e-200, 2e-200], eps = 0 (float64)",
        (1e-200, 2e-200),
        None,
        0.0,
        "[inf, inf]",
        "the squares underflow to zero; the package rescales this row too",
    ),
)


def pytorch_result(contrast: Contrast, torch) -> str:
    """What ``torch.nn.functional.rms_norm`` gives for the request, written as ``describe`` writes it."""
    x = torch.tensor(contrast.x, dtype=torch.float64)
    gain = None if contrast.gain is None else torch.tensor(contrast.gain, dtype=torch.float64)
    return describe(torch.nn.functional.rms_norm(x, (x.shape[-1],), gain, contrast.eps).numpy())
