"""The course every page's exercises are declared in, and the inputs several pages ask about.

A page's boxes are declared in the module named after the page, in the order the page
asks them, each with ``@COURSE.exercise(...)`` above its solver; the page shows each
with one line, ``Prediction("its-id")``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from predict_check import Course, Number, Vector

from ..core.format import given as nums  # an input as the chapter typed it: [3, 4]
from ..core.rmsnorm import rms_norm, rms_norm_forward
from ..studies import cache, example

COURSE = Course(
    "rmsnorm-course",
    "the RMSNorm chapter",
    cache_variable=cache.VARIABLE,
    grader=Path(__file__).resolve().parents[3] / "exercises",  # the grading tests, beside the package's source
    grade_file="make grade ANSWERS=/path/to/{file}",
)

X, G, EPS = example.INPUT, example.GAIN, example.EPS
TINY, FACTOR, UPSTREAM = example.TINY_INPUT, example.SCALE_FACTOR, example.UPSTREAM
PAIR = Vector(len(X))  # the worked example's vectors have two coordinates
EXACT = Number(stated=False)  # a short exact answer: the question does not ask for decimals
WORKED = rms_norm_forward(X, G, EPS)  # the worked example, every intermediate of its forward pass
PAIRS = ((1.0, 2.0), (-2.0, 4.0), (6.0, 8.0), (0.5, 1.5), (5.0, -12.0))  # fresh inputs for the worked example's boxes
BATCH_SHAPE = (2, 5, 3)  # [B, T, d] with three different sizes, so no axis can be mistaken for another
SHAPE_SEED = 25
GAINS = ((2.0, 1.0), (0.5, 0.5), (1.0, -1.0), (2.0, 0.5), (1.5, 0.5))


def stages_of(x, gain=None, eps=EPS):
    """The worked example's forward pass for any row and gain, every stage kept."""
    return rms_norm_forward(np.asarray(x, dtype=float), None if gain is None else np.asarray(gain, float), eps)


X_TEXT, TINY_TEXT = nums(X), nums(TINY)


def shape_example() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Seeded input, gain and upstream gradient for an input of shape BATCH_SHAPE; then the output."""
    rng = np.random.default_rng(SHAPE_SEED)
    x = rng.normal(size=BATCH_SHAPE)
    gain = rng.normal(size=BATCH_SHAPE[-1])
    upstream = rng.normal(size=BATCH_SHAPE)
    return x, gain, upstream, rms_norm(x, gain, EPS)


def vector(values: np.ndarray) -> tuple[float, ...]:
    """An array as the tuple of floats an answer is compared with."""
    return tuple(float(value) for value in values)


def each_one(x) -> tuple[float, ...]:
    """x with every coordinate made 1 in size, its sign kept: what predict.md says x-hat is not."""
    return vector(np.sign(np.asarray(x, dtype=float)))


def unit(x) -> tuple[float, ...]:
    """x divided by its length: the unit vector, which predict.md says x-hat is not (a huge row's too)."""
    scaled = np.asarray(x, dtype=float) / np.max(np.abs(x))
    return vector(scaled / np.linalg.norm(scaled))


# What the chapter calls misconceptions about x-hat, each with its note (declared beside each box it fits).
EACH_ONE = "That makes each coordinate 1 in size; x-hat divides every coordinate by one shared factor, so they keep "
EACH_ONE += "their ratio."
UNIT = "That is the unit vector along x; x-hat divides by the root of the mean square, not by the length."


def root(mean_square: object) -> float:
    """The worked example's RMS for a student's mean square (inf or nan where it is no number)."""
    with np.errstate(all="ignore"):
        return float(np.sqrt(float(mean_square) + EPS))
