"""The predict-then-check exercises: each question, its kind, its hint, and how to solve it.

No answer is typed in. Each exercise carries a ``solve`` function that runs the
package (the forward, the backward, the evidence) when an answer is checked, and
returns the reference answer with a one-sentence explanation that quotes what it
computed, and the reasoning behind it (``detail``, folded under the verdict). For a
choice the options are part of the question, and the author marks the one held
right (``RIGHT``). Where the package's behaviour decides between them (the all-zero
row, centering and batches, the block's layout) the solver finds the option by
running it, and a test holds it to the mark; where it is a matter of reasoning (why
eps matters near zero, who owns weight decay) the solver answers with the option
the reasoning gives.

An explanation says what its own question's answer is and why, and never states the
answer to a question the chapter asks later: a verdict must not give the next box away.
"""

from __future__ import annotations

import difflib
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..core.errors import RMSNormError
from ..core.format import fmt
from ..core.layer import RMSNorm
from ..core.parameters import adamw_parameter_groups
from ..core.reference import DEFAULT_EPS
from ..core.rmsnorm import rms_norm, rms_norm_backward, rms_norm_forward
from ..grading.errors import UnknownExercise
from ..grading.kinds import RIGHT, Axis, Choice, Kind, Number, Place, Shape, Vector
from ..grading.untrusted import quoted
from ..studies import evidence, example, modern, precision, training
from ..studies.block import PreNormBlock
from ..studies.formulas import rms_norm_formula

X, G = example.INPUT, example.GAIN
TINY, FACTOR, UPSTREAM = example.TINY_INPUT, example.SCALE_FACTOR, example.UPSTREAM
BATCH_SHAPE = (2, 5, 3)  # [B, T, d] with three different sizes, so no axis can be mistaken for another
SHAPE_SEED = 25


@dataclass(frozen=True)
class Solution:
    """The reference answer, why it is right, and wrong answers worth a specific word.

    ``explanation`` is one short sentence; ``detail`` the reasoning or evidence behind
    it. ``pitfalls`` pairs a computed wrong answer that a known slip produces with a
    note naming the slip; the note never states the right answer. ``picture`` is what
    a figure draws over a placed answer once it is judged (the curve, the point).
    """

    answer: object
    explanation: str
    pitfalls: tuple[tuple[object, str], ...] = ()
    detail: str = ""
    picture: Mapping[str, object] | None = None  # for an answer placed on a figure: the truth to draw over it


@dataclass(frozen=True)
class Exercise:
    """One prediction: its title, what is asked, what kind of answer it takes, a hint, and how to solve it.

    A question asked about ``given`` inputs may be asked again about others: each of
    ``variants`` is the same exercise (same kind, hint and judge) with fresh inputs,
    for practice; ``variant(k)`` asks it. A variant never counts toward a score.
    """

    id: str
    title: str
    prompt: str
    kind: Kind
    hint: str
    solve: Callable[[], Solution] = field(repr=False)
    template: str = field(default="", repr=False)
    solver: Callable[..., Solution] | None = field(default=None, repr=False)
    given: Mapping[str, object] = field(default_factory=dict, repr=False)
    variants: tuple[Mapping[str, object], ...] = field(default=(), repr=False)

    def variant(self, number: int) -> Exercise:
        """The same question about the ``number``-th set of fresh inputs (0 is the first)."""
        if not 0 <= number < len(self.variants):
            raise IndexError(f"{self.id} has {len(self.variants)} variants; there is no variant {number}")
        inputs = {**self.given, **self.variants[number]}
        return replace(
            self,
            prompt=_asked(self.template, inputs, self.kind),
            solve=_with_options_words(functools.partial(self.solver, **inputs), self.kind),
            given=inputs,
            variants=(),
        )


EXERCISES: dict[str, Exercise] = {}  # every exercise, in the order the chapter asks them


def exercise(
    exercise_id: str,
    title: str,
    prompt: str,
    kind: Kind,
    hint: str,
    given: Mapping[str, object] | None = None,
    variants: Sequence[Mapping[str, object]] = (),
) -> Callable[[Callable[..., Solution]], Callable[..., Solution]]:
    """Register the solver below as an exercise, with its question beside it.

    With ``given``, the prompt is a template whose ``{name}`` fields are the inputs,
    written as a person would ([3, 4], 1e-05), and the solver takes them by name. The
    question ends with what the kind asks about precision ("Give six decimals."),
    written from the kind, never typed beside it.
    """

    def register(solver: Callable[..., Solution]) -> Callable[..., Solution]:
        if exercise_id in EXERCISES:
            raise ValueError(f"exercise {exercise_id!r} is registered twice")
        inputs = dict(given or {})
        solve = _with_options_words(functools.partial(solver, **inputs), kind)
        question = _asked(prompt, inputs, kind)
        EXERCISES[exercise_id] = Exercise(
            exercise_id, title, question, kind, hint, solve, prompt, solver, inputs, tuple(variants)
        )
        return solver

    return register


def _asked(template: str, inputs: Mapping[str, object], kind: Kind) -> str:
    question = template.format(**{name: _written(value) for name, value in inputs.items()}) if inputs else template
    return f"{question} {kind.instruction()}".strip()


def _written(value: object) -> str:
    """An input as a question writes it: [3, 4], 1e-05, 1,000, float32."""
    if isinstance(value, tuple):
        return _nums(value)
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def _with_options_words(solve: Callable[[], Solution], kind: Kind) -> Callable[[], Solution]:
    """The solver's solution with its slips as the judge should see them.

    For a choice, each wrong option's word joins the slips. A slip whose value the
    judge would call right (x-hat at eps = 0 where eps moves only the seventh decimal)
    is no slip there, and is left out.
    """

    def solved() -> Solution:
        solution = solve()
        pitfalls = solution.pitfalls
        if isinstance(kind, Choice):
            kind.index(solution.answer)  # a solver answers with one of the options' words
            pitfalls += kind.pitfalls(solution.answer)
        distinct = tuple(
            (value, note) for value, note in pitfalls if not kind.exactly(_read(kind, value), solution.answer)
        )
        return replace(solution, pitfalls=distinct)

    return solved


def _read(kind: Kind, value: object):
    """A value as the judge reads it, written as a person would type it."""
    return kind.read(kind.toml(value).strip('"'))


def _nums(values) -> str:
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


X_TEXT, G_TEXT, TINY_TEXT = _nums(X), _nums(G), _nums(TINY)
PAIR = Vector(len(X))  # the worked example's vectors have two coordinates
EXACT = Number(stated=False)  # a short exact answer: the question does not ask for decimals
WORKED = rms_norm_forward(X, G, DEFAULT_EPS)  # the worked example, every intermediate of its forward pass
EPS = DEFAULT_EPS
PAIRS = ((1.0, 2.0), (-2.0, 4.0), (6.0, 8.0), (0.5, 1.5), (5.0, -12.0))  # fresh inputs for the worked example's boxes
GAINS = ((2.0, 1.0), (0.5, 0.5), (1.0, -1.0), (2.0, 0.5), (1.5, 0.5))


def _forward(x, gain=None, eps=EPS):
    return rms_norm_forward(np.asarray(x, dtype=float), None if gain is None else np.asarray(gain, float), eps)


# --- Predict, then test the epsilon boundary (predict.md) -----------------------------------------


@exercise(
    "mean-square",
    "The mean square",
    "x = {x}. What is its mean square, mean(x**2)?",
    EXACT,
    "Square each coordinate, add the squares, divide by the number of coordinates d.",
    given={"x": X},
    variants=({"x": (1.0, 2.0)}, {"x": (-2.0, 4.0)}, {"x": (2.0, -1.0, 2.0)}, {"x": (0.5, 1.5)}, {"x": (6.0, 8.0)}),
)
def _mean_square(x) -> Solution:
    squares = " + ".join(f"{v:g}^2" for v in x)
    mean_square = float(_forward(x).mean_square[0])
    return Solution(
        mean_square,
        f"mean(x**2) = ({squares}) / {len(x)} = {mean_square:g}: the average of the squares.",
        pitfalls=((float(np.sum(np.square(x))), "That is the sum of the squares; the mean divides it by d."),),
        detail="The mean divides by d, so a wider row of the same values has the same mean square.",
    )


