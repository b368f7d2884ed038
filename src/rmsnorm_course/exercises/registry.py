"""The predict-then-check exercises: each question, its kind, its hint, and how to solve it.

No answer is typed in. Each exercise carries a ``solve`` function that runs the
package (the forward, the backward, the evidence) when an answer is checked, and
returns the reference answer with an explanation that quotes what it computed.
For a choice the options are part of the question. Where the package's behaviour
decides between them (the all-zero row, centering and batches, the block's layout)
the right option is found by running it; where it is a matter of reasoning (why eps
matters near zero, who owns weight decay) the right option is part of the question.
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
from .kinds import Choice, Kind, Number, Shape, Vector
from .untrusted import quoted

X, G = example.INPUT, example.GAIN
TINY, FACTOR, UPSTREAM = example.TINY_INPUT, example.SCALE_FACTOR, example.UPSTREAM
BATCH_SHAPE = (2, 5, 3)  # [B, T, d] with three different sizes, so no axis can be mistaken for another
SHAPE_SEED = 25


@dataclass(frozen=True)
class Solution:
    """The reference answer, why it is right, and wrong answers worth a specific word.

    ``pitfalls`` pairs a computed wrong answer that a known slip produces with a note
    naming the slip; the note never states the right answer.
    """

    answer: object
    explanation: str
    pitfalls: tuple[tuple[object, str], ...] = ()


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
    """Register the solver below as an exercise, with its question beside it."""

    def register(solve: Callable[[], Solution]) -> Callable[[], Solution]:
        if exercise_id in EXERCISES:
            raise ValueError(f"exercise {exercise_id!r} is registered twice")
        EXERCISES[exercise_id] = Exercise(exercise_id, title, prompt, kind, hint, _with_options_words(solve, kind))
        return solve

    return register


def _with_options_words(solve: Callable[[], Solution], kind: Kind) -> Callable[[], Solution]:
    """For a choice, the solver's slips and then each wrong option's word, as the solution's pitfalls."""
    if not isinstance(kind, Choice):
        return solve

    @functools.wraps(solve)
    def solved() -> Solution:
        solution = solve()
        return replace(solution, pitfalls=solution.pitfalls + kind.pitfalls(solution.answer))

    return solved


def _agreement(report) -> str:
    return f"central differences agree on {sum(c.passed for c in report.checks)} of {len(report.checks)} coordinates"


def _nums(values) -> str:
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


X_TEXT, G_TEXT, TINY_TEXT = _nums(X), _nums(G), _nums(TINY)
PAIR = Vector(len(X))  # the worked example's vectors have two coordinates
WORKED = rms_norm_forward(X, G, DEFAULT_EPS)  # the worked example, every intermediate of its forward pass


# --- Predict, then test the epsilon boundary (predict.md) -----------------------------------------


@exercise(
    "mean-square",
    "The mean square",
    f"x = {X_TEXT}. What is its mean square, mean(x**2)?",
    Number(),
    "Square each coordinate, add the squares, divide by the number of coordinates d.",
)
def _mean_square() -> Solution:
    squares = " + ".join(f"{v:g}^2" for v in X)
    return Solution(
        float(WORKED.mean_square[0]),
        f"mean(x**2) = ({squares}) / {len(X)} = {WORKED.mean_square[0]:g}. "
        "It is the average of the squares, not their sum.",
        pitfalls=((float(np.sum(np.square(X))), "That is the sum of the squares; the mean divides it by d."),),
    )


@exercise(
    "reciprocal-rms",
    "The reciprocal RMS",
    f"x = {X_TEXT}, eps = {DEFAULT_EPS:g}. What is the reciprocal RMS, 1 / sqrt(mean(x**2) + eps)? Give six decimals.",
    Number(),
    "Add eps to the mean square, take the square root, then take 1 over it.",
)
def _reciprocal_rms() -> Solution:
    rms = float(np.sqrt(WORKED.mean_square[0] + DEFAULT_EPS))
    return Solution(
        float(WORKED.inverse_rms[0]),
        f"1 / sqrt({WORKED.mean_square[0]:g} + {DEFAULT_EPS:g}) = {fmt(WORKED.inverse_rms[0])}. "
        "Every coordinate of x is multiplied by this one shared factor.",
        pitfalls=((rms, "That is the RMS itself; the question asks for 1 / RMS."),),
    )


@exercise(
    "normalized",
    "x-hat of the worked example",
    f"x = {X_TEXT}, eps = {DEFAULT_EPS:g}. What is the RMS-rescaled vector x-hat = x / sqrt(mean(x**2) + eps), "
    "before any gain? Six decimals.",
    PAIR,
    "Multiply each coordinate of x by the reciprocal RMS; both coordinates share the same factor.",
)
def _normalized() -> Solution:
    unit_length = np.asarray(X) / np.linalg.norm(X)
    without_eps = rms_norm_forward(X, None, example.IDEAL_EPS).normalized
    return Solution(
        tuple(WORKED.normalized.tolist()),
        f"x-hat = x * {fmt(WORKED.inverse_rms[0])} = {fmt(WORKED.normalized)}. "
        f"Its mean square is {fmt(np.mean(np.square(WORKED.normalized)))}, just under 1 because of eps; "
        "the coordinates themselves are not forced to magnitude 1.",
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
    )


