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
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from ..core.errors import RMSNormError
from ..core.format import fmt
from ..core.layer import RMSNorm
from ..core.parameters import adamw_parameter_groups
from ..core.reference import DEFAULT_EPS
from ..core.rmsnorm import rms_norm, rms_norm_backward, rms_norm_forward
from ..studies import evidence, example, modern, precision, training
from ..studies.block import PreNormBlock
from ..studies.formulas import rms_norm_formula
from .errors import UnknownExercise
from .kinds import RIGHT, Choice, Kind, Number, Shape, Vector
from .untrusted import quoted

X, G = example.INPUT, example.GAIN
TINY, FACTOR, UPSTREAM = example.TINY_INPUT, example.SCALE_FACTOR, example.UPSTREAM
BATCH_SHAPE = (2, 5, 3)  # [B, T, d] with three different sizes, so no axis can be mistaken for another
SHAPE_SEED = 25


@dataclass(frozen=True)
class Solution:
    """The reference answer, why it is right, and wrong answers worth a specific word.

    ``explanation`` is one short sentence; ``detail`` the reasoning or evidence behind
    it. ``pitfalls`` pairs a computed wrong answer that a known slip produces with a
    note naming the slip; the note never states the right answer.
    """

    answer: object
    explanation: str
    pitfalls: tuple[tuple[object, str], ...] = ()
    detail: str = ""


@dataclass(frozen=True)
class Exercise:
    """One prediction: its title, what is asked, what kind of answer it takes, a hint, and how to solve it."""

    id: str
    title: str
    prompt: str
    kind: Kind
    hint: str
    solve: Callable[[], Solution] = field(repr=False)


EXERCISES: dict[str, Exercise] = {}  # every exercise, in the order the chapter asks them


def exercise(
    exercise_id: str, title: str, prompt: str, kind: Kind, hint: str
) -> Callable[[Callable[[], Solution]], Callable[[], Solution]]:
    """Register the solver below as an exercise, with its question beside it.

    The question ends with what the kind asks about precision ("Give six decimals."),
    written from the kind, never typed beside it.
    """

    def register(solve: Callable[[], Solution]) -> Callable[[], Solution]:
        if exercise_id in EXERCISES:
            raise ValueError(f"exercise {exercise_id!r} is registered twice")
        question = f"{prompt} {kind.instruction()}".strip()
        EXERCISES[exercise_id] = Exercise(exercise_id, title, question, kind, hint, _with_options_words(solve, kind))
        return solve

    return register


def _with_options_words(solve: Callable[[], Solution], kind: Kind) -> Callable[[], Solution]:
    """For a choice, the solver's slips and then each wrong option's word, as the solution's pitfalls."""
    if not isinstance(kind, Choice):
        return solve

    @functools.wraps(solve)
    def solved() -> Solution:
        solution = solve()
        kind.index(solution.answer)  # a solver answers with one of the options' words
        return replace(solution, pitfalls=solution.pitfalls + kind.pitfalls(solution.answer))

    return solved


def _nums(values) -> str:
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


X_TEXT, G_TEXT, TINY_TEXT = _nums(X), _nums(G), _nums(TINY)
PAIR = Vector(len(X))  # the worked example's vectors have two coordinates
EXACT = Number(stated=False)  # a short exact answer: the question does not ask for decimals
WORKED = rms_norm_forward(X, G, DEFAULT_EPS)  # the worked example, every intermediate of its forward pass


# --- Predict, then test the epsilon boundary (predict.md) -----------------------------------------


@exercise(
    "mean-square",
    "The mean square",
    f"x = {X_TEXT}. What is its mean square, mean(x**2)?",
    EXACT,
    "Square each coordinate, add the squares, divide by the number of coordinates d.",
)
def _mean_square() -> Solution:
    squares = " + ".join(f"{v:g}^2" for v in X)
    return Solution(
        float(WORKED.mean_square[0]),
        f"mean(x**2) = ({squares}) / {len(X)} = {WORKED.mean_square[0]:g}: the average of the squares.",
        pitfalls=((float(np.sum(np.square(X))), "That is the sum of the squares; the mean divides it by d."),),
        detail="The mean divides by d, so a wider row of the same values has the same mean square.",
    )