@exercise(
    "reciprocal-rms",
    "The reciprocal RMS",
    "x = {x}, eps = {eps}. What is the reciprocal RMS, 1 / sqrt(mean(x**2) + eps)?",
    Number(),
    "Add eps to the mean square, take the square root, then take 1 over it.",
    given={"x": X, "eps": EPS},
    variants=tuple({"x": x} for x in PAIRS),
)
def _reciprocal_rms(x, eps) -> Solution:
    forward = _forward(x, eps=eps)
    mean_square = float(forward.mean_square[0])
    return Solution(
        float(forward.inverse_rms[0]),
        f"1 / sqrt({mean_square:g} + {eps:g}) = {fmt(forward.inverse_rms[0])}.",
        pitfalls=((float(np.sqrt(mean_square + eps)), "That is the RMS itself; the question asks for 1 / RMS."),),
        detail="Every coordinate of x is multiplied by this one shared factor.",
    )


@exercise(
    "normalized",
    "x-hat of the worked example",
    "x = {x}, eps = {eps}. What is the RMS-rescaled vector x-hat = x / sqrt(mean(x**2) + eps), before any gain?",
    PAIR,
    "Multiply each coordinate of x by the reciprocal RMS; both coordinates share the same factor.",
    given={"x": X, "eps": EPS},
    variants=tuple({"x": x} for x in PAIRS),
)
def _normalized(x, eps) -> Solution:
    forward = _forward(x, eps=eps)
    unit_length = np.asarray(x) / np.linalg.norm(x)
    without_eps = _forward(x, eps=example.IDEAL_EPS).normalized
    return Solution(
        tuple(forward.normalized.tolist()),
        f"x-hat = x * {fmt(forward.inverse_rms[0])} = {fmt(forward.normalized)}: one shared factor, so x-hat "
        "points the way x does.",
        pitfalls=(
            (
                tuple(unit_length.tolist()),
                "That divides x by its Euclidean length; RMSNorm divides by the root of the mean square.",
            ),
            (
                tuple(without_eps.tolist()),
                f"That is x-hat at eps = 0; the question's eps = {eps:g} moves the sixth decimal.",
            ),
        ),
        detail=f"The coordinates keep their ratio, {x[0]:g} to {x[1]:g}; neither is forced to magnitude one.",
    )


@exercise(
    "output",
    "The output, after the gain",
    "x = {x}, eps = {eps}, and the gain is g = {g}. What is the output y = g * x-hat?",
    PAIR,
    "Multiply x-hat by g coordinate by coordinate: first by first, second by second.",
    given={"x": X, "eps": EPS, "g": G},
    variants=tuple({"x": x, "g": g} for x, g in zip(PAIRS, GAINS, strict=True)),
)
def _output(x, eps, g) -> Solution:
    forward = _forward(x, g, eps)
    return Solution(
        tuple(forward.output.tolist()),
        f"y = {_nums(g)} * {fmt(forward.normalized)} = {fmt(forward.output)}, coordinate by coordinate.",
        pitfalls=((tuple(forward.normalized.tolist()), "That is x-hat before the gain; the output applies g."),),
        detail="The gain rescales each feature on its own, so the output no longer points the way x does.",
    )


@exercise(
    "scaled-ideal",
    "Ten times x, with eps = 0",
    "With eps = 0, multiply x = {x} by {factor}. By how much does x-hat move: what is the largest difference, "
    "coordinate by coordinate, between x-hat of the scaled input and x-hat of x?",
    EXACT,
    "Write x-hat of a*x with eps = 0 and see what happens to a in the numerator and in the RMS.",
    given={"x": X, "factor": FACTOR},
    variants=(
        {"x": (1.0, 2.0), "factor": 100.0},
        {"x": (-2.0, 4.0), "factor": 0.01},
        {"x": (6.0, 8.0), "factor": 3.0},
        {"x": (0.5, 1.5), "factor": 1000.0},
        {"x": (5.0, -12.0), "factor": 0.5},
    ),
)
def _scaled_ideal(x, factor) -> Solution:
    card = evidence.scale_card("ideal", x, example.IDEAL_EPS, factor)
    return Solution(
        round(card.max_difference, EXACT.decimals),  # zero: what is left is rounding, far below six decimals
        f"Not at all, to rounding ({card.max_difference:.1e}): with eps = 0 the factor {factor:g} cancels.",
        pitfalls=(
            (
                float(np.max(np.abs((factor - 1) * card.original))),
                "That scales x-hat by the factor; with eps = 0 the factor cancels.",
            ),
            (
                float(np.max(np.abs((factor - 1) * np.asarray(x)))),
                "That is how far x itself moves; x-hat divides the factor out again.",
            ),
        ),
        detail=(
            f"{factor:g} multiplies the numerator and, through the RMS, the denominator: x-hat of {factor:g}x is "
            f"{fmt(card.scaled)}, the same as x-hat of x."
        ),
    )


EPS_NEAR_ZERO_OPTIONS = {
    f"{TINY_TEXT}, because eps is added to each of its small coordinates": (
        "eps is not added to x: it sits under the square root, beside the row's mean square."
    ),
    f"{X_TEXT}, because its larger squares lose more digits next to eps": (
        "float64 adds 1e-05 to 12.5 with digits to spare; look at how large eps is next to each mean square."
    ),
    f"{TINY_TEXT}, because its mean square is smaller than eps": RIGHT,
    "neither: dividing by the row's own RMS cancels eps as well": (
        "Scaling x scales its mean square but not eps, so eps does not cancel."
    ),
}


@exercise(
    "eps-near-zero",
    "Which row eps changes",
    f"Before you compute it: eps = {EPS:g} sits under the root, sqrt(mean(x**2) + eps). Which x-hat does it "
    f"change more, that of x = {X_TEXT} or that of x = {TINY_TEXT}, and why?",
    Choice.of(EPS_NEAR_ZERO_OPTIONS),
    "Compare eps with each vector's mean square: which one does adding eps change?",
)
def _eps_near_zero() -> Solution:
    tiny = rms_norm(TINY, None, EPS) - rms_norm(TINY, None, example.IDEAL_EPS)
    ordinary = rms_norm(X, None, EPS) - rms_norm(X, None, example.IDEAL_EPS)
    ms_tiny = float(np.mean(np.square(TINY)))
    if np.max(np.abs(tiny)) <= np.max(np.abs(ordinary)):
        raise AssertionError("eps changes the ordinary row at least as much as the tiny one")
    return Solution(
        f"{TINY_TEXT}, because its mean square is smaller than eps",
        f"The tiny row: its mean square, {ms_tiny:.3g}, is smaller than eps, so eps sets most of its denominator.",
        detail=(
            f"eps is a fixed amount: beside a mean square of {float(np.mean(np.square(X))):g} it moves x-hat by at "
            f"most {np.max(np.abs(ordinary)):.1e}; beside {ms_tiny:.3g} it sets the denominator."
        ),
    )


TINY_PAIRS = ((0.0001, 0.0002), (0.001, 0.002), (0.0006, 0.0008), (-0.0005, 0.0012), (0.002, 0.0015))