@exercise(
    "output",
    "The output, after the gain",
    f"Apply the gain g = {G_TEXT} to that x-hat. What is the output y = g * x-hat? Six decimals.",
    PAIR,
    "Multiply x-hat by g coordinate by coordinate: first by first, second by second.",
)
def _output() -> Solution:
    return Solution(
        tuple(WORKED.output.tolist()),
        f"y = g * x-hat = {_nums(G)} * {fmt(WORKED.normalized)} = {fmt(WORKED.output)}, "
        "coordinate by coordinate: the gain rescales each feature on its own.",
        pitfalls=((tuple(WORKED.normalized.tolist()), "That is x-hat before the gain; the output applies g."),),
    )


@exercise(
    "scaled-ideal",
    "Ten times x, with eps = 0",
    f"With eps = 0, multiply x = {X_TEXT} by {FACTOR:g}. What is x-hat of the scaled input, before the gain? "
    "Six decimals.",
    PAIR,
    "Write x-hat of a*x with eps = 0 and see what happens to a in the numerator and in the RMS.",
)
def _scaled_ideal() -> Solution:
    card = evidence.scale_card("ideal", X, example.IDEAL_EPS, FACTOR)
    return Solution(
        tuple(card.scaled.tolist()),
        f"With eps = 0, x-hat of {FACTOR:g}x is {fmt(card.scaled)}, the same as x-hat of x "
        f"(largest difference {card.max_difference:.1e}): the factor appears in the numerator and in the RMS, "
        "and cancels.",
        pitfalls=(
            (
                tuple((FACTOR * card.original).tolist()),
                "That scales x-hat by the factor; with eps = 0 the factor cancels.",
            ),
        ),
    )


@exercise(
    "tiny-normalized",
    "x-hat of a tiny vector",
    f"Now x = {TINY_TEXT} and eps = {DEFAULT_EPS:g}. What is x-hat, before the gain? Six decimals.",
    PAIR,
    "Compare the mean square of this x with eps before you take the square root.",
)
def _tiny_normalized() -> Solution:
    forward = rms_norm_forward(TINY, None, DEFAULT_EPS)
    ideal = rms_norm_forward(TINY, None, example.IDEAL_EPS).normalized
    ms = float(forward.mean_square[0])
    return Solution(
        tuple(forward.normalized.tolist()),
        f"The mean square is {ms:.3g}, smaller than eps = {DEFAULT_EPS:g}, so eps dominates the denominator: "
        f"x-hat = {fmt(forward.normalized)}, with mean square ms / (ms + eps) = "
        f"{np.mean(np.square(forward.normalized)):.4f}, far below 1.",
        pitfalls=((tuple(ideal.tolist()), "That is the eps = 0 ideal; here eps is larger than the mean square."),),
    )


@exercise(
    "tiny-scaled",
    "Ten times the tiny vector",
    f"Keep eps = {DEFAULT_EPS:g} and multiply x = {TINY_TEXT} by {FACTOR:g}. "
    "What is x-hat of the scaled input? Six decimals.",
    PAIR,
    f"Scaling by {FACTOR:g} multiplies the mean square by {FACTOR**2:g}; eps stays where it is.",
)
def _tiny_scaled() -> Solution:
    card = evidence.scale_card("near-zero", TINY, DEFAULT_EPS, FACTOR)
    return Solution(
        tuple(card.scaled.tolist()),
        f"x-hat of {FACTOR:g}x is {fmt(card.scaled)}, while x-hat of x is {fmt(card.original)}: "
        f"they differ by up to {card.max_difference:.6f}. Scaling by {FACTOR:g} multiplies the mean square "
        f"by {FACTOR**2:g}, but eps stays {DEFAULT_EPS:g}.",
        pitfalls=(
            (tuple(card.original.tolist()), "That is x-hat of the unscaled input; eps does not scale with x."),
            (
                tuple(rms_norm(FACTOR * np.asarray(TINY), None, example.IDEAL_EPS).tolist()),
                "That is the eps = 0 ideal; here eps still matters.",
            ),
        ),
    )