@exercise(
    "reciprocal-rms",
    "The reciprocal RMS",
    f"x = {X_TEXT}, eps = {DEFAULT_EPS:g}. What is the reciprocal RMS, 1 / sqrt(mean(x**2) + eps)?",
    Number(),
    "Add eps to the mean square, take the square root, then take 1 over it.",
)
def _reciprocal_rms() -> Solution:
    rms = float(np.sqrt(WORKED.mean_square[0] + DEFAULT_EPS))
    return Solution(
        float(WORKED.inverse_rms[0]),
        f"1 / sqrt({WORKED.mean_square[0]:g} + {DEFAULT_EPS:g}) = {fmt(WORKED.inverse_rms[0])}.",
        pitfalls=((rms, "That is the RMS itself; the question asks for 1 / RMS."),),
        detail="Every coordinate of x is multiplied by this one shared factor.",
    )


@exercise(
    "normalized",
    "x-hat of the worked example",
    f"x = {X_TEXT}, eps = {DEFAULT_EPS:g}. What is the RMS-rescaled vector x-hat = x / sqrt(mean(x**2) + eps), "
    "before any gain?",
    PAIR,
    "Multiply each coordinate of x by the reciprocal RMS; both coordinates share the same factor.",
)
def _normalized() -> Solution:
    unit_length = np.asarray(X) / np.linalg.norm(X)
    without_eps = rms_norm_forward(X, None, example.IDEAL_EPS).normalized
    return Solution(
        tuple(WORKED.normalized.tolist()),
        f"x-hat = x * {fmt(WORKED.inverse_rms[0])} = {fmt(WORKED.normalized)}: one shared factor, so x-hat "
        "points the way x does.",
        pitfalls=(
            (
                tuple(unit_length.tolist()),
                "That divides x by its Euclidean length; RMSNorm divides by the root of the mean square.",
            ),
            (
                tuple(without_eps.tolist()),
                f"That is x-hat at eps = 0; the question's eps = {DEFAULT_EPS:g} moves the sixth decimal.",
            ),
        ),
        detail=f"The coordinates keep their ratio, {X[0]:g} to {X[1]:g}; neither is forced to magnitude one.",
    )


@exercise(
    "output",
    "The output, after the gain",
    f"Apply the gain g = {G_TEXT} to that x-hat. What is the output y = g * x-hat?",
    PAIR,
    "Multiply x-hat by g coordinate by coordinate: first by first, second by second.",
)
def _output() -> Solution:
    return Solution(
        tuple(WORKED.output.tolist()),
        f"y = {_nums(G)} * {fmt(WORKED.normalized)} = {fmt(WORKED.output)}, coordinate by coordinate.",
        pitfalls=((tuple(WORKED.normalized.tolist()), "That is x-hat before the gain; the output applies g."),),
        detail="The gain rescales each feature on its own, so the output no longer points the way x does.",
    )