@exercise(
    "tiny-normalized",
    "x-hat of a tiny vector",
    "Now x = {x} and eps = {eps}. What is x-hat, before the gain?",
    PAIR,
    "Add eps to the mean square of this x before you take the square root.",
    given={"x": TINY, "eps": EPS},
    variants=tuple({"x": x} for x in TINY_PAIRS),
)
def _tiny_normalized(x, eps) -> Solution:
    forward = _forward(x, eps=eps)
    ideal = _forward(x, eps=example.IDEAL_EPS).normalized
    return Solution(
        tuple(forward.normalized.tolist()),
        f"x-hat = x / sqrt({float(forward.mean_square[0]):.3g} + {eps:g}) = {fmt(forward.normalized)}: "
        "the direction of x, but shorter than at eps = 0.",
        pitfalls=(
            (tuple(ideal.tolist()), "That is the eps = 0 ideal; here eps is not small next to the mean square."),
        ),
        detail="The smaller the mean square is next to eps, the more of the denominator eps sets.",
    )


@exercise(
    "tiny-scaled",
    "Ten times the tiny vector",
    "Keep eps = {eps} and multiply x = {x} by {factor}. What is x-hat of the scaled input?",
    PAIR,
    "Scaling x by a multiplies the mean square by a squared; eps stays where it is.",
    given={"x": TINY, "eps": EPS, "factor": FACTOR},
    variants=tuple({"x": x, "factor": factor} for x, factor in zip(TINY_PAIRS, (10.0, 5.0, 2.0, 10.0, 0.1))),
)
def _tiny_scaled(x, eps, factor) -> Solution:
    card = evidence.scale_card("near-zero", x, eps, factor)
    return Solution(
        tuple(card.scaled.tolist()),
        f"x-hat of {factor:g}x is {fmt(card.scaled)}, against {fmt(card.original)} for x: near zero, scale is "
        "not cancelled.",
        pitfalls=(
            (tuple(card.original.tolist()), "That is x-hat of the unscaled input; eps does not scale with x."),
            (
                tuple(rms_norm(factor * np.asarray(x), None, example.IDEAL_EPS).tolist()),
                "That is the eps = 0 ideal; here eps still matters.",
            ),
        ),
        detail=(
            f"Scaling by {factor:g} multiplies the mean square by {factor**2:g} but leaves eps at {eps:g}, "
            f"so x-hat moves by up to {card.max_difference:.6f}."
        ),
    )


# --- Follow one feature vector (follow-one-vector.md) ---------------------------------------------


@exercise(
    "plateau-value",
    "The mean square of x-hat",
    "For x = {x} and eps = {eps}, what is the mean square of x-hat?",
    Number(),
    "mean(x-hat**2) = ms / (ms + eps): close to one when the mean square dwarfs eps.",
    given={"x": X, "eps": EPS},
    variants=(
        {"x": (1.0, 2.0)},
        {"x": (0.01, 0.02)},
        {"x": (0.003, 0.004)},
        {"x": (3.0, 4.0), "eps": 1.0},
        {"x": (0.001, -0.002), "eps": 1e-6},
    ),
)
def _plateau_value(x, eps) -> Solution:
    forward = _forward(x, eps=eps)
    value = float(np.mean(np.square(forward.normalized)))
    ms = float(forward.mean_square[0])
    return Solution(
        value,
        f"{ms:g} / ({ms:g} + {eps:g}) = {fmt(value)}: under one, by as much as eps is large next to {ms:g}.",
        pitfalls=(
            (float(np.mean(np.square(forward.normalized * np.asarray(G)))), "That applies the worked example's gain."),
            (1.0, "That is the eps = 0 ideal, exactly one; with eps in the denominator the mean square falls short."),
        ),
        detail=f"Only at eps = 0 is it exactly one; x-hat = {fmt(forward.normalized)} squares to a little less.",
    )


# --- The formula and its symbols (formula.md) -----------------------------------------------------