@exercise(
    "eps-near-zero",
    "Why eps matters near zero",
    f"Why does a positive eps change x-hat of {TINY_TEXT} so much more than x-hat of {X_TEXT}?",
    Choice.of(
        {
            "eps is added to every coordinate of x, so small coordinates change the most": (
                "eps is not added to x: it sits under the square root, inside the one statistic of the row."
            ),
            (
                "eps is a fixed amount added to the mean square; it does not grow with the "
                "signal, so it dominates when the mean square is about as small as eps or smaller"
            ): "",
            "float64 cannot represent numbers as small as 0.0003": (
                "float64 holds 0.0003 with room to spare (its smallest normal number is about "
                "2e-308); the change comes from the formula, not the format."
            ),
            "the gain is applied before the RMS is taken": (
                "The gain multiplies x-hat after the RMS is taken, and the question is about x-hat, before the gain."
            ),
        }
    ),
    "Look at where eps enters the formula, and compare it with each vector's mean square.",
)
def _eps_near_zero() -> Solution:
    _, production, near_zero = evidence.scale_cards()
    ms_tiny = float(rms_norm_forward(TINY, None, DEFAULT_EPS).mean_square[0])
    ms_ordinary = float(rms_norm_forward(X, None, DEFAULT_EPS).mean_square[0])
    return Solution(
        1,
        f"eps sits under the square root beside the mean square: {ms_ordinary:g} + {DEFAULT_EPS:g} barely changes, "
        f"{ms_tiny:.3g} + {DEFAULT_EPS:g} is mostly eps. "
        f"Multiplying by {FACTOR:g} moves x-hat of {_nums(X)} by at most "
        f"{production.max_difference:.2e}, and x-hat of {_nums(TINY)} by {near_zero.max_difference:.6f}.",
    )


# --- Follow one feature vector (follow-one-vector.md) ---------------------------------------------


@exercise(
    "plateau-value",
    "The mean square of x-hat",
    f"For the worked example (x = {X_TEXT}, eps = {DEFAULT_EPS:g}), what is the mean square of x-hat? Six decimals.",
    Number(),
    "mean(x-hat**2) = ms / (ms + eps): close to one when the mean square dwarfs eps.",
)
def _plateau_value() -> Solution:
    value = float(np.mean(np.square(WORKED.normalized)))
    return Solution(
        value,
        f"x-hat = {fmt(WORKED.normalized)} has mean square {fmt(value)} = {WORKED.mean_square[0]:g} / "
        f"({WORKED.mean_square[0]:g} + {DEFAULT_EPS:g}): just under one, because of eps.",
        pitfalls=((float(np.mean(np.square(WORKED.output))), "That is the output's mean square, after the gain."),),
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
        f"An input of shape {x.shape} comes out with shape {y.shape}: every one of the "
        f"{int(np.prod(x.shape[:-1]))} rows of width {x.shape[-1]} is normalized on its own.",
        pitfalls=((x.shape[:-1], "That drops the feature axis; RMSNorm keeps every axis of its input."),),
    )


@exercise(
    "centering-and-batch",
    "What RMSNorm leaves out",
    "Does RMSNorm subtract the feature mean, and does it mix statistics across the examples of a batch?",
    Choice.of(
        {
            "it subtracts the feature mean and uses statistics of the other examples in the batch": (
                "That describes BatchNorm, which centers each feature with the statistics of the batch."
            ),
            "it subtracts the feature mean but uses only the one example": (
                "That describes LayerNorm, which subtracts each example's own mean."
            ),
            "it keeps the mean but uses statistics of the other examples in the batch": (
                "A statistic shared across the batch would make an example's output depend on its"
                " companions; look at which numbers enter the mean square."
            ),
            "neither: it rescales each example by that example's own RMS and keeps its mean": "",
        }
    ),
    "Look at the formula: which numbers enter the statistic, and is anything subtracted from x?",
)
def _centering_and_batch() -> Solution:
    h = evidence.history()
    mixes = not np.array_equal(h.rms_norm_with_companion, h.rms_norm_with_itself)
    centers = abs(h.rms_mean) < 1e-12
    index = {(True, True): 0, (True, False): 1, (False, True): 2, (False, False): 3}[(centers, mixes)]
    return Solution(
        index,
        f"The anchor {_nums(example.ANCHOR)} normalizes to {fmt(h.rms_norm_with_companion)} next to "
        f"{_nums(example.COMPANION)} and to {fmt(h.rms_norm_with_itself)} next to itself: the companion "
        f"does not matter (BatchNorm gives {fmt(h.batch_with_companion)} and {fmt(h.batch_with_itself)}). "
        f"The output's mean is {h.rms_mean:.6f}, not 0: nothing was subtracted (LayerNorm would center it).",
    )


@exercise(
    "anchor-mean",
    "The mean of x-hat",
    f"With eps = 0, what is the mean of x-hat for the anchor x = {_nums(example.ANCHOR)}? Six decimals.",
    Number(),
    "RMSNorm divides by the RMS and subtracts nothing: average the two coordinates of x / RMS.",
)
def _anchor_mean() -> Solution:
    normalized = rms_norm_forward(example.ANCHOR, None, example.IDEAL_EPS).normalized
    return Solution(
        float(np.mean(normalized)),
        f"x-hat = {fmt(normalized)}, whose mean is {fmt(np.mean(normalized))}: nothing is subtracted, so a vector "
        "on one side of zero stays there.",
        pitfalls=((0.0, "That is LayerNorm's answer; it subtracts the mean, RMSNorm does not."),),
    )


