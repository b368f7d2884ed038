"""The chapter's pages: one module per page of the book, holding what that page computes, asks and draws.

A page's notebook imports its own module and little else. Its hidden set-up is
``page = <module>.values()``, whose fields the prose reads with ``{eval}``; its figures
are the module's functions; each box is one line, ``Prediction("its-id")``, whose
exercise the module declares with ``@COURSE.exercise(...)`` above the solver that
computes its answer, in the order the page asks them.

The modules load in the book's order, which ``make boxes`` writes from ``_toc.yml`` into
``contents.txt`` beside them, so the course asks its exercises in that order wherever it
is installed. Every sentence of a page that interprets a measurement is chosen or
checked in its module (``holds``): a build whose numbers do not support a sentence
stops with the sentence named, instead of printing it.
"""

from __future__ import annotations

import importlib
from importlib.resources import files

import numpy as np

from predict_check import Box, Course, Number, Vector
from predict_check.verdicts import checker

from ..core.rmsnorm import rms_norm, rms_norm_forward
from ..studies import cache, example

COURSE = Course(
    "rmsnorm-course",
    "the RMSNorm chapter",
    cache_variable=cache.VARIABLE,
    grade_file="python -m predict_check grade --course rmsnorm-course /path/to/{file}",  # wherever it is installed
)
CONTENTS = files(__name__) / "contents.txt"  # the pages with a module, in the book's order: make boxes writes it


def Prediction(exercise_id: str, gate: bool = True) -> Box:
    """The box of the exercise ``exercise_id``: a widget in Jupyter, a kernel-free form in the book."""
    return Box(COURSE.get(exercise_id), gate)


class UnsupportedClaim(AssertionError):
    """A sentence a page would print that this build's numbers do not support."""


def holds(condition: object, claim: str) -> None:
    """Stop the build where a page's sentence ``claim`` is not what the numbers show."""
    if not condition:
        raise UnsupportedClaim(f"the page would say {claim!r}, which this build's numbers do not support")


# What several pages' boxes share: the worked example, the kinds of answer it takes, fresh inputs.
X, G, EPS = example.INPUT, example.GAIN, example.EPS
TINY, FACTOR, UPSTREAM = example.TINY_INPUT, example.SCALE_FACTOR, example.UPSTREAM
PAIR = Vector(len(X))  # the worked example's vectors have two coordinates
EXACT = Number(stated=False)  # a short exact answer: the question does not ask for decimals
PAIRS = ((1.0, 2.0), (-2.0, 4.0), (6.0, 8.0), (0.5, 1.5), (5.0, -12.0))  # fresh inputs for the worked example's boxes
GAINS = ((2.0, 1.0), (0.5, 0.5), (1.0, -1.0), (2.0, 0.5), (1.5, 0.5))
BATCH_SHAPE = (2, 5, 3)  # [B, T, d] with three different sizes, so no axis can be mistaken for another
SHAPE_SEED = 25


def stages_of(x, gain=None, eps=EPS):
    """The worked example's forward pass for any row and gain, every stage kept."""
    return rms_norm_forward(np.asarray(x, dtype=float), None if gain is None else np.asarray(gain, float), eps)


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
    """x with every coordinate made 1 in size, its sign kept: what the predict page says x-hat is not."""
    return vector(np.sign(np.asarray(x, dtype=float)))


def unit(x) -> tuple[float, ...]:
    """x divided by its length: the unit vector, which the predict page says x-hat is not (a huge row's too)."""
    scaled = np.asarray(x, dtype=float) / np.max(np.abs(x))
    return vector(scaled / np.linalg.norm(scaled))


# What the chapter calls misconceptions about x-hat, each with its note (declared beside each box it fits).
EACH_ONE = (
    "That makes each coordinate 1 in size; x-hat divides every coordinate by one shared factor, so they keep "
    "their ratio."
)
UNIT = "That is the unit vector along x; x-hat divides by the root of the mean square, not by the length."


def root(mean_square: object) -> float:
    """The worked example's RMS for a student's mean square (inf or nan where it is no number)."""
    with np.errstate(all="ignore"):
        return float(np.sqrt(float(mean_square) + EPS))


PAGES = tuple(CONTENTS.read_text(encoding="utf-8").split())
for _page in PAGES:
    importlib.import_module(f"{__name__}.{_page}")

check = checker(COURSE)

__all__ = ["COURSE", "PAGES", "Prediction", "UnsupportedClaim", "check", "holds"]