def _shape_example() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Seeded input, gain and upstream gradient for an input of shape BATCH_SHAPE; then the output."""
    rng = np.random.default_rng(SHAPE_SEED)
    x = rng.normal(size=BATCH_SHAPE)
    gain = rng.normal(size=BATCH_SHAPE[-1])
    upstream = rng.normal(size=BATCH_SHAPE)
    return x, gain, upstream, rms_norm(x, gain, EPS)


@exercise(
    "output-shape",
    "The output's shape",
    f"An input has shape [B, T, d] = {list(BATCH_SHAPE)}. What is the shape of RMSNorm's output?",
    Shape(),
    "RMSNorm rescales each feature vector; does it add, drop or reorder any axis?",
)
def _output_shape() -> Solution:
    x, _, _, y = _shape_example()
    return Solution(
        y.shape,
        f"An input of shape {x.shape} comes out with shape {y.shape}: every axis is kept.",
        pitfalls=((x.shape[:-1], "That drops the feature axis; RMSNorm keeps every axis of its input."),),
        detail=f"Each of the {int(np.prod(x.shape[:-1]))} rows of width {x.shape[-1]} is rescaled on its own.",
    )


CENTERING = {  # (its output's mean is zero, the other row changes it) -> the option that says so
    (True, True): "mean zero; changes if the other row changes",
    (True, False): "mean zero; the same whatever the other row",
    (False, True): "mean not zero; changes if the other row changes",
    (False, False): "mean not zero; the same whatever the other row",
}


@exercise(
    "centering-and-batch",
    "What RMSNorm leaves out",
    f"The rows {_nums(example.ANCHOR)} and {_nums(example.COMPANION)} go through RMSNorm as one batch. What is true "
    f"of the output for {_nums(example.ANCHOR)}: is its mean zero, and does it change if the other row is replaced?",
    Choice.of(
        {
            CENTERING[True, True]: "That is BatchNorm, which centers each feature with the whole batch's statistics.",
            CENTERING[True, False]: "That is LayerNorm, which subtracts each row's own mean before rescaling.",
            CENTERING[False, True]: "A statistic shared across the batch would let one row's output depend on another.",
            CENTERING[False, False]: RIGHT,
        }
    ),
    "Look at the formula: which numbers enter the mean square, and is anything subtracted from x?",
)
def _centering_and_batch() -> Solution:
    h = evidence.history()
    mixes = not np.array_equal(h.rms_norm_with_companion, h.rms_norm_with_itself)
    centers = abs(h.rms_mean) < 1e-12
    return Solution(
        CENTERING[centers, mixes],
        "Its mean is not zero, and no other row can change it: the one statistic is the row's own mean square.",
        detail=(
            f"Next to {_nums(example.COMPANION)} or next to a copy of itself, {_nums(example.ANCHOR)} comes out the "
            "same, and nothing is subtracted from it."
        ),
    )


@exercise(
    "anchor-mean",
    "The mean of x-hat",
    "With eps = 0, what is the mean of x-hat for the row x = {x}?",
    Number(),
    "RMSNorm divides by the RMS and subtracts nothing: average the coordinates of x / RMS.",
    given={"x": example.ANCHOR},
    variants=({"x": (2.0, 2.0)}, {"x": (-1.0, 3.0)}, {"x": (3.0, 4.0)}, {"x": (1.0, 1.0, 4.0)}, {"x": (-2.0, -1.0)}),
)
def _anchor_mean(x) -> Solution:
    normalized = _forward(x, eps=example.IDEAL_EPS).normalized
    return Solution(
        float(np.mean(normalized)),
        f"x-hat = {fmt(normalized)}, whose mean is {fmt(np.mean(normalized))}: nothing is subtracted.",
        pitfalls=((0.0, "That is LayerNorm's answer; it subtracts the mean, RMSNorm does not."),),
        detail="A row on one side of zero stays on that side: RMSNorm rescales it and keeps its mean's sign.",
    )


CIRCLE = Axis(0.0, 360.0, "angle", "where x-hat lands: degrees from the first axis")


@exercise(
    "circle-image",
    "Where x-hat lands on the circle",
    "With eps = 0, RMSNorm sends x = {x} onto the circle of radius sqrt(2). Place the marker where x-hat lands.",
    Place(CIRCLE, tolerance=5.0, relative=False),
    "Dividing by a positive number changes a vector's length, never the way it points.",
    given={"x": (-1.0, 2.0)},
    variants=({"x": (3.0, 1.0)}, {"x": (-2.0, -2.0)}, {"x": (1.0, -3.0)}, {"x": (0.5, 2.0)}, {"x": (-4.0, 1.0)}),
)
def _circle_image(x) -> Solution:
    image = _forward(x, eps=example.IDEAL_EPS).normalized
    angle = float(np.degrees(np.arctan2(image[1], image[0])) % 360.0)
    centred = np.asarray(x) - np.mean(x)
    return Solution(
        angle,
        f"At {angle:.0f} degrees, x-hat = {fmt(image)}: the way x points, at length sqrt(2).",
        pitfalls=(
            (
                float(np.degrees(np.arctan2(centred[1], centred[0])) % 360.0),
                "That is where LayerNorm sends it: it subtracts the mean first.",
            ),
            ((angle + 180.0) % 360.0, "That points against x; dividing by a positive RMS keeps its direction."),
        ),
        detail=f"|x-hat| = {np.linalg.norm(image):.6f}: every nonzero x lands on the circle, in its own direction.",
        picture={"point": [float(v) for v in image], "input": [float(v) for v in x]},
    )


# --- Scale invariance and the epsilon boundary (scale-and-epsilon.md) -----------------------------


RMS_AXIS = Axis(1e-6, 1.0, "log", "RMS of the input (log scale)")


@exercise(
    "crossover-rms",
    "Where eps takes half",
    "For eps = {eps}, place the marker on the RMS axis where mean(x-hat**2) = ms / (ms + eps) is one half.",
    Place(RMS_AXIS, tolerance=0.15),
    "One half means the mean square equals eps.",
    given={"eps": EPS},
    variants=({"eps": 1e-6}, {"eps": 1e-4}, {"eps": 1e-3}, {"eps": 1e-8}, {"eps": 1e-2}),
)
def _crossover_rms(eps) -> Solution:
    rms = float(np.sqrt(eps))
    half = float(np.mean(np.square(rms_norm_forward([rms], None, eps).normalized)))
    axis = np.geomspace(RMS_AXIS.low, RMS_AXIS.high, 61)
    curve = [float(np.mean(np.square(rms_norm(np.array([r]), None, eps)))) for r in axis]
    return Solution(
        rms,
        f"ms / (ms + eps) = 1/2 when ms = eps, so the RMS is sqrt({eps:g}) = {fmt(rms)}.",
        pitfalls=((eps, "That is eps itself, a mean square; the crossing is at an RMS, its square root."),),
        detail=f"rms_norm of [{fmt(rms)}] gives mean(x-hat**2) = {fmt(half)}.",
        picture={"curve": [[float(r), y] for r, y in zip(axis, curve, strict=True)], "level": 0.5},
    )


# --- From BatchNorm and LayerNorm to pre-norm language models (history.md) ------------------------


COMPANION = {  # (BatchNorm's, LayerNorm's, RMSNorm's output changes) -> the option that says so
    (True, False, False): "BatchNorm's alone",
    (False, True, False): "LayerNorm's alone",
    (False, False, True): "RMSNorm's alone",
    (True, True, True): "all three norms'",
    (False, False, False): "none of the three's",
}


@exercise(
    "companion-changes",
    "Whose output depends on the batch",
    f"The row {_nums(example.ANCHOR)} is normalized next to {_nums(example.COMPANION)}, then next to a copy "
    "of itself. Whose output for that row changes?",
    Choice.of(
        {
            COMPANION[True, False, False]: RIGHT,
            COMPANION[False, True, False]: (
                "LayerNorm's mean and variance come from the row's own features; a companion cannot reach them."
            ),
            COMPANION[False, False, True]: (
                "RMSNorm's mean square comes from the row's own features; a companion cannot reach it."
            ),
            COMPANION[True, True, True]: (
                "LayerNorm and RMSNorm take their statistics across one example's features; can a companion "
                "change those?"
            ),
            COMPANION[False, False, False]: (
                "One of the three takes its statistics across the examples of the batch, so the companion enters them."
            ),
        }
    ),
    "Which of the three takes its statistics across the examples of a batch?",
)
def _companion_changes() -> Solution:
    h = evidence.history()
    changed = (
        not np.array_equal(h.batch_with_companion, h.batch_with_itself),
        not np.array_equal(h.layer_norm_with_companion, h.layer_norm_with_itself),
        not np.array_equal(h.rms_norm_with_companion, h.rms_norm_with_itself),
    )
    if changed not in COMPANION:
        raise AssertionError(f"the outputs change as {changed}, which no option says")
    return Solution(
        COMPANION[changed],
        "BatchNorm's alone: it takes each feature's statistics across the batch; the other two use one row.",
        detail=(
            f"BatchNorm gives {fmt(h.batch_with_companion)} and then {fmt(h.batch_with_itself)}; LayerNorm gives "
            f"{fmt(h.layer_norm_with_companion)} both times, RMSNorm {fmt(h.rms_norm_with_companion)} both times."
        ),
    )


# --- The implementation (implementation.md) -------------------------------------------------------


HALF = precision.HALF_PRECISION_ROW[0]  # the precision page's float16 example
HALF_MAX = float(np.finfo(np.float16).max)


def _float16_square_option(square: np.float16) -> str:
    """The option that names what float16 made of the square."""
    if np.isinf(square):
        return "inf"
    if np.isnan(square):
        return "nan"
    return f"{float(square):g}"


@exercise(
    "half-precision-square",
    f"{HALF:g} squared in float16",
    f"In float16, what is {HALF:g} squared?",
    Choice.of(
        {
            f"{HALF**2:g}": f"{HALF**2:g} is the exact square, but it is larger than any finite float16 can be.",
            f"{HALF_MAX:g}": (
                f"{HALF_MAX:g} is float16's largest value, and a result too large to hold is not clamped to it."
            ),
            "inf": RIGHT,
            "nan": "NaN comes from operations with no value, like 0 / 0; squaring a finite number always has one.",
        }
    ),
    f"float16's largest finite value is {HALF_MAX:g}.",
)
def _half_precision_square() -> Solution:
    with np.errstate(over="ignore"):
        square = np.square(np.float16(HALF))
    return Solution(
        _float16_square_option(square),
        f"np.square(np.float16({HALF:g})) is {square}: {HALF**2:g} is past float16's largest value, so it overflows.",
        detail="A result too large for its format is not clamped: it becomes infinity.",
    )


@exercise(
    "integer-dtype",
    "Integers in: which dtype out?",
    f"rms_norm is handed the integer array {_nums(X)} (dtype int64). x / RMS needs floating point. In which "
    "dtype does the output come back, if the package keeps as many of an int64's digits as it can?",
    Choice.of(
        {
            "int64": "x / RMS is rarely a whole number, so an integer output would round the result away.",
            "float16": (
                f"float16 overflows above {HALF_MAX:g} and keeps about three digits; the policy never "
                "narrows integers that far."
            ),
            "float32": "int64 values can need more than float32's 24 significant bits; the policy does not risk it.",
            "float64": RIGHT,
        }
    ),
    "Compare the significant bits each float format keeps with an int64's 63.",
)
def _integer_dtype() -> Solution:
    dtype = rms_norm(np.array(X, dtype=np.int64)).dtype
    return Solution(
        str(dtype),
        f"{dtype}: of the three formats it keeps the most of an int64's digits.",
        detail=f"rms_norm(np.array({_nums(X)}, dtype=int64)) returns {dtype}; integers and bools are computed in it.",
    )


# --- The backward pass (backward.md) --------------------------------------------------------------


GRADIENT_CASES = (  # fresh rows, gains and upstream gradients for the backward's boxes
    {"x": (1.0, 2.0), "g": (1.0, 1.0), "upstream": (1.0, 0.0)},
    {"x": (-2.0, 4.0), "g": (0.5, 2.0), "upstream": (1.0, 1.0)},
    {"x": (6.0, 8.0), "g": (1.0, -1.0), "upstream": (0.0, 2.0)},
    {"x": (0.5, 1.5), "g": (2.0, 0.5), "upstream": (-1.0, 3.0)},
    {"x": (5.0, -12.0), "g": (1.5, 0.5), "upstream": (2.0, 1.0)},
)


@exercise(
    "grad-x",
    "The input's gradient",
    "x = {x}, g = {g}, eps = {eps}, upstream gradient grad_output = {upstream}. What is grad_x?",
    PAIR,
    "x enters twice: in the numerator and in the RMS. With u = grad_output * g, "
    "grad_x = r * (u - x-hat * mean(u * x-hat)).",
    given={"x": X, "g": G, "eps": EPS, "upstream": UPSTREAM},
    variants=GRADIENT_CASES,
)
def _grad_x(x, g, eps, upstream) -> Solution:
    p = evidence.primary(x, g, eps, upstream)
    constant_rms = p.forward.inverse_rms * p.upstream * p.gain
    return _gradient(
        p.grad_x,
        f"grad_x = r * (u - x-hat * mean(u * x-hat)) with u = {fmt(p.upstream * p.gain)}",
        evidence.gradient_checks(p)[0],
        (constant_rms, "That treats the RMS as a constant; x also moves the RMS, which adds a second term."),
    )


def _gradient(values: np.ndarray, derivation: str, check, slip: tuple[np.ndarray, str]) -> Solution:
    """A gradient of the worked example: how it is derived, and how far a numerical check agrees with it."""
    return Solution(
        tuple(values.tolist()),
        f"{derivation}: {fmt(values)}.",
        pitfalls=((tuple(slip[0].tolist()), slip[1]),),
        detail=(
            f"Nudging each coordinate up and down by {check.step:g} changes the loss at these rates, "
            f"to within {max(c.error for c in check.checks):.0e}."
        ),
    )


@exercise(
    "grad-gain",
    "The gain's gradient",
    "x = {x}, g = {g}, eps = {eps}, grad_output = {upstream}. What is grad_gain?",
    PAIR,
    "y = g * x-hat, so each gain coordinate's gradient is grad_output times the matching x-hat coordinate.",
    given={"x": X, "g": G, "eps": EPS, "upstream": UPSTREAM},
    variants=GRADIENT_CASES,
)
def _grad_gain(x, g, eps, upstream) -> Solution:
    p = evidence.primary(x, g, eps, upstream)
    uses_y = (p.upstream * p.forward.output, "That uses y; the gain multiplies x-hat.")
    derivation = f"grad_gain = grad_output * x-hat = {_nums(upstream)} * {fmt(p.forward.normalized)}"
    return _gradient(p.grad_gain, derivation, evidence.gradient_checks(p)[1], uses_y)


@exercise(
    "gain-gradient-shape",
    "The gain gradient's shape",
    f"An input of shape [B, T, d] = {list(BATCH_SHAPE)} goes through RMSNorm, whose gain holds one number per "
    "feature. What is the shape of the gain's gradient?",
    Shape(),
    "A gradient has the shape of the thing it is the gradient of; how many numbers does the gain hold?",
)
def _gain_gradient_shape() -> Solution:
    x, gain, upstream, _ = _shape_example()
    grad_x, grad_gain = rms_norm_backward(x, gain, DEFAULT_EPS, upstream)
    return Solution(
        grad_gain.shape,
        f"{grad_gain.shape}, the gain's own shape: every row's grad_output * x-hat is summed into it.",
        pitfalls=((x.shape, "That is the input's shape; a parameter's gradient has the parameter's shape."),),
        detail=f"It sums over all {int(np.prod(x.shape[:-1]))} rows; grad_x has the input's shape, {grad_x.shape}.",
    )


@exercise(
    "grad-x-scaled",
    "The gradient of a scaled input",
    "With eps = 0, x = {x}, g = {g} and grad_output = {upstream}, multiply x by {scale}. grad_x of the scaled "
    "input is grad_x of x times what factor?",
    EXACT,
    "At eps = 0 the output does not change when x is scaled, but the chain rule still passes through 1 / RMS.",
    given={"x": X, "g": G, "upstream": UPSTREAM, "scale": 4.0},  # not the scale cards' ten: not their answer
    variants=({"scale": 2.0}, {"scale": 0.5}, {"scale": 10.0}, {"scale": 0.25}, {"scale": 8.0}),
)
def _grad_x_scaled(x, g, upstream, scale) -> Solution:
    grad_x, _ = rms_norm_backward(x, g, example.IDEAL_EPS, upstream)
    scaled, _ = rms_norm_backward(scale * np.asarray(x), g, example.IDEAL_EPS, upstream)
    factor = float(scaled[0] / grad_x[0])
    return Solution(
        factor,
        f"{factor:g} = 1/{scale:g}: the output is unchanged, so its sensitivity to each coordinate shrinks as x grows.",
        pitfalls=(
            (scale, "That is the factor on x; the gradient moves the other way."),
            (1.0, "The output is scale invariant at eps = 0, but its gradient is not."),
        ),
        detail=f"grad_x goes from {fmt(grad_x)} to {fmt(scaled)}.",
    )


# --- Boundaries (boundaries.md) -------------------------------------------------------------------


ZERO_ROW = {  # what can become of the all-zero row
    "zeros": "a row of zeros",
    "nan": "a row of NaNs",
    "inf": "a row of plus infinities",
    "error": "an error naming the row",
}


def _zero_row_outcome(eps: float) -> tuple[str, str]:
    """Run RMSNorm on the all-zero row and say which option happened, quoting the result."""
    try:
        output = rms_norm(example.ZERO_ROW, G, eps)
    except RMSNormError as error:
        return ZERO_ROW["error"], f"rms_norm({_nums(example.ZERO_ROW)}, g, eps={eps:g}) refused it: {error}"
    quoted = f"rms_norm({_nums(example.ZERO_ROW)}, g, eps={eps:g}) returned {fmt(output)}"
    for key, test in (("zeros", lambda y: y == 0), ("nan", np.isnan), ("inf", np.isposinf)):
        if np.all(test(output)):
            return ZERO_ROW[key], quoted
    raise AssertionError(f"{quoted}, which matches none of the options {ZERO_ROW}")


@exercise(
    "zero-row-positive-eps",
    "An all-zero row, with eps > 0",
    f"What does RMSNorm's formula give for the all-zero row {_nums(example.ZERO_ROW)} with eps = {DEFAULT_EPS:g}?",
    Choice.of(
        {
            ZERO_ROW["zeros"]: RIGHT,
            ZERO_ROW["nan"]: "NaN needs 0 / 0, and with eps > 0 the denominator sqrt(0 + eps) is not zero.",
            ZERO_ROW["inf"]: "Infinity needs a division by zero, and sqrt(0 + eps) is not zero.",
            ZERO_ROW["error"]: "With eps > 0 the division is well defined for every row, so nothing needs refusing.",
        }
    ),
    "With eps > 0, can the denominator sqrt(mean(x**2) + eps) be zero?",
)
def _zero_row_positive_eps() -> Solution:
    option, quoted = _zero_row_outcome(DEFAULT_EPS)
    return Solution(
        option,
        "A row of zeros: the denominator is sqrt(0 + eps), not zero, and 0 divided by it is 0.",
        detail=f"{quoted}.",
    )


@exercise(
    "zero-row-zero-eps",
    "An all-zero row, with eps = 0",
    f"With eps = 0 the formula divides the all-zero row {_nums(example.ZERO_ROW)} by sqrt(0). "
    "What does this package's rms_norm do with that row?",
    Choice.of(
        {
            ZERO_ROW["zeros"]: "With eps = 0 the RMS of this row is 0, and 0 / 0 has no value to return as zeros.",
            ZERO_ROW["nan"]: (
                "NaN is what the formula gives (0 / 0), and what PyTorch returns; this package checks the row first."
            ),
            ZERO_ROW["inf"]: "0 / 0 is not infinite: the formula gives NaN, and this package checks the row first.",
            ZERO_ROW["error"]: RIGHT,
        }
    ),
    "This package checks every row before it divides, and says which row it cannot normalize.",
)
def _zero_row_zero_eps() -> Solution:
    option, quoted = _zero_row_outcome(0.0)
    return Solution(
        option,
        "It refuses the row, naming it, where the formula would give 0 / 0 = NaN.",
        detail=f"{quoted}. A NaN would spread through every later layer.",
    )


@exercise(
    "huge-row",
    "A row whose squares overflow",
    "With eps = 0, what is x-hat of the row {row}, whose squares overflow float64?",
    PAIR,
    "x-hat depends only on the direction of x, and the package rescales rows whose squares overflow.",
    given={"row": (1e200, 2e200)},
    variants=(
        {"row": (1e200, 3e200)},
        {"row": (-2e250, 1e250)},
        {"row": (3e300, 4e300)},
        {"row": (5e180, -5e180)},
        {"row": (1e160, 7e160)},
    ),
)
def _huge_row(row) -> Solution:
    normalized = _forward(row, eps=example.IDEAL_EPS).normalized
    largest = max(abs(v) for v in row)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.asarray(row) / np.sqrt(np.mean(np.square(row)))
    return Solution(
        tuple(normalized.tolist()),
        f"{fmt(normalized)}, the x-hat of {_nums(np.asarray(row) / largest)}: the row is divided by its largest "
        "magnitude before squaring.",
        pitfalls=((tuple(naive.tolist()), "That is the formula as written; the package rescales before squaring."),),
        detail=f"The formula as written squares first, and squares of {largest:g} are past float64's largest value.",
    )


# --- RMSNorm inside the model (in-the-model.md) ---------------------------------------------------


PLACEMENTS = {  # where the norm sits, as the block computes it
    "post": "h = RMSNorm(h + F(h))",
    "pre": "h = h + F(RMSNorm(h))",
    "branch output": "h = h + RMSNorm(F(h))",
    "both paths": "h = RMSNorm(h) + F(RMSNorm(h))",
}


@exercise(
    "pre-norm-placement",
    "Where the norm sits in a block",
    "Where does RMSNorm sit in a pre-normalized residual block with learned branch F and residual stream h?",
    Choice.of(
        {
            PLACEMENTS["post"]: "That is post-norm: the norm sits on the stream itself, after each addition.",
            PLACEMENTS["pre"]: RIGHT,
            PLACEMENTS["branch output"]: (
                "Normalizing the branch's output fixes what it adds, but the branch still reads the raw stream."
            ),
            PLACEMENTS["both paths"]: "That replaces the stream by a normalized copy: the identity path no longer "
            "carries h.",
        }
    ),
    "Pre-norm normalizes what the learned branch reads; what does the identity path carry?",
)
def _pre_norm_placement() -> Solution:
    """Each option as a formula, tried against the package's own pre-norm block: the one that reproduces it wins."""
    block = PreNormBlock(len(X), seed=SHAPE_SEED)
    x = np.array([X, example.ANCHOR])  # two positions of a sequence, width d = 2
    trace = block.trace(x)
    norm, branch = block.attention_norm, block.mixing
    candidates = {
        PLACEMENTS["post"]: norm(x + branch(x)),
        PLACEMENTS["pre"]: x + branch(norm(x)),
        PLACEMENTS["branch output"]: x + norm(branch(x)),
        PLACEMENTS["both paths"]: norm(x) + branch(norm(x)),
    }
    matches = [option for option, h in candidates.items() if np.array_equal(h, trace.h)]
    if len(matches) != 1:
        raise AssertionError(f"options {matches} reproduce the block; expected exactly one")
    return Solution(
        matches[0],
        f"{matches[0]}: the branch reads a normalized copy, and the stream itself passes through untouched.",
        detail=(
            "In the chapter's pre-norm block the attention branch reads rows with mean square "
            f"{fmt(np.mean(np.square(trace.attention_input), axis=-1))}, while the stream's rows have "
            f"{fmt(np.mean(np.square(trace.h), axis=-1))} once the branch is added."
        ),
    )