# --- Scale invariance and the epsilon boundary (scale-and-epsilon.md) -----------------------------


@exercise(
    "crossover-rms",
    "Where eps takes half",
    f"For eps = {DEFAULT_EPS:g}, at what RMS of the input is mean(x-hat**2) = ms / (ms + eps) exactly one half? "
    "Six decimals.",
    Number(),
    "One half means the mean square equals eps.",
)
def _crossover_rms() -> Solution:
    rms = float(np.sqrt(DEFAULT_EPS))
    half = float(np.mean(np.square(rms_norm_forward([rms], None, DEFAULT_EPS).normalized)))
    return Solution(
        rms,
        f"ms / (ms + eps) = 1/2 when ms = eps, so the RMS is sqrt({DEFAULT_EPS:g}) = {fmt(rms)}; "
        f"rms_norm of [{fmt(rms)}] "
        f"gives mean(x-hat**2) = {fmt(half)}.",
        pitfalls=((DEFAULT_EPS, "That is eps itself, a mean square; the question asks for the RMS, its square root."),),
    )


# --- From BatchNorm and LayerNorm to pre-norm language models (history.md) ------------------------


@exercise(
    "companion-changes",
    "Whose output depends on the batch",
    f"The anchor {_nums(example.ANCHOR)} is normalized next to {_nums(example.COMPANION)}, then next to a copy "
    "of itself. Whose output for the anchor changes?",
    Choice.of(
        {
            "BatchNorm only": "",
            "LayerNorm only": (
                "LayerNorm's mean and variance come from the anchor's own features; a companion cannot reach them."
            ),
            "RMSNorm only": (
                "RMSNorm's mean square comes from the anchor's own features; a companion cannot reach it."
            ),
            "all three": (
                "LayerNorm and RMSNorm take their statistics across one example's features; can a"
                " companion change those?"
            ),
            "none of them": (
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
    index = {(True, False, False): 0, (False, True, False): 1, (False, False, True): 2, (True, True, True): 3}
    right = index.get(changed, 4)
    return Solution(
        right,
        f"BatchNorm gives {fmt(h.batch_with_companion)} and then {fmt(h.batch_with_itself)}; LayerNorm gives "
        f"{fmt(h.layer_norm_with_companion)} both times, RMSNorm {fmt(h.rms_norm_with_companion)} both times.",
    )


# --- The implementation (implementation.md) -------------------------------------------------------


HALF = precision.HALF_PRECISION_ROW[0]  # the precision page's float16 example
HALF_MAX = float(np.finfo(np.float16).max)


@exercise(
    "half-precision-square",
    f"{HALF:g} squared in float16",
    f"In float16, what is {HALF:g} squared?",
    Choice.of(
        {
            f"{HALF**2:g}": f"{HALF**2:g} is the exact square, but it is larger than any finite float16 can be.",
            f"{HALF_MAX:g}, the largest float16": (
                "Floating point does not stop at its largest value: a result too large to hold is not clamped to it."
            ),
            "inf": "",
            "nan": ("NaN comes from operations with no value, like 0 / 0; squaring a finite number always has one."),
        }
    ),
    f"float16's largest finite value is {HALF_MAX:g}.",
)
def _half_precision_square() -> Solution:
    with np.errstate(over="ignore"):
        square = np.square(np.float16(HALF))
    index = 2 if np.isinf(square) else 0 if square == HALF**2 else 1 if square == HALF_MAX else 3
    return Solution(
        index,
        f"np.square(np.float16({HALF:g})) is {square}: {HALF**2:g} is beyond float16's largest value, "
        f"{HALF_MAX:g}, so it overflows. That is why float16 input is computed in float32.",
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
            "float32": (
                "int64 values can need more than float32's 24 significant bits; the policy does not risk losing them."
            ),
            "float64": "",
        }
    ),
    "Compare the significant bits each float format keeps with an int64's 63.",
)
def _integer_dtype() -> Solution:
    dtype = rms_norm(np.array(X, dtype=np.int64)).dtype
    right = EXERCISES["integer-dtype"].kind.options.index(str(dtype))
    return Solution(
        right,
        f"rms_norm(np.array({_nums(X)}, dtype=int64)) returns {dtype}: integers and bools are computed in float64.",
    )


# --- The backward pass (backward.md) --------------------------------------------------------------


@exercise(
    "grad-x",
    "The input's gradient",
    f"x = {X_TEXT}, g = {G_TEXT}, eps = {DEFAULT_EPS:g}, upstream gradient grad_output = {_nums(UPSTREAM)}. "
    "What is grad_x? Six decimals.",
    PAIR,
    "x enters twice: in the numerator and in the RMS. With u = grad_output * g, "
    "grad_x = r * (u - x-hat * mean(u * x-hat)).",
)
def _grad_x() -> Solution:
    p = evidence.primary()
    derivation = f"grad_x = r * (u - x-hat * mean(u * x-hat)) with u = grad_output * g = {fmt(p.upstream * p.gain)}"
    constant_rms = (p.forward.inverse_rms * p.upstream * p.gain, "That treats the RMS as a constant; x also moves "
                    "the RMS, which adds a second term.")  # fmt: skip
    return _gradient(p.grad_x, derivation, evidence.gradient_checks(p)[0], constant_rms)


def _gradient(values: np.ndarray, derivation: str, check, slip: tuple[np.ndarray, str]) -> Solution:
    """A gradient of the worked example: how it is derived, and how far central differences agree with it."""
    explanation = f"{derivation}, giving {fmt(values)}; {_agreement(check)}."
    return Solution(tuple(values.tolist()), explanation, pitfalls=((tuple(slip[0].tolist()), slip[1]),))


@exercise(
    "grad-gain",
    "The gain's gradient",
    f"Same example, grad_output = {_nums(UPSTREAM)}. What is grad_gain? Six decimals.",
    PAIR,
    "y = g * x-hat, so each gain coordinate's gradient is grad_output times the matching x-hat coordinate.",
)
def _grad_gain() -> Solution:
    p = evidence.primary()
    derivation = f"grad_gain = grad_output * x-hat = {_nums(UPSTREAM)} * {fmt(p.forward.normalized)}"
    uses_y = (p.upstream * p.forward.output, "That uses y; the gain multiplies x-hat.")
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
        f"grad_gain has shape {grad_gain.shape}, the gain's own shape: it sums grad_output * x-hat over all "
        f"{int(np.prod(x.shape[:-1]))} rows. grad_x has the input's shape {grad_x.shape}.",
        pitfalls=((x.shape, "That is the input's shape; a parameter's gradient has the parameter's shape."),),
    )


GRADIENT_SCALE = 4.0  # any factor but the scale cards' ten, so this answer is not theirs


@exercise(
    "grad-x-scaled",
    "The gradient of a scaled input",
    f"With eps = 0, x = {X_TEXT}, g = {G_TEXT} and grad_output = {_nums(UPSTREAM)}, multiply x by {GRADIENT_SCALE:g}. "
    "grad_x of the scaled input is grad_x of x times what factor?",
    Number(),
    "At eps = 0 the output does not change when x is scaled, but the chain rule still passes through 1 / RMS.",
)
def _grad_x_scaled() -> Solution:
    grad_x, _ = rms_norm_backward(X, G, example.IDEAL_EPS, UPSTREAM)
    scaled, _ = rms_norm_backward(GRADIENT_SCALE * np.asarray(X), G, example.IDEAL_EPS, UPSTREAM)
    factor = float(scaled[0] / grad_x[0])
    return Solution(
        factor,
        f"grad_x goes from {fmt(grad_x)} to {fmt(scaled)}, a factor of {factor:g} = 1/{GRADIENT_SCALE:g}: "
        f"the output is unchanged, so its sensitivity to each coordinate shrinks as x grows. And x · grad_x = "
        f"{float(np.dot(X, grad_x)):.1e}, zero to rounding: the gradient has no component along x.",
        pitfalls=(
            (GRADIENT_SCALE, "That is the factor on x; the gradient moves the other way."),
            (1.0, "The output is scale invariant at eps = 0, but its gradient is not."),
        ),
    )


# --- Boundaries (boundaries.md) -------------------------------------------------------------------


ZERO_ROW_OPTIONS = ("a row of zeros", "a row of NaN", "an error that names the row")


def _zero_row_outcome(eps: float) -> tuple[int, str]:
    """Run RMSNorm on the all-zero row and say which option happened, quoting the result."""
    try:
        output = rms_norm(example.ZERO_ROW, G, eps)
    except RMSNormError as error:
        return 2, f"rms_norm({_nums(example.ZERO_ROW)}, g, eps={eps:g}) raised {type(error).__name__}: {error}"
    quoted = f"rms_norm({_nums(example.ZERO_ROW)}, g, eps={eps:g}) returned {fmt(output)}"
    if np.all(output == 0):
        return 0, quoted
    if np.all(np.isnan(output)):
        return 1, quoted
    raise AssertionError(f"{quoted}, which matches none of the options {ZERO_ROW_OPTIONS}")


@exercise(
    "zero-row-positive-eps",
    "An all-zero row, with eps > 0",
    f"What does RMSNorm's formula give for the all-zero row {_nums(example.ZERO_ROW)} with eps = {DEFAULT_EPS:g}?",
    Choice.of(
        {
            ZERO_ROW_OPTIONS[0]: "",
            ZERO_ROW_OPTIONS[1]: "NaN needs 0 / 0, and with eps > 0 the denominator sqrt(0 + eps) is not zero.",
            ZERO_ROW_OPTIONS[2]: (
                "With eps > 0 the division is well defined for every row, so nothing here needs refusing."
            ),
        }
    ),
    "With eps > 0, can the denominator sqrt(mean(x**2) + eps) be zero?",
)
def _zero_row_positive_eps() -> Solution:
    index, quoted = _zero_row_outcome(DEFAULT_EPS)
    return Solution(
        index,
        f"{quoted}. With eps > 0 the denominator is sqrt(0 + eps) > 0, and 0 / it is 0.",
    )


@exercise(
    "zero-row-zero-eps",
    "An all-zero row, with eps = 0",
    f"With eps = 0 the formula divides the all-zero row {_nums(example.ZERO_ROW)} by sqrt(0). "
    "What does this package's rms_norm do with that row?",
    Choice.of(
        {
            ZERO_ROW_OPTIONS[0]: "With eps = 0 the RMS of this row is 0, and 0 / 0 has no value to return as zeros.",
            ZERO_ROW_OPTIONS[1]: (
                "NaN is what the formula gives (0 / 0), and what PyTorch returns; the question is"
                " what this package does, and it checks the row before it divides."
            ),
            ZERO_ROW_OPTIONS[2]: "",
        }
    ),
    "This package checks every row before it divides, and says which row it cannot normalize.",
)
def _zero_row_zero_eps() -> Solution:
    index, quoted = _zero_row_outcome(0.0)
    return Solution(
        index,
        f"{quoted}. With eps = 0 the RMS is 0 and x / RMS is 0 / 0: the formula gives NaN, and PyTorch returns "
        "it. This package refuses the row instead, naming it, so the NaN cannot spread through later layers.",
    )


@exercise(
    "huge-row",
    "A row whose squares overflow",
    "With eps = 0, what is x-hat of the row [1e200, 2e200], whose squares overflow float64? Six decimals.",
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
        f"rms_norm gives {fmt(normalized)}: the row is rescaled by its largest magnitude before squaring. "
        f"The formula as written squares first, overflows, and gives {fmt(naive)}.",
        pitfalls=((tuple(naive.tolist()), "That is the formula as written; the package rescales before squaring."),),
    )


# --- RMSNorm inside the model (in-the-model.md) ---------------------------------------------------


@exercise(
    "pre-norm-placement",
    "Where the norm sits in a block",
    "Where does RMSNorm sit in a pre-normalized residual block with learned branch F and residual h?",
    Choice.of(
        {
            "on the residual stream after the addition: h = RMSNorm(h + F(h))": (
                "That is post-norm: the norm sits on the stream itself, after each addition."
            ),
            ("at the input of the learned branch only: h = h + F(RMSNorm(h)), the identity path untouched"): "",
            "at the output of the learned branch: h = h + RMSNorm(F(h))": (
                "Normalizing the branch's output fixes the size of what it adds, but the branch "
                "still reads the raw stream."
            ),
            "on both paths: h = RMSNorm(h) + F(RMSNorm(h))": (
                "Normalizing both paths replaces the stream by a normalized copy, so the identity"
                " path no longer carries h."
            ),
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
    candidates = (norm(x + branch(x)), x + branch(norm(x)), x + norm(branch(x)), norm(x) + branch(norm(x)))
    matches = [index for index, h in enumerate(candidates) if np.array_equal(h, trace.h)]
    if len(matches) != 1:
        raise AssertionError(f"options {matches} reproduce the block; expected exactly one")
    return Solution(
        matches[0],
        "In the package's PreNormBlock the attention branch reads rows with mean square "
        f"{fmt(np.mean(np.square(trace.attention_input), axis=-1))}: RMSNorm's output. The residual stream "
        f"itself is never normalized: its rows' mean squares are {fmt(np.mean(np.square(x), axis=-1))} going "
        f"in and {fmt(np.mean(np.square(trace.h), axis=-1))} once the branch is added, not one. LLaMA "
        "normalizes the input of each sublayer the same way.",
    )


@exercise(
    "no-decay-policy",
    "Who decides weight decay",
    "Why is leaving the gain out of weight decay an optimizer policy rather than part of RMSNorm?",
    Choice.of(
        {
            "the RMSNorm formula contains a term that cancels weight decay": (
                "No term of y = g * x / sqrt(mean(x**2) + eps) involves weight decay, so nothing cancels it."
            ),
            (
                "the optimizer decides which parameters are decayed, through its parameter "
                "groups; the formula never mentions it"
            ): "",
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
    _, grad_gain = rms_norm_backward(X, G, DEFAULT_EPS, UPSTREAM)
    return Solution(
        1,
        f"By default the optimizer leaves every parameter of rank one or less undecayed, so the gain "
        f"{example.GAIN_NAME} (shape {gain.value.shape}) lands in the no-decay group; passing no_decay=[] moves it "
        "to the decay group, and the layer computes exactly the same output either way. The gain does get a "
        f"gradient ({fmt(grad_gain)} in the worked example).",
    )


# --- Does the centre matter in training? (training.md) --------------------------------------------


@exercise(
    "training-outcome",
    "Which network generalizes best",
    "The 16-block network is trained three ways from the same start: with no normalization, with LayerNorm, "
    "with RMSNorm. Which ends with the lowest loss on examples it never saw?",
    Choice.of(
        {
            "no normalization": "Without a norm the stream grows with depth and the first steps are spent taming it.",
            "LayerNorm, by more than a fifth": (
                "Subtracting the mean is the one thing LayerNorm adds; look at whether this task needs it."
            ),
            "RMSNorm, by more than a fifth": "RMSNorm does less than LayerNorm, not more; what could it gain here?",
            "LayerNorm and RMSNorm, within a fifth of each other": "",
        }
    ),
    "Both norms keep every branch's input at RMS one; only one also subtracts the mean.",
)
def _training_outcome() -> Solution:
    runs = training.experiment(training.Setup())  # the same cached runs as the training page
    none, layer, rms = (runs[variant].held_out_loss for variant in training.VARIANTS)
    close = abs(layer - rms) <= 0.2 * min(layer, rms)
    index = 0 if none < min(layer, rms) else 3 if close else 1 if layer < rms else 2
    return Solution(
        index,
        f"Held-out losses: {none:.3g} without a norm, {layer:.3f} with LayerNorm, {rms:.3f} with RMSNorm. "
        "Subtracting the mean bought nothing on this task.",
    )


# --- RMSNorm in today's models: gains and attention (modern-gains.md) -----------------------------


@exercise(
    "one-plus-gain",
    "A 1 + w gain under weight decay",
    f"A gain stored as 1 + w has been trained to w = {modern.TRAINED_GAIN - 1:g} (gain {modern.TRAINED_GAIN:g}). "
    f"Weight decay alone then multiplies w by 1 - {modern.DECAY_PER_STEP:g} at each step. What is the gain after "
    f"{modern.DECAY_STEPS:,} steps with no gradient? Six decimals.",
    Number(),
    "The decay shrinks w, the stored parameter, not the gain: compute w after the steps, then add one.",
)
def _one_plus_gain() -> Solution:
    decay = modern.gain_decay()
    return Solution(
        float(decay.one_plus[-1]),
        f"w shrinks to {decay.one_plus[-1] - 1:.6f}, so the gain is {decay.one_plus[-1]:.6f}: it heads for one, the "
        f"gain at initialisation. A plain gain decays itself, to {decay.plain[-1]:.6f}, heading for zero.",
        pitfalls=((float(decay.plain[-1]), "That is a plain gain decayed; here the decay acts on w, not on 1 + w."),),
    )


@exercise(
    "qk-logit-bound",
    "How large a QK-normed logit can be",
    f"With RMSNorm on every query and key (gain one, eps = 0), each has length sqrt(d). For head width "
    f"d = {modern.HEAD_WIDTH}, what is the largest value the attention logit q . k / sqrt(d) can take?",
    Number(),
    "q . k is at most |q| |k|, reached when the two point the same way.",
)
def _qk_logit_bound() -> Solution:
    bound = modern.qk_logit_bound(modern.HEAD_WIDTH)  # the width the question names
    attention = modern.qk_norm()
    return Solution(
        bound,
        f"q . k <= |q| |k| = sqrt(d) * sqrt(d) = d, so q . k / sqrt(d) <= sqrt(d) = {bound:g}, whatever the "
        f"activations' scale. Without the norm the seeded logits reach {attention.largest_logit[-1]:,.0f} at scale "
        f"{attention.scales[-1]:g}; with it, {attention.largest_logit_normed[-1]:.2f}.",
        pitfalls=(
            (float(modern.HEAD_WIDTH), "That is q . k itself, before the division by sqrt(d)."),
            (1.0, "Each coordinate of a normalized vector is not at most one; its mean square is one."),
        ),
    )


# --- RMSNorm in today's models: blocks, kernels and estimates (modern-blocks.md) ------------------


@exercise(
    "sandwich-growth",
    "The stream under sandwich norms",
    f"In a sandwich block, h + norm(F(norm(h))), each branch's output is normalized to RMS one before it is "
    f"added. Over {modern.DEPTH} blocks whose branches amplify {modern.BRANCH_GAIN:g}-fold, in independent "
    "directions, how does the residual stream's RMS grow?",
    Choice.of(
        {
            "it stays at one at every block": (
                "That is post-norm, where the stream itself is normalized; here only the branch is."
            ),
            "it grows about as the square root of the number of blocks": "",
            "it grows in proportion to the number of blocks": (
                "Additions of independent directions add in their squares, not in their lengths."
            ),
            "it grows by the branches' gain at every block, exponentially": (
                "The branch's own gain is undone by the norm after it, before anything is added."
            ),
        }
    ),
    "Add vectors of RMS one in independent directions: what happens to the mean square of the sum?",
)
def _sandwich_growth() -> Solution:
    depth = modern.stream_through_depth()
    exponent = depth.growth_exponent("sandwich")
    index = min(range(3), key=lambda i: abs(exponent - (0.0, 0.5, 1.0)[i])) if exponent < 1.5 else 3
    sandwich = depth.stream_rms["sandwich"]
    return Solution(
        index,
        f"The seeded stream's RMS goes {sandwich[0]:.2f}, {sandwich[4]:.2f}, {sandwich[-1]:.2f} after 0, 4 and "
        f"{modern.DEPTH} blocks: a slope of {exponent:.2f} in log-log, the square root's 0.5. Pre-norm, whose "
        f"branches add unnormalized outputs, reaches {depth.stream_rms['pre-norm'][-1]:.1f}.",
    )


@exercise(
    "fused-bytes",
    "Bytes moved by a fused add + RMSNorm",
    "In bfloat16 (2 bytes a number), one kernel reads the stream h and the branch output f, and writes the new "
    "stream h' = h + f and the normalized row y. How many bytes does it move per element?",
    Number(),
    "Count every array the kernel reads or writes once, at two bytes each.",
)
def _fused_bytes() -> Solution:
    unfused, fused = modern.KERNELS
    return Solution(
        float(fused.bytes_per_element()),
        f"Two reads and two writes of 2 bytes: {fused.bytes_per_element()} bytes per element. Run apart, the "
        f"addition writes h' and the norm reads it back: {unfused.bytes_per_element()} bytes, so where memory is "
        f"the limit the fused kernel is {unfused.bytes_per_element() / fused.bytes_per_element():.2f} times as fast.",
        pitfalls=(
            (float(unfused.bytes_per_element()), "That counts h' read back by a second kernel; one pass keeps it."),
            (4.0, "That counts each array once but at one byte; bfloat16 numbers take two."),
        ),
    )


@exercise(
    "partial-rms-error",
    "How far off a partial RMS is",
    f"pRMSNorm estimates a row's RMS from its first p of the coordinates. For a row of d = {modern.LLAMA_WIDTHS[0]} "
    f"independent standard normal values and p = {modern.PAPER_SHARE:.2%} "
    f"({modern.values_read(modern.PAPER_SHARE, modern.LLAMA_WIDTHS[0])} "
    "values), about how far off is the estimate, typically?",
    Choice.of(
        {
            "about 0.04%": (
                "That would need a million values; the mean square of n values is off by about sqrt(2 / n)."
            ),
            "about 0.4%": "That would need tens of thousands of values, more than the whole row holds.",
            "about 4%": "",
            "about 40%": "That is the error of an estimate from a handful of values, not from hundreds.",
        }
    ),
    "The mean square of n unit normal values is off by about sqrt(2 / n) of itself; its root, by half that.",
)
def _partial_rms_error() -> Solution:
    error = modern.partial_rms().error(modern.LLAMA_WIDTHS[0])
    sizes = [float(option.strip("about %")) / 100 for option in EXERCISES["partial-rms-error"].kind.options]
    index = int(np.argmin([abs(np.log(error / size)) for size in sizes]))
    count = modern.values_read(modern.PAPER_SHARE, modern.LLAMA_WIDTHS[0])
    return Solution(
        index,
        f"Over {modern.ROWS:,} seeded rows the median error is {error:.2%}; sqrt(1 / (2 n)) for n = {count} is "
        f"{modern.partial_rms_spread(count):.2%}, the spread around which that median sits.",
    )


# --- Precision (precision.md) ---------------------------------------------------------------------


@exercise(
    "float16-formula-row",
    "The formula, all in float16",
    f"Computed as written, every step in float16, what does x / sqrt(mean(x**2) + eps) give for the row "
    f"x = {_nums(precision.HALF_PRECISION_ROW)}, eps = {DEFAULT_EPS:g}? Six decimals.",
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
        f"In float16, {row[0]:g} squared overflows to inf, the mean and its root are inf, and x / inf is 0: "
        f"{fmt(formula)}. rms_norm computes in float32 and returns {fmt(upcast)} in float16.",
        pitfalls=(
            (
                tuple(float(v) for v in upcast),
                "That is what the package returns, computing in float32; the formula as written stays in float16.",
            ),
        ),
    )


def get(exercise_id: object) -> Exercise:
    """The exercise with this id, or an error that suggests the nearest ids."""
    if isinstance(exercise_id, str) and exercise_id in EXERCISES:
        return EXERCISES[exercise_id]
    near = difflib.get_close_matches(exercise_id, EXERCISES, n=3) if isinstance(exercise_id, str) else []
    expected = f"did you mean {' or '.join(map(repr, near))}?" if near else f"expected one of {', '.join(EXERCISES)}"
    named = quoted(exercise_id) if isinstance(exercise_id, str) else f"of type {type(exercise_id).__name__}"
    raise UnknownExercise(f"there is no exercise {named}; {expected}")