@exercise(
    "scaled-ideal",
    "Ten times x, with eps = 0",
    f"With eps = 0, multiply x = {X_TEXT} by {FACTOR:g}. By how much does x-hat move: what is the largest "
    "difference, coordinate by coordinate, between x-hat of the scaled input and x-hat of x?",
    EXACT,
    "Write x-hat of a*x with eps = 0 and see what happens to a in the numerator and in the RMS.",
)
def _scaled_ideal() -> Solution:
    card = evidence.scale_card("ideal", X, example.IDEAL_EPS, FACTOR)
    stretched = float(np.max(np.abs((FACTOR - 1) * card.original)))
    return Solution(
        round(card.max_difference, EXACT.decimals),  # zero: what is left is rounding, far below six decimals
        f"Not at all, to rounding ({card.max_difference:.1e}): with eps = 0 the factor {FACTOR:g} cancels.",
        pitfalls=(
            (stretched, "That scales x-hat by the factor; with eps = 0 the factor cancels."),
            (
                float(np.max(np.abs((FACTOR - 1) * np.asarray(X)))),
                "That is how far x itself moves; x-hat divides the factor out again.",
            ),
        ),
        detail=(
            f"{FACTOR:g} multiplies the numerator and, through the RMS, the denominator: x-hat of {FACTOR:g}x is "
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
    f"Before you compute it: eps = {DEFAULT_EPS:g} sits under the root, sqrt(mean(x**2) + eps). Which x-hat does it "
    f"change more, that of x = {X_TEXT} or that of x = {TINY_TEXT}, and why?",
    Choice.of(EPS_NEAR_ZERO_OPTIONS),
    "Compare eps with each vector's mean square: which one does adding eps change?",
)
def _eps_near_zero() -> Solution:
    tiny = rms_norm(TINY, None, DEFAULT_EPS) - rms_norm(TINY, None, example.IDEAL_EPS)
    ordinary = rms_norm(X, None, DEFAULT_EPS) - rms_norm(X, None, example.IDEAL_EPS)
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


@exercise(
    "tiny-normalized",
    "x-hat of a tiny vector",
    f"Now x = {TINY_TEXT} and eps = {DEFAULT_EPS:g}. What is x-hat, before the gain?",
    PAIR,
    "Add eps to the mean square of this x before you take the square root.",
)
def _tiny_normalized() -> Solution:
    forward = rms_norm_forward(TINY, None, DEFAULT_EPS)
    ideal = rms_norm_forward(TINY, None, example.IDEAL_EPS).normalized
    return Solution(
        tuple(forward.normalized.tolist()),
        f"x-hat = x / sqrt({float(forward.mean_square[0]):.3g} + {DEFAULT_EPS:g}) = {fmt(forward.normalized)}: "
        "the same direction as before, but far shorter.",
        pitfalls=((tuple(ideal.tolist()), "That is the eps = 0 ideal; here eps is larger than the mean square."),),
        detail="eps, not the input, sets most of the denominator, so x-hat stays short.",
    )


@exercise(
    "tiny-scaled",
    "Ten times the tiny vector",
    f"Keep eps = {DEFAULT_EPS:g} and multiply x = {TINY_TEXT} by {FACTOR:g}. What is x-hat of the scaled input?",
    PAIR,
    f"Scaling by {FACTOR:g} multiplies the mean square by {FACTOR**2:g}; eps stays where it is.",
)
def _tiny_scaled() -> Solution:
    card = evidence.scale_card("near-zero", TINY, DEFAULT_EPS, FACTOR)
    return Solution(
        tuple(card.scaled.tolist()),
        f"x-hat of {FACTOR:g}x is {fmt(card.scaled)}, up from {fmt(card.original)}: near zero, scale is not cancelled.",
        pitfalls=(
            (tuple(card.original.tolist()), "That is x-hat of the unscaled input; eps does not scale with x."),
            (
                tuple(rms_norm(FACTOR * np.asarray(TINY), None, example.IDEAL_EPS).tolist()),
                "That is the eps = 0 ideal; here eps still matters.",
            ),
        ),
        detail=(
            f"Scaling by {FACTOR:g} multiplies the mean square by {FACTOR**2:g} but leaves eps at {DEFAULT_EPS:g}, "
            f"so x-hat moves by up to {card.max_difference:.6f}."
        ),
    )


# --- Follow one feature vector (follow-one-vector.md) ---------------------------------------------


@exercise(
    "plateau-value",
    "The mean square of x-hat",
    f"For the worked example (x = {X_TEXT}, eps = {DEFAULT_EPS:g}), what is the mean square of x-hat?",
    Number(),
    "mean(x-hat**2) = ms / (ms + eps): close to one when the mean square dwarfs eps.",
)
def _plateau_value() -> Solution:
    value = float(np.mean(np.square(WORKED.normalized)))
    return Solution(
        value,
        f"{WORKED.mean_square[0]:g} / ({WORKED.mean_square[0]:g} + {DEFAULT_EPS:g}) = {fmt(value)}: just under "
        "one, because of eps.",
        pitfalls=(
            (float(np.mean(np.square(WORKED.output))), "That is the output's mean square, after the gain."),
            (1.0, "That is the eps = 0 ideal, exactly one; with eps in the denominator the mean square falls short."),
        ),
        detail=f"Only at eps = 0 is it exactly one; x-hat = {fmt(WORKED.normalized)} squares to a little less.",
    )


# --- The formula and its symbols (formula.md) -----------------------------------------------------


def _shape_example() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Seeded input, gain and upstream gradient for an input of shape BATCH_SHAPE; then the output."""
    rng = np.random.default_rng(SHAPE_SEED)
    x = rng.normal(size=BATCH_SHAPE)
    gain = rng.normal(size=BATCH_SHAPE[-1])
    upstream = rng.normal(size=BATCH_SHAPE)
    return x, gain, upstream, rms_norm(x, gain, DEFAULT_EPS)


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
    f"With eps = 0, what is the mean of x-hat for the row x = {_nums(example.ANCHOR)}?",
    Number(),
    "RMSNorm divides by the RMS and subtracts nothing: average the two coordinates of x / RMS.",
)
def _anchor_mean() -> Solution:
    normalized = rms_norm_forward(example.ANCHOR, None, example.IDEAL_EPS).normalized
    return Solution(
        float(np.mean(normalized)),
        f"x-hat = {fmt(normalized)}, whose mean is {fmt(np.mean(normalized))}: nothing is subtracted.",
        pitfalls=((0.0, "That is LayerNorm's answer; it subtracts the mean, RMSNorm does not."),),
        detail="A row on one side of zero stays on that side: RMSNorm rescales it and keeps its mean's sign.",
    )


# --- Scale invariance and the epsilon boundary (scale-and-epsilon.md) -----------------------------


@exercise(
    "crossover-rms",
    "Where eps takes half",
    f"For eps = {DEFAULT_EPS:g}, at what RMS of the input is mean(x-hat**2) = ms / (ms + eps) exactly one half?",
    Number(),
    "One half means the mean square equals eps.",
)
def _crossover_rms() -> Solution:
    rms = float(np.sqrt(DEFAULT_EPS))
    half = float(np.mean(np.square(rms_norm_forward([rms], None, DEFAULT_EPS).normalized)))
    return Solution(
        rms,
        f"ms / (ms + eps) = 1/2 when ms = eps, so the RMS is sqrt({DEFAULT_EPS:g}) = {fmt(rms)}.",
        pitfalls=((DEFAULT_EPS, "That is eps itself, a mean square; the question asks for the RMS, its square root."),),
        detail=f"rms_norm of [{fmt(rms)}] gives mean(x-hat**2) = {fmt(half)}.",
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


@exercise(
    "grad-x",
    "The input's gradient",
    f"x = {X_TEXT}, g = {G_TEXT}, eps = {DEFAULT_EPS:g}, upstream gradient grad_output = {_nums(UPSTREAM)}. "
    "What is grad_x?",
    PAIR,
    "x enters twice: in the numerator and in the RMS. With u = grad_output * g, "
    "grad_x = r * (u - x-hat * mean(u * x-hat)).",
)
def _grad_x() -> Solution:
    p = evidence.primary()
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
    f"Same example, grad_output = {_nums(UPSTREAM)}. What is grad_gain?",
    PAIR,
    "y = g * x-hat, so each gain coordinate's gradient is grad_output times the matching x-hat coordinate.",
)
def _grad_gain() -> Solution:
    p = evidence.primary()
    uses_y = (p.upstream * p.forward.output, "That uses y; the gain multiplies x-hat.")
    derivation = f"grad_gain = grad_output * x-hat = {_nums(UPSTREAM)} * {fmt(p.forward.normalized)}"
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


GRADIENT_SCALE = 4.0  # any factor but the scale cards' ten, so this answer is not theirs


@exercise(
    "grad-x-scaled",
    "The gradient of a scaled input",
    f"With eps = 0, x = {X_TEXT}, g = {G_TEXT} and grad_output = {_nums(UPSTREAM)}, multiply x by {GRADIENT_SCALE:g}. "
    "grad_x of the scaled input is grad_x of x times what factor?",
    EXACT,
    "At eps = 0 the output does not change when x is scaled, but the chain rule still passes through 1 / RMS.",
)
def _grad_x_scaled() -> Solution:
    grad_x, _ = rms_norm_backward(X, G, example.IDEAL_EPS, UPSTREAM)
    scaled, _ = rms_norm_backward(GRADIENT_SCALE * np.asarray(X), G, example.IDEAL_EPS, UPSTREAM)
    factor = float(scaled[0] / grad_x[0])
    return Solution(
        factor,
        f"{factor:g} = 1/{GRADIENT_SCALE:g}: the output is unchanged, so its sensitivity to each coordinate "
        "shrinks as x grows.",
        pitfalls=(
            (GRADIENT_SCALE, "That is the factor on x; the gradient moves the other way."),
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
    "With eps = 0, what is x-hat of the row [1e200, 2e200], whose squares overflow float64?",
    PAIR,
    "x-hat depends only on the direction of x, and the package rescales rows whose squares overflow.",
)
def _huge_row() -> Solution:
    row = (1e200, 2e200)
    normalized = rms_norm_forward(row, None, example.IDEAL_EPS).normalized
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.asarray(row) / np.sqrt(np.mean(np.square(row)))
    return Solution(
        tuple(normalized.tolist()),
        f"{fmt(normalized)}, the x-hat of [1, 2]: the row is divided by its largest magnitude before squaring.",
        pitfalls=((tuple(naive.tolist()), "That is the formula as written; the package rescales before squaring."),),
        detail="The formula as written squares first, and squares of 1e200 are past float64's largest value.",
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
    f"A gain stored as 1 + w has been trained to w = {modern.TRAINED_GAIN - 1:g} (gain {modern.TRAINED_GAIN:g}). "
    f"Weight decay alone then multiplies w by 1 - {modern.DECAY_PER_STEP:g} at each step. What is the gain after "
    f"{modern.DECAY_STEPS:,} steps with no gradient?",
    Number(),
    "Compute w after the steps, (1 - rate) to the power of the steps times w, then add one.",
)
def _one_plus_gain() -> Solution:
    decay = modern.gain_decay()
    w = modern.TRAINED_GAIN - 1
    exponential = 1 + w * float(np.exp(-modern.DECAY_PER_STEP * modern.DECAY_STEPS))
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
    f"With RMSNorm on every query and key (gain one, eps = 0), each has length sqrt(d). For head width "
    f"d = {modern.HEAD_WIDTH}, what is the largest value the attention logit q . k / sqrt(d) can take?",
    EXACT,
    "q . k is at most |q| |k|, reached when the two point the same way.",
)
def _qk_logit_bound() -> Solution:
    bound = modern.qk_logit_bound(modern.HEAD_WIDTH)  # the width the question names
    attention = modern.qk_norm()
    return Solution(
        bound,
        f"q . k <= |q| |k| = d, so q . k / sqrt(d) <= sqrt(d) = {bound:g}, whatever the activations' scale.",
        pitfalls=(
            (float(modern.HEAD_WIDTH), "That is q . k itself, before the division by sqrt(d)."),
            (1.0, "Each coordinate of a normalized vector is not at most one; its mean square is one."),
        ),
        detail=(
            f"Without the norm the seeded logits reach {attention.largest_logit[-1]:,.0f} at scale "
            f"{attention.scales[-1]:g}; with it, {attention.largest_logit_normed[-1]:.2f}."
        ),
    )


# --- RMSNorm in today's models: blocks, kernels and estimates (modern-blocks.md) ------------------


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


@exercise(
    "fused-bytes",
    "Bytes moved by a fused add + RMSNorm",
    "In bfloat16 (2 bytes a number), one kernel reads the stream h and the branch output f, and writes the new "
    "stream h' = h + f and the normalized row y. How many bytes does it move per element?",
    Number(units=("bytes", "byte", "b"), stated=False),
    "Count every array the kernel reads or writes once, at two bytes each.",
)
def _fused_bytes() -> Solution:
    unfused, fused = modern.KERNELS
    return Solution(
        float(fused.bytes_per_element()),
        f"Two reads and two writes of 2 bytes each: {fused.bytes_per_element()} bytes per element.",
        pitfalls=(
            (float(unfused.bytes_per_element()), "That counts h' read back by a second kernel; one pass keeps it."),
            (4.0, "That counts each array once but at one byte; bfloat16 numbers take two."),
        ),
        detail=f"Run apart, the addition writes h' and the norm reads it back: {unfused.bytes_per_element()} bytes.",
    )


PARTIAL_ERRORS = {share: f"about {share:.2g}%" for share in (0.04, 0.4, 4, 40)}  # per cent -> the option


@exercise(
    "partial-rms-error",
    "How far off a partial RMS is",
    f"pRMSNorm estimates a row's RMS from its first p of the coordinates. For a row of d = {modern.LLAMA_WIDTHS[0]} "
    f"independent standard normal values and p = {modern.PAPER_SHARE:.2%} "
    f"({modern.values_read(modern.PAPER_SHARE, modern.LLAMA_WIDTHS[0])} "
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
    count = modern.values_read(modern.PAPER_SHARE, modern.LLAMA_WIDTHS[0])
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
    f"Computed as written, every step in float16, what does x / sqrt(mean(x**2) + eps) give for the row "
    f"x = {_nums(precision.HALF_PRECISION_ROW)}, eps = {DEFAULT_EPS:g}?",
    Vector(len(precision.HALF_PRECISION_ROW)),
    "Follow the first square: what is it in float16, what is the mean of a row that holds it, and its root?",
)
def _float16_formula_row() -> Solution:
    row = np.array(precision.HALF_PRECISION_ROW, dtype=np.float16)
    with np.errstate(over="ignore"):
        formula = rms_norm_formula(row, np.ones(len(row), dtype=np.float16), DEFAULT_EPS)
    upcast = rms_norm(row, None, DEFAULT_EPS)
    return Solution(
        tuple(float(v) for v in formula),
        f"{fmt(formula)}: {row[0]:g} squared overflows to inf, so the root is inf, and x / inf is 0.",
        pitfalls=(
            (
                tuple(float(v) for v in upcast),
                "That is what the package returns, computing in float32; the formula as written stays in float16.",
            ),
        ),
        detail=f"rms_norm computes in float32 and returns {fmt(upcast)} in float16.",
    )


# --- Cost (cost.md) -------------------------------------------------------------------------------


MODEL_BATCH = (4, 2048, 4096)  # a model-sized batch of activations, [B, T, d]
MIB = 2**20


@exercise(
    "forward-bytes",
    "The least a forward pass moves",
    f"A float32 batch of shape {list(MODEL_BATCH)} goes through RMSNorm. At the least, how many MiB must the "
    "forward pass move through memory?",
    Number(units=("MiB", "mib", "mb"), stated=False),
    "It must read every element of x and write every element of y; a float32 number takes four bytes.",
)
def _forward_bytes() -> Solution:
    x = np.empty(MODEL_BATCH, np.float32)
    moved = 2 * x.nbytes / MIB  # one read of x, one write of y
    return Solution(
        moved,
        f"{moved:g} MiB: one read of x and one write of y, {x.nbytes // MIB} MiB each.",
        pitfalls=(
            (x.nbytes / MIB, "That reads x but never writes y; the output has to reach memory too."),
            (4 * x.nbytes / MIB, "That counts eight bytes a number; float32 takes four."),
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