@exercise(
    "no-decay-policy",
    "Who decides weight decay",
    "Why is leaving the gain out of weight decay an optimizer policy rather than part of RMSNorm?",
    Choice.of(
        {
            "a term in the formula cancels weight decay for the gain": (
                "No term of y = g * x / sqrt(mean(x**2) + eps) involves weight decay, so nothing cancels it."
            ),
            "the optimizer's parameter groups decide what is decayed": RIGHT,
            "the gain has no gradient, so decay would be its only update": (
                "The gain does get a gradient: each g_i multiplies an output, so the loss depends on it."
            ),
            "weight decay is applied inside the forward pass": (
                "Weight decay shrinks parameters in the optimizer's update step, not in the forward pass."
            ),
        }
    ),
    "Look for weight decay in y = g * x / sqrt(mean(x**2) + eps). Where is it decided?",
)
def _no_decay_policy() -> Solution:
    layer = RMSNorm(len(X), DEFAULT_EPS, example.GAIN_NAME)
    (gain,) = layer.parameters()
    usual = adamw_parameter_groups(layer.parameters())
    decayed = adamw_parameter_groups(layer.parameters(), no_decay=[])
    if usual.no_decay != (example.GAIN_NAME,) or decayed.decay != (example.GAIN_NAME,):
        raise AssertionError(f"the groups {usual} and {decayed} do not show the policy deciding")
    return Solution(
        "the optimizer's parameter groups decide what is decayed",
        "The optimizer's groups decide: the formula never mentions weight decay, and computes the same either way.",
        detail=(
            f"By default every parameter of rank one or less, the gain {example.GAIN_NAME} (shape "
            f"{gain.value.shape}) among them, is left undecayed; passing no_decay=[] decays it instead."
        ),
    )


# --- Does the centre matter in training? (training.md) --------------------------------------------


TRAINING = {  # which network ends lowest on held-out examples
    "none": "no normalization, ahead of both norms",
    "layer": "LayerNorm, by more than a fifth",
    "rms": "RMSNorm, by more than a fifth",
    "close": "the two norms, within a fifth",
}
CLOSE_SHARE = 0.2  # "within a fifth": the held-out losses of the two norms, relative to the lower


@exercise(
    "training-outcome",
    "Which network generalizes best",
    "The 16-block network is trained three ways from the same start: with no normalization, with LayerNorm, "
    "with RMSNorm. Which ends with the lowest loss on examples it never saw?",
    Choice.of(
        {
            TRAINING["none"]: "Without a norm the stream grows with depth and the first steps are spent taming it.",
            TRAINING["layer"]: "Subtracting the mean is the one thing LayerNorm adds; does this task need it?",
            TRAINING["rms"]: "RMSNorm does less than LayerNorm, not more; what could it gain here?",
            TRAINING["close"]: RIGHT,
        }
    ),
    "Both norms keep every branch's input at RMS one; only one also subtracts the mean.",
)
def _training_outcome() -> Solution:
    runs = training.experiment(training.Setup())  # the same cached runs as the training page
    none, layer, rms = (runs[variant].held_out_loss for variant in training.VARIANTS)
    if none < min(layer, rms):
        key = "none"
    elif abs(layer - rms) <= CLOSE_SHARE * min(layer, rms):
        key = "close"
    else:
        key = "layer" if layer < rms else "rms"
    return Solution(
        TRAINING[key],
        f"Held-out losses: {none:.3g} without a norm, {layer:.3f} with LayerNorm, {rms:.3f} with RMSNorm.",
        detail="Subtracting the mean bought nothing on this task.",
    )


# --- RMSNorm in today's models: gains and attention (modern-gains.md) -----------------------------


@exercise(
    "one-plus-gain",
    "A 1 + w gain under weight decay",
    "A gain stored as 1 + w has been trained to w = {w}. Weight decay alone then multiplies w by 1 - {rate} at "
    "each step. What is the gain after {steps} steps with no gradient?",
    Number(),
    "Compute w after the steps, (1 - rate) to the power of the steps times w, then add one.",
    given={"w": round(modern.TRAINED_GAIN - 1, 12), "rate": modern.DECAY_PER_STEP, "steps": modern.DECAY_STEPS},
    variants=(
        {"w": 0.5},
        {"w": -0.2, "steps": 500},
        {"w": 0.3, "rate": 1e-4, "steps": 5000},
        {"w": 1.0, "rate": 0.01, "steps": 100},
        {"w": 0.8, "steps": 2000},
    ),
)
def _one_plus_gain(w, rate, steps) -> Solution:
    decay = modern.gain_decay(1 + w, rate, steps)
    exponential = 1 + w * float(np.exp(-rate * steps))
    return Solution(
        float(decay.one_plus[-1]),
        f"w shrinks to {decay.one_plus[-1] - 1:.6f}, so the gain is {decay.one_plus[-1]:.6f}: it heads for one.",
        pitfalls=(
            (float(decay.plain[-1]), "That is a plain gain decayed; here the decay acts on w, not on 1 + w."),
            (exponential, "That uses exp(-rate * steps) for (1 - rate) to the steps: close, but not at six decimals."),
        ),
        detail=f"A plain gain would decay itself, to {decay.plain[-1]:.6f}, heading for zero.",
    )


@exercise(
    "qk-logit-bound",
    "How large a QK-normed logit can be",
    "With RMSNorm on every query and key (gain one, eps = 0), each has length sqrt(d). For head width d = {width}, "
    "what is the largest value the attention logit q . k / sqrt(d) can take?",
    EXACT,
    "q . k is at most |q| |k|, reached when the two point the same way.",
    given={"width": modern.HEAD_WIDTH},
    variants=({"width": 16}, {"width": 128}, {"width": 256}, {"width": 100}, {"width": 36}),
)
def _qk_logit_bound(width) -> Solution:
    bound = modern.qk_logit_bound(width)
    return Solution(
        bound,
        f"q . k <= |q| |k| = d, so q . k / sqrt(d) <= sqrt(d) = {bound:g}, whatever the activations' scale.",
        pitfalls=(
            (float(width), "That is q . k itself, before the division by sqrt(d)."),
            (1.0, "Each coordinate of a normalized vector is not at most one; its mean square is one."),
        ),
        detail="Without the norm, logits grow with the square of the activations' scale; with it, never past this.",
    )


# --- RMSNorm in today's models: where the norms sit (modern-blocks.md) ---------------------------


GROWTH = {  # the slope of log RMS against log depth each option names
    0.0: "it stays near one at every depth",
    0.5: "it grows as the square root of the depth",
    1.0: "it grows in proportion to the depth",
    None: "it grows exponentially, by the gain each block",
}


@exercise(
    "sandwich-growth",
    "The stream under sandwich norms",
    f"In a sandwich block, h + norm(F(norm(h))), each branch's output is normalized to RMS one before it is "
    f"added. Over {modern.DEPTH} blocks whose branches amplify {modern.BRANCH_GAIN:g}-fold, in independent "
    "directions, how does the residual stream's RMS grow?",
    Choice.of(
        {
            GROWTH[0.0]: "That is post-norm, where the stream itself is normalized; here only the branch is.",
            GROWTH[0.5]: RIGHT,
            GROWTH[1.0]: "Additions of independent directions add in their squares, not in their lengths.",
            GROWTH[None]: "The branch's own gain is undone by the norm after it, before anything is added.",
        }
    ),
    "Add vectors of RMS one in independent directions: what happens to the mean square of the sum?",
)
def _sandwich_growth() -> Solution:
    depth = modern.stream_through_depth()
    exponent = depth.growth_exponent("sandwich")
    nearest = min((0.0, 0.5, 1.0), key=lambda slope: abs(exponent - slope)) if exponent < 1.5 else None
    sandwich = depth.stream_rms["sandwich"]
    return Solution(
        GROWTH[nearest],
        f"As the square root: the stream's RMS goes {sandwich[0]:.2f}, {sandwich[4]:.2f}, {sandwich[-1]:.2f} after "
        f"0, 4 and {modern.DEPTH} blocks.",
        detail=f"A log-log slope of {exponent:.2f}, near the square root's 0.5: each block adds a mean square of one.",
    )


# --- RMSNorm in today's models: kernels and estimates (modern-kernels.md) ---------------------------


FORMATS = {"bfloat16": 2, "float16": 2, "float32": 4, "float8": 1, "float64": 8, "int8": 1}  # bytes a number


def _format(dtype: str) -> dict[str, str]:
    """A number format as a question names it: bfloat16, 2 bytes."""
    size = FORMATS[dtype]
    return {"dtype": dtype, "size": f"{size} byte{'s' * (size != 1)}"}


@exercise(
    "fused-bytes",
    "Bytes moved by a fused add + RMSNorm",
    "In {dtype} ({size} a number), one kernel reads the stream h and the branch output f, and writes the new "
    "stream h' = h + f and the normalized row y. How many bytes does it move per element?",
    Number(units=("bytes", "byte", "b"), stated=False),
    "Count every array the kernel reads or writes once, at the format's bytes each.",
    given=_format("bfloat16"),
    variants=tuple(_format(name) for name in ("float32", "float8", "float64", "float16", "int8")),
)
def _fused_bytes(dtype, size) -> Solution:
    itemsize = FORMATS[dtype]
    unfused, fused = modern.KERNELS
    moved = fused.bytes_per_element(itemsize)
    other = 1 if itemsize != 1 else 2
    return Solution(
        float(moved),
        f"Two reads and two writes of {size} each: {moved} bytes per element.",
        pitfalls=(
            (float(unfused.bytes_per_element(itemsize)), "That counts h' read back by a second kernel."),
            (float(fused.bytes_per_element(other)), f"That counts {other} bytes a number; {dtype} takes {size}."),
        ),
        detail=f"Run apart, the addition writes h' and the norm reads it back: {unfused.bytes_per_element(itemsize)} "
        "bytes.",
    )


INTENSITY = Axis(0.01, 100.0, "log", "arithmetic intensity: operations per byte (log scale)")
FUSED, APART = "one fused kernel", "two kernels, the addition and then the norm"


@exercise(
    "fused-intensity",
    "Add + RMSNorm on the roofline",
    "Add + RMSNorm does {flops} operations per element (the addition, then the norm's square, sum, scaling and "
    "gain). Run as {how}, in {dtype}, where does it sit on a roofline's intensity axis?",
    Place(INTENSITY, tolerance=0.15),
    "Intensity is operations divided by bytes moved, per element.",
    given={"flops": modern.FLOPS_PER_ELEMENT, "dtype": "bfloat16", "how": FUSED},
    variants=(
        {"dtype": "float32"},
        {"dtype": "float8"},
        {"dtype": "bfloat16", "how": APART},
        {"dtype": "float32", "how": APART},
        {"dtype": "float64"},
    ),
)
def _fused_intensity(flops, dtype, how) -> Solution:
    kernel = modern.KERNELS[1 if how == FUSED else 0]
    moved = kernel.bytes_per_element(FORMATS[dtype])
    intensity = flops / moved
    return Solution(
        intensity,
        f"{flops} operations over {moved} bytes: {intensity:.3g} per byte, far left of any machine's ridge.",
        pitfalls=((flops / FORMATS[dtype], "That divides by one number's bytes; the kernel moves several arrays."),),
        detail="Below the ridge, memory sets the speed: fewer bytes per element mean a proportionally faster kernel.",
        picture={"marks": [[k.name, flops / k.bytes_per_element(FORMATS[dtype])] for k in modern.KERNELS]},
    )


PARTIAL_ERRORS = {share: f"about {share:.2g}%" for share in (0.04, 0.4, 4, 40)}  # per cent -> the option


@exercise(
    "partial-rms-error",
    "How far off a partial RMS is",
    f"pRMSNorm estimates a row's RMS from its first p of the coordinates. For a row of d = {modern.LLAMA_WIDTHS[0]} "
    f"independent standard normal values and p = {modern.SHARE:.2%} "
    f"({modern.values_read(modern.SHARE, modern.LLAMA_WIDTHS[0])} "
    "values), about how far off is the estimate, typically?",
    Choice.of(
        {
            PARTIAL_ERRORS[0.04]: "That would need millions of values; the mean square of n values is off by "
            "about sqrt(2 / n).",
            PARTIAL_ERRORS[0.4]: "That would need tens of thousands of values, more than the whole row holds.",
            PARTIAL_ERRORS[4]: RIGHT,
            PARTIAL_ERRORS[40]: "That is the error of an estimate from a handful of values, not from hundreds.",
        }
    ),
    "The mean square of n unit normal values is off by about sqrt(2 / n) of itself; its root, by half that.",
)
def _partial_rms_error() -> Solution:
    error = modern.partial_rms().error(modern.LLAMA_WIDTHS[0])
    nearest = min(PARTIAL_ERRORS, key=lambda percent: abs(np.log(100 * error / percent)))
    count = modern.values_read(modern.SHARE, modern.LLAMA_WIDTHS[0])
    return Solution(
        PARTIAL_ERRORS[nearest],
        f"A few per cent: over {modern.ROWS:,} seeded rows the median error is {error:.1%}.",
        detail=(
            f"The error's spread is about sqrt(1 / (2n)) = {modern.partial_rms_spread(count):.1%} for n = {count}; "
            "the median of a normal error's size is about two thirds of its spread."
        ),
    )


# --- Precision (precision.md) ---------------------------------------------------------------------


@exercise(
    "float16-formula-row",
    "The formula, all in float16",
    "Computed as written, every step in float16, what does x / sqrt(mean(x**2) + eps) give for the row x = {row}, "
    "eps = {eps}?",
    Vector(len(precision.HALF_PRECISION_ROW)),
    "Follow the squares: what is each in float16, what is their sum, its mean and its root?",
    given={"row": tuple(precision.HALF_PRECISION_ROW), "eps": EPS},
    variants=(
        {"row": (100.0, 200.0)},
        {"row": (200.0, 200.0)},
        {"row": (250.0, 10.0)},
        {"row": (1000.0, 2.0)},
        {"row": (4.0, 3.0)},
    ),
)
def _float16_formula_row(row, eps) -> Solution:
    half = np.array(row, dtype=np.float16)
    with np.errstate(over="ignore", under="ignore"):
        formula = rms_norm_formula(half, np.ones(len(half), dtype=np.float16), eps)
        squares = np.square(half)
    upcast = rms_norm(half, None, eps)
    return Solution(
        tuple(float(v) for v in formula),
        f"{fmt(formula)}: in float16 the squares are {fmt(squares)}, and the rest follows from them.",
        pitfalls=(
            (
                tuple(float(v) for v in upcast),
                "That is what the package returns, computing in float32; the formula as written stays in float16.",
            ),
        ),
        detail=f"rms_norm computes in float32 and returns {fmt(upcast)} in float16.",
    )


SUM_AXIS = Axis(1.0, 1e5, "log", "the running total where it stops growing (log scale)")


@exercise(
    "sum-stall",
    "Where a low-precision sum stops",
    "Add {count} squares of {value}, one at a time, rounding the total to {dtype} ({bits} significant bits) after "
    "each addition. Place the marker where the total stops growing.",
    Place(SUM_AXIS, tolerance=0.1),
    "With b significant bits, neighbours near T are T / 2**(b-1) apart; an addition of half that gap or less is lost.",
    given={
        "count": precision.SUM_LENGTH,
        "value": 1.0,
        "dtype": "bfloat16",
        "bits": precision.SIGNIFICAND_BITS["bfloat16"],
    },
    variants=(
        {"dtype": "float16", "bits": precision.SIGNIFICAND_BITS["float16"]},
        {"value": 2.0},
        {"dtype": "float8 E4M3", "bits": precision.SIGNIFICAND_BITS["float8 E4M3"]},
        {"value": 0.5},
        {"dtype": "float8 E5M2", "bits": precision.SIGNIFICAND_BITS["float8 E5M2"], "value": 3.0},
    ),
)
def _sum_stall(count, value, dtype, bits) -> Solution:
    square = value * value
    total = precision.stalled_sum(square, count, bits)
    exact = square * count
    gap = 2.0 ** (math.frexp(total)[1] - bits)  # the spacing of bits-bit numbers from total up
    return Solution(
        total,
        f"At {total:g}: there {dtype}'s neighbours are {gap:g} apart, and {square:g} is no more than half that, "
        "so each addition rounds back.",
        pitfalls=((exact, f"That is the exact sum; rounding to {bits} bits stops it long before."),),
        detail=f"The exact total would be {exact:g}; every square added after the stall is lost.",
        picture={"level": total},
    )


# --- Cost (cost.md) -------------------------------------------------------------------------------


MIB = 2**20
SIZES = {"float32": 4, "bfloat16": 2, "float16": 2, "float64": 8}


@exercise(
    "forward-bytes",
    "The least a forward pass moves",
    "A {dtype} batch of shape {shape} goes through RMSNorm. At the least, how many MiB must the forward pass move "
    "through memory?",
    Number(units=("MiB", "mib", "mb"), stated=False),
    "It must read every element of x and write every element of y; count the bytes a number takes.",
    given={"dtype": "float32", "shape": [4, 2048, 4096]},  # a model-sized batch of activations, [B, T, d]
    variants=(
        {"dtype": "bfloat16"},
        {"shape": [2, 1024, 4096]},
        {"dtype": "float64", "shape": [1, 4096, 8192]},
        {"dtype": "float16", "shape": [8, 512, 2048]},
        {"dtype": "float32", "shape": [16, 128, 512]},
    ),
)
def _forward_bytes(dtype, shape) -> Solution:
    itemsize = SIZES[dtype]
    nbytes = int(np.prod(shape)) * itemsize
    moved = 2 * nbytes / MIB  # one read of x, one write of y
    other = 8 if itemsize != 8 else 4  # a slip in the number's size
    return Solution(
        moved,
        f"{moved:g} MiB: one read of x and one write of y, {nbytes / MIB:g} MiB each.",
        pitfalls=(
            (nbytes / MIB, "That reads x but never writes y; the output has to reach memory too."),
            (2 * nbytes / MIB * (other / itemsize), f"That counts {other} bytes a number; {dtype} takes {itemsize}."),
        ),
        detail="A copy of x into an existing array moves exactly as much: the least any normalization can do.",
    )


def get(exercise_id: object) -> Exercise:
    """The exercise with this id, or an error that suggests the nearest ids."""
    if isinstance(exercise_id, str) and exercise_id in EXERCISES:
        return EXERCISES[exercise_id]
    near = difflib.get_close_matches(exercise_id, EXERCISES, n=3) if isinstance(exercise_id, str) else []
    expected = f"did you mean {' or '.join(map(repr, near))}?" if near else f"expected one of {', '.join(EXERCISES)}"
    named = quoted(exercise_id) if isinstance(exercise_id, str) else f"of type {type(exercise_id).__name__}"
    raise UnknownExercise(f"there is no exercise {named}; {expected}")
